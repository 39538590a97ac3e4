"""The fact ledger's general rules for files and records (issue 27, tenth round): what
the agent says it did to a named thing in any language, a tool's line that names a
thing and its new state anywhere on the line, git's uncommitted changes, Dart's failing
tests and a state nested under a named JSON object. Each case failed on the rules
before this round; none is taken from a fidelity set."""

from __future__ import annotations

import json

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction._ledger import TIERS, Fact, Ledger, build_ledger, split_ledger
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter
from tests.compaction.test_ledger import call, facts_of


def _section(facts: dict[str, Fact]) -> str:
    section, _ = Ledger(list(facts.values())).restore("", "", 2_000, approx_token_counter)
    return section


def _line(section: str, name: str) -> str:
    return next(line for line in section.splitlines() if f"`{name}`" in line)


def test_what_the_agent_says_it_did_to_a_named_thing_is_kept_in_its_own_words() -> None:
    facts = facts_of(
        [
            Message.user("Nézd meg a régi exportot."),
            *call(1, "bash", {"command": "ls sql/"}, "legacy_export.sql\nnightly.sql"),
            Message.assistant("Senki nem hívja, ezért töröltem a legacy_export.sql fájlt."),
            Message.user("Og synkroniseringen?"),
            *call(2, "bash", {"command": "nomad job status ordre-sync"}, "Status = running"),
            Message.assistant("Jeg har satt ordre-sync på pause til fredag."),
            Message.user("設定は？"),
            Message.assistant("deploy.yaml のレプリカ数を 3 に更新しました。"),
        ]
    )
    section = _section(facts)
    assert "töröltem" in _line(section, "legacy_export.sql")
    assert "på pause" in _line(section, "ordre-sync")
    assert "更新しました" in _line(section, "deploy.yaml")
    assert facts["legacy_export.sql"].tier == TIERS["said"]


def test_the_agents_words_round_trip_through_the_section() -> None:
    facts = facts_of(
        [
            Message.user("Ryd op i staging."),
            Message.assistant("Jeg har slettet billing_staging_v2 fra katalogen."),
        ]
    )
    section = _section(facts)
    _, carried = split_ledger("summary\n\n" + section)
    again = {f.key: f for f in carried}
    assert again["billing_staging_v2"].state == facts["billing_staging_v2"].state
    # carried, the agent's words rank as such (an id the words named ranked higher)
    assert again["billing_staging_v2"].tier == TIERS["said"]


def test_a_question_a_conditional_or_an_unseen_hyphenated_word_is_no_record() -> None:
    facts = facts_of(
        [
            Message.user("Was ist mit cleanup_job.py?"),
            Message.assistant("Soll ich cleanup_job.py löschen?"),
            Message.user("Und der Export?"),
            Message.assistant("Wenn du willst, lösche ich export_old.csv morgen früh."),
            Message.user("Danke."),
            Message.assistant("A follow-up is on the list, the read-only mode stays."),
        ]
    )
    assert "cleanup_job.py" not in facts
    assert "export_old.csv" not in facts
    assert "follow-up" not in facts
    assert "read-only" not in facts


def test_the_agents_words_never_replace_what_a_tool_reported() -> None:
    facts = facts_of(
        [
            Message.user("Remove the old app."),
            *call(
                1, "bash", {"command": "argocd app delete web-a -y"}, "application 'web-a' deleted"
            ),
            Message.assistant("web-a is gone, nothing referenced it anymore."),
            *call(2, "edit", {"path": "src/app.py", "old": "a", "new": "b"}, "ok"),
            Message.assistant("Ho sistemato src/app.py come concordato."),
        ]
    )
    assert facts["web-a"].state == "status deleted"
    assert facts["src/app.py"].kind == "file"
    assert facts["src/app.py"].state.startswith("modified")


def test_a_tools_line_naming_a_thing_and_its_new_state_anywhere_is_a_record() -> None:
    outputs = [
        "+----------------------------------------+\n"
        "| status                                 |\n"
        "|----------------------------------------|\n"
        "| Table ORDERS_ARCHIVE_2022 successfully dropped. |\n"
        "+----------------------------------------+",
        "workflow 'nightly-rollup' paused",
        "✔  hosting: released version abc123 of site storefront-eu",
        "| SYNC_LEDGER_HOURLY | 0 * * * * | suspended |",
        'release "payments-canary" rolled back',
    ]
    messages = [Message.user("Clean up.")]
    for i, output in enumerate(outputs):
        messages += call(i, "bash", {"command": f"step {i}"}, output)
    facts = facts_of(messages)
    assert facts["ORDERS_ARCHIVE_2022"].state == "status dropped"
    assert facts["nightly-rollup"].state == "status paused"
    assert facts["storefront-eu"].state == "status released"
    assert facts["SYNC_LEDGER_HOURLY"].state == "status suspended"
    assert facts["payments-canary"].state == "status rolled back"


def test_a_state_word_without_a_name_or_in_a_timestamped_log_names_no_record() -> None:
    output = "Deleted 14 rows.\n3 created, 0 removed\nINFO created the session"
    facts = facts_of([Message.user("Run it."), *call(1, "bash", {"command": "x"}, output)])
    assert not [f for f in facts.values() if f.kind == "record"]


def test_git_status_names_the_uncommitted_changes() -> None:
    output = (
        "On branch main\nChanges not staged for commit:\n"
        "\tmodified:   app/Jobs/SyncInvoices.php\n\tdeleted:    resources/views/old.blade.php\n"
        "\nChanges to be committed:\n\tnew file:   config/queue_limits.php\n"
    )
    short = " M lib/screens/cart.dart\nD  lib/legacy/banner.dart\n?? notes.txt"
    facts = facts_of(
        [
            Message.user("Status?"),
            *call(1, "bash", {"command": "git status"}, output),
            *call(2, "bash", {"command": "git status --short"}, short),
        ]
    )
    assert facts["app/Jobs/SyncInvoices.php"].state.startswith("modified")
    assert facts["resources/views/old.blade.php"].state == "deleted"
    assert facts["config/queue_limits.php"].state.startswith("created")
    assert facts["lib/screens/cart.dart"].state.startswith("modified")
    assert facts["lib/legacy/banner.dart"].state == "deleted"
    assert "notes.txt" not in facts  # untracked: no one said it was made here


def test_darts_failing_test_line_is_a_failed_record() -> None:
    output = (
        "00:04 +12: test/unit/price_test.dart: rounds half up\n"
        "00:07 +12 -1: test/widget/invoice_test.dart: shows VAT line [E]\n"
        "  Expected: 'VAT 21%'\n00:09 +30 -1: Some tests failed."
    )
    facts = facts_of([Message.user("Test."), *call(1, "bash", {"command": "flutter test"}, output)])
    assert facts["test/widget/invoice_test.dart"].state.endswith("tests failed")


def test_a_state_nested_under_a_named_json_object_is_that_objects_state() -> None:
    output = json.dumps(
        {
            "name": "crm-contacts-sink",
            "connector": {"state": "PAUSED", "worker_id": "connect-2:8083"},
            "tasks": [{"id": 0, "state": "PAUSED", "worker_id": "connect-2:8083"}],
        }
    )
    facts = facts_of([Message.user("Pause it."), *call(1, "http", {"url": "x"}, output)])
    assert facts["crm-contacts-sink"].state == "status PAUSED"
    assert "connect-2:8083" not in facts or facts["connect-2:8083"].kind == "id"


def test_a_ledger_with_the_agents_words_still_builds_from_a_previous_summary() -> None:
    first = build_ledger(
        [Message.user("Limpia."), Message.assistant("He borrado tmp_import_2023 del bucket.")]
    )
    section, _ = first.restore("Summary.", "", 1_000, approx_token_counter)
    again = build_ledger([Message.user("ok")], carried=split_ledger("S\n\n" + section)[1])
    assert any(f.key == "tmp_import_2023" and "borrado" in f.state for f in again.facts)


def _talk(*turns: str) -> list[Message]:
    return [Message.user(t) if i % 2 == 0 else Message.assistant(t) for i, t in enumerate(turns)]


def _noted(history: list[Message]) -> list[str]:
    return [f.key for f in build_ledger(history).facts if f.kind in ("decision", "pending")]


def test_the_users_short_answer_to_the_agents_question_is_decided_with_the_question() -> None:
    cases = [
        ("Welke regio voor de back-up: eu-central-1 of eu-west-3?", "eu-west-3.", "eu-west-3"),
        ("Kolik workerů pro frontu faktur: 4 nebo 8?", "8, víc server neunese.", "8, víc"),
        ("Ikuhifadhi kumbukumbu kwa siku 30 au 90?", "Siku 90.", "Siku 90"),
        ("Propunerea mea: indexul pe (pacient_id, data). E în regulă?", "Da, fă-l.", "pacient_id"),
    ]
    for question, answer, said in cases:
        decided = _noted(_talk("Hai un momento?", question, answer))
        assert any(question.split(":")[0] in d and said in d for d in decided), decided


def test_a_long_answer_or_a_new_question_is_no_question_and_answer_decision() -> None:
    question = "Welke regio voor de back-up: eu-central-1 of eu-west-3?"
    asked_back = _noted(_talk("Kijk even.", question, "Wat is het verschil in prijs?"))
    assert not [d for d in asked_back if question in d]
    report = "Intussen heb ik de logs bekeken. " * 8
    long = _noted(_talk("Kijk even.", question, report))
    assert not [d for d in long if question in d]


def test_the_agents_one_sentence_reply_to_the_users_words_is_its_take_up() -> None:
    cases = [
        ("Het exportbestand moet voortaan UTF-8 met BOM zijn.", "Genoteerd: UTF-8 met BOM."),
        ("Retenția pe topicuri e de maximum 14 zile.", "Setez retention.ms la 14 zile."),
        ("Deadline för prod-migreringen är torsdag 09:30.", "Skrivit upp: prod före 09:30."),
    ]
    for user, agent in cases:
        # with the words it takes up, unless it is an acknowledgement of its own
        decided = _noted(_talk(user, agent))
        assert f"{user} \u2192 {agent}" in decided or agent in decided, (user, decided)


def test_a_long_reply_a_question_or_a_reply_to_a_question_is_no_take_up() -> None:
    long = "Setez retention.ms la 14 zile. Apoi verific consumatorii. Și rulez testele din nou."
    assert not _noted(_talk("Retenția e de maximum 14 zile.", long))
    padded = "Setez retention.ms la 14 zile: " + "x" * 200  # 200 characters at most
    assert not _noted(_talk("Retenția e de maximum 14 zile.", padded))
    asked = "Pe toate topicurile, sau doar pe unul?"
    assert not _noted(_talk("Retenția e de maximum 14 zile.", asked))
    assert not _noted(_talk("Cât e retenția acum?", "Retenția e de 7 zile pe toate topicurile."))


def test_a_take_up_in_a_paragraph_of_its_own_before_the_work_counts() -> None:
    user = "Limit pro frontu faktur je 8 workerů, víc server neunese."
    reply = "Zapsáno: fronta faktur nejvýš 8 workerů.\n\nPodívám se do logů."
    history = [
        Message.user(user),
        Message("assistant", [TextBlock(reply), ToolUseBlock("c1", "bash", {"command": "ls"})]),
        Message("user", [ToolResultBlock("c1", "log.txt")]),
    ]
    assert f"{user} \u2192 Zapsáno: fronta faktur nejvýš 8 workerů." in _noted(history)
    # an agent that names what it looks at first, then works, takes nothing up
    plain = "I'll look at parser.py first."
    history = [
        Message.user("The parser.py tests fail on empty input."),
        Message("assistant", [TextBlock(plain), ToolUseBlock("c1", "read", {"path": "parser.py"})]),
        Message("user", [ToolResultBlock("c1", "def parse(): ...")]),
    ]
    assert plain not in _noted(history)


def test_a_no_then_a_value_is_a_change_of_mind_in_any_language() -> None:
    for correction in ["Nie, radšej 45 sekúnd.", "Ні, краще 12 реплік.", "नहीं, timeout 90s रखो।"]:
        history = _talk("Nastav timeout.", "Timeout je 30 sekúnd.", correction)
        said = [f.key for f in build_ledger(history).facts if f.kind == "instruction"]
        assert correction in said, correction


def test_the_agents_work_put_on_tomorrow_in_more_languages_is_its_next_step() -> None:
    promises = [
        "Rytoj paleisiu migraciją staging aplinkoje.",
        "ხვალ გავუშვებ მიგრაციას staging-ზე.",
        "Bydda i'n rhedeg y mudo ar staging yfory.",
        "நாளை staging-இல் migration ஓட்டுவேன்.",
    ]
    for promise in promises:
        history = _talk("When can the staging migration run?", promise)
        steps = [f.key for f in build_ledger(history).facts if f.kind == "next"]
        assert any(promise in step for step in steps), promise


def test_a_short_yes_to_a_proposal_in_more_languages_is_the_decision() -> None:
    history = _talk("Massa lent.", "Proposo reduir el lot a 50 registres.", "sí")
    assert "Proposo reduir el lot a 50 registres." in _noted(history)


def test_remind_me_is_a_next_step() -> None:
    history = _talk("Remind me to renew the TLS cert for api.shop.test on Friday.", "Will do.")
    assert [f for f in build_ledger(history).facts if f.kind == "next"]


def test_a_reminder_or_tomorrow_anywhere_in_the_users_words_is_a_next_step() -> None:
    said = [
        "Jangan lupa: kemas kini suapan produk sebelum jualan bermula.",
        "Hyvä. Muistuta minua uusimaan sertifikaatti ensi viikolla.",
        "Thanks. I'll rotate the deploy key tomorrow, you only prepare the PR.",
    ]
    for text in said:
        history = _talk(text, "Ok.")
        steps = [f.key for f in build_ledger(history).facts if f.kind == "next"]
        assert steps, text


def test_a_host_name_is_one_identifier_whole() -> None:
    facts = facts_of(
        [
            Message.user("Where does the API live?"),
            Message.assistant("Frontendile: **func-saunarent-9a5509.azurewebsites.net**."),
        ]
    )
    assert "func-saunarent-9a5509.azurewebsites.net" in facts
    assert "saunarent-9a5509" not in facts  # not a fragment of it
    short = facts_of([Message.user("Use node.js, e.g. v20, and www.example.com.")])
    assert "node.js" not in short

"""Attacks on the fact ledger's seventh round of rules (dadf847: a short yes makes the
agent's proposal a decision, the agent's take-up is a decision, a change of mind opening
a clause, test classes, migrations and switched settings as records), with inputs the
author did not choose.

Every test asserts the correct behaviour. A test marked ``xfail(strict=True)`` is a
finding: it fails on dadf847, and its reason says why. The other tests document what
holds. Performance tests use a generous deadline (``signal.setitimer``) sized so that a
quadratic scan fails and a linear one passes with a wide margin; they do not assert
wall-clock time.
"""

from __future__ import annotations

import pytest

from contextfold.compaction._ledger import _ID_SHARE, build_ledger
from contextfold.messages import Message, TextBlock
from contextfold.tokens import approx_token_counter
from tests.attack27.test_ledger_attack import deadline
from tests.compaction.test_ledger import call, facts_of

PROPOSAL = "I'd clear the build cache and rerun the pipeline on a fresh runner. Shall I?"
REMINDER = (
    "<system-reminder>The TodoWrite tool hasn't been used recently. Consider using it."
    "</system-reminder>"
)


def talk(*turns: str) -> list[Message]:
    """A conversation that alternates user and agent, user first."""
    return [
        Message.user(text) if i % 2 == 0 else Message.assistant(text)
        for i, text in enumerate(turns)
    ]


def noted(history: list[Message], *kinds: str) -> list[tuple[str, str]]:
    kinds = kinds or ("decision", "pending")
    return [(f.kind, f.key) for f in build_ledger(history).facts if f.kind in kinds]


def approved(reply: str, proposal: str = PROPOSAL) -> list[tuple[str, str]]:
    """The decisions and pending work of the user's ``reply`` to the agent's proposal."""
    return noted(talk("The pipeline is stuck.", proposal, reply))


def records(
    output: str, tool: str = "shell", args: dict[str, object] | None = None
) -> dict[str, str]:
    facts = facts_of([Message.user("Run it."), *call(1, tool, args or {"command": "x"}, output)])
    return {k: f.state for k, f in facts.items() if f.kind == "record"}


def shell_records(*outputs: str) -> dict[str, str]:
    """The records after the ``outputs`` of shell commands run in turn."""
    history = [Message.user("Migrate the database.")]
    for n, output in enumerate(outputs):
        history += call(n, "shell", {"command": "migrate"}, output)
    return {f.key: f.state for f in build_ledger(history).facts if f.kind == "record"}


# -- 1. a short yes: what is and is not approval ----------------------------------------


def test_a_plain_no_or_a_question_about_the_proposal_is_no_decision() -> None:
    """**Holding**: a refusal in a dozen languages, a bare question, "ok wait" and
    "yes, actually no" approve nothing."""
    for reply in (
        "no",
        "nope, leave it",
        "nein, lass das",
        "non, pas maintenant",
        "nee, laat maar",
        "nie, zostaw",
        "нет, не надо",
        "いいえ、まだです",
        "不要，先别动",
        "아니요, 그대로 두세요",
        "hayır, dokunma",
        "why?",
        "what would that cost?",
        "ok wait",
        "yes, actually no",
        "k8s is the issue, not the cache",
    ):
        assert approved(reply) == [], reply


def test_a_yes_answers_only_the_proposal_since_the_users_last_words() -> None:
    """**Holding**: a yes after the user's own question and the agent's short answer does
    not reach back to the older proposal."""
    history = talk(
        "Look at it.",
        "I'd raise the pool size to 20 in prod.yaml. Shall I?",
        "what's the current value?",
        "10.",
        "yes",
    )
    assert noted(history) == []


def test_a_reminder_inside_the_users_yes_is_not_their_words() -> None:
    """**Holding**: a ``<system-reminder>`` in the same text as the yes is stripped, both
    before the yes and after it, even one that says "Do not proceed"."""
    proposal = "I'd raise the pool size to 20 in prod.yaml so the batch job stops timing out."
    for reply in (
        REMINDER + "\nyes, do that",
        "yes, do that\n" + REMINDER.replace("Consider using it.", "Do not proceed."),
    ):
        assert noted(talk("Look at it.", proposal + " Shall I?", reply)) == [("decision", proposal)]


def test_a_question_back_is_not_a_yes() -> None:
    wrong = {
        reply: approved(reply)
        for reply in (
            "ok?",
            "sure?",
            "yes?",
            "ok so the runner is the culprit?",
        )
    }
    wrong["可以吗？"] = approved("可以吗？", "建议把连接池改成20，要不要这样改？")
    wrong["네? 왜요?"] = approved("네? 왜요?", "풀을 20으로 올릴까요?")
    assert {k: v for k, v in wrong.items() if v} == {}


def test_a_yes_followed_by_but_not_now_is_no_decision() -> None:
    replies = [
        "yes, but not now",
        "ok, hold off for now",
        "sure, no",
        "yes. Don't.",
        "fine, don't do it then",
        "k, whatever, later",
        "ja, aber nicht jetzt",
        "vale, pero todavía no",
        "tak, ale nie teraz",
        "evet ama şimdi değil",
        "да нет, не надо",
    ]
    wrong = {reply: approved(reply) for reply in replies}
    wrong["はい、でも今はやめて"] = approved("はい、でも今はやめて", "プールを20に上げましょうか？")
    wrong["好的，但是先别改"] = approved("好的，但是先别改", "建议把连接池改成20，要不要这样改？")
    assert {k: v for k, v in wrong.items() if v} == {}


def test_words_that_mean_yes_only_in_another_language_are_no_yes() -> None:
    replies = [
        "ya lo probé, no funciona",  # I already tried it, it does not work
        "da ist noch ein Fehler im Log",  # there is still an error in the log
        "si è rotto di nuovo",  # it broke again
        "pode ser que o cache esteja velho",  # it may be that the cache is stale
        "так не пойдёт",  # that won't do
        "có lỗi mới trong log",  # there is a new error in the log
        "si no hay otra opción",  # if there is no other option
        "top of the log still shows the old error",
        "fine-tune the timeout first",
    ]
    assert {reply: approved(reply) for reply in replies if approved(reply)} == {}


def test_sarcasm_is_no_approval() -> None:
    replies = [
        "great, it's broken again",
        "yeah right, as if that would work",
        "perfect, now it's broken everywhere",
        # the same in other words and languages
        "yeah right.",
        "great, it broke",
        "super, jetzt ist alles kaputt",
        "genial, otra vez roto",
        "parfait, c'est encore cassé",
        "perfetto, si è rotto di nuovo",
        "отлично, опять всё сломалось",
        "はい、また壊れた",
    ]
    assert {reply: approved(reply) for reply in replies if approved(reply)} == {}


@pytest.mark.parametrize(
    "reply",
    [
        "great, do it",
        "perfect",
        "yes, fix the broken build",
        "yes, it's still failing, go ahead",
        "ok, right away",
        "ja, mach das",
    ],
)
def test_a_yes_that_mentions_a_breakage_still_approves(reply: str) -> None:
    """The counter-case: a real yes, even one that names what is broken."""
    assert approved(reply) == [("decision", PROPOSAL.removesuffix(" Shall I?"))]


def test_a_yes_to_a_question_of_fact_or_of_choice_is_no_decision() -> None:
    cases = {
        "fact": (
            "The export failed at 02:10 with a lock timeout. Is the backup job still "
            "scheduled at 02:00 on the primary?",
            "yes",
        ),
        "either": ("Do you want the export in UTC or in the shop's local time zone?", "ok"),
        "which": (
            "Option A: pin the driver to 4.2.1. Option B: upgrade to 5.0 and migrate the "
            "pool config. Which one do you prefer?",
            "ok",
        ),
        # the same in other languages
        "fact de": (
            "Der Export ist um 02:10 fehlgeschlagen. Läuft der Backup-Job noch um 02:00 "
            "auf dem Primary?",
            "ja",
        ),
        "either de": ("Soll der Export in UTC oder in der lokalen Zeit laufen?", "ja"),
        "which de": ("Welche Region soll ich nehmen, eu-west-1 oder eu-central-1?", "ok"),
        "either zh": ("导出要用UTC还是本地时间？", "好的"),
    }
    wrong = {}
    for name, (question, reply) in cases.items():
        decided = noted(talk("The export failed.", question, reply))
        if decided:
            wrong[name] = decided
    assert wrong == {}


def test_thanks_for_a_report_is_neither_a_decision_nor_pending_work() -> None:
    histories = {
        "anything else": talk(
            "Deploy it to staging.",
            "Deployed build 4812 to staging and the smoke tests pass. Anything else?",
            "great, thanks",
        ),
        "report": talk(
            "Run the suite.",
            "All 312 tests passed and coverage on the billing module went up to 87 percent.",
            "great, thanks",
        ),
        "after a detour": talk(
            "The batch job times out.",
            "I'd raise the pool size to 20 in prod.yaml. Shall I?",
            "no wait, first show me the config",
            "The pool is at 10 and the file has a comment about raising it to 50 if needed.",
            "ok",
        ),
    }
    assert {k: noted(h) for k, h in histories.items() if noted(h)} == {}


@pytest.mark.parametrize(
    "question",
    [
        "Is that OK?",
        "Does that work for you?",
        "What do you think?",
        "Is it fine if I do that now?",
        "Ist das in Ordnung?",
    ],
)
def test_a_yes_to_a_question_for_a_verdict_still_approves(question: str) -> None:
    """The counter-case: the question asks whether the proposal may go ahead."""
    proposal = "I'd raise the pool size to 20 in prod.yaml."
    decided = noted(talk("The batch job times out.", f"{proposal} {question}", "yes"))
    assert decided, question
    assert "to 20" in decided[0][1], decided


@pytest.mark.parametrize(
    ("detour", "reply"),
    [
        ("no wait, first show me the config", "The pool is at 10 in prod.yaml today."),
        ("nein warte, zeig mir erst die Config", "Der Pool steht in prod.yaml auf 10."),
        ("non attends, montre-moi d'abord la config", "Le pool est à 10 dans prod.yaml."),
    ],
)
def test_the_report_a_detour_asked_for_is_no_decision(detour: str, reply: str) -> None:
    history = talk(
        "The batch job times out.",
        "I'd raise the pool size to 20 in prod.yaml. Shall I?",
        detour,
        reply,
    )
    assert noted(history) == []


def test_a_change_of_mind_is_still_taken_up_as_a_decision() -> None:
    """The counter-case: a detour that changes the plan keeps the agent's take-up."""
    history = talk(
        "The batch job times out.",
        "I'd raise the pool size to 20 in prod.yaml. Shall I?",
        "no wait, make it 30 instead",
        "Understood: the pool goes to 30 in prod.yaml, not 20.",
    )
    assert any("30" in key for _, key in noted(history, "decision"))


def test_the_proposal_is_the_sentence_that_proposes() -> None:
    cases = {
        "I had": "Pinning the JDBC driver to 4.2.1 fixes the pool leak. I'd seen the same "
        "leak in the billing service last year. Shall I?",
        "could not": "Raising the pool to 20 fixes it. We could not reproduce the leak "
        "locally though. OK to ship?",
    }
    wrong = {}
    for name, proposal in cases.items():
        decided = noted(talk("Look at the leak.", proposal, "yes"))
        if not (decided and ("4.2.1" in decided[0][1] or "to 20" in decided[0][1])):
            wrong[name] = decided
    assert wrong == {}


@pytest.mark.parametrize(
    "proposal",
    [
        "Here is the change I'd make:\n```diff\n-pool: 10\n+pool: 20\n```\nShall I?",
        "Ich würde das so ändern:\n```diff\n--- a/prod.yaml\n+++ b/prod.yaml\n@@ -1 +1 @@\n"
        "-pool: 10\n+pool: 20\n```\nSoll ich?",
        "I'd run this:\n```bash\nkubectl scale deploy/web --replicas=20\n```\nOK?",
    ],
)
def test_a_proposal_in_a_code_fence_is_not_an_empty_decision(proposal: str) -> None:
    decided = noted(talk("Look at it.", proposal, "yes"))
    assert all("20" in key for _, key in decided), decided


def test_a_credential_in_a_proposed_code_block_stays_out_of_the_decision() -> None:
    proposal = "I'd set it in .env:\n```\nDB_URL=postgres://admin:hunter22@db:5432/shop\n```\nOK?"
    assert all("hunter22" not in key for _, key in noted(talk("Fix it.", proposal, "yes")))


def test_a_reminder_block_before_the_yes_does_not_lose_the_decision() -> None:
    proposal = "I'd raise the pool size to 20 in prod.yaml so the batch job stops timing out."
    history = talk("Look at it.", proposal + " Shall I?")
    history.append(Message("user", [TextBlock(REMINDER), TextBlock("yes, do that")]))
    assert noted(history) == [("decision", proposal)]


def test_a_second_text_block_does_not_replace_the_proposal() -> None:
    proposal = "I'd raise the pool size to 20 in prod.yaml so the batch job stops timing out."
    history = [
        Message.user("Look at it."),
        Message(
            "assistant",
            [
                TextBlock(proposal + " Shall I?"),
                TextBlock("Also, the staging config has the same problem and I checked it."),
            ],
        ),
        Message.user("yes"),
    ]
    assert ("decision", proposal) in noted(history)


def test_an_approved_i_will_proposal_stays_a_decision() -> None:
    proposal = "I'll raise the pool size to 20 in prod.yaml so the batch job stops timing out."
    history = talk("The batch job times out.", proposal + " OK?", "yes")
    assert noted(history, "decision") == [("decision", proposal)]


# -- 2. the agent's take-up ---------------------------------------------------------------


def test_an_answer_to_a_question_is_no_decision() -> None:
    cases = [
        (
            "why did the nightly test fail?",
            "Right, the test failed because the fixture DB was stale after the migration.",
        ),
        ("what's the p99 now?", "OK, the p99 is 412 ms on the checkout endpoint, up from 380."),
        (
            "can you explain the retry logic?",
            "Sure, the client retries three times with exponential backoff starting at 200 ms.",
        ),
        (
            "what does the flag do?",
            "Certainly, the flag skips the ghost entries when the ledger is rebuilt.",
        ),
        ("is the cache warm?", "Alright, so the cache hit rate is at 93 percent right now."),
        ("¿por qué falla el test?", "Claro, falla porque el fixture usa la zona horaria UTC."),
        ("perché fallisce?", "Certo, fallisce perché il mock restituisce None."),
    ]
    wrong = {q: noted(talk(q, a)) for q, a in cases if noted(talk(q, a))}
    assert wrong == {}


def test_a_take_up_that_ends_its_first_sentence_with_the_acknowledgement() -> None:
    cases = [
        (
            "the replica count for eu-west is 5 from now",
            "Understood. eu-west runs 5 replicas from now on.",
        ),
        (
            "the replica count for eu-west is 5 from now",
            "Got it. eu-west runs 5 replicas from now on.",
        ),
        (
            "las réplicas de eu-west ahora son 5",
            "Entendido. eu-west corre con 5 réplicas desde ahora.",
        ),
        ("eu-westのレプリカは今後5で", "承知しました。eu-westは今後5レプリカで運用します。"),
    ]
    missed = [a for q, a in cases if not noted(talk(q, a))]
    assert missed == []


def test_take_ups_in_phrasings_the_list_lacks() -> None:
    cases = [
        (
            "the replica count for eu-west is 5 from now",
            "Makes sense, eu-west runs 5 replicas from now on.",
        ),
        (
            "the replica count for eu-west is 5 from now",
            "On it: eu-west runs 5 replicas from now on.",
        ),
        (
            "the replica count for eu-west is 5 from now",
            "Sounds good, eu-west runs 5 replicas from now on.",
        ),
        (
            "die Replikas für eu-west sind ab jetzt 5",
            "Geht klar, eu-west läuft ab jetzt mit 5 Replikas.",
        ),
        (
            "les réplicas pour eu-west passent à 5",
            "Bien reçu, eu-west tourne désormais avec 5 réplicas.",
        ),
        ("реплик для eu-west теперь 5", "Принято, eu-west работает с 5 репликами."),
    ]
    missed = [a for q, a in cases if not noted(talk(q, a))]
    assert missed == []


# -- 3. a change of mind opening a clause -------------------------------------------------

REPORTS = [
    "I thought the deploy was broken, actually it worked.",
    "Checked staging - actually it worked fine there.",
    "The diff is fine: actually readable now.",
    "Nice, moment of truth now.",
    "Funciona, mejor que antes.",  # it works, better than before
    "Działa, jednak wolno.",  # it works, but slowly
    "Ça marche, plutôt bien même.",  # it works, rather well even
    "Merci, en fait c'était le cache.",  # thanks, in fact it was the cache
    "Gracias, de hecho ya funciona.",  # thanks, in fact it works already
    "Grazie, in realtà funziona già.",
    "Tack, förresten bra jobbat med testerna.",  # thanks, by the way good job
    "Δεν ξέρω, μάλλον φταίει η cache.",  # I don't know, probably the cache
    "Das sieht gut aus, eigentlich perfekt so.",
    "Thanks — eigenlijk wel mooi zo.",
]


def test_a_clause_that_opens_with_a_marker_but_reports_is_no_change_of_mind() -> None:
    reply = "Glad to hear it, I checked both configs and moved on."
    wrong = {}
    for text in REPORTS:
        history = talk("Look at the export.", "It is fine now.", text, reply)
        found = noted(history, "instruction", "decision")
        if found:
            wrong[text] = found
    assert wrong == {}


def test_reports_with_a_clause_marker_do_not_push_out_a_real_instruction() -> None:
    rule = "Use Decimal for every amount, never floats."
    history = [Message.user(rule), Message.assistant("Will do.")]
    for n in range(13):
        history += [
            Message.user(f"Thanks, actually it worked on run {n} as well."),
            Message.assistant("Glad to hear it, moving on."),
        ]
    assert ("instruction", rule) in noted(history, "instruction")


def test_real_changes_of_mind_the_markers_miss() -> None:
    texts = [
        "Sorry, my bad: the retention is 90 days, not 30.",
        "Oops, I was wrong, the retention is 90 days.",
        "Ah sorry, I misspoke — the retention is 90 days.",
        "Hold on, the retention should be 90 days.",
        "Let me correct myself: the retention is 90 days.",
    ]
    missed = [
        t
        for t in texts
        if ("instruction", t) not in noted(talk("Retention?", "Set to 30 days.", t), "instruction")
    ]
    assert missed == []


def test_the_rounds_own_clause_examples_and_a_short_marker_hold() -> None:
    """**Holding**: "Ah, en fait non: 90 jours." and "Hmm no wait, make it 90 days." are
    changes of mind; "Yes, no idea why" is not."""
    for text in ("Ah, en fait non: 90 jours.", "Hmm no wait, make it 90 days."):
        assert ("instruction", text) in noted(talk("Retention?", "30 days.", text), "instruction")
    text = "Yes, no idea why it failed."
    assert ("instruction", text) not in noted(talk("Retention?", "30 days.", text), "instruction")


# -- 4. tool outputs: test runners --------------------------------------------------------


def test_a_long_surefire_listing_of_passes_does_not_flood() -> None:
    """**Holding**: 200 passing classes are bulk; the one failing class is the record,
    and a case that fails after it passed in the same output is failed."""
    lines = [
        f"[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.2 s"
        f" - in org.shop.C{i}Test"
        for i in range(200)
    ]
    lines.append(
        "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s"
        " <<< FAILURE! - in org.shop.VatTest"
    )
    assert records("\n".join(lines) + "\n[INFO] BUILD FAILURE") == {
        "org.shop.VatTest": "status tests failed"
    }
    flip = "  Passed Shop.Tests.A.Saves [1 ms]\n  Failed Shop.Tests.A.Saves [1 ms]"
    assert records(flip) == {"Shop.Tests.A.Saves": "status tests failed"}


def test_surefire_3_class_lines_are_records() -> None:
    output = (
        "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.2 s"
        " -- in org.shop.InvoiceTest\n"
        "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s"
        " <<< FAILURE! -- in org.shop.VatTest\n[INFO] BUILD FAILURE"
    )
    assert records(output) == {
        "org.shop.InvoiceTest": "status tests passed",
        "org.shop.VatTest": "status tests failed",
    }


def test_dotnet_fast_and_theory_failures_are_records() -> None:
    output = (
        "  Failed Shop.Tests.CartTests.ScoresCombo [< 1 ms]\n"
        "  Failed Shop.Tests.CartTests.DiscountStacks(percent: 10, expected: 90) [12 ms]\n"
        "Failed!  - Failed: 2, Passed: 0, Skipped: 0, Total: 2"
    )
    found = records(output)
    assert found.get("Shop.Tests.CartTests.ScoresCombo") == "status tests failed"
    assert any(k.startswith("Shop.Tests.CartTests.DiscountStacks") for k in found), found


def test_a_run_of_many_failing_classes_does_not_push_out_a_later_record() -> None:
    run = "\n".join(
        f"[ERROR] Tests run: 12, Failures: 0, Errors: 12, Skipped: 0, Time elapsed: 0.4 s"
        f" <<< FAILURE! - in com.acme.billing.it.Scenario{i:02d}IT"
        for i in range(80)
    )
    history = [
        Message.user("Run the integration tests, then close OPS-4411."),
        *call(1, "shell", {"command": "mvn verify"}, run + "\n[INFO] BUILD FAILURE"),
        *call(
            2,
            "update_ticket",
            {"ticket_id": "OPS-4411", "status": "closed"},
            "ticket OPS-4411 status: closed",
        ),
    ]
    section, _ = build_ledger(history).restore(
        "Integration tests failed: the DB container was down.", "", 1000, approx_token_counter
    )
    assert "record `OPS-4411`: status closed" in section


# -- 4. tool outputs: migrations ----------------------------------------------------------


def test_migration_outputs_that_hold() -> None:
    """**Holding**: Laravel's FAIL is failed; Rails' 'migrating' with an abort is not
    applied; git am's 'Applying:' and Laravel's migrate:status are not migrations."""
    laravel = "   INFO  Running migrations.\n\n  2026_01_02_101500_add_zone ..... 3ms FAIL\n"
    assert shell_records(laravel) == {"2026_01_02_101500_add_zone": "status migration failed"}
    rails = (
        "== 20260102101500 AddZoneToRiders: migrating ======\n-- add_column(:riders, :zone)\n"
        "rails aborted!\nStandardError: An error has occurred, all later migrations canceled"
    )
    assert "20260102101500 AddZoneToRiders" not in shell_records(rails)
    assert shell_records("Applying: Add rider zone migration\nApplying: Fix typo") == {}
    status = (
        "  Migration name ........................ Batch / Status\n"
        "  2026_01_02_101500_add_zone ............ Pending"
    )
    assert shell_records(status) == {}


def test_a_migration_that_failed_is_not_applied() -> None:
    outputs = {
        "20260102093011_AddOrderLock": "Applying migration '20260102093011_AddOrderLock'.\n"
        "Failed executing DbCommand (12ms) [Parameters=[], CommandType='Text']\n"
        "ALTER TABLE orders ADD lock_id int;\nMicrosoft.Data.SqlClient.SqlException "
        "(0x80131904): Column names in each table must be unique.",
        "20260102_add_rider_zone": "Applying migration `20260102_add_rider_zone`\n"
        "Error: P3018\n\nA migration failed to apply. New migrations cannot be applied "
        "before the error is recovered from.",
        "riders.0007_rider_zone": "Running migrations:\n  Applying riders.0007_rider_zone..."
        "Traceback (most recent call last):\ndjango.db.utils.ProgrammingError: column "
        '"zone" already exists',
        "7 - add rider zone": 'Migrating schema `ops` to version "7 - add rider zone"\n'
        'ERROR: Migration of schema `ops` to version "7 - add rider zone" failed! Please '
        "restore backups and roll back database and code!",
        "9a8b, add rider zone": "INFO  [alembic.runtime.migration] Running upgrade 1f2e -> "
        "9a8b, add rider zone\nTraceback (most recent call last):\nsqlalchemy.exc."
        'ProgrammingError: (psycopg2.errors.DuplicateColumn) column "zone" already exists',
    }
    wrong = {}
    for name, output in outputs.items():
        state = shell_records(output).get(name)
        if state == "status migration applied":
            wrong[name] = state
    assert wrong == {}


def test_a_migration_rolled_back_is_not_left_applied() -> None:
    cases = {
        "2026_01_02_101500_add_zone_to_riders_table": (
            "   INFO  Running migrations.\n"
            "  2026_01_02_101500_add_zone_to_riders_table ........ 41ms DONE",
            "   INFO  Rolling back migrations.\n"
            "  2026_01_02_101500_add_zone_to_riders_table ........ 12ms DONE",
        ),
        "riders.0007_rider_zone": (
            "  Applying riders.0007_rider_zone... OK",
            "  Unapplying riders.0007_rider_zone... OK",
        ),
        "20260102093011_AddOrderLock": (
            "Applying migration '20260102093011_AddOrderLock'.\nDone.",
            "Reverting migration '20260102093011_AddOrderLock'.\nDone.",
        ),
        "20260102101500 AddZoneToRiders": (
            "== 20260102101500 AddZoneToRiders: migrated (0.0121s) =====",
            "== 20260102101500 AddZoneToRiders: reverting =====\n"
            "== 20260102101500 AddZoneToRiders: reverted (0.0100s) =====",
        ),
        "9a8b, add rider zone": (
            "INFO  [alembic.runtime.migration] Running upgrade 1f2e -> 9a8b, add rider zone",
            "INFO  [alembic.runtime.migration] Running downgrade 9a8b -> 1f2e, add rider zone",
        ),
    }
    wrong = {}
    for name, (up, down) in cases.items():
        state = shell_records(up, down).get(name)
        if state == "status migration applied":
            wrong[name] = state
    assert wrong == {}


def test_a_migration_quoted_in_a_files_content_is_not_applied() -> None:
    content = (
        "Run `dotnet ef database update`. You should see:\n\n"
        "Applying migration '20260102093011_AddOrderLock'.\n"
    )
    found = records(
        "File written.", "write_file", {"path": "docs/MIGRATING.md", "content": content}
    )
    assert "20260102093011_AddOrderLock" not in found


def test_a_fresh_django_migrate_keeps_the_projects_migration() -> None:
    builtin = [
        "contenttypes.0001_initial",
        "auth.0001_initial",
        "admin.0001_initial",
        "admin.0002_logentry_remove_auto_add",
        "admin.0003_logentry_add_action_flag_choices",
        "contenttypes.0002_remove_content_type_name",
        "auth.0002_alter_permission_name_max_length",
        "auth.0003_alter_user_email_max_length",
        "auth.0004_alter_user_username_opts",
        "auth.0005_alter_user_last_login_null",
        "auth.0006_require_contenttypes_0002",
        "auth.0007_alter_validators_add_error_messages",
        "auth.0008_alter_user_username_max_length",
        "auth.0009_alter_user_last_name_max_length",
        "auth.0010_alter_group_name_max_length",
        "auth.0011_update_proxy_permissions",
        "auth.0012_alter_user_first_name_max_length",
    ]
    mine = [f"riders.000{n}_step{n}" for n in range(1, 7)] + ["riders.0007_rider_zone"]
    output = "Operations to perform:\n  Apply all migrations: admin, auth, riders\n"
    output += "Running migrations:\n" + "".join(
        f"  Applying {m}... OK\n" for m in [*builtin, *mine, "sessions.0001_initial"]
    )
    assert shell_records(output).get("riders.0007_rider_zone") == "status migration applied"


def test_laravel_8_migrated_lines_are_records() -> None:
    output = (
        "Migrating: 2026_01_02_101500_add_zone_to_riders_table\n"
        "Migrated:  2026_01_02_101500_add_zone_to_riders_table (41.02ms)"
    )
    assert shell_records(output) == {
        "2026_01_02_101500_add_zone_to_riders_table": "status migration applied"
    }


# -- 4. tool outputs: settings and flags --------------------------------------------------


def test_a_setting_whose_case_alone_changed_is_no_switch() -> None:
    """**Holding**: a diff that rewrites ``True`` as ``true`` switches nothing; a string
    ``"enabled": "true"`` is not read as a flag (no false record)."""
    assert records("-  Debug: False\n+  Debug: false\n") == {}
    assert records('{"name": "new-checkout", "enabled": "true"}') == {}


def test_a_code_diff_does_not_make_its_variables_records() -> None:
    diff = (
        "diff --git a/src/pay/split.py b/src/pay/split.py\n--- a/src/pay/split.py\n"
        "+++ b/src/pay/split.py\n@@ -10,12 +10,12 @@ def split(amount, parts):\n"
        "-    total = 0\n+    total = 1\n-    idx = 0\n+    idx = -1\n"
        "-        self.count = 0\n+        self.count = 1\n-    found = False\n+    found = True\n"
        "--- a/tests/__snapshots__/invoice.test.ts.snap\n"
        "+++ b/tests/__snapshots__/invoice.test.ts.snap\n"
        '-  "id": 1041,\n+  "id": 1042,\n-  "total": 41,\n+  "total": 42,\n'
    )
    assert records(diff, args={"command": "git diff"}) == {}


def test_a_listing_of_active_users_is_not_sixty_switched_flags() -> None:
    users = ",".join(f'{{"id": "usr-{i}", "name": "U{i}", "active": true}}' for i in range(60))
    found = records(f"[{users}]", args={"command": "curl -s https://api.test/users"})
    assert len(found) <= 5, len(found)


# -- 4. tool outputs: pathological input --------------------------------------------------


@pytest.mark.parametrize(
    "output",
    [
        "DONE Migrating upgrade Applying\n" + "." * 100_000,
        "DONE Migrating upgrade Applying\n" + "_" * 100_000,
        "DONE Migrating upgrade Applying\n" + " " * 100_000 + "x",
        "Applying " * 11_000,
        "Applying migration '" * 5_000,
        'Migrating schema `ops` to version "7 - add' + " " * 100_000 + "x",
        "Running upgrade " + "-" * 100_000,
        "  Applying a.0001_b" + "." * 100_000,
        "-retries: " + "1" * 100_000 + "y",
    ],
    ids=[
        "dots",
        "underscores",
        "spaces",
        "applying",
        "applying-migration",
        "flyway-spaces",
        "alembic-dashes",
        "django-dots",
        "setting-digits",
    ],
)
def test_long_lines_for_the_new_patterns_stay_linear(output: str) -> None:
    """**Holding**: 100 KB lines shaped for the new patterns are read in linear time."""
    with deadline(10.0):
        build_ledger([Message.user("Run it."), *call(1, "shell", {"command": "x"}, output)])


def test_a_setting_line_with_long_trailing_space_is_linear() -> None:
    output = "-retries: 6" + " " * 40_000 + "# set by ops"
    with deadline(3.0):
        build_ledger([Message.user("Diff it."), *call(1, "shell", {"command": "diff"}, output)])


def test_a_laravel_line_with_a_long_dot_leader_is_linear() -> None:
    output = "DONE\n2025_01_28_111677_add_flag " + "." * 40_000 + " 12ms"
    with deadline(3.0):
        build_ledger([Message.user("Migrate."), *call(1, "shell", {"command": "migrate"}, output)])


# -- 5. the section's budget ---------------------------------------------------------------


def _payout_session(opener: str) -> list[Message]:
    history = [
        Message.user(
            "Audit the March payouts; the merchant is `acct_8Hq2LmZ41x` and the batch is "
            "BATCH-2026-0311."
        )
    ]
    for i in range(16):
        history += call(
            i,
            "shell",
            {"command": f"payouts show po_{i}"},
            f"payout po_9{i:02d}QxZ7wK{i} settled: 412.{i:02d} EUR, trace TRC-55{i:03d}-ZZ",
        )
        history.append(Message.user(f"why is payout {i} late by two days?"))
        history.append(
            Message.assistant(
                f"{opener}payout {i}: the bank holiday on the 14th pushed the settlement by two "
                "business days, and the acquirer's retry window added another one on top."
            )
        )
    return history


def test_answers_that_open_with_right_do_not_crowd_out_identifiers() -> None:
    def restored_traces(opener: str) -> int:
        section, _ = build_ledger(_payout_session(opener)).restore(
            "The user audits the March payouts.", "", 1000, approx_token_counter
        )
        return sum(f"TRC-55{i:03d}-ZZ" in section for i in range(16))

    assert restored_traces("Right, ") == restored_traces("")


def test_identifiers_keep_their_share_when_changes_and_decisions_fill_theirs() -> None:
    tenants = ", ".join(f"`tn_{i:02d}Q2xA91`" for i in range(25))
    history = [Message.user(f"Migrate the billing service; the tenants are {tenants}.")]
    for i in range(90):
        history += call(i, "edit_file", {"path": f"src/billing/mod_{i}.py", "old": "a"}, "ok")
    for i in range(60):
        history += call(100 + i, "shell", {"command": "x"}, f"job jb_{i:03d}Xq9Lz7 finished")
    for i in range(12):
        proposal = (
            f"Module {i}: I'd replace the hand-rolled retry loop in client {i} with the "
            f"shared backoff helper and cap it at {i + 2} attempts, keeping the timeout at "
            "30 seconds. Shall I?"
        )
        history += [Message.assistant(proposal), Message.user("yes, do that")]
    budget = 1000
    section, _ = build_ledger(history).restore(
        "Billing migration.", "", budget, approx_token_counter
    )
    ids = [line for line in section.splitlines() if line.startswith("- id `jb_")]
    taken = sum(approx_token_counter(line) + 1 for line in ids)
    share = (budget - 70) * _ID_SHARE // 100  # the room left after the header, roughly
    assert taken >= share - 20, (taken, share)


def test_real_approvals_are_kept_within_the_decisions_cap() -> None:
    """**Holding**: fifteen approved proposals keep the newest twelve decisions
    (MAX_DECISIONS), each the agent's proposing sentence."""
    history = [Message.user("Tune the workers.")]
    for i in range(15):
        history += [
            Message.assistant(
                f"I'd set worker {i} to {i + 2} threads for the batch queue. Shall I?"
            ),
            Message.user("yes, do that"),
        ]
    decided = [key for _, key in noted(history, "decision")]
    assert len(decided) == 12
    assert decided[-1] == "I'd set worker 14 to 16 threads for the batch queue."

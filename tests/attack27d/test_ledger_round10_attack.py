"""Attack on the fact ledger's tenth and eleventh rounds (f18467d, 44c970d): what the
agent says it did to a named thing, a tool's short line naming a thing and a state,
git status, Dart's failing tests, a state nested under a named JSON object, bare
identifiers, and decisions (question and answer, take-ups, refusals).

Each test asserts the behaviour a reader of the ledger needs. The ones marked
``xfail(strict=True)`` are findings: the new rules get them wrong. The others hold.
Of the 43 findings, the fixes that followed the attack (negations and prompts on a tool's
line, git status capped, a nested object with its own id, no credential copied, a
non-answer, answers that open like a no, a Japanese question, a cap of their own for
take-ups, an id the agent names keeps its rank, the no words of more scripts) made 22
hold; 21 stay open."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction._ledger import Fact, Ledger, build_ledger, split_ledger
from contextfold.dialects import dialect_for
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter

U = Message.user
A = Message.assistant
FIXTURES = Path(__file__).resolve().parents[1] / "clients" / "fixtures"


def call(n: int, name: str, args: dict[str, object], output: str) -> list[Message]:
    return [
        Message("assistant", [TextBlock(f"step {n}"), ToolUseBlock(f"c{n}", name, args)]),
        Message("user", [ToolResultBlock(f"c{n}", output)]),
    ]


def bash(n: int, command: str, output: str) -> list[Message]:
    return call(n, "bash", {"command": command}, output)


def facts(messages: list[Message]) -> dict[str, Fact]:
    return {f.key: f for f in build_ledger(messages).facts}


def items(messages: list[Message]) -> dict[str, str]:
    return {f.key: f.state for f in build_ledger(messages).facts if f.kind in ("file", "record")}


def decisions(messages: list[Message]) -> list[str]:
    return [f.key for f in build_ledger(messages).facts if f.kind == "decision"]


def section(messages: list[Message], budget: int = 2_000) -> str:
    text, _ = build_ledger(messages).restore("", "", budget, approx_token_counter)
    return text


# --- a tool's short line naming a thing and a state word: negations, plans, content ---


def test_a_branch_git_says_is_not_fully_merged_is_not_merged() -> None:
    out = (
        "error: The branch 'feature_x' is not fully merged.\n"
        "If you are sure you want to delete it, run 'git branch -D feature_x'."
    )
    state = items([U("Delete the branch."), *bash(1, "git branch -d feature_x", out)])
    assert "merged" not in state.get("feature_x", "")


def test_a_thing_a_tool_says_was_not_deleted_is_not_deleted() -> None:
    out = (
        "remove_bucket failed: s3://acme_logs An error occurred (BucketNotEmpty): "
        "The bucket you tried to delete is not empty\nBucket acme_logs not deleted."
    )
    state = items([U("Remove the bucket."), *bash(1, "aws s3 rb s3://acme_logs", out)])
    assert "deleted" not in state.get("acme_logs", "")


def test_zero_rows_deleted_from_a_table_does_not_delete_the_table() -> None:
    out = "0 rows deleted from session_tokens\ndone"
    state = items([U("Purge expired tokens."), *bash(1, "./purge.sh", out)])
    assert "deleted" not in state.get("session_tokens", "")


def test_what_a_prompt_says_will_be_deleted_is_not_deleted() -> None:
    out = "The following snapshots will be deleted: snap_2023_01\nProceed? [y/N]"
    state = items([U("Clean old snapshots."), *bash(1, "snapctl gc", out)])
    assert "deleted" not in state.get("snap_2023_01", "")


@pytest.mark.parametrize(
    ("command", "out"),
    [
        (
            "grep -rn released src/",
            "src/pool.py:12:    # the lock_holder is released when the context exits\n"
            "src/pool.py:40:    log('conn_pool created')",
        ),
        (
            "rg -n -C1 released src",
            "src/pool.ts-11-\nsrc/pool.ts:12:  // the lock_holder is released on exit\n"
            'src/pool.ts:40:  console.log("conn_pool created");',
        ),
        (
            "findstr /n released src\\*.cs",
            "src\\Pool.cs:12:  /* the lock_holder is released on dispose */\n"
            'src\\Pool.cs:40:  logger.LogInformation($"conn_pool created");',
        ),
        (
            "sed -n 10,40p src/pool.go",
            "\t// the lock_holder is released when the context exits\n"
            '\tlog.Printf("conn_pool created")',
        ),
    ],
    ids=["grep-python", "rg-typescript", "windows-csharp", "sed-go"],
)
def test_grep_hits_in_source_code_are_no_records(command: str, out: str) -> None:
    state = items([U("Where is the pool code?"), *bash(1, command, out)])
    assert "lock_holder" not in state
    assert "conn_pool" not in state


def test_a_tools_own_report_of_a_state_is_still_a_record() -> None:
    out = "10:24:37 INFO lock_holder released\n| Table users_backup successfully dropped. |"
    state = items([U("Release it."), *bash(1, "./release.sh", out)])
    assert state["lock_holder"] == "status released"
    assert state["users_backup"] == "status dropped"


def test_a_changelogs_future_removal_is_no_record() -> None:
    out = "# Changelog\n## 2.0\n- Deprecated old_api (will be removed in 3.0)\n"
    state = items([U("What changed?"), *bash(1, "cat CHANGELOG.md", out)])
    assert "old_api" not in state


def test_a_terraform_plan_destroys_nothing() -> None:
    out = (
        "  # aws_s3_bucket.logs_archive will be destroyed\n"
        '  - resource "aws_s3_bucket" "logs_archive" {\n'
        "    }\n\nPlan: 0 to add, 0 to change, 1 to destroy."
    )
    state = items([U("Plan it."), *bash(1, "terraform plan", out)])
    assert not any("destroyed" in s for s in state.values())


# --- git status ---


@pytest.mark.parametrize(
    ("command", "out"),
    [
        (
            "cat docs/howto.md",
            "# How to\nRun git status, you'll see e.g.\n"
            "\tmodified:   src/app.py\n\tdeleted:    src/old.py\nthen commit.",
        ),
        (  # the commit message git prepared: its status is commented out
            "cat .git/COMMIT_EDITMSG",
            "Fix sync\n# Changes to be committed:\n#\tmodified:   src/app.py\n"
            "#\tdeleted:    src/old.py\n#",
        ),
        (
            "grep -A3 'git status' CONTRIBUTING.md",
            "Check with git status before you push:\n    modified:   src/app.py\n"
            "    deleted:    src/old.py",
        ),
    ],
    ids=["howto", "commit-template", "contributing"],
)
def test_a_git_status_example_inside_a_document_is_no_change(command: str, out: str) -> None:
    state = items([U("Read the how-to."), *bash(1, command, out)])
    assert "src/old.py" not in state
    assert "src/app.py" not in state


def test_git_status_under_its_heading_is_a_change() -> None:
    out = "On branch main\nChanges not staged for commit:\n\tmodified:   src/app.py\n"
    state = items([U("What changed?"), *bash(1, "git status", out)])
    assert state["src/app.py"] == "modified (uncommitted)"


@pytest.mark.parametrize(
    "clean",
    [
        "On branch main\nnothing to commit, working tree clean",
        "# On branch main\nnothing to commit (working directory clean)",
        "Auf Branch main\nnichts zu committen, Arbeitsverzeichnis unverändert",
        "On branch main\nUntracked files:\n\tnotes.txt\n\n"
        'nothing added to commit but untracked files present (use "git add" to track)',
    ],
    ids=["git-2.9", "old-git", "de", "untracked-only"],
)
def test_a_commit_and_a_clean_tree_end_the_uncommitted_state(clean: str) -> None:
    state = items(
        [
            U("Commit it."),
            *bash(
                1,
                "git status",
                "On branch main\nChanges not staged for commit:\n\tmodified:   app/Jobs/Sync.php\n",
            ),
            *bash(
                2,
                "git commit -am 'Fix sync' && git status",
                "[main 6ebdb31] Fix sync\n 1 file changed, 3 insertions(+)\n" + clean,
            ),
        ]
    )
    assert "uncommitted" not in state.get("app/Jobs/Sync.php", "")


def test_a_clean_tree_does_not_replace_what_the_file_rules_found() -> None:
    state = items(
        [
            U("Fix and commit."),
            *call(1, "edit_file", {"path": "app/sync.py", "old": "a", "new": "b"}, "ok"),
            *bash(2, "git status -s", " M app/sync.py"),
            *bash(3, "git commit -am fix && git status", "nothing to commit, working tree clean"),
        ]
    )
    assert state["app/sync.py"] == "modified"


@pytest.mark.xfail(
    strict=True,
    reason="since the fix (git status gives at most 20 files) 24 of the user's 30 order ids "
    "survive at a 1,000-token budget, not 9 (the old code, with no git status rule, kept "
    "all 30): each id carries the whole 'Refund ORD-1000, ...' sentence as its context",
)
def test_a_bulk_git_status_does_not_crowd_out_the_users_ids() -> None:
    listing = "\n".join(f" M src/dir{i}/file_{i}.py" for i in range(5_000))
    ids = [f"ORD-{1000 + i}" for i in range(30)]
    messages = [U("Refund " + ", ".join(ids)), *bash(1, "black . && git status -s", listing)]
    ledger = build_ledger(messages)
    assert sum(f.kind == "file" for f in ledger.facts) <= 100
    text, _ = ledger.restore("", "", 1_000, approx_token_counter)
    assert all(i in text for i in ids)


# --- Dart, nested JSON ---


DART_FAILED = (
    "00:07 +12 -1: test/widget/invoice_test.dart: shows VAT [E]\n"
    "  Expected: 21\n00:08 +12 -1: Some tests failed."
)


@pytest.mark.parametrize(
    ("failed", "passed", "name"),
    [
        (
            DART_FAILED,
            "00:07 +13: test/widget/invoice_test.dart: shows VAT\n00:08 +13: All tests passed!",
            "test/widget/invoice_test.dart",
        ),
        (  # the line each test starts with, then its failure; a skipped test's "~1"
            "00:05 +3 ~1: test/cart_test.dart: totals\n"
            "00:06 +3 ~1 -1: test/cart_test.dart: totals [E]\n00:06 +3 ~1 -1: Some tests failed.",
            "00:05 +4 ~1: test/cart_test.dart: totals\n00:06 +4 ~1: All tests passed!",
            "test/cart_test.dart",
        ),
        (
            "FAIL src/cart.test.ts\n  \u25cf totals\nTests: 1 failed, 1 total",
            "PASS src/cart.test.ts\nTests: 1 passed, 1 total",
            "src/cart.test.ts",
        ),
    ],
    ids=["dart", "dart-start-line-and-skip", "jest"],
)
def test_a_dart_failure_is_cleared_by_a_passing_run(failed: str, passed: str, name: str) -> None:
    state = items(
        [
            U("Fix the VAT test."),
            *bash(1, "flutter test", failed),
            *call(2, "edit_file", {"path": "lib/vat.dart", "old": "20", "new": "21"}, "ok"),
            *bash(3, "flutter test", passed),
        ]
    )
    assert "failed" not in state.get(name, "")


def test_a_passing_test_of_a_file_does_not_clear_its_failing_one_in_the_same_run() -> None:
    out = (
        "00:03 +4: test/cart_test.dart: totals\n"
        "00:04 +4 -1: test/cart_test.dart: rounding [E]\n"
        "00:05 +5 -1: test/cart_test.dart: discounts\n00:05 +5 -1: Some tests failed."
    )
    state = items([U("Run the tests."), *bash(1, "dart test", out)])
    assert "failed" in state["test/cart_test.dart"]


def test_a_nested_object_with_its_own_id_keeps_its_own_state() -> None:
    out = json.dumps(
        {"id": "ORD-1042", "total": 12, "customer": {"id": "C-77", "status": "blocked"}}
    )
    state = items([U("Check the order."), *bash(1, "curl api/orders/ORD-1042", out)])
    assert "blocked" not in state.get("ORD-1042", "")
    assert "blocked" in state.get("C-77", "")


# --- what the agent says it did to a named thing ---


@pytest.mark.parametrize(
    "later",
    [
        "For reference, legacy_orders held the 2019 data.",
        "Zur Info: legacy_orders enthielt die Daten von 2019.",
        "Para referencia, legacy_orders tenía los datos de 2019.",
        "Для справки: в legacy_orders были данные за 2019 год.",
    ],
    ids=["en", "de", "es", "ru"],
)
def test_a_later_incidental_mention_does_not_erase_what_was_done(later: str) -> None:
    state = items(
        [
            U("Clean up the old tables."),
            A("I dropped the legacy_orders table."),
            U("What was in it?"),
            A(later),
        ]
    )
    assert "dropped" in state["legacy_orders"]


@pytest.mark.parametrize(
    "later",
    [
        "I restored legacy_orders from last night's snapshot.",
        "Ich habe legacy_orders aus dem Snapshot wiederhergestellt.",
        "Восстановил legacy_orders из снапшота.",
    ],
    ids=["en", "de", "ru"],
)
def test_a_later_deed_replaces_the_earlier_one(later: str) -> None:
    state = items(
        [U("Clean up."), A("I dropped the legacy_orders table."), U("Oops, undo it."), A(later)]
    )
    assert "dropped" not in state["legacy_orders"]


@pytest.mark.parametrize(
    "plan",
    [
        "Tomorrow I'll drop legacy_orders_old and keep legacy_orders.",
        "I will drop legacy_orders_old next week and keep legacy_orders.",
        "Morgen lösche ich legacy_orders_old und behalte legacy_orders.",
        "Mañana borraré legacy_orders_old y mantendré legacy_orders.",
    ],
    ids=["en-tomorrow", "en-will", "de", "es"],
)
def test_a_plan_does_not_replace_what_was_done(plan: str) -> None:
    state = items(
        [
            U("We need the orders back."),
            A("I restored legacy_orders from last night's snapshot."),
            U("OK."),
            A(plan),
        ]
    )
    assert "restored" in state["legacy_orders"]


def test_what_was_done_before_a_plan_in_the_same_sentence_is_recorded() -> None:
    state = items([U("Clean up."), A("I dropped legacy_orders_old and will vacuum tomorrow.")])
    assert "dropped" in state["legacy_orders_old"]


def test_an_english_conditional_does_not_replace_what_was_done() -> None:
    state = items(
        [
            U("Clean up."),
            A("I dropped the legacy_orders table."),
            U("OK."),
            A("If needed, I will restore legacy_orders from the snapshot."),
        ]
    )
    assert "dropped" in state["legacy_orders"]


@pytest.mark.parametrize(
    "later",
    [
        "Если понадобится, я восстановлю legacy_orders из снапшота.",
        "ต้องการให้กู้คืน legacy_orders ไหม",
        "要恢复 legacy_orders 吗",
    ],
    ids=["ru-conditional", "th-question", "zh-question"],
)
def test_a_conditional_or_question_in_another_language_does_not_replace_the_deed(
    later: str,
) -> None:
    state = items([U("Clean up."), A("I dropped the legacy_orders table."), U("OK."), A(later)])
    assert "dropped" in state["legacy_orders"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Se eliminó la tabla legacy_orders de la base de datos.",
        "Removi o arquivo legacy_orders.sql, que já não se usava.",
        "Ich habe legacy_orders.sql als veraltet gelöscht.",
        "I deleted legacy_orders.sql when the nightly job finished.",
        "Once the backup finished, I removed legacy_orders.sql.",
        "Wenn ich fertig war, habe ich legacy_orders.sql entfernt.",
    ],
    ids=["es-se", "pt-se", "de-als", "en-when", "en-once", "de-wenn"],
)
def test_a_deed_is_recorded_though_it_holds_a_word_that_can_mean_if(sentence: str) -> None:
    state = items([U("Clean up."), A(sentence)])
    assert any(k.startswith("legacy_orders") for k in state)


@pytest.mark.parametrize(
    "said",
    [
        "मैंने legacy_export.sql फ़ाइल हटा दी। क्या मैं users_backup भी हटा दूँ?",
        "আমি legacy_export.sql ফাইলটি মুছে ফেলেছি। আমি কি users_backup ও মুছে ফেলব?",
        "मी legacy_export.sql फाइल काढून टाकली। मी users_backup पण काढू का?",
    ],
    ids=["hi", "bn", "mr"],
)
def test_a_hindi_deed_before_a_question_is_recorded(said: str) -> None:
    state = items([U("Clean up."), A(said)])
    assert "legacy_export.sql" in state
    assert "users_backup" not in state


@pytest.mark.xfail(
    strict=True,
    reason="Thai writes no sentence mark: 'ผมลบตาราง LAB_RESULTS_2023 ออกแล้ว ต้องการให้ลบ "
    "users_backup ด้วยไหมครับ' records users_backup with the question as what was said of it",
)
def test_a_thai_question_after_a_deed_is_no_record_of_its_name() -> None:
    state = items(
        [U("Clean up."), A("ผมลบตาราง LAB_RESULTS_2023 ออกแล้ว ต้องการให้ลบ users_backup ด้วยไหมครับ")]
    )
    assert "LAB_RESULTS_2023" in state
    assert "users_backup" not in state


@pytest.mark.parametrize(
    "said",
    [
        "I read a_b.py first. Then I read c_d.py. I also read e_f.py. "
        "Finally I deleted legacy_export.sql.",
        "Ich habe zuerst a_b.py gelesen. Dann habe ich c_d.py gelesen. Ich habe auch e_f.py "
        "gelesen. Zuletzt habe ich legacy_export.sql gelöscht.",
        "Primero leí a_b.py. Luego leí c_d.py. También leí e_f.py. "
        "Por último eliminé legacy_export.sql.",
        "I read a_b.py first. Then I read c_d.py. I also read e_f.py. I checked g_h.py. "
        "I removed legacy_export.sql at the end.",
    ],
    ids=["en", "de", "es", "en-four"],
)
def test_three_mentions_do_not_crowd_out_a_deletion_in_the_same_message(said: str) -> None:
    state = items([U("Clean up."), A(said)])
    assert "legacy_export.sql" in state


@pytest.mark.parametrize(
    "report",
    [
        "cleanup.sh deleted sql/legacy_export.sql since nothing calls it.",
        "I removed sql/legacy_export.sql because nothing calls it.",
        "cleanup.sh hat sql/legacy_export.sql gelöscht, da nichts sie aufruft.",
    ],
    ids=["en", "en-removed", "de"],
)
def test_the_agents_report_of_a_deletion_outranks_a_mere_read(report: str) -> None:
    state = items(
        [
            U("Clean up."),
            *call(1, "read_file", {"path": "sql/legacy_export.sql"}, "select 1;"),
            *bash(2, "./cleanup.sh", "ok"),
            A(report),
        ]
    )
    assert state["sql/legacy_export.sql"] != "read"


def test_the_agents_recap_does_not_replace_what_the_file_rules_found() -> None:
    state = items(
        [
            U("Fix it."),
            *call(1, "edit_file", {"path": "src/app.py", "old": "a", "new": "b"}, "ok"),
            *bash(2, "pytest -q", "3 passed in 0.1s"),
            A("I updated src/app.py and the tests pass."),
        ]
    )
    assert state["src/app.py"].startswith("modified")


def test_a_tool_naming_the_thing_after_the_agents_report_has_the_last_word() -> None:
    state = items(
        [
            U("Clean up."),
            *call(1, "read_file", {"path": "sql/legacy_export.sql"}, "select 1;"),
            A("I deleted sql/legacy_export.sql since nothing calls it."),
            *call(2, "read_file", {"path": "sql/legacy_export.sql"}, "select 1;"),
        ]
    )
    assert state["sql/legacy_export.sql"] == "read"


@pytest.mark.parametrize(
    ("restored", "word"),
    [
        ("I restored users_backup from last night's snapshot.", "restored"),
        (
            "Ich habe users_backup aus dem Snapshot von gestern Nacht wiederhergestellt.",
            "wiederhergestellt",
        ),
        ("Restauré users_backup desde el snapshot de anoche.", "Restauré"),
    ],
    ids=["en", "de", "es"],
)
def test_a_restore_after_a_drop_is_not_hidden_by_the_older_tool_state(
    restored: str, word: str
) -> None:
    state = items(
        [
            U("Drop the backup table."),
            *bash(
                1,
                "psql -c 'drop table users_backup'",
                "| Table users_backup successfully dropped. |",
            ),
            U("Oops, we need it back!"),
            *bash(2, "pg_restore -t users_backup snap.dump", ""),
            A(restored),
        ]
    )
    assert word in state["users_backup"]


def test_the_agent_naming_a_users_id_does_not_demote_it_below_its_chatter() -> None:
    messages: list[Message] = []
    for i in range(40):
        messages += [
            U(f"and {i}?"),
            A(f"I looked at the cache_layer_{i} module; nothing odd there."),
        ]
    messages += [U("What about billing_2023_q4?"), A("I archived billing_2023_q4 to cold storage.")]
    assert "billing_2023_q4" in section(messages, 1_000)


def test_names_that_are_not_things_are_no_records() -> None:
    state = items(
        [
            U("Status?"),
            A("I opened github.com/acme/api/pull/42 and merged it."),
            U("And ops?"),
            A("I emailed ops_team@acme.io about the outage."),
            U("And the parser?"),
            A("The bug was in __init__ of the parser; I fixed it."),
        ]
    )
    assert state == {}


def test_a_command_in_a_code_block_is_no_deed() -> None:
    state = items(
        [
            U("How do I drop it?"),
            A("Run this yourself:\n```sql\nDROP TABLE legacy_orders;\n```\nI have not run it."),
        ]
    )
    assert "legacy_orders" not in state


def test_a_closing_tag_in_the_agents_words_round_trips() -> None:
    messages = [
        U("Fix the template."),
        A("I removed the stray </ledger> tag from ledger_view.html before the footer."),
    ]
    text = section(messages)
    rest, carried = split_ledger("Summary.\n\n" + text)
    assert rest == "Summary."
    assert [f.key for f in carried] == ["ledger_view.html"]


# --- secrets: none copied that the code before did not copy ---


@pytest.mark.parametrize(
    "messages",
    [
        [U("Configure the app."), A("I put the password Tr0ub4dor&3x into settings.py.")],
        [
            U("Configure the DB."),
            A("I stored the DB password hunter2hunter2 in config/db/prod.yaml and restarted."),
        ],
        [A("What's the staging DB password?"), U("Tr0ub4dor&3x"), A("ok")],
        [
            U("Rotate the key."),
            A("Done: the new key is sk-live-4eC39HqLyjWDarjtT1zdp7dc in deploy_secrets.env."),
        ],
        [U("The password is Tr0ub4dor&3x"), A("Using Tr0ub4dor&3x now.")],
    ],
    ids=["said-file", "said-path", "q-and-a", "said-sk-key", "take-up"],
)
def test_a_secret_in_the_conversation_is_not_copied_into_the_ledger(
    messages: list[Message],
) -> None:
    text = section(messages)
    for secret in ("Tr0ub4dor", "hunter2hunter2", "4eC39HqLyjWDarjtT1zdp7dc"):
        assert secret not in text


# --- decisions: question and answer, take-ups, refusals ---


@pytest.mark.parametrize(
    ("intro", "reply"),
    [
        ("Hi, I'm Maria from Acme.", "Nice to meet you, Maria."),
        ("Hallo, ich bin Jonas von den Stadtwerken Ulm.", "Freut mich, Jonas!"),
        ("Hola, soy Lucía de Acme.", "¡Encantado, Lucía!"),
        ("Hi, this is Priya from the data team.", "Hi Priya, welcome!"),
        ("Bonjour, je suis Camille de chez Acme.", "Enchanté, Camille."),
        ("Привет, я Мария из Acme.", "Приятно познакомиться, Мария!"),
    ],
    ids=["en", "de", "es", "en-hi", "fr", "ru"],
)
def test_a_pleasantry_is_no_decision(intro: str, reply: str) -> None:
    assert decisions([U(intro), A(reply)]) == []


def test_a_greeting_that_takes_up_a_value_is_still_a_decision() -> None:
    kept = decisions([U("Set retention.ms to 14 days."), A("Hi! retention.ms is 14 days now.")])
    assert kept == ["Set retention.ms to 14 days. \u2192 Hi! retention.ms is 14 days now."]


def test_chatty_replies_do_not_age_out_a_real_decision() -> None:
    messages = [
        U("Set the export limit to 800 kW."),
        A("On it."),
        U("Sorry, no: make it 820 kW, the grid operator changed it."),
        A("Export limit 820 kW."),
    ]
    for i in range(12):
        messages += [
            U(f"Heads-up: Jenkins build {100 + i} is green again."),
            A(f"Great news about build {100 + i}."),
        ]
    assert "Export limit 820 kW." in decisions(messages)


@pytest.mark.parametrize("reply", ["hmm", "I don't know."])
def test_a_non_answer_decides_nothing(reply: str) -> None:
    messages = [A("Which region: eu-north-1 or eu-west-1?"), U(reply), A("ok")]
    assert decisions(messages) == []


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Should I run it on prod or on non-prod?", "non-prod"),
        ("Which datacenter: NE or SW?", "NE"),
        ("Which language should the invoice template use: Hindi or Tamil?", "Hindi"),
        ("Which option do you prefer, No. 1 or No. 2?", "No. 2"),
        ("Which cluster should I use for the canary?", "nu-west cluster"),
        ("Which cluster should I use for the canary?", "ei-prod-2"),
        ("Which region should I deploy to?", "no-east-1"),
        ("Which cluster should I use for the canary?", "nie-west-2"),
        ("Which cluster should I use for the canary?", "ne-prod-2"),
    ],
)
def test_an_answer_that_opens_like_a_no_is_still_an_answer(question: str, answer: str) -> None:
    kept = decisions([A(question), U(answer), A("ok")])
    assert any(answer in d for d in kept)


def test_a_plain_answer_to_a_question_is_one_decision() -> None:
    kept = decisions([A("Which region: eu-north-1 or eu-west-1?"), U("eu-west-1"), A("ok")])
    assert kept == ["Which region: eu-north-1 or eu-west-1? \u2192 eu-west-1"]


def test_a_no_the_rules_do_not_know_decides_no_proposal() -> None:
    """**Holding** since the twelfth round: the no words of more scripts ('नहीं')."""
    messages = [A("I'd drop the users_backup table now. OK?"), U("नहीं"), A("Understood.")]
    assert not any("drop the users_backup" in d for d in decisions(messages))


def test_an_answer_to_a_japanese_question_is_no_decision() -> None:
    messages = [U("本番のリージョンは eu-west-1 ですか。"), A("はい、本番は eu-west-1 です。")]
    assert decisions(messages) == []


def test_a_question_in_a_code_block_is_no_question() -> None:
    messages = [A("Here is the check:\n```js\nconst ok = a ? b : c?\n```"), U("eu-west-1"), A("ok")]
    assert decisions(messages) == []


# --- real client traffic ---


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json.gz")), ids=lambda p: p.name)
def test_real_client_bodies_give_no_said_records(path: Path) -> None:
    body = json.loads(gzip.decompress(path.read_bytes()))["body"]
    name = path.name
    dialect = (
        "anthropic"
        if name.startswith("claude")
        else "responses"
        if name.startswith("codex")
        else "openai"
    )
    ledger = build_ledger(dialect_for(dialect).read_body(body))
    assert not [f for f in ledger.facts if f.state.startswith("said: ")]
    assert sum(f.kind == "decision" for f in ledger.facts) <= 2


def test_a_bare_identifier_fits_where_its_context_does_not() -> None:
    fact = Fact("id", "ORD-77", 3, context="x " * 200, who="agent")
    text, coverage = Ledger([fact]).restore("", "", 60, approx_token_counter)
    assert "`ORD-77`" in text
    assert coverage.restored == 1

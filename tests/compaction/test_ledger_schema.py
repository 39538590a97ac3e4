"""The fact ledger reading changes that commands make and that the agent reports in
its own words (issue 27, the sixteenth set's round): schema statements run through a
database client, a new git branch, a release rolled back, a name with one slash that
a tool named too, and "id" read as a word, not as "I'd". No case is taken from a
fidelity set."""

from __future__ import annotations

from contextfold.compaction._ledger import _said_records
from contextfold.messages import Message
from tests.compaction.test_ledger import call, facts_of


def test_a_table_dropped_through_a_database_client_is_a_record() -> None:
    facts = facts_of(
        [
            Message.user("Die Tabelle audit_2019 braucht niemand mehr. Weg damit."),
            *call(
                1,
                "bash",
                {"command": "psql -d ledger -c 'DROP TABLE IF EXISTS audit_2019;'"},
                "DROP TABLE",
            ),
            Message.assistant("Erledigt."),
        ]
    )
    assert facts["audit_2019"].kind == "record"
    assert "dropped" in facts["audit_2019"].state


def test_a_column_renamed_or_added_and_a_table_renamed_are_records() -> None:
    facts = facts_of(
        [
            Message.user("Rename the columns as agreed."),
            *call(
                1,
                "bash",
                {
                    "command": 'mysql shop -e "ALTER TABLE `invoice` RENAME COLUMN `vat` TO '
                    "`vat_rate`; ALTER TABLE invoice ADD COLUMN paid_at DATETIME; "
                    'ALTER TABLE cart_old RENAME TO cart_archive"'
                },
                "",
            ),
            Message.assistant("Done."),
        ]
    )
    assert facts["invoice.vat"].state == "status renamed to invoice.vat_rate"
    assert facts["invoice.paid_at"].state == "status added"
    assert facts["cart_old"].state == "status renamed to cart_archive"


def test_a_statement_the_database_refused_changes_nothing() -> None:
    facts = facts_of(
        [
            Message.user("Drop the table sessions_tmp."),
            *call(
                1,
                "bash",
                {"command": "mysql app -e 'DROP TABLE sessions_tmp'"},
                "ERROR 1051 (42S02) at line 1: Unknown table 'app.sessions_tmp'",
            ),
            Message.assistant("It was not there."),
        ]
    )
    assert "sessions_tmp" not in facts or facts["sessions_tmp"].kind != "record"


def test_a_select_or_a_statement_in_a_read_file_is_no_change() -> None:
    facts = facts_of(
        [
            Message.user("What does the migration do?"),
            *call(
                1,
                "bash",
                {"command": "grep -n 'DROP TABLE' migrations/0042_cleanup.sql"},
                "3:DROP TABLE legacy_tokens;",
            ),
            Message.assistant("It drops legacy_tokens."),
        ]
    )
    assert facts.get("legacy_tokens") is None or "dropped" not in facts["legacy_tokens"].state


def test_a_new_git_branch_is_a_record_with_where_it_started() -> None:
    facts = facts_of(
        [
            Message.user("Start a branch for the fix."),
            *call(
                1,
                "bash",
                {"command": "git checkout -b bugfix/rounding-cents origin/release-2.3"},
                "Switched to a new branch 'bugfix/rounding-cents'",
            ),
            Message.assistant("On it."),
        ]
    )
    record = facts["bugfix/rounding-cents"]
    assert record.kind == "record"
    assert "created" in record.state
    assert "origin/release-2.3" in record.state


def test_a_branch_switched_to_quietly_is_created_too() -> None:
    facts = facts_of(
        [
            Message.user("Neuer Branch bitte."),
            *call(1, "bash", {"command": "git switch -q -c feat/export-xlsx main"}, ""),
            Message.assistant("Fertig."),
        ]
    )
    assert "created" in facts["feat/export-xlsx"].state


def test_a_release_rolled_back_is_a_record() -> None:
    facts = facts_of(
        [
            Message.user("Go back to the previous release."),
            *call(
                1,
                "bash",
                {"command": "dep rollback prod"},
                "[app01] info Rollback to `releases/212` release was successful.",
            ),
            Message.assistant("Rolled back."),
        ]
    )
    assert "rolled back" in facts["releases/212"].state


def test_a_name_with_one_slash_a_tool_named_is_a_thing_the_agent_reports() -> None:
    facts = facts_of(
        [
            Message.user("Vrať produkci na minulé vydání."),
            *call(
                1,
                "bash",
                {"command": "cap production deploy:rollback"},
                "current -> /srv/shop/releases/20240611",
            ),
            Message.assistant("Hotovo: current teď ukazuje na releases/20240611 (rollback)."),
        ]
    )
    record = facts["releases/20240611"]
    assert record.kind == "record"
    assert "rollback" in record.state


def test_id_in_the_agents_words_is_no_proposal() -> None:
    sentence = "La tabella sessions_old è stata eliminata; il file id-map resta in /srv/dump."
    assert [f.key for f in _said_records(sentence, set())] == ["sessions_old"]

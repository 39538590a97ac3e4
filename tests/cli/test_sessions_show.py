"""``contextfold sessions show DB SESSION [--json]`` and ``sessions diff DB SESSION``
(issue 28, item 3 in part): a session's size and compactions, and what its last
summary replaced beside the summary, read from the database without writing it.
On today's main ``sessions`` took one argument: these commands did not exist."""

from __future__ import annotations

import json
from pathlib import Path

from contextfold import AutoCompactStore, Message
from contextfold.compaction import CompactionSettings
from contextfold.sqlite import SQLiteContextStore, connect
from contextfold.testing import StubTransport, make_text_response
from tests.cli.test_cli import assert_one_line_error, run

SUMMARY = "The user asked for invoices 0 to 9 checked; invoice 7 had a rounding error."


async def compacted_db(tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "agent.db"
    conn = await connect(db)
    inner = SQLiteContextStore(conn, "chat-7")
    for n in range(10):
        await inner.append(Message.user(f"check invoice {n} " + "i" * 200))
        await inner.append(Message.assistant(f"invoice {n} checked " + "a" * 200))
    summarizer = StubTransport([make_text_response(f"<summary>{SUMMARY}</summary>")])
    store = AutoCompactStore(
        inner,
        StubTransport([]),
        summary_transport=summarizer,
        keep_recent=4,
        settings=CompactionSettings(prepare_threshold=None),
    )
    await store.compact(force=True)
    assert store.compactions == 1
    await conn.close()
    return db, "chat-7"


async def test_show_prints_the_size_and_the_compactions(tmp_path: Path) -> None:
    db, session = await compacted_db(tmp_path)
    before = db.read_bytes()
    shown = run("sessions", "show", str(db), session, "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["session_id"] == session
    assert data["messages"] == 6  # summary, acknowledgement, 4 kept
    [record] = data["compactions"]
    assert (record["number"], record["messages_before"], record["messages_after"]) == (1, 20, 6)
    assert record["tokens_after"] < record["tokens_before"]
    assert data["archived_messages"] == 16
    table = run("sessions", "show", str(db), session)
    assert table.returncode == 0, table.stderr
    assert "6 messages" in table.stdout
    assert "20->6" in table.stdout
    assert "compacted" in table.stdout
    [entry] = data["journal"]
    assert (entry["kind"], entry["outcome"], entry["trigger"]) == (
        "compaction",
        "compacted",
        "forced",
    )
    assert entry["summary"] == SUMMARY
    assert entry["summarizer_requests"] == 1
    assert (entry["messages_before"], entry["messages_after"]) == (20, 6)
    assert db.read_bytes() == before  # only read


async def test_diff_prints_what_the_summary_replaced(tmp_path: Path) -> None:
    db, session = await compacted_db(tmp_path)
    diff = run("sessions", "diff", str(db), session)
    assert diff.returncode == 0, diff.stderr
    lines = diff.stdout.splitlines()
    assert lines[0].startswith("compaction #1 of session chat-7")
    removed = [line for line in lines if line.startswith("- ")]
    assert len(removed) == 16
    assert removed[0].startswith("- user: check invoice 0")
    assert "invoice 7 had a rounding error" in diff.stdout
    assert any(line.startswith("+ summary:") for line in lines)


async def test_unknown_session_and_the_listing(tmp_path: Path) -> None:
    db, _ = await compacted_db(tmp_path)
    line = assert_one_line_error(run("sessions", "show", str(db), "nope"))
    assert "no session 'nope'" in line
    listed = run("sessions", str(db), "--json")
    assert listed.returncode == 0, listed.stderr
    assert [s["session_id"] for s in json.loads(listed.stdout)] == ["chat-7"]
    never = tmp_path / "other.db"
    conn = await connect(never)
    store = SQLiteContextStore(conn, "fresh")
    await store.append(Message.user("hi"))
    await conn.close()
    plain = run("sessions", "diff", str(never), "fresh")
    assert plain.returncode == 0, plain.stderr
    assert "never compacted" in plain.stdout
    bad = assert_one_line_error(run("sessions", "show", str(db)))
    assert "usage" in bad


async def test_undo_puts_the_history_back_and_journals_it(tmp_path: Path) -> None:
    db, session = await compacted_db(tmp_path)
    conn = await connect(db)
    await SQLiteContextStore(conn, session).append(Message.user("appended after"))
    await conn.close()
    undone = run("sessions", "undo", str(db), session, "--json")
    assert undone.returncode == 0, undone.stderr
    data = json.loads(undone.stdout)
    assert data["messages"] == 21
    assert (data["undo"]["kind"], data["undo"]["undoes"]) == ("undo", 1)
    conn = await connect(db)
    history = await SQLiteContextStore(conn, session).get_history()
    await conn.close()
    assert history[0].text.startswith("check invoice 0")
    assert history[-1] == Message.user("appended after")
    shown = json.loads(run("sessions", "show", str(db), session, "--json").stdout)
    assert [e["kind"] for e in shown["journal"]] == ["compaction", "undo"]
    again = assert_one_line_error(run("sessions", "undo", str(db), session))
    assert "no compaction to undo" in again
    diff = run("sessions", "diff", str(db), session)
    assert "every compaction is undone" in diff.stdout


async def test_an_older_database_is_refused_until_upgraded(tmp_path: Path) -> None:
    db, session = await compacted_db(tmp_path)
    conn = await connect(db)
    await conn.execute("DROP TABLE contextfold_journal")
    await conn.execute("ALTER TABLE contextfold_compactions DROP COLUMN kept_before")
    await conn.execute("UPDATE contextfold_meta SET value = '2' WHERE key = 'schema_version'")
    await conn.commit()
    await conn.close()
    before = db.read_bytes()
    line = assert_one_line_error(run("sessions", "show", str(db), session))
    assert "older contextfold" in line
    assert "sessions upgrade" in line
    assert db.read_bytes() == before  # refused without writing
    upgraded = run("sessions", "upgrade", str(db))
    assert upgraded.returncode == 0, upgraded.stderr
    assert "from schema version 2 to 3" in upgraded.stdout
    shown = json.loads(run("sessions", "show", str(db), session, "--json").stdout)
    [entry] = shown["journal"]
    assert (entry["kind"], entry["outcome"], entry["compaction"]) == ("compaction", None, 1)
    # Where the old summary went was not recorded: it cannot be undone, and says so.
    line = assert_one_line_error(run("sessions", "undo", str(db), session))
    assert "older contextfold" in line
    not_db = tmp_path / "notes.txt"
    not_db.write_text("hello")
    assert_one_line_error(run("sessions", "upgrade", str(not_db)))

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
    assert "20 -> 6" in table.stdout
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

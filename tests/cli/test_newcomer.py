"""The command line's first-contact mistakes: each gets one clear line, and no file is harmed.

* an unknown option is named as such (not "COMMAND is required");
* ``compact`` refuses a transcript that breaks the tool-pairing rules instead of
  writing the breakage back (a compacted transcript never holds an orphan);
* ``demo --db`` refuses another application's SQLite file and leaves it byte-identical;
* ``demo``, ``fidelity`` and ``fake-upstream`` without the ``contextfold-harness``
  package name it and how to install it.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from contextfold import Message, validate_history
from contextfold.formats import from_openai
from contextfold.validation import history_problems
from tests.cli.test_cli import assert_one_line_error, run, write

# ------------------------------------------------------------------ usage errors


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--bogus"], "unknown option: --bogus"),
        (["--bogus=1"], "unknown option: --bogus=1"),
        (["--bogus", "demo"], "unknown option: --bogus"),
        (["-x"], "unknown option: -x"),
        (["demo", "--bogus"], "unknown option: --bogus"),
        (["sessions", "x.db", "--nope", "--json"], "unknown option: --nope"),
        (["compact", "a.json", "--keepx", "3"], "unknown option: --keepx"),
        (["compact", "a.json", "--to", "openai", "-z", "--zz"], "unknown options: -z, --zz"),
        (["compact", "a.json", "b.json"], "unexpected argument: b.json"),
    ],
)
def test_an_unknown_option_is_named_in_one_line_with_status_2(
    tmp_path: Path, args: list[str], expected: str
) -> None:
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2
    line = assert_one_line_error(result)
    assert line == f"contextfold: error: {expected} (see 'contextfold --help')"
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_a_missing_command_still_says_so(tmp_path: Path) -> None:
    result = run(cwd=tmp_path)
    assert result.returncode == 2
    line = assert_one_line_error(result)
    assert "COMMAND" in line
    assert "unknown" not in line


# --------------------------------------------------------- compact: valid input only


def _tool_call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "read", "arguments": "{}"}}


def _chat(turns: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(turns):
        out.append({"role": "user", "content": f"question {i} " + "q" * 80})
        out.append({"role": "assistant", "content": None, "tool_calls": [_tool_call(f"c{i}")]})
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i} " + "r" * 80})
        out.append({"role": "assistant", "content": f"answer {i}"})
    return out


def _orphan_in_recent() -> list[dict[str, Any]]:
    chat = _chat(6)
    del chat[-3]  # the last round's tool call goes; its result is left an orphan
    return chat


def _orphan_at_the_start() -> list[dict[str, Any]]:
    return [{"role": "tool", "tool_call_id": "c0", "content": "stale"}, *_chat(6)]


def _unanswered_call() -> list[dict[str, Any]]:
    chat = _chat(6)
    del chat[6]  # round 1's result is lost; its call is never answered
    return chat


def _duplicate_result() -> list[dict[str, Any]]:
    chat = _chat(6)
    chat.insert(3, dict(chat[2]))
    return chat


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (_orphan_in_recent, "tool result 'c5' answers no tool call in the previous message"),
        (_orphan_at_the_start, "tool result 'c0' answers no tool call in the previous message"),
        (_unanswered_call, "tool call(s) c1 from message 5 have no result in the next message"),
        (_duplicate_result, "tool call 'c0' is answered more than once"),
    ],
    ids=["orphan-in-recent", "orphan-at-start", "unanswered-call", "duplicate-result"],
)
@pytest.mark.parametrize("as_jsonl", [False, True], ids=["json", "jsonl"])
def test_compact_refuses_a_transcript_with_broken_tool_pairs(
    tmp_path: Path, make: Any, problem: str, as_jsonl: bool
) -> None:
    source = write(tmp_path / ("t.jsonl" if as_jsonl else "t.json"), make(), jsonl=as_jsonl)
    before = source.read_bytes()
    out = tmp_path / "out.json"
    for extra in ([], ["--json"], ["--to", "anthropic"], ["-o", str(out)]):
        result = run("compact", str(source), "--keep-recent", "4", *extra)
        assert result.returncode == 1
        line = assert_one_line_error(result)
        assert line.startswith(f"contextfold: error: {source}: cannot compact: message ")
        assert problem in line
        assert "contextfold.validate_history" in line
        assert result.stdout == ""
    assert source.read_bytes() == before
    assert not out.exists()


def test_a_valid_transcript_still_compacts_without_orphans(tmp_path: Path) -> None:
    source = write(tmp_path / "t.json", _chat(8))
    for keep in range(1, 12):  # every cut: the kept part never starts with an orphan
        result = run("compact", str(source), "--keep-recent", str(keep))
        assert result.returncode == 0, result.stderr
        compacted = from_openai(json.loads(result.stdout))
        validate_history(compacted)


def test_the_problem_names_the_tool_ids_to_look_for(tmp_path: Path) -> None:
    # OpenAI's parallel results are several ``tool`` items but one message once read,
    # so the ids, not only the message number, locate the problem in the file.
    chat = _chat(3)
    chat[1]["tool_calls"].append(_tool_call("p2"))
    chat.insert(3, {"role": "tool", "tool_call_id": "p2", "content": "second"})
    chat.insert(4, {"role": "tool", "tool_call_id": "zz9", "content": "stray"})
    line = assert_one_line_error(run("compact", str(write(tmp_path / "t.json", chat))))
    assert "message 2: tool result 'zz9' answers no tool call" in line


def test_other_rule_breaks_are_warned_about_not_refused(tmp_path: Path) -> None:
    # Two assistant turns in a row: providers reject it, but nothing of it is orphaned,
    # so compacting is still useful; the user is told on stderr.
    chat = _chat(6)
    chat.insert(4, {"role": "assistant", "content": "extra thought"})
    source = write(tmp_path / "t.json", chat)
    result = run("compact", str(source), "--keep-recent", "4")
    assert result.returncode == 0, result.stderr
    warnings = [ln for ln in result.stderr.splitlines() if "warning" in ln]
    assert warnings == [
        "contextfold: warning: the input breaks a rule providers enforce "
        "(message 4: two assistant messages in a row); compacting anyway"
    ]
    compacted: list[Message] = from_openai(json.loads(result.stdout))
    assert len(compacted) < len(chat)
    assert not [p for p in history_problems(compacted, allow_pending=True) if "tool" in p]


# ------------------------------------------------------- demo: never someone else's db


def _foreign_db(path: Path, journal: str = "delete") -> bytes:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA journal_mode={journal}")
    with conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        conn.execute("INSERT INTO invoices (total) VALUES (12.5)")
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("journal", ["delete", "wal"])
@pytest.mark.parametrize("extra", [[], ["--json"], ["--turns", "1"]])
def test_demo_refuses_another_applications_database_and_leaves_it_alone(
    tmp_path: Path, extra: list[str], journal: str
) -> None:
    db = tmp_path / "other.db"
    before = _foreign_db(db, journal)
    result = run("demo", "--db", str(db), *extra)
    assert result.returncode == 1
    line = assert_one_line_error(result)
    assert line == (
        f"contextfold: error: {db}: not a contextfold database (it has other tables: "
        "invoices); give --db a new file or one the demo wrote"
    )
    assert result.stdout == ""
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]  # no -wal, no -journal


def test_demo_reuses_its_own_database_and_an_empty_one(tmp_path: Path) -> None:
    own = tmp_path / "demo.db"
    for _ in range(2):  # a second run adds a session to the first run's database
        result = run("demo", "--turns", "1", "--json", "--db", str(own))
        assert result.returncode == 0, result.stderr
    listed = run("sessions", str(own), "--json")
    assert len(json.loads(listed.stdout)) == 2
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()  # a database with no tables is nobody's yet
    result = run("demo", "--turns", "1", "--json", "--db", str(empty))
    assert result.returncode == 0, result.stderr


def test_demo_refuses_a_database_that_only_looks_half_like_ours(tmp_path: Path) -> None:
    db = tmp_path / "half.db"
    conn = sqlite3.connect(db)
    with conn:  # a table of ours next to someone else's, but not our whole schema
        conn.execute("CREATE TABLE contextfold_sessions (session_id TEXT)")
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()
    before = db.read_bytes()
    line = assert_one_line_error(run("demo", "--db", str(db)))
    assert "not a contextfold database" in line
    assert db.read_bytes() == before


# -------------------------------------------------------------------- fake-upstream


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["fake-upstream", "--port", "0"], "--port must be between 1 and 65535, got 0"),
        (
            ["fake-upstream", "--max-prompt-tokens", "0"],
            "--max-prompt-tokens must be positive, got 0",
        ),
        (["serve", "--context-window", "100"], "--context-window must be at least 1024, got 100"),
    ],
)
def test_the_offline_servers_refuse_bad_settings_in_one_line(
    tmp_path: Path, args: list[str], expected: str
) -> None:
    result = run(*args, cwd=tmp_path, timeout=60)
    assert result.returncode == 1
    assert assert_one_line_error(result).startswith(f"contextfold: error: {expected}")
    assert result.stdout == ""


# -------------------------------------------------------------- without the harness


@pytest.mark.parametrize(
    "args",
    [
        ["demo", "--turns", "2"],
        ["fidelity", "--seeds", "1"],
        ["fake-upstream", "--port", "8765"],
    ],
    ids=lambda args: args[0],
)
def test_the_harness_commands_name_the_package_to_install_when_it_is_missing(
    args: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The demo session, the fidelity harness and the fake upstream are the
    contextfold-harness distribution, not the runtime package: without it the
    commands are still listed, and running one says what to install, in one line."""
    from contextfold.cli import main

    for name in [m for m in sys.modules if m.partition(".")[0] == "contextfold_harness"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "contextfold_harness", None)  # "not installed"
    monkeypatch.chdir(tmp_path)
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"contextfold: error: contextfold {args[0]} needs the 'contextfold-harness' package: "
        "pip install contextfold-harness (in a checkout of contextfold: "
        "pip install -e ./harness)\n"
    )
    assert list(tmp_path.iterdir()) == []  # demo made no database
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    assert all(command in listed for command in ("demo", "fidelity", "fake-upstream"))

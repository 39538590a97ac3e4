"""The ``contextfold`` console script, driven for real in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import contextfold
from contextfold import Message, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.formats import from_anthropic, from_openai, to_anthropic, to_openai
from contextfold.sqlite import connect

CLI = shutil.which("contextfold", path=str(Path(sys.executable).parent)) or shutil.which(
    "contextfold"
)


def run(
    *args: str, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    assert CLI, "the contextfold console script is not installed"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("COLUMNS", None)
    return subprocess.run(
        [CLI, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("contextfold: error: ")
    return lines[0]


def history() -> list[Message]:
    """A coding session: a system prompt, a task, eight tool rounds, a final answer."""
    messages = [
        Message.system("You are a coding agent."),
        Message.user("Fix the failing build in services/api/main.go. Keep the public API stable."),
    ]
    for i in range(8):
        # A realistic test log: long enough that a summary is much smaller than the session.
        log = "".join(
            f"=== RUN   TestCase{k}\n--- PASS: TestCase{k} (0.0{k % 10}s)\n" for k in range(12)
        )
        output = (
            f"{log}ok  pkg{i}  0.{i}s"
            if i % 3
            else f"{log}--- FAIL: TestHandler{i}\nerror: nil pointer"
        )
        messages.append(
            Message(
                "assistant",
                [
                    TextBlock(f"Running step {i}."),
                    ToolUseBlock(f"call_{i}", "run", {"cmd": f"go test ./pkg{i}"}),
                ],
            )
        )
        messages.append(Message("user", [ToolResultBlock(f"call_{i}", output, is_error=i == 4)]))
    messages.append(Message.assistant("Every package builds now. Next I will open the PR."))
    return messages


def write(path: Path, value: Any, *, jsonl: bool = False) -> Path:
    if jsonl:
        path.write_text("".join(json.dumps(item) + "\n" for item in value))
    else:
        path.write_text(json.dumps(value))
    return path


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"contextfold {contextfold.__version__}"


# ------------------------------------------------------------------------ demo


def test_demo_compacts_at_least_twice_and_prints_a_summary(tmp_path: Path) -> None:
    result = run("demo", "--turns", "10", "--delay", "0", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    compactions = [line for line in out.splitlines() if "compaction #" in line]
    assert len(compactions) >= 2
    assert all("tokens" in line and "messages" in line for line in compactions)
    assert "Session summary" in out
    assert "model calls" in out
    assert "peak context" in out
    assert "summarizer tokens" in out
    assert "\x1b" not in out  # no control codes when stdout is a pipe
    assert (tmp_path / ".contextfold" / "demo.db").is_file()  # the default location


def test_demo_json_is_consistent_with_sessions_json(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    result = run("demo", "--turns", "8", "--db", str(db), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)  # stdout holds the JSON and nothing else
    assert summary["turns"] == 8
    assert summary["compaction_count"] == len(summary["compactions"]) >= 2
    assert summary["model_calls"] > summary["turns"]
    assert summary["peak_context_tokens"] <= summary["window"]
    for record in summary["compactions"]:
        assert record["tokens_after"] < record["tokens_before"]
        assert record["messages_after"] < record["messages_before"]
    assert summary["summarizer_tokens"]["output"] > 0
    assert summary["messages_archived"] > 0
    # The archive keeps the whole transcript: everything appended is still readable.
    assert summary["transcript_messages"] > summary["messages_live"]

    listed = run("sessions", str(db), "--json")
    assert listed.returncode == 0, listed.stderr
    [session] = json.loads(listed.stdout)
    assert session["session_id"] == summary["session_id"]
    assert session["compactions"] == summary["compaction_count"]
    assert session["messages"] == summary["messages_live"]
    assert session["input_tokens"] == summary["agent_tokens"]["input"]
    assert session["preview"].startswith("Invoice totals are off by one cent")

    table = run("sessions", str(db))
    assert table.returncode == 0
    assert summary["session_id"][:8] in table.stdout
    assert "1 session(s)" in table.stdout


async def test_sessions_on_a_contextfold_database_without_sessions(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    conn = await connect(db)  # contextfold's schema, no session written yet
    await conn.close()
    listed = run("sessions", str(db), "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []
    table = run("sessions", str(db))
    assert table.returncode == 0, table.stderr
    assert table.stdout.strip() == f"no sessions in {db}"


@pytest.mark.parametrize("kind", ["another-application", "empty-file"])
def test_sessions_refuses_a_foreign_database_and_leaves_it_untouched(
    tmp_path: Path, kind: str
) -> None:
    db = tmp_path / "app.db"
    if kind == "empty-file":
        db.write_bytes(b"")
    else:
        conn = sqlite3.connect(db)
        with conn:
            conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, messages INTEGER)")
            conn.execute("INSERT INTO sessions VALUES ('abc', 3)")
        conn.close()
    before = db.read_bytes()
    for extra in ([], ["--json"]):
        line = assert_one_line_error(run("sessions", str(db), *extra))
        assert line == f"contextfold: error: {db}: not a contextfold database"
    assert db.read_bytes() == before  # no schema installed, journal mode unchanged
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]


# --------------------------------------------------------------------- compact


def _anthropic_object() -> dict[str, Any]:
    system, messages = to_anthropic(history())
    return {"system": system, "messages": messages, "model": "claude-sonnet-4-5"}


CASES = {
    "openai.json": (lambda: to_openai(history()), False, "openai"),
    "openai.jsonl": (lambda: to_openai(history()), True, "openai"),
    "anthropic.json": (_anthropic_object, False, "anthropic"),
    "anthropic_list.json": (lambda: to_anthropic(history()[1:])[1], False, "anthropic"),
    "contextfold.json": (lambda: [m.to_dict() for m in history()], False, "contextfold"),
    "contextfold.jsonl": (lambda: [m.to_dict() for m in history()], True, "contextfold"),
}


def _parse(text: str, fmt: str, jsonl: bool) -> list[Message]:
    data: Any = [json.loads(line) for line in text.splitlines()] if jsonl else json.loads(text)
    if fmt == "openai":
        return from_openai(data)
    if fmt == "anthropic":
        if isinstance(data, dict):
            return from_anthropic(data["messages"], data.get("system"))
        return from_anthropic(data)
    return [Message.from_dict(item) for item in data]


@pytest.mark.parametrize("name", sorted(CASES))
def test_compact_each_format_round_trips_in_its_own_dialect(tmp_path: Path, name: str) -> None:
    build, jsonl, fmt = CASES[name]
    source = write(tmp_path / name, build(), jsonl=jsonl)
    result = run("compact", str(source), "--keep-recent", "4")
    assert result.returncode == 0, result.stderr
    messages = _parse(result.stdout, fmt, jsonl)
    original = _parse(source.read_text(), fmt, jsonl)
    assert len(messages) < len(original)
    assert messages[-4:] == original[-4:]  # the recent part is kept verbatim
    summary = next(m.text for m in messages if "<summary>" in m.text)
    # The offline summarizer extracted these from the transcript.
    assert "services/api/main.go" in summary
    assert "TestHandler0" in summary
    assert "## Pending work and next step" in summary
    assert "->" in result.stderr
    assert "messages" in result.stderr
    if name == "anthropic.json":
        assert json.loads(result.stdout)["model"] == "claude-sonnet-4-5"  # other keys kept


def test_compact_converts_and_writes_a_file(tmp_path: Path) -> None:
    source = write(tmp_path / "t.json", to_openai(history()))
    target = tmp_path / "out.json"
    result = run("compact", str(source), "--to", "anthropic", "--output", str(target))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    data = json.loads(target.read_text())
    assert data["system"] == "You are a coding agent."
    messages = from_anthropic(data["messages"], data["system"])
    assert messages[0] == Message.system("You are a coding agent.")
    assert "<summary>" in messages[1].text


def test_compact_json_reports_stats(tmp_path: Path) -> None:
    source = write(tmp_path / "t.json", to_openai(history()))
    result = run("compact", str(source), "--json", "--keep-recent", "3")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    stats = data["stats"]
    assert stats["compacted"] is True
    assert stats["input_format"] == stats["output_format"] == "openai"
    assert stats["messages_before"] == len(history())
    assert stats["messages_after"] == len(from_openai(data["messages"]))
    assert stats["summarizer"] == "contextfold-extractive"
    assert stats["summarizer_requests"] == 1


def test_compact_reports_what_the_fact_ledger_did(tmp_path: Path) -> None:
    source = write(tmp_path / "t.json", to_openai(history()))
    result = run("compact", str(source), "--json", "--keep-recent", "3")
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout)["stats"]["facts"]
    assert facts["found"] > 0
    assert facts["found"] == facts["kept"] + facts["restored"] + facts["dropped"]
    plain = run("compact", str(source), "--keep-recent", "3")
    assert f"contextfold: facts: {facts['found']} found, {facts['kept']} kept" in plain.stderr
    off = run("compact", str(source), "--json", "--keep-recent", "3", "--fact-budget", "0")
    assert json.loads(off.stdout)["stats"]["facts"]["found"] == 0
    bad = run("compact", str(source), "--fact-budget", "-1")
    assert bad.returncode == 1
    assert bad.stderr == "contextfold: error: --fact-budget must be >= 0, got -1\n"


def test_compact_leaves_a_short_transcript_alone(tmp_path: Path) -> None:
    short = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    source = write(tmp_path / "t.json", short)
    result = run("compact", str(source), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["stats"]["compacted"] is False
    assert data["messages"] == short


def test_compact_validates_a_prompt_template(tmp_path: Path) -> None:
    source = write(tmp_path / "t.json", to_openai(history()))
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Summarize for {team}. Under {max_summary_tokens} tokens.")
    ok = run("compact", str(source), "--prompt", str(prompt), "--var", "team=payments")
    assert ok.returncode == 0, ok.stderr
    line = assert_one_line_error(run("compact", str(source), "--prompt", str(prompt)))
    assert "team" in line


def test_compact_reads_a_one_message_jsonl_file(tmp_path: Path) -> None:
    source = tmp_path / "one.jsonl"
    source.write_text('{"role": "user", "content": "hi"}\n')
    result = run("compact", str(source))
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"role": "user", "content": "hi"}
    ]
    assert "nothing to compact" in result.stderr


def test_compact_reads_a_file_with_a_byte_order_mark(tmp_path: Path) -> None:
    source = tmp_path / "bom.json"
    source.write_bytes(b"\xef\xbb\xbf" + json.dumps(to_openai(history())).encode())
    result = run("compact", str(source), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["stats"]["input_format"] == "openai"


def test_compact_detects_anthropic_with_explicit_is_error_false(tmp_path: Path) -> None:
    messages = to_anthropic(history()[1:])[1]
    for message in messages:
        for block in message["content"]:
            if block["type"] == "tool_result":
                block["is_error"] = block.get("is_error", False)  # explicit on every result
    source = write(tmp_path / "t.json", messages)
    result = run("compact", str(source), "--json", "--keep-recent", "4")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["stats"]["input_format"] == data["stats"]["output_format"] == "anthropic"
    assert from_anthropic(data["messages"])[-4:] == from_anthropic(messages)[-4:]


def test_compact_json_shape_is_stable_across_dialects(tmp_path: Path) -> None:
    source = write(tmp_path / "t.json", _anthropic_object())
    shapes = {}
    for fmt in ("anthropic", "openai", "contextfold"):
        result = run("compact", str(source), "--json", "--to", fmt)
        assert result.returncode == 0, result.stderr
        data = json.loads(result.stdout)
        assert isinstance(data["messages"], list)
        shapes[fmt] = list(data)
    assert shapes == {
        "anthropic": ["stats", "system", "messages"],
        "openai": ["stats", "messages"],
        "contextfold": ["stats", "messages"],
    }
    data = json.loads(run("compact", str(source), "--json").stdout)
    assert data["system"] == "You are a coding agent."
    assert from_anthropic(data["messages"], data["system"])[0] == history()[0]


def test_compact_keeps_lone_surrogates_and_writes_valid_utf8(tmp_path: Path) -> None:
    turns = [{"role": "user", "content": "ask \ud800 here"}, {"role": "assistant", "content": "ok"}]
    source = tmp_path / "s.json"
    source.write_text(json.dumps(turns * 5))  # json writes the surrogate as an escape
    target = tmp_path / "out.json"
    result = run("compact", str(source), "--keep-recent", "2", "--output", str(target))
    assert result.returncode == 0, result.stderr
    text = target.read_bytes().decode("utf-8")  # strict: no lone surrogate in the bytes
    assert json.loads(text)[-2:] == turns


def test_compact_errors_name_the_file(tmp_path: Path) -> None:
    source = tmp_path / "huge.json"
    source.write_text('[{"role": "user", "content": "x", "n": ' + "9" * 5000 + "}]")
    line = assert_one_line_error(run("compact", str(source)))
    assert line.startswith(f"contextfold: error: {source}: ")
    assert "4300 digits" in line


def test_compact_leaves_a_transcript_unchanged_when_a_summary_would_not_shrink_it(
    tmp_path: Path,
) -> None:
    tiny = [{"role": "user", "content": "ok?"}, {"role": "assistant", "content": "ok"}] * 4
    source = write(tmp_path / "t.json", tiny)
    result = run("compact", str(source), "--keep-recent", "2", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["stats"]["compacted"] is False
    assert data["messages"] == tiny
    assert data["stats"]["tokens_after"] == data["stats"]["tokens_before"]
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith("contextfold: warning: the transcript is left unchanged: ")
    assert "is not smaller than the history it would replace" in warnings[0]


# ------------------------------------------------------------------ bad input


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "bad.json").write_text('[{"role": "user", "content": "hi"')
    (tmp_path / "bad.jsonl").write_text('{"role": "user", "content": "a"}\n{"role":\n')
    (tmp_path / "weird.json").write_text('[{"role": 7, "content": "x"}]')
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "notdb.db").write_text("hello, not a database" * 100)
    (tmp_path / "deep.json").write_text("[" * 100_000)
    deep: list[Any] = []
    for _ in range(150):
        deep = [deep]
    tool_call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    write(
        tmp_path / "deep_input.json",
        [
            {"role": "assistant", "content": None, "tool_calls": [tool_call]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok", "extra": deep},
        ],
    )
    write(tmp_path / "ok.json", to_openai(history()))
    return tmp_path


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["compact", "missing.json"], "no such file"),
        (["compact", "bad.json"], "invalid JSON at line 1"),
        (["compact", "bad.jsonl"], "invalid JSON on line 2"),
        (["compact", "weird.json"], "field 'role' must be a string"),
        (["compact", "empty.json"], "empty"),
        (["compact", "ok.json", "--format", "xml"], "invalid choice: 'xml'"),
        (["compact", "ok.json", "--format", "contextfold"], "not contextfold"),
        (["compact", "ok.json", "--provider", "anthropic"], "ANTHROPIC_API_KEY"),
        (["compact", "ok.json", "--provider", "openai"], "OPENAI_API_KEY"),
        (["compact", "ok.json", "--provider", "mistral"], "invalid choice: 'mistral'"),
        (["compact", "ok.json", "--model", "gpt-4o"], "--model needs --provider"),
        (["compact", "ok.json", "--keep-recent", "0"], "--keep-recent"),
        (["compact", "ok.json", "--var", "novalue"], "NAME=VALUE"),
        (["compact", "."], "is a directory"),
        (["compact", "deep.json"], "deep.json: the JSON is nested too deeply"),
        (["compact", "deep_input.json"], "deep_input.json: the JSON is nested deeper than"),
        (["sessions", "missing.db"], "no such database file"),
        (["sessions", "notdb.db"], "notdb.db: not a SQLite database"),
        (["demo", "--turns", "0"], "--turns"),
        (["demo", "--window", "100"], "--window"),
        (["demo", "--provider", "openai"], "OPENAI_API_KEY"),
        (["demo", "--db", "."], ".: is a directory, not a database file"),
        (["demo", "--db", "notdb.db"], "notdb.db: not a SQLite database"),
        (["serve", "--port", "0"], "--port"),
        (["serve", "--prepare-threshold", "1.5"], "--prepare-threshold"),
        (["serve", "--prepare-threshold", "soon"], "--prepare-threshold"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_input_is_one_line_and_a_nonzero_exit(
    files: Path, args: list[str], expected: str
) -> None:
    line = assert_one_line_error(run(*args, cwd=files))
    assert expected in line


# ----------------------------------------------------------------------- serve


@pytest.mark.parametrize(
    ("db", "expected"),
    [
        (".", ".: is a directory, not a database file"),
        ("notdb.db", "notdb.db: not a SQLite database"),
        ("missing/cache.db", "missing/cache.db: the directory missing does not exist"),
    ],
)
def test_serve_refuses_a_bad_db_before_starting(files: Path, db: str, expected: str) -> None:
    result = run("serve", "--db", db, "--port", str(_free_port()), cwd=files, timeout=30)
    assert result.returncode == 1
    assert assert_one_line_error(result) == f"contextfold: error: {expected}"
    assert result.stdout == ""  # uvicorn never started
    assert not (files / "missing").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_refuses_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("serve", "--port", str(port), "--db", str(tmp_path / "c.db"), timeout=30)
    assert result.returncode == 1
    line = assert_one_line_error(result)
    assert line.startswith(f"contextfold: error: cannot listen on 127.0.0.1:{port}: ")
    assert "in use" in line


def test_serve_starts_the_proxy_on_localhost(tmp_path: Path) -> None:
    assert CLI
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    proc = subprocess.Popen(
        [
            *(CLI, "serve", "--port", str(port), "--db", str(tmp_path / "cache.db")),
            *("--secret-header", "x-portkey-api-key", "--secret-header", "x-tenant-token"),
            *("--prepare-threshold", "0.5"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.communicate()[0]
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the proxy never started listening"
                time.sleep(0.1)
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0]
    assert "Traceback" not in output


@pytest.mark.parametrize(("value", "expected"), [("0.5", 0.5), ("off", None), ("OFF", None)])
def test_serve_passes_prepare_threshold_to_the_proxy(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: float | None
) -> None:
    import contextfold.proxy
    from contextfold.cli import main

    seen: dict[str, Any] = {}
    monkeypatch.setattr(contextfold.proxy, "serve", lambda **kwargs: seen.update(kwargs))
    main(["serve", "--port", str(_free_port()), "--prepare-threshold", value])
    assert seen["settings"].prepare_threshold == expected


def test_serve_passes_its_timeouts_to_the_server_only_when_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import contextfold.proxy
    from contextfold.cli import main

    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(contextfold.proxy, "serve", lambda **kwargs: seen.append(kwargs))
    main(["serve", "--port", str(_free_port()), "--header-timeout", "3", "--body-timeout", "4"])
    config = tmp_path / "proxy.toml"
    config.write_text("[defaults]\nbody_timeout = 9\n")
    main(["serve", "--port", str(_free_port()), "--config", str(config)])
    assert (seen[0]["header_timeout"], seen[0]["body_timeout"]) == (3.0, 4.0)
    assert "header_timeout" not in seen[1]  # serve's own default
    assert seen[1]["body_timeout"] == 9.0
    assert main(["serve", "--port", str(_free_port()), "--header-timeout", "0"]) == 1
    assert "--header-timeout must be a positive number of seconds" in capsys.readouterr().err
    assert len(seen) == 2


def test_fidelity_json_reports_survival_per_probe_kind_and_depth() -> None:
    result = run("fidelity", "--json", "--seeds", "1", "--depths", "1,3")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["summarizer"] == "contextfold-extractive"
    assert report["judge"] is None
    assert set(report["survival"]) == {"identifier", "artifact", "decision", "next_step"}
    assert set(report["survival"]["identifier"]) == {"1", "3"}
    assert report["probes"]["identifier"] == 9  # three per session, three sessions
    again = run("fidelity", "--json", "--seeds", "1", "--depths", "1,3")
    assert again.stdout == result.stdout


def test_fidelity_runs_the_held_out_sessions_with_a_lossy_stub_and_the_ledger() -> None:
    def survival(*options: str) -> dict[str, dict[str, float]]:
        result = run("fidelity", "--json", "--seeds", "1", "--depths", "3", *options)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["summarizer"] == "lossy-35"
        assert report["probes"]["identifier"] == 3 * len(report["sessions"])
        assert {s["kind"] for s in report["sessions"]} >= {"incident", "finance"}
        survival: dict[str, dict[str, float]] = report["survival"]
        return survival

    common = ("--kinds", "heldout", "--lossy", "0.35", "--user-message-budget", "0")
    bare = survival(*common, "--fact-budget", "0")
    ledger = survival(*common)
    assert ledger["identifier"]["3"] > bare["identifier"]["3"] + 0.5
    assert ledger["artifact"]["3"] > bare["artifact"]["3"] + 0.5
    second = run("fidelity", "--json", "--seeds", "1", "--depths", "1", "--kinds", "heldout2")
    assert second.returncode == 0, second.stderr
    assert {s["kind"] for s in json.loads(second.stdout)["sessions"]} >= {"legal", "payroll"}
    assert "--lossy" in assert_one_line_error(run("fidelity", "--lossy", "2"))
    assert "--fact-budget" in assert_one_line_error(run("fidelity", "--fact-budget", "-5"))


def test_fidelity_prints_a_table_and_refuses_bad_options() -> None:
    result = run("fidelity", "--seeds", "1", "--kinds", "support", "--depths", "1")
    assert result.returncode == 0, result.stderr
    assert "identifier" in result.stdout
    assert "after 1" in result.stdout
    assert "--kinds" in assert_one_line_error(run("fidelity", "--kinds", "poetry"))
    assert "--depths" in assert_one_line_error(run("fidelity", "--depths", "0"))
    assert "OPENAI_API_KEY" in assert_one_line_error(run("fidelity", "--provider", "openai"))

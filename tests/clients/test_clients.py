"""Real agent clients through ``contextfold serve`` against a scripted model.

Claude Code, Codex CLI and opencode (from npm) and aider (from PyPI), installed at
pinned versions by ``tests/clients/install.sh`` (``make test`` and ``.ci/run`` run it;
a client that is not installed fails here, it is not skipped). Each runs a task of
20 shell steps (aider: 12 edits of a file) through the real proxy with a small
context window; the scripted model (:mod:`tests.clients.scripted`) checks every
request for broken tool pairing (and Anthropic's thinking rule) itself. Each test
checks that the run finishes, that requests arrive compacted, that the task reaches
the model word for word in every request, and writes what it measured to
``.cache/clients/report.json``.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clients import runner
from tests.clients.scripted import Request_, Scripted, Served

pytestmark = pytest.mark.clients

STEPS = 20
DONE = f"All {STEPS} steps are done."


@pytest.fixture(scope="module", autouse=True)
def _installed() -> None:
    missing = [
        p for p in (runner.BIN / "claude", runner.BIN / "codex", runner.AIDER) if not p.exists()
    ]
    missing += [p for p in (runner.BIN / "opencode",) if not p.exists()]
    if missing:
        pytest.fail(
            f"agent clients missing ({', '.join(p.name for p in missing)}): run "
            "tests/clients/install.sh (make test does)"
        )


@pytest.fixture
def model() -> Scripted:
    return Scripted(steps=STEPS)


@pytest.fixture
def served(model: Scripted) -> Iterator[Served]:
    with Served(model) as served:
        yield served


def _record(name: str, data: dict[str, Any]) -> None:
    """Add ``name``'s entry to the report. Tests on parallel workers (or another test
    run) may record at once: the update holds a lock, and the file is replaced whole,
    so no reader sees half of it and no entry is lost."""
    path = runner.CLIENTS / "report.json"
    with open(path.with_name("report.json.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        report = json.loads(path.read_text()) if path.exists() else {}
        report[name] = data
        partial = path.with_name(f"report.json.{os.getpid()}")
        partial.write_text(json.dumps(report, indent=1))
        os.replace(partial, path)


def _sizes(log: Path) -> list[tuple[int, int]]:
    """``(sent, forwarded)`` estimates of each compacted request, from the proxy's log."""
    found = re.findall(r"~(\d+) -> ~(\d+) tokens", log.read_text())
    return [(int(a), int(b)) for a, b in found]


def _task_kept(request: Request_) -> bool:
    """Whether the task reaches the model in a message of its own, not in a summary."""
    body = request.body
    items = body.get("messages") if request.dialect != "responses" else body.get("input")
    for item in items or []:
        text = json.dumps(item)
        if runner.TASK in text and "SUMMARY-" not in text and "continues earlier work" not in text:
            return True
    return False


def _check(
    name: str,
    model: Scripted,
    proxy: runner.Proxy,
    run: runner.Run,
    done: str | None = DONE,
    tools: bool = True,
) -> list[Request_]:
    assert run.returncode == 0, run.output[-3000:]
    if done is not None:
        assert done in run.output, run.output[-3000:]
    assert model.problems == []
    requests = runner.conversation(model, tools=tools)
    assert requests
    compacted = [r for r in requests if "SUMMARY-" in json.dumps(r.body)]
    assert compacted, proxy.log.read_text()[-3000:]
    for request in requests:
        assert _task_kept(request), f"request of {request.size} bytes lost the task"
    sizes = _sizes(proxy.log)
    _record(
        name,
        {
            **runner.report(model, requests).as_dict(),
            "largest_sent_tokens": max((a for a, _ in sizes), default=0),
            "largest_forwarded_tokens": max((b for _, b in sizes), default=0),
        },
    )
    return requests


def test_claude_code_with_its_default_tools_is_compacted(
    model: Scripted, served: Served, tmp_path: Path
) -> None:
    # Today's main compacted 0 of 21 requests: Claude Code sends a system message inside
    # `messages`, and the proxy refused to model it.
    with runner.proxy(
        served.port, tmp_path, "--context-window", "60000", "--threshold", "0.5"
    ) as px:
        run = runner.run_claude(px.url, tmp_path)
        requests = _check("claude-code", model, px, run)
    # its system message rides along, byte for byte, after compaction too
    last = requests[-1].body["messages"]
    assert any(m.get("role") == "system" and "output_config" in m for m in last)


def test_codex_is_compacted_without_churn(model: Scripted, served: Served, tmp_path: Path) -> None:
    # Today's main made 19 summaries in 20 turns at a 30k window (the fixed prompt is
    # 2/3 of the limit) and summarized the environment context away.
    with runner.proxy(served.port, tmp_path, "--context-window", "30000") as px:
        run = runner.run_codex(px.url, tmp_path)
        requests = _check("codex", model, px, run)
    assert len(model.summaries) <= 8
    for request in requests:
        text = json.dumps(request.body["input"][:6])
        assert "<environment_context>" in text
    # the custom apply_patch call (an item the proxy does not model) was made and kept
    # paired with its output wherever it was sent
    assert any('"custom_tool_call"' in json.dumps(r.body) for r in requests)


def test_opencode_is_compacted(model: Scripted, served: Served, tmp_path: Path) -> None:
    with runner.proxy(served.port, tmp_path, "--context-window", "24000") as px:
        run = runner.run_opencode(px.url, tmp_path)
        _check("opencode", model, px, run)


def test_aider_keeps_its_files_and_examples_after_compaction(tmp_path: Path) -> None:
    # Today's main summarized the message holding the chat files away (the model lost
    # big.py) and quoted aider's canned examples as "the user's own messages".
    model = Scripted(steps=STEPS, file_probe=runner.AIDER_PROBE, reply_chars=1600)
    with (
        Served(model) as served,
        runner.proxy(served.port, tmp_path, "--context-window", "16000") as px,
    ):
        run = runner.run_aider(px.url, tmp_path, turns=14)
        requests = _check("aider", model, px, run, done=None, tools=False)
    assert run.output.count("Applied edit to big.py") >= 12
    for request in requests:
        sent = json.dumps(request.body)
        assert runner.AIDER_PROBE.strip() in sent  # the file's current text
        assert "Change get_factorial() to use math.factorial" in sent  # its examples
    for summary in model.summaries:
        assert "get_factorial" not in json.dumps(summary.body)  # never summarized

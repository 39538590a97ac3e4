"""Every example runs offline as a script and prints what it claims."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(*args: str, cwd: Path | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd or EXAMPLES.parent,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def test_wrap_existing_store(tmp_path: Path) -> None:
    out = run_example(str(EXAMPLES / "wrap_existing_store.py"), cwd=tmp_path)
    compactions = re.findall(r"compacted: (\d+) -> (\d+) messages", out)
    assert compactions
    assert all(int(after) < int(before) for before, after in compactions)
    assert "your store now starts with the summary: True" in out
    # The user's own store shrank after the compaction and kept growing afterwards.
    sizes = [int(n) for n in re.findall(r"question \d+: (\d+) messages", out)]
    assert len(sizes) == 6
    assert min(sizes[4:]) < max(sizes[:4])


def test_custom_prompt(tmp_path: Path) -> None:
    out = run_example(str(EXAMPLES / "custom_prompt.py"), cwd=tmp_path)
    assert "uses variables: max_summary_tokens, policy, product" in out
    # The variables were rendered into what the summarizer received.
    assert "conversation for CloudSync so that" in out
    assert "Keep it under 500 tokens." in out
    assert "8 -> 4 messages" in out
    assert "AC-7781" in out
    assert re.search(r"without prompt_vars: .*needs a value for policy, product", out)


def test_sqlite_long_session(tmp_path: Path) -> None:
    out = run_example(str(EXAMPLES / "sqlite_long_session.py"), cwd=tmp_path)
    [(count, live)] = re.findall(r"(\d+) compactions; live history: (\d+) messages", out)
    assert int(count) >= 2
    [transcript] = re.findall(r"full transcript: (\d+) messages, first: 'Read page 1'", out)
    assert int(transcript) == 40 * 4  # every message of the 40 rounds is still readable
    assert int(live) < int(transcript)
    assert f"after reopening: {live} live messages" in out


def test_the_stub_transport_example_runs_as_a_script(tmp_path: Path) -> None:
    out = run_example(str(EXAMPLES / "test_with_stub_transport.py"), cwd=tmp_path)
    assert "3 passed" in out


def test_the_stub_transport_example_passes_under_pytest(tmp_path: Path) -> None:
    out = run_example(
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        str(EXAMPLES / "test_with_stub_transport.py"),
    )
    assert "3 passed" in out

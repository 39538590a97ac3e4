"""A real Amplifier session (amplifier-core from PyPI) on contextfold-context (issue 18).

The session runs in a worker process (:mod:`tests.manager._amplifier_worker`): the
kernel's ``AmplifierSession``, ``contextfold-context`` loaded through its entry point
with a bundle-style config (context-simple's keys and a SQLite ``store`` URL), an
orchestrator that stores messages exactly as loop-basic does, a fake provider that
also writes the summaries (no ``transport`` configured: the mounted provider is used)
and an echo tool. Nine tool-using turns force a summary and its extension; a second
process then resumes the same session id and goes on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.manager._loop_basic import tool_pairs_intact

ROOT = Path(__file__).resolve().parents[2]


def session(phase: str, db: Path, session_id: str, turns: int, first: int = 0) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.manager._amplifier_worker",
            phase,
            str(db),
            session_id,
            str(turns),
            str(first),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4_000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def outcomes(result: dict[str, Any]) -> list[str]:
    return [e["summary"] for e in result["events"] if e["event"] == "context:post_compact"]


def signatures(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Each thinking block's text -> its signature."""
    return {
        block["thinking"]: block.get("signature", "")
        for message in messages
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block["type"] == "thinking"
    }


# one worker runs both sessions once for the module (under ``make test``'s parallel workers)
pytestmark = pytest.mark.xdist_group("amplifier-session")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    db = tmp_path_factory.mktemp("amplifier") / "sessions.db"
    session_id = f"amp-{uuid.uuid4().hex}"
    first = session("first", db, session_id, turns=9)
    second = session("resume", db, session_id, turns=3, first=9)
    return first, second


def test_a_session_with_tool_turns_compacts_twice_and_every_request_is_valid(
    runs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    first, _ = runs
    assert first["context_class"] == "CompactingContextManager"  # from the entry point
    assert first["answers"] == [f"turn {i} is done" for i in range(9)]
    assert first["script_left"] == 0
    assert first["stored"] == first["added"]  # every dict the orchestrator wrote, unchanged
    found = outcomes(first)
    # compact_threshold 0.5 is under the default prepare share (0.6): summaries are
    # prepared at 0.8 of the threshold, so none is made while a request waits
    assert found[0] == "prepared"
    assert found.count("prepared") >= 2  # a second compaction, prepared as well
    assert not {"new", "extended", "failed", "backoff"} & set(found)
    assert first["summary_requests"] >= 2
    posts = [e for e in first["events"] if e["event"] == "context:post_compact"]
    assert all(e["tokens_after"] <= e["threshold_tokens"] for e in posts)
    assert all(e["session_id"] for e in first["events"])  # the kernel stamped them
    originals = signatures(first["added"])
    for request in first["requests"]:  # each was rebuilt with Message(**d) by the orchestrator
        assert tool_pairs_intact(request) == []
        for text, signature in signatures(request).items():
            assert originals[text] == signature
    summarized = [r for r in first["requests"] if "Summary #" in json.dumps(r)]
    assert summarized
    assert len(summarized[-1]) < len(first["stored"])
    assert ["context:pre_compact", "context:post_compact", "context:prepared"] in first[
        "contributions"
    ]
    checks = dict(first["validation"])
    assert checks["protocol_compliance"]
    assert all(checks.values()), checks


def test_a_restarted_session_resumes_its_history_and_summary_from_the_store(
    runs: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    first, second = runs
    assert second["transcript_ignored"] is True  # the store is authoritative
    assert second["answers"] == [f"turn {i} is done" for i in range(9, 12)]
    assert second["stored"] == first["stored"] + second["added"]
    posts = [e for e in second["events"] if e["event"] == "context:post_compact"]
    assert posts[0]["summary"] == "cached"  # no model call for the summary it already had
    assert posts[0]["summarizer_requests"] == 0
    last_summary = f"Summary #{first['summary_requests']} "
    assert last_summary in json.dumps(second["requests"][0])
    for request in second["requests"]:
        assert tool_pairs_intact(request) == []

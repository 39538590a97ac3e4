"""Test your agent's compaction offline: copy this file into your test suite.

StubTransport plays back scripted replies and records every request, so a test can
assert exactly what the model and the summarizer were sent. Nothing touches the
network. Run it with ``pytest examples/test_with_stub_transport.py`` (or as a script).
"""

from __future__ import annotations

import os
import sys

import pytest

from contextfold import (
    Agent,
    AutoCompactStore,
    MemoryContextStore,
    Message,
    ToolResultBlock,
    tool,
    validate_history,
)
from contextfold.testing import StubTransport, make_text_response, make_tool_use_response

SUMMARY = "## Current state\n- The user asked for three reports; all were generated."


@tool
async def make_report(name: str) -> str:
    """Generate a report."""
    return f"report {name}: " + "row " * 400


def scripted_agent(rounds: int) -> StubTransport:
    """Per round: one tool call, then a text answer."""
    replies = []
    for i in range(rounds):
        replies += [
            make_tool_use_response("make_report", {"name": f"r{i}"}),
            make_text_response(f"Report r{i} is ready."),
        ]
    return StubTransport(replies)


@pytest.mark.asyncio
async def test_the_store_compacts_when_usage_crosses_the_limit() -> None:
    summarizer = StubTransport([make_text_response(SUMMARY)])
    store = AutoCompactStore(
        MemoryContextStore(),
        scripted_agent(3),
        max_tokens=1_000,
        keep_recent=2,
        summary_transport=summarizer,
    )
    agent = Agent("You write reports.", store.transport, tools=[make_report])
    for i in range(3):
        assert await agent.run(f"Make report r{i}", store) == f"Report r{i} is ready."

    assert store.compactions >= 1
    history = await store.get_history()
    assert SUMMARY in history[0].text  # the summary leads the history
    validate_history(history)  # still a history every provider accepts
    # The summarizer saw the old transcript, including the user's requests.
    assert "Make report r0" in summarizer.requests[0].text
    assert store.summarizer_usage.input_tokens > 0


@pytest.mark.asyncio
async def test_a_bad_summary_is_never_committed() -> None:
    empty = StubTransport([make_text_response("")] * 4)  # an unusable summary
    store = AutoCompactStore(
        MemoryContextStore(),
        scripted_agent(2),
        max_tokens=400,
        keep_recent=2,
        summary_transport=empty,
    )
    agent = Agent(None, store.transport, tools=[make_report])
    for i in range(2):
        await agent.run(f"Make report r{i}", store)
    history = await store.get_history()
    assert empty.requests  # compaction was attempted...
    assert store.compactions == 0  # ...but nothing was committed
    assert history[0] == Message.user("Make report r0")  # untouched
    assert len(history) == 8
    assert store.last_event is not None
    assert store.last_event.outcome == "rejected"


@pytest.mark.asyncio
async def test_tool_calls_and_results_stay_paired() -> None:
    summarizer = StubTransport([make_text_response(SUMMARY)] * 5)
    store = AutoCompactStore(
        MemoryContextStore(),
        scripted_agent(4),
        max_tokens=900,
        keep_recent=1,
        summary_transport=summarizer,
    )
    agent = Agent(None, store.transport, tools=[make_report])
    for i in range(4):
        await agent.run(f"Make report r{i}", store)
    history = await store.get_history()
    calls = {b.id for m in history for b in m.tool_uses}
    results = {b.tool_use_id for m in history for b in m.content if isinstance(b, ToolResultBlock)}
    assert calls == results


if __name__ == "__main__":
    # Run standalone, ignoring whatever pytest configuration the current folder has.
    args = ["-q", "-c", os.devnull, "-p", "no:cacheprovider"]
    args += ["-o", "asyncio_default_fixture_loop_scope=function"]
    sys.exit(pytest.main([__file__, *args]))

"""Background preparation under schedules and inputs its first tests did not choose.

WINDOW is 4,000 tokens with 500 of output: compaction at 3,000, preparation at 2,400.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from contextfold import (
    Agent,
    AutoCompactStore,
    CompactionEvent,
    MemoryContextStore,
    Message,
    ModelInfo,
    ThinkingBlock,
    Tool,
    ToolUseBlock,
)
from contextfold.compaction import CompactionSettings
from contextfold.context import ContextStore
from contextfold.postgres import PostgresContextStore
from contextfold.sqlite import SQLiteContextStore, connect
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    StubTransport,
    make_text_response,
)
from contextfold.tokens import HeuristicTokenCounter
from contextfold.validation import validate_history
from tests._stores import pg_connection_or_skip
from tests.compaction.test_compaction import GatedSummarizer, alternating
from tests.compaction.test_prepare import late_round, make_store, outcomes, settle
from tests.compaction.test_relief import WINDOW, HungSummarizer
from tests.conftest import require_service


def others() -> set[asyncio.Task[object]]:
    return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}


async def test_close_during_a_commit_starts_no_update_after_it() -> None:
    """A commit over the target asks for a background update; a close() that came
    first must not let a summary be paid for, nor a task run, after it returned."""
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    store = make_store(alternating(100), summary, events)
    await store.add_context_tokens(2_600, 10)
    await settle()
    for i in range(10):
        for message in late_round(f"after the snapshot {i}"):
            await store.append(message)
    before = others()
    usage = asyncio.ensure_future(store.add_context_tokens(3_100, 10))
    await asyncio.sleep(0)  # the commit is under way
    await store.close()
    await usage
    await settle()
    assert "committed" in outcomes(events)
    assert len(summary.requests) == 1  # no update paid for after close()
    assert others() <= before | {usage}


async def test_close_while_a_prepared_summary_commits_leaves_no_work_behind() -> None:
    summary = GatedSummarizer()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events)
    before = others()
    await store.add_context_tokens(2_600, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    await store.add_context_tokens(3_100, 10)  # over the limit: commit when it arrives
    summary.release.set()
    await asyncio.sleep(0)  # the summary arrives; its commit starts
    await store.close()
    assert not (others() - before)  # close() returned: nothing of the store still runs


async def test_a_clear_during_a_preparation_leaves_the_next_history_its_own() -> None:
    """A preparation of the old history still running at a clear() must not block the
    new history's preparation: its limit commits a summary prepared for it, without a
    wait and without first discarding the old one."""
    summary = GatedSummarizer()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events)
    await store.add_context_tokens(2_600, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    await store.clear()
    summary.release.set()
    await settle()
    fresh = alternating(40, 90)
    for message in fresh:
        await store.append(message)
    await store.add_context_tokens(2_600, 10)  # the new history crosses the prepare point
    await settle()
    await store.add_context_tokens(3_100, 10)
    assert outcomes(events)[-2:] == ["prepared", "committed"]
    assert "discarded" not in outcomes(events)[-3:]
    history = await store.get_history()
    assert history[-4:] == fresh[-4:]


async def test_relief_holds_when_the_real_tokenizer_counts_twice_the_estimate() -> None:
    """The provider counts twice what the store's counter does (hashes, numbers, code):
    what a relieved view leaves out is worth twice its count too, and the estimate of
    the whole history must not fall when a relieved request reports its smaller size,
    or relief stops while the history is still over the window."""
    calls = 0

    async def model(request: StubRequest) -> StubResponse:
        nonlocal calls
        calls += 1
        if calls % 2 == 0:
            return make_text_response("noted: " + "r" * 200)
        return StubResponse([ToolUseBlock(f"c{calls}", "read", {"p": calls})], "tool_use")

    transport = FunctionTransport(model, model=WINDOW, counter=HeuristicTokenCounter(2.0))
    agent = Agent(
        "You are careful.",
        transport,
        tools=[Tool("read", "r", {"type": "object", "properties": {}}, lambda a: "o" * 1_500)],
    )
    store = AutoCompactStore(
        MemoryContextStore(), transport, summary_transport=HungSummarizer(), keep_recent=4
    )
    prompts = [f"step {i}: " + "p" * 200 for i in range(40)]
    for prompt in prompts:
        await asyncio.wait_for(agent.run(prompt, store), 5)
    assert max(r.input_tokens for r in transport.requests) <= WINDOW.input_budget
    history = await store.inner.get_history()
    assert [m.text for m in history if m.role == "user" and not m.tool_results] == prompts
    await store.close()


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


@asynccontextmanager
async def two_connections(kind: str, tmp_path: Path) -> AsyncIterator[list[ContextStore]]:
    """Two stores of one new session, each on its own connection (as two processes)."""
    session = f"shared-{uuid.uuid4().hex[:8]}"
    if kind == "sqlite":
        conns = [await connect(tmp_path / "shared.db") for _ in range(2)]
        try:
            yield [SQLiteContextStore(conn, session) for conn in conns]
        finally:
            for conn in conns:
                await conn.close()
        return
    pgs = [await pg_connection_or_skip(require_service) for _ in range(2)]
    try:
        yield [PostgresContextStore(pg, session) for pg in pgs]
    finally:
        for pg in pgs:
            await pg.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_two_stores_on_one_session_a_stale_prepared_summary_steps_aside(
    kind: str, tmp_path: Path
) -> None:
    """A and B share a session (two connections, as two processes would). Both prepare;
    B commits first. A's prepared summary is stale: it is never committed over B's, and
    it does not hold back A's next preparation, so A's next limit waits for no model."""
    async with two_connections(kind, tmp_path) as (inner_a, inner_b):
        for message in alternating(30):
            await inner_a.append(message)
        summary_a, summary_b = GatedSummarizer(), GatedSummarizer()
        summary_a.release.set()
        summary_b.release.set()
        events_a: list[CompactionEvent] = []
        a = AutoCompactStore(
            inner_a,
            StubTransport(model=WINDOW),
            keep_recent=4,
            summary_transport=summary_a,
            on_event=events_a.append,
        )
        b = AutoCompactStore(
            inner_b,
            StubTransport(model=WINDOW),
            keep_recent=4,
            summary_transport=summary_b,
        )
        await a.add_context_tokens(2_600, 10)
        await b.add_context_tokens(2_600, 10)
        await until(lambda: outcomes(events_a) == ["prepared"] and b._core.prep.ready is not None)
        await b.add_context_tokens(3_100, 10)  # B commits its summary
        assert b.compactions == 1
        # A's next report is small again, and its next read finds B's commit.
        await a.add_context_tokens(1_400, 10)
        await a.get_history()
        assert outcomes(events_a) == ["prepared", "discarded"]
        fresh = alternating(20, 90)
        for message in fresh:
            await a.append(message)
        await a.get_history()
        await a.add_context_tokens(2_600, 10)  # past the prepare point again
        await until(lambda: outcomes(events_a)[-1] == "prepared")
        requests = len(summary_a.requests)
        await a.add_context_tokens(3_100, 10)
        assert len(summary_a.requests) == requests  # A's limit called no model
        assert outcomes(events_a)[-2:] == ["prepared", "committed"]
        assert "discarded" in outcomes(events_a)  # A's stale summary: paid, never used
        history = await a.inner.get_history()
        validate_history(history)
        assert history[-4:] == fresh[-4:]


async def test_a_summarizer_that_never_answers_120_turns_of_parallel_tools_and_thinking() -> None:
    """No time limit on the summary at all: the preparation never ends. Every request
    (thinking with signatures, two parallel tool calls a step) stays in the window and
    valid in both dialects, and the store keeps every message."""
    calls = 0

    async def model(request: StubRequest) -> StubResponse:
        nonlocal calls
        calls += 1
        validate_history(request.messages, "anthropic")
        validate_history(request.messages, "openai")
        if calls % 3 == 0:
            return make_text_response("noted: " + "r" * 200)
        return StubResponse(
            [
                ThinkingBlock("which files next", signature=f"sig{calls}"),
                ToolUseBlock(f"a{calls}", "read", {"p": calls}),
                ToolUseBlock(f"b{calls}", "read", {"p": -calls}),
            ],
            "tool_use",
        )

    transport = FunctionTransport(model, model=WINDOW, enforce_window=True)
    agent = Agent(
        "You are careful.",
        transport,
        tools=[Tool("read", "r", {"type": "object", "properties": {}}, lambda a: "o" * 400)],
    )
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        MemoryContextStore(),
        transport,
        summary_transport=HungSummarizer(),
        keep_recent=4,
        on_event=events.append,
        settings=CompactionSettings(summary_timeout=None),
    )
    prompts = [f"step {i}: " + "p" * 200 for i in range(120)]
    for prompt in prompts:
        await asyncio.wait_for(agent.run(prompt, store), 5)
    assert max(r.input_tokens for r in transport.requests) <= WINDOW.input_budget
    assert set(outcomes(events)) == {"relieved"}
    history = await store.inner.get_history()
    assert [m.text for m in history if m.role == "user" and not m.tool_results] == prompts
    assert len(history) == 6 * len(prompts)  # task, 2 x (calls, results), answer
    await store.close()


class Switchable(StubTransport):
    """A transport whose model (and so its window) the test changes mid-session."""

    info = WINDOW

    @property
    def model(self) -> ModelInfo:
        return self.info


@pytest.mark.parametrize(
    ("window", "tokens", "expected"),
    [
        (ModelInfo("smaller", 2_000, 500), 1_600, ["prepared", "committed", "compacted"]),
        (ModelInfo("bigger", 16_000, 500), 3_100, ["prepared"]),
        (ModelInfo("bigger", 16_000, 500), 12_100, ["prepared", "committed"]),
    ],
    ids=["shrinks", "grows-under", "grows-over"],
)
async def test_the_window_changes_between_preparation_and_commit(
    window: ModelInfo, tokens: int, expected: list[str]
) -> None:
    """The limits are read from the transport at every check: a plan prepared for the
    old window is committed at the new limit, and updated inline when the result is
    still over the new limit (the next request would not fit otherwise)."""
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    transport = Switchable()
    store = AutoCompactStore(
        MemoryContextStore(alternating(30)),
        transport,
        keep_recent=4,
        summary_transport=summary,
        on_event=events.append,
    )
    await store.add_context_tokens(2_600, 10)
    await settle()
    transport.info = window
    await store.add_context_tokens(tokens, 10)
    await settle()
    assert [o for o in outcomes(events) if o != "relieved"] == expected
    validate_history(await store.get_history())
    assert len(await store.inner.get_history()) <= 30


class SlowRead(MemoryContextStore):
    """A store whose next read takes its copy at once and returns it late."""

    slow = False

    async def get_history(self) -> list[Message]:
        history = await super().get_history()
        if self.slow:
            self.slow = False
            await asyncio.sleep(0.1)
        return history


async def test_a_read_older_than_the_prepared_snapshot_does_not_discard_it() -> None:
    """A read that began before the snapshot was taken returns a shorter history: that
    is no sign of a rewrite, and the (paid) prepared summary is kept for the limit."""
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    inner = SlowRead(alternating(30))
    store = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        keep_recent=4,
        summary_transport=summary,
        on_event=events.append,
    )
    await store.add_context_tokens(1_000, 10)
    inner.slow = True
    read = asyncio.ensure_future(store.get_history())  # its copy: 30 messages
    await asyncio.sleep(0)
    for message in late_round("while the read is slow"):
        await store.append(message)
    await store.add_context_tokens(2_600, 10)  # prepares a snapshot of 32 messages
    await settle()
    assert outcomes(events) == ["prepared"]
    assert len(await read) == 30
    await store.add_context_tokens(3_100, 10)
    assert outcomes(events) == ["prepared", "committed"]
    assert len(summary.requests) == 1

"""AutoCompactStore when things go wrong: failing stores and summarizers, awkward histories,
stores without ``replace_prefix``, and the accuracy of what it reports."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from contextfold import (
    Agent,
    ContentBlock,
    ContextStore,
    HistoryValidationError,
    MemoryContextStore,
    Message,
    ModelInfo,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from contextfold.compaction import (
    AutoCompactStore,
    CompactionEvent,
    CompactionSettings,
    compact_context,
)
from contextfold.errors import ProviderUnavailableError
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    StubTransport,
    make_text_response,
)
from contextfold.tokens import count_tokens
from contextfold.validation import validate_history
from tests.compaction.test_compaction import (
    SUMMARY,
    WINDOW,
    GatedSummarizer,
    alternating,
    summarizer,
)


class ListStore(ContextStore):
    """A user's store without replace_prefix: the default replace_history (clear + append)."""

    def __init__(self, history: list[Message] | None = None) -> None:
        self.items = [m.copy() for m in history or []]
        self.fail_appends_after: int | None = None

    async def append(self, message: Message) -> None:
        if self.fail_appends_after is not None:
            if self.fail_appends_after == 0:
                self.fail_appends_after = None  # a transient fault: the next write works
                raise OSError("disk full")
            self.fail_appends_after -= 1
        self.items.append(message.copy())

    async def get_history(self) -> list[Message]:
        return [m.copy() for m in self.items]

    async def clear(self) -> None:
        self.items = []


class NoClearStore(ContextStore):
    """The smallest store SPEC §3 allows: append and get_history only."""

    def __init__(self, history: list[Message]) -> None:
        self.items = [m.copy() for m in history]

    async def append(self, message: Message) -> None:
        self.items.append(message.copy())

    async def get_history(self) -> list[Message]:
        return [m.copy() for m in self.items]


async def test_store_without_replace_prefix_compacts_and_keeps_concurrent_appends() -> None:
    inner = ListStore(alternating(20))
    gated = GatedSummarizer()
    store = AutoCompactStore(
        inner, StubTransport(model=WINDOW), keep_recent=2, summary_transport=gated
    )
    task = asyncio.create_task(store.add_context_tokens(3_500, 1))
    await gated.started.wait()
    await store.append(Message.user("late"))
    gated.release.set()
    await task
    history = await store.get_history()
    assert store.compactions == 1
    assert [m.text for m in history[-3:]] == [m.text for m in alternating(20)[-2:]] + ["late"]


class ReadOnlyStore(NoClearStore):
    """A store whose rewrites fail (a read-only replica, a revoked grant)."""

    async def replace_history(self, messages: Sequence[Message]) -> None:
        raise OSError("read-only file system")


async def test_a_store_that_cannot_rewrite_fails_the_compaction_not_the_agent() -> None:
    inner = ReadOnlyStore(alternating(20))
    before = await inner.get_history()
    transport = StubTransport(
        [make_text_response("the answer you paid for", usage=Usage(3_500, 10))], model=WINDOW
    )
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        inner, transport, keep_recent=2, summary_transport=summarizer(), on_event=events.append
    )
    reply = await Agent("sys", transport).run("one more", store)
    assert reply == "the answer you paid for"
    history = await inner.get_history()
    assert history[: len(before)] == before
    assert history[-1].text == "the answer you paid for"  # the paid reply is stored
    after = [e for e in events if e.phase == "after"]
    assert [e.outcome for e in after] == ["failed"]
    assert after[0].error is not None
    assert "read-only" in after[0].error


def test_a_store_with_only_append_and_get_history_is_refused_at_construction() -> None:
    """Issue 13 item 7: it could never commit, so no summary is ever paid for."""
    calls = summarizer()
    with pytest.raises(TypeError, match="replace_history"):
        AutoCompactStore(NoClearStore(alternating(4)), StubTransport(), summary_transport=calls)
    assert calls.requests == []


async def test_a_rewrite_failing_midway_is_rolled_back() -> None:
    inner = ListStore(alternating(20))
    before = await inner.get_history()

    async def arm_fault(request: StubRequest) -> StubResponse:
        inner.fail_appends_after = 1  # the rewrite dies after writing one message
        return make_text_response(SUMMARY)

    store = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=FunctionTransport(arm_fault),
    )
    await store.add_context_tokens(3_500, 1)  # does not raise
    assert store.compactions == 0
    assert store.last_event is not None
    assert store.last_event.outcome == "failed"
    assert await inner.get_history() == before  # restored in full


async def test_summarizer_transport_error_is_reported_with_its_usage() -> None:
    usage = Usage(2_000, 70)
    script = [
        make_text_response("## Current state\npart one", usage=usage),
        ProviderUnavailableError("overloaded", status=529),
    ]
    window = ModelInfo("tiny-summarizer", 3_000, 400)
    summary_transport = StubTransport(script, model=window)
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        MemoryContextStore(alternating(120, size=200)),
        StubTransport(model=WINDOW),
        keep_recent=4,
        summary_transport=summary_transport,
        on_event=events.append,
        settings=CompactionSettings(max_summary_tokens=300),
    )
    before = await store.get_history()
    await store.add_context_tokens(3_500, 1)
    assert await store.inner.get_history() == before  # the store is untouched
    [after] = [e for e in events if e.phase == "after" and e.outcome != "relieved"]
    assert after.outcome == "failed"
    assert after.summarizer_usage == usage  # the first chunk was paid for
    assert after.summarizer_requests == 1
    assert store.summarizer_usage == usage


async def test_short_history_with_a_huge_tool_result_still_compacts() -> None:
    """keep_recent=6 but only 3 messages: over the limit, fewer are kept, outputs cut."""
    window = ModelInfo("m", 8_000, 1_000)
    transport = FunctionTransport(
        lambda r: make_text_response(SUMMARY if r.system and "memory" in r.system else "read it"),
        model=window,
        enforce_window=True,
    )
    store = AutoCompactStore(MemoryContextStore(), transport)
    await store.append(Message.user("read the log"))
    await store.append(Message("assistant", [ToolUseBlock("c1", "read", {"path": "log"})]))
    await store.append(Message("user", [ToolResultBlock("c1", "x" * 40_000 + " FATAL at end")]))
    assert await Agent("sys", transport).run("what failed?", store) == "read it"
    history = await store.get_history()
    validate_history(history)
    assert store.compactions == 1
    summary_requests = [r for r in transport.requests if r.system and "memory" in r.system]
    assert summary_requests
    assert "FATAL at end" in summary_requests[0].text  # the tail, where errors are, was seen


async def test_a_large_previous_summary_still_fits_the_summarizer_window() -> None:
    window = ModelInfo("summarizer", 5_000, 500)
    big_previous = "## Current state\n" + "detail " * 2_500  # ~4,400 tokens on its own
    calls: list[StubRequest] = []

    def reply(request: StubRequest) -> StubResponse:
        calls.append(request)
        return make_text_response("## Current state\nmerged")

    transport = FunctionTransport(reply, model=window, enforce_window=True)
    # The old part must outweigh the big summary, or the first compaction is rejected.
    first = await compact_context(
        alternating(10, size=2_600), summarizer(big_previous), keep_recent=2
    )
    assert first is not None
    history = [*first, *alternating(40, size=100)]
    result = await compact_context(history, transport, keep_recent=2, max_summary_tokens=400)
    assert result is not None
    assert calls
    assert all(r.input_tokens <= window.input_budget for r in calls)
    assert "<previous-summary>" in calls[0].text


async def test_anchor_after_compaction_keeps_the_system_prompt_cost() -> None:
    """The next proactive check must know the prompt still carries a big system prompt."""
    system = "You are a meticulous agent. " * 300  # ~2,100 tokens every request carries
    window = ModelInfo("m", 8_000, 1_000)

    def reply(request: StubRequest) -> StubResponse:
        if request.system and "memory of a long-running" in request.system:
            return make_text_response(SUMMARY)
        return make_text_response("ok")

    transport = FunctionTransport(reply, model=window, enforce_window=True)
    events: list[CompactionEvent] = []
    store = AutoCompactStore(MemoryContextStore(), transport, keep_recent=2, on_event=events.append)
    agent = Agent(system, transport)
    for i in range(30):
        await agent.run(f"step {i} " + "y" * 600, store)
    compacted = [
        e for e in events if e.phase == "after" and e.outcome in ("compacted", "committed")
    ]
    assert compacted
    for event in compacted:
        assert event.tokens_after is not None
        assert event.tokens_after >= count_tokens([], system=system)
    assert max(r.input_tokens for r in transport.requests) <= window.input_budget


async def test_nothing_new_to_summarize_is_skipped_not_reported_as_compacted() -> None:
    calls = summarizer()
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=calls,
    )
    assert await store.compact()
    compacted = await store.get_history()
    # Forced again with nothing new: the cut moves later rather than re-folding the summary.
    changed = await store.compact(force=True)
    if changed:
        assert await store.get_history() != compacted
    else:
        assert await store.get_history() == compacted
        assert store.last_event is not None
        assert store.last_event.outcome == "skipped"
    assert store.compactions == 1 + int(changed)


async def test_trailing_system_message_never_swallows_the_turn_being_answered() -> None:
    history = [
        *alternating(10),
        Message.user("run it"),
        Message("assistant", [ToolUseBlock("c1", "run", {})]),
        Message("user", [ToolResultBlock("c1", "out " * 3_000)]),
        Message.system("Reminder: answer in English."),
    ]
    store = AutoCompactStore(
        MemoryContextStore(history),
        StubTransport(model=WINDOW),
        keep_recent=1,
        summary_transport=summarizer(),
    )
    await store.add_context_tokens(3_500, 1)
    compacted = await store.get_history()
    validate_history(compacted)
    last_turn = [m for m in compacted if m.role != "system"][-1]
    assert last_turn.tool_results  # the result the model must answer is still there
    assert compacted[-1].text == "Reminder: answer in English."


async def test_custom_prompt_also_writes_the_incremental_updates() -> None:
    transport = FunctionTransport(lambda r: make_text_response(f"S{len(transport.requests)}"))
    store = AutoCompactStore(
        MemoryContextStore(alternating(12)),
        transport,
        keep_recent=2,
        max_tokens=1_000,
        system_prompt="Résume en français pour l'équipe {team}.",
        settings=CompactionSettings(prompt_vars={"team": "billing"}),
    )
    await store.compact()
    for m in alternating(8):
        await store.append(m)
    await store.compact()
    first, second = transport.requests
    assert first.system == second.system == "Résume en français pour l'équipe billing."
    assert "<previous-summary>\nS1\n</previous-summary>" in second.text


async def test_quoted_summary_tags_in_a_user_message_are_not_taken_for_a_summary() -> None:
    quoted = Message.user("Keep this format: <summary>\nmine\n</summary> and never use tabs.")
    transport = summarizer()
    await compact_context([quoted, *alternating(9)[1:]], transport, keep_recent=2)
    [request] = transport.requests
    assert "never use tabs" in request.text
    assert "<previous-summary>" not in request.text


async def test_a_hook_that_appends_during_a_conflict_does_not_deadlock() -> None:
    inner = ListStore(alternating(20, size=400))  # even its first 5 messages outweigh a summary
    store: AutoCompactStore

    async def meddle(request: StubRequest) -> StubResponse:
        inner.items = inner.items[:5]  # someone else rewrote the history meanwhile
        return make_text_response(SUMMARY)

    async def hook(event: CompactionEvent) -> None:
        if event.outcome == "conflict":
            await store.append(Message.user("noted the conflict"))

    store = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=FunctionTransport(meddle),
        on_event=hook,
    )
    await asyncio.wait_for(store.add_context_tokens(3_500, 1), timeout=5)
    assert (await store.get_history())[-1].text == "noted the conflict"


@pytest.mark.parametrize("size", [1, 2])
async def test_appends_during_compaction_are_not_counted_twice(size: int) -> None:
    gated = GatedSummarizer()
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=gated,
    )
    compaction = asyncio.create_task(store.compact())
    await gated.started.wait()
    for _ in range(size):
        await store.append(Message("user", [TextBlock("z" * 2_000)]))
    gated.release.set()
    assert await compaction
    anchor = store.last_event.tokens_after if store.last_event else None
    assert anchor is not None
    assert anchor >= count_tokens(await store.inner.get_history()) - 1
    await store.get_history()  # the late messages are in the anchor already: no second count
    assert store.compactions == 1
    assert store._core.anchor.estimate == anchor


# --- the thinking rule of the turn in progress (issue 13 item 8) ----------------------------


def thinking_tool_loop(steps: int) -> list[Message]:
    """One user turn: an assistant that thought once, then ``steps`` tool calls."""
    history = [Message.user("fix the flaky test")]
    for i in range(steps):
        blocks: list[ContentBlock] = [ToolUseBlock(f"c{i}", "run", {"n": i})]
        if i == 0:
            blocks.insert(0, ThinkingBlock("plan the fix", signature="sig0"))
        history.append(Message("assistant", blocks))
        history.append(Message("user", [ToolResultBlock(f"c{i}", f"output {i} " + "x" * 300)]))
    return history


def test_validator_knows_the_thinking_rule_of_the_turn_in_progress() -> None:
    loop = thinking_tool_loop(3)
    validate_history(loop, "anthropic")
    cut = [Message.user("summary"), *loop[3:]]  # the turn's thinking was summarized away
    with pytest.raises(HistoryValidationError, match="thinking"):
        validate_history(cut, "anthropic", thinking=True)
    validate_history(cut, "openai", thinking=True)  # OpenAI has no such rule
    finished = [*loop, Message.assistant("done"), Message.user("thanks")]
    validate_history([Message.user("summary"), *finished[3:]], "anthropic", thinking=True)


async def test_a_cut_inside_a_thinking_tool_loop_keeps_the_turn_valid_for_anthropic() -> None:
    history = thinking_tool_loop(10)
    store = AutoCompactStore(
        MemoryContextStore(history),
        StubTransport(model=ModelInfo("m", 8_000, 1_000)),
        keep_recent=4,
        summary_transport=summarizer(),
    )
    await store.compact()
    compacted = await store.get_history()
    validate_history(compacted, "anthropic", thinking=True, allow_pending=True)
    first_assistant = next(m for m in compacted if m.role == "assistant")
    assert isinstance(first_assistant.content[0], ThinkingBlock)


def test_empty_text_messages_are_problems() -> None:
    with pytest.raises(HistoryValidationError, match="text block is empty"):
        validate_history([Message.user("hi"), Message.assistant("")])
    validate_history([Message.user("hi"), Message.assistant("")], "openai")
    with pytest.raises(HistoryValidationError, match="text block is empty"):
        validate_history(
            [Message.user("hi"), Message("assistant", [TextBlock(""), ToolUseBlock("a", "t", {})])],
            "anthropic",
            allow_pending=True,
        )


# --- a summarizer that raises CancelledError, KeyboardInterrupt or SystemExit ---------


def first_raises(kind: type[BaseException]) -> FunctionTransport:
    """A summarizer whose first request raises ``kind`` (nothing cancelled it: some
    libraries raise CancelledError on their own internal timeouts); later ones answer."""
    calls = 0

    def reply(request: StubRequest) -> StubResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise kind()
        return make_text_response(SUMMARY)

    return FunctionTransport(reply, model=WINDOW)


class InterruptedCommit(MemoryContextStore):
    """A store whose compaction commit raises ``kind`` (every time, or ``once``)."""

    def __init__(
        self, history: list[Message], kind: type[BaseException], *, once: bool = False
    ) -> None:
        super().__init__(history)
        self.kind: type[BaseException] | None = kind
        self.once = once

    async def replace_snapshot(
        self, snapshot: Sequence[Message], messages: Sequence[Message]
    ) -> bool:
        kind = self.kind
        if kind is not None:
            if self.once:
                self.kind = None
            raise kind()
        return await super().replace_snapshot(snapshot, messages)


def paid_replies() -> StubTransport:
    return StubTransport(
        [make_text_response("paid reply", usage=Usage(3_500, 10))] * 3, model=WINDOW
    )


@pytest.mark.parametrize("where", ["summarizer", "commit"])
async def test_a_cancelled_error_nobody_asked_for_fails_the_attempt_not_the_turn(
    where: str,
) -> None:
    transport, events = paid_replies(), list[CompactionEvent]()
    history = alternating(20)
    inner = (
        InterruptedCommit(history, asyncio.CancelledError, once=True)
        if where == "commit"
        else MemoryContextStore(history)
    )
    store = AutoCompactStore(
        inner,
        transport,
        keep_recent=2,
        summary_transport=(
            first_raises(asyncio.CancelledError) if where == "summarizer" else summarizer()
        ),
        on_event=events.append,
    )
    assert await Agent("sys", transport).run("go on", store) == "paid reply"
    after_turn = await inner.get_history()
    assert after_turn[: len(history)] == history  # untouched
    assert after_turn[-1].text == "paid reply"
    after = [e for e in events if e.phase == "after"]
    assert [e.outcome for e in after] == ["failed"]
    assert after[0].error is not None
    assert "CancelledError" in after[0].error
    assert await store.compact(force=True)  # the next attempt is a fresh one
    assert SUMMARY in (await inner.get_history())[0].text


async def test_a_turn_cancelled_while_the_summarizer_runs_is_still_cancelled() -> None:
    gated = GatedSummarizer()
    transport = paid_replies()
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)), transport, keep_recent=2, summary_transport=gated
    )
    turn = asyncio.ensure_future(Agent("sys", transport).run("go on", store))
    await asyncio.wait_for(gated.started.wait(), 5)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn


@pytest.mark.parametrize("where", ["summarizer", "commit"])
@pytest.mark.parametrize("kind", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_in_a_compaction_reach_the_caller_as_themselves(
    kind: type[BaseException], where: str
) -> None:
    """Not a CancelledError (the event loop stopped under the caller), not swallowed."""
    seen: list[str] = []

    async def main() -> None:
        transport = paid_replies()
        history = alternating(20)
        store = AutoCompactStore(
            InterruptedCommit(history, kind) if where == "commit" else MemoryContextStore(history),
            transport,
            keep_recent=2,
            summary_transport=first_raises(kind) if where == "summarizer" else summarizer(),
        )
        try:
            await Agent("sys", transport).run("go on", store)
        except BaseException as exc:
            seen.append(type(exc).__name__)
            if not isinstance(exc, kind):
                raise

    try:
        asyncio.run(main())
    except BaseException as exc:  # it stopped the event loop instead of reaching the caller
        seen.append(f"escaped the loop: {type(exc).__name__}")
    assert seen == [kind.__name__]


def test_an_interrupt_in_a_compaction_no_caller_awaits_any_more_still_stops_the_loop() -> None:
    """Its callers were cancelled: the interrupt is not dropped with them."""
    reached: list[str] = []

    async def main() -> None:
        gated = GatedSummarizer()

        async def interrupted(request: StubRequest) -> StubResponse:
            gated.started.set()
            await gated.release.wait()
            raise KeyboardInterrupt

        store = AutoCompactStore(
            MemoryContextStore(alternating(20)),
            paid_replies(),
            keep_recent=2,
            summary_transport=FunctionTransport(interrupted, model=WINDOW),
        )
        caller = asyncio.ensure_future(store.compact(force=True))
        await asyncio.wait_for(gated.started.wait(), 5)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        gated.release.set()
        await asyncio.sleep(0.5)  # the interrupt stops the loop in here
        reached.append("the interrupt was dropped")

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(main())
    assert reached == []

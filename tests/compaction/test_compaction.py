"""compact_context and AutoCompactStore: shape, settings, splice, and each SPEC §6 guarantee."""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

import pytest

from contextfold import (
    Agent,
    ContextStore,
    ImageBlock,
    MemoryContextStore,
    Message,
    ModelInfo,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    tool,
)
from contextfold.compaction import (
    AutoCompactStore,
    CompactionEvent,
    CompactionSettings,
    compact_context,
    compaction_limit,
)
from contextfold.compaction._summarizer import render_summary_message
from contextfold.errors import ContextOverflowError, SummaryRejectedError
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    StubTransport,
    make_text_response,
    make_tool_use_response,
)
from contextfold.tokens import count_tokens
from contextfold.validation import validate_history
from tests._faces import store_arguments

SUMMARY = "## User requests and intent\nThe user asked questions.\n## Current state\nAnswered."
WINDOW = ModelInfo("small-model", 4_000, 500)


def alternating(n: int, size: int = 80) -> list[Message]:
    return [
        Message.user(f"q{i} " + "u" * size)
        if i % 2 == 0
        else Message.assistant(f"a{i} " + "a" * size)
        for i in range(n)
    ]


def tool_round(i: int, output: str = "ok") -> list[Message]:
    return [
        Message("assistant", [TextBlock(f"step {i}"), ToolUseBlock(f"call{i}", "run", {"n": i})]),
        Message("user", [ToolResultBlock(f"call{i}", output)]),
    ]


def summarizer(text: str = SUMMARY) -> FunctionTransport:
    return FunctionTransport(lambda request: make_text_response(text))


class GatedSummarizer(FunctionTransport):
    """A summarizer that signals ``started`` and answers only once ``release`` is set,
    so a test can act while a compaction is in flight."""

    def __init__(self) -> None:
        self.started, self.release = asyncio.Event(), asyncio.Event()
        super().__init__(self._reply)

    async def _reply(self, request: StubRequest) -> StubResponse:
        self.started.set()
        await self.release.wait()
        return make_text_response(SUMMARY)


# --- compact_context -------------------------------------------------------------------


async def test_shape_for_22_alternating_messages_and_keep_recent_4() -> None:
    history = alternating(22)
    result = await compact_context(MemoryContextStore(history), summarizer(), keep_recent=4)
    assert result is not None
    assert len(result) == 6
    assert result[0].role == "user"
    assert SUMMARY in result[0].text
    assert "continues earlier work" in result[0].text
    assert result[1].role == "assistant"
    assert result[2:] == history[-4:]


async def test_the_seed_example_of_22_short_messages_compacts_to_6() -> None:
    """SPEC §6 as the seed shows it (issue 24, item 7.1): a summary larger than the few
    short messages it replaces is no reason to refuse an explicit compaction."""
    history = [
        Message.user(f"m{i}") if i % 2 == 0 else Message.assistant(f"m{i}") for i in range(22)
    ]
    transport = FunctionTransport(lambda request: make_text_response("summary"))
    result = await compact_context(history, transport, keep_recent=4)
    assert result is not None
    assert len(result) == 6
    assert result[0].role == "user"
    assert "summary" in result[0].text
    assert result[1].role == "assistant"
    assert result[1].text.startswith("Understood.")
    assert result[2:] == history[-4:]
    assert count_tokens(result) >= count_tokens(history)  # larger, and still not refused


@pytest.mark.parametrize("force", [True, False])
async def test_an_explicit_compact_of_the_seed_example_is_not_refused(force: bool) -> None:
    history = [
        Message.user(f"m{i}") if i % 2 == 0 else Message.assistant(f"m{i}") for i in range(22)
    ]
    inner = MemoryContextStore(history)
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        inner,
        summarizer("summary"),
        keep_recent=4,
        on_event=events.append,
        settings=CompactionSettings(proactive=False),
    )
    assert await store.compact(force=force)
    compacted = await inner.get_history()
    assert len(compacted) == 6
    assert "summary" in compacted[0].text
    assert compacted[2:] == history[-4:]
    assert [e.outcome for e in events if e.phase == "after"] == ["compacted"]


async def test_too_short_history_returns_none_and_calls_no_model() -> None:
    transport = StubTransport([])
    assert (
        await compact_context(MemoryContextStore(alternating(6)), transport, keep_recent=6) is None
    )
    assert transport.requests == []


async def test_compact_context_never_modifies_the_store() -> None:
    store = MemoryContextStore(alternating(12))
    before = await store.get_history()
    await compact_context(store, summarizer(), keep_recent=2)
    assert await store.get_history() == before


async def test_compact_context_accepts_a_plain_list() -> None:
    result = await compact_context(alternating(10), summarizer(), keep_recent=2)
    assert result is not None
    assert len(result) == 4


async def test_summarizer_sees_the_old_part_as_a_transcript() -> None:
    transport = summarizer()
    await compact_context(alternating(10), transport, keep_recent=4)
    [request] = transport.requests
    assert request.system is not None
    assert "## Pending work and next step" in request.system
    assert "q0" in request.text
    assert "a5" in request.text
    assert "q6" not in request.text  # kept verbatim, not summarized
    assert request.tools == []


# --- guarantee 1: valid history ----------------------------------------------------------


async def test_cut_never_separates_a_tool_call_from_its_result() -> None:
    history = [Message.user("task")]
    for i in range(6):
        history += tool_round(i, "PASS test_io.py\n" * 20)
    history.append(Message.assistant("done"))
    # keep_recent=2 would start the kept part at a tool result; the cut moves earlier.
    result = await compact_context(history, summarizer(), keep_recent=2)
    assert result is not None
    validate_history(result)
    assert result[-3:] == history[-3:]


async def test_pending_tool_call_stays_with_the_recent_part() -> None:
    history = [*alternating(9), Message("assistant", [ToolUseBlock("p1", "run", {})])]
    result = await compact_context(history, summarizer(), keep_recent=1)
    assert result is not None
    assert result[-1] == history[-1]
    validate_history(result, allow_pending=True)


async def test_recent_part_starting_with_assistant_gets_no_acknowledgement() -> None:
    history = alternating(11)  # ends with a user message; keep 3 starts on an assistant
    result = await compact_context(history, summarizer(), keep_recent=4)
    assert result is not None
    validate_history(result)
    assert result[1] == history[-4] if history[-4].role == "assistant" else result[2] == history[-4]


async def test_system_messages_are_never_dropped() -> None:
    history = [Message.system("rules"), *alternating(6), Message.system("mid"), *alternating(6)]
    result = await compact_context(history, summarizer(), keep_recent=2)
    assert result is not None
    assert [m.text for m in result if m.role == "system"] == ["rules", "mid"]
    validate_history(result)
    assert next(m for m in result if m.role != "system").role == "user"


# --- guarantee 3: bad summaries -----------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (make_text_response("   "), "empty"),
        (make_text_response("I'm sorry, but I can't help with that."), "refusal"),
        (make_text_response("## User requests", stop_reason="max_tokens"), "truncated"),
        (make_text_response("no", stop_reason="refusal"), "refusal"),
        (make_tool_use_response("search", {"q": "x"}), "tool_call"),
    ],
)
async def test_bad_summary_is_rejected(reply: StubResponse, reason: str) -> None:
    store = MemoryContextStore(alternating(12))
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(store, StubTransport([reply]), keep_recent=2)
    assert info.value.reason == reason


async def test_rejected_summary_leaves_store_untouched_and_backs_off() -> None:
    inner = MemoryContextStore(alternating(12))
    before = await inner.get_history()
    transport = StubTransport(model=WINDOW)
    bad = StubTransport([make_text_response("") for _ in range(10)], model=WINDOW)
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        inner, transport, keep_recent=2, summary_transport=bad, on_event=events.append
    )
    # Trigger on each of 8 turns: attempts happen on triggers 1, 3, 6 (skips 1, 2, 4).
    for _ in range(8):
        await store.add_context_tokens(3_500, 10)
    assert await inner.get_history() == before
    assert len(bad.requests) == 3
    outcomes = [e.outcome for e in events if e.phase == "after"]
    # Attempts on triggers 1, 3 and 6; each held-back trigger is reported too.
    assert outcomes == ["rejected", "held", "rejected", "held", "held", "rejected", "held", "held"]
    assert all(e.error for e in events if e.phase == "after")
    assert store.last_event is not None
    assert store.last_event.outcome == "rejected"  # the last attempt, not a held trigger
    # Forcing (what the agent does after an overflow) ignores the back-off.
    assert await store.compact(force=True) is False
    assert len(bad.requests) == 4


async def test_success_after_failure_resets_back_off() -> None:
    script: list[Any] = [make_text_response(""), make_text_response(SUMMARY)]
    store = AutoCompactStore(
        MemoryContextStore(alternating(12)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=StubTransport(script, model=WINDOW),
    )
    await store.add_context_tokens(3_500, 1)  # rejected
    await store.add_context_tokens(3_500, 1)  # skipped (back-off)
    await store.add_context_tokens(3_500, 1)  # succeeds
    assert store.compactions == 1
    # The store (a read may be relieved: the scripted usage leaves ~3,200 tokens of
    # system and tools, past the relief point even after the compaction).
    assert len(await store.inner.get_history()) == 4


# --- guarantee 4: the summarizer's own window ---------------------------------------------


async def test_summarizer_never_sees_images_or_thinking() -> None:
    history = [
        Message("user", [TextBlock("look at this"), ImageBlock("image/png", b"\x89PNG" * 100)]),
        Message("assistant", [ThinkingBlock("secret chain of thought", "sig"), TextBlock("a cat")]),
        *alternating(6),
    ]
    transport = summarizer()
    await compact_context(history, transport, keep_recent=2)
    for request in transport.requests:
        for message in request.messages:
            assert all(isinstance(b, TextBlock) for b in message.content)
        assert "secret chain of thought" not in request.text
        assert "[image omitted: image/png" in request.text


async def test_huge_tool_output_is_cut_to_head_and_tail_for_the_summarizer() -> None:
    output = "HEAD" + "x" * 50_000 + "TAIL-ERROR"
    history = [
        Message.user("task"),
        *tool_round(0, output),
        Message.assistant("ok"),
        *alternating(4),
    ]
    transport = summarizer()
    result = await compact_context(history, transport, keep_recent=2, max_tool_chars=2_000)
    assert result is not None
    [request] = transport.requests
    assert "HEAD" in request.text
    assert "TAIL-ERROR" in request.text
    assert len(request.text) < 10_000


async def test_history_larger_than_the_summarizer_window_is_summarized_in_chunks() -> None:
    window = ModelInfo("tiny-summarizer", 3_000, 400)
    calls: list[StubRequest] = []

    def reply(request: StubRequest) -> StubResponse:
        calls.append(request)
        return make_text_response(f"## Current state\nsummary after chunk {len(calls)}")

    transport = FunctionTransport(reply, model=window, enforce_window=True)
    history = alternating(120, size=200)  # ~6,600 tokens of old part
    result = await compact_context(history, transport, keep_recent=4, max_summary_tokens=300)
    assert result is not None
    assert len(calls) >= 3
    assert all(r.input_tokens <= window.input_budget for r in calls)
    # Each chunk after the first updates the running summary.
    for i, request in enumerate(calls[1:], start=1):
        assert f"summary after chunk {i}" in request.text
        assert "<previous-summary>" in request.text
    assert f"summary after chunk {len(calls)}" in result[0].text


async def test_previous_summary_is_the_anchor_of_the_next_one() -> None:
    transport = FunctionTransport(
        lambda r: make_text_response(f"SUMMARY#{len(transport.requests)}")
    )
    store = AutoCompactStore(
        MemoryContextStore(alternating(12)), transport, keep_recent=2, max_tokens=1_000
    )
    await store.compact()
    for m in alternating(8):
        await store.append(m)
    await store.compact()
    _first, second = transport.requests
    assert "<previous-summary>\nSUMMARY#1\n</previous-summary>" in second.text
    assert "continues earlier work" not in second.text  # the anchor is not re-summarized
    history = await store.get_history()
    assert "SUMMARY#2" in history[0].text
    assert "SUMMARY#1" not in history[0].text


# --- guarantee 5: no loops ------------------------------------------------------------------


async def test_loop_guard_when_kept_tail_alone_exceeds_threshold() -> None:
    huge = "start " + "z" * 40_000 + " final error line"
    history = [*alternating(10), Message.user("run it"), *tool_round(1, huge)]
    transport = StubTransport(model=ModelInfo("m", 8_000, 1_000))
    store = AutoCompactStore(
        MemoryContextStore(history),
        transport,
        keep_recent=6,
        summary_transport=summarizer(),
        settings=CompactionSettings(kept_tool_chars=1_000),
    )
    await store.add_context_tokens(11_000, 10)
    compacted = await store.get_history()
    validate_history(compacted)
    assert count_tokens(compacted) < store.limit
    result_block = compacted[-1].tool_results[0]
    assert isinstance(result_block.content, str)
    assert "final error line" in result_block.content  # the tail, where errors are, survives
    assert store.compactions == 1


async def test_kept_tool_output_is_bounded_per_result_not_per_block() -> None:
    """A kept result of 40 text blocks x 1.5k chars is cut as a whole (all blocks together)."""
    parts = [TextBlock(f"part {i} " + "y" * 1_500) for i in range(40)]
    parts[-1] = TextBlock("final error line")
    history = [
        *alternating(10),
        Message.user("run it"),
        Message("assistant", [ToolUseBlock("t1", "run", {})]),
        Message("user", [ToolResultBlock("t1", list(parts))]),
    ]
    store = AutoCompactStore(
        MemoryContextStore(history),
        StubTransport(model=ModelInfo("m", 8_000, 1_000)),
        keep_recent=6,
        summary_transport=summarizer(),
        settings=CompactionSettings(kept_tool_chars=1_000),
    )
    await store.add_context_tokens(20_000, 10)
    compacted = await store.get_history()
    validate_history(compacted)
    assert store.compactions == 1
    content = compacted[-1].tool_results[0].content
    assert isinstance(content, list)
    assert sum(len(p.text) for p in content if isinstance(p, TextBlock)) <= 1_000
    assert content[-1] == TextBlock("final error line")  # the tail survives
    assert count_tokens(compacted) < store.limit


def screenshots_result(call_id: str, images: int = 20, texts: int = 12) -> ToolResultBlock:
    """A tool result of ``texts`` text blocks and ``images`` 40 KB PNGs, interleaved."""
    parts: list[TextBlock | ImageBlock] = []
    for i in range(max(images, texts)):
        if i < texts:
            parts.append(TextBlock(f"page {i}: " + "y" * 1_500))
        if i < images:
            parts.append(ImageBlock("image/png", bytes([i]) * 40_960))
    return ToolResultBlock(call_id, parts)


async def test_a_kept_tool_result_with_images_fits_the_limit_and_is_archived_whole(
    store: ContextStore,
) -> None:
    """Issue 24, item 7.2: a kept result of 12 text blocks and 20 images (~16,500 tokens)
    left the compacted history at ~12,650 tokens over a 9,000-token limit."""
    result = screenshots_result("shots")
    history = [
        *alternating(10),
        Message.user("take screenshots of every page"),
        Message("assistant", [ToolUseBlock("shots", "screenshot", {"pages": "all"})]),
        Message("user", [result]),
    ]
    for message in history:
        await store.append(message)
    wrapped = AutoCompactStore(
        store,
        StubTransport(model=ModelInfo("m", 12_000, 1_000)),
        keep_recent=6,
        summary_transport=summarizer(),
    )
    assert wrapped.limit == 9_000
    await wrapped.add_context_tokens(count_tokens(history), 10)
    assert wrapped.compactions == 1
    compacted = await store.get_history()
    validate_history(compacted)
    assert count_tokens(compacted) <= wrapped.limit
    assert wrapped.last_event is not None
    assert wrapped.last_event.tokens_after is not None
    assert wrapped.last_event.tokens_after <= wrapped.limit
    # The kept copy: the call and its result stay paired; the newest images stay, the
    # older ones are placeholders that say what they were.
    assert compacted[-2] == history[-2]
    [kept] = compacted[-1].tool_results
    assert kept.tool_use_id == "shots"
    assert isinstance(kept.content, list)
    images = [p for p in kept.content if isinstance(p, ImageBlock)]
    assert images == [p for p in result.content if isinstance(p, ImageBlock)][-len(images) :]
    assert len(images) < 20
    placeholders = [
        p.text for p in kept.content if isinstance(p, TextBlock) and "omitted" in p.text
    ]
    assert len(placeholders) == 20 - len(images)
    assert placeholders[0] == "[image/png, 40 KB, omitted to fit the context window]"
    # The original, every image included, is in the store's archive.
    archived = [a.message for a in await wrapped.get_archive()]
    assert history[-1] in archived


async def test_images_of_a_kept_result_go_when_there_is_nothing_left_to_summarize() -> None:
    # Right after a compaction: the summary, then one tool round of 20 screenshots.
    history = [
        render_summary_message("## Current state\nScreenshots of every page come next."),
        Message("assistant", [ToolUseBlock("shots", "screenshot", {"pages": "all"})]),
        Message("user", [screenshots_result("shots")]),
    ]
    calls = summarizer()
    inner = MemoryContextStore(history)
    store = AutoCompactStore(
        inner,
        StubTransport(model=ModelInfo("m", 12_000, 1_000)),
        keep_recent=6,
        summary_transport=calls,
    )
    await store.add_context_tokens(count_tokens(history), 10)
    assert calls.requests == []  # nothing new to summarize
    assert store.last_event is not None
    assert store.last_event.outcome == "truncated"
    compacted = await inner.get_history()
    validate_history(compacted)
    assert compacted[:2] == history[:2]
    assert count_tokens(compacted) <= store.limit
    content = compacted[-1].tool_results[0].content
    assert isinstance(content, list)
    assert 0 < sum(isinstance(p, ImageBlock) for p in content) < 20
    assert history[-1] in [a.message for a in await inner.get_archive()]


async def test_no_compaction_loop_when_nothing_can_be_freed() -> None:
    transport = StubTransport(model=WINDOW)
    calls = summarizer()
    store = AutoCompactStore(
        MemoryContextStore(alternating(4)), transport, keep_recent=4, summary_transport=calls
    )
    for _ in range(5):
        await store.add_context_tokens(3_500, 1)
    assert calls.requests == []  # too short to split: it never even tried
    assert store.last_event is not None
    assert store.last_event.outcome == "skipped"


async def test_usage_must_grow_again_after_a_compaction_that_could_not_get_under_the_limit() -> (
    None
):
    giant = "g" * 30_000  # a user message that no strategy may cut
    history = [*alternating(6), Message.user(giant)]
    calls = summarizer()
    store = AutoCompactStore(
        MemoryContextStore(history),
        StubTransport(model=WINDOW),
        keep_recent=1,
        summary_transport=calls,
    )
    await store.add_context_tokens(9_000, 1)
    assert store.compactions == 1
    for _ in range(3):
        await store.add_context_tokens(9_000, 1)  # same usage: no new attempt
    assert len(calls.requests) == 1
    await store.append(Message.assistant("more"))
    await store.add_context_tokens(9_500, 1)  # usage grew: allowed to try again
    assert len(calls.requests) == 2


# --- guarantee 6: cost --------------------------------------------------------------------


async def test_summarizer_usage_is_reported_separately() -> None:
    usage = Usage(1_234, 56, cache_read_tokens=1_000)
    summary_transport = StubTransport([make_text_response(SUMMARY, usage=usage)] * 2)
    events: list[CompactionEvent] = []
    inner = MemoryContextStore(alternating(12))
    store = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=summary_transport,
        on_event=events.append,
    )
    await store.add_context_tokens(3_500, 20)
    assert store.summarizer_usage == usage
    assert await store.get_context_tokens() == (3_500, 20)  # the agent's own counts, untouched
    after = next(e for e in events if e.phase == "after")
    assert after.summarizer_usage == usage
    assert after.summarizer_requests == 1


async def test_cache_friendly_mode_continues_the_agents_own_prefix() -> None:
    @tool
    async def lookup(key: str) -> str:
        """Look a key up."""
        return key

    history = alternating(12)
    transport = summarizer()
    store = AutoCompactStore(
        MemoryContextStore(history),
        transport,
        keep_recent=2,
        max_tokens=1_000,
        settings=CompactionSettings(
            cache_friendly=True, agent_system="You are a helpful agent.", agent_tools=[lookup.spec]
        ),
    )
    assert await store.compact()
    [request] = transport.requests
    assert request.system == "You are a helpful agent."
    assert request.tools == [lookup.spec]
    assert request.messages[:-1] == history[:10]
    assert request.messages[-1].role == "user"
    assert "Do not call any tool" in request.messages[-1].text
    assert SUMMARY in (await store.get_history())[0].text


# --- guarantee 7: observability -----------------------------------------------------------


async def test_events_before_and_after_with_counts(caplog: pytest.LogCaptureFixture) -> None:
    events: list[CompactionEvent] = []

    async def async_hook(event: CompactionEvent) -> None:
        events.append(event)

    def broken_hook(event: CompactionEvent) -> None:
        raise RuntimeError("hook bug")

    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=4,
        summary_transport=summarizer(),
        on_event=[broken_hook, async_hook],
    )
    with caplog.at_level(logging.INFO, logger="contextfold"):
        await store.add_context_tokens(3_200, 30)
    before, after = events
    assert (before.phase, after.phase) == ("before", "after")
    assert before.messages_before == 20
    assert before.tokens_before == 3_200
    assert before.limit == 3_000
    assert after.outcome == "compacted"
    assert after.messages_after == 6
    assert after.summarized_messages == 16
    assert after.tokens_after is not None
    assert after.tokens_after < 3_200
    assert after.summary_tokens is not None
    assert after.summary_tokens > 0
    assert after.duration_s >= 0
    assert "compacted session" in caplog.text
    assert "hook" in caplog.text  # the broken hook is logged, not raised


# --- guarantee 8: proactive and forced ------------------------------------------------------


async def test_large_append_compacts_before_the_next_request() -> None:
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=summarizer(),
    )
    await store.add_context_tokens(1_000, 10)  # anchor: well under the 3,000 limit
    await store.append(Message("assistant", [ToolUseBlock("big", "read", {})]))
    assert store.compactions == 0
    await store.append(Message("user", [ToolResultBlock("big", "r" * 10_000)]))
    assert store.compactions == 0  # appends stay cheap: the check runs on the next read
    history = await store.get_history()  # the read that precedes the next request
    assert store.compactions == 1
    assert count_tokens(history) < store.limit
    assert store.last_event is not None
    assert store.last_event.trigger == "append"
    validate_history(await store.get_history())


async def test_context_overflow_forces_compaction_and_the_agent_retries() -> None:
    responses: list[Any] = [
        ContextOverflowError("prompt is too long", status=400),
        make_text_response("fine"),
    ]
    transport = StubTransport(responses, model=WINDOW)
    store = AutoCompactStore(
        MemoryContextStore(alternating(30)),
        transport,
        keep_recent=2,
        summary_transport=summarizer(),
    )
    agent = Agent("sys", transport)
    assert await agent.run("next", store) == "fine"
    assert store.compactions == 1
    assert store.last_event is not None
    assert store.last_event.trigger == "forced"
    assert len(transport.requests[1].messages) < len(transport.requests[0].messages)


# --- snapshot, splice, single flight ------------------------------------------------------


async def test_messages_appended_during_summarization_are_kept_in_order() -> None:
    gated = GatedSummarizer()
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=gated,
        settings=CompactionSettings(proactive=False),
    )
    task = asyncio.create_task(store.add_context_tokens(3_500, 1))
    await gated.started.wait()
    late = [Message.assistant("late 1"), Message.user("late 2"), Message.assistant("late 3")]
    for m in late:
        await store.append(m)
    gated.release.set()
    await task
    history = await store.get_history()
    assert history[-3:] == late
    assert len(history) == 2 + 2 + 3


async def test_concurrent_triggers_share_one_summarization() -> None:
    gate = asyncio.Event()

    async def slow(request: StubRequest) -> StubResponse:
        await gate.wait()
        return make_text_response(SUMMARY)

    summary_transport = FunctionTransport(slow)
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=summary_transport,
    )
    tasks = [asyncio.create_task(store.add_context_tokens(3_500, 1)) for _ in range(5)]
    await asyncio.sleep(0)
    gate.set()
    await asyncio.gather(*tasks)
    assert len(summary_transport.requests) == 1
    assert store.compactions == 1


async def test_history_changed_underneath_is_a_conflict_not_a_corruption() -> None:
    inner = MemoryContextStore(alternating(20))

    async def meddle(request: StubRequest) -> StubResponse:
        await inner.replace_history(alternating(3))  # someone else rewrote it meanwhile
        return make_text_response(SUMMARY)

    store = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=FunctionTransport(meddle),
    )
    await store.add_context_tokens(3_500, 1)
    assert await inner.get_history() == alternating(3)
    assert store.last_event is not None
    assert store.last_event.outcome == "conflict"


# --- settings and delegation ----------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"keep_recent": 0},
        {"threshold": 0},
        {"threshold": 1.5},
        {"max_tokens": -1},
        {"max_tokens": 0},
    ],
)
def test_invalid_settings_raise(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        AutoCompactStore(MemoryContextStore(), StubTransport(), **store_arguments(**kwargs))


def test_limit_is_read_from_the_transport_at_check_time() -> None:
    class Switchable:
        model = ModelInfo("a", 100_000, 4_000)

    transport: Any = Switchable()
    store = AutoCompactStore(MemoryContextStore(), transport)
    assert store.limit == 75_000
    transport.model = ModelInfo("b", 200_000, 8_000)
    assert store.limit == 150_000
    assert compaction_limit(object()) == 96_000  # no model: 0.75 × 128,000
    assert compaction_limit(transport, threshold=1.0) == 192_000  # capped at window − output
    assert compaction_limit(transport, max_tokens=50_000) == 50_000
    assert compaction_limit(transport, max_tokens=500_000) == 192_000


async def test_fork_wraps_the_inner_fork_with_the_same_settings() -> None:
    store = AutoCompactStore(
        MemoryContextStore(alternating(4, size=600)),  # the one old message outweighs a summary
        StubTransport(model=WINDOW),
        keep_recent=3,
        threshold=0.5,
        summary_transport=summarizer(),
    )
    await store.add_context_tokens(10, 2)
    seen: list[CompactionEvent] = []
    store.add_hook(seen.append)
    forked = await store.fork()
    assert isinstance(forked, AutoCompactStore)
    assert await forked.compact()
    assert [e.phase for e in seen] == ["before", "after"]  # hooks travel with the fork
    assert forked.keep_recent == 3
    assert forked.limit == store.limit == 2_000
    assert forked.session_id != store.session_id
    assert await forked.get_context_tokens() == (10, 2)
    await forked.append(Message.user("fork only"))
    assert len(await store.get_history()) == 4


async def test_cumulative_tokens_survive_compaction(store: ContextStore) -> None:
    tag = f"conversation {uuid.uuid4().hex}"  # the database may be shared with other tests
    await store.append(Message.user(tag))
    for m in alternating(20)[1:]:
        await store.append(m)

    async def sessions_with_our_history() -> list[str]:
        return [s.session_id for s in await store.list_sessions() if s.preview == tag]

    assert await sessions_with_our_history() == [store.session_id]
    wrapped = AutoCompactStore(
        store, StubTransport(model=WINDOW), keep_recent=2, summary_transport=summarizer()
    )
    await wrapped.add_context_tokens(2_000, 100)
    await wrapped.add_context_tokens(3_500, 100)
    assert wrapped.compactions == 1
    assert await store.get_context_tokens() == (5_500, 200)
    assert len(await store.get_history()) == 4
    # No orphan session: no fork or copy of the original conversation is left behind.
    sessions = await store.list_sessions()
    assert store.session_id in {s.session_id for s in sessions}
    assert [s.session_id for s in sessions if s.preview == tag] in ([], [store.session_id])


# --- end to end ---------------------------------------------------------------------------


async def test_long_agent_run_with_tools_stays_under_the_window() -> None:
    window = ModelInfo("agent-model", 6_000, 1_000)

    def model(request: StubRequest) -> StubResponse:
        if request.system and "memory of a long-running" in request.system:
            return make_text_response(SUMMARY)
        if request.messages[-1].tool_results:
            return make_text_response("step done")
        return make_tool_use_response("read", {"path": f"f{len(request.messages)}.txt"})

    transport = FunctionTransport(model, model=window, enforce_window=True)

    @tool
    async def read(path: str) -> str:
        """Read a file."""
        return f"contents of {path}: " + "data " * 300

    events: list[CompactionEvent] = []
    store = AutoCompactStore(MemoryContextStore(), transport, keep_recent=4, on_event=events.append)
    agent = Agent("You are a coding agent.", transport, [read])
    for turn in range(210):
        assert await agent.run(f"turn {turn}", store) == "step done"
    agent_requests = [r for r in transport.requests if r.system == "You are a coding agent."]
    assert len(agent_requests) == 420
    assert max(r.input_tokens for r in transport.requests) <= window.input_budget
    assert store.compactions >= 10
    validate_history(await store.get_history())
    outcomes = {e.outcome for e in events if e.phase == "after"}
    assert outcomes <= {"compacted", "prepared", "committed"}, outcomes


async def test_appends_straight_to_the_inner_store_during_summarization_are_kept(
    store: ContextStore,
) -> None:
    """Every shipped store replaces only the summarized prefix, so no append is lost,
    even one that bypasses the wrapper (another process sharing the session)."""
    for m in alternating(20):
        await store.append(m)
    gated = GatedSummarizer()
    wrapped = AutoCompactStore(
        store, StubTransport(model=WINDOW), keep_recent=2, summary_transport=gated
    )
    task = asyncio.create_task(wrapped.add_context_tokens(3_500, 1))
    await gated.started.wait()
    late = [Message.user("from another process"), Message.assistant("answered elsewhere")]
    for m in late:
        await store.append(m)  # not through the wrapper
    gated.release.set()
    await task
    history = await store.get_history()
    assert wrapped.compactions == 1
    assert history[-2:] == late
    assert len(history) == 2 + 2 + 2
    validate_history(history)


async def test_a_cancelled_caller_does_not_cancel_or_wedge_the_compaction() -> None:
    gate, done = asyncio.Event(), asyncio.Event()

    async def slow(request: StubRequest) -> StubResponse:
        await gate.wait()
        return make_text_response(SUMMARY)

    def on_event(event: CompactionEvent) -> None:
        if event.phase == "after":
            done.set()

    summary_transport = FunctionTransport(slow)
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=summary_transport,
        on_event=on_event,
    )
    caller = asyncio.create_task(store.add_context_tokens(3_500, 1))
    await asyncio.sleep(0.01)
    caller.cancel()
    gate.set()
    await done.wait()  # the shared run finished although its first caller went away
    assert store.compactions == 1
    for m in alternating(20):
        await store.append(m)
    assert await store.compact()  # and the next compaction is a new run, not a stale result
    assert store.compactions == 2
    assert len(summary_transport.requests) == 2

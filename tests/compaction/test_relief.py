"""LLM-free relief (issue 14): no request overflows while no summary can be committed.

WINDOW is 4,000 tokens with 500 of output: compaction at 3,000, preparation at 2,400,
relief past 3,250 (halfway to the 3,500 a request may carry), down to 3,000.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import (
    Agent,
    AutoCompactStore,
    CompactionEvent,
    ImageBlock,
    MemoryContextStore,
    Message,
    ModelInfo,
    ThinkingBlock,
    Tool,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.compaction import CompactionSettings
from contextfold.compaction._relief import relieve
from contextfold.compaction._summarizer import KEPT_TRUNCATION_MARKER
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    make_text_response,
)
from contextfold.tokens import approx_token_counter, count_message_tokens
from contextfold.validation import validate_history
from tests.attack_sched._wait import until
from tests.compaction.test_compaction import SUMMARY, screenshots_result
from tests.strategies_hyp import histories

WINDOW = ModelInfo("small-model", 4_000, 500)


def outcomes(events: list[CompactionEvent]) -> list[str | None]:
    return [e.outcome for e in events if e.phase == "after"]


class HungSummarizer(FunctionTransport):
    """A summarizer that never answers until ``release`` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        super().__init__(self._reply, model=WINDOW)

    async def _reply(self, request: StubRequest) -> StubResponse:
        await self.release.wait()
        return make_text_response(SUMMARY)


def chatty_agent() -> tuple[Agent, FunctionTransport]:
    transport = FunctionTransport(
        lambda request: make_text_response("noted: " + "r" * 300), model=WINDOW, enforce_window=True
    )
    return Agent("You are careful.", transport), transport


@pytest.mark.parametrize("summary_timeout", [120.0, 0.05], ids=["hangs", "times-out"])
async def test_a_hung_summarizer_never_stalls_the_agent_nor_overflows_a_request(
    summary_timeout: float,
) -> None:
    summary = HungSummarizer()
    events: list[CompactionEvent] = []
    agent, transport = chatty_agent()
    store = AutoCompactStore(
        MemoryContextStore(),
        transport,
        summary_transport=summary,
        keep_recent=4,
        on_event=events.append,
        settings=CompactionSettings(summary_timeout=summary_timeout),
    )
    prompts = [f"step {i}: " + "p" * 300 for i in range(60)]

    async def work() -> None:
        for prompt in prompts:
            await agent.run(prompt, store)

    # With a summary that never comes, 60 turns still finish (enforce_window raises on
    # any request over the window's input budget).
    await asyncio.wait_for(work(), 30)
    assert max(r.input_tokens for r in transport.requests) <= WINDOW.input_budget
    assert "relieved" in outcomes(events)
    history = await store.inner.get_history()
    assert [m.text for m in history if m.role == "user"] == prompts  # nothing lost
    assert len(history) == 2 * len(prompts)
    assert store.compactions == 0
    # The summary arrives at last (or, after a time-out, a later attempt's summary does):
    # it is committed, and reads are whole again.
    summary.release.set()
    late: list[str] = []
    while not store.compactions and len(late) < 40:
        late.append(f"late step {len(late)}")
        await agent.run(late[-1], store)
        await asyncio.sleep(0.01)
    assert store.compactions >= 1  # the prepared summary, then maybe its update
    # An update of an over-target summary may still be prepared in the background (its
    # fact ledger read on a thread): the history is read once that has ended.
    await until(lambda: not store._core.busy and not store._core.prep.running)
    compacted = await store.inner.get_history()
    validate_history(compacted)
    assert SUMMARY in compacted[0].text
    kept = [m.text for m in compacted[1:] if m.role == "user"]
    assert kept == (prompts + late)[len(prompts) + len(late) - len(kept) :]  # a suffix, in order
    assert late[-1] in kept
    assert await store.get_history() == compacted  # under the relief point: the real history
    await store.close()


async def test_a_long_single_turn_tool_loop_with_thinking_at_its_start_never_overflows() -> None:
    """No valid cut point (thinking opens only the turn): relief cuts tool outputs and drops
    old tool cycles, keeping the turn's thinking opener, so every request fits."""
    calls = 0

    async def model(request: StubRequest) -> StubResponse:
        nonlocal calls
        calls += 1
        validate_history(request.messages, "anthropic")
        validate_history(request.messages, "openai")
        if calls == 1:
            content: list[Any] = [ThinkingBlock("plan the reads", signature="sig")]
        else:
            content = []
        if calls > 80:
            return make_text_response("all files read")
        content.append(ToolUseBlock(f"call{calls}", "read", {"path": f"f{calls}.txt"}))
        return StubResponse(content, "tool_use")

    transport = FunctionTransport(model, model=WINDOW, enforce_window=True)

    def read(args: dict[str, Any]) -> str:
        return f"{args['path']}: " + "line of content\n" * 40

    agent = Agent(
        "You read files.",
        transport,
        tools=[Tool("read", "read a file", {"type": "object", "properties": {"path": {}}}, read)],
        max_iterations=100,
    )
    events: list[CompactionEvent] = []
    summary = FunctionTransport(lambda request: make_text_response(SUMMARY), model=WINDOW)
    store = AutoCompactStore(
        MemoryContextStore(),
        transport,
        summary_transport=summary,
        keep_recent=4,
        on_event=events.append,
    )
    assert await asyncio.wait_for(agent.run("read every file", store), 30) == "all files read"
    assert max(r.input_tokens for r in transport.requests) <= WINDOW.input_budget
    assert "relieved" in outcomes(events)
    for request in transport.requests[1:]:
        assert request.messages[0].text == "read every file"  # the task is always sent
        assert isinstance(request.messages[1].content[0], ThinkingBlock)
    history = await store.inner.get_history()
    assert len(history) == 1 + 2 * 80 + 1  # every call and result is in the store


_settings = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_settings
@given(
    history=histories(min_size=1, max_size=40, allow_pending=True),
    share=st.floats(0.0, 1.0),
    max_chars=st.sampled_from([0, 20, 200]),
)
def test_a_relieved_view_is_valid_in_both_dialects_and_keeps_systems_and_the_task(
    history: list[Message], share: float, max_chars: int
) -> None:
    pending = bool(history[-1].tool_uses)
    total = sum(count_message_tokens(m, approx_token_counter) for m in history)
    excess = int(total * share)
    relief = relieve(
        history,
        excess,
        approx_token_counter,
        max_tool_chars=max_chars,
        marker=KEPT_TRUNCATION_MARKER,
    )
    view = relief.messages
    for dialect in ("any", "anthropic", "openai"):
        validate_history(view, dialect, allow_pending=pending)  # type: ignore[arg-type]
    assert [m for m in view if m.role == "system"] == [m for m in history if m.role == "system"]
    first = next((m for m in history if m.role != "system"), None)
    if first is not None and first.role == "user" and not first.tool_results:
        assert first in view
    assert view[-1].role == history[-1].role
    assert relief.saved == total - sum(count_message_tokens(m, approx_token_counter) for m in view)
    # Every kept message is the original or its cut copy, in order, once.
    remaining = iter(_identity(m) for m in history)
    assert all(_identity(m) in remaining for m in view)


def _identity(message: Message) -> tuple[str, tuple[str, ...]]:
    """What survives truncation: the role, tool ids and block kinds."""
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            parts.append("result:" + block.tool_use_id)
        elif isinstance(block, ToolUseBlock):
            parts.append("use:" + block.id)
        else:
            parts.append(type(block).__name__ + repr(block)[:200])
    return message.role, tuple(parts)


def test_a_relieved_view_leaves_out_the_oldest_images_when_nothing_else_frees_enough() -> None:
    result = screenshots_result("shots")  # 12 text blocks and 20 images: ~16,500 tokens
    history = [
        Message.user("take screenshots of every page"),
        Message("assistant", [ToolUseBlock("shots", "screenshot", {"pages": "all"})]),
        Message("user", [result]),
    ]
    excess = 9_000  # text cuts free ~4,000; no round or cycle can go
    relief = relieve(
        history, excess, approx_token_counter, max_tool_chars=2_000, marker=KEPT_TRUNCATION_MARKER
    )
    assert relief.saved >= excess
    assert relief.truncated
    validate_history(relief.messages)
    assert relief.messages[:2] == history[:2]
    [kept] = relief.messages[-1].tool_results
    assert isinstance(kept.content, list)
    images = [p for p in kept.content if isinstance(p, ImageBlock)]
    assert 0 < len(images) < 20
    assert images == [p for p in result.content if isinstance(p, ImageBlock)][-len(images) :]
    assert history[-1].tool_results[0] == result  # the input is not modified


async def test_a_read_under_the_relief_point_is_the_real_history() -> None:
    history = [
        Message.user("task " + "t" * 80) if i % 2 == 0 else Message.assistant("a" * 80)
        for i in range(30)
    ]
    store = AutoCompactStore(
        MemoryContextStore(history),
        FunctionTransport(lambda r: make_text_response("x"), model=WINDOW),
        summary_transport=HungSummarizer(),
        settings=CompactionSettings(prepare_threshold=None, summary_timeout=0.01),
    )
    await store.add_context_tokens(3_200, 10)  # over the limit, the attempt times out
    assert await store.get_history() == history  # 3,200 < 3,250: nothing relieved
    await store.add_context_tokens(3_300, 10)  # held (back-off), past the relief point
    view = await store.get_history()
    assert len(view) < len(history)
    assert view[0] == history[0]
    assert await store.inner.get_history() == history

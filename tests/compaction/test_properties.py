"""Property tests for the SPEC §6 invariants over arbitrary histories and settings."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import MemoryContextStore, Message, ModelInfo
from contextfold._history import choose_cut
from contextfold.compaction import (
    AutoCompactStore,
    CompactionEvent,
    CompactionSettings,
    compact_context,
)
from contextfold.compaction._summarizer import acknowledgement
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from contextfold.validation import validate_history
from tests.strategies_hyp import histories, user_messages

SUMMARY = "## Current state\nsummarized"
WINDOW = ModelInfo("window", 4_000, 500)

_settings = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _summarizer() -> FunctionTransport:
    return FunctionTransport(lambda request: make_text_response(SUMMARY))


@_settings
@given(
    history=histories(min_size=0, max_size=40, allow_pending=True),
    keep_recent=st.integers(1, 10),
)
def test_compacted_history_is_valid_and_keeps_what_it_did_not_summarize(
    history: list[Message], keep_recent: int
) -> None:
    pending = bool(history) and bool(history[-1].tool_uses)
    validate_history(history, allow_pending=pending)
    # An explicit compaction: a summary larger than the old part is returned, not refused.
    result = asyncio.run(compact_context(history, _summarizer(), keep_recent=keep_recent))
    if result is None:
        return
    validate_history(result, allow_pending=pending)
    validate_history(result, "anthropic", allow_pending=pending)
    validate_history(result, "openai", allow_pending=pending)
    # Shape: [systems of the old part, summary, acknowledgement?, *history[cut:]].
    summary_index = next(i for i, m in enumerate(result) if SUMMARY in m.text)
    assert all(m.role == "system" for m in result[:summary_index])
    rest = result[summary_index + 1 :]
    if rest and rest[0].role == "assistant" and rest[0] == acknowledgement():
        rest = rest[1:]
    cut = len(history) - len(rest)
    assert rest == history[cut:]  # the kept part is the original tail, verbatim, no copies
    assert len(rest) >= 1
    assert result[:summary_index] == [m for m in history[:cut] if m.role == "system"]
    # compact_context drops no system message (AutoCompactStore bounds them over a
    # long session: tests/compaction/test_hardening.py).
    assert [m for m in history if m.role == "system"] == [m for m in result if m.role == "system"]


@_settings
@given(
    history=histories(min_size=12, max_size=30),
    late=st.lists(user_messages(with_images=False), min_size=1, max_size=6),
    yields=st.lists(st.integers(0, 4), min_size=6, max_size=6),
)
def test_messages_appended_during_summarization_are_never_lost(
    history: list[Message], late: list[Message], yields: list[int]
) -> None:
    """Appends interleave with the summarizer at arbitrary points; all survive, in order."""

    async def scenario() -> list[Message]:
        started = asyncio.Event()

        async def slow(request: StubRequest) -> StubResponse:
            started.set()
            for _ in range(sum(yields)):
                await asyncio.sleep(0)
            return make_text_response(SUMMARY)

        events: list[CompactionEvent] = []
        store = AutoCompactStore(
            MemoryContextStore(history),
            FunctionTransport(slow, model=WINDOW),
            keep_recent=4,
            on_event=events.append,
            settings=CompactionSettings(proactive=False),
        )

        async def appender(compaction: asyncio.Task[None]) -> None:
            # Appends made before the snapshot is read belong to it (and may be
            # summarized); the ones under test land while the summarizer runs.
            waiter = asyncio.ensure_future(started.wait())
            await asyncio.wait([waiter, compaction], return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            for message, pause in zip(late, yields, strict=False):
                for _ in range(pause):
                    await asyncio.sleep(0)
                await store.append(message)

        compaction = asyncio.ensure_future(store.add_context_tokens(3_900, 1))
        await asyncio.gather(compaction, appender(compaction))
        outcomes = [e.outcome for e in events if e.phase == "after"]
        if outcomes == ["rejected"]:  # the old part was smaller than a summary
            assert events[-1].error is not None
            assert "not smaller" in events[-1].error
        else:
            assert store.compactions == (choose_cut(history, 4) is not None)
        # The store: a read past the relief point (3,900 here) is a relieved view.
        return await store.inner.get_history()

    result = asyncio.run(scenario())
    assert result[-len(late) :] == late

"""Property tests for the SPEC §6 invariants over arbitrary histories and settings."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import MemoryContextStore, Message, ModelInfo
from contextfold.compaction import AutoCompactStore, compact_context
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from contextfold.validation import validate_history
from tests.strategies_hyp import histories, user_messages

SUMMARY = "## Current state\nsummarized"
WINDOW = ModelInfo("window", 4_000, 500)

_settings = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _summarizer() -> FunctionTransport:
    return FunctionTransport(lambda request: make_text_response(SUMMARY))


def _kept_suffix(result: list[Message], history: list[Message]) -> int:
    """How many trailing messages of ``result`` are the original's own, unchanged."""
    n = 0
    while n < min(len(result), len(history)) and result[-1 - n] == history[-1 - n]:
        n += 1
    return n


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
    result = asyncio.run(compact_context(history, _summarizer(), keep_recent=keep_recent))
    if result is None:
        return
    validate_history(result, allow_pending=pending)
    validate_history(result, "anthropic", allow_pending=pending)
    validate_history(result, "openai", allow_pending=pending)
    kept = _kept_suffix(result, history)
    # Everything after the summary (and acknowledgement) is the original tail, verbatim.
    summary_index = next(i for i, m in enumerate(result) if SUMMARY in m.text)
    tail_start = (
        summary_index
        + 1
        + (
            result[summary_index + 1].role == "assistant"
            and result[summary_index + 1] not in history[-kept:]
        )
    )
    assert kept >= len(result) - tail_start
    assert kept >= 1
    # No system message is ever dropped.
    assert [m for m in history if m.role == "system"] == [m for m in result if m.role == "system"]
    # Nothing is duplicated: the result is shorter than the input.
    assert len(result) <= len(history) + 1


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
        async def slow(request: StubRequest) -> StubResponse:
            for _ in range(sum(yields)):
                await asyncio.sleep(0)
            return make_text_response(SUMMARY)

        store = AutoCompactStore(
            MemoryContextStore(history),
            FunctionTransport(slow, model=WINDOW),
            keep_recent=4,
            proactive=False,
        )

        async def appender() -> None:
            for message, pause in zip(late, yields, strict=False):
                for _ in range(pause):
                    await asyncio.sleep(0)
                await store.append(message)

        await asyncio.gather(store.add_context_tokens(3_900, 1), appender())
        return await store.get_history()

    result = asyncio.run(scenario())
    assert result[-len(late) :] == late

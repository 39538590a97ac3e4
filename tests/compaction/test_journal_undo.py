"""AutoCompactStore.journal() and .undo(): what a compaction journals, on every store."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from contextfold import ContextStore, MemoryContextStore, Message
from contextfold.compaction import AutoCompactStore, CompactionSettings
from contextfold.errors import NothingToUndoError
from contextfold.testing import FunctionTransport, StubTransport, make_text_response
from tests.compaction.test_compaction import SUMMARY, WINDOW, alternating

pytestmark = pytest.mark.asyncio


def _summarizer(text: str = SUMMARY) -> FunctionTransport:
    return FunctionTransport(lambda request: make_text_response(text), model=WINDOW)


async def test_a_compaction_is_journaled_with_what_it_cost_and_undone(
    store: ContextStore,
) -> None:
    await store.clear()
    for m in alternating(12):
        await store.append(m)
    before = await store.get_history()
    wrapped = AutoCompactStore(
        store,
        StubTransport(model=WINDOW),
        summary_transport=_summarizer(),
        settings=CompactionSettings(keep_recent=2, prepare_threshold=None),
    )
    await wrapped.add_context_tokens(3_500, 10)  # over the limit: compacts now
    assert wrapped.compactions == 1
    await wrapped.append(Message.user("after the summary"))

    [entry] = await wrapped.journal()
    event = wrapped.last_event
    assert event is not None
    assert (entry.kind, entry.outcome, entry.trigger) == ("compaction", "compacted", "usage")
    assert entry.real_tokens_before == 3_500
    assert entry.messages_before == 12
    assert entry.messages_after == event.messages_after
    assert entry.summarized_messages == event.summarized_messages == 10
    assert entry.summary is not None
    assert "The user asked questions." in entry.summary
    assert entry.summarizer_model == "small-model"
    assert entry.summarizer_requests == 1
    usage = event.summarizer_usage
    assert usage is not None
    assert (entry.summarizer_input_tokens, entry.summarizer_output_tokens) == (
        usage.input_tokens,
        usage.output_tokens,
    )
    assert entry.summarizer_input_tokens > 0
    assert entry.duration_s is not None
    assert entry.waited_s is not None
    assert entry.facts is not None
    assert event.facts is not None
    assert entry.facts == event.facts.to_json()

    undone = await wrapped.undo()
    assert (undone.kind, undone.undoes) == ("undo", entry.compaction)
    assert await wrapped.inner.get_history() == [*before, Message.user("after the summary")]
    with pytest.raises(NothingToUndoError):
        await wrapped.undo()
    # Compaction goes on after an undo, from the restored history.
    await wrapped.add_context_tokens(3_600, 10)
    assert wrapped.compactions == 2
    assert [e.kind for e in await wrapped.journal()] == ["compaction", "undo", "compaction"]


async def test_failed_attempts_and_discarded_summaries_are_journaled() -> None:
    def refuse(request: Any) -> Any:
        raise RuntimeError("summarizer down")

    inner = MemoryContextStore(alternating(12))
    wrapped = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        summary_transport=FunctionTransport(refuse, model=WINDOW),
        settings=CompactionSettings(keep_recent=2, prepare_threshold=None),
    )
    await wrapped.add_context_tokens(3_500, 10)
    [entry] = await wrapped.journal()
    assert (entry.kind, entry.outcome, entry.compaction) == ("attempt", "failed", None)
    assert entry.error is not None
    assert "summarizer down" in entry.error
    assert entry.real_tokens_before == 3_500
    with pytest.raises(NothingToUndoError):
        await wrapped.undo()  # a failure changed nothing: nothing to undo


async def test_a_store_without_a_journal_says_so() -> None:
    class Plain(ContextStore):
        def __init__(self) -> None:
            self.messages: list[Message] = []

        async def append(self, message: Message) -> None:
            self.messages.append(message)

        async def get_history(self) -> list[Message]:
            return list(self.messages)

        async def clear(self) -> None:
            self.messages = []

    wrapped = AutoCompactStore(Plain(), StubTransport(model=WINDOW))
    with pytest.raises(TypeError, match="keeps no compaction journal"):
        await wrapped.journal()
    with pytest.raises(TypeError, match="undo"):
        await wrapped.undo()


async def test_undo_drops_a_summary_prepared_for_the_old_history() -> None:
    release = asyncio.Event()

    async def slow(request: Any) -> Any:
        await release.wait()
        return make_text_response(SUMMARY)

    inner = MemoryContextStore(alternating(12))
    wrapped = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        summary_transport=_summarizer(),
        settings=CompactionSettings(keep_recent=2, prepare_threshold=None),
    )
    await wrapped.add_context_tokens(3_500, 10)
    wrapped._core.summary_transport = FunctionTransport(slow, model=WINDOW)
    wrapped._core.maybe_prepare(10_000, due=True)  # a preparation of the summarized history
    await asyncio.sleep(0)
    await wrapped.undo()
    release.set()
    await asyncio.sleep(0.01)
    assert wrapped._core.prep.ready is None  # the stale preparation was dropped
    assert await inner.get_history() == alternating(12)
    await wrapped.close()


async def test_a_subclass_with_the_older_replace_snapshot_still_compacts() -> None:
    """A store subclassing a shipped one and overriding ``replace_snapshot`` without
    ``note=`` keeps working: its commits are journaled as bare rewrites, and undo says
    why it cannot journal itself instead of failing half-way."""

    class Older(MemoryContextStore):
        async def replace_snapshot(self, snapshot: Any, messages: Any) -> bool:  # type: ignore[override]
            return await super().replace_snapshot(snapshot, messages)

    inner = Older(alternating(12))
    wrapped = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        summary_transport=_summarizer(),
        settings=CompactionSettings(keep_recent=2, prepare_threshold=None),
    )
    await wrapped.add_context_tokens(3_500, 10)
    assert wrapped.compactions == 1
    [entry] = await wrapped.journal()
    assert (entry.kind, entry.outcome, entry.compaction) == ("compaction", None, 1)
    with pytest.raises(TypeError, match="does not take note="):
        await wrapped.undo()
    assert len(await inner.get_history()) < 12  # nothing was touched by the refusal

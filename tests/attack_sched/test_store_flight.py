"""Attack on AutoCompactStore's single flight, back-off and time limit after cf2af9b
(``Compactor.running`` is now the scheduler's flight of the one history)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from contextfold import AutoCompactStore, MemoryContextStore, ModelInfo
from contextfold.compaction import CompactionSettings
from contextfold.errors import ProviderUnavailableError
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from tests.attack_sched._wait import until
from tests.compaction.test_compaction import SUMMARY, WINDOW, alternating

DEADLINE = 30
BIG = ModelInfo("small-model", 8_000, 1_000)


class Gated(FunctionTransport):
    def __init__(self, model: ModelInfo = WINDOW) -> None:
        self.release = asyncio.Event()
        self.started = 0
        self.fail = False
        super().__init__(self._reply, model=model)

    async def _reply(self, request: StubRequest) -> StubResponse:
        self.started += 1
        await self.release.wait()
        if self.fail:
            raise ProviderUnavailableError("down", provider="stub", status=503)
        return make_text_response(SUMMARY)


def store_with(summary: FunctionTransport, **settings: Any) -> AutoCompactStore:
    return AutoCompactStore(
        MemoryContextStore(alternating(20)),
        FunctionTransport(lambda r: make_text_response("x"), model=WINDOW),
        settings=CompactionSettings(keep_recent=2, prepare_threshold=None).replace(**settings),
        summary_transport=summary,
    )


async def test_joined_callers_cancelled_leave_the_run_to_the_others() -> None:
    # Impact: a turn cancelled while it waits on a compaction another turn started must
    # not cancel that compaction nor change the others' answer.
    summary = Gated()
    store = store_with(summary)
    callers = [asyncio.ensure_future(store.add_context_tokens(3_500, 1)) for _ in range(4)]
    await until(lambda: summary.started == 1)
    callers[0].cancel()
    callers[2].cancel()
    await asyncio.sleep(0.01)
    assert store._core.busy
    summary.release.set()
    async with asyncio.timeout(DEADLINE):
        await asyncio.gather(callers[1], callers[3])
    assert callers[0].cancelled()
    assert callers[2].cancelled()
    assert store.compactions == 1
    assert summary.started == 1
    assert not store._core.busy


async def test_every_caller_cancelled_the_run_still_ends_and_the_next_is_new() -> None:
    # Impact: all turns gone: the compaction ends on its own, is committed once, and a
    # later compact() is a new run, not the old future's stale answer.
    summary = Gated()
    store = store_with(summary)
    callers = [asyncio.ensure_future(store.add_context_tokens(3_500, 1)) for _ in range(3)]
    await until(lambda: summary.started == 1)
    for caller in callers:
        caller.cancel()
    await asyncio.gather(*callers, return_exceptions=True)
    summary.release.set()
    await until(lambda: not store._core.busy)
    assert store.compactions == 1
    for m in alternating(20):
        await store.append(m)
    async with asyncio.timeout(DEADLINE):
        assert await store.compact()
    assert store.compactions == 2


async def test_close_while_a_compaction_runs_waits_for_it_and_ends() -> None:
    # Impact: close() during a compaction must wait for the commit (never half-done)
    # and then return: no hang, the joined caller gets its answer.
    summary = Gated()
    store = store_with(summary)
    caller = asyncio.ensure_future(store.add_context_tokens(3_500, 1))
    await until(lambda: summary.started == 1)
    closing = asyncio.ensure_future(store.close())
    await asyncio.sleep(0.02)
    assert not closing.done()  # it waits for the run
    summary.release.set()
    async with asyncio.timeout(DEADLINE):
        await closing
        assert await caller is None
    assert store.compactions == 1


async def test_a_hanging_summarizer_is_bounded_for_every_joined_caller() -> None:
    # Impact: summary_timeout bounds the one run every joined caller waits on; after it
    # the back-off holds the next trigger, and a forced compaction does not wait.
    summary = Gated()  # never released
    store = store_with(summary, summary_timeout=0.2, max_backoff=4)
    async with asyncio.timeout(DEADLINE):
        await asyncio.gather(*(store.add_context_tokens(3_500, 1) for _ in range(3)))
    assert summary.started == 1
    assert store.last_event is not None
    assert store.last_event.outcome == "failed"
    assert "summary_timeout" in (store.last_event.error or "")
    await store.add_context_tokens(3_600, 1)  # backing off
    assert summary.started == 1
    async with asyncio.timeout(DEADLINE):
        assert not await store.compact(force=True)  # forced: tried again, times out again
    assert summary.started == 2


@pytest.mark.parametrize("max_backoff", [1, 2, 32])
async def test_store_backoff_with_manual_and_forced_compactions(max_backoff: int) -> None:
    # Impact: manual compact() spends a skip, compact(force=True) spends none and a
    # success starts the count over: the accounting must be what it was.
    summary = Gated(BIG)
    summary.release.set()
    summary.fail = True
    store = store_with(summary, max_backoff=max_backoff)
    attempts: list[int] = []
    for _ in range(10):
        await store.compact()
        attempts.append(summary.started)
    expected, n, failures = [], 0, 0
    while len(expected) < 10:
        n += 1
        failures += 1
        expected.append(n)
        expected += [n] * min(2 ** (failures - 1), max_backoff)
    assert attempts == expected[:10]
    before = summary.started
    assert not await store.compact(force=True)  # forced: tried, failed
    assert summary.started == before + 1
    summary.fail = False
    assert await store.compact(force=True)
    summary.fail = True
    for m in alternating(20):
        await store.append(m)
    started = summary.started
    await store.compact()  # fails: the first failure in a row again
    await store.compact()  # one skip
    await store.compact()  # tried
    assert summary.started == started + 2


async def test_a_keyboard_interrupt_in_the_summary_reaches_the_caller_and_frees_the_flight() -> (
    None
):
    # Impact: Ctrl-C during a summary must surface as KeyboardInterrupt in the turn
    # that waits on it, and leave no stale run that later turns would join forever.
    calls = 0

    async def reply(request: StubRequest) -> StubResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise KeyboardInterrupt
        return make_text_response(SUMMARY)

    store = store_with(FunctionTransport(reply, model=WINDOW))
    with pytest.raises(KeyboardInterrupt):
        await store.add_context_tokens(3_500, 1)
    assert not store._core.busy
    async with asyncio.timeout(DEADLINE):
        assert await store.compact()
    assert store.compactions == 1

"""Second-party attack on 9d0781d (Compactor.decide, _await_landing).

AGENT's window is 16,000 tokens with 1,000 of output: compaction at 12,000, preparation
at 9,600, reads relieved past 13,500. ``session()`` (30 messages, ~18,000 characters)
reads its ledger on a worker thread. (The helpers come from tests/compaction and
tests/attack41; while the attack ran they were copied here, so that the file also ran
against 581903c^.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from contextfold import AutoCompactStore, CompactionEvent, MemoryContextStore
from contextfold.compaction import CompactionSettings
from contextfold.compaction._trigger import TriggerCheck
from contextfold.testing import FunctionTransport, make_text_response
from tests.attack41.test_attack41 import FirstLedgerGated, Summarizer
from tests.attack_sched._wait import until
from tests.compaction.test_ledger_thread import AGENT, REVIEW, session


def wrap(
    inner: MemoryContextStore,
    events: list[CompactionEvent],
    summary: FunctionTransport,
    **settings: Any,
) -> AutoCompactStore:
    return AutoCompactStore(
        inner,
        FunctionTransport(lambda request: make_text_response(REVIEW), model=AGENT),
        settings=CompactionSettings(keep_recent=4, **settings),
        summary_transport=summary,
        on_event=events.append,
    )


class SlowHook:
    """A should_compact hook that consults something slow (a policy service: gated by
    ``release``), then leaves the decision to the rule."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.release = asyncio.Event()
        self.checks: list[int] = []

    async def __call__(self, check: TriggerCheck) -> bool | None:
        self.checks.append(check.tokens)
        self.asked.set()
        await self.release.wait()
        return None


# -- 1. Compactor.decide re-asks only when a commit landed ----------------------------------


async def test_a_history_replaced_while_the_hook_answers_is_not_summarized() -> None:
    hook = SlowHook()
    summary = Summarizer(gated=True)
    events: list[CompactionEvent] = []
    store = wrap(MemoryContextStore(session()), events, summary, should_compact=hook)
    await store.get_history()
    reporting = asyncio.ensure_future(store.add_context_tokens(13_000, 10))
    await until(hook.asked.is_set)
    fresh = session(12, 600)  # ~1,900 tokens: far under the limit
    await store.replace_history(fresh)
    hook.release.set()
    await asyncio.wait_for(reporting, 2)
    assert summary.calls == 0  # 1: the fresh history was summarized at 13,000 tokens
    assert await store.inner.get_history() == fresh
    await store.close()


async def test_a_history_cleared_while_the_hook_answers_leaves_no_old_floor() -> None:
    hook = SlowHook()
    summary = Summarizer(gated=True)
    events: list[CompactionEvent] = []
    store = wrap(MemoryContextStore(session()), events, summary, should_compact=hook)
    await store.get_history()
    reporting = asyncio.ensure_future(store.add_context_tokens(14_000, 10))
    await until(hook.asked.is_set)
    await store.clear()
    hook.release.set()
    await asyncio.wait_for(reporting, 2)
    # A new session grows past the limit: it is compacted.
    for message in session():
        await store.append(message)
    await store.get_history()
    await store.add_context_tokens(13_000, 10)
    assert store.compactions == 1  # 0: "held", waiting for usage to grow past 14,000
    await store.close()


# -- 2. _await_landing: the preparation's fallback summary -----------------------------------


async def test_a_caller_does_not_wait_for_a_summary_of_a_history_rewritten_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ledgers = FirstLedgerGated(monkeypatch)
    summary = Summarizer(gated=True)  # its second request answers only when released
    events: list[CompactionEvent] = []
    inner = MemoryContextStore(session())
    store = wrap(inner, events, summary)
    await store.get_history()
    await store.add_context_tokens(10_000, 10)  # past the prepare point: preparing
    await until(ledgers.entered.is_set)  # the summary came back; its ledger is read
    crossing = asyncio.ensure_future(store.add_context_tokens(14_000, 10))
    for _ in range(20):
        await asyncio.sleep(0)
    # Another worker of the same session (a shared SQLite/Redis store) rewrote it.
    await inner.replace_history(session(30, 580))
    ledgers.gate.set()
    try:
        # back once the prepared summary is known to be useless, not after a model call
        await asyncio.wait_for(asyncio.shield(crossing), 1.5)
    finally:
        summary.release.set()
        await crossing
        await store.close()

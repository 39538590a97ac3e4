"""Second-party attack on 9d0781d (Compactor.decide, _await_landing).

AGENT's window is 16,000 tokens with 1,000 of output: compaction at 12,000, preparation
at 9,600, reads relieved past 13,500. ``session()`` (30 messages, ~18,000 characters)
reads its ledger on a worker thread. Helpers are copied here (not imported from
tests/compaction or tests/attack41) so that the file also runs against 581903c^.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from contextfold import AutoCompactStore, CompactionEvent, MemoryContextStore, Message, ModelInfo
from contextfold.compaction import CompactionSettings, _ledger
from contextfold.compaction._trigger import TriggerCheck
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from tests.attack_sched._wait import until

REVIEW = "<summary>\n## Current state\nReviewing the invoice export module.\n</summary>"
AGENT = ModelInfo("agent-model", 16_000, 1_000)


def session(n: int = 30, size: int = 600) -> list[Message]:
    words = "the invoice export module rounds each line "
    pad = (words * (size // len(words) + 1))[:size]
    return [
        Message.user(f"q{i}: review {pad}") if i % 2 == 0 else Message.assistant(f"a{i}: {pad}")
        for i in range(n)
    ]


def outcomes(events: list[CompactionEvent]) -> list[str | None]:
    return [e.outcome for e in events if e.phase == "after"]


class Summarizer(FunctionTransport):
    """Answers with REVIEW; counts its requests; the ones after the first wait for
    ``release``."""

    def __init__(self) -> None:
        self.calls = 0
        self.release = asyncio.Event()
        super().__init__(self._answer, model=ModelInfo("summarizer", 200_000, 4_000))

    async def _answer(self, request: StubRequest) -> StubResponse:
        self.calls += 1
        if self.calls > 1:
            await self.release.wait()
        return make_text_response(REVIEW)


class FirstLedgerGated:
    """The first ``build_ledger`` call waits (at most 5 s) for ``gate``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.calls = 0
        build = _ledger.build_ledger

        def gated(*args: Any, **kwargs: Any) -> _ledger.Ledger:
            self.calls += 1
            if self.calls == 1:
                self.entered.set()
                self.gate.wait(5)
            return build(*args, **kwargs)

        monkeypatch.setattr(_ledger, "build_ledger", gated)


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
    summary = Summarizer()
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
    summary = Summarizer()
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
    summary = Summarizer()  # its second request answers only when released
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

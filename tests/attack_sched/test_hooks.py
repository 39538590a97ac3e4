"""A ``should_compact`` hook that hangs, asked by the store and the manager through the
scheduler after cf2af9b (the proxy's case is in test_proxy_flight)."""

from __future__ import annotations

import asyncio

import pytest

from contextfold.compaction import TriggerCheck, _trigger
from contextfold.manager import CompactingContextManager, manager_settings
from tests.attack_sched.test_store_flight import Gated, store_with
from tests.manager.test_manager import conversation, filled, summarizer

DEADLINE = 30


async def hangs(check: TriggerCheck) -> bool:
    await asyncio.Event().wait()
    return True


async def test_the_store_bounds_a_hanging_hook_and_the_limit_decides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Impact: a hook that never returns must not hold the agent's turn.
    monkeypatch.setattr(_trigger, "HOOK_TIMEOUT", 0.2)
    summary = Gated()
    summary.release.set()
    store = store_with(summary, should_compact=hangs)
    async with asyncio.timeout(DEADLINE):
        await store.add_context_tokens(500, 1)  # under the limit: nothing
        assert store.compactions == 0
        await store.add_context_tokens(3_500, 1)  # over it: the rule compacts
    assert store.compactions == 1


async def test_the_manager_bounds_a_hanging_hook_and_the_threshold_decides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_trigger, "HOOK_TIMEOUT", 0.2)
    transport = summarizer()
    manager = await filled(
        CompactingContextManager(
            max_tokens=3_000,
            transport=transport,
            settings=manager_settings(should_compact=hangs, prepare_threshold=None),
        ),
        conversation(30),
    )
    async with asyncio.timeout(DEADLINE):
        views = await asyncio.gather(*(manager.get_messages_for_request() for _ in range(3)))
    assert len(transport.requests) == 1
    assert all(v == views[0] for v in views)
    assert len(views[0]) < len(conversation(30))

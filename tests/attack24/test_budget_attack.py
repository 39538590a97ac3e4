"""Attack 24: the memory budget's shares, filled to the brim."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from contextfold.proxy._budget import SHARES, MemoryBudget
from contextfold.proxy._compact import _BACKOFF_ENTRY
from tests._proxy_upstream import ProxyApps, Upstream

BUDGET = 1024 * 1024


@pytest.fixture
async def apps() -> AsyncIterator[ProxyApps]:
    made = ProxyApps(Upstream())
    yield made
    await made.close()


async def test_the_back_off_tables_together_keep_to_their_share(apps: ProxyApps) -> None:
    # Impact: the failed-compaction back-off and the refused-history table were each
    # given the whole "backoff" share, so together they could hold twice it (1.6 MiB
    # over the 128 MiB promised, at the defaults), and Planner.memory() reported more
    # than the share it says a cache never exceeds.
    app = await apps.make(upstream_openai="http://upstream.test/v1", memory_budget=BUDGET)
    planner = app.state.forwarder.planner
    share = MemoryBudget(BUDGET).share("backoff")
    for i in range(2 * share // _BACKOFF_ENTRY + 10):
        planner.scheduler.backoffs.ended(f"failed-{i:060d}", None, failed=True)
        planner._refused.put(f"refused-{i:059d}", True, _BACKOFF_ENTRY)
    held = app.state.forwarder.memory()
    assert held["backoff"] <= share
    assert len(planner.scheduler.backoffs) > 0
    assert len(planner._refused) > 0
    assert set(held) == set(SHARES)
    assert sum(held.values()) <= BUDGET

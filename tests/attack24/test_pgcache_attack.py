"""Attack 24: the proxy's PostgreSQL compaction lease under cancellation."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from contextfold.proxy._pgcache import PostgresSummaryCache
from tests.proxy.test_fleet import pg_url  # noqa: F401 (fixture)


def leases(url: str) -> list[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT history_hash FROM contextfold_proxy_leases").fetchall()
    return [row[0] for row in rows]


async def settle_after(task: asyncio.Task[None], turns: int, cancels: int) -> None:
    for _ in range(turns):
        await asyncio.sleep(0)
    for _ in range(cancels):
        task.cancel()
        await asyncio.sleep(0)
    await asyncio.gather(task, return_exceptions=True)


@pytest.mark.parametrize("cancels", [1, 2])
async def test_a_compaction_cancelled_at_any_step_leaves_no_proxy_lease(
    pg_url: str,  # noqa: F811 (the fixture)
    cancels: int,
) -> None:
    # Impact: a claim cancelled while its transaction committed (7 of 40 turns), or a
    # release cancelled before its DELETE, left the lease row: every replica's
    # compaction of that conversation, and of every history extending it, waited for
    # it to expire (lease_seconds, 30 s by default) before summarizing.
    cache = PostgresSummaryCache(pg_url, lease_seconds=30)
    await cache.open()
    try:
        left = []
        for turns in range(40):
            key = f"claimed-{turns}"

            async def compaction(key: str = key) -> None:
                lease = await cache.claim("root", key, ["h0", key])
                assert lease is not None
                try:
                    await asyncio.sleep(0.02)
                finally:
                    await lease.release()

            await settle_after(asyncio.ensure_future(compaction()), turns, cancels)
            left += await asyncio.to_thread(leases, pg_url)
        # a release cut short (the task started: a finally clause awaits it at once)
        for turns in range(1, 40):
            lease = await cache.claim("root", f"released-{turns}", ["h0"])
            assert lease is not None
            await settle_after(asyncio.ensure_future(lease.release()), turns, cancels)
            left += await asyncio.to_thread(leases, pg_url)
        assert left == []
        # and the conversation can be claimed again at once
        assert await cache.claim("root", "again", ["h0", "claimed-0"]) is not None
    finally:
        await cache.close()

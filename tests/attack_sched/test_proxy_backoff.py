"""Attack on the proxy's back-off after cf2af9b (the Scheduler's BackOffs).

Before the change, ``Planner._decide`` read the back-off of a history's longest failed
prefix when the run started, and on its end replaced exactly that record. Now
``BackOffs.failed``/``succeeded`` read the table again when the run ends, so a run
that ended meanwhile on a sibling branch or on a prefix changes what is recorded.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.compaction import CompactionSettings
from tests._proxy_upstream import ProxyApps, Upstream, openai_history
from tests.attack_sched._wait import until

KEY = "sk-test-attack-sched-0000"
MODEL = "test-model"
BASE: dict[str, Any] = {"context_window": 32_768, "threshold": 0.25, "summary_max_retries": 0}
DOWN = (500, {"error": {"message": "down", "type": "server_error"}})
SKIPPED = "summarization skipped after {n} failed attempt(s)"


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[Starlette]:
    apps = ProxyApps(upstream)
    yield await apps.make(
        upstream_openai="http://upstream.test/v1",
        upstream_anthropic="http://upstream.test",
        db=tmp_path / "proxy.db",
        settings=CompactionSettings(max_backoff=32, prepare_threshold=None),
        **BASE,
    )
    await apps.close()


def client_of(app: Starlette) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test", timeout=60
    )


async def post(client: httpx2.AsyncClient, history: list[dict[str, Any]]) -> httpx2.Response:
    reply = await client.post(
        "/v1/chat/completions",
        json={"model": MODEL, "messages": history},
        headers={"authorization": f"Bearer {KEY}"},
    )
    assert reply.status_code == 200
    return reply


def branch(history: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [
        *history,
        {"role": "assistant", "content": f"ok {name}"},
        {"role": "user", "content": name},
    ]


async def test_a_sibling_branch_failing_meanwhile_keeps_the_count_of_failures_in_a_row(
    app: Starlette, upstream: Upstream
) -> None:
    # Impact: two branches of one conversation (a retried/edited turn, two agents on one
    # shared prefix) that fail at once: the second to end loses the prefix's failure
    # ("1 failed attempt" instead of 2), so it backs off half as long and pays the
    # summarizer again sooner than max_backoff promises.
    upstream.fail_summary = DOWN
    history = openai_history(24)
    async with client_of(app) as client:
        first = await post(client, history)  # failure 1, recorded for the history
        assert len(upstream.summaries) == 1
        assert "x-contextfold-error" in first.headers
        skipped = await post(client, branch(history, "grown"))  # skip 1 of 1
        assert SKIPPED.format(n=1) in skipped.headers["x-contextfold-error"]
        assert len(upstream.summaries) == 1
        # Two sibling branches of the history summarize at once; both fail.
        gate = asyncio.Event()
        upstream.summary_gate = gate
        left, right = branch(history, "left"), branch(history, "right")
        async with asyncio.timeout(60):
            runs = [asyncio.ensure_future(post(client, h)) for h in (left, right)]
            await until(lambda: len(upstream.summaries) == 3)
            gate.set()
            await asyncio.gather(*runs)
        upstream.summary_gate = None
        # Each branch has now failed twice in a row: the next request of each is
        # skipped after 2 failed attempts.
        errors = []
        for name, h in (("left", left), ("right", right)):
            reply = await post(client, branch(h, f"{name}-next"))
            errors.append(reply.headers.get("x-contextfold-error", ""))
        assert len(upstream.summaries) == 3, errors
        assert all(SKIPPED.format(n=2) in e for e in errors), errors


async def test_a_longer_run_failing_later_leaves_the_prefix_failure_in_place(
    app: Starlette, upstream: Upstream
) -> None:
    # Impact: a request on a history H failed and a retry of H should be skipped
    # once; a slower failing run of a longer history (H extended) that started before
    # that failure ends afterwards and now erases H's record (it "replaces its
    # longest prefix's"), so the retry of H calls the summarizer again.
    upstream.fail_summary = DOWN
    history = openai_history(24)
    longer = branch(history, "longer")
    slow, quick = asyncio.Event(), asyncio.Event()
    async with client_of(app) as client, asyncio.timeout(60):
        upstream.summary_gate = slow
        long_run = asyncio.ensure_future(post(client, longer))
        await until(lambda: len(upstream.summaries) == 1)
        upstream.summary_gate = quick
        short_run = asyncio.ensure_future(post(client, history))
        await until(lambda: len(upstream.summaries) == 2)
        upstream.summary_gate = None
        quick.set()
        await short_run  # H failed: its next request is skipped once
        slow.set()
        await long_run  # the longer history failed too, after it
        retry = await post(client, history)
        assert len(upstream.summaries) == 2, "the retry of H summarized again"
        assert SKIPPED.format(n=1) in retry.headers["x-contextfold-error"]


async def test_a_success_on_a_longer_history_leaves_a_shorter_ones_failure(
    app: Starlette, upstream: Upstream
) -> None:
    # Impact: the back-off of a history H (its summary failed) used to stand until a
    # summary covering H was made. Now a success on a longer history Q extending H
    # (whose summary does not cover H's branches) erases H's record too, so the next
    # request on a branch of H calls the summarizer that the back-off should skip.
    history = openai_history(24)
    longer = openai_history(34)  # the same conversation ten rounds on
    assert longer[: len(history) - 1] == history[:-1]
    shorter = [*history[:-1], longer[len(history) - 1]]  # H: a prefix of the longer one
    assert longer[: len(shorter)] == shorter
    upstream.fail_summary = DOWN
    async with client_of(app) as client:
        await post(client, longer)  # the longer history fails: its own record
        await post(client, shorter)  # H fails: a record of its own (not a prefix's)
        assert len(upstream.summaries) == 2
        skipped = await post(client, branch(longer, "y1"))  # the longer one's skip
        assert SKIPPED.format(n=1) in skipped.headers["x-contextfold-error"]
        upstream.fail_summary = None
        made = await post(client, branch(longer, "y2"))
        assert made.headers["x-contextfold-summary"] == "created"
        assert len(upstream.summaries) == 3
        upstream.fail_summary = DOWN
        reply = await post(client, branch(shorter, "z"))  # a branch of H, not of Q
        assert reply.headers["x-contextfold-summary"] != "cached", dict(reply.headers)
    assert SKIPPED.format(n=1) in reply.headers.get("x-contextfold-error", ""), dict(reply.headers)
    assert len(upstream.summaries) == 3

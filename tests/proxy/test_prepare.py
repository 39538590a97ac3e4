"""Background preparation in the proxy (issue 14): the over-limit request does not wait.

A 32,768-token window with threshold 0.5 and prepare_threshold 0.3: summaries are
prepared past ~9,830 estimated tokens, spliced past 16,384; a request over the limit
waits for a preparation in flight only past 20,480 (halfway to the 24,576 input budget).
The histories grow by ~480 tokens a turn.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.formats import from_anthropic, from_openai
from contextfold.proxy._compact import Planner
from contextfold.validation import validate_history
from tests._proxy_upstream import Upstream, anthropic_history, openai_history
from tests.proxy.test_proxy import (  # noqa: F401 (fixtures)
    ANTHROPIC_KEY,
    MODEL,
    OPENAI_KEY,
    MakeApp,
    local,
    make_app,
    summaries_raise_cancelled_error,
    summary_texts,
    upstream,
)

Dialect = Literal["openai", "anthropic"]
PREPARED = {"threshold": 0.5, "prepare_threshold": 0.3}


def turns(dialect: Dialect, n: int) -> list[dict[str, Any]]:
    """The first ``n`` turns of one long conversation, ending with the user's request."""
    if dialect == "openai":
        return openai_history(60)[: 1 + 4 * n + 1]
    return anthropic_history(60)[: 4 * n + 1]


async def post(app: Starlette, dialect: Dialect, history: list[dict[str, Any]]) -> httpx2.Response:
    async with local(app) as client:
        if dialect == "openai":
            reply = await client.post(
                "/v1/chat/completions",
                json={"model": MODEL, "messages": history},
                headers={"authorization": f"Bearer {OPENAI_KEY}"},
            )
        else:
            reply = await client.post(
                "/v1/messages",
                json={"model": MODEL, "max_tokens": 100, "messages": history},
                headers={"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01"},
            )
    assert reply.status_code == 200, reply.text
    return reply


def planner_of(app: Starlette) -> Planner:
    planner: Planner = app.state.forwarder.planner
    return planner


async def prepared(app: Starlette, count: int = 1) -> None:
    planner = planner_of(app)
    for _ in range(500):
        if planner.preparer.prepared >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the preparation never finished")


def sent_history(fake: Upstream, dialect: Dialect) -> list[Any]:
    body = fake.chats[-1].json
    if dialect == "openai":
        return from_openai(body["messages"])
    return from_anthropic(body["messages"], body.get("system"))


@pytest.mark.parametrize("dialect", ["openai", "anthropic"])
async def test_the_crossing_request_is_forwarded_at_once_and_the_limit_gets_the_summary(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
    dialect: Dialect,
) -> None:
    app = await make_app(**PREPARED)
    upstream.summary_gate = summary_made = asyncio.Event()
    async with asyncio.timeout(30):  # a request waiting for the summary fails here
        crossing = await post(app, dialect, turns(dialect, 24))
    # Forwarded unchanged while its summary is still being made.
    assert crossing.headers["x-contextfold-compacted"] == "false"
    assert crossing.headers["x-contextfold-summary"] == "none"
    assert planner_of(app).scheduler.flights  # a summary is being prepared
    assert planner_of(app).preparer.prepared == 0  # and is not back yet
    assert upstream.chats[-1].json["messages"] == turns(dialect, 24)
    summary_made.set()
    await prepared(app)

    over = await post(app, dialect, turns(dialect, 36))
    assert over.headers["x-contextfold-compacted"] == "true"
    assert over.headers["x-contextfold-summary"] == "cached"  # spliced, no model call
    assert len(upstream.summaries) == 1
    sent = sent_history(upstream, dialect)
    validate_history(sent, dialect)
    assert "SUMMARY-1 (fresh)" in summary_texts(sent)[0]
    assert int(over.headers["x-contextfold-tokens-after"]) < 16_384
    # The next request reuses the cached summary as before.
    again = await post(app, dialect, turns(dialect, 37))
    assert again.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1


async def test_a_prepared_summary_is_not_spliced_before_the_limit(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    app = await make_app(**PREPARED)
    await post(app, "openai", turns("openai", 24))
    await prepared(app)
    under = await post(app, "openai", turns("openai", 30))  # ~14,300: still under
    assert under.headers["x-contextfold-compacted"] == "false"
    assert upstream.chats[-1].json["messages"] == turns("openai", 30)
    assert len(upstream.summaries) == 1  # prepared once, not again for every request


async def test_over_the_limit_with_room_left_the_request_does_not_wait_for_the_preparation(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    app = await make_app(**PREPARED)
    upstream.summary_gate = summary_made = asyncio.Event()
    async with asyncio.timeout(30):  # a request waiting for the summary fails here
        await post(app, "openai", turns("openai", 24))
        over = await post(app, "openai", turns("openai", 36))  # ~17,200: under 20,480
    assert over.headers["x-contextfold-compacted"] == "false"
    assert planner_of(app).preparer.prepared == 0  # answered before the summary came
    summary_made.set()
    await prepared(app)
    assert len(upstream.summaries) == 1  # and no second summarization was started
    later = await post(app, "openai", turns("openai", 37))
    assert later.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1


async def test_past_the_wait_point_the_request_waits_for_the_preparation(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    app = await make_app(**PREPARED)
    upstream.summary_delay = 0.3
    await post(app, "openai", turns("openai", 24))
    far = await post(app, "openai", turns("openai", 46))  # ~22,000: past 20,480
    assert far.headers["x-contextfold-compacted"] == "true"
    assert far.headers["x-contextfold-summary"] == "cached"  # the prepared one, waited for
    assert len(upstream.summaries) == 1
    validate_history(sent_history(upstream, "openai"))


@pytest.mark.parametrize("failure", ["server-error", "cancelled-error"])
async def test_a_failed_preparation_falls_back_to_the_limit(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
) -> None:
    app = await make_app(**PREPARED)
    if failure == "server-error":
        upstream.fail_summary = (500, {"error": {"message": "down", "type": "server_error"}})
    else:  # raised on its own, as by a library's internal timeout: a failure like any other
        summaries_raise_cancelled_error(upstream, monkeypatch)
    crossing = await post(app, "openai", turns("openai", 24))
    assert crossing.headers["x-contextfold-compacted"] == "false"
    for _ in range(500):
        if not planner_of(app).scheduler.flights:
            break
        await asyncio.sleep(0.01)
    await post(app, "openai", turns("openai", 26))  # not prepared again for this history
    assert len(upstream.summaries) == 1
    upstream.fail_summary = None
    if failure == "cancelled-error":
        monkeypatch.delattr(upstream, "_summary_reply")  # summaries answer again
    over = await post(app, "openai", turns("openai", 36))
    assert over.headers["x-contextfold-summary"] == "created"  # summarized at the limit
    assert len(upstream.summaries) == 2


async def test_preparation_off(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    app = await make_app(threshold=0.5, prepare_threshold=None)
    await post(app, "openai", turns("openai", 24))
    await asyncio.sleep(0.05)
    assert not upstream.summaries
    over = await post(app, "openai", turns("openai", 36))
    assert over.headers["x-contextfold-summary"] == "created"


async def test_the_default_share_over_a_low_threshold_prepares_at_80_percent_of_the_limit(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    """threshold 0.5 puts the limit (16,384) under the default 0.6 share: preparation
    moves to 0.8 of the limit instead of being switched off silently."""
    app = await make_app(threshold=0.5)
    tenant = app.state.forwarder.tenant({"authorization": f"Bearer {OPENAI_KEY}"})
    limit = planner_of(app).limit(MODEL, tenant)
    assert planner_of(app).preparer.limit(MODEL, tenant) == int(limit * 0.8)
    await post(app, "openai", turns("openai", 30))  # past 0.8 of the limit, under it
    await prepared(app)
    assert len(upstream.summaries) == 1
    over = await post(app, "openai", turns("openai", 36))
    assert over.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1


async def test_a_request_past_a_low_prepare_threshold_is_not_taken_for_far_under(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    """The byte-size fast path skips requests far under the limit; one past the prepare
    point must still be looked at, or nothing would ever be prepared. (A summary is
    prepared only when it frees a fifth of the limit: over the target, 8,192, by 3,277.)"""
    app = await make_app(threshold=0.5, prepare_threshold=0.3)  # prepare past ~9,830
    reply = await post(app, "openai", turns("openai", 24))  # ~12,900: under 16,384
    assert reply.headers["x-contextfold-compacted"] == "false"
    await prepared(app)
    assert len(upstream.summaries) == 1


async def test_concurrent_crossing_requests_prepare_one_summary(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    app = await make_app(**PREPARED)
    upstream.summary_delay = 0.2
    history = turns("openai", 24)
    replies = await asyncio.gather(*[post(app, "openai", history) for _ in range(4)])
    assert {r.headers["x-contextfold-compacted"] for r in replies} == {"false"}
    await prepared(app)
    await asyncio.sleep(0.3)
    assert len(upstream.summaries) == 1  # single flight


async def test_a_diverged_history_never_gets_another_ones_prepared_summary(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    app = await make_app(**PREPARED)
    await post(app, "openai", turns("openai", 24))
    await prepared(app)
    other = [dict(m) for m in turns("openai", 36)]
    other[3] = {**other[3], "content": "a different early answer"}  # diverges early
    over = await post(app, "openai", other)
    assert over.headers["x-contextfold-summary"] == "created"  # its own, not the prepared one
    assert len(upstream.summaries) == 2
    original = await post(app, "openai", turns("openai", 36))
    assert original.headers["x-contextfold-summary"] == "cached"  # the prepared one is intact
    assert len(upstream.summaries) == 2


async def test_a_prepared_summary_the_cache_cannot_store_costs_no_request(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    """The cache refusing the prepared summary (a full disk, a database that went
    away) costs a second summary at worst: the request over the limit is compacted."""
    import sqlite3

    app = await make_app(**PREPARED)
    await post(app, "openai", turns("openai", 24))
    await prepared(app)

    async def refuse(*args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    planner_of(app).cache.store = refuse  # type: ignore[method-assign]
    over = await post(app, "openai", turns("openai", 36))
    assert over.headers["x-contextfold-compacted"] == "true"
    validate_history(sent_history(upstream, "openai"), "openai")
    assert int(over.headers["x-contextfold-tokens-after"]) < 16_384

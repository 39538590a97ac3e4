"""Proxy preparation under loads and schedules its first tests did not choose.

The setup is tests/proxy/test_prepare.py's: summaries prepared past ~9,830 estimated
tokens, spliced past 16,384, ~480 tokens a turn.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from contextfold.proxy import _prepare
from tests._proxy_upstream import Upstream
from tests.proxy.test_prepare import PREPARED, planner_of, post, turns
from tests.proxy.test_proxy import (  # noqa: F401 (fixtures)
    MODEL,
    OPENAI_KEY,
    MakeApp,
    local,
    make_app,
    upstream,
)


def conversation(tag: int, n: int) -> list[dict[str, Any]]:
    """``turns("openai", n)`` of a conversation of its own (its first request differs)."""
    history = [dict(m) for m in turns("openai", n)]
    history[1]["content"] = f"conversation {tag}: " + str(history[1]["content"])
    return history


async def test_many_conversations_crossing_at_once_prepare_a_bounded_number(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each preparation holds its conversation's history until its summary returns: a
    burst of conversations must not start an unbounded number of them. Past the cap a
    conversation is not prepared, and its limit summarizes as without preparation."""
    monkeypatch.setattr(_prepare, "MAX_RUNNING", 3)
    app = await make_app(**PREPARED)
    upstream.summary_gate = summaries_answer = asyncio.Event()
    async with asyncio.timeout(30):  # a request waiting for a summary fails here
        replies = await asyncio.gather(
            *(post(app, "openai", conversation(i, 24)) for i in range(8))
        )
    assert all(r.headers["x-contextfold-compacted"] == "false" for r in replies)
    preparer = planner_of(app).preparer
    assert len(preparer._running) <= 3
    await asyncio.sleep(0)
    assert len(upstream.summaries) <= 3
    summaries_answer.set()
    for _ in range(300):
        if not preparer._running:
            break
        await asyncio.sleep(0.01)
    assert preparer.prepared == len(upstream.summaries) <= 3
    upstream.summary_gate = None
    # A conversation that was not prepared summarizes at its limit; a prepared one splices.
    kinds = [
        (await post(app, "openai", conversation(i, 36))).headers["x-contextfold-summary"]
        for i in range(8)
    ]
    assert sorted(kinds) == sorted(["cached"] * preparer.used + ["created"] * (8 - preparer.used))
    assert preparer.used == preparer.prepared


async def test_a_conversation_that_diverges_after_its_summary_was_prepared(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    """The client rewrites an early message after the preparation: the prepared summary
    (of the old prefix) is never spliced into the new history."""
    app = await make_app(**PREPARED)
    await post(app, "openai", turns("openai", 24))
    preparer = planner_of(app).preparer
    for _ in range(300):
        if preparer.prepared:
            break
        await asyncio.sleep(0.01)
    diverged = [dict(m) for m in turns("openai", 36)]
    diverged[1]["content"] = "a different first request"
    over = await post(app, "openai", diverged)
    assert over.headers["x-contextfold-summary"] == "created"  # summarized anew
    assert preparer.used == 0
    sent = upstream.chats[-1].json["messages"]
    assert "a different first request" in str(sent) or "SUMMARY-2" in str(sent)
    assert "SUMMARY-1" not in str(sent)


async def test_a_client_that_disconnects_while_its_summary_is_prepared(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
) -> None:
    """The crossing request is cancelled (the client went away): the preparation goes
    on, and the next request over the limit splices it."""
    app = await make_app(**PREPARED)
    upstream.summary_delay = 0.3
    upstream.stream_gate = asyncio.Event()  # the reply's last event never comes
    preparer = planner_of(app).preparer

    async def stream() -> None:
        async with (
            local(app) as client,
            client.stream(
                "POST",
                "/v1/chat/completions",
                json={"model": MODEL, "messages": turns("openai", 24), "stream": True},
                headers={"authorization": f"Bearer {OPENAI_KEY}"},
            ) as reply,
        ):
            async for _ in reply.aiter_bytes():
                pass

    crossing = asyncio.ensure_future(stream())
    for _ in range(500):
        if upstream.chats and preparer._running:
            break
        await asyncio.sleep(0.01)
    assert preparer._running  # preparing
    assert not crossing.done()  # the reply still streaming
    crossing.cancel()  # the client goes away
    with pytest.raises(asyncio.CancelledError):
        await crossing
    upstream.stream_gate = None
    for _ in range(300):
        if preparer.prepared:
            break
        await asyncio.sleep(0.01)
    assert preparer.prepared == 1
    over = await post(app, "openai", turns("openai", 36))
    assert over.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1

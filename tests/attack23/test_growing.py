"""A conversation growing request by request through one proxy (memo, cached summaries,
prepared summaries, layouts), odd content appended as it goes: every forwarded body is
checked against what the client sent."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold.validation import history_problems
from contextfold_harness.fake_upstream import Upstream
from tests.attack23 import test_unit_anthropic as anth
from tests.attack23 import test_unit_openai as chat
from tests.attack23 import test_unit_responses as resp
from tests.attack23._harness import Dialect, check, open_proxy, parse
from tests.attack23.test_proxy_fuzz import filler, strip_head

SETTINGS = settings(
    max_examples=int(os.environ.get("ATTACK_EXAMPLES", "15")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def opening(dialect: Dialect) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    task = {"role": "user", "content": "TASK: the real task"}
    if dialect == "anthropic":
        return {"model": "m", "max_tokens": 5, "system": "sys"}, [task]
    if dialect == "openai":
        return {"model": "m"}, [{"role": "system", "content": "sys"}, task]
    return {"model": "m", "instructions": "sys"}, [task]


def joinable(
    dialect: Dialect, items: list[dict[str, Any]], more: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``more`` after ``items``, with an assistant turn between two user turns."""
    if dialect != "responses" and more and more[0].get("role") == "user":
        last = items[-1].get("role")
        if last == "user" or (dialect == "anthropic" and last != "assistant"):
            more = [{"role": "assistant", "content": "hm"}, *more]
    if dialect == "anthropic" and more and more[0].get("role") not in ("user", "assistant"):
        more = [{"role": "assistant", "content": "hm"}, *more]
    return [*items, *more]


_IDS = ("id", "call_id", "tool_call_id", "tool_use_id", "approval_request_id")


def renamed(value: Any, prefix: str) -> Any:
    """``value`` with every id prefixed (each piece's ids its own)."""
    if isinstance(value, list):
        return [renamed(v, prefix) for v in value]
    if isinstance(value, dict):
        return {
            k: prefix + v if k in _IDS and isinstance(v, str) else renamed(v, prefix)
            for k, v in value.items()
        }
    return value


async def grow(dialect: Dialect, pieces: list[list[dict[str, Any]]], prepare: float | None) -> None:
    base, items = opening(dialect)
    key = "input" if dialect == "responses" else "messages"
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000, prepare_threshold=prepare)
    rules = "openai" if dialect == "responses" else "any"
    try:
        for n, piece in enumerate(pieces):
            items = joinable(dialect, items, renamed([*piece, *filler(dialect, 3)], f"p{n}_"))
            body = json.loads(json.dumps({**base, key: items}))
            reply = await proxy.post(dialect, body)
            task = 1 if dialect == "openai" else 0
            check(dialect, body, reply, proxy.sent, task=task)
            if n == len(pieces) - 1 and not history_problems(
                parse(dialect, body), rules, allow_pending=True
            ):
                tokens = int(reply.headers.get("x-contextfold-tokens-before") or 0)
                if tokens > 4_500:
                    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
                        "x-contextfold-error"
                    )
            items = [*items]
            # the client goes on from what it sent (never from what the upstream got)
            if dialect == "responses":
                items.append({"role": "user", "content": f"more {n}"})
            else:
                items.append({"role": "assistant", "content": f"reply {n}"})
                items.append({"role": "user", "content": f"more {n}"})
    finally:
        await proxy.close()


def pieces(strategy: Any, dialect: Dialect) -> Any:
    return st.lists(strategy.map(lambda h: strip_head(dialect, h)), min_size=6, max_size=10)


@SETTINGS
@given(pieces(chat.history(), "openai"), st.sampled_from([None, 0.3]))
def test_openai_grows(parts: list[list[dict[str, Any]]], prepare: float | None) -> None:
    asyncio.run(grow("openai", parts, prepare))


@SETTINGS
@given(pieces(anth.history(), "anthropic"), st.sampled_from([None, 0.3]))
def test_anthropic_grows(parts: list[list[dict[str, Any]]], prepare: float | None) -> None:
    asyncio.run(grow("anthropic", parts, prepare))


@SETTINGS
@given(pieces(resp.items(), "responses"), st.sampled_from([None, 0.3]))
def test_responses_grows(parts: list[list[dict[str, Any]]], prepare: float | None) -> None:
    asyncio.run(grow("responses", parts, prepare))

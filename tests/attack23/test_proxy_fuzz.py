"""Hypothesis through the proxy: odd content in the summarized and the kept part, every
dialect; what the upstream receives is checked against what the client sent."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings

from contextfold.validation import history_problems
from contextfold_harness.fake_upstream import Upstream
from tests.attack23 import test_unit_anthropic as anth
from tests.attack23 import test_unit_openai as chat
from tests.attack23 import test_unit_responses as resp
from tests.attack23._harness import Dialect, check, open_proxy, parse, summary_requests, words

SECRET = "SECRETPAYLOAD" + "Q" * 100  # an encoded payload: never shown to the summarizer


def filler(dialect: Dialect, n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        text = f"step {i}: " + words(i)
        if dialect == "responses":
            out += [
                {"type": "function_call", "call_id": f"f{i}", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": f"f{i}", "output": text},
                {"role": "assistant", "content": f"ok {i}"},
                {"role": "user", "content": f"go {i}"},
            ]
        elif dialect == "openai":
            out += [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"f{i}",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": f"f{i}", "content": text},
                {"role": "assistant", "content": f"ok {i}"},
                {"role": "user", "content": f"go {i}"},
            ]
        else:
            out += [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"f{i}", "name": "f", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"f{i}", "content": text}],
                },
                {"role": "assistant", "content": f"ok {i}"},
                {"role": "user", "content": f"go {i}"},
            ]
    return out


def secret_part(dialect: Dialect) -> dict[str, Any]:
    if dialect == "anthropic":
        return {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": SECRET},
        }
    if dialect == "openai":
        return {"type": "file", "file": {"file_data": SECRET, "filename": "a.pdf"}}
    return {"type": "input_file", "file_data": SECRET, "filename": "a.pdf"}


async def run(dialect: Dialect, old: list[dict[str, Any]], recent: list[dict[str, Any]]) -> None:
    task = {"role": "user", "content": "TASK: the real task"}
    if dialect == "anthropic":
        head: list[dict[str, Any]] = [task]
        body: dict[str, Any] = {"model": "m", "max_tokens": 5, "system": "sys"}
    elif dialect == "openai":
        head = [{"role": "system", "content": "sys"}, task]
        body = {"model": "m"}
    else:
        head = [task]
        body = {"model": "m", "instructions": "sys"}
    with_secret = {"role": "user", "content": [secret_part(dialect)]}
    if dialect == "anthropic":
        with_secret["content"].append({"type": "text", "text": "see file"})
    middle = [with_secret, {"role": "assistant", "content": "read it"}]
    history = [*head, *middle, *old, *filler(dialect, 30), *recent]
    key = "input" if dialect == "responses" else "messages"
    body[key] = history
    body = json.loads(json.dumps(body))
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000, keep_recent=len(recent) + 1)
    try:
        await proxy.post(dialect, {**body, key: head})  # the opening: the task is learnt
        reply = await proxy.post(dialect, body)
        compacted = check(dialect, body, reply, proxy.sent, task=len(head) - 1)
        assert SECRET not in summary_requests(upstream)
        rules = "openai" if dialect == "responses" else "any"
        if not history_problems(parse(dialect, body), rules, allow_pending=True):
            # a history the proxy's rules accept is compacted
            assert compacted, reply.headers.get("x-contextfold-error")
    finally:
        await proxy.close()


def strip_head(dialect: Dialect, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A generated history without its opening (system messages and the first user turn)."""
    first = next(i for i, m in enumerate(items) if m.get("role") == "user")
    rest = items[first + 1 :]
    if dialect != "responses" and rest and rest[0].get("role") == "user":
        rest = [{"role": "assistant", "content": "hm"}, *rest]
    return rest


SETTINGS = settings(
    max_examples=int(os.environ.get("ATTACK_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def ends_ok(dialect: Dialect, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if dialect == "anthropic" and (not items or items[0]["role"] != "assistant"):
        items = [{"role": "assistant", "content": "hm"}, *items]
    return items


@SETTINGS
@given(chat.history(), chat.history())
def test_openai_through_the_proxy(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    old, recent = strip_head("openai", a), strip_head("openai", b)
    asyncio.run(run("openai", [*old, {"role": "user", "content": "u"}], recent))


@SETTINGS
@given(anth.history(), anth.history())
def test_anthropic_through_the_proxy(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    old, recent = ends_ok("anthropic", strip_head("anthropic", a)), strip_head("anthropic", b)
    if recent and recent[0]["role"] == "user":
        recent = [{"role": "assistant", "content": "hm"}, *recent]
    asyncio.run(run("anthropic", [*old], recent))


@SETTINGS
@given(resp.items(), resp.items())
def test_responses_through_the_proxy(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    asyncio.run(run("responses", strip_head("responses", a), strip_head("responses", b)))

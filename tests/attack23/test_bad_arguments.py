"""A tool call whose arguments are not a JSON object (a model's truncated or broken
JSON, which the APIs accept back in a history) never turns compaction off."""

from __future__ import annotations

from typing import Any

import pytest

from contextfold_harness.fake_upstream import Upstream
from tests.attack23._harness import Dialect, check, open_proxy, words

BROKEN = ['{"path": "a.py', "not json at all", "[1, 2]", "null", '"a string"']


def chat_call(i: int, arguments: str) -> dict[str, Any]:
    call = {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def body_of(dialect: Dialect, arguments: str) -> dict[str, Any]:
    if dialect == "openai":
        items: list[dict[str, Any]] = [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "TASK: go"},
        ]
        for i in range(30):
            args = arguments if i in (2, 29) else "{}"
            items += [
                chat_call(i, args),
                {"role": "tool", "tool_call_id": f"c{i}", "content": words(i)},
            ]
        return {"model": "m", "messages": items}
    items = [{"role": "user", "content": "TASK: go"}]
    for i in range(30):
        args = arguments if i in (2, 29) else "{}"
        items += [
            {"type": "function_call", "call_id": f"c{i}", "name": "f", "arguments": args},
            {"type": "function_call_output", "call_id": f"c{i}", "output": words(i)},
        ]
    return {"model": "m", "input": items}


@pytest.mark.parametrize("dialect", ["openai", "responses"])
@pytest.mark.parametrize("arguments", BROKEN)
async def test_a_call_with_broken_arguments_does_not_turn_compaction_off(
    dialect: Dialect, arguments: str
) -> None:
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        body = body_of(dialect, arguments)
        reply = await proxy.post(dialect, body)
        assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
            "x-contextfold-error"
        )
        check(dialect, body, reply, proxy.sent, task=1 if dialect == "openai" else 0)
        key = "input" if dialect == "responses" else "messages"
        assert proxy.sent[key][-2] == body[key][-2]  # the broken call, kept as it came
    finally:
        await proxy.close()

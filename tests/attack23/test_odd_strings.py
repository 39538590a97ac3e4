"""Lone surrogates, NUL and deep nesting in content nobody models."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contextfold_harness.fake_upstream import Upstream
from tests.attack23._harness import Dialect, check, open_proxy, words

ODD = {"type": "mystery\u0000block", "note": "lone \ud83d half and \udc00", "nul": "a\u0000b"}


def nested(depth: int) -> Any:
    value: Any = "leaf words here"
    for _ in range(depth):
        value = {"k": value}
    return value


def body_of(dialect: Dialect, extra: dict[str, Any]) -> dict[str, Any]:
    if dialect == "anthropic":
        items: list[dict[str, Any]] = [{"role": "user", "content": "TASK: go"}]
        for i in range(30):
            use = {"type": "tool_use", "id": f"t{i}", "name": "f", "input": {}}
            res = {"type": "tool_result", "tool_use_id": f"t{i}", "content": words(i)}
            items += [
                {"role": "assistant", "content": [use]},
                {"role": "user", "content": [res, dict(extra)] if i in (3, 29) else [res]},
            ]
        return {"model": "m", "max_tokens": 5, "messages": items}
    if dialect == "openai":
        items = [{"role": "system", "content": "sys"}, {"role": "user", "content": "TASK: go"}]
        for i in range(30):
            call = {"id": f"t{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            items += [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {
                    "role": "tool",
                    "tool_call_id": f"t{i}",
                    "content": [
                        {"type": "text", "text": words(i)},
                        *([dict(extra)] if i in (3, 29) else []),
                    ],
                },
            ]
        return {"model": "m", "messages": items}
    items = [{"role": "user", "content": "TASK: go"}]
    for i in range(30):
        items += [
            {"type": "custom_tool_call", "call_id": f"t{i}", "name": "f", "input": "x"},
            {"type": "custom_tool_call_output", "call_id": f"t{i}", "output": words(i)},
        ]
        if i in (3, 29):
            items.append({**extra, "type": extra["type"] + "_call"})
    return {"model": "m", "input": items}


@pytest.mark.parametrize("dialect", ["anthropic", "openai", "responses"])
@pytest.mark.parametrize(
    "extra", [ODD, {"type": "deep", "payload": nested(90)}], ids=["odd", "deep"]
)
async def test_odd_unmodelled_content_is_carried_and_never_breaks_the_summarizer(
    dialect: Dialect, extra: dict[str, Any]
) -> None:
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        body = body_of(dialect, extra)
        raw = json.dumps(body).encode()  # lone surrogates as \\ud83d escapes
        reply = await proxy.post(dialect, raw)
        assert check(dialect, body, reply, proxy.sent, task=1 if dialect == "openai" else 0)
        for seen in upstream.summaries:
            seen.raw.decode("utf-8")  # strict: nothing unencodable reaches a provider
            assert "\\ud83d" not in seen.raw.decode()
        key = "input" if dialect == "responses" else "messages"
        assert json.dumps(proxy.sent[key][-1]) == json.dumps(body[key][-1])  # as it came
    finally:
        await proxy.close()

"""Hypothesis: OpenAI chat histories mixing content nobody models, everywhere."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.attack23._unit import unit_check

OPAQUE_PARTS = [
    {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
    {"type": "file", "file": {"file_id": "file-1"}},
    {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
    {"type": "weird\u0000part", "payload": {"deep": [1, 2, {"x": "\ud800"}]}},
]
TEXT_PART = {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}


@st.composite
def content(draw: Any, allow_none: bool = False) -> Any:
    kind = draw(st.sampled_from(["str", "parts", "none"] if allow_none else ["str", "parts"]))
    if kind == "none":
        return None
    if kind == "str":
        return draw(st.sampled_from(["plain text", "x"]))
    parts = draw(st.lists(st.sampled_from([TEXT_PART, *OPAQUE_PARTS]), min_size=1, max_size=3))
    return [dict(p) for p in parts]


@st.composite
def extras(draw: Any) -> dict[str, Any]:
    return draw(
        st.sampled_from([{}, {"name": "bob"}, {"x-extra": [1, {"a": None}]}, {"cache": 1.5}])
    )


@st.composite
def odd(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["unknown", "system", "developer"]))
    if kind == "unknown":
        return {
            "role": draw(st.sampled_from(["function_debug", "ipython", "critic"])),
            "content": "odd",
        }
    return {"role": kind, "content": draw(content()), **draw(extras())}


@st.composite
def history(draw: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "sys"}]
    out += draw(st.lists(odd(), max_size=2))
    out.append({"role": "user", "content": draw(content()), **draw(extras())})
    calls = 0
    for _ in range(draw(st.integers(1, 6))):
        shape = draw(st.sampled_from(["call", "answer", "user", "odd"]))
        last = out[-1]["role"]
        if shape == "odd":
            out.append(draw(odd()))
            continue
        if shape == "user" or (shape in ("call", "answer") and last == "assistant"):
            out.append({"role": "user", "content": draw(content()), **draw(extras())})
            if shape == "user":
                continue
        if shape == "answer":
            out.append({"role": "assistant", "content": draw(content()), **draw(extras())})
            continue
        n = draw(st.integers(1, 2))
        ids = [f"c{calls + k}" for k in range(n)]
        calls += n
        out.append(
            {
                "role": "assistant",
                "content": draw(content(allow_none=True)),
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                    if draw(st.booleans())
                    else {"id": i, "type": "custom", "custom": {"name": "g", "input": "x"}}
                    for i in ids
                ],
                **draw(extras()),
            }
        )
        if draw(st.booleans()):
            out.append(draw(odd()))
        for i in ids:
            out.append({"role": "tool", "tool_call_id": i, "content": draw(content())})
        if draw(st.booleans()):
            # a user message right after the tool messages: images, reminders, opaque parts
            out.append({"role": "user", "content": draw(content()), **draw(extras())})
        if draw(st.booleans()):
            out.append({"role": "assistant", "content": "answer", **draw(extras())})
    if out[-1]["role"] == "assistant":
        out.append({"role": "user", "content": "next"})
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(history())
def test_openai_histories_rebuild_byte_for_byte(messages: list[dict[str, Any]]) -> None:
    body = json.loads(json.dumps({"model": "m", "messages": messages}))
    unit_check("openai", body)

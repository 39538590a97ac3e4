"""Hypothesis: Anthropic Messages histories mixing blocks nobody models, everywhere."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.attack23._unit import unit_check

USER_BLOCKS = [
    {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
    {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}},
    {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
        "title": "t",
    },
    {
        "type": "search_result",
        "source": "s",
        "title": "t",
        "content": [{"type": "text", "text": "x"}],
    },
    {"type": "container_upload", "file_id": "f"},
]
ASSISTANT_BLOCKS = [
    {"type": "text", "text": "said", "citations": None},
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
    {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "t", "server_name": "s", "input": {}},
    {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False, "content": []},
]
RESULT_PARTS = [
    {"type": "text", "text": "res"},
    {
        "type": "search_result",
        "source": "s",
        "title": "t",
        "content": [{"type": "text", "text": "x"}],
    },
    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "d"}},
]


@st.composite
def user_content(draw: Any) -> Any:
    if draw(st.booleans()):
        return "user words"
    return [dict(b) for b in draw(st.lists(st.sampled_from(USER_BLOCKS), min_size=1, max_size=3))]


@st.composite
def odd(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["system", "system-blocks", "unknown"]))
    if kind == "system":
        return {"role": "system", "content": "a system note"}
    if kind == "system-blocks":
        return {
            "role": "system",
            "content": [{"type": "text", "text": "note", "cache_control": {"type": "ephemeral"}}],
        }
    return {"role": "critic", "content": [{"type": "text", "text": "hm"}], "weird": True}


@st.composite
def history(draw: Any) -> list[dict[str, Any]]:
    thinking = draw(st.booleans())
    out: list[dict[str, Any]] = []
    out.append({"role": "user", "content": draw(user_content())})
    n = 0
    for _ in range(draw(st.integers(1, 6))):
        shape = draw(st.sampled_from(["call", "answer", "odd"]))
        if shape == "odd":
            out.append(draw(odd()))
            continue
        lead = [{"type": "thinking", "thinking": "", "signature": f"sig{n}"}] if thinking else []
        if shape == "answer":
            blocks = [
                dict(b)
                for b in draw(st.lists(st.sampled_from(ASSISTANT_BLOCKS), min_size=1, max_size=3))
            ]
            out.append({"role": "assistant", "content": [*lead, *blocks]})
            out.append({"role": "user", "content": draw(user_content())})
            continue
        k = draw(st.integers(1, 2))
        ids = [f"toolu_{n + j}" for j in range(k)]
        n += k
        uses = [
            {"type": "tool_use", "id": i, "name": "f", "input": {"a": [1, {"b": None}]}}
            for i in ids
        ]
        extra = [dict(b) for b in draw(st.lists(st.sampled_from(ASSISTANT_BLOCKS), max_size=2))]
        out.append({"role": "assistant", "content": [*lead, *extra, *uses]})
        if draw(st.booleans()):
            out.append(draw(odd()))
        results: list[dict[str, Any]] = []
        for i in ids:
            if draw(st.booleans()):
                content: Any = "result"
            else:
                content = [
                    dict(p)
                    for p in draw(st.lists(st.sampled_from(RESULT_PARTS), min_size=1, max_size=3))
                ]
            results.append({"type": "tool_result", "tool_use_id": i, "content": content})
        tail = [dict(b) for b in draw(st.lists(st.sampled_from(USER_BLOCKS), max_size=2))]
        out.append({"role": "user", "content": [*results, *tail]})
    if out[-1]["role"] != "user":
        out.append({"role": "user", "content": "next"})
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    history(),
    st.sampled_from(
        [None, "sys", [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]]
    ),
)
def test_anthropic_histories_rebuild_byte_for_byte(
    messages: list[dict[str, Any]], system: Any
) -> None:
    body: dict[str, Any] = {"model": "m", "messages": messages}
    if system is not None:
        body["system"] = system
    unit_check("anthropic", json.loads(json.dumps(body)))

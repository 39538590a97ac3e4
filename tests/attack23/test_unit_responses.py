"""Hypothesis: Responses input lists mixing items nobody models, everywhere."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.attack23._unit import unit_check

PARTS = [
    {"type": "input_text", "text": "hi", "extra": 1},
    {"type": "input_image", "image_url": "https://x.test/a.png", "detail": "auto"},
    {"type": "input_file", "file_id": "file-1"},
    {"type": "input_audio", "data": "AA"},
]


@st.composite
def message(draw: Any, role: str) -> dict[str, Any]:
    if role == "assistant":
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": "msg_x",
            "status": "completed",
            "content": [{"type": "output_text", "text": "said", "annotations": []}],
        }
        return item
    if draw(st.booleans()):
        content: Any = "text of " + role
    else:
        content = [dict(p) for p in draw(st.lists(st.sampled_from(PARTS), min_size=1, max_size=3))]
    item = {"role": role, "content": content}
    if draw(st.booleans()):
        item["type"] = "message"
    return item


@st.composite
def call_pair(draw: Any, n: int) -> list[dict[str, Any]]:
    kind = draw(st.sampled_from(["function", "custom", "computer", "mcp", "local_shell"]))
    cid = f"call_{n}"
    if kind == "function":
        call = {
            "type": "function_call",
            "call_id": cid,
            "name": "f",
            "arguments": "{}",
            "id": f"fc_{n}",
        }
        out = {"type": "function_call_output", "call_id": cid, "output": "out"}
    elif kind == "custom":
        call = {
            "type": "custom_tool_call",
            "call_id": cid,
            "name": "apply_patch",
            "input": "*** patch",
            "id": f"ctc_{n}",
        }
        out = {"type": "custom_tool_call_output", "call_id": cid, "output": "done"}
    elif kind == "computer":
        call = {
            "type": "computer_call",
            "call_id": cid,
            "id": f"cu_{n}",
            "action": {"type": "click"},
            "pending_safety_checks": [],
            "status": "completed",
        }
        out = {
            "type": "computer_call_output",
            "call_id": cid,
            "output": {"type": "computer_screenshot", "image_url": "https://x.test/s.png"},
        }
    elif kind == "local_shell":
        call = {
            "type": "local_shell_call",
            "call_id": cid,
            "id": f"ls_{n}",
            "action": {"type": "exec", "command": ["ls"]},
            "status": "completed",
        }
        out = {"type": "local_shell_call_output", "id": f"ls_{n}", "call_id": cid, "output": "a b"}
    else:
        call = {
            "type": "mcp_approval_request",
            "id": f"mcpr_{n}",
            "name": "t",
            "arguments": "{}",
            "server_label": "s",
        }
        out = {"type": "mcp_approval_response", "approval_request_id": f"mcpr_{n}", "approve": True}
    return [call, out]


ASSISTANT_SIDE = [
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
    {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "q"},
    },
    {
        "type": "mcp_call",
        "id": "mcp_1",
        "name": "t",
        "arguments": "{}",
        "server_label": "s",
        "output": "o",
    },
    {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "AAAA"},
    {"type": "compaction", "id": "cmp_1", "encrypted_content": "zzz"},
]


@st.composite
def items(draw: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for role in draw(st.lists(st.sampled_from(["developer", "system", "critic"]), max_size=2)):
        out.append(draw(message(role)))
    out.append(draw(message("user")))
    n = 0
    for _ in range(draw(st.integers(1, 6))):
        shape = draw(st.sampled_from(["call", "answer", "user", "odd", "side"]))
        if shape == "user":
            out.append(draw(message("user")))
        elif shape == "odd":
            out.append(draw(message(draw(st.sampled_from(["developer", "critic"])))))
        elif shape == "side":
            out.append(dict(draw(st.sampled_from(ASSISTANT_SIDE))))
        elif shape == "answer":
            out.append(draw(message("assistant")))
        else:
            pairs = [draw(call_pair(n + k)) for k in range(draw(st.integers(1, 2)))]
            n += len(pairs)
            if draw(st.booleans()):
                out.append(dict(ASSISTANT_SIDE[0]))
            out += [p[0] for p in pairs]
            out += [p[1] for p in pairs]
            if draw(st.booleans()):
                out.append(draw(message("assistant")))
        if draw(st.booleans()):
            out.append(draw(message("user")))
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(items(), st.sampled_from([None, "Be careful."]))
def test_responses_inputs_rebuild_byte_for_byte(
    input_items: list[dict[str, Any]], instructions: str | None
) -> None:
    body: dict[str, Any] = {"model": "m", "input": input_items}
    if instructions:
        body["instructions"] = instructions
    unit_check("responses", json.loads(json.dumps(body)))

"""A kept message cut to fit keeps what was not cut."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contextfold_harness.fake_upstream import Upstream
from tests.attack23._harness import check, open_proxy, words


def anthropic(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": "TASK: read the files"}]
    for i in range(n):
        use = {"type": "tool_use", "id": f"t{i}", "name": "read", "input": {"n": i}}
        out.append({"role": "assistant", "content": [use]})
        result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": words(i)}
        out.append({"role": "user", "content": [result]})
    return out


@pytest.mark.xfail(
    strict=True,
    reason=(
        "a kept message whose tool result is cut to fit is written anew from the message "
        "model: its other blocks lose the fields the model does not carry (Claude Code's "
        "cache_control on the last block of the last message: the request misses the "
        "prompt cache)"
    ),
)
async def test_a_cut_tool_result_leaves_its_neighbours_byte_for_byte() -> None:
    reminder = {
        "type": "text",
        "text": "<system-reminder>keep going</system-reminder>",
        "cache_control": {"type": "ephemeral"},
    }
    big = {"type": "tool_result", "tool_use_id": "last", "content": "z " * 6_000}
    use = {"type": "tool_use", "id": "last", "name": "read", "input": {}}
    messages = [
        *anthropic(30),
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [big, reminder]},
    ]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        body = {"model": "m", "max_tokens": 5, "messages": messages}
        reply = await proxy.post("anthropic", body)
        assert reply.headers["x-contextfold-compacted"] == "true"
        last = proxy.sent["messages"][-1]["content"]
        assert len(json.dumps(last[0])) < len(json.dumps(big))  # the result was cut
        assert last[1] == reminder
    finally:
        await proxy.close()


async def test_an_image_in_an_anthropic_system_message_does_not_turn_compaction_off() -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }
    messages = anthropic(30)
    messages.insert(1, {"role": "system", "content": [{"type": "text", "text": "env"}, image]})
    messages += [{"role": "assistant", "content": "done"}, {"role": "user", "content": "next"}]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        body = {"model": "m", "max_tokens": 5, "messages": messages}
        reply = await proxy.post("anthropic", body)
        assert check("anthropic", body, reply, proxy.sent, task=0), reply.headers.get(
            "x-contextfold-error"
        )
    finally:
        await proxy.close()

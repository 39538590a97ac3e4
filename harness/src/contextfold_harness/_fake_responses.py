"""The OpenAI Responses API's JSON and SSE shapes, for the fake upstream.

:func:`output_items` builds what a model turn puts out (an optional reasoning item,
then a message or a function call); :func:`response_object` wraps them in a
response and :func:`response_events` streams them with the event types real
clients (the ``openai`` SDK's ``responses.stream``, the Agents SDK) parse:
``response.created``, ``response.in_progress``, ``response.output_item.added`` /
``.done``, ``response.content_part.added`` / ``.done``, ``response.output_text.delta``
/ ``.done``, ``response.function_call_arguments.delta`` / ``.done`` and
``response.completed`` (which carries the usage).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

__all__ = ["output_items", "response_events", "response_object", "wants_call"]


def wants_call(body: Mapping[str, Any], tool: str | None) -> bool:
    """Whether the fake should call function ``tool``: the request offers it, and its
    input does not end with a tool output (so the model answers after its call)."""
    if tool is None:
        return False
    tools = body.get("tools") or []
    offered = any(isinstance(t, Mapping) and t.get("name") == tool for t in tools)
    items = body.get("input")
    last = items[-1] if isinstance(items, list) and items else None
    answered = isinstance(last, Mapping) and last.get("type") == "function_call_output"
    return offered and not answered


def output_items(
    n: int, text: str, call: tuple[str, dict[str, Any]] | None, reasoning: bool
) -> list[dict[str, Any]]:
    """One turn's output items (ids made unique by ``n``): a call of ``call`` (name,
    arguments) or a message of ``text``, after a reasoning item when ``reasoning``."""
    items: list[dict[str, Any]] = []
    if reasoning:
        items.append(
            {
                "type": "reasoning",
                "id": f"rs_up{n}",
                "summary": [],
                "encrypted_content": f"enc-up{n}",
            }
        )
    if call is not None:
        name, arguments = call
        items.append(
            {
                "type": "function_call",
                "id": f"fc_up{n}",
                "call_id": f"call_up{n}",
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        )
    else:
        part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
        items.append(
            {
                "type": "message",
                "id": f"msg_up{n}",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    return items


def response_object(
    n: int, model: str, output: list[dict[str, Any]], tokens: int | None
) -> dict[str, Any]:
    """A response holding ``output``; ``tokens`` ``None``: in progress, no usage yet."""
    usage = None
    if tokens is not None:
        usage = {
            "input_tokens": tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tokens + 5,
        }
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": 0,
        "status": "in_progress" if tokens is None else "completed",
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "temperature": 1.0,
        "top_p": 1.0,
        "text": {"format": {"type": "text"}},
        "usage": usage,
    }


async def response_events(
    n: int,
    model: str,
    output: list[dict[str, Any]],
    tokens: int,
    gate: asyncio.Event | None = None,
) -> AsyncIterator[str]:
    """``output`` streamed (text word by word); ``gate`` holds ``response.completed``."""
    sequence = 0

    def event(kind: str, **fields: Any) -> str:
        nonlocal sequence
        sequence += 1
        payload = {"type": kind, "sequence_number": sequence, **fields}
        return f"event: {kind}\ndata: {json.dumps(payload)}\n\n"

    yield event("response.created", response=response_object(n, model, [], None))
    yield event("response.in_progress", response=response_object(n, model, [], None))
    for index, item in enumerate(output):
        for chunk in _item_events(index, item, event):
            yield chunk
    if gate is not None:
        await gate.wait()
    yield event("response.completed", response=response_object(n, model, output, tokens))


def _item_events(index: int, item: dict[str, Any], event: Any) -> list[str]:
    where = {"output_index": index, "item_id": item["id"]}
    if item["type"] == "message":
        text = item["content"][0]["text"]
        empty = {"type": "output_text", "text": "", "annotations": []}
        out = [
            event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            ),
            event("response.content_part.added", content_index=0, part=empty, **where),
        ]
        for i, word in enumerate(text.split(" ")):
            delta = word if i == 0 else " " + word
            out.append(
                event(
                    "response.output_text.delta",
                    content_index=0,
                    delta=delta,
                    logprobs=[],
                    **where,
                )
            )
        out.append(
            event("response.output_text.done", content_index=0, text=text, logprobs=[], **where)
        )
        part = {**empty, "text": text}
        out.append(event("response.content_part.done", content_index=0, part=part, **where))
    elif item["type"] == "function_call":
        added = {**item, "arguments": "", "status": "in_progress"}
        out = [
            event("response.output_item.added", output_index=index, item=added),
            event("response.function_call_arguments.delta", delta=item["arguments"], **where),
            event(
                "response.function_call_arguments.done",
                arguments=item["arguments"],
                name=item["name"],
                **where,
            ),
        ]
    else:
        out = [event("response.output_item.added", output_index=index, item=item)]
    out.append(event("response.output_item.done", output_index=index, item=item))
    return out

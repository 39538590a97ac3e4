"""Run by ``tests/test_install.py`` with the python of a fresh venv; prints one JSON report.

That venv holds the built wheel of contextfold and the oldest dependency versions
``pyproject.toml`` allows, and nothing else (no extras, no test tools). This script
imports the package and its transports, runs a tiny offline agent session that
compacts through the stub transport, summarizes through each SDK's real HTTP path
(an ``httpx2.MockTransport`` stands in for the network), round-trips a SQLite store,
and imports each optional module to record the error it raises without its extra.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import tempfile
from importlib.metadata import metadata, version
from pathlib import Path
from typing import Any

import httpx2

import contextfold
from contextfold import Agent, AutoCompactStore, MemoryContextStore, Message, ModelInfo
from contextfold.compaction import compact_context
from contextfold.testing import FunctionTransport, make_text_response
from contextfold.transports import AnthropicTransport, OpenAITransport

SUMMARY = "## Current state\nThe user listed twelve facts; all were acknowledged."


def _anthropic(request: httpx2.Request) -> httpx2.Response:
    assert request.url.path == "/v1/messages", request.url
    body = json.loads(request.content)
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [{"type": "text", "text": f"<summary>{SUMMARY} (anthropic)</summary>"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 300, "output_tokens": 20},
    }
    if not body.get("stream"):
        return httpx2.Response(200, json=message)
    start = {**message, "content": [], "stop_reason": None}
    events = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": message["content"][0]["text"]},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 20},
        },
        {"type": "message_stop"},
    ]
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(200, text=sse, headers={"content-type": "text/event-stream"})


def _openai(request: httpx2.Request) -> httpx2.Response:
    assert request.url.path.endswith("/chat/completions"), request.url
    return httpx2.Response(
        200,
        json={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": json.loads(request.content)["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": f"<summary>{SUMMARY} (openai)</summary>",
                    },
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320},
        },
    )


async def _stub_session() -> int:
    def reply(request: Any) -> Any:
        asked_to_summarize = "memory" in (request.system or "")
        return make_text_response(SUMMARY if asked_to_summarize else "Noted.")

    model = FunctionTransport(
        reply, model=ModelInfo("tiny", context_window=2_000, max_output_tokens=500)
    )
    store = AutoCompactStore(MemoryContextStore(), model, keep_recent=4)
    agent = Agent("You are a helpful assistant.", model)
    for turn in range(30):
        await agent.run(f"Fact {turn}: " + "lorem ipsum " * 20, store)
    return store.compactions


async def _through_the_sdks() -> dict[str, str]:
    history = [
        message
        for i in range(12)
        for message in (Message.user(f"fact {i}: " + "x" * 200), Message.assistant("noted"))
    ]
    transports = {
        "anthropic": AnthropicTransport(
            "claude-haiku-4-5",
            api_key="k-test",
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(_anthropic)),
        ),
        "openai": OpenAITransport(
            "gpt-4o-mini",
            api_key="k-test",
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(_openai)),
        ),
    }
    summaries = {}
    for name, transport in transports.items():
        try:
            compacted = await compact_context(history, transport, keep_recent=2)
        finally:
            await transport.aclose()
        assert compacted is not None
        summaries[name] = compacted[0].text
    return summaries


async def _sqlite_round_trip() -> int:
    from contextfold.sqlite import SQLiteContextStore, connect

    with tempfile.TemporaryDirectory() as folder:
        conn = await connect(Path(folder) / "check.db")
        try:
            store = SQLiteContextStore(conn, session_id="install-check")
            await store.append(Message.user("hello"))
            await store.append(Message.assistant("hi"))
            return len(await store.get_history())
        finally:
            await conn.close()


def _without_extras() -> dict[str, list[str]]:
    errors = {}
    for module in ("contextfold.postgres", "contextfold.redis", "contextfold.proxy"):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            errors[module] = [type(exc).__name__, str(exc)]
        else:
            errors[module] = ["imported", ""]
    return errors


async def main() -> None:
    dists = ("anthropic", "openai", "httpx2", "tenacity", "aiosqlite")
    meta = metadata("contextfold")
    report = {
        "python": sys.executable,
        "contextfold": contextfold.__file__,
        "versions": {dist: version(dist) for dist in dists},
        "stub_compactions": await _stub_session(),
        "sdk_summaries": await _through_the_sdks(),
        "sqlite_messages": await _sqlite_round_trip(),
        "without_extras": _without_extras(),
        "license": meta["License-Expression"],
        "urls": meta.get_all("Project-URL"),
    }
    print(json.dumps(report))


asyncio.run(main())

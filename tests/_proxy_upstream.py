"""Histories for the proxy tests and bench; the fake upstream itself ships in the package.

:class:`~contextfold_harness.fake_upstream.Upstream` (what ``contextfold fake-upstream``
serves) records every request, answers chat requests in each API's real JSON and SSE
shapes, recognizes the summarizer's requests by the built-in summary prompt, and can
be told to fail.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
from starlette.applications import Starlette

from contextfold.proxy import create_app
from contextfold_harness.fake_upstream import SUMMARY_PROMPT_START, Seen, Upstream, json_reply
from tests._faces import app_arguments

__all__ = [
    "SUMMARY_PROMPT_START",
    "ProxyApps",
    "Seen",
    "Upstream",
    "anthropic_history",
    "json_reply",
    "openai_history",
    "responses_history",
]


def openai_history(turns: int, chars: int = 800) -> list[dict[str, Any]]:
    """A system prompt and ``turns`` rounds: a user request, a tool call, its result, an answer."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}]
    for i in range(turns):
        out.append({"role": "user", "content": f"request {i}: " + "u" * chars})
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps({"n": i})},
                    }
                ],
            }
        )
        out.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "r" * chars})
        out.append({"role": "assistant", "content": f"answer {i}: " + "a" * (chars // 4)})
    out.append({"role": "user", "content": "what next?"})
    return out


def anthropic_history(turns: int, chars: int = 800) -> list[dict[str, Any]]:
    """The Anthropic shape of :func:`openai_history` (system goes in the top-level field)."""
    out: list[dict[str, Any]] = []
    for i in range(turns):
        out.append({"role": "user", "content": f"request {i}: " + "u" * chars})
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": "read_file", "input": {"n": i}}
        out.append({"role": "assistant", "content": [use]})
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "r" * chars}
        out.append({"role": "user", "content": [result]})
        out.append({"role": "assistant", "content": f"answer {i}: " + "a" * (chars // 4)})
    out.append({"role": "user", "content": "what next?"})
    return out


def responses_history(turns: int, chars: int = 800) -> list[dict[str, Any]]:
    """The Responses ``input`` shape of :func:`openai_history` (the system prompt goes in
    ``instructions``), as a client that replays output items sends it: each call led
    by a reasoning item with ``encrypted_content``, items with their ids and statuses."""
    out: list[dict[str, Any]] = []
    for i in range(turns):
        out.append({"role": "user", "content": f"request {i}: " + "u" * chars})
        out.append(
            {"type": "reasoning", "id": f"rs_{i}", "summary": [], "encrypted_content": f"enc-{i}"}
        )
        out.append(
            {
                "type": "function_call",
                "id": f"fc_{i}",
                "call_id": f"call_{i}",
                "name": "read_file",
                "arguments": json.dumps({"n": i}),
                "status": "completed",
            }
        )
        out.append({"type": "function_call_output", "call_id": f"call_{i}", "output": "r" * chars})
        text = f"answer {i}: " + "a" * (chars // 4)
        out.append(
            {
                "type": "message",
                "id": f"msg_{i}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    out.append({"role": "user", "content": "what next?"})
    return out


class ProxyApps:
    """Proxy apps in front of ``upstream``, in process: each made by
    :func:`~contextfold.proxy.create_app` with the settings given and a client of its
    own on ``upstream``, its lifespan entered; :meth:`close` ends them all, newest first.
    """

    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream
        self._open: list[tuple[Any, httpx2.AsyncClient]] = []

    def __len__(self) -> int:
        return len(self._open)

    async def make(self, **settings: Any) -> Starlette:
        """An app with ``settings`` (an ``http_client`` among them replaces its own)."""
        client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=self.upstream.app()))
        app = create_app(**app_arguments(**{"http_client": client, **settings}))
        lifespan = app.router.lifespan_context(app)
        await lifespan.__aenter__()
        self._open.append((lifespan, client))
        return app

    async def close(self) -> None:
        for lifespan, client in reversed(self._open):
            await lifespan.__aexit__(None, None, None)
            await client.aclose()
        self._open.clear()

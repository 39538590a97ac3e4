"""Windows of models the registry does not know (issue 23, item 7): learnt from the
upstream's model list, widened by Anthropic's 1M beta, warned about once otherwise."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from contextfold.proxy import create_app
from contextfold.proxy._windows import window_of
from contextfold.transports.base import lookup_model
from tests._faces import app_arguments
from tests._proxy_upstream import anthropic_history, openai_history


class ModelList:
    """An OpenAI-compatible server that lists its models with their windows."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        self.listed: list[dict[str, str]] = []
        self.chats: list[Any] = []

    def app(self) -> Starlette:
        async def models(request: Request) -> Response:
            self.listed.append(dict(request.headers))
            return JSONResponse({"object": "list", "data": self.entries})

        async def chat(request: Request) -> Response:
            body = json.loads(await request.body())
            self.chats.append(body)
            usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
            if request.url.path.endswith("/messages"):
                usage = {"input_tokens": 10, "output_tokens": 1}
                return JSONResponse(
                    {
                        "id": "m",
                        "type": "message",
                        "role": "assistant",
                        "model": body["model"],
                        "content": [{"type": "text", "text": "ok"}],
                        "stop_reason": "end_turn",
                        "usage": usage,
                    }
                )
            summarizing = "memory of a long-running" in json.dumps(body["messages"][:1])
            text = "<summary>read_file ran for each request.</summary>" if summarizing else "ok"
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return JSONResponse({"id": "c", "object": "chat.completion", "choices": [choice]})

        return Starlette(
            routes=[
                Route("/v1/models", models),
                Route("/v1/chat/completions", chat, methods=["POST"]),
                Route("/v1/messages", chat, methods=["POST"]),
            ]
        )


@pytest.fixture
async def served() -> AsyncIterator[Any]:
    opened: list[Any] = []

    async def make(upstream: ModelList, **settings: Any) -> httpx2.AsyncClient:
        http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=upstream.app()))
        app = create_app(
            **app_arguments(
                upstream_openai="http://upstream.test/v1",
                upstream_anthropic="http://upstream.test",
                http_client=http,
                **settings,
            )
        )
        context = app.router.lifespan_context(app)
        await context.__aenter__()
        opened.append(context)
        return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://p")

    yield make
    for context in opened:
        await context.__aexit__(None, None, None)


async def settled(client: httpx2.AsyncClient) -> None:
    """Let the proxy's background model-list lookups finish."""
    app = client._transport.app  # type: ignore[attr-defined]
    tasks = list(app.state.forwarder.windows._tasks)
    if tasks:
        await asyncio.wait(tasks)


@pytest.mark.parametrize(
    ("entry", "window"),
    [
        ({"id": "m", "context_length": 8192}, 8192),  # OpenRouter, Together, LM Studio
        ({"id": "m", "max_model_len": 32768}, 32768),  # vLLM
        ({"id": "m", "context_window": 131072}, 131072),  # Groq
        ({"id": "m", "meta": {"n_ctx_train": 4096}}, 4096),  # llama.cpp's server
        ({"id": "m", "top_provider": {"context_length": 65536}}, 65536),  # OpenRouter
        ({"id": "m", "max_input_tokens": 200000}, 200000),
        ({"id": "m", "owned_by": "me"}, None),  # Ollama reports none
        ({"id": "m", "context_length": True}, None),
    ],
)
def test_the_windows_model_lists_report_are_read(entry: dict[str, Any], window: int | None) -> None:
    assert window_of(entry) == window


async def test_an_unknown_models_window_is_learnt_from_the_upstreams_model_list(
    served: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # On today's main an unknown model silently got 128,000 tokens: this 8,192-token
    # local model was never compacted.
    upstream = ModelList([{"id": "other"}, {"id": "local-llama", "context_length": 8192}])
    client = await served(upstream)
    headers = {"authorization": "Bearer sk-local-1"}
    body = {"model": "local-llama", "messages": openai_history(1)}
    with caplog.at_level(logging.WARNING, logger="contextfold"):
        reply = await client.post("/v1/chat/completions", json=body, headers=headers)
        assert reply.status_code == 200
        await settled(client)
        # asked once, with the caller's own credentials
        assert len(upstream.listed) == 1
        assert upstream.listed[0]["authorization"] == "Bearer sk-local-1"
        app = client._transport.app  # type: ignore[attr-defined]
        # 8,192 tokens, half of them kept for the answer (no output limit is known)
        tenant = app.state.forwarder.tenant(headers)
        assert app.state.forwarder.planner.limit("local-llama", tenant) == 4096
        # a long conversation is now compacted for that window
        long = {"model": "local-llama", "messages": openai_history(12)}
        reply = await client.post("/v1/chat/completions", json=long, headers=headers)
        assert int(reply.headers["x-contextfold-tokens-before"]) > 4096
        assert reply.headers["x-contextfold-compacted"] == "true"
        assert len(upstream.listed) == 1  # not asked again
    warned = [r for r in caplog.records if "local-llama" in r.getMessage()]
    assert len(warned) == 1  # assumed 128,000 until the list answered, said once


async def test_an_unknown_model_nobody_reports_is_warned_about_once(
    served: Any, caplog: pytest.LogCaptureFixture
) -> None:
    client = await served(ModelList([]))
    body = {"model": "mystery-model", "messages": openai_history(1)}
    with caplog.at_level(logging.WARNING, logger="contextfold"):
        for _ in range(3):
            await client.post("/v1/chat/completions", json=body, headers={"authorization": "k"})
        await settled(client)
    warned = [r for r in caplog.records if "mystery-model" in r.getMessage()]
    assert len(warned) == 1
    message = warned[0].getMessage()
    assert warned[0].levelno == logging.WARNING
    assert "128,000" in message
    assert "--context-window" in message
    assert '[models."mystery-model"]' in message


async def test_a_configured_window_is_not_asked_for(served: Any) -> None:
    upstream = ModelList([{"id": "local-llama", "context_length": 8192}])
    client = await served(upstream, models={"local-llama": {"context_window": 16384}})
    body = {"model": "local-llama", "messages": openai_history(1)}
    await client.post("/v1/chat/completions", json=body, headers={"authorization": "k"})
    await settled(client)
    assert upstream.listed == []


def test_the_registry_knows_the_agents_sdks_default_model() -> None:
    # The Agents SDK 0.24 defaults to gpt-5.6-luna; today's main fell back to 128,000.
    assert lookup_model("gpt-5.6-luna").context_window == 1_050_000
    assert lookup_model("gpt-5.6-terra").max_output_tokens == 128_000


@pytest.mark.parametrize("beta", [True, False])
async def test_anthropics_1m_beta_widens_the_window_for_that_request(
    served: Any, beta: bool
) -> None:
    # claude-opus-4-5 has 200,000 tokens: ~160,000 tokens are over
    # its limit, and far under with the beta header. Today's main ignored the header.
    client = await served(ModelList([]))
    history = anthropic_history(40, chars=15_000)
    body = {"model": "claude-opus-4-5", "max_tokens": 100, "messages": history}
    headers = {"x-api-key": "sk-ant-k", "anthropic-version": "2023-06-01"}
    if beta:
        headers["anthropic-beta"] = "context-1m-2025-08-07"
    reply = await client.post("/v1/messages", json=body, headers=headers)
    assert reply.status_code == 200
    tokens = int(reply.headers["x-contextfold-tokens-before"])
    assert 136_000 < tokens < 500_000
    if beta:
        assert reply.headers["x-contextfold-compacted"] == "false"
        assert "x-contextfold-error" not in reply.headers
    else:  # over the limit: compaction was attempted (the fake cannot summarize)
        assert reply.headers["x-contextfold-compacted"] == "true" or (
            "x-contextfold-error" in reply.headers
        )

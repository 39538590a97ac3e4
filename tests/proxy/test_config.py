"""Per-model settings: a model's window, threshold, keep_recent and summary model reach
the proxy's decisions (stock SDK client -> proxy -> fake upstream, in-process)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from contextfold.proxy import ModelSettings, create_app
from contextfold.proxy._config import ModelTable
from tests._proxy_upstream import (
    SUMMARY_PROMPT_START,
    ProxyApps,
    Upstream,
    json_reply,
    openai_history,
)

KEY = "sk-test-CONFIG-DISTINCTIVE-5e6f7a8b9c"
LOCAL = "local-coder"  # a model the registry does not know (128,000 by default)
WINDOW = 32_768

MakeApp = Callable[..., Awaitable[Starlette]]


class SmallServer(Upstream):
    """A local model server with a 32k window: a prompt over it is refused with the
    error a llama.cpp / vLLM OpenAI-compatible server gives (summaries are written
    by another, larger model and always pass)."""

    def __init__(self, window: int) -> None:
        super().__init__()
        self.window = window
        self.prompts: list[int] = []

    async def openai(self, request: Request) -> Response:
        body = json.loads(await request.body())
        system = body["messages"][0].get("content") or ""
        if not str(system).startswith(SUMMARY_PROMPT_START):
            tokens = self._prompt_tokens(body)
            self.prompts.append(tokens)
            if tokens > self.window:
                error = {
                    "message": f"This model's maximum context length is {self.window} tokens. "
                    f"However, your messages resulted in {tokens} tokens.",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
                return json_reply({"error": error}, status_code=400)
        return await super().openai(request)


@pytest.fixture
def upstream() -> SmallServer:
    return SmallServer(WINDOW)


@pytest.fixture
async def make_app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[MakeApp]:
    apps = ProxyApps(upstream)

    async def make(**overrides: Any) -> Starlette:
        return await apps.make(
            **{
                "upstream_openai": "http://upstream.test/v1",
                "upstream_anthropic": "http://upstream.test",
                "db": tmp_path / f"proxy{len(apps)}.db",
                "summary_max_retries": 0,
                **overrides,
            }
        )

    yield make
    await apps.close()


def client_of(app: Starlette) -> openai.AsyncOpenAI:
    http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy")
    return openai.AsyncOpenAI(
        api_key=KEY, base_url="http://proxy/v1", http_client=http, max_retries=0
    )


async def session(app: Starlette, model: str, turns: int) -> list[int]:
    """An agent session of ``turns`` turns resending its growing history; the status
    of every turn (the first refusal ends it). Sent as the SDK sends it, without the
    SDK: its request transform cost 40 ms a turn, most of this module's time."""
    statuses: list[int] = []
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy") as client:
        for turn in range(1, turns + 1):
            body = {"model": model, "messages": openai_history(turn, chars=2_000)}
            reply = await client.post(
                "/v1/chat/completions",
                content=json.dumps(body),
                headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"},
            )
            statuses.append(reply.status_code)
            if reply.status_code != 200:
                break
    return statuses


# -- a local 32k model -------------------------------------------------------------------


async def test_without_a_window_a_local_32k_model_overflows(
    make_app: MakeApp, upstream: SmallServer
) -> None:
    """The failure the operator reported: the registry's 128k default lets the history
    grow past the server's real window, and the server refuses the request. The
    proxy now recovers (a forced compaction and one retry), but only after the
    upstream refused a prompt: the window still has to be configured."""
    statuses = await session(await make_app(), LOCAL, 40)
    assert statuses == [200] * 40  # recovered by the overflow retry
    assert max(upstream.prompts) > WINDOW  # ... after the server refused a prompt
    assert upstream.summaries


@pytest.mark.parametrize(
    ("model", "settings"),
    [
        (LOCAL, {"context_window": WINDOW}),
        (LOCAL, {"models": {LOCAL: {"context_window": WINDOW}}}),
        (LOCAL, {"models": {LOCAL: ModelSettings(context_window=WINDOW)}}),
        (f"{LOCAL}-2026-01-15", {"models": {LOCAL: {"context_window": WINDOW}}}),
        (LOCAL, {"models": {LOCAL: {"context_window": WINDOW, "max_output_tokens": 4_096}}}),
    ],
    ids=["proxy-wide", "table", "settings", "dated-snapshot", "with-output-limit"],
)
async def test_a_configured_32k_model_compacts_before_it_overflows(
    make_app: MakeApp, upstream: SmallServer, model: str, settings: dict[str, Any]
) -> None:
    statuses = await session(await make_app(**settings), model, 40)
    assert statuses == [200] * 40
    assert upstream.summaries, "the history was never compacted"
    assert max(upstream.prompts) <= WINDOW
    # and it compacted at the configured limit, not at the registry's 128k
    assert max(upstream.prompts) <= int(0.75 * WINDOW) + 2_000


async def test_a_model_table_applies_to_its_model_only(
    make_app: MakeApp, upstream: SmallServer
) -> None:
    app = await make_app(models={LOCAL: {"context_window": WINDOW}})
    assert await session(app, LOCAL, 40) == [200] * 40
    assert max(upstream.prompts) <= WINDOW  # never refused
    await session(app, "other-local-model", 40)
    assert max(upstream.prompts) > WINDOW  # the other model's prompt grew past it


# -- threshold, keep_recent, summary model per model ---------------------------------------


async def test_per_model_threshold_keep_recent_and_summary_model(
    make_app: MakeApp, upstream: SmallServer
) -> None:
    tight = {"threshold": 0.25, "keep_recent": 3, "summary_model": "summarizer-1"}
    app = await make_app(context_window=WINDOW, summary_model="proxy-wide", models={"tight": tight})
    client = client_of(app)
    history = openai_history(10, chars=2_000)  # ~12k tokens: over 25% of 32k, under 75%
    loose = await client.chat.completions.with_raw_response.create(model="loose", messages=history)
    assert loose.headers["x-contextfold-compacted"] == "false"
    assert not upstream.summaries
    raw = await client.chat.completions.with_raw_response.create(model="tight", messages=history)
    assert raw.headers["x-contextfold-compacted"] == "true"
    assert [s.json["model"] for s in upstream.summaries] == ["summarizer-1"]
    forwarded = upstream.chats[-1].json["messages"]
    # system, summary, acknowledgement, then about keep_recent=3 recent messages
    # (the cut moves to keep a tool call with its result)
    assert 3 <= len(forwarded) - 3 <= 5
    assert len(forwarded) < len(history)


async def test_the_proxy_wide_summary_model_serves_models_without_their_own(
    make_app: MakeApp, upstream: SmallServer
) -> None:
    app = await make_app(context_window=WINDOW, threshold=0.25, summary_model="proxy-wide")
    await client_of(app).chat.completions.create(
        model=LOCAL, messages=openai_history(10, chars=2_000)
    )
    assert [s.json["model"] for s in upstream.summaries] == ["proxy-wide"]


# -- resolution ------------------------------------------------------------------------


def table(**models: dict[str, Any]) -> ModelTable:
    return ModelTable(models, context_window=None, threshold=0.75, keep_recent=6)


def test_a_model_table_wins_field_by_field_over_the_proxy_wide_values() -> None:
    models = ModelTable(
        {"m": {"threshold": 0.5}},
        context_window=50_000,
        threshold=0.8,
        keep_recent=4,
        summary_model="s",
    )
    got = models.resolve("m-2025-01-01")
    assert (got.info.context_window, got.threshold, got.keep_recent) == (50_000, 0.5, 4)
    assert got.summary_model == "s"
    assert got.limit == int(0.5 * 50_000)
    other = models.resolve("n")
    assert (other.threshold, other.limit) == (0.8, 40_000)


def test_the_longest_matching_table_name_wins_and_needs_a_dash_boundary() -> None:
    models = table(**{"q": {"context_window": 8_192}, "q-long": {"context_window": 65_536}})
    assert models.resolve("q-long-v2").info.context_window == 65_536
    assert models.resolve("q-7b").info.context_window == 8_192
    assert models.resolve("qx").info.context_window == 128_000  # registry default


def test_registry_models_keep_their_numbers_unless_told() -> None:
    models = table(**{"gpt-4o": {"threshold": 0.5}})
    got = models.resolve("gpt-4o-2024-08-06")
    assert (got.info.context_window, got.info.max_output_tokens) == (128_000, 16_384)
    assert got.limit == 64_000
    # the limit never goes above window - max output
    assert table(**{"gpt-4o": {"threshold": 1.0}}).limit("gpt-4o") == 128_000 - 16_384


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"context_window": 100}, "context_window must be an int >= 1024"),
        ({"context_window": "32k"}, "context_window must be an int >= 1024"),
        ({"threshold": 0}, r"threshold must be a number in \(0, 1\]"),
        ({"threshold": 1.5}, r"threshold must be a number in \(0, 1\]"),
        ({"keep_recent": 0}, "keep_recent must be an int >= 1"),
        ({"summary_model": ""}, "summary_model must be a model name"),
        ({"context_window": 4_096, "max_output_tokens": 8_192}, "must be smaller"),
        ({"max_output_tokens": 200_000}, "must be smaller"),  # than the registry's 128k
        ({"window": 4_096}, "unknown model setting"),
    ],
)
async def test_bad_model_settings_are_refused_when_the_app_is_made(
    settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        create_app(models={LOCAL: settings})


@pytest.mark.parametrize("models", ["m", [("m", {})], {"": {}}, {"m": 5}])
def test_a_malformed_models_argument_is_refused(models: Any) -> None:
    with pytest.raises(ValueError, match="model"):
        create_app(models=models)

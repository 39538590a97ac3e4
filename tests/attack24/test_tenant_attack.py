"""Attack 24: what one tenant's requests could still do to another's."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from contextfold.proxy import create_app
from contextfold.proxy._tenant import Tenants
from tests._proxy_upstream import ProxyApps, Upstream, openai_history
from tests.proxy.test_tenants import SUMMARIZING, grown, make, post

SHARED_KEY = "sk-test-ATTACK24-SHARED-PROVIDER-KEY-1"
GOOD = "sk-test-ATTACK24-GOOD-KEY-4f4f4f4f"


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def apps(upstream: Upstream) -> AsyncIterator[ProxyApps]:
    made = ProxyApps(upstream)
    yield made
    await made.close()


async def test_users_told_apart_only_by_a_secret_header_are_two_tenants(
    apps: ProxyApps, upstream: Upstream
) -> None:
    # Impact: behind a gateway whose users authenticate with their own key header
    # (secret_headers, "credentials too") over one shared provider key, every user was
    # one tenant: user 2 got user 1's summary ("cached") for a conversation prefix
    # user 1 sent, which tells user 2 what user 1 sent, and splices user 1's words.
    app = await make(apps, None, secret_headers=["x-gateway-key"], **SUMMARIZING)
    history = openai_history(12)
    made = await post(app, history, SHARED_KEY, **{"x-gateway-key": "gw-user-1-aaaaaaaa"})
    assert made.headers["x-contextfold-summary"] == "created"
    other = await post(app, grown(history), SHARED_KEY, **{"x-gateway-key": "gw-user-2-bbbbbbbb"})
    assert other.headers["x-contextfold-summary"] == "created"
    same = await post(app, grown(history), SHARED_KEY, **{"X-Gateway-Key": "gw-user-1-aaaaaaaa"})
    assert same.headers["x-contextfold-summary"] == "cached"


def test_secret_headers_are_credentials_in_the_tenant_key() -> None:
    plain = Tenants(b"s" * 32)
    gated = Tenants(b"s" * 32, secret_headers=["X-Gateway-Key", "authorization"])
    one = {"authorization": f"Bearer {SHARED_KEY}", "x-gateway-key": "u1"}
    two = {"authorization": f"Bearer {SHARED_KEY}", "x-gateway-key": "u2"}
    assert plain.of(one) == plain.of(two)  # not named: not a credential
    assert gated.of(one) != gated.of(two)
    assert gated.of(one) == gated.of({**one, "x-gateway-key": " u1 "})
    # a named header that is a credential already counts once, as before
    assert Tenants(b"s" * 32, secret_headers=["authorization"]).of(one) == plain.of(one)


class GuardedModelList:
    """An OpenAI-compatible server whose model list wants a good key."""

    def __init__(self) -> None:
        self.listed: list[str] = []

    def app(self) -> Starlette:
        async def models(request: Request) -> Response:
            auth = request.headers.get("authorization", "")
            self.listed.append(auth)
            if auth != f"Bearer {GOOD}":
                return JSONResponse({"error": {"message": "bad key"}}, status_code=401)
            return JSONResponse({"data": [{"id": "local-llama", "context_length": 8192}]})

        async def chat(request: Request) -> Response:
            await request.body()
            message = {"role": "assistant", "content": "ok"}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return JSONResponse({"id": "c", "object": "chat.completion", "choices": [choice]})

        return Starlette(
            routes=[
                Route("/v1/models", models),
                Route("/v1/chat/completions", chat, methods=["POST"]),
            ]
        )


@pytest.fixture
async def guarded() -> AsyncIterator[tuple[GuardedModelList, Starlette]]:
    upstream = GuardedModelList()
    http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=upstream.app()))
    app = create_app(
        upstream_openai="http://upstream.test/v1",
        upstream_anthropic="http://upstream.test",
        http_client=http,
    )
    context = app.router.lifespan_context(app)
    await context.__aenter__()
    yield upstream, app
    await context.__aexit__(None, None, None)
    await http.aclose()


async def chat(app: Starlette, model: str, headers: dict[str, str]) -> httpx2.Response:
    body = {"model": model, "messages": openai_history(1)}
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test"
    ) as client:
        reply = await client.post("/v1/chat/completions", content=json.dumps(body), headers=headers)
    tasks = list(app.state.forwarder.windows._tasks)
    if tasks:
        await asyncio.wait(tasks)
    return reply


@pytest.mark.parametrize("first", [{}, {"authorization": "Bearer sk-test-wrong-key-000000"}])
async def test_a_refused_model_list_lookup_does_not_keep_other_tenants_from_the_window(
    guarded: tuple[GuardedModelList, Starlette], first: dict[str, str]
) -> None:
    # Impact: the first request naming a model decided for every tenant: one without
    # credentials (or with a wrong key) got a 401 from the model list, the model was
    # never asked again, and every tenant's requests of it were held to the 128,000
    # tokens assumed (an 8,192-token model: never compacted before it overflowed).
    upstream, app = guarded
    await chat(app, "local-llama", first)
    assert upstream.listed == [first.get("authorization", "")]
    good = {"authorization": f"Bearer {GOOD}"}
    await chat(app, "local-llama", good)
    planner = app.state.forwarder.planner
    assert planner.limit("local-llama", app.state.forwarder.tenant(good)) == 4096
    await chat(app, "local-llama", first)
    assert upstream.listed[1:] == [f"Bearer {GOOD}"]  # learnt: asked no more


async def test_a_model_name_of_megabytes_is_not_kept_by_the_window_lookups(
    guarded: tuple[GuardedModelList, Starlette],
) -> None:
    # Impact: every distinct model name was kept whole in the lookups' memory (1,024
    # of them, each up to max_body_bytes: 32 GiB at the defaults), from requests
    # without credentials; 20 names of 1 MB held 20 MB after their requests.
    upstream, app = guarded
    for i in range(5):
        reply = await chat(app, f"m{i}-" + "x" * 1_000_000, {})
        assert reply.status_code == 200
    asked: Any = app.state.forwarder.windows._asked
    assert sum(len(name) for name in asked) < 10_000
    assert upstream.listed == []

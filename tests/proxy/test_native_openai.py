"""OpenAI's compaction API (``POST /v1/responses/compact``) served for every upstream
(issue 26, item 1 and 3), through the stock ``openai`` SDK.

On today's main ``client.responses.compact(...)`` through the proxy got the upstream's
404 from a server without the endpoint; these tests fail there. The proxy now answers
it itself (``native_compaction`` ``"auto"`` or ``"emulate"``), with a compaction item
of its own that later requests expand into the summary; in front of the provider's
own host (or with ``"pass"``) everything reaches the upstream untouched.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from starlette.applications import Starlette

from contextfold.proxy import ModelSettings
from tests._proxy_upstream import ProxyApps, Upstream
from tests._raw_http import Served

KEY = "sk-test-NATIVE-compaction-5e4d3c2b1a"
OTHER_KEY = "sk-test-NATIVE-another-tenant-9f8e7d"
MODEL = "local-model"


def conversation(turns: int = 4) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for n in range(turns):
        items.append({"role": "user", "content": f"Fix bug #{n} in src/mod{n}.py"})
        items.append(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"Fixed bug #{n}: " + "x" * 200}],
            }
        )
    return items


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def apps(upstream: Upstream) -> AsyncIterator[ProxyApps]:
    made = ProxyApps(upstream)
    yield made
    await made.close()


@pytest.fixture
async def app(apps: ProxyApps, tmp_path: Path) -> Starlette:
    return await apps.make(
        upstream_openai="http://upstream.test/v1", db=tmp_path / "proxy.db", summary_max_retries=0
    )


def client_for(app: Starlette, key: str = KEY) -> openai.AsyncOpenAI:
    local = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app))
    return openai.AsyncOpenAI(
        api_key=key, base_url="http://proxy.test/v1", http_client=local, max_retries=0
    )


def last_input(upstream: Upstream) -> Any:
    """The ``input`` of the last Responses request the upstream got."""
    return [s for s in upstream.chats if s.path == "/v1/responses"][-1].json["input"]


def as_input(items: list[Any]) -> list[dict[str, Any]]:
    return [i.model_dump(exclude_none=True, warnings=False) for i in items]


async def test_compact_is_answered_by_the_proxy_for_an_upstream_without_it(
    app: Starlette, upstream: Upstream
) -> None:
    client = client_for(app)
    history = conversation()
    compacted = await client.responses.compact(model=MODEL, input=history)
    assert compacted.object == "response.compaction"
    *users, item = compacted.output
    assert item.type == "compaction"
    assert item.encrypted_content.startswith("cfc1.")
    # the user's messages, as sent, then the item
    assert [u.model_dump(warnings=False)["content"][0]["text"] for u in users] == [
        m["content"] for m in history if m["role"] == "user"
    ]
    assert compacted.usage.output_tokens > 0
    # one summary request, written by the upstream's model; the endpoint never reached
    assert len(upstream.summaries) == 1
    assert not [s for s in upstream.seen if s.path.endswith("/compact")]
    summarized = json.dumps(upstream.summaries[0].json)
    assert "Fix bug #3 in src/mod3.py" in summarized


async def test_an_emulated_compaction_restores_the_facts_its_summary_left_out(
    app: Starlette, upstream: Upstream
) -> None:
    """The summary the upstream writes ("SUMMARY-1") names no fact; the fact ledger
    restores the ticket id and the user's correction after it, in the item the later
    request expands."""
    client = client_for(app)
    history = [
        {"role": "user", "content": "Deploy service-a for ticket OPS-7731 to production."},
        {"role": "assistant", "content": "Deploying service-a now."},
        {"role": "user", "content": "Scratch that: deploy to staging first, never to prod."},
        {"role": "assistant", "content": "Understood, staging first."},
    ]
    compacted = await client.responses.compact(model=MODEL, input=history)
    follow = [*as_input(compacted.output), {"role": "user", "content": "go on"}]
    await client.responses.create(model=MODEL, input=follow)
    texts = json.dumps(last_input(upstream))
    assert "SUMMARY-1" in texts
    assert "OPS-7731" in texts
    assert "Scratch that: deploy to staging first, never to prod." in texts
    assert "<ledger>" in texts
    metrics = (await client_for(app)._client.get("http://proxy.test/metrics")).text
    assert 'contextfold_proxy_summary_facts_total{result="restored"} ' in metrics
    assert 'contextfold_proxy_summary_facts_total{result="restored"} 0' not in metrics


async def test_a_later_request_gets_the_summary_in_the_items_place(
    app: Starlette, upstream: Upstream
) -> None:
    client = client_for(app)
    compacted = await client.responses.compact(model=MODEL, input=conversation())
    follow = [*as_input(compacted.output), {"role": "user", "content": "now run the tests"}]
    reply = await client.responses.create(model=MODEL, input=follow)
    assert reply.output_text
    sent = last_input(upstream)
    assert not [i for i in sent if isinstance(i, dict) and i.get("type") == "compaction"]
    texts = json.dumps(sent)
    assert "SUMMARY-1" in texts  # the summary the upstream wrote, in a user message
    assert "now run the tests" in texts
    # streamed alike
    stream = await client.responses.create(model=MODEL, input=follow, stream=True)
    events = [event.type async for event in stream]
    assert "response.completed" in events
    assert "SUMMARY-1" in json.dumps(last_input(upstream))


async def test_compacting_again_updates_the_summary(app: Starlette, upstream: Upstream) -> None:
    client = client_for(app)
    first = await client.responses.compact(model=MODEL, input=conversation())
    more = [*as_input(first.output), *conversation(2)]
    second = await client.responses.compact(model=MODEL, input=more)
    assert second.output[-1].type == "compaction"
    assert len(upstream.summaries) == 2
    # an update of the first summary with what followed, not a summary of a summary
    system = json.dumps(upstream.summaries[1].json)
    assert "summarized before" in system
    follow = [*as_input(second.output), {"role": "user", "content": "go on"}]
    await client.responses.create(model=MODEL, input=follow)
    assert "SUMMARY-2 (update)" in json.dumps(last_input(upstream))


def _tampered(token: str) -> list[str]:
    body, _, mac = token.rpartition(".")
    flipped = body[:-3] + ("A" if body[-3] != "A" else "B") + body[-2:]
    return [
        f"{flipped}.{mac}",  # forged content
        token[: len(token) // 2],  # truncated
        token[:-4],  # a truncated signature
        "cfc1.",  # empty
        "cfc1.!!!.###",  # not base64
    ]


async def test_forged_truncated_and_foreign_items_are_refused(
    app: Starlette, apps: ProxyApps, upstream: Upstream, tmp_path: Path
) -> None:
    client = client_for(app)
    compacted = await client.responses.compact(model=MODEL, input=conversation())
    token = compacted.output[-1].encrypted_content
    chats = len([s for s in upstream.chats if s.path == "/v1/responses"])
    for bad in _tampered(token):
        item = {"type": "compaction", "encrypted_content": bad}
        for call in (client.responses.create, client.responses.compact):
            with pytest.raises(openai.BadRequestError) as caught:
                await call(model=MODEL, input=[item, {"role": "user", "content": "hi"}])
            assert caught.value.status_code == 400
            error = caught.value.body
            assert isinstance(error, dict)
            assert "compaction item" in error["message"]
    # another tenant's key: the token is not theirs
    with pytest.raises(openai.BadRequestError, match="another tenant"):
        await client_for(app, OTHER_KEY).responses.create(
            model=MODEL, input=[compacted.output[-1].model_dump(exclude_none=True)]
        )
    # another proxy (its own key) does not trust it either
    other = await apps.make(upstream_openai="http://upstream.test/v1", db=tmp_path / "o.db")
    with pytest.raises(openai.BadRequestError, match="does not verify"):
        await client_for(other).responses.create(
            model=MODEL, input=[compacted.output[-1].model_dump(exclude_none=True)]
        )
    # nothing refused reached the upstream
    assert len([s for s in upstream.chats if s.path == "/v1/responses"]) == chats
    # the provider's own item is carried as it came (a gateway before the provider
    # may read it; an upstream that cannot answers for itself)
    provider = {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAABprovider"}
    await client.responses.create(model=MODEL, input=[provider, {"role": "user", "content": "x"}])
    assert provider in last_input(upstream)


async def test_a_shared_compaction_key_lets_another_replica_expand_the_item(
    apps: ProxyApps, upstream: Upstream, tmp_path: Path
) -> None:
    key = "a-long-shared-secret-of-the-fleet"
    one = await apps.make(
        upstream_openai="http://upstream.test/v1", db=tmp_path / "a.db", compaction_key=key
    )
    two = await apps.make(
        upstream_openai="http://upstream.test/v1", db=tmp_path / "b.db", compaction_key=key
    )
    compacted = await client_for(one).responses.compact(model=MODEL, input=conversation())
    follow = [*as_input(compacted.output), {"role": "user", "content": "next"}]
    await client_for(two).responses.create(model=MODEL, input=follow)
    assert "SUMMARY-1" in json.dumps(last_input(upstream))


async def test_stateful_and_empty_requests_are_refused_clearly(app: Starlette) -> None:
    client = client_for(app)
    with pytest.raises(openai.BadRequestError, match="previous_response_id"):
        await client.responses.compact(model=MODEL, previous_response_id="resp_123")
    with pytest.raises(openai.BadRequestError, match="nothing to compact"):
        await client.responses.compact(model=MODEL, input=[])


async def test_no_key_no_summary(app: Starlette, upstream: Upstream) -> None:
    local = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app))
    response = await local.post(
        "http://proxy.test/v1/responses/compact",
        json={"model": MODEL, "input": conversation()},
    )
    assert response.status_code == 401
    assert response.json()["error"]["type"]
    assert not upstream.summaries


async def test_a_failed_summary_is_an_error_in_openais_shape(
    app: Starlette, upstream: Upstream
) -> None:
    upstream.fail_summary = (500, {"error": {"message": "summarizer down", "type": "server"}})
    with pytest.raises(openai.APIStatusError) as caught:
        await client_for(app).responses.compact(model=MODEL, input=conversation())
    assert caught.value.status_code >= 500
    assert KEY not in json.dumps(caught.value.body)


@pytest.mark.parametrize(
    ("upstream_url", "options"),
    [
        ("http://upstream.test/v1", {"native_compaction": "pass"}),
        ("https://api.openai.com/v1", {}),  # auto: the provider's own host
    ],
    ids=["pass", "auto-provider"],
)
async def test_the_providers_own_endpoint_gets_everything_untouched(
    apps: ProxyApps, tmp_path: Path, upstream_url: str, options: dict[str, Any]
) -> None:
    apps.upstream.native_compaction = True
    app = await apps.make(upstream_openai=upstream_url, db=tmp_path / "p.db", **options)
    client = client_for(app)
    compacted = await client.responses.compact(model=MODEL, input=conversation())
    item = compacted.output[-1]
    assert item.encrypted_content.startswith("gAAAA-provider")
    assert apps.upstream.seen[-1].path == "/v1/responses/compact"
    assert not apps.upstream.summaries
    follow = [*as_input(compacted.output), {"role": "user", "content": "next"}]
    await client.responses.create(model=MODEL, input=follow)
    sent = last_input(apps.upstream)
    assert {"type": "compaction", "id": item.id, "encrypted_content": item.encrypted_content} in [
        {k: i.get(k) for k in ("type", "id", "encrypted_content")} for i in sent
    ]


async def test_a_models_table_overrides_the_mode(apps: ProxyApps, tmp_path: Path) -> None:
    apps.upstream.native_compaction = True
    app = await apps.make(
        upstream_openai="https://api.openai.com/v1",
        db=tmp_path / "m.db",
        models={MODEL: ModelSettings(native_compaction="emulate")},
    )
    compacted = await client_for(app).responses.compact(model=MODEL, input=conversation())
    assert compacted.output[-1].encrypted_content.startswith("cfc1.")
    other = await client_for(app).responses.compact(model="gpt-5.4", input=conversation())
    assert other.output[-1].encrypted_content.startswith("gAAAA-provider")


async def test_the_sync_sdk_through_a_served_proxy(app: Starlette, upstream: Upstream) -> None:
    async with Served(app, lifespan="off") as proxy:

        def work() -> str:
            with openai.OpenAI(api_key=KEY, base_url=f"{proxy.url}/v1", max_retries=0) as sdk:
                compacted = sdk.responses.compact(model=MODEL, input=conversation())
                follow = [*as_input(compacted.output), {"role": "user", "content": "next"}]
                inline = sdk.responses.create(
                    model=MODEL,
                    input=[*conversation(6), {"role": "user", "content": "go"}],
                    context_management=CONTEXT,
                )
                assert inline.output[0].type == "compaction"
                with sdk.responses.stream(model=MODEL, input=follow) as events:
                    streamed = events.get_final_response().output_text
                assert streamed
                return sdk.responses.create(model=MODEL, input=follow).output_text

        assert await asyncio.to_thread(work)
    assert "SUMMARY-1" in json.dumps(last_input(upstream))


CONTEXT = [{"type": "compaction", "compact_threshold": 500}]


async def test_context_management_compacts_inside_the_request(
    app: Starlette, upstream: Upstream
) -> None:
    client = client_for(app)
    history = [*conversation(6), {"role": "user", "content": "and now the docs"}]
    reply = await client.responses.create(model=MODEL, input=history, context_management=CONTEXT)
    assert [o.type for o in reply.output][:2] == ["compaction", "message"]
    item = reply.output[0]
    assert item.encrypted_content.startswith("cfc1.")
    sent = last_input(upstream)
    assert "SUMMARY-1" in json.dumps(sent[0])
    assert sent[1:] == [history[-1]]  # the turn in progress, verbatim
    body = [s for s in upstream.chats if s.path == "/v1/responses"][-1].json
    assert "context_management" not in body
    # the next request: the client appends the output and asks on; what came before
    # the item is dropped, the turn it was made in follows the summary
    follow = [*history, *as_input(reply.output), {"role": "user", "content": "thanks"}]
    await client.responses.create(model=MODEL, input=follow, context_management=CONTEXT)
    sent = last_input(upstream)
    assert "SUMMARY-1" in json.dumps(sent[0])
    assert sent[1] == history[-1]
    assert "Fix bug #0" not in json.dumps(sent)
    assert sent[-1] == {"role": "user", "content": "thanks"}


async def test_context_management_in_a_stream(app: Starlette, upstream: Upstream) -> None:
    client = client_for(app)
    history = [*conversation(6), {"role": "user", "content": "and now the docs"}]
    stream = await client.responses.create(
        model=MODEL, input=history, context_management=CONTEXT, stream=True
    )
    events = [event async for event in stream]
    numbers = [e.sequence_number for e in events]
    assert numbers == sorted(numbers)
    assert len(set(numbers)) == len(numbers)
    added = [e for e in events if e.type == "response.output_item.added"]
    assert added[0].item.type == "compaction"
    assert added[0].output_index == 0
    assert all(e.output_index >= 1 for e in added[1:])
    completed = next(e for e in events if e.type == "response.completed")
    assert completed.response.output[0].type == "compaction"
    assert completed.response.output_text == "Hello from upstream"


async def test_context_management_under_its_threshold_forwards_the_input(
    app: Starlette, upstream: Upstream
) -> None:
    history = conversation(1)
    reply = await client_for(app).responses.create(
        model=MODEL, input=history, context_management=CONTEXT
    )
    assert [o.type for o in reply.output] == ["message"]
    assert last_input(upstream) == history
    assert not upstream.summaries


async def test_metrics_count_the_emulated_calls_and_the_items(
    app: Starlette, upstream: Upstream
) -> None:
    client = client_for(app)
    compacted = await client.responses.compact(model=MODEL, input=conversation())
    follow = [*as_input(compacted.output), {"role": "user", "content": "next"}]
    await client.responses.create(model=MODEL, input=follow)
    bad = {"type": "compaction", "encrypted_content": "cfc1.AAAA.BBBB"}
    with pytest.raises(openai.BadRequestError):
        await client.responses.create(model=MODEL, input=[bad])
    upstream.fail_summary = (500, {"error": {"message": "down", "type": "server"}})
    with pytest.raises(openai.APIStatusError):
        await client.responses.compact(model=MODEL, input=conversation())
    local = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app))
    text = (await local.get("http://proxy.test/metrics")).text
    prefix = "contextfold_proxy_"
    assert (
        f'{prefix}native_compactions_total{{api="responses_compact",outcome="applied"}} 1' in text
    )
    assert f'{prefix}native_compactions_total{{api="responses_compact",outcome="error"}} 1' in text
    assert f'{prefix}compaction_items_total{{result="expanded"}} 1' in text
    assert f'{prefix}compaction_items_total{{result="refused"}} 1' in text

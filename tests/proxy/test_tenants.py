"""Tenants: nothing the proxy learns from one tenant's traffic reaches another's.

A tenant is a keyed hash of a request's credentials (or of the header an operator
names with ``tenant_header``). The same conversation sent under two keys must be
summarized twice, each time with its own key; one key's overflow refusal must not
change how another key's conversations are compacted; and all of it holds with each
cache (in memory, SQLite, PostgreSQL) and across replicas sharing a database.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.proxy._tenant import Tenants
from tests._proxy_upstream import ProxyApps, Upstream, openai_history
from tests.proxy.test_fleet import pg_url  # noqa: F401 (fixture)

KEY_A = "sk-test-TENANT-A-0a0a0a0a0a0a0a0a"
KEY_B = "sk-test-TENANT-B-0b0b0b0b0b0b0b0b"
MODEL = "test-model"
CACHES = ["memory", "sqlite", "postgres"]
# 16,384 x 0.3: a 12-round history (~6,000 tokens) is compacted, an 8-round one is not
SUMMARIZING: dict[str, Any] = {"context_window": 16_384, "threshold": 0.3}
# 32,768 x 0.25: an 8-round history (~4,000 tokens) is under the limit (8,192)
ROOMY: dict[str, Any] = {"context_window": 32_768, "threshold": 0.25}


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture(params=CACHES)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str | None:
    """Where the summary cache lives: nowhere (memory), a file, a PostgreSQL schema."""
    if request.param == "memory":
        return None
    if request.param == "sqlite":
        return str(tmp_path / "proxy.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
async def apps(upstream: Upstream) -> AsyncIterator[ProxyApps]:
    made = ProxyApps(upstream)
    yield made
    await made.close()


async def make(apps: ProxyApps, db: str | None, **settings: Any) -> Starlette:
    return await apps.make(
        upstream_openai="http://upstream.test/v1",
        upstream_anthropic="http://upstream.test",
        db=db,
        summary_max_retries=0,
        **settings,
    )


async def post(
    app: Starlette, messages: list[dict[str, Any]], key: str, **headers: str
) -> httpx2.Response:
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy.test") as client:
        reply = await client.post(
            "/v1/chat/completions",
            content=json.dumps({"model": MODEL, "messages": messages}),
            headers={"authorization": f"Bearer {key}", **headers},
        )
    assert reply.status_code == 200, reply.text
    return reply


def grown(messages: list[dict[str, Any]], turn: int = 0) -> list[dict[str, Any]]:
    """``messages`` one exchange longer, as a client resends its history."""
    return [
        *messages,
        {"role": "assistant", "content": f"ok {turn}"},
        {"role": "user", "content": f"and then {turn}?"},
    ]


def summary_of(body: dict[str, Any]) -> str:
    """The summary text a forwarded (compacted) request carries."""
    texts = [m["content"] for m in body["messages"] if isinstance(m.get("content"), str)]
    found = [t for t in texts if "SUMMARY-" in t]
    assert len(found) == 1, texts[:3]
    return found[0]


def reworded(messages: list[dict[str, Any]], tag: str) -> list[dict[str, Any]]:
    """``messages`` with every text changed, each the same length: another conversation
    of the same size."""
    out = copy.deepcopy(messages)
    for message in out:
        if isinstance(message.get("content"), str) and len(message["content"]) > len(tag):
            message["content"] = tag + message["content"][len(tag) :]
    return out


async def test_the_same_conversation_from_two_keys_never_shares_a_summary(
    apps: ProxyApps, upstream: Upstream, db: str | None
) -> None:
    app = await make(apps, db, **SUMMARIZING)
    history = openai_history(12)
    made = await post(app, history, KEY_A)
    assert made.headers["x-contextfold-summary"] == "created"
    history = grown(history)
    again = await post(app, history, KEY_A)  # one key's own summary serves it
    assert again.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1
    other = await post(app, history, KEY_B)
    # Another key sending the same prefix learns nothing of it: its request is
    # summarized anew, with its own key, and carries its own summary.
    assert other.headers["x-contextfold-summary"] == "created"
    assert len(upstream.summaries) == 2
    assert upstream.summaries[0].headers["authorization"] == f"Bearer {KEY_A}"
    assert upstream.summaries[1].headers["authorization"] == f"Bearer {KEY_B}"
    assert summary_of(upstream.chats[-1].json) != summary_of(upstream.chats[0].json)
    # ... and each key goes on splicing its own
    for key, summary in ((KEY_A, 0), (KEY_B, 2)):
        later = await post(app, grown(history, 1), key)
        assert later.headers["x-contextfold-summary"] == "cached"
        assert summary_of(upstream.chats[-1].json) == summary_of(upstream.chats[summary].json)
    assert len(upstream.summaries) == 2


async def test_one_keys_overflow_refusal_does_not_change_how_anothers_are_compacted(
    apps: ProxyApps, upstream: Upstream, db: str | None
) -> None:
    app = await make(apps, db, **ROOMY)
    history = openai_history(8)  # ~4,000 tokens: under the limit (8,192)
    refused_at = int(len(json.dumps(history)) / 4 * 0.6)
    upstream.max_prompt_tokens = refused_at  # key A's upstream refuses it
    first = await post(app, history, KEY_A)
    assert first.headers["x-contextfold-retried"] == "context-overflow"
    assert first.headers["x-contextfold-summary"] == "created"
    # A's limit is learnt: its next conversation of that size is compacted first
    mine = await post(app, reworded(history, "A2"), KEY_A)
    assert mine.headers["x-contextfold-compacted"] == "true"
    assert "x-contextfold-retried" not in mine.headers
    summaries = len(upstream.summaries)
    upstream.max_prompt_tokens = None  # key B's upstream takes anything
    # Key B's conversations, A's own included, are judged by the configured limit
    # alone: forwarded as they are, neither spliced nor summarized.
    for messages in (reworded(history, "B1"), history, grown(history)):
        reply = await post(app, messages, KEY_B)
        assert reply.headers["x-contextfold-compacted"] == "false", reply.headers
        assert reply.headers["x-contextfold-summary"] == "none"
        assert json.loads(upstream.chats[-1].raw)["messages"] == messages
    assert len(upstream.summaries) == summaries


async def test_replicas_on_one_database_share_within_a_key_never_across_keys(
    apps: ProxyApps,
    upstream: Upstream,
    pg_url: str,  # noqa: F811 (the fixture)
) -> None:
    one = await make(apps, pg_url, **SUMMARIZING)
    two = await make(apps, pg_url, **SUMMARIZING)
    history = openai_history(12)
    made = await post(one, history, KEY_A)
    assert made.headers["x-contextfold-summary"] == "created"
    history = grown(history)
    used = await post(two, history, KEY_A)  # the other replica splices A's summary
    assert used.headers["x-contextfold-summary"] == "cached"
    assert summary_of(upstream.chats[-1].json) == summary_of(upstream.chats[0].json)
    other = await post(two, history, KEY_B)
    assert other.headers["x-contextfold-summary"] == "created"
    assert upstream.summaries[-1].headers["authorization"] == f"Bearer {KEY_B}"
    assert len(upstream.summaries) == 2


async def test_a_restarted_proxy_on_its_file_splices_what_a_key_was_given_before(
    apps: ProxyApps, upstream: Upstream, tmp_path: Path
) -> None:
    """The tenant key's secret lives in the cache file: a restart keeps the tenants."""
    db = str(tmp_path / "proxy.db")
    history = openai_history(12)
    made = await post(await make(apps, db, **SUMMARIZING), history, KEY_A)
    assert made.headers["x-contextfold-summary"] == "created"
    await apps.close()
    restarted = await make(apps, db, **SUMMARIZING)
    history = grown(history)
    assert (await post(restarted, history, KEY_A)).headers["x-contextfold-summary"] == "cached"
    assert (await post(restarted, history, KEY_B)).headers["x-contextfold-summary"] == "created"


async def test_with_a_tenant_header_its_value_is_the_tenant(
    apps: ProxyApps, upstream: Upstream, db: str | None
) -> None:
    app = await make(apps, db, tenant_header="x-user-id", **SUMMARIZING)
    history = openai_history(12)
    made = await post(app, history, KEY_A, **{"x-user-id": "user-1"})
    assert made.headers["x-contextfold-summary"] == "created"
    history = grown(history)
    # one user through two keys (a gateway's): one tenant
    shared = await post(app, history, KEY_B, **{"x-user-id": "user-1"})
    assert shared.headers["x-contextfold-summary"] == "cached"
    assert len(upstream.summaries) == 1
    # two users through one key: two tenants, each summary paid with the key sent
    own = await post(app, history, KEY_A, **{"x-user-id": "user-2"})
    assert own.headers["x-contextfold-summary"] == "created"
    assert len(upstream.summaries) == 2
    assert upstream.summaries[1].headers["authorization"] == f"Bearer {KEY_A}"


def test_a_tenant_key_is_a_keyed_hash_of_every_credential_never_one_of_them() -> None:
    tenants = Tenants(b"s" * 32)
    a = tenants.of({"authorization": f"Bearer {KEY_A}"})
    assert a == tenants.of({"Authorization": f"bearer  {KEY_A} "})  # the token, as sent
    assert KEY_A not in a
    assert a != tenants.of({"authorization": f"Bearer {KEY_B}"})
    assert a != Tenants(b"t" * 32).of({"authorization": f"Bearer {KEY_A}"})  # the secret's
    others = [
        {"x-api-key": KEY_A},
        {"api-key": KEY_A},
        {"authorization": f"Bearer {KEY_A}", "x-api-key": "placeholder"},
        {"authorization": f"Basic {KEY_A}"},
        {},
    ]
    found = {tenants.of(headers) for headers in others}
    assert len(found | {a}) == len(others) + 1  # each credential set, a tenant of its own
    by_user = Tenants(b"s" * 32, header="x-user-id")
    user = by_user.of({"authorization": f"Bearer {KEY_A}", "x-user-id": "user-1"})
    assert user == by_user.of({"x-api-key": KEY_B, "x-user-id": "user-1"})
    assert user != by_user.of({"authorization": f"Bearer {KEY_A}", "x-user-id": "user-2"})
    # without the header, the credentials decide (never the tenant of a header value)
    assert by_user.of({"authorization": f"Bearer {KEY_A}"}) == a
    assert by_user.of({"authorization": f"Bearer {KEY_A}", "x-user-id": ""}) == a
    assert user not in {a, *found}

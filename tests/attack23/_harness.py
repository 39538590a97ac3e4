"""A compact in-process proxy harness for the attack tests, and one checker of what
the upstream received against what the client sent."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import httpx2
from starlette.applications import Starlette

from contextfold.compaction._summarizer import parse_summary_message
from contextfold.formats import from_anthropic, from_openai, from_responses
from contextfold.messages import Message
from contextfold.proxy import create_app
from contextfold.validation import history_problems
from contextfold_harness.fake_upstream import Upstream
from tests._faces import app_arguments

Dialect = Literal["openai", "anthropic", "responses"]
PATHS: dict[str, str] = {
    "openai": "/v1/chat/completions",
    "anthropic": "/v1/messages",
    "responses": "/v1/responses",
}


class Proxy:
    def __init__(self, app: Starlette, upstream: Upstream, context: Any) -> None:
        self.app = app
        self.upstream = upstream
        self.context = context
        self.client = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test"
        )

    async def post(self, dialect: Dialect, payload: dict[str, Any] | bytes) -> httpx2.Response:
        headers = {
            "x-api-key": "sk-ant-k",
            "authorization": "Bearer sk-k",
            "content-type": "application/json",
        }
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        return await self.client.post(PATHS[dialect], content=raw, headers=headers)

    @property
    def sent(self) -> dict[str, Any]:
        body: dict[str, Any] = self.upstream.chats[-1].json
        return body

    async def close(self) -> None:
        await self.client.aclose()
        await self.context.__aexit__(None, None, None)


async def open_proxy(upstream: Upstream, **settings: Any) -> Proxy:
    http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=upstream.app()))
    merged: dict[str, Any] = {
        "upstream_openai": "http://upstream.test/v1",
        "upstream_anthropic": "http://upstream.test",
        "http_client": http,
        "prepare_threshold": None,
        "context_window": 16_000,
        "threshold": 0.5,
        "summary_max_retries": 0,
    }
    merged.update(settings)
    app = create_app(**app_arguments(**merged))
    context = app.router.lifespan_context(app)
    await context.__aenter__()
    return Proxy(app, upstream, context)


def wire_of(dialect: Dialect, body: dict[str, Any]) -> list[Any]:
    items = body["input"] if dialect == "responses" else body["messages"]
    assert isinstance(items, list)
    return items


def parse(dialect: Dialect, body: dict[str, Any]) -> list[Message]:
    if dialect == "responses":
        return from_responses(body["input"], body.get("instructions"))
    if dialect == "openai":
        return from_openai(body["messages"])
    return from_anthropic(body["messages"], body.get("system"))


def enc(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False)


def is_summary_item(dialect: Dialect, item: Any) -> bool:
    try:
        messages = parse(dialect, {"messages": [item], "input": [item]})
    except ValueError:
        return False
    return len(messages) == 1 and parse_summary_message(messages[0]) is not None


def check(
    dialect: Dialect,
    original: dict[str, Any],
    reply: httpx2.Response,
    sent: dict[str, Any],
    *,
    task: int | None = None,
    rules: Literal["any", "openai"] | None = None,
) -> bool:
    """The proxy's promises for one request; returns whether it was compacted.

    * a 200 (the fake upstream answers every request), never an internal error;
    * the upstream's history validates (when the client's did);
    * when compacted: every item outside the summary (and its acknowledgement) is an
      item the client sent, byte for byte, the kept ones a suffix of the client's,
      the ones before the summary a prefix (plus system items the client sent);
      the task item (``task``: its index in the client's wire) is kept.
    """
    assert reply.status_code == 200, reply.text
    error = reply.headers.get("x-contextfold-error", "")
    assert "internal error" not in error, error
    compacted = reply.headers.get("x-contextfold-compacted") == "true"
    rules = rules or ("openai" if dialect == "responses" else "any")
    theirs = parse(dialect, original)
    if not history_problems(theirs, rules, allow_pending=True):
        ours = parse(dialect, sent)
        problems = history_problems(ours, rules, allow_pending=True)
        assert not problems, problems
    if not compacted:
        return False
    client = [enc(i) for i in wire_of(dialect, original)]
    upstream = [enc(i) for i in wire_of(dialect, sent)]
    summaries = [
        k for k, item in enumerate(wire_of(dialect, sent)) if is_summary_item(dialect, item)
    ]
    assert len(summaries) == 1, f"summary items at {summaries}"
    (at,) = summaries
    # the prefix before the summary: a prefix of the client's, then system items it sent
    p = 0
    while p < at and p < len(client) and upstream[p] == client[p]:
        p += 1
    for item in upstream[p:at]:
        assert item in client, f"an item before the summary the client never sent: {item[:300]}"
    after = upstream[at + 1 :]
    # an acknowledgement (written by us) may follow the summary
    if after and after[0] not in client:
        after = after[1:]
    assert after, "nothing kept after the summary"
    assert client[len(client) - len(after) :] == after, (
        "the kept part is not the client's suffix byte for byte: "
        + next(
            f"{a[:300]} != {b[:300]}"
            for a, b in zip(after, client[len(client) - len(after) :], strict=True)
            if a != b
        )
    )
    if task is not None:
        kept = task < p or client[task] in upstream[p:at] or task >= len(client) - len(after)
        assert kept, f"the task item {task} was summarized"
    return True


def summary_requests(upstream: Upstream) -> str:
    return "\n".join(json.dumps(s.json, ensure_ascii=False) for s in upstream.summaries)


def pad(text: str, n: int) -> str:
    return (text + " ") * n


def words(i: int, n: int = 60) -> str:
    return " ".join(f"word{i}x{j}" for j in range(n))


def first(seq: Sequence[Any]) -> Any:
    return seq[0]

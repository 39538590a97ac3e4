"""``GET /healthz`` and ``GET /metrics``: answered by the proxy itself, scraped after real
requests through the proxy and the fake upstream, and read with a strict parser of the
Prometheus text format (0.0.4)."""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from contextfold.proxy import create_app
from contextfold.proxy._metrics import BUCKETS, OUTCOMES, ROUTES, UNPLACED, UPSTREAM_ERRORS
from tests._proxy_upstream import ProxyApps, Upstream, openai_history

KEY = "sk-test-METRICS-DISTINCTIVE-0a1b2c3d4e"
TENANT = "tenant-SECRET-77665544"
HEADERS = {"authorization": f"Bearer {KEY}", "x-tenant-token": TENANT}
MODEL = "test-model"

# -- a strict reader of the text exposition format ------------------------------------------

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_SAMPLE = re.compile(rf"^({_NAME})(?:\{{(.*)\}})? (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


@dataclass
class Family:
    kind: str
    help: str
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = field(default_factory=dict)


def parse(text: str) -> dict[str, Family]:
    """Families by name; any line that breaks the format fails the test."""
    assert text.endswith("\n")
    families: dict[str, Family] = {}
    helps: dict[str, str] = {}
    current: str | None = None
    for line in text[:-1].split("\n"):
        if line.startswith("# HELP "):
            name, _, doc = line[7:].partition(" ")
            assert re.fullmatch(_NAME, name), line
            assert name not in helps, line
            helps[name] = doc
        elif line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped"), line
            assert name not in families, f"{name} declared twice"
            families[name] = Family(kind, helps.get(name, ""))
            current = name
        else:
            match = _SAMPLE.match(line)
            assert match, f"not a sample line: {line!r}"
            name, labels_text, value = match.groups()
            assert current is not None, f"{name} before any TYPE line"
            parts = (f"{current}_bucket", f"{current}_sum", f"{current}_count")
            histogram = families[current].kind == "histogram"
            assert name == current or (histogram and name in parts), f"{name} outside its family"
            labels: list[tuple[str, str]] = []
            rest = labels_text or ""
            while rest:
                label = _LABEL.match(rest)
                assert label, f"bad labels in {line!r}"
                labels.append((label[1], label[2]))
                rest = rest[label.end() :]
            number = float(value)
            assert not math.isnan(number)
            key = (name, tuple(labels))
            assert key not in families[current].samples, f"duplicate sample {line!r}"
            families[current].samples[key] = number
    for name, family in families.items():
        assert family.help, f"{name} has no HELP"
        if family.kind == "counter":
            assert name.endswith("_total"), f"counter {name} must end in _total"
        assert all(v >= 0 for v in family.samples.values())
    return families


def value(families: dict[str, Family], name: str, **labels: str) -> float:
    family = families[name.removesuffix("_bucket").removesuffix("_sum").removesuffix("_count")]
    return family.samples.get((name, tuple(sorted(labels.items()))), 0.0)


# -- fixtures ----------------------------------------------------------------------------


class SlowUpstream(Upstream):
    """The fake upstream, taking ``delay`` seconds over every chat answer."""

    delay = 0.0

    async def openai(self, request: Request) -> Response:
        await asyncio.sleep(self.delay)
        return await super().openai(request)


@pytest.fixture
def upstream() -> SlowUpstream:
    return SlowUpstream()


@pytest.fixture
async def app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[Starlette]:
    apps = ProxyApps(upstream)
    yield await apps.make(
        upstream_openai="http://upstream.test/v1",
        upstream_anthropic="http://upstream.test",
        db=tmp_path / "proxy.db",
        context_window=32_768,
        threshold=0.25,
        summary_max_retries=0,
        secret_headers=["x-tenant-token"],
    )
    await apps.close()


def local(app: Starlette) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy")


async def chat(client: httpx2.AsyncClient, turns: int, **extra: Any) -> httpx2.Response:
    body = {"model": MODEL, "messages": openai_history(turns)} | extra
    return await client.post("/v1/chat/completions", json=body, headers=HEADERS)


async def scrape(client: httpx2.AsyncClient) -> tuple[str, dict[str, Family]]:
    reply = await client.get("/metrics")
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return reply.text, parse(reply.text)


# -- /healthz ----------------------------------------------------------------------------


async def test_healthz_is_answered_locally(app: Starlette, upstream: Upstream) -> None:
    async with local(app) as client:
        first = await client.get("/healthz")
        await asyncio.sleep(0.01)
        second = await client.get("/healthz")
    assert first.status_code == 200
    body = first.json()
    assert (body["status"], body["version"]) == ("ok", version("contextfold"))
    assert 0 <= body["uptime_seconds"] < second.json()["uptime_seconds"]
    assert upstream.seen == []  # never forwarded


@pytest.mark.parametrize("path", ["/healthz", "/metrics"])
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
async def test_local_routes_refuse_other_methods_without_forwarding(
    app: Starlette, upstream: Upstream, path: str, method: str
) -> None:
    async with local(app) as client:
        reply = await client.request(method, path, headers=HEADERS, content=b"{}")
        head = await client.head(path)
    assert reply.status_code == 405, reply.text
    assert set(reply.headers["allow"].replace(" ", "").split(",")) == {"GET", "HEAD"}
    assert "error" in reply.json()
    assert head.status_code == 200
    assert upstream.seen == []  # the credentials went nowhere


# -- /metrics ----------------------------------------------------------------------------


async def test_a_fresh_proxy_exposes_every_family_at_zero(app: Starlette) -> None:
    async with local(app) as client:
        _, families = await scrape(client)
    prefix = "contextfold_proxy_"
    assert {name.removeprefix(prefix) for name in families} == {
        "requests_total",
        "compactions_total",
        "not_compacted_total",
        "summary_cache_hits_total",
        "summary_cache_misses_total",
        "summarizer_tokens_total",
        "summary_facts_total",
        "native_compactions_total",
        "compaction_items_total",
        "upstream_errors_total",
        "added_latency_seconds",
    }
    assert families[prefix + "added_latency_seconds"].kind == "histogram"
    assert all(value(families, prefix + "compactions_total", outcome=o) == 0 for o in OUTCOMES)
    assert len(families[prefix + "compactions_total"].samples) == len(OUTCOMES)
    assert all(value(families, prefix + "not_compacted_total", reason=r) == 0 for r in UNPLACED)
    assert len(families[prefix + "not_compacted_total"].samples) == len(UNPLACED)
    buckets = [
        dict(labels)["le"]
        for (name, labels) in families[prefix + "added_latency_seconds"].samples
        if name.endswith("_bucket")
    ]
    assert buckets == [str(b) for b in BUCKETS] + ["+Inf"]


async def test_metrics_count_real_requests(app: Starlette, upstream: Upstream) -> None:
    async with local(app) as client:
        assert (await chat(client, 1)).headers["x-contextfold-summary"] == "none"
        assert (await chat(client, 24)).headers["x-contextfold-summary"] == "created"
        assert (await chat(client, 25)).headers["x-contextfold-summary"] == "cached"
        upstream.fail_chat = (429, {"error": {"message": "slow down"}}, {})
        assert (await chat(client, 1)).status_code == 429
        upstream.fail_chat = None
        assert (await client.post("/v1/chat/completions", content=b"{not json")).status_code == 400
        await client.get("/v1/models", headers=HEADERS)
        await client.get("/v1/threads/thread_abc123/runs/run_42?order=asc", headers=HEADERS)
        await client.get("/healthz")
        text, families = await scrape(client)

    p = "contextfold_proxy_"
    requests = {dict(labels)["route"]: 0 for (_, labels) in families[p + "requests_total"].samples}
    assert set(requests) <= set(ROUTES.values()) | {"other"}
    assert value(families, p + "requests_total", route="/v1/chat/completions", status="200") == 3
    assert value(families, p + "requests_total", route="/v1/chat/completions", status="429") == 1
    assert value(families, p + "requests_total", route="/v1/chat/completions", status="400") == 1
    assert value(families, p + "requests_total", route="other", status="200") == 2
    assert value(families, p + "requests_total", route="/healthz", status="200") == 1
    # the compactions of the four chat requests that were read
    assert value(families, p + "compactions_total", outcome="not_needed") == 2
    assert value(families, p + "compactions_total", outcome="created") == 1
    assert value(families, p + "compactions_total", outcome="cached") == 1
    assert value(families, p + "compactions_total", outcome="error") == 0
    assert value(families, p + "summary_cache_hits_total") == 1
    assert value(families, p + "summary_cache_misses_total") == 1
    # the fake upstream reports 100 prompt and 5 completion tokens per summary
    assert value(families, p + "summarizer_tokens_total", direction="input") == 100
    assert value(families, p + "summarizer_tokens_total", direction="output") == 5
    # one added-latency observation per forwarded request (5 chats, 2 others)
    assert value(families, p + "added_latency_seconds_count") == 7
    assert value(families, p + "added_latency_seconds_bucket", le="+Inf") == 7
    cumulative = [
        v
        for (name, _), v in families[p + "added_latency_seconds"].samples.items()
        if name.endswith("_bucket")
    ]
    assert cumulative == sorted(cumulative)
    # nothing a request carried became a label or a value
    for secret in (KEY, "tenant-SECRET-77665544", "thread_abc123", "run_42", MODEL, "order"):
        assert secret not in text


async def test_a_failed_summarization_counts_as_an_error_outcome(
    app: Starlette, upstream: Upstream
) -> None:
    upstream.fail_summary = (500, {"error": {"message": "down", "type": "server_error"}})
    async with local(app) as client:
        reply = await chat(client, 24)
        assert reply.headers["x-contextfold-compacted"] == "false"
        _, families = await scrape(client)
    p = "contextfold_proxy_"
    assert value(families, p + "compactions_total", outcome="error") == 1
    assert value(families, p + "not_compacted_total", reason="summary_failed") == 1
    assert value(families, p + "summary_cache_misses_total") == 1
    assert value(families, p + "summarizer_tokens_total", direction="input") == 0


async def test_what_cannot_be_placed_is_counted_by_reason(
    app: Starlette, upstream: Upstream
) -> None:
    history = openai_history(24)
    async with local(app) as client:
        # a role that is not a string: no history can be read from it
        unreadable = {"model": MODEL, "messages": [*history, {"role": ["user"], "content": "x"}]}
        reply = await client.post("/v1/chat/completions", json=unreadable, headers=HEADERS)
        assert reply.status_code == 200
        assert "x-contextfold-error" in reply.headers
        # a coding the proxy does not decode: forwarded as it came
        body = b'{"model": "test-model", "messages": []}'
        encoded = HEADERS | {"content-encoding": "br", "content-type": "application/json"}
        await client.post("/v1/chat/completions", content=body, headers=encoded)
        # a summarizer that fails
        upstream.fail_summary = (500, {"error": {"message": "down", "type": "server_error"}})
        assert (await chat(client, 24)).headers["x-contextfold-compacted"] == "false"
        _, families = await scrape(client)
    p = "contextfold_proxy_"
    counted = {r: value(families, p + "not_compacted_total", reason=r) for r in UNPLACED}
    assert counted == dict.fromkeys(UNPLACED, 0) | {
        "unmodelled": 1,
        "encoded_body": 1,
        "summary_failed": 1,
    }
    assert value(families, p + "compactions_total", outcome="error") == 3


async def test_a_compaction_forced_by_an_overflow_is_counted(
    app: Starlette, upstream: Upstream
) -> None:
    # 8 turns is under the proxy's limit; the upstream refuses it as too long
    upstream.max_prompt_tokens = 2_000
    async with local(app) as client:
        reply = await chat(client, 8)
        assert reply.headers["x-contextfold-retried"] == "context-overflow"
        assert reply.headers["x-contextfold-summary"] == "created"
        _, families = await scrape(client)
    p = "contextfold_proxy_"
    assert value(families, p + "compactions_total", outcome="not_needed") == 1  # first plan
    assert value(families, p + "compactions_total", outcome="created") == 1  # the forced one
    assert value(families, p + "summary_cache_misses_total") == 1
    assert value(families, p + "summarizer_tokens_total", direction="input") == 100


async def test_added_latency_leaves_out_the_upstreams_time(
    app: Starlette, upstream: SlowUpstream
) -> None:
    upstream.delay = 0.3
    async with local(app) as client:
        for _ in range(3):
            assert (await chat(client, 1)).status_code == 200
        _, families = await scrape(client)
    p = "contextfold_proxy_"
    assert value(families, p + "added_latency_seconds_count") == 3
    # three requests that each waited 0.3 s on the upstream; the proxy's own share
    # is far below that (it would be at least 0.9 s if the wait were counted)
    assert value(families, p + "added_latency_seconds_sum") < 0.3
    assert value(families, p + "added_latency_seconds_bucket", le="0.25") == 3


async def test_streams_count_their_latency_up_to_the_first_byte(
    app: Starlette, upstream: SlowUpstream
) -> None:
    upstream.delay = 0.2
    async with local(app) as client:
        reply = await chat(client, 1, stream=True)
        assert reply.status_code == 200
        assert "[DONE]" in reply.text
        _, families = await scrape(client)
    p = "contextfold_proxy_"
    assert value(families, p + "added_latency_seconds_count") == 1
    assert value(families, p + "added_latency_seconds_sum") < 0.2


@pytest.mark.parametrize(
    ("error", "status", "kind"),
    [
        (httpx2.ConnectError("refused"), 502, "connect"),
        (httpx2.ReadTimeout("slow"), 504, "timeout"),
    ],
)
async def test_upstream_errors_are_counted_by_kind(
    tmp_path: Path, error: Exception, status: int, kind: str
) -> None:
    def fail(request: httpx2.Request) -> httpx2.Response:
        raise error

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(fail))
    app = create_app(upstream_openai="http://upstream.test/v1", http_client=client)
    async with app.router.lifespan_context(app), local(app) as proxy:
        assert (await chat(proxy, 1)).status_code == status
        _, families = await scrape(proxy)
    await client.aclose()
    p = "contextfold_proxy_"
    for each in UPSTREAM_ERRORS:
        assert value(families, p + "upstream_errors_total", kind=each) == (each == kind)
    assert value(families, p + "requests_total", route="/v1/chat/completions", status=str(status))


def test_the_reader_refuses_what_prometheus_would() -> None:
    good = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 2\n'
    assert parse(good)["a_total"].samples == {("a_total", (("x", "1"),)): 2.0}
    for bad in (
        good.replace("a_total{", "b_total{"),  # sample outside its family
        good.replace('x="1"', "x=1"),  # unquoted label value
        good.replace("a_total counter", "a_total countr"),
        good.replace(" 2\n", " two\n"),
        good + 'a_total{x="1"} 3\n',  # duplicate series
        good.replace("a_total", "a"),  # counter without _total
        good.rstrip("\n"),
    ):
        with pytest.raises((AssertionError, ValueError)):
            parse(bad)


async def test_compactions_and_cache_hits_are_logged_at_info_without_secrets(
    app: Starlette, caplog: pytest.LogCaptureFixture
) -> None:
    """Each compaction and cache hit is an INFO record, scrubbed like every other: here
    the client put a credential into its model name, and the log shows it redacted."""
    caplog.set_level(logging.INFO, logger="contextfold")
    model = f"agent-{TENANT}"
    async with local(app) as client:
        assert (await chat(client, 24, model=model)).headers["x-contextfold-summary"] == "created"
        assert (await chat(client, 25, model=model)).headers["x-contextfold-summary"] == "cached"
    lines = [r.getMessage() for r in caplog.records if r.name == "contextfold.proxy"]
    assert any(line.startswith("compacted a agent-[REDACTED] request: ") for line in lines), lines
    assert any(
        line.startswith("spliced a cached summary into a agent-[REDACTED]") for line in lines
    )
    assert all(r.levelno == logging.INFO for r in caplog.records if r.name == "contextfold.proxy")
    assert TENANT not in caplog.text
    assert KEY not in caplog.text

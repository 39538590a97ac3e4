"""Attack 24: compressed chat bodies that cost the proxy far more than their size.

``decode_body`` runs on the event loop, so what it spends every other request waits.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import AsyncIterator

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.proxy._encoding import MAX_CODINGS, BadEncoding, decode_body
from tests._proxy_upstream import ProxyApps, Upstream, openai_history
from tests.proxy.test_fuzz import shape_problem

KEY = "sk-test-ATTACK24-ENCODING-7d1e"
LIMIT = 32 * 1024 * 1024  # the proxy's default max_body_bytes


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def app(upstream: Upstream) -> AsyncIterator[Starlette]:
    apps = ProxyApps(upstream)
    yield await apps.make(
        upstream_openai="http://upstream.test/v1", upstream_anthropic="http://upstream.test"
    )
    await apps.close()


def test_a_body_of_many_tiny_gzip_members_decodes_in_linear_time() -> None:
    # Impact: each member's end copied the whole rest of the body (zlib's unused_data,
    # then a strip of it): 3 MB of 20-byte members held the event loop ~10 s, and the
    # default 32 MiB limit admits ~1.6 million of them (~20 minutes).
    body = json.dumps({"model": "m", "messages": openai_history(1)}).encode()
    raw = gzip.compress(b"", mtime=0) * 150_000 + gzip.compress(body)
    started = time.perf_counter()
    assert decode_body(raw, "gzip", LIMIT) == body
    assert time.perf_counter() - started < 2.0


def test_zero_padding_and_garbage_after_members_keep_their_meaning() -> None:
    one = gzip.compress(b'{"a": 1}')
    assert decode_body(one + b"\0" * 10_000, "gzip", LIMIT) == b'{"a": 1}'
    assert decode_body(one + one, "x-gzip", LIMIT) == b'{"a": 1}{"a": 1}'
    for tail in (b"\0\0" + one, b"garbage", one[:10]):
        with pytest.raises(BadEncoding):
            decode_body(one + tail, "gzip", LIMIT)


def layered(data: bytes, layers: int) -> bytes:
    for _ in range(layers):
        data = gzip.compress(data, compresslevel=0, mtime=0)  # stored: no smaller
    return data


def test_a_body_in_more_codings_than_any_client_uses_is_refused() -> None:
    # Impact: a head of 64 KiB lists ~10,000 codings; a 1.4 MB body stored-gzipped 3,000
    # times held the event loop 2.7 s (32 MiB: minutes), replayable at no cost.
    data = b'{"model": "m", "messages": []}'
    allowed = layered(data, MAX_CODINGS)
    assert decode_body(allowed, ", ".join(["gzip"] * MAX_CODINGS), LIMIT) == data
    assert decode_body(allowed, ", ".join(["gzip", "identity"] * MAX_CODINGS), LIMIT) == data
    with pytest.raises(BadEncoding, match="codings"):
        decode_body(layered(data, 6), ", ".join(["gzip"] * 6), LIMIT)


async def test_a_thousand_layered_codings_are_a_400_never_decoded(
    app: Starlette, upstream: Upstream
) -> None:
    body = json.dumps({"model": "m", "messages": openai_history(1)}).encode()
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test"
    ) as client:
        reply = await client.post(
            "/v1/chat/completions",
            content=layered(body, 1000),
            headers={
                "content-type": "application/json",
                "content-encoding": ", ".join(["gzip"] * 1000),
                "authorization": f"Bearer {KEY}",
            },
        )
    assert reply.status_code == 400, reply.text
    assert shape_problem("openai", reply.content) is None
    assert "1000 content codings" in reply.text
    assert not upstream.seen

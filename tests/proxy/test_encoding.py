"""Chat request bodies in a content coding (issue 24.4): gzip and deflate decoded, bounded."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.proxy._encoding import BadEncoding, DecodedTooLarge, decode_body
from tests._proxy_upstream import ProxyApps, Upstream, anthropic_history, openai_history
from tests.proxy.test_fuzz import shape_problem

KEY = "sk-test-ENCODING-DISTINCTIVE-41c2"
MODEL = "test-model"
SETTINGS: dict[str, Any] = {"context_window": 32_768, "threshold": 0.25, "summary_max_retries": 0}

MakeApp = Callable[..., Awaitable[Starlette]]


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "x-gzip": gzip.compress,
    "deflate": zlib.compress,
    "deflate-raw": raw_deflate,  # sent as "deflate" (what some clients do)
    "gzip-members": lambda data: gzip.compress(data[:100]) + gzip.compress(data[100:]),
    "deflate, gzip": lambda data: gzip.compress(zlib.compress(data)),
}


def header(name: str) -> str:
    return {"deflate-raw": "deflate", "gzip-members": "gzip"}.get(name, name)


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def make_app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[MakeApp]:
    apps = ProxyApps(upstream)

    async def make(**overrides: Any) -> Starlette:
        return await apps.make(
            upstream_openai="http://upstream.test/v1",
            upstream_anthropic="http://upstream.test",
            db=tmp_path / "proxy.db",
            **{**SETTINGS, **overrides},
        )

    yield make
    await apps.close()


async def post(
    app: Starlette, path: str, body: bytes, coding: str, **headers: str
) -> httpx2.Response:
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test"
    ) as client:
        return await client.post(
            path,
            content=body,
            headers={
                "content-type": "application/json",
                "content-encoding": coding,
                "authorization": f"Bearer {KEY}",
                **headers,
            },
        )


@pytest.mark.parametrize("name", list(ENCODERS))
async def test_a_compressed_chat_request_is_decoded_and_forwarded_plain(
    make_app: MakeApp, upstream: Upstream, name: str
) -> None:
    app = await make_app()
    raw = json.dumps({"model": MODEL, "messages": openai_history(1)}).encode()
    reply = await post(app, "/v1/chat/completions", ENCODERS[name](raw), header(name))
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert "x-contextfold-error" not in reply.headers
    [seen] = upstream.seen
    assert seen.raw == raw  # the bytes as the client wrote them, before compressing
    assert "content-encoding" not in seen.headers


async def test_a_compressed_long_history_is_compacted(
    make_app: MakeApp, upstream: Upstream
) -> None:
    app = await make_app()
    body = {"model": MODEL, "max_tokens": 10, "messages": anthropic_history(24)}
    reply = await post(app, "/v1/messages", gzip.compress(json.dumps(body).encode()), "gzip")
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true"
    [chat] = [s for s in upstream.seen if s not in upstream.summaries]
    assert len(chat.json["messages"]) < len(body["messages"])
    assert "content-encoding" not in chat.headers


@pytest.mark.parametrize(
    ("path", "dialect"), [("/v1/messages", "anthropic"), ("/v1/chat/completions", "openai")]
)
async def test_a_corrupt_stream_is_a_400_in_the_dialects_shape(
    make_app: MakeApp, upstream: Upstream, path: str, dialect: str
) -> None:
    app = await make_app()
    packed = gzip.compress(json.dumps({"model": MODEL, "messages": openai_history(1)}).encode())
    for body, coding in [
        (b"not gzip at all", "gzip"),
        (packed[: len(packed) // 2], "gzip"),  # cut short
        (packed[:-8] + b"\0" * 8, "gzip"),  # a wrong checksum
        (zlib.compress(b"{}") + b"trailing", "deflate"),
        (b"", "gzip"),
    ]:
        reply = await post(app, path, body, coding)
        assert reply.status_code == 400, (body[:20], coding)
        assert shape_problem(dialect, reply.content) is None
        assert "request body" in reply.text
    assert not upstream.seen


async def test_a_decompression_bomb_is_a_413_and_never_inflated_whole(
    make_app: MakeApp, upstream: Upstream
) -> None:
    # 64 MiB of zeros in about 64 KB; the proxy stops at its 1 MB limit.
    app = await make_app(max_body_bytes=1_000_000)
    bomb = gzip.compress(b'{"model": "m", "messages": [], "pad": "' + b"0" * (64 << 20))
    assert len(bomb) < 1_000_000
    reply = await post(app, "/v1/messages", bomb, "gzip")
    assert reply.status_code == 413
    assert shape_problem("anthropic", reply.content) is None
    assert "decoded request body is larger than the proxy's limit of 1000000" in reply.text
    assert not upstream.seen


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip, br"])
async def test_a_coding_the_proxy_does_not_decode_is_forwarded_as_it_is(
    make_app: MakeApp, upstream: Upstream, coding: str
) -> None:
    app = await make_app()
    opaque = b"\x1b\x2c\x00\xf8 compressed bytes the proxy cannot read"
    reply = await post(app, "/v1/chat/completions", opaque, coding)
    [seen] = upstream.seen
    assert (seen.raw, seen.headers["content-encoding"]) == (opaque, coding)
    assert reply.headers["x-contextfold-compacted"] == "false"
    assert reply.headers["x-contextfold-error"] == (
        f"not compacted: request body is {coding}-encoded"
    )


def test_each_decoding_step_is_held_to_the_limit() -> None:
    data = b"x" * 10_000
    assert decode_body(gzip.compress(data), "GZIP", 10_000) == data
    assert decode_body(data, "identity", 10) == data
    with pytest.raises(DecodedTooLarge):
        decode_body(gzip.compress(data), "gzip", 9_999)
    with pytest.raises(DecodedTooLarge):  # the inner layer is bounded too
        decode_body(gzip.compress(zlib.compress(data)), "deflate, gzip", 9_999)
    with pytest.raises(BadEncoding, match="gzip"):
        decode_body(zlib.compress(data), "gzip", 10_000)
    assert decode_body(data, "br", 10) is None

"""Hostile requests against the proxy: never a 5xx of its own, never a dropped connection.

Issue 12.4: a seeded generator makes 3,000 requests of every kind a broken or hostile
client sends (wrong JSON types in every field of both dialects' bodies, roles that are
lists, objects, numbers or null, unknown and malformed content blocks, images with bad
base64, tools/tool_choice/stream garbage, truncated and non-object JSON, duplicate
keys, invalid UTF-8, NaN, bodies nested deeply or larger than ``max_body_bytes``,
wrong content types, lying ``Content-Length``, bodies in pieces or abandoned midway,
NUL and percent-encoded bytes and dot segments in paths, unknown methods, garbage
``Host``). Bodies come in every size class: far under the limit (forwarded unparsed),
parsed but under it, and over it (compacted, with a summary from the fake upstream).

Every request goes into the app in-process, as the exact ASGI messages a server would
pass; every tenth is also written raw onto one keep-alive socket of the proxy served
as ``serve`` serves it, under each of uvicorn's parsers (httptools and h11). Asserted
for each: a complete response; no 5xx except the deliberate ones (an upstream told to
fail, whose status is relayed; an unreachable or silent upstream: 502/504); every
error the proxy makes itself, the server's answers to what it cannot parse included,
is JSON in the shape of the route's dialect with a 4xx status; no ERROR log (the
app's safety net never fired).

Before the fuzz test, single hostile requests with exact expectations: requests never
forwarded (unknown methods, dot segments), a client that leaves or lies about its
length, an unforeseen defect (the safety net), a relayed stream failing midway.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import random
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.proxy import create_app
from contextfold.proxy._server import HttpProtocol
from tests._faces import app_arguments
from tests._proxy_upstream import Upstream, anthropic_history, openai_history
from tests._raw_http import Connection, Served, call_asgi

# Another seed explores other requests: CONTEXTFOLD_FUZZ_SEED=7 pytest tests/test_proxy_fuzz.py
SEED = int(os.environ.get("CONTEXTFOLD_FUZZ_SEED", "20260412"))
REQUESTS = 3_000
# The requests are sent in shards, one test each, so parallel workers share them (one
# test of 3,000 took 44 s of one worker, the suite's longest)
SHARDS = 4
SOCKET_EVERY = 10
PROTOCOLS: list[HttpProtocol] = ["httptools", "h11"]
MAX_BODY = 200_000
KEY = "sk-fuzz-DISTINCTIVE-5e4d3c2b1a"
MODEL = "test-model"
# Limit ~8,192 tokens: bodies under ~16 KB take the unparsed fast path, bodies over
# ~33 KB are compacted.
SETTINGS: dict[str, Any] = {
    "context_window": 32_768,
    "threshold": 0.25,
    "summary_max_retries": 0,
    "max_body_bytes": MAX_BODY,
}
CHAT = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


@dataclass
class Case:
    """One request, as raw as it goes on the wire."""

    kind: str
    method: str
    target: bytes
    body: bytes = b""
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    length: bytes | None = None  # the Content-Length sent; None: the true one
    chunks: int = 1
    disconnect: bool = False  # the client leaves before the body ends (in-process only)
    upstream_fails: int | None = None  # the status the upstream answers chats with
    dead_upstream: str | None = None  # "refused" | "silent"
    framing_ok: bool = True  # False: not HTTP/1.1 a server passes on to its app

    def asgi_headers(self) -> list[tuple[bytes, bytes]]:
        named = {n.lower() for n, _ in self.headers}
        out = [] if b"host" in named else [(b"host", b"proxy.test")]
        length = self.length if self.length is not None else str(len(self.body)).encode()
        return [*out, *self.headers, (b"content-length", length)]

    def wire(self) -> bytes:
        lines = [self.method.encode() + b" " + self.target + b" HTTP/1.1"]
        lines += [n + b": " + v for n, v in self.asgi_headers()]
        return b"\r\n".join(lines) + b"\r\n\r\n" + self.body

    def pieces(self) -> list[bytes]:
        size = -(-len(self.body) // self.chunks) or 1
        return [self.body[i : i + size] for i in range(0, len(self.body), size)] or [b""]

    def dialect(self) -> str:
        """The dialect the proxy answers in: the chat route's, else by path and header."""
        path = unquote(self.target.partition(b"?")[0].decode())
        if self.method == "POST" and path in CHAT.values():
            return "anthropic" if path == CHAT["anthropic"] else "openai"
        if path == "/v1/messages" or path.startswith("/v1/messages/"):
            return "anthropic"
        named = {n.lower() for n, _ in self.headers}
        return "anthropic" if b"anthropic-version" in named else "openai"


# -- hostile values ---------------------------------------------------------------------

HOSTILE: list[Any] = [
    None, True, False, 0, -1, 2.5, 10**40, "", "\x00", "\ud800", "x y", [], {}, [None],
    [[]], {"": {}}, {"type": "bogus"}, ["user"], {"role": "user"}, [1, "a", None],
]  # fmt: skip
DEPTHS = [40, 120, 400]  # tool results in tool results: the parser recurses per level
ROLES: list[Any] = [["user"], {"role": "user"}, ["assistant", "user"], {}, [], 1, 0.5, None]
ROLES += [True, "", "USER", "robot", "tool", "system", "\x00", "developer"]


def nested(depth: int, leaf: Any = None) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def hostile(rng: random.Random) -> Any:
    pick = rng.randrange(len(HOSTILE) + 2)
    if pick == len(HOSTILE):
        return nested(rng.choice([5, 40, 80]))
    if pick == len(HOSTILE) + 1:
        return "t" * rng.choice([1, 300, 5_000])
    return copy.deepcopy(HOSTILE[pick])


def slots(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) of ``value``'s tree, in a fixed order."""
    out: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node))
        for key in keys:
            out.append((node, key))
            if isinstance(node[key], dict | list):
                stack.append(node[key])
    return out


def bad_block(rng: random.Random, dialect: str) -> Any:
    png = "iVBORw0KGgo="
    if dialect == "openai":
        options: list[Any] = [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,!!not base64!!"}},
            {"type": "image_url", "image_url": {"url": f"data:image/tiff;base64,{png}"}},
            {"type": "image_url", "image_url": {"url": ["data:image/png;base64,"]}},
            {"type": "image_url", "image_url": None},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 4_001}},
            {"type": "text", "text": hostile(rng)},
            {"type": "refusal", "refusal": 5},
            {"type": "input_audio", "input_audio": "garbage"},
        ]
    else:
        source = {"type": "base64", "media_type": "image/png", "data": "%%% not base64"}
        options = [
            {"type": "image", "source": source},
            {"type": "image", "source": {**source, "data": png, "media_type": hostile(rng)}},
            {"type": "image", "source": {**source, "data": hostile(rng)}},
            {"type": "image", "source": "base64"},
            {"type": "tool_use", "id": hostile(rng), "name": "f", "input": hostile(rng)},
            {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "tool_use"}]},
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "content": nested_results(rng.choice(DEPTHS)),
            },
            {"type": "thinking", "thinking": hostile(rng), "signature": hostile(rng)},
        ]
    options += [
        {"type": rng.choice(["video", "", "TEXT", "server_tool_use", "x" * 300])},
        {"type": hostile(rng), "text": "t"},
        {"text": "no type"},
        hostile(rng),
    ]
    return rng.choice(options)


def nested_results(depth: int) -> list[Any]:
    """Tool results inside tool results, ``depth`` deep (recursion in the parser)."""
    content: list[Any] = [{"type": "text", "text": "leaf"}]
    for i in range(depth):
        content = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": content}]
    return content


def chat_body(rng: random.Random, dialect: str) -> dict[str, Any]:
    """A well-formed chat request, far under, near or over the limit."""
    turns, chars = rng.choice([(0, 50), (1, 300), (3, 400), (7, 1_000), (20, 800)])
    if dialect == "openai":
        body: dict[str, Any] = {"model": MODEL, "messages": openai_history(turns, chars)}
        tools = [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]
        extras = {"temperature": 0.2, "stream": True, "tools": tools, "tool_choice": "auto"}
    else:
        body = {"model": MODEL, "max_tokens": 50, "messages": anthropic_history(turns, chars)}
        tools = [{"name": "read_file", "description": "d", "input_schema": {"type": "object"}}]
        extras = {"system": "Be careful.", "stream": True, "tools": tools}
    for name, value in extras.items():
        if rng.random() < 0.3:
            body[name] = value
    # a conversation of its own (summaries are cached per history)
    first = body["messages"][1 if dialect == "openai" else 0]
    first["content"] = f"{first['content']} #{rng.randrange(10**9)}"
    return body


def mutate(rng: random.Random, kind: str, body: dict[str, Any], dialect: str) -> None:
    """Break ``body`` in place, the way ``kind`` says."""
    messages = body["messages"]
    if kind == "field":
        for _ in range(rng.randint(1, 3)):
            node, key = rng.choice(slots(body))
            if rng.random() < 0.15 and isinstance(node, dict):
                del node[key]
                return  # the slot list is stale now
            node[key] = hostile(rng)
    elif kind == "role":
        for message in rng.sample(messages, min(len(messages), rng.randint(1, 2))):
            message["role"] = copy.deepcopy(rng.choice(ROLES))
    elif kind == "block":
        message = rng.choice(messages)
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": "t"}]
        blocks.insert(rng.randint(0, len(blocks)), bad_block(rng, dialect))
        message["content"] = blocks
    elif kind == "tools":
        body[rng.choice(["tools", "tool_choice", "functions"])] = hostile(rng)
        calls = [m for m in messages if m.get("tool_calls")]
        if calls and rng.random() < 0.5:
            call = rng.choice(calls)["tool_calls"][0]
            call["function"]["arguments"] = rng.choice(["{not json", "[1]", "", hostile(rng)])
    elif kind == "stream":
        body["stream"] = hostile(rng)
        body["stream_options"] = hostile(rng)


def serialize(rng: random.Random, kind: str, body: dict[str, Any]) -> bytes:
    text = json.dumps(body)
    if kind == "truncated":
        return text[: rng.randrange(max(1, len(text)))].encode()
    if kind == "duplicate":
        dup = rng.choice([f'"model": {json.dumps(hostile(rng))}', '"messages": "dup"'])
        dup += ', "model": "other-model"' if rng.random() < 0.5 else ""
        if rng.random() < 0.5:
            return ("{" + dup + ", " + text[1:]).encode()
        return (text[:-1] + ", " + dup + "}").encode()
    if kind == "top":
        return json.dumps(rng.choice([[body], "body", 7, None, True, [], ""])).encode()
    if kind == "utf8":
        raw = text.encode()
        if rng.random() < 0.25:
            return rng.choice([b"\xef\xbb\xbf" + raw, text.encode("utf-16"), text.encode("utf-32")])
        at = rng.randrange(len(raw))
        bad = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80", b"\x00"])
        return raw[:at] + bad + raw[at:]
    if kind == "nan":
        value = rng.choice(["NaN", "Infinity", "-Infinity", "1e999", "-0", "1" * 5_000])
        return (text[:-1] + f', "temperature": {value}}}').encode()
    if kind == "deep":
        depth = rng.choice([60, 101, 300, 800, 950, 990, 2_000, 100_000])
        opening, closing = rng.choice([("[", "]"), ('{"a":', "}")])
        deep = opening * depth + "1" + closing * depth
        node, key = rng.choice(slots(body))
        node[key] = "@DEEP@"
        return json.dumps(body).replace('"@DEEP@"', deep, 1).encode()
    return text.encode()


# -- the generator ------------------------------------------------------------------------

BODY_KINDS = ["valid", "field", "role", "block", "tools", "stream"]
TEXT_KINDS = ["truncated", "duplicate", "top", "utf8", "nan", "deep"]
TARGETS = [
    b"/v1/models%00/x", b"/v1/models/%00", b"/v1/%2e%2e/admin", b"/v1/../admin", b"/v1/./models",
    b"/v1/models/%2E%2E/%2e%2e/x", b"/%ff%fe", b"/v1/models/%zz", b"/v1/models/%", b"//x",
    b"/", b"/v1", b"/v1/", b"/v1/chat/completions%00", b"/v1/chat%2Fcompletions",
    b"/v1/messages/%2e%2e/%2e%2e/x", b"/v1/messages/count_tokens?x=%00%ff",
    b"/v1/models?a=%zz&b=%00&c=" + b"%41" * 300, b"/v1/" + b"a" * 6_000, b"/V1/Messages",
    b"/v1/chat/completions/", b"/v1/messages?beta=true", b"/v1/files/a%2Fb%5C..%5Cc",
    b"/v1/models#frag", b"/v1/%F0%9F%98%80/x", b"/v1/files/'\"<>{}|^`",
]  # fmt: skip
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "FOO", "get"]
CONTENT_TYPES = [b"text/plain", b"multipart/form-data; boundary=x", b"", b"\xff\xfe"]
CONTENT_TYPES += [b"application/x-www-form-urlencoded", b"application/json; charset=utf-16"]
LENGTHS = [b"abc", b"-1", b"\xb2", b"1e3", b"0x10", b"99999999999999999999", b"", b" 7"]


def credentials(rng: random.Random, dialect: str) -> list[tuple[bytes, bytes]]:
    roll = rng.random()
    if roll < 0.6:
        key = KEY.encode()
        return [
            (b"authorization", b"Bearer " + key) if dialect == "openai" else (b"x-api-key", key)
        ]
    if roll < 0.8:
        return []
    return [rng.choice(
        [(b"authorization", b"Bearer"), (b"authorization", b"Bearer \xff\xfe"),
         (b"authorization", b"Basic Zm9vOmJhcg=="), (b"x-api-key", b"\x80 key"),
         (b"authorization", b"bearer " + b"k" * 5_000)]
    )]  # fmt: skip


def make_case(rng: random.Random) -> Case:
    roll = rng.random()
    if roll < 0.12:  # paths and methods
        method = rng.choice(METHODS)
        body = json.dumps(chat_body(rng, "openai")).encode() if rng.random() < 0.3 else b""
        headers = [(b"anthropic-version", b"2023-06-01")] if rng.random() < 0.3 else []
        return Case("path", method, rng.choice(TARGETS), body, headers)
    dialect = rng.choice(["openai", "anthropic"])
    route = CHAT[dialect] if rng.random() < 0.9 else CHAT[rng.choice(["openai", "anthropic"])]
    body = chat_body(rng, dialect)
    kind = rng.choice(BODY_KINDS + TEXT_KINDS)
    text_kind = kind
    if kind in BODY_KINDS:
        mutate(rng, kind, body, dialect)
    elif kind == "deep" and dialect == "anthropic" and rng.random() < 0.5:
        results = nested_results(rng.choice([150, 300, 400]))
        body["messages"][0]["content"] = results  # deep, yet shallow enough for json
        text_kind = "valid"
    raw = serialize(rng, text_kind, body)
    case = Case(kind, "POST", route.encode(), raw, credentials(rng, dialect))
    case.headers.append((b"content-type", b"application/json"))
    roll = rng.random()
    if roll < 0.05:
        case.kind, case.body = "huge", case.body + b" " * (MAX_BODY + rng.randint(1, 50_000))
        case.length = rng.choice([None, b"10", b"0"])
    elif roll < 0.10:
        case.kind, case.headers[-1] = "ctype", (b"content-type", rng.choice(CONTENT_TYPES))
        if rng.random() < 0.3:
            case.headers.append((b"content-encoding", b"gzip"))
    elif roll < 0.15:
        case.kind = "length"
        case.length = rng.choice(
            [
                str(len(case.body) + rng.randint(1, 99)).encode(),
                b"0",
                str(len(case.body) // 2).encode(),
                *LENGTHS,
            ]
        )
        case.framing_ok = case.length.isdigit()
    elif roll < 0.19:
        case.kind = "headers"
        host = rng.choice([b"[", b"a b", b"::1", b"", b"h:99999", b"\xff", b"x/../y"])
        case.headers += [
            (b"host", host),
            (b"anthropic-version", b"\x00" if rng.random() < 0.2 else b"1"),
        ]
        case.framing_ok = b"\x00" not in case.headers[-1][1]
    elif roll < 0.23:
        case.kind, case.chunks = "split", rng.randint(2, 40)
    elif roll < 0.25:
        case.kind, case.chunks, case.disconnect = "disconnect", rng.randint(1, 4), True
    elif roll < 0.28:
        case.kind, case.upstream_fails = "upstream-fails", rng.choice([500, 502, 503, 529])
    elif roll < 0.31:
        case.kind, case.dead_upstream = "dead-upstream", rng.choice(["refused", "silent"])
    return case


# -- judging ------------------------------------------------------------------------------


def shape_problem(dialect: str, body: bytes) -> str | None:
    """Why ``body`` is not an error of ``dialect``'s shape, or ``None``."""
    try:
        payload = json.loads(body)
    except ValueError:
        return f"not JSON: {body[:80]!r}"
    if dialect == "openai":
        error = payload.get("error") if isinstance(payload, dict) else None
        ok = (
            set(payload) == {"error"}
            and isinstance(error, dict)
            and set(error) == {"message", "type", "param", "code"}
            and isinstance(error["message"], str)
            and isinstance(error["type"], str)
        )
    else:
        error = payload.get("error") if isinstance(payload, dict) else None
        ok = (
            isinstance(error, dict)
            and set(payload) == {"type", "error"}
            and payload["type"] == "error"
            and set(error) == {"type", "message"}
            and all(isinstance(v, str) for v in error.values())
        )
    return None if ok else f"not an {dialect} error: {payload!r:.120}"


def judge(case: Case, status: int | None, body: bytes, reached: bool) -> str | None:
    """What is wrong with the answer to ``case``, or ``None``."""
    if status is None:
        return "no response (dropped connection)"
    if status >= 500:
        if case.upstream_fails == status and reached:
            return None  # the upstream's own error, relayed
        expected = {"refused": 502, "silent": 504}.get(case.dead_upstream or "")
        if status != expected:
            return f"status {status}"
    if status < 400 or reached:
        return None  # the upstream's answer, relayed
    if status not in (400, 404, 405, 413, 502, 504):
        return f"status {status} made by the proxy"
    if case.method == "HEAD":
        return None
    return shape_problem(case.dialect(), body)


# -- single hostile requests --------------------------------------------------------------


@pytest.fixture
async def make(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """Builds a started proxy app in front of ``upstream`` (a fake or an httpx2 client)."""
    opened: list[tuple[Any, httpx2.AsyncClient]] = []

    async def build(upstream: Upstream | httpx2.AsyncClient) -> Starlette:
        client = upstream
        if isinstance(upstream, Upstream):
            client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=upstream.app()))
        assert isinstance(client, httpx2.AsyncClient)
        app = create_app(
            **app_arguments(
                upstream_openai="http://upstream.test/v1",
                upstream_anthropic="http://upstream.test",
                db=tmp_path / "proxy.db",
                http_client=client,
                **SETTINGS,
            )
        )
        lifespan = app.router.lifespan_context(app)
        await lifespan.__aenter__()
        opened.append((lifespan, client))
        return app

    yield build
    for lifespan, client in reversed(opened):
        await lifespan.__aexit__(None, None, None)
        await client.aclose()


@pytest.mark.parametrize(
    ("method", "target", "headers", "status", "dialect"),
    [
        ("TRACE", b"/v1/chat/completions", [], 405, "openai"),
        ("FOO", b"/v1/messages", [], 405, "anthropic"),
        ("get", b"/v1/models", [(b"anthropic-version", b"2023-06-01")], 405, "anthropic"),
        ("GET", b"*", [], 404, "openai"),
        ("GET", b"/v1/../../admin", [], 400, "openai"),
        ("POST", b"/v1/messages/./../../x", [], 400, "anthropic"),
        ("DELETE", b"/v1/files/%2e%2E/%2e%2e/admin", [], 400, "openai"),
    ],
)
async def test_requests_that_are_never_forwarded_get_json_errors(
    make: Callable[..., Any],
    method: str,
    target: bytes,
    headers: list[tuple[bytes, bytes]],
    status: int,
    dialect: str,
) -> None:
    upstream = Upstream()
    app = await make(upstream)
    answer = await call_asgi(app, method, target, headers=headers)
    assert (answer.status, answer.error) == (status, None)
    assert shape_problem(dialect, answer.body) is None
    if status == 405:
        assert answer.header(b"allow") is not None
    assert not upstream.seen


async def test_a_client_that_leaves_midway_or_lies_about_its_length_breaks_nothing(
    make: Callable[..., Any],
) -> None:
    upstream = Upstream()
    app = await make(upstream)
    raw = json.dumps({"model": MODEL, "messages": openai_history(1)}).encode()
    gone = await call_asgi(app, "POST", b"/v1/chat/completions", chunks=[raw[:50]], disconnect=True)
    assert (gone.error, gone.complete) == (None, True)
    assert not upstream.seen
    for length in [b"\xb2", b"\xd9\xa3", b"-1", str(len(raw) * 2).encode()]:  # "²", Arabic 3
        headers = [(b"content-length", length)]
        answer = await call_asgi(
            app, "POST", b"/v1/chat/completions", headers=headers, chunks=[raw]
        )
        assert (answer.status, answer.error) == (200, None)
    assert [s.raw for s in upstream.seen] == [raw] * 4


async def test_an_unforeseen_error_is_a_logged_json_500_without_the_key(
    make: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    # A defect (here: an httpx2 transport that raises what no transport should) is
    # answered, in the dialect's shape, and logged with the caller's key scrubbed
    # from the whole traceback, chained exceptions included.
    def broken(request: httpx2.Request) -> httpx2.Response:
        try:
            raise KeyError(f"lookup of {KEY}")
        except KeyError as exc:
            raise RuntimeError(f"transport defect with {KEY}") from exc

    app = await make(httpx2.AsyncClient(transport=httpx2.MockTransport(broken)))
    raw = json.dumps({"model": MODEL, "max_tokens": 5, "messages": anthropic_history(1)})
    for target, dialect, auth in [
        (b"/v1/messages", "anthropic", (b"x-api-key", KEY.encode())),
        (b"/v1/chat/completions", "openai", (b"authorization", b"Bearer " + KEY.encode())),
        (b"/v1/models", "openai", (b"authorization", b"Bearer " + KEY.encode())),
    ]:
        method = "GET" if target == b"/v1/models" else "POST"
        answer = await call_asgi(app, method, target, headers=[auth], chunks=[raw.encode()])
        assert (answer.status, answer.error) == (500, None)
        assert shape_problem(dialect, answer.body) is None
        assert b"RuntimeError" in answer.body
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 3
    assert "KeyError" in caplog.text
    assert "transport defect with [REDACTED]" in caplog.text
    assert KEY not in caplog.text


async def test_an_unforeseen_errors_traceback_cannot_forge_log_lines(
    make: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    # The defect's message quotes what an upstream sent: CR/LF and a forged record,
    # and 200 KB. The traceback keeps its lines, each indented under the first and cut.
    def broken(request: httpx2.Request) -> httpx2.Response:
        raise RuntimeError("echo\r\nERROR:    contextfold.proxy: forged\u2028" + "z" * 200_000)

    app = await make(httpx2.AsyncClient(transport=httpx2.MockTransport(broken)))
    answer = await call_asgi(app, "GET", b"/v1/models")
    assert answer.status == 500
    [error] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    first, *traceback_lines = error.getMessage().split("\n")
    assert first == "unexpected error answering GET '/v1/models'"
    assert traceback_lines
    assert all(line.startswith("  | ") for line in traceback_lines)
    assert "\r" not in error.getMessage()
    assert "\u2028" not in error.getMessage()
    # the forged record is one more indented line of the traceback, the 200 KB one is cut
    assert "  | ERROR:    contextfold.proxy: forged" in traceback_lines
    assert any(line.endswith(" more characters not logged]") for line in traceback_lines)
    assert len(error.getMessage()) < 40_000


async def test_a_relayed_stream_that_fails_midway_still_ends_cleanly(
    make: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    async def events() -> AsyncIterator[bytes]:
        yield b"data: {}\n\n"
        raise RuntimeError("the stream broke in a way no transport reports")

    def streaming(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=events())

    app = await make(httpx2.AsyncClient(transport=httpx2.MockTransport(streaming)))
    raw = json.dumps({"model": MODEL, "stream": True, "messages": openai_history(1)}).encode()
    answer = await call_asgi(app, "POST", b"/v1/chat/completions", chunks=[raw])
    assert (answer.status, answer.error, answer.complete) == (200, None, True)
    assert answer.body == b"data: {}\n\n"
    assert "the stream broke" in caplog.text


# -- the fuzz test ------------------------------------------------------------------------


def chats(upstream: Upstream) -> int:
    """How many chat requests (not summaries) the upstream has answered."""
    return len(upstream.seen) - len(upstream.summaries)


def dead_client(how: str) -> httpx2.AsyncClient:
    def answer(request: httpx2.Request) -> httpx2.Response:
        if how == "refused":
            raise httpx2.ConnectError("connection refused", request=request)
        raise httpx2.ReadTimeout("no answer", request=request)

    return httpx2.AsyncClient(transport=httpx2.MockTransport(answer))


@pytest.fixture
async def apps(tmp_path: Path) -> AsyncIterator[tuple[Upstream, Callable[[Case], Starlette]]]:
    upstream = Upstream()
    clients = {
        "live": httpx2.AsyncClient(transport=httpx2.ASGITransport(app=upstream.app())),
        "refused": dead_client("refused"),
        "silent": dead_client("silent"),
    }
    made: dict[str, Starlette] = {}
    for name, client in clients.items():
        made[name] = create_app(
            **app_arguments(
                upstream_openai="http://upstream.test/v1",
                upstream_anthropic="http://upstream.test",
                db=tmp_path / f"{name}.db",
                http_client=client,
                **SETTINGS,
            )
        )
    lifespans = [app.router.lifespan_context(app) for app in made.values()]
    for lifespan in lifespans:
        await lifespan.__aenter__()
    yield upstream, lambda case: made[case.dead_upstream or "live"]
    for lifespan in lifespans:
        await lifespan.__aexit__(None, None, None)
    for client in clients.values():
        await client.aclose()


@pytest.mark.parametrize("shard", range(SHARDS))
async def test_no_hostile_request_gets_a_500_or_a_dropped_connection(
    apps: tuple[Upstream, Callable[[Case], Starlette]],
    caplog: pytest.LogCaptureFixture,
    shard: int,
) -> None:
    upstream, app_for = apps
    caplog.set_level(logging.ERROR)
    rng = random.Random(SEED)
    # the same REQUESTS cases in every shard's draw; each shard sends its own share
    cases = [make_case(rng) for _ in range(REQUESTS)][shard::SHARDS]
    statuses: Counter[str] = Counter()  # "status origin": made by the proxy or relayed
    failures: list[str] = []
    for number, case in enumerate(cases):
        before = chats(upstream)
        upstream.fail_chat = None
        if case.upstream_fails is not None:
            payload = {"error": {"message": "deliberate", "type": "x", "param": None, "code": None}}
            upstream.fail_chat = (case.upstream_fails, payload, {})
        answer = await call_asgi(
            app_for(case),
            case.method,
            case.target,
            headers=case.asgi_headers(),
            chunks=case.pieces(),
            disconnect=case.disconnect,
        )
        reached = chats(upstream) > before
        statuses[f"{answer.status} {'upstream' if reached else 'proxy'}"] += 1
        problem = judge(case, answer.status, answer.body, reached)
        if answer.error is not None or not answer.complete:
            problem = f"dropped connection ({answer.error!r})"
        if problem is not None:
            failures.append(f"#{number} {case.kind} {case.method} {case.target[:60]!r}: {problem}")
    upstream.fail_chat = None

    socket: Counter[int | None] = Counter()
    for http in PROTOCOLS:  # both of the server's parsers, each on its own server
        socket += await replay_over_socket(
            upstream, app_for, cases[::SOCKET_EVERY], failures, http=http
        )
    kinds = Counter(c.kind for c in cases)
    print(f"\nfuzzed {len(cases)} requests in-process, {socket.total()} again over a socket")
    print("statuses in-process:", dict(sorted(statuses.items())))
    print("statuses over the socket:", dict(sorted(socket.items(), key=str)))
    print("kinds:", dict(sorted(kinds.items())))
    print("summaries made by the fake upstream:", len(upstream.summaries))
    assert not failures, f"{len(failures)} bad answers:\n" + "\n".join(failures[:40])
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(upstream.summaries) > 0  # the over-the-limit path was exercised
    assert statuses["200 upstream"] > len(cases) // 4


async def replay_over_socket(
    upstream: Upstream,
    app_for: Callable[[Case], Starlette],
    cases: list[Case],
    failures: list[str],
    *,
    http: HttpProtocol,
) -> Counter[int | None]:
    """``cases`` written raw to the live proxy served with ``http``; the statuses back.

    Well-framed requests share one keep-alive connection, so a request that broke
    its connection shows as the next one's dropped connection too.
    """
    statuses: Counter[int | None] = Counter()
    live = [c for c in cases if not c.disconnect and c.dead_upstream is None]
    async with Served(app_for(live[0]), http=http, lifespan="off") as served:  # started
        keep_alive = Connection(served.port)
        for case in live:
            upstream.fail_chat = None
            if case.upstream_fails is not None:
                upstream.fail_chat = (case.upstream_fails, {"error": {"message": "x"}}, {})
            before = chats(upstream)
            declared = int(case.length) if case.length is not None and case.length.isdigit() else 0
            if len(case.body) < declared <= MAX_BODY:
                # The body never ends: the client gives up, the server can only hang up.
                reply = await Connection(served.port).send(case.wire(), half_close=True)
                problem = None if reply.status in (None, 400) else f"status {reply.status}"
            elif not case.framing_ok or case.length is not None:
                # Framing the server rejects itself, or bytes left after the declared
                # body: a connection of its own, read once. The leftover bytes are no
                # HTTP, so the server closes the connection; closed with bytes unread,
                # TCP resets it, and the reset may destroy the response on its way.
                own = Connection(served.port)
                reply = await own.send(case.wire())
                await own.close()
                problem = judge(case, reply.status, reply.body, chats(upstream) > before)
                if not case.framing_ok:  # the server's own 400 (or that reset)
                    problem = None if reply.status is None else f"status {reply.status}"
                    if reply.status == 400:
                        problem = shape_problem(case.dialect(), reply.body)
                elif reply.status is None and declared < len(case.body):
                    problem = None
            else:
                reply = await keep_alive.send(case.wire(), head=case.method == "HEAD")
                problem = judge(case, reply.status, reply.body, chats(upstream) > before)
            statuses[reply.status] += 1
            if problem is not None:
                where = f"socket ({http}) {case.kind} {case.method} {case.target[:60]!r}"
                failures.append(f"{where}: {problem}")
        await keep_alive.close()
        if keep_alive.dropped:
            failures.append(f"{keep_alive.dropped} dropped keep-alive connections ({http})")
    upstream.fail_chat = None
    return statuses

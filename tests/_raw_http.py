"""Requests no well-behaved client would send: straight into an ASGI app, or onto a socket.

HTTP clients (httpx, the SDKs) normalize what they send: they resolve ``..``
segments, quote paths, compute ``Content-Length``. To see what the proxy does with
what a hostile client can really put on the wire, :func:`call_asgi` hands an ASGI
app the exact scope and body messages a server would (raw path, any header bytes,
a body in pieces, a client that goes away mid-body), and :func:`exchange` writes
raw bytes to a real server's socket and reads one response back; :class:`Served`
runs an app under uvicorn on a free loopback port.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import uvicorn
from starlette.types import ASGIApp, Message

from contextfold.proxy._server import HttpProtocol, server_config


@dataclass
class Answer:
    """What came back for one request; ``error`` is set when the app raised."""

    status: int | None
    headers: list[tuple[bytes, bytes]]
    body: bytes
    complete: bool  # the response was started and its last body message sent
    error: BaseException | None = None

    def header(self, name: bytes) -> bytes | None:
        return next((v for n, v in self.headers if n.lower() == name), None)


async def call_asgi(
    app: ASGIApp,
    method: str,
    target: bytes,
    *,
    headers: Sequence[tuple[bytes, bytes]] = (),
    chunks: Sequence[bytes] = (b"",),
    disconnect: bool = False,
) -> Answer:
    """One HTTP request as a server would pass it to ``app``.

    ``target`` is the raw request target (path and query, percent-encoding as sent);
    ``scope["path"]`` is its percent-decoded path, like uvicorn's. The body arrives
    as ``chunks``; with ``disconnect`` the client goes away after them instead of
    finishing the body.
    """
    raw_path, _, query = target.partition(b"?")
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(raw_path.decode("ascii")),
        "raw_path": raw_path,
        "query_string": query,
        "root_path": "",
        "headers": [(n.lower(), v) for n, v in headers],
        "client": ("127.0.0.1", 50000),
        "server": ("proxy.test", 80),
    }
    pending: list[Message] = [
        {"type": "http.request", "body": c, "more_body": disconnect or i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]
    if disconnect:
        pending.append({"type": "http.disconnect"})
    finished = asyncio.Event()

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        await finished.wait()  # a server reports the disconnect once the reply is out
        return {"type": "http.disconnect"}

    answer = Answer(None, [], b"", complete=False)

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            assert answer.status is None, "response started twice"
            answer.status = message["status"]
            answer.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            assert answer.status is not None, "body before the response started"
            assert not answer.complete, "body after the response ended"
            answer.body += message.get("body", b"")
            if not message.get("more_body", False):
                answer.complete = True
                finished.set()

    try:
        await app(scope, receive, send)
    except Exception as exc:  # an app that raises drops the client's connection
        answer.error = exc
    finally:
        finished.set()
    return answer


@dataclass
class Reply:
    """One HTTP response read off a socket (``status`` ``None``: the server hung up)."""

    status: int | None
    headers: dict[bytes, bytes]
    body: bytes


class Connection:
    """One keep-alive client connection to ``127.0.0.1:port``, written to raw.

    ``dropped`` counts the requests the server hung up on without a response.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.dropped = 0
        self._stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def send(self, request: bytes, *, head: bool = False, half_close: bool = False) -> Reply:
        """Write ``request`` and read its response (``head``: a reply without a body).

        With ``half_close`` the client shuts its side after writing (a body shorter
        than its ``Content-Length`` then ends there) and the connection is not reused.
        """
        if self._stream is None:
            self._stream = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self._stream
        writer.write(request)
        await writer.drain()
        if half_close:
            writer.write_eof()
        async with asyncio.timeout(10):
            reply = await read_reply(reader, head=head)
        if reply.status is None:
            self.dropped += 1
        if half_close or reply.status is None or reply.headers.get(b"connection") == b"close":
            await self.close()
        return reply

    async def close(self) -> None:
        if self._stream is not None:
            self._stream[1].close()
            with contextlib.suppress(OSError):
                await self._stream[1].wait_closed()
            self._stream = None


async def read_reply(reader: asyncio.StreamReader, *, head: bool = False) -> Reply:
    """One response from ``reader`` (Content-Length, chunked or close-delimited body).

    A connection closed or reset before the whole response arrived reads as
    ``Reply(None, ...)``.
    """
    try:
        return await _read_reply(reader, head)
    except (asyncio.IncompleteReadError, ConnectionError):
        return Reply(None, {}, b"")


async def _read_reply(reader: asyncio.StreamReader, head: bool) -> Reply:
    head_bytes = await reader.readuntil(b"\r\n\r\n")
    lines = head_bytes.split(b"\r\n")
    status = int(lines[0].split(b" ")[1])
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
    if head:
        body = b""
    elif b"content-length" in headers:
        body = await reader.readexactly(int(headers[b"content-length"]))
    elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        body = b""
        while size := int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16):
            body += await reader.readexactly(size)
            await reader.readexactly(2)
        await reader.readuntil(b"\r\n")  # no trailers are sent
    else:
        body = await reader.read()
    return Reply(status, headers, body)


class Served:
    """An ASGI app served by uvicorn on a free 127.0.0.1 port, in this event loop.

    Served as :func:`contextfold.proxy.serve` serves the proxy (its protocols, with
    JSON error answers, and settings), any app alike; ``http`` picks the protocol
    (``None``: the one ``serve`` runs); ``lifespan="off"`` for an app started already;
    ``options`` go to :func:`~contextfold.proxy._server.server_config` (its timeouts).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        http: HttpProtocol | None = None,
        lifespan: str = "on",
        **options: Any,
    ) -> None:
        # IPPROTO_TCP named: asyncio turns Nagle off only for such sockets, and with it
        # on every keep-alive response waits ~40 ms for a delayed ACK.
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = server_config(app, log_level="warning", lifespan=lifespan, http=http, **options)
        self.server = uvicorn.Server(config)
        self.task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> Served:
        self.task = asyncio.create_task(self.server.serve(sockets=[self.sock]))
        async with asyncio.timeout(10):
            while not self.server.started:  # noqa: ASYNC110 - uvicorn offers no event
                await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.should_exit = True
        if self.task is not None:
            await self.task
        self.sock.close()

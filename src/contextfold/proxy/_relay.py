"""How the proxy answers: upstream replies relayed with its report, and its own errors.

:class:`Relaying` is the part of :class:`~contextfold.proxy._forward.Forwarder` that
turns an upstream reply into the client's answer: hop-by-hop headers dropped, the
``x-contextfold-*`` report added, the prompt size the upstream reported recorded as
the history's anchor. Its errors are JSON in the route's dialect.

How much of a reply the proxy holds:

* a server-sent event stream is relayed chunk by chunk as it arrives (its usage read
  from its events as they pass);
* any other reply is read ahead at most :data:`LOOK_AHEAD` bytes (8 MiB). One that
  ends within them (every chat answer) is relayed whole, with its length: its usage
  is read from its JSON, a context-overflow error can be retried, and a reply that
  breaks off is answered with a 502. A longer one (a file download, say) is streamed:
  what was read, then the rest chunk by chunk as it arrives, with the upstream's
  ``Content-Length`` when it sent one; its usage is not read. Should it break off, the
  connection is closed before the answer ends (the client sees a body cut short, never
  a shorter one that looks whole).

So an answer of any size costs the proxy at most :data:`LOOK_AHEAD` bytes, plus what
waits in the sockets' buffers (the upstream connection stops reading at 128 KiB unread,
see :mod:`._upstream`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

from starlette.responses import Response, StreamingResponse

from contextfold._secrets import Secrets
from contextfold.proxy import _json
from contextfold.proxy._bound import SizeBound
from contextfold.proxy._compact import ForwardPlan, Planner
from contextfold.proxy._dashboard import DashboardRecorder
from contextfold.proxy._dialects import Dialect, SSEUsageScanner, usage_input_tokens
from contextfold.proxy._guard import BrokeOff, json_error
from contextfold.proxy._metrics import ProxyMetrics, upstream_time
from contextfold.proxy._upstream import RawHeaders, Reply, UpstreamError

__all__ = ["LOOK_AHEAD", "Opened", "RawHeaders", "Relaying", "drop_headers", "is_stream"]

LOOK_AHEAD = 8 * 1024 * 1024
"""The most bytes of a reply (not an event stream) read before its answer starts."""

logger = logging.getLogger("contextfold.proxy")

# RFC 9110 §7.6.1 hop-by-hop headers, plus what the proxy recomputes itself.
_HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
        b"host",
        b"content-length",
    }
)
_UNSAFE_HEADER_TEXT = re.compile(r"[^\x20-\x7e]")
_ERROR_HEADER_CHARS = 300


def drop_headers(headers: Iterable[tuple[bytes, bytes]], extra: frozenset[bytes]) -> RawHeaders:
    """``headers`` (raw byte pairs, relayed as they are) without hop-by-hop ones.

    Names come out lower-cased; values are never decoded, so bytes outside ASCII
    pass through untouched.
    """
    pairs = [(name.lower(), value) for name, value in headers]
    named = {
        token.strip().lower()
        for name, value in pairs
        if name == b"connection"
        for token in value.split(b",")
    }
    return [(n, v) for n, v in pairs if n not in _HOP_BY_HOP | extra | named]


def is_stream(reply: Reply) -> bool:
    return reply.header(b"content-type").startswith("text/event-stream")


@dataclass(slots=True)
class Opened:
    """A reply longer than :data:`LOOK_AHEAD`: its first chunks, and the rest to come."""

    read: list[bytes]
    rest: AsyncIterator[bytes]


class Relaying:
    """The answering half of a forwarder (see the module doc)."""

    planner: Planner
    metrics: ProxyMetrics
    bound: SizeBound
    dashboard: DashboardRecorder | None

    def _report(self, plan: ForwardPlan, secrets: Secrets) -> list[tuple[str, str]]:
        headers = [("x-contextfold-compacted", "true" if plan.compacted else "false")]
        if plan.tokens_before is not None and plan.tokens_after is not None:
            headers.append(("x-contextfold-tokens-before", str(plan.tokens_before)))
            headers.append(("x-contextfold-tokens-after", str(plan.tokens_after)))
        headers.append(("x-contextfold-summary", plan.summary))
        if plan.error is not None:
            text = _UNSAFE_HEADER_TEXT.sub(" ", secrets.text(plan.error))
            # HTTP forbids a header value that starts or ends with whitespace
            headers.append(("x-contextfold-error", text[:_ERROR_HEADER_CHARS].strip()))
        return headers

    async def _content(self, reply: Reply, dialect: Dialect) -> bytes | Opened | Response:
        """The whole body of a reply that ends within :data:`LOOK_AHEAD` bytes (closed
        after), what was read of a longer one (left open: :meth:`_streamed` relays the
        rest), or a 502 if it broke off first."""
        reading = time.perf_counter()
        chunks: list[bytes] = []
        size = 0
        rest = reply.chunks()
        whole = True
        try:
            async for chunk in rest:
                chunks.append(chunk)
                size += len(chunk)
                if size > LOOK_AHEAD:
                    whole = False
                    return Opened(chunks, rest)
            return b"".join(chunks)
        except UpstreamError as exc:
            self.metrics.upstream_error("broken")
            return json_error(dialect, 502, f"the upstream reply broke off ({exc.cause})")
        finally:
            if whole:
                await reply.aclose()
            upstream_time(time.perf_counter() - reading)

    def _headers(
        self, reply: Reply, plan: ForwardPlan | None, secrets: Secrets, retried: bool
    ) -> RawHeaders:
        raw_out = drop_headers(reply.raw_headers, frozenset())
        if plan is not None:
            raw_out += [(n.encode(), v.encode()) for n, v in self._report(plan, secrets)]
        if retried:
            raw_out.append((b"x-contextfold-retried", b"context-overflow"))
        return raw_out

    async def _respond(
        self,
        reply: Reply,
        dialect: Dialect,
        plan: ForwardPlan | None,
        body: bytes,
        secrets: Secrets,
        *,
        retried: bool = False,
    ) -> Response:
        """The client's answer: ``reply`` relayed (streamed or buffered) with the report."""
        if is_stream(reply):
            record = plan is not None and reply.status_code < 300
            scanner = SSEUsageScanner(dialect) if record else None
            response: Response = StreamingResponse(
                self._relay(reply, scanner, plan, body, secrets), status_code=reply.status_code
            )
            response.raw_headers = self._headers(reply, plan, secrets, retried)
            return response
        content = await self._content(reply, dialect)
        if isinstance(content, Response):
            return content
        if isinstance(content, Opened):
            return self._streamed(reply, content, plan, secrets, retried=retried)
        return self._buffered(reply, content, dialect, plan, body, secrets, retried=retried)

    def _streamed(
        self,
        reply: Reply,
        opened: Opened,
        plan: ForwardPlan | None,
        secrets: Secrets,
        *,
        retried: bool = False,
    ) -> Response:
        """A reply longer than :data:`LOOK_AHEAD` relayed as it arrives, with the report
        (and the upstream's ``Content-Length``); its usage is not read."""
        response = StreamingResponse(self._rest(reply, opened), status_code=reply.status_code)
        raw_out = self._headers(reply, plan, secrets, retried)
        length = reply.header(b"content-length")
        if length.isascii() and length.isdigit():
            raw_out.append((b"content-length", length.encode()))
        response.raw_headers = raw_out
        return response

    async def _rest(self, reply: Reply, opened: Opened) -> AsyncIterator[bytes]:
        sent = 0
        try:
            while opened.read:  # handed on one at a time: each is freed once sent
                chunk = opened.read.pop(0)
                sent += len(chunk)
                yield chunk
            async for chunk in opened.rest:
                sent += len(chunk)
                yield chunk
        except UpstreamError as exc:
            self.metrics.upstream_error("broken")
            logger.warning("upstream reply broke off after %d bytes relayed: %s", sent, exc.cause)
            raise BrokeOff from None
        finally:
            await reply.aclose()

    def _buffered(
        self,
        reply: Reply,
        content: bytes,
        dialect: Dialect,
        plan: ForwardPlan | None,
        body: bytes,
        secrets: Secrets,
        *,
        retried: bool = False,
    ) -> Response:
        """A whole reply relayed, with the report; its usage recorded when it succeeded."""
        if plan is not None and reply.status_code < 300 and not reply.has(b"content-encoding"):
            self._record_json(dialect, content, plan, body)
        response = Response(content, status_code=reply.status_code)
        raw_out = self._headers(reply, plan, secrets, retried)
        response.raw_headers = [*raw_out, (b"content-length", str(len(content)).encode())]
        return response

    def _record(self, plan: ForwardPlan, forwarded: bytes, input_tokens: int) -> None:
        """Remember a reported prompt size: as the history's anchor, and per byte."""
        if plan.usage_key:
            self.planner.record_usage(plan.usage_key, input_tokens)
        if plan.learn:
            self.bound.learn(forwarded, input_tokens, plan.tenant)
        if self.dashboard is not None:
            self.dashboard.reported(plan, input_tokens)

    def _record_json(
        self, dialect: Dialect, content: bytes, plan: ForwardPlan, forwarded: bytes
    ) -> None:
        try:
            tokens = usage_input_tokens(dialect, _json.loads(content)[0])
        except (ValueError, RecursionError):  # not JSON (or not readable JSON)
            return
        if tokens:
            self._record(plan, forwarded, tokens)

    async def _relay(
        self,
        reply: Reply,
        scanner: SSEUsageScanner | None,
        plan: ForwardPlan | None,
        forwarded: bytes,
        watched: Secrets,
    ) -> AsyncIterator[bytes]:
        # ``watched`` is held until the stream ends: its log scrubbing lasts as long.
        try:
            async for chunk in reply.chunks():
                if scanner is not None:
                    scanner.feed(chunk)
                yield chunk
        except UpstreamError as exc:
            # Headers are gone already; the client sees the stream end early.
            self.metrics.upstream_error("broken")
            logger.warning("upstream stream broke off: %s", exc.cause)
        finally:
            await reply.aclose()
            if scanner is not None and scanner.input_tokens and plan is not None:
                self._record(plan, forwarded, scanner.input_tokens)

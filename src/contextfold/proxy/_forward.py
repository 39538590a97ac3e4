"""The proxy's HTTP side: reading requests, forwarding them, relaying responses.

Bodies are read up to a size limit; responses are relayed as raw bytes (the
upstream is asked for ``identity`` encoding so the proxy can read the usage it
reports without touching what the client receives). Credentials come in with the
request, go out with the forwarded request and the summarizer's transport, and go
nowhere else: while a request is handled, its credentials (and the values of the
headers named in ``secret_headers``) are scrubbed from what the proxy reports and
from the log records of the proxy, the SDKs and ``httpx`` (see
:mod:`contextfold._secrets`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import replace
from typing import Any, cast

import anthropic
import httpx2
import openai
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse

from contextfold._secrets import Secrets, header_secrets, watch
from contextfold.proxy import _json
from contextfold.proxy._bound import SizeBound
from contextfold.proxy._compact import Plan, Planner
from contextfold.proxy._dialects import (
    Dialect,
    SSEUsageScanner,
    conversation,
    error_body,
    read_body,
    usage_input_tokens,
)
from contextfold.proxy._guard import log_unexpected
from contextfold.proxy._routing import BadTarget, route_dialect, upstream_url
from contextfold.transports.anthropic import AnthropicTransport
from contextfold.transports.base import CompletionTransport
from contextfold.transports.openai import OpenAITransport

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
_UNSERIALIZABLE = (
    "not compacted: the request holds a number JSON cannot carry (NaN or infinity), "
    "so the rewritten body could not be written; forwarded unchanged"
)

RawHeaders = list[tuple[bytes, bytes]]


class _TooLarge(Exception):
    pass


def _drop(headers: Iterable[tuple[bytes, bytes]], extra: frozenset[bytes]) -> RawHeaders:
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


def _secrets(headers: Mapping[str, str], extra: Iterable[str]) -> Secrets:
    """Every credential the request carries (its secret headers and those named in
    ``extra``), watched in the logs while the result is alive."""
    return watch(Secrets(header_secrets(headers.items(), extra)))


def _credentials(request: Request) -> tuple[str | None, str | None]:
    """``(x-api-key, bearer token)`` of the incoming request."""
    bearer = request.headers.get("authorization", "")
    token = bearer[7:].strip() if bearer[:7].lower() == "bearer " else None
    return request.headers.get("x-api-key"), token or None


class Forwarder:
    """Reads, plans, forwards and relays; one per app."""

    def __init__(
        self,
        client: httpx2.AsyncClient,
        planner: Planner,
        *,
        upstream_openai: str,
        upstream_anthropic: str,
        max_body_bytes: int,
        summary_model: str | None,
        context_window: int | None,
        summary_max_retries: int,
        secret_headers: Iterable[str] = (),
    ) -> None:
        self.client = client
        self.planner = planner
        self.upstream_openai = upstream_openai
        self.upstream_anthropic = upstream_anthropic
        self.max_body_bytes = max_body_bytes
        self.summary_model = summary_model
        self.context_window = context_window
        self.summary_max_retries = summary_max_retries
        self.secret_headers = frozenset(name.lower() for name in secret_headers)
        self.bound = SizeBound(planner.limit)
        self._started = False
        self._start_lock = asyncio.Lock()

    async def start(self) -> None:
        """Open the summary cache (idempotent; also done lazily by the first request)."""
        async with self._start_lock:
            if not self._started:
                await self.planner.cache.open()
                self._started = True

    # -- routing -------------------------------------------------------------------

    def _dialect_of(self, request: Request) -> Dialect:
        return route_dialect(request.scope["path"], request.headers)

    def _url(self, dialect: Dialect, request: Request) -> str:
        return upstream_url(
            request.scope,
            dialect,
            openai_base=self.upstream_openai,
            anthropic_base=self.upstream_anthropic,
        )

    # -- requests ------------------------------------------------------------------

    async def _read(self, request: Request) -> bytes:
        declared = request.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > self.max_body_bytes:
            raise _TooLarge
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body_bytes:
                raise _TooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    def _error(self, dialect: Dialect, status: int, message: str) -> Response:
        return Response(
            json.dumps(error_body(dialect, status, message)),
            status_code=status,
            media_type="application/json",
        )

    def _unread(self, dialect: Dialect, exc: Exception) -> Response:
        """The answer to a body that could not be read (too large, or abandoned)."""
        if isinstance(exc, _TooLarge):
            return self._too_large(dialect)
        # Nobody reads this: the client has gone. It ends the request quietly.
        return self._error(dialect, 400, "the client left before the request body ended")

    def _too_large(self, dialect: Dialect) -> Response:
        return self._error(
            dialect,
            413,
            f"request body is larger than the proxy's limit of {self.max_body_bytes} bytes",
        )

    def _transport(
        self, request: Request, dialect: Dialect, model: str
    ) -> CompletionTransport | None:
        """A summarizing transport paid with the request's own credentials, if it has any.

        The SDK clients are built here with the caller's key passed explicitly, so
        neither they nor the transports ever fall back to the proxy process's
        environment (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, organization and
        project ids...). ``None`` when the request carries no ``x-api-key`` and no
        ``Authorization: Bearer`` token.
        """
        api_key, bearer = _credentials(request)
        retries = self.summary_max_retries
        if dialect == "openai":
            token = bearer or api_key
            if token is None:
                return None
            # Organization and project: the caller's, never the environment's (the
            # SDK reads OPENAI_ORG_ID / OPENAI_PROJECT_ID for a missing one, also
            # when copied; an ``omit`` default header drops it, copies included).
            scope = cast(
                "dict[str, str]",
                {
                    header: request.headers.get(header) or openai.omit
                    for header in ("OpenAI-Organization", "OpenAI-Project")
                },
            )
            oai = openai.AsyncOpenAI(
                api_key=token,
                base_url=self.upstream_openai,
                http_client=self.client,
                max_retries=0,
                default_headers=scope,
            )
            return OpenAITransport(
                model, client=oai, context_window=self.context_window, max_retries=retries
            )
        if api_key is not None:
            sdk = anthropic.AsyncAnthropic(
                api_key=api_key,
                base_url=self.upstream_anthropic,
                http_client=self.client,
                max_retries=0,
            )
        elif bearer is not None:
            sdk = anthropic.AsyncAnthropic(
                auth_token=bearer,
                base_url=self.upstream_anthropic,
                http_client=self.client,
                max_retries=0,
            )
        else:
            return None
        return AnthropicTransport(
            model, client=sdk, context_window=self.context_window, max_retries=retries
        )

    async def chat(self, request: Request, dialect: Dialect) -> Response:
        """A chat request: maybe compacted, then forwarded (see :mod:`contextfold.proxy`)."""
        await self.start()
        try:
            raw = await self._read(request)
        except (_TooLarge, ClientDisconnect) as exc:
            return self._unread(dialect, exc)
        bound = self.bound.far_under(raw)
        if bound is not None:  # no need to parse: forwarded as it is
            return await self._forward(request, dialect, raw, Plan(None, "", bound, bound))
        try:
            body, model, strict = read_body(raw)
        except ValueError as exc:
            return self._error(dialect, 400, str(exc))
        try:
            forwarded, plan = await self._plan(request, dialect, raw, body, model, strict=strict)
        except Exception as exc:
            # A defect of the proxy's, not of the request: the promise holds that a
            # failed compaction forwards the original rather than failing the call.
            secrets = _secrets(request.headers, self.secret_headers)
            log_unexpected(exc, f"compaction planning failed for a {dialect} request", secrets)
            reason = f"not compacted: internal error ({type(exc).__name__}); forwarded unchanged"
            forwarded, plan = raw, Plan.unchanged(reason)
        return await self._forward(request, dialect, forwarded, plan)

    async def _plan(
        self,
        request: Request,
        dialect: Dialect,
        raw: bytes,
        body: dict[str, Any],
        model: str,
        *,
        strict: bool = True,
    ) -> tuple[bytes, Plan]:
        """What to forward for a parsed chat request, and the plan that made it.

        ``strict``: the body was read strictly (:mod:`._json`), so the memo of
        seen histories may take it, and orjson may write its rewrite."""
        try:
            conv = conversation(dialect, body, model, self.planner.memo if strict else None)
        except ValueError as exc:
            reason = f"not compacted: the proxy does not model this request's content ({exc})"
            return raw, Plan.unchanged(reason)
        plan = await self.planner.plan(
            conv,
            lambda: self._transport(request, dialect, self.summary_model or model),
            _secrets(request.headers, self.secret_headers),
        )
        if plan.body is None:
            return raw, plan
        try:
            return _json.dumps(plan.body, strict=strict), plan
        except ValueError:  # NaN or infinity (1e999) somewhere in the request
            return raw, replace(plan, body=None, usage_key="", error=_UNSERIALIZABLE)

    async def passthrough(self, request: Request) -> Response:
        """Any other route: forwarded as is to the upstream of its dialect."""
        dialect = self._dialect_of(request)
        try:
            raw = await self._read(request)
        except (_TooLarge, ClientDisconnect) as exc:
            return self._unread(dialect, exc)
        return await self._forward(request, dialect, raw, None)

    # -- forwarding ----------------------------------------------------------------

    def _report(self, plan: Plan, secrets: Secrets) -> list[tuple[str, str]]:
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

    async def _forward(
        self, request: Request, dialect: Dialect, body: bytes, plan: Plan | None
    ) -> Response:
        secrets = _secrets(request.headers, self.secret_headers)
        headers = _drop(request.headers.raw, frozenset({b"accept-encoding"}))
        headers.append((b"accept-encoding", b"identity"))
        try:
            url = self._url(dialect, request)
        except BadTarget as exc:
            return self._error(dialect, 400, str(exc))
        upstream = self.client.build_request(request.method, url, headers=headers, content=body)
        try:
            reply = await self.client.send(upstream, stream=True)
        except httpx2.TimeoutException:
            return self._error(dialect, 504, "the upstream did not answer in time")
        except httpx2.HTTPError as exc:
            logger.warning("upstream %s unreachable: %s", upstream.url.host, type(exc).__name__)
            return self._error(
                dialect, 502, f"the upstream could not be reached ({type(exc).__name__})"
            )
        raw_out = _drop(reply.headers.raw, frozenset())
        if plan is not None:
            raw_out += [(n.encode(), v.encode()) for n, v in self._report(plan, secrets)]
        record = plan is not None and reply.status_code < 300
        if reply.headers.get("content-type", "").startswith("text/event-stream"):
            scanner = SSEUsageScanner(dialect) if record else None
            response: Response = StreamingResponse(
                self._relay(reply, scanner, plan, body, secrets), status_code=reply.status_code
            )
            response.raw_headers = raw_out
            return response
        try:
            content = b"".join([chunk async for chunk in reply.aiter_raw()])
        except httpx2.StreamConsumed:  # a client whose transport hands over read replies
            content = reply.content
        except httpx2.HTTPError as exc:
            return self._error(dialect, 502, f"the upstream reply broke off ({type(exc).__name__})")
        finally:
            await reply.aclose()
        if record and plan is not None and "content-encoding" not in reply.headers:
            self._record_json(dialect, content, plan, body)
        response = Response(content, status_code=reply.status_code)
        response.raw_headers = [*raw_out, (b"content-length", str(len(content)).encode())]
        return response

    def _record(self, plan: Plan, forwarded: bytes, input_tokens: int) -> None:
        """Remember a reported prompt size: as the history's anchor, and per byte."""
        if plan.usage_key:
            self.planner.record_usage(plan.usage_key, input_tokens)
        self.bound.learn(forwarded, input_tokens)

    def _record_json(self, dialect: Dialect, content: bytes, plan: Plan, forwarded: bytes) -> None:
        try:
            tokens = usage_input_tokens(dialect, _json.loads(content)[0])
        except (ValueError, RecursionError):  # not JSON (or not readable JSON)
            return
        if tokens:
            self._record(plan, forwarded, tokens)

    async def _relay(
        self,
        reply: httpx2.Response,
        scanner: SSEUsageScanner | None,
        plan: Plan | None,
        forwarded: bytes,
        watched: Secrets,
    ) -> AsyncIterator[bytes]:
        # ``watched`` is held until the stream ends: its log scrubbing lasts as long.
        try:
            async for chunk in reply.aiter_raw():
                if scanner is not None:
                    scanner.feed(chunk)
                yield chunk
        except httpx2.HTTPError as exc:
            # Headers are gone already; the client sees the stream end early.
            logger.warning("upstream stream broke off: %s", type(exc).__name__)
        finally:
            await reply.aclose()
            if scanner is not None and scanner.input_tokens and plan is not None:
                self._record(plan, forwarded, scanner.input_tokens)

"""The proxy's HTTP side: reading requests, forwarding them, relaying responses.

Bodies are read up to a size limit (a chat body in gzip or deflate is decoded, see
:mod:`._encoding`); responses are relayed as raw bytes (the
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
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, cast

import httpx2
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse

from contextfold._secrets import Secrets, header_secrets, watch
from contextfold.compaction._summarizer import acknowledgement, render_summary_message
from contextfold.dialects import RESPONSES
from contextfold.errors import ContextfoldError, TransportError
from contextfold.proxy import _json
from contextfold.proxy._bound import SizeBound, model_named
from contextfold.proxy._budget import Cache, MemoryBudget
from contextfold.proxy._compact import ForwardPlan, Planner
from contextfold.proxy._dashboard import DashboardRecorder
from contextfold.proxy._dialects import (
    Dialect,
    conversation,
    read_body,
)
from contextfold.proxy._encoding import BadEncoding, DecodedTooLarge, codings, decode_body
from contextfold.proxy._guard import json_error, log_unexpected
from contextfold.proxy._metrics import NativeApi, Outcome, upstream_time
from contextfold.proxy._native import (
    BadEdit,
    ForgedItem,
    NativeMode,
    Seal,
    applied_in_stream,
    block_in_stream,
    clear_edits,
    compact_edit,
    compact_trigger,
    compacted_response,
    compaction_events,
    compaction_message,
    current_input_turn,
    current_turn,
    expand_messages,
    expand_responses,
    item_in_stream,
    may_use_native,
    resolve_mode,
    responses_compaction,
    split_at_summary,
    summary_item,
    user_items,
    with_applied_edits,
    with_block,
    with_output_item,
)
from contextfold.proxy._overflow import (
    RETRYABLE_STATUSES,
    failed_retry,
    overflowed,
    reported_sizes,
)
from contextfold.proxy._recall import answer_with_recall
from contextfold.proxy._relay import Opened, Relaying, drop_headers, is_stream
from contextfold.proxy._routing import BadTarget, route_dialect, upstream_url
from contextfold.proxy._tenant import Tenants
from contextfold.proxy._upstream import Reply, Upstream, UpstreamError, UpstreamTimeout
from contextfold.proxy._windows import WindowAsker
from contextfold.transports.base import CompletionTransport

logger = logging.getLogger("contextfold.proxy")

_UNSERIALIZABLE = (
    "not compacted: the request holds a number JSON cannot carry (NaN or infinity), "
    "so the rewritten body could not be written; forwarded unchanged"
)


# What a model-list request carries of the chat request that prompted it.
_CREDENTIAL_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "anthropic-version", "anthropic-beta"}
    | {"openai-organization", "openai-project"}
)


def window_hint(request: Request, dialect: Dialect) -> int | None:
    """The request's own context window, wider than its model's: 1,000,000 tokens with
    Anthropic's 1M-context beta (``anthropic-beta: context-1m-...``)."""
    return dialect.window(request.headers.items())


# A body holding any of these has tool calls (its task is found without a record).
_TOOL_MARKERS = (b'"tool_calls"', b'"tool_use"', b'"tool_result"', b'_call"', b'"tool"')
# The upstream is asked for identity; a body decoded by the proxy goes out without its
# coding named (see ._encoding).
_ENCODED = frozenset({b"accept-encoding"})
_DECODED = frozenset({b"accept-encoding", b"content-encoding"})


class _TooLarge(Exception):
    pass


def _secrets(headers: Mapping[str, str], extra: Iterable[str]) -> Secrets:
    """Every credential the request carries (its secret headers and those named in
    ``extra``), watched in the logs while the result is alive."""
    return watch(Secrets(header_secrets(headers.items(), extra)))


def _credentials(request: Request) -> tuple[str | None, str | None]:
    """``(x-api-key, bearer token)`` of the incoming request."""
    bearer = request.headers.get("authorization", "")
    token = bearer[7:].strip() if bearer[:7].lower() == "bearer " else None
    return request.headers.get("x-api-key"), token or None


class Forwarder(Relaying):
    """Reads, plans, forwards and relays; one per app."""

    def __init__(
        self,
        client: httpx2.AsyncClient,
        upstream: Upstream,
        planner: Planner,
        *,
        upstream_openai: str,
        upstream_anthropic: str,
        max_body_bytes: int,
        summary_model: str | None,
        context_window: int | None,
        summary_max_retries: int,
        secret_headers: Iterable[str] = (),
        recall: bool = False,
        tenant_header: str | None = None,
        budget: MemoryBudget | None = None,
        seal: Seal | None = None,
        native: NativeMode = "auto",
        dashboard: DashboardRecorder | None = None,
    ) -> None:
        self.client = client  # the summarizers' and the model list's (the SDKs' stack)
        self.upstream = upstream  # what requests are forwarded on
        self.planner = planner
        self.upstream_openai = upstream_openai
        self.upstream_anthropic = upstream_anthropic
        self.max_body_bytes = max_body_bytes
        self.summary_model = summary_model
        self.context_window = context_window
        self.summary_max_retries = summary_max_retries
        self.secret_headers = frozenset(name.lower() for name in secret_headers)
        self.recall = recall  # offer the recall tool on compacted requests (see ._recall)
        self.bound = SizeBound(
            planner.preparer.first_limit, (budget or MemoryBudget()).share("ratios")
        )
        self.windows = WindowAsker(client, planner.models.learn)
        self.metrics = planner.metrics
        self.dashboard = dashboard  # what GET /dashboard shows (see ._dashboard), when on
        self.tenant_header = tenant_header  # see ._tenant
        self.seal = seal or Seal(None)  # signs the compaction items it issues (._native)
        self.native = native
        # Where no model can be emulated (the providers' own hosts, or "pass"), bodies
        # are not scanned for the compaction APIs: they go as they came anyway.
        modes = {native} | {
            cast("NativeMode", m.native_compaction)
            for m in planner.models.models.values()
            if m.native_compaction is not None
        }
        self._emulates = {
            provider: any(resolve_mode(mode, provider, base) == "emulate" for mode in modes)
            for provider, base in (("openai", upstream_openai), ("anthropic", upstream_anthropic))
        }
        self._tenants: Tenants | None = None
        self._item_tenants: Tenants | None = None  # whom a compaction item is bound to
        self._started = False
        self._start_lock = asyncio.Lock()

    async def start(self) -> None:
        """Open the summary cache and read its tenant secret (idempotent; also done
        lazily by the first request)."""
        async with self._start_lock:
            if not self._started:
                await self.planner.cache.open()
                self._tenants = Tenants(
                    self.planner.cache.tenant_secret(), self.tenant_header, self.secret_headers
                )
                self._item_tenants = Tenants(
                    self.seal.tenant_secret, self.tenant_header, self.secret_headers
                )
                self._started = True

    def memory(self) -> dict[Cache, int]:
        """What each cache of the proxy holds, as estimated (see :mod:`._budget`)."""
        return {**self.planner.memory(), "ratios": self.bound.nbytes}

    def item_tenant(self, headers: Mapping[str, str]) -> str:
        """The tenant a compaction item of a request with ``headers`` is bound to: the
        same tenant as :meth:`tenant`, keyed by the compaction key (:mod:`._native`)."""
        if self._item_tenants is None:
            raise RuntimeError("the proxy has not started: no tenant secret yet")
        return self._item_tenants.of(headers)

    def tenant(self, headers: Mapping[str, str]) -> str:
        """The tenant key (:mod:`._tenant`) of a request with ``headers``; once started."""
        if self._tenants is None:
            raise RuntimeError("the proxy has not started: no tenant secret yet")
        return self._tenants.of(headers)

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

    def _unread(self, dialect: Dialect, exc: Exception) -> Response:
        """The answer to a body that could not be read (too large, or abandoned)."""
        if isinstance(exc, _TooLarge):
            return self._too_large(dialect)
        # Nobody reads this: the client has gone. It ends the request quietly.
        return json_error(dialect, 400, "the client left before the request body ended")

    def _too_large(self, dialect: Dialect, what: str = "") -> Response:
        return json_error(
            dialect,
            413,
            f"{what}request body is larger than the proxy's limit of {self.max_body_bytes} bytes",
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
        # The SDKs load here, with the first summary, not when the proxy starts (they
        # take over a second to import: /healthz answers before that).
        import anthropic
        import openai

        from contextfold.transports.anthropic import AnthropicTransport
        from contextfold.transports.openai import OpenAITransport

        api_key, bearer = _credentials(request)
        retries = self.summary_max_retries
        window = self.planner.models.resolve(model).window_override
        if dialect.provider == "openai":  # Responses requests are summarized through chat
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
            return OpenAITransport(model, client=oai, context_window=window, max_retries=retries)
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
        return AnthropicTransport(model, client=sdk, context_window=window, max_retries=retries)

    def _observe(self, raw: bytes, dialect: Dialect, tenant: str) -> None:
        """Let the planner remember the layout of ``tenant``'s request it will not parse,
        unless it holds tool calls (then the fallback rule finds its task: see
        ``._layout``)."""
        if any(marker in raw for marker in _TOOL_MARKERS):
            return
        try:
            body, model, _ = read_body(raw, dialect)
            self.planner.observe(dialect, body, model, tenant)
        except Exception as exc:  # remembering is a help, never a reason to fail
            logger.debug("could not read the layout of a request: %s", type(exc).__name__)

    def _learn_window(self, request: Request, dialect: Dialect, model: str | None) -> None:
        """Ask the upstream's model list for the window of a model nothing else knows
        (see :mod:`._windows`), with the request's own credentials."""
        if model is None or not self.planner.models.unknown(model):
            return
        url = dialect.upstream_url(
            "/v1/models", openai_base=self.upstream_openai, anthropic_base=self.upstream_anthropic
        )
        wanted = _CREDENTIAL_HEADERS | self.secret_headers
        headers = [(k, v) for k, v in request.headers.raw if k.decode("latin-1") in wanted]
        self.windows.ask(model, url, headers)

    def _offers_recall(self, dialect: Dialect) -> bool:
        """Whether a compacted request of ``dialect`` gets the recall tool (the chat
        dialects, with ``recall=True``): its summary names the tool only then."""
        return self.recall and dialect.supports_recall

    def _summary_model(self, model: str) -> str:
        """The model that summarizes for ``model``: its own setting, the proxy's, or itself."""
        return self.planner.models.resolve(model).summary_model or self.summary_model or model

    async def chat(self, request: Request, dialect: Dialect, *, native: bool = False) -> Response:
        """A chat request (see :meth:`_chat`), with the ``applied_edits`` of the
        context edits the proxy emulated added to the answer (:mod:`._native`)."""
        response = await self._chat(request, dialect, native=native)
        block = getattr(request.state, "contextfold_compaction_block", None)
        if block is not None and response.status_code < 300:
            response = self._transformed(
                response,
                lambda data: with_block(data, block),
                lambda chunks: block_in_stream(chunks, block),
            )
        item = getattr(request.state, "contextfold_output_item", None)
        if item is not None and response.status_code < 300:
            response = self._transformed(
                response,
                lambda data: with_output_item(data, item),
                lambda chunks: item_in_stream(chunks, item),
            )
        applied = getattr(request.state, "contextfold_applied_edits", None)
        if applied is None or response.status_code >= 300:
            return response
        return self._transformed(
            response,
            lambda data: with_applied_edits(data, applied),
            lambda chunks: applied_in_stream(chunks, applied),
        )

    @staticmethod
    def _transformed(
        response: Response,
        whole: Callable[[bytes], bytes],
        streamed: Callable[[AsyncIterator[bytes]], AsyncIterator[bytes]],
    ) -> Response:
        """``response`` with its JSON body, or its SSE stream, rewritten."""
        if isinstance(response, StreamingResponse):
            kind = dict(response.raw_headers).get(b"content-type", b"")
            if b"text/event-stream" not in kind:
                return response  # a long JSON answer, relayed as it comes: left as it is
            response.body_iterator = streamed(cast("AsyncIterator[bytes]", response.body_iterator))
            return response
        content = whole(bytes(response.body))
        edited = Response(content, status_code=response.status_code)
        edited.raw_headers = [
            (name, value) for name, value in response.raw_headers if name != b"content-length"
        ]
        edited.raw_headers.append((b"content-length", str(len(content)).encode()))
        return edited

    async def _chat(self, request: Request, dialect: Dialect, *, native: bool = False) -> Response:
        """A chat request: maybe compacted, then forwarded (see :mod:`contextfold.proxy`).
        ``native``: its body may use the providers' compaction APIs (OpenAI's
        compaction items, Anthropic's compaction blocks and requests), emulated first
        where the proxy does (:mod:`._native`)."""
        await self.start()
        try:
            raw = await self._read(request)
        except (_TooLarge, ClientDisconnect) as exc:
            return self._unread(dialect, exc)
        coding = request.headers.get("content-encoding", "")
        if coding.strip():  # decoded (gzip, deflate), or forwarded as it is (see ._encoding)
            try:
                decoded = decode_body(raw, coding, self.max_body_bytes)
            except DecodedTooLarge:
                return self._too_large(dialect, "decoded ")
            except BadEncoding as exc:
                return json_error(dialect, 400, str(exc))
            if decoded is None:
                reason = f"not compacted: request body is {', '.join(codings(coding))}-encoded"
                plan = replace(ForwardPlan.unchanged(reason, "encoded_body"), learn=False)
                plan = self._counted(request, dialect, plan, "")
                return await self._forward(request, dialect, raw, plan)
            raw = decoded
            request.state.contextfold_decoded = True  # _send drops Content-Encoding
        tenant = self.tenant(request.headers)
        if native and self._emulates[dialect.provider] and may_use_native(raw):
            emulated = await self._native_request(request, dialect, raw)
            if isinstance(emulated, Response):
                return emulated
            raw = emulated
        # With a should_compact hook every chat request is read, so the hook is asked;
        # with the dashboard, so the request is counted in its conversation.
        hooked = self.planner.scheduler.should_compact is not None or self.dashboard is not None
        bound = None if hooked else self.bound.far_under(raw, tenant, dialect)
        if bound is not None:  # no need to parse: forwarded as it is
            self._observe(raw, dialect, tenant)
            self._learn_window(request, dialect, model_named(raw))
            plan = ForwardPlan(None, "", bound, bound, tenant=tenant)
            self.metrics.compaction("not_needed")
            return await self._forward(request, dialect, raw, plan, original=raw)
        try:
            body, model, strict = read_body(raw, dialect)
        except ValueError as exc:
            return json_error(dialect, 400, str(exc))
        self._learn_window(request, dialect, model)
        try:
            forwarded, plan = await self._plan(
                request, dialect, raw, body, model, tenant, strict=strict
            )
        except Exception as exc:
            # A defect of the proxy's, not of the request: the promise holds that a
            # failed compaction forwards the original rather than failing the call.
            secrets = _secrets(request.headers, self.secret_headers)
            log_unexpected(exc, f"compaction planning failed for a {dialect} request", secrets)
            reason = f"not compacted: internal error ({type(exc).__name__}); forwarded unchanged"
            forwarded, plan = raw, ForwardPlan.unchanged(reason, "internal_error")
        plan = replace(plan, tenant=tenant)  # what its answer teaches is the tenant's
        plan = self._counted(request, dialect, plan, model)
        if self.recall and plan.compacted:
            answered = await answer_with_recall(
                lambda sent, at: self._forward(request, dialect, sent, at),
                dialect,
                body,
                forwarded,
                plan,
            )
            if answered is not None:
                return answered
        return await self._forward(request, dialect, forwarded, plan, original=raw)

    def native_mode(self, provider: str, model: str) -> str:
        """``"emulate"`` or ``"pass"``: how ``model``'s requests to the providers'
        compaction APIs are served (its table's ``native_compaction``, else the
        proxy's; ``"auto"`` decided by the upstream's host)."""
        entry = self.planner.models.entry(model) if model else None
        mode = cast(
            "NativeMode",
            (entry.native_compaction if entry is not None else None) or self.native,
        )
        upstream = self.upstream_openai if provider == "openai" else self.upstream_anthropic
        return resolve_mode(mode, provider, upstream)

    async def _native_request(
        self, request: Request, dialect: Dialect, raw: bytes
    ) -> bytes | Response:
        """A chat body with the compaction items (OpenAI) or blocks (Anthropic) the
        proxy issued replaced by their summaries, ``raw`` itself when it holds none; or
        the answer to an Anthropic compaction request, where the proxy emulates it."""
        try:
            body, strict = _json.loads(raw)
        except ValueError:
            return raw  # read_body answers it
        except RecursionError:
            return json_error(dialect, 400, "the request body is nested too deeply to be read")
        if not isinstance(body, dict):
            return raw
        named = body.get("model")
        model = named if isinstance(named, str) else ""
        provider = dialect.provider
        emulate = self.native_mode(provider, model) == "emulate"
        if not emulate:  # "pass": everything goes as it came, the proxy's items too
            return raw
        tenant = self.item_tenant(request.headers)
        expand = expand_responses if provider == "openai" else expand_messages
        try:
            body, count = expand(body, self.seal, tenant)
        except ForgedItem as exc:
            self.metrics.compaction_items("refused")
            return json_error(dialect, 400, f"invalid compaction item: {exc}")
        if count:
            self.metrics.compaction_items("expanded", count)
        if emulate and provider == "openai":
            try:
                body, entry = responses_compaction(body)
            except BadEdit as exc:
                return json_error(dialect, 400, f"context_management: {exc}")
            if entry is not None:
                compacted_input = await self._compact_input(request, dialect, body, entry)
                if isinstance(compacted_input, Response):
                    return compacted_input
                body = compacted_input
                count += 1
        if emulate and provider == "anthropic" and body.get("compaction") is not None:
            return await self._compact_messages(request, dialect, body, tenant)
        if emulate and provider == "anthropic":
            try:
                body, applied = clear_edits(body, self._estimate_messages)
            except BadEdit as exc:
                return json_error(dialect, 400, f"context_management: {exc}")
            if applied is not None:
                self.metrics.native_call("messages_edits", ok=True)
                request.state.contextfold_applied_edits = applied
                count += 1
            try:
                body, edit = compact_edit(body)
            except BadEdit as exc:
                return json_error(dialect, 400, f"context_management: {exc}")
            if edit is not None:
                compacted = await self._compact_edit(request, dialect, body, edit, tenant)
                if isinstance(compacted, Response):
                    return compacted
                body = compacted
                count += 1
        if not count:
            return raw
        try:  # orjson where it read the body; the stdlib keeps a client's NaN as NaN
            return _json.dumps(body, strict=strict)
        except ValueError:
            return json.dumps(body, ensure_ascii=False).encode()

    async def count_tokens(self, request: Request, dialect: Dialect) -> Response:
        """``POST /v1/messages/count_tokens``: where the proxy emulates compaction, the
        body it counts is what would be sent: compaction blocks expanded, the context
        edits applied, a ``compaction`` parameter dropped (Anthropic ignores it here)."""
        await self.start()
        try:
            raw = await self._read(request)
        except (_TooLarge, ClientDisconnect) as exc:
            return self._unread(dialect, exc)
        coding = request.headers.get("content-encoding", "")
        if coding.strip():  # read like a chat body: decoded, or forwarded as it is
            try:
                decoded = decode_body(raw, coding, self.max_body_bytes)
            except DecodedTooLarge:
                return self._too_large(dialect, "decoded ")
            except BadEncoding as exc:
                return json_error(dialect, 400, str(exc))
            if decoded is None:
                return await self._forward(request, dialect, raw, None)
            raw = decoded
            request.state.contextfold_decoded = True
        if self._emulates[dialect.provider] and may_use_native(raw):
            try:
                body = json.loads(raw)
            except (ValueError, RecursionError):
                body = None
            if isinstance(body, dict) and "compaction" in body:
                named = body.get("model")
                model = named if isinstance(named, str) else ""
                if self.native_mode(dialect.provider, model) == "emulate":
                    rest = {k: v for k, v in body.items() if k != "compaction"}
                    raw = json.dumps(rest, ensure_ascii=False).encode()
            emulated = await self._native_request(request, dialect, raw)
            if isinstance(emulated, Response):
                return emulated
            raw = emulated
        return await self._forward(request, dialect, raw, None)

    async def _compact_input(
        self,
        request: Request,
        dialect: Dialect,
        body: dict[str, Any],
        entry: dict[str, Any],
    ) -> dict[str, Any] | Response:
        """OpenAI's ``context_management`` compaction emulated: past
        ``compact_threshold`` (default: the model's compaction limit), the input before
        the turn in progress is summarized and the request sent with the summary in its
        place; the answer gets a compaction item of the proxy's first in its ``output``
        (JSON and stream). Under it, or with nothing before the turn, the body goes on."""
        items = body.get("input")
        model = body.get("model")
        if not isinstance(items, list) or not isinstance(model, str):
            return body
        threshold = entry.get("compact_threshold")
        if threshold is None:
            threshold = self.planner.limit(model, self.tenant(request.headers))
        cut = current_input_turn(items)
        instructions = body.get("instructions")
        extra = self.planner.opts.counter(instructions) if isinstance(instructions, str) else 0
        if cut == 0 or self._estimate_messages(items) + extra < threshold:
            return body
        answered = await self._summary_of(
            request, dialect, {**body, "input": items[:cut]}, model, api="responses_context"
        )
        if isinstance(answered, Response):
            return answered
        summary, _ = answered
        tail = items[cut:]
        tenant = self.item_tenant(request.headers)
        token = self.seal.seal("openai", tenant, {"summary": summary, "model": model, "tail": tail})
        request.state.contextfold_output_item = {
            "id": f"cmp_{os.urandom(12).hex()}",
            "type": "compaction",
            "encrypted_content": token,
            "created_by": "contextfold",
        }
        return {**body, "input": [summary_item(summary), *tail]}

    async def _compact_edit(
        self,
        request: Request,
        dialect: Dialect,
        body: dict[str, Any],
        edit: dict[str, Any],
        tenant: str,
    ) -> dict[str, Any] | Response:
        """``compact_20260112`` emulated: past its trigger, what comes before the turn
        in progress is summarized and the request sent with the summary in its place;
        the answer gets the signed ``compaction`` block first (or, with
        ``pause_after_compaction``, is that block alone). Under the trigger, or with
        nothing before the turn, the body goes on as it is."""
        messages = body.get("messages")
        if not isinstance(messages, list):
            return body
        cut = current_turn(messages)
        if cut == 0 or self._estimate_messages(messages) < compact_trigger(edit):
            return body
        model = body.get("model")
        if not isinstance(model, str):
            return json_error(dialect, 400, "the request must name a model")
        old = {**body, "messages": messages[:cut]}
        answered = await self._summary_of(
            request, dialect, old, model, edit.get("instructions"), api="messages_compact_edit"
        )
        if isinstance(answered, Response):
            return answered
        summary, usage = answered
        tail = messages[cut:]
        token = self.seal.seal(
            "anthropic", tenant, {"summary": summary, "model": model, "tail": tail}
        )
        block = {"type": "compaction", "content": summary, "signature": token}
        if edit.get("pause_after_compaction") is True:
            message = compaction_message(model, summary, token, usage)
            if body.get("stream") is True:
                events = compaction_events(message)

                async def stream() -> AsyncIterator[bytes]:
                    for event in events:
                        yield event

                return StreamingResponse(stream(), media_type="text/event-stream")
            return Response(json.dumps(message), media_type="application/json")
        request.state.contextfold_compaction_block = block
        summary_message = render_summary_message(summary).text
        return {
            **body,
            "messages": [
                {"role": "user", "content": summary_message},
                {"role": "assistant", "content": acknowledgement().text},
                *tail,
            ],
        }

    def _estimate_messages(self, messages: list[Any]) -> int:
        """Input tokens of Anthropic ``messages`` as the edits' triggers see them."""
        return self.planner.opts.counter(json.dumps(messages, ensure_ascii=False))

    async def _compact_messages(
        self, request: Request, dialect: Dialect, body: dict[str, Any], tenant: str
    ) -> Response:
        """An Anthropic compaction request (``compaction: {"type": "summarize"}``)
        answered by the proxy: one signed ``compaction`` block (:mod:`._native`)."""
        config = body["compaction"]
        if not isinstance(config, dict) or config.get("type") != "summarize":
            return json_error(dialect, 400, 'compaction: type must be "summarize"')
        if body.get("context_management") is not None:
            return json_error(dialect, 400, "compaction cannot be combined with context_management")
        instructions = config.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            return json_error(dialect, 400, "compaction.instructions must be a string")
        model = body.get("model")
        if not isinstance(model, str):
            return json_error(dialect, 400, "the request must name a model")
        rest = {k: v for k, v in body.items() if k != "compaction"}
        answered = await self._summary_of(
            request, dialect, rest, model, instructions, api="messages_compaction"
        )
        if isinstance(answered, Response):
            return answered
        summary, usage = answered
        token = self.seal.seal("anthropic", tenant, {"summary": summary, "model": model})
        message = compaction_message(model, summary, token, usage)
        if body.get("stream") is True:
            events = compaction_events(message)

            async def stream() -> AsyncIterator[bytes]:
                for event in events:
                    yield event

            return StreamingResponse(stream(), media_type="text/event-stream")
        return Response(json.dumps(message), media_type="application/json")

    async def _summary_of(
        self,
        request: Request,
        dialect: Dialect,
        body: dict[str, Any],
        model: str,
        instructions: str | None = None,
        *,
        api: NativeApi,
    ) -> tuple[str, dict[str, int]] | Response:
        """The summary of the conversation in ``body`` (an update of the latest
        expanded summary in it) and its usage, or the error answer."""
        try:
            messages = conversation(dialect, body, model).messages
        except ValueError as exc:
            return json_error(dialect, 400, f"the conversation cannot be compacted: {exc}")
        if not messages:
            return json_error(dialect, 400, "there is nothing to compact")
        previous, rest = split_at_summary(messages)
        transport = self._transport(request, dialect, self._summary_model(model))
        if transport is None:
            return json_error(
                dialect, 401, "a compaction is paid with the request's own key: send one"
            )
        secrets = _secrets(request.headers, self.secret_headers)
        try:
            run = await self.planner.summary_run(
                model, rest, previous, transport, instructions=instructions
            )
        except (ContextfoldError, ValueError) as exc:
            error = secrets.text(f"{type(exc).__name__}: {exc}")
            logger.warning("an emulated compaction failed (%s)", error)
            self.metrics.native_call(api, ok=False)
            status = exc.status if isinstance(exc, TransportError) else None
            return json_error(
                dialect,
                status if isinstance(status, int) and 400 <= status < 600 else 502,
                f"the summary could not be written: {error}",
            )
        self.metrics.summarized(run.usage.input_tokens, run.usage.output_tokens)
        self.metrics.native_call(api, ok=True)
        usage = {"input_tokens": run.usage.input_tokens, "output_tokens": run.usage.output_tokens}
        return secrets.text(run.text), usage

    async def compact_responses(self, request: Request) -> Response:
        """``POST /v1/responses/compact``: forwarded, or answered by the proxy (see
        :mod:`._native`)."""
        await self.start()
        dialect = RESPONSES
        try:
            raw = await self._read(request)
        except (_TooLarge, ClientDisconnect) as exc:
            return self._unread(dialect, exc)
        coding = request.headers.get("content-encoding", "")
        if coding.strip():
            try:
                decoded = decode_body(raw, coding, self.max_body_bytes)
            except DecodedTooLarge:
                return self._too_large(dialect, "decoded ")
            except BadEncoding as exc:
                return json_error(dialect, 400, str(exc))
            if decoded is None:
                return json_error(dialect, 415, f"unsupported Content-Encoding: {coding}")
            raw = decoded
            request.state.contextfold_decoded = True
        model = model_named(raw)
        if self.native_mode("openai", model or "") == "pass":
            return await self._forward(request, dialect, raw, None)
        try:
            body = json.loads(raw)
        except ValueError:
            return json_error(dialect, 400, "the request body is not valid JSON")
        except RecursionError:
            return json_error(dialect, 400, "the request body is nested too deeply to be read")
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return json_error(dialect, 400, "the request must be a JSON object naming a model")
        for stateful in ("previous_response_id", "conversation"):
            if body.get(stateful) is not None:
                return json_error(
                    dialect,
                    400,
                    f"{stateful} is not supported here: the proxy emulates compaction for "
                    "this upstream and holds no stored responses; send the conversation "
                    "as input items",
                )
        if not isinstance(body.get("input"), str | list):
            return json_error(dialect, 400, "input must be a string or a list of input items")
        model = body["model"]
        tenant = self.item_tenant(request.headers)
        try:
            expanded, count = expand_responses(body, self.seal, tenant)
        except ForgedItem as exc:
            self.metrics.compaction_items("refused")
            return json_error(dialect, 400, f"invalid compaction item: {exc}")
        if count:
            self.metrics.compaction_items("expanded", count)
        if isinstance(expanded.get("input"), list) and not expanded["input"]:
            return json_error(dialect, 400, "input is empty: there is nothing to compact")
        answered = await self._summary_of(
            request, dialect, expanded, model, api="responses_compact"
        )
        if isinstance(answered, Response):
            return answered
        summary, usage = answered
        token = self.seal.seal("openai", tenant, {"summary": summary, "model": model})
        answer = compacted_response(
            user_items(body.get("input")), token, usage["input_tokens"], usage["output_tokens"]
        )
        return Response(json.dumps(answer), media_type="application/json")

    async def _plan(
        self,
        request: Request,
        dialect: Dialect,
        raw: bytes,
        body: dict[str, Any],
        model: str,
        tenant: str,
        *,
        strict: bool = True,
    ) -> tuple[bytes, ForwardPlan]:
        """What to forward for ``tenant``'s parsed chat request, and the plan that made it.

        ``strict``: the body was read strictly (:mod:`._json`), so the memo of
        seen histories may take it, and orjson may write its rewrite."""
        stateful = dialect.server_state(body)
        if stateful is not None:
            return raw, replace(ForwardPlan.unchanged(stateful, "server_state"), learn=False)
        try:
            memo = self.planner.memo if strict else None
            conv = conversation(dialect, body, model, memo, tenant)
        except ValueError as exc:
            reason = f"not compacted: the proxy does not model this request's content ({exc})"
            return raw, ForwardPlan.unchanged(reason, "unmodelled")
        plan = await self.planner.plan(
            conv,
            lambda: self._transport(request, dialect, self._summary_model(model)),
            _secrets(request.headers, self.secret_headers),
            recall=self._offers_recall(dialect),
            window=window_hint(request, dialect),
        )
        if plan.body is None:
            return raw, plan
        try:
            return _json.dumps(plan.body, strict=strict), plan
        except ValueError:  # NaN or infinity (1e999) somewhere in the request
            return raw, replace(
                plan, body=None, usage_key="", error=_UNSERIALIZABLE, why="unserializable"
            )

    def _counted(
        self, request: Request, dialect: Dialect, plan: ForwardPlan, model: str
    ) -> ForwardPlan:
        """Count ``plan`` of a chat request for ``model`` in the metrics and on the
        dashboard (numbered there: see :mod:`._dashboard`)."""
        outcome = _outcome(plan)
        self.metrics.compaction(outcome, plan.why)
        if self.dashboard is None:
            return plan
        limit = None
        if plan.conversation:
            limit = self.planner.limit(model, plan.tenant, window_hint(request, dialect))
        return self.dashboard.request(plan, outcome, model=model, limit=limit)

    async def passthrough(self, request: Request) -> Response:
        """Any other route: forwarded as is to the upstream of its dialect."""
        dialect = self._dialect_of(request)
        try:
            raw = await self._read(request)
        except (_TooLarge, ClientDisconnect) as exc:
            return self._unread(dialect, exc)
        return await self._forward(request, dialect, raw, None)

    # -- forwarding ----------------------------------------------------------------

    async def _forward(
        self,
        request: Request,
        dialect: Dialect,
        body: bytes,
        plan: ForwardPlan | None,
        original: bytes | None = None,
    ) -> Response:
        """Send ``body`` upstream and relay the answer; with ``original`` (the client's
        body of a chat request), a context-overflow error is answered by a forced
        compaction of ``original`` and one retry (see :mod:`._overflow`)."""
        secrets = _secrets(request.headers, self.secret_headers)
        reply = await self._send(request, dialect, body)
        if isinstance(reply, Response):
            return reply
        if (
            original is None
            or plan is None
            or not plan.learn
            or reply.status_code not in RETRYABLE_STATUSES
            or is_stream(reply)
        ):
            return await self._respond(reply, dialect, plan, body, secrets)
        content = await self._content(reply, dialect)
        if isinstance(content, Response):
            return content
        if isinstance(content, Opened):  # too long to be an overflow error: relayed
            return self._streamed(reply, content, plan, secrets)
        if overflowed(dialect, reply.status_code, content):
            sizes = reported_sizes(dialect, content)
            retried = await self._retry(request, dialect, original, plan, secrets, sizes)
            if isinstance(retried, Response):
                return retried
            plan = replace(plan, error=failed_retry(retried))
        return self._buffered(reply, content, dialect, plan, body, secrets)

    async def _send(self, request: Request, dialect: Dialect, body: bytes) -> Reply | Response:
        """The upstream's streamed reply to ``body``, or the proxy's own error answer."""
        dropped = _DECODED if getattr(request.state, "contextfold_decoded", False) else _ENCODED
        headers = drop_headers(request.headers.raw, dropped)
        headers.append((b"accept-encoding", b"identity"))
        try:
            url = self._url(dialect, request)
        except BadTarget as exc:
            return json_error(dialect, 400, str(exc))
        sent = time.perf_counter()
        try:
            reply = await self.upstream.send(request.method, url, headers, body)
            if 100 <= reply.status_code <= 599:
                return reply
            # RFC 9110 section 15: invalid, taken as a server error (uvicorn cannot
            # write such a status line, and would drop the client's connection)
            await reply.aclose()
            self.metrics.upstream_error("broken")
            return json_error(
                dialect, 502, f"the upstream answered with an invalid status ({reply.status_code})"
            )
        except UpstreamTimeout:
            self.metrics.upstream_error("timeout")
            return json_error(dialect, 504, "the upstream did not answer in time")
        except UpstreamError as exc:
            self.metrics.upstream_error("connect")
            logger.warning("upstream %s unreachable: %s", _host(url), exc.cause)
            return json_error(dialect, 502, f"the upstream could not be reached ({exc.cause})")
        finally:
            upstream_time(time.perf_counter() - sent)

    async def _retry(
        self,
        request: Request,
        dialect: Dialect,
        original: bytes,
        plan: ForwardPlan,
        secrets: Secrets,
        sizes: tuple[int, int] | None = None,
    ) -> Response | str:
        """The answer to ``original`` compacted by force and sent once more, when that
        succeeds; else why not (the caller relays the upstream's first error).
        ``sizes``: ``(window, prompt)`` as the upstream's error reported them; a prompt
        they say takes at most half the window did not overflow it (the output asked
        for did), and no summary could help."""
        if sizes is not None and sizes[1] * 2 <= sizes[0]:
            return (
                f"the prompt ({sizes[1]:,} of the window's {sizes[0]:,} tokens) is not what "
                "overflowed: there is nothing to summarize"
            )
        try:
            body, model, strict = read_body(original, dialect)
            memo = self.planner.memo if strict else None
            conv = conversation(dialect, body, model, memo, plan.tenant)
        except ValueError as exc:
            return f"the proxy does not model this request's content ({exc})"
        try:
            forced = await self.planner.plan(
                conv,
                lambda: self._transport(request, dialect, self._summary_model(model)),
                secrets,
                overflowed=plan.usage_key,
                recall=self._offers_recall(dialect),
                window=window_hint(request, dialect),
            )
            text = None if forced.body is None else json.dumps(forced.body, allow_nan=False)
        except ValueError:  # NaN or infinity (1e999) somewhere in the request
            return "the compacted request holds a number JSON cannot carry (NaN or infinity)"
        except Exception as exc:
            log_unexpected(exc, f"forced compaction failed for a {dialect} request", secrets)
            return f"the forced compaction failed (internal error, {type(exc).__name__})"
        if text is None:
            why = forced.error or "there was nothing to summarize"
            return f"the forced compaction made nothing to retry with ({why})"
        forwarded = text.encode()
        forced = replace(forced, tenant=plan.tenant, seen=plan.seen)
        self.metrics.compaction(_outcome(forced))  # its first plan was counted already
        if self.dashboard is not None:
            self.dashboard.retried(forced, _outcome(forced))
        logger.info("retrying a %s request compacted after a context overflow", model)
        reply = await self._send(request, dialect, forwarded)
        if isinstance(reply, Response):
            return f"the retry after a forced compaction got no answer ({reply.status_code})"
        if reply.status_code >= 300:
            await reply.aclose()
            return f"the retry after a forced compaction was answered {reply.status_code}"
        # Learnt only now: the smaller prompt was taken, so the size was the trouble (a
        # short prompt with a huge output budget is refused as an overflow too).
        self.planner.learn_overflow(model, plan.tokens_after, sizes, tenant=plan.tenant)
        return await self._respond(reply, dialect, forced, forwarded, secrets, retried=True)


def _host(url: str) -> str:
    """The host of a URL, for a log line (never its credentials or path)."""
    try:
        return httpx2.URL(url).host
    except httpx2.InvalidURL:
        return "?"


def _outcome(plan: ForwardPlan) -> Outcome:
    """The compaction outcome ``plan`` is counted under in the metrics."""
    if plan.relieved:
        return "relieved"
    if plan.compacted:
        if plan.summary == "none":  # old tool outputs masked, nothing summarized
            return "masked"
        return "created" if plan.summary == "created" else "cached"
    return "not_needed" if plan.error is None else "error"

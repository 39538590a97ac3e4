"""An HTTP proxy that gives any agent compaction by changing its base URL.

>>> serve(upstream_openai="https://api.openai.com/v1", port=8787)   # blocks

or, as an ASGI app under any server: ``app = create_app(db="proxy.db")``.

Routes:

``POST /v1/chat/completions`` (OpenAI) and ``POST /v1/messages`` (Anthropic)
    The body is parsed with :mod:`contextfold.formats`. When the conversation's
    estimated prompt size is over its model's limit (``threshold ×`` the context
    window, never above ``window − max output``; a model's own settings, else the
    proxy's, else the model registry: see :mod:`._config`), the older part is
    replaced by a summary and the rewritten request is forwarded; otherwise the
    original bytes are forwarded untouched. The estimate is anchored on the
    prompt size the upstream reported for the longest already-seen prefix of the
    same history, and counted with the configured counter for the rest. A body
    whose byte size alone shows it far under the limit (twice ``bytes × tokens per
    byte``, the ratio learnt from the upstream's usage reports and at least 1/4,
    plus 600 per media part, still under it) is forwarded without being parsed;
    its ``tokens`` headers then carry that byte-based bound.
``GET /healthz`` and ``GET /metrics``
    Answered by the proxy itself, never forwarded (another method gets a 405):
    ``{"status": "ok", "version",
    "uptime_seconds"}``, and the proxy's counters in the Prometheus text format
    (requests by route and status, compactions by outcome, summary cache hits and
    misses, summarizer tokens, upstream errors, and a histogram of the latency the
    proxy adds; see :mod:`._metrics`). No label carries a path, a model name or
    anything a request sent.
``GET /dashboard`` (with ``options.dashboard``; ``--dashboard``)
    A page of the proxy's conversations, their compactions and token timelines,
    rendered by the proxy (:mod:`._dashpage`, from the bounded recorder of
    :mod:`._dashboard`), behind ``options.dashboard_token`` when one is set. Off by
    default: ``/dashboard`` and every path below it are then a local 404, never
    forwarded; on, another method than ``GET`` or ``HEAD`` gets a 405.
``POST /v1/responses`` (OpenAI Responses API)
    Compacted like chat completions when ``input`` is a list of items (messages,
    ``function_call`` / ``function_call_output``, ``reasoning``) and
    ``instructions`` a string (read as the system prompt); see
    :mod:`contextfold.dialects.responses`. Kept items are copied verbatim (reasoning
    items with their ``encrypted_content`` included); reasoning in the summarized part
    goes with it; a call is never split from its output or from the reasoning before
    it. A
    string ``input`` or a short history passes through (far under the limit:
    unparsed, as above). A request relying on
    server-held state (``previous_response_id``, ``conversation``,
    ``item_reference``) is forwarded unchanged, with an ``x-contextfold-error``
    saying why; items the proxy does not model (hosted tool calls, MCP and custom
    tool items...) are carried as they came. Its summaries are made through the
    OpenAI upstream's Chat Completions endpoint (set ``summary_model`` for a model
    served only by Responses). Streams (Responses' own SSE events) are relayed chunk by chunk; the
    usage is read from ``response.completed``.
Anything else (``GET /v1/models``, ``/v1/embeddings``, ``/v1/messages/count_tokens``...)
    Proxied transparently: ``/v1/messages…`` and requests carrying an
    ``anthropic-version`` header go to the Anthropic upstream, the rest to OpenAI.
    The path and query reach the upstream as the client escaped them (``%2F``,
    ``%00`` and bytes that are not UTF-8 are relayed, not decoded); a path with a
    ``.`` or ``..`` segment is refused with a 400.
    Limit: their request bodies are read whole before they are forwarded, and held
    to ``max_body_bytes`` like chat requests; upload large files to the provider
    directly. Their answers are relayed like the chat routes' (below): a download of
    any size streams through.

Summaries are made through :class:`~contextfold.transports.openai.OpenAITransport`
or :class:`~contextfold.transports.anthropic.AnthropicTransport` pointed at the
configured upstream, with the *caller's own* credentials (``Authorization: Bearer``
/ ``x-api-key``, and the caller's ``OpenAI-Organization`` / ``OpenAI-Project``), and
the model ``summary_model`` or the request's. The proxy process's environment
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``...) is never used: a request without
credentials is forwarded unchanged, uncompacted, with an ``x-contextfold-error``. They are cached in
SQLite under a hash of the prefix they replace (and of the settings that shape a
summary's text: prompts, ``instructions``, ``user_message_budget``,
``max_summary_tokens``, ``fact_budget``, so a proxy restarted with other ones never splices an old
summary), so a client that resends its whole,
growing history pays one summarization per threshold crossing; the next crossing
extends the cached summary incrementally. Concurrent requests of one conversation
share one summarization; with ``db="postgresql://..."`` this holds across every
replica sharing the database (:mod:`._pgcache`). With ``prepare_threshold`` (0.6 of
the window by default) the summary is prepared in the background when a request
crosses it and spliced into the first request over the limit without waiting for a
model (:mod:`._prepare`).

Tenants: everything the proxy learns or keeps from a request - summaries, usage
anchors, learned limits and tokens per byte, preparations, single-flight and back-off
entries, layout records, the parse memo's chains - is kept for the request's tenant
only (:mod:`._tenant`): a keyed hash (HMAC-SHA256) of its credentials (the values of
``x-api-key``, ``Authorization``, ``api-key`` and of the ``secret_headers``), or, with
``tenant_header`` / ``--tenant-header NAME`` (``CONTEXTFOLD_TENANT_HEADER``), of that
header's value (a user id a gateway sets; a request without it falls back to its
credentials). The
same conversation sent by two tenants is summarized twice, each time with its own
key, and ``x-contextfold-summary: cached`` tells a client only what its own tenant
sent; one tenant's overflow refusal lowers that tenant's limit only. The HMAC's
secret is random, kept in the cache's database (SQLite file or PostgreSQL: made on its
first open, shared by a restart and by every replica), per process for a cache in
memory; neither credentials nor header values are stored or logged. Global are only
the operator's settings, the model registry and the windows the upstream's model list
reports (:mod:`._windows`). Recall keeps nothing between
requests (the originals are read from the request itself).

Guarantees:

* Responses pass through byte for byte; server-sent event streams are relayed
  chunk by chunk as they arrive. Upstream errors keep their status and body. Any
  other answer is read ahead at most 8 MiB: one that ends within them (every chat
  answer; its usage is read from it, a 502 if it breaks off) is relayed whole, a
  longer one is streamed as it arrives (its usage unread; should it break off, the
  connection closes with the body cut short), so one answer never costs the proxy
  more than 8 MiB of memory (see :mod:`._relay`).
* A chat request (any of the three routes) that the upstream rejects as longer
  than the model's context window (OpenAI's ``context_length_exceeded`` or
  "maximum context length", Anthropic's "prompt is too long"), in an error answer
  the client has not seen a byte of (for a stream: an error status before any
  event), is compacted by force, whatever its estimate, and sent once more. The
  model's limit is lowered to 90 % of the rejected prompt's estimate (never below
  1,024), so the next requests are compacted before they are sent. The retry's answer is relayed
  with ``x-contextfold-retried: context-overflow``. If the forced compaction or the
  retry fails, the client gets the upstream's original error (status and body) with
  an ``x-contextfold-error`` saying why.
* Every chat response says what happened: ``x-contextfold-compacted: true|false``,
  ``x-contextfold-tokens-before`` / ``-after`` (estimated prompt sizes),
  ``x-contextfold-summary: none|cached|created`` and, when summarization failed or
  the rewrite was invalid, ``x-contextfold-error`` - the original request is then
  forwarded unchanged rather than failing the call.
* A rewritten history passes :func:`~contextfold.validation.history_problems`
  (tool calls stay with their results, system messages are kept) or is not sent.
* Model what you need, carry the rest: content :mod:`contextfold.formats` does not
  model (images by URL, files, audio, server tool blocks, unknown roles, items and
  fields) never turns compaction off. Kept messages are copied from the request
  byte for byte (:func:`~contextfold.proxy._dialects.rebuild`); the summarizer sees a
  placeholder naming what it does not model.
* The prompt is not history (:mod:`._layout`): what a client rewrites in place
  (few-shot examples, an environment, files it moves to the end) is kept verbatim,
  never summarized or quoted as the user's words, and the conversation's first real
  user message (the task) is always kept word for word before the summary.
* A summary is made only when it frees a fifth of the limit (below the window's input
  budget), so a client whose fixed prompt fills most of the limit is not summarized
  every turn.
* A model nobody configured and the registry does not know gets the window the
  upstream's ``GET /v1/models`` reports (:mod:`._windows`); Anthropic's 1M-context beta
  header widens that request's window.
* A chat request whose body is in ``gzip`` or ``deflate`` (``Content-Encoding``) is
  decoded, at most ``max_body_bytes`` of it (a 413 beyond: a decompression bomb costs
  no more; a corrupt stream is a 400, each in the dialect's shape), then handled like
  any other and forwarded uncompressed, without ``Content-Encoding`` (see
  :mod:`._encoding`). A body in another coding (``br``, ``zstd``: no decoder among
  the proxy's dependencies) is forwarded as it is, uncompacted, with
  ``x-contextfold-error: not compacted: request body is br-encoded``. Other routes
  forward any body as it is.
* Malformed JSON or a body that is not a chat request (not an object, no string
  ``model``, ``messages`` not a list) gets a 400, a body over
  ``max_body_bytes`` a 413, an unknown method a 405, an unreachable upstream a 502
  (504 on timeout), each with a JSON error body in the dialect's own shape. A
  history that is readable JSON but malformed inside (a role that is a list, a
  block of an unknown type, nesting deeper than 100 levels) is forwarded unchanged,
  uncompacted, for the upstream to judge.
* No request gets a 500 of the proxy's own or a dropped connection (a seeded fuzz
  test of 3,000 hostile requests checks it). Should a defect still raise, it is
  logged at ERROR with credentials scrubbed and answered with a JSON 500 in the
  dialect's shape (see :mod:`contextfold.proxy._guard` for why 500); in compaction
  planning it forwards the original request instead.
* What the proxy keeps between requests is bounded, all of it together, by
  ``memory_budget`` (128 MiB by default): each cache to its share, by an estimate of
  its bytes (see :mod:`._budget`), least recently used entries dropped first.
* Under :func:`serve`, a slow client cannot hold a connection: a request's line and
  headers must all arrive within ``header_timeout`` seconds (20 by default), and its
  body may go at most ``body_timeout`` seconds (20) without a byte; a stalled request
  gets a JSON 408 in the dialect's shape and its connection is closed, one that sent
  nothing is closed (see :mod:`._server`).
* Credentials are forwarded and used for summaries only; they are never logged,
  never put in a header or error, never stored (the cache holds summaries and
  hashes; a summary that repeats one has it redacted). Credentials are the values of
  ``Authorization``, ``x-api-key``, ``api-key``, ``Cookie`` and of the headers named
  in ``secret_headers``; they are scrubbed also where an upstream echoes them (in an
  error, or at ``DEBUG`` in the SDKs' and ``httpx``'s logs). An upstream's own answer
  is relayed as it is: its echo goes back only to the caller who sent the credential.
  The values of credential-like query parameters (``?key=`` as Gemini takes it,
  ``api_key``, ``api-key``, ``access_token``, ``token``...; any case) are scrubbed from
  every log line, uvicorn's access log included. Hop-by-hop headers, ``Host`` and
  ``Content-Length`` are not forwarded.
* What a client or an upstream wrote, quoted in a log record (an upstream's error
  body, a model name), has its control characters escaped (CR, LF, the other C0 and
  C1 controls, U+2028...) and is cut at 2,000 characters, saying how many were cut:
  it can neither forge a log line nor fill the log (:func:`contextfold._secrets.log_text`).

The room: :mod:`._forward` (routes, forwarding, streaming relay), :mod:`._dialects`
(a request body as a conversation and back, through :mod:`contextfold.dialects`),
:mod:`._layout` (prompt or history), :mod:`._windows` (windows the upstream reports),
:mod:`._encoding` (compressed request bodies),
:mod:`._overflow` (the overflow retry's recognition), :mod:`._compact` (the per-request plan),
:mod:`._memo` (incremental parsing of a resent history), :mod:`._cache` (summary cache
and usage anchors), :mod:`._pgcache` (both, and the single-flight, shared on
PostgreSQL), :mod:`._bound` (the byte-size fast path), :mod:`._config`
(per-model settings and limits), :mod:`._metrics` (counters and ``/metrics``),
:mod:`._dashboard` and :mod:`._dashpage` (the dashboard's recorder and its page),
:mod:`._prepare` (summaries made ahead of the limit), :mod:`._tenant` (tenant
keys), :mod:`._budget` (the memory budget), :mod:`._mask` and
:mod:`._recall` (masking first and the recall loop). (The local stand-in for the APIs
that ``contextfold fake-upstream`` serves and the proxy's tests drive is
``contextfold_harness.fake_upstream``, outside the runtime package.) A face: it may
import everything below it (compaction, transports, formats, stores), never ``cli`` or
``manager``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import sys
import time
import warnings
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Final, Literal, cast

import httpx2

from contextfold._extras import requires_extra
from contextfold._secrets import guard_logs

with requires_extra("proxy", "contextfold.proxy"):
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    from contextfold.proxy._upstream import AiohttpUpstream, HttpxUpstream, Upstream

from contextfold.compaction import CompactionSettings
from contextfold.compaction._settings import Legacy, check_settings, refuse_fields
from contextfold.dialects import CHAT, MESSAGES, RESPONSES
from contextfold.proxy._budget import DEFAULT_MEMORY_BUDGET, MemoryBudget
from contextfold.proxy._cache import CacheBackend, SummaryCache, UsageAnchors
from contextfold.proxy._compact import Planner
from contextfold.proxy._config import ModelSettings, ModelTable
from contextfold.proxy._dashboard import DashboardRecorder
from contextfold.proxy._dashpage import dashboard_endpoint
from contextfold.proxy._forward import Forwarder
from contextfold.proxy._guard import SafetyNet, http_error
from contextfold.proxy._metrics import CONTENT_TYPE, MetricsMiddleware, ProxyMetrics
from contextfold.proxy._native import NativeMode, Seal
from contextfold.proxy._options import DEFAULT_MAX_BODY_BYTES, OPTION_NAMES, ProxyOptions

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MEMORY_BUDGET",
    "LOG_LEVELS",
    "ModelSettings",
    "ProxyOptions",
    "create_app",
    "serve",
]

DEFAULT_HEADER_TIMEOUT = 20.0
"""Seconds :func:`serve` gives a request's line and headers to arrive, all of them."""

DEFAULT_BODY_TIMEOUT = 20.0
"""Seconds :func:`serve` lets a request's body go without a byte arriving."""

_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

LogLevel = Literal["debug", "info", "warning", "error", "critical"]
LOG_LEVELS: tuple[LogLevel, ...] = ("debug", "info", "warning", "error", "critical")
"""The levels :func:`serve` takes for its ``log_level``."""


_OWN_PREFIX = (
    "each request brings its own system prompt and tools, and its summary is written "
    "as a request of its own"
)
_LEGACY_SETTINGS: Final = (
    "threshold",
    "keep_recent",
    "counter",
    "system_prompt",
    "max_summary_tokens",
    "target_ratio",
    "prepare_threshold",
    "user_message_budget",
    "instructions",
    "summary_timeout",
)
"""The fields of the settings :func:`create_app` took as keywords before ``settings``."""

_NOT_PROXY_SETTINGS: Final = {
    "proactive": "the proxy estimates every request before it forwards it",
    "cache_friendly": _OWN_PREFIX,
    "agent_system": _OWN_PREFIX,
    "agent_tools": _OWN_PREFIX,
}
"""The settings the proxy refuses rather than ignores, and why."""


def create_app(
    *,
    settings: CompactionSettings | None = None,
    options: ProxyOptions | None = None,
    upstream_openai: str = "https://api.openai.com/v1",
    upstream_anthropic: str = "https://api.anthropic.com",
    db: str | os.PathLike[str] | None = None,
    models: Mapping[str, ModelSettings | Mapping[str, Any]] | None = None,
    context_window: int | None = None,
    summary_model: str | None = None,
    http_client: httpx2.AsyncClient | None = None,
    **legacy: Any,
) -> Starlette:
    """The proxy as a Starlette (ASGI) application.

    ``upstream_openai`` is an OpenAI base URL including its ``/v1`` (the proxy's
    ``/v1/x`` goes to ``{upstream_openai}/x``); ``upstream_anthropic`` is an
    Anthropic base URL without it (``/v1/x`` goes to ``{upstream_anthropic}/v1/x``),
    the same conventions as the official SDKs' ``base_url``. ``context_window``
    overrides the registry's window for every model (a local server). ``http_client``
    (an ``httpx2.AsyncClient``, the SDKs' HTTP library) carries every upstream call,
    forwarded and summarizing alike; the app closes it only if it made it. Without
    one, requests are forwarded on an ``aiohttp`` session of the app's own (see
    :mod:`~contextfold.proxy._upstream`: tenants share its keep-alive connections,
    not a cap on them) and summaries go through the SDKs' own stack (an
    ``httpx2.AsyncClient``); both honour ``HTTPS_PROXY`` and the like.
    ``settings`` (a :class:`~contextfold.compaction.CompactionSettings`, the object
    :class:`~contextfold.compaction.AutoCompactStore` and the manager take) holds the
    compaction settings: ``threshold``, ``keep_recent``, ``max_tokens``, the prompts,
    ``target_ratio``, ``max_summary_tokens``, ``counter``, ``prepare_threshold`` (a
    share of the window below the limit, 0.6 by default; ``None``: off: a
    conversation's summary is prepared in the background when a request crosses it,
    so the first request over the limit gets it spliced without waiting for a model;
    see :mod:`contextfold.proxy._prepare`), ``summary_timeout`` (seconds a
    summarization may take, 120; ``None``: unbounded), ``max_backoff`` (how many
    over-limit requests skip summarizing after failures: 1, 2, 4 ... at most it),
    ``mask_tool_outputs`` (old tool outputs masked before summarizing, see
    :mod:`contextfold.proxy._mask`), ``user_message_budget``, ``instructions`` and
    ``should_compact``. Those the proxy cannot honour (``proactive``,
    ``cache_friendly``, ``agent_system``, ``agent_tools``) are a :class:`ValueError`.
    ``options`` (a :class:`~contextfold.proxy.ProxyOptions`) holds the proxy's own:
    ``max_body_bytes``, ``timeout`` (each upstream read, seconds),
    ``summary_max_retries``, ``secret_headers``, ``tenant_header``, ``memory_budget``,
    ``recall``, ``native_compaction``, ``compaction_key``, ``dashboard`` and
    ``dashboard_token``. ``models`` maps model names (matched like the registry's: exact, or
    a prefix followed by ``-``) to :class:`ModelSettings` (or plain mappings of its
    fields): that model's window, output limit, threshold, ``keep_recent`` and summary
    model, each winning over the proxy-wide value. The keywords this function took for
    the fields of ``settings`` and ``options`` before (``threshold=``,
    ``summary_timeout=``, ``recall=``...) and ``db_path`` (now ``db``) still work, with
    a :class:`DeprecationWarning`.

    ``options.secret_headers`` names request headers whose values are credentials too,
    to be scrubbed like ``Authorization``. ``options.recall`` offers the model a
    ``recall`` tool on the requests the proxy compacted and answers its calls itself
    from the client's own history, returning only the final reply (see
    :mod:`contextfold.proxy._recall`).

    ``db`` is where summaries are kept: an SQLite file (``None``: in memory, lost on
    restart) or a ``postgresql://`` URL (the ``postgres`` extra). Replicas given one PostgreSQL
    database share the summary cache, the usage anchors and the single-flight: N of
    them behind a load balancer pay for one summary per threshold crossing of a
    conversation (a replica that dies while summarizing blocks the others for at
    most 30 seconds, the length of its lease).

    The SQLite file is opened by the app's lifespan (or on the first request when the
    server runs no lifespan); a new one is created readable and writable by its owner
    only (0600, its ``-wal`` and ``-shm`` files too): summaries are conversations in
    clear. Bad settings raise :class:`ValueError` here.

    Everything the proxy learns is kept per tenant: by default a keyed hash of the
    request's credentials (``x-api-key``, ``Authorization``, ``api-key``, and the
    headers named in ``secret_headers``), or, with ``tenant_header`` (a header name,
    e.g. ``"x-user-id"`` set by a gateway), of that header's value (a request without
    it falls back to its credentials); see :mod:`contextfold.proxy._tenant`.

    ``options.memory_budget`` (bytes, :data:`DEFAULT_MEMORY_BUDGET`: 128 MiB; at least 1 MiB)
    bounds everything the proxy keeps between requests, together: parsed histories,
    token counts, summaries read from the cache, prepared summaries, usage anchors,
    layout records, learned limits..., each held to its share by an estimate of its
    bytes (see :mod:`contextfold.proxy._budget`). What one request holds while it is
    handled (its body and its parse) is not part of it.
    """
    guard_logs()  # before any record of a request: its query and texts are cleaned
    check_settings(settings)
    if options is not None and not isinstance(options, ProxyOptions):
        raise ValueError(f"options must be a ProxyOptions, got {options!r}")
    old = Legacy("create_app", legacy)
    own = old.take(OPTION_NAMES, "options=ProxyOptions({}=...)")
    db_path = old.take(("db_path",), "db=").get("db_path")
    fields = old.settings(_LEGACY_SETTINGS)
    old.done()
    options = (options or ProxyOptions()).replace(**own)
    settings = (settings or CompactionSettings()).replace(**fields)
    refuse_fields(settings, "the proxy", _NOT_PROXY_SETTINGS)
    if context_window is not None and context_window < 1024:
        raise ValueError(f"context_window must be at least 1024, got {context_window}")
    max_body_bytes = options.max_body_bytes
    timeout = options.timeout
    summary_max_retries = options.summary_max_retries
    secret_headers = options.secret_headers
    tenant_header = options.tenant_header
    memory_budget = options.memory_budget
    recall = options.recall
    for name, url in (
        ("upstream_openai", upstream_openai),
        ("upstream_anthropic", upstream_anthropic),
    ):
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"{name} must be an http(s) URL, got {url!r}")
    table = ModelTable(
        models,
        context_window=context_window,
        threshold=settings.threshold,
        keep_recent=settings.keep_recent,
        summary_model=summary_model,
        max_tokens=settings.max_tokens,
    )
    budget = MemoryBudget(memory_budget)
    metrics = ProxyMetrics()
    recorder = DashboardRecorder() if options.dashboard else None
    planner = Planner(
        _cache_backend(db, db_path, budget.share("summary_rows")),
        UsageAnchors(budget.share("anchors")),
        settings.options(),
        threshold=settings.threshold,
        target_ratio=settings.target_ratio,
        context_window=context_window,
        models=table,
        metrics=metrics,
        mask=settings.mask_tool_outputs,
        prepare_threshold=settings.prepare_threshold,
        flight_timeout=timeout,
        budget=budget,
        summary_timeout=settings.summary_timeout,
        max_backoff=settings.max_backoff,
        should_compact=settings.should_compact,
        dashboard=recorder,
    )
    owns_client = http_client is None
    upstream: Upstream
    if http_client is None:
        connect = min(timeout, 30.0)
        # the summarizers' and the model list's: the SDKs' own HTTP stack
        client = httpx2.AsyncClient(timeout=httpx2.Timeout(timeout, connect=connect))
        upstream = AiohttpUpstream(connect=connect, read=timeout)
    else:
        client, upstream = http_client, HttpxUpstream(http_client)
    forwarder = Forwarder(
        client,
        upstream,
        planner,
        upstream_openai=upstream_openai.rstrip("/"),
        upstream_anthropic=upstream_anthropic.rstrip("/"),
        max_body_bytes=max_body_bytes,
        summary_model=summary_model,
        context_window=context_window,
        summary_max_retries=summary_max_retries,
        secret_headers=secret_headers,
        recall=recall,
        tenant_header=tenant_header,
        budget=budget,
        seal=Seal(options.compaction_key),
        native=cast("NativeMode", options.native_compaction),
        dashboard=recorder,
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await forwarder.start()
        try:
            yield
        finally:
            await forwarder.windows.close()
            await planner.preparer.close()
            await planner.cache.close()
            await upstream.aclose()
            if owns_client:
                await client.aclose()

    async def chat_completions(request: Request) -> Response:
        return await forwarder.chat(request, CHAT)

    async def messages(request: Request) -> Response:
        return await forwarder.chat(request, MESSAGES, native=True)

    async def responses(request: Request) -> Response:
        return await forwarder.chat(request, RESPONSES, native=True)

    async def count_tokens(request: Request) -> Response:
        return await forwarder.count_tokens(request, MESSAGES)

    async def compact(request: Request) -> Response:
        return await forwarder.compact_responses(request)

    async def other(request: Request) -> Response:
        return await forwarder.passthrough(request)

    started = time.monotonic()
    health = {"status": "ok", "version": _version()}

    async def healthz(request: Request) -> Response:
        return JSONResponse({**health, "uptime_seconds": round(time.monotonic() - started, 3)})

    async def scrape(request: Request) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    async def local_only(request: Request) -> Response:
        # a local route under another method: refused, never forwarded upstream
        raise HTTPException(405, headers={"Allow": "GET, HEAD"})

    async def not_found(request: Request) -> Response:
        # the dashboard's paths are the proxy's own, whether it is on or not
        raise HTTPException(404)

    refused = [method for method in _METHODS if method != "GET"]
    if recorder is None:
        dashboard = [Route("/dashboard", not_found, methods=_METHODS)]
    else:
        page = dashboard_endpoint(recorder, options.dashboard_token)
        dashboard = [
            Route("/dashboard", page, methods=["GET"]),
            Route("/dashboard", local_only, methods=refused),
        ]

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/v1/messages", messages, methods=["POST"]),
            Route("/v1/responses", responses, methods=["POST"]),
            Route("/v1/responses/compact", compact, methods=["POST"]),
            Route("/v1/messages/count_tokens", count_tokens, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", scrape, methods=["GET"]),
            Route("/healthz", local_only, methods=refused),
            Route("/metrics", local_only, methods=refused),
            *dashboard,
            Route("/dashboard/{rest:path}", not_found, methods=_METHODS),
            Route("/{path:path}", other, methods=_METHODS),
        ],
        middleware=[Middleware(MetricsMiddleware, metrics=metrics), Middleware(SafetyNet)],
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.options = options
    app.state.forwarder = forwarder
    app.state.metrics = metrics
    app.state.dashboard = recorder
    return app


def _cache_backend(
    db: str | os.PathLike[str] | None,
    db_path: str | os.PathLike[str] | None,
    max_bytes: int,
) -> CacheBackend:
    """The summary cache ``db`` (or the older ``db_path``) names; an SQLite one keeps
    at most ``max_bytes`` of rows in memory."""
    if db is not None and db_path is not None:
        raise ValueError("give db or db_path, not both")
    target = db if db is not None else db_path
    if isinstance(target, str) and target.startswith(("postgresql://", "postgres://")):
        from contextfold.proxy._pgcache import PostgresSummaryCache  # the postgres extra

        return PostgresSummaryCache(target)
    return SummaryCache(target, max_bytes)


def serve(
    host: str = "127.0.0.1",
    port: int = 8787,
    *,
    log_level: LogLevel = "info",
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    **create_app_kwargs: Any,
) -> None:
    """Run :func:`create_app` (``**create_app_kwargs``) with uvicorn until interrupted.

    Binds ``127.0.0.1`` unless told otherwise: anyone who can reach the port can
    spend the credentials that pass through it, so expose it deliberately. Served
    with httptools' parser when it imports (h11's otherwise), and what the server
    answers itself (a request it cannot parse, a head over 64 KiB) is JSON in the
    dialect's shape too (see :mod:`._server`).

    Slow clients are cut off: a request's line and headers must all arrive within
    ``header_timeout`` seconds (20 by default) of the connection's opening (of the
    request's first byte on a kept-alive connection), and its body may go at most
    ``body_timeout`` seconds (20) without a byte arriving. A connection that sent
    nothing is then closed; a stalled request is answered a JSON 408 in the dialect's
    shape and its connection closed (see :mod:`._server`). An app made by
    :func:`create_app` and run under another server has that server's timeouts.
    Either timeout that is not a positive number is a :class:`ValueError`.

    A dashboard (``options=ProxyOptions(dashboard=True)``) on a ``host`` that is not
    loopback (``127.0.0.0/8``, ``::1``, ``localhost``) must have a ``dashboard_token``:
    without one, a :class:`ValueError` before anything is bound.

    ``log_level`` (one of :data:`LOG_LEVELS`) applies to uvicorn and to the proxy's
    own records (logger ``contextfold``: each compaction and summary cache hit at
    ``INFO``, failed summarizations at ``WARNING``), which go to stderr unless the
    process configured logging itself (a handler on the root or ``contextfold``
    logger). Credentials are scrubbed from every record before any handler sees it
    (:mod:`contextfold._secrets`).
    """
    with requires_extra("proxy", "contextfold.proxy.serve"):
        import uvicorn

        from contextfold.proxy._server import http_protocol, server_config

    if log_level not in LOG_LEVELS:
        raise ValueError(f"log_level must be one of {', '.join(LOG_LEVELS)}, got {log_level!r}")
    http_protocol(header_timeout=header_timeout, body_timeout=body_timeout)  # checks them
    options = create_app_kwargs.get("options")
    if (
        isinstance(options, ProxyOptions)
        and options.dashboard
        and options.dashboard_token is None
        and not _is_loopback(host)
    ):
        raise ValueError(
            f"the dashboard on {host}, not a loopback address, needs a token: give "
            "dashboard_token (--dashboard-token, CONTEXTFOLD_DASHBOARD_TOKEN)"
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        app = create_app(**create_app_kwargs)
    for warning in caught:  # create_app's warnings, pointed at serve's caller
        if issubclass(warning.category, DeprecationWarning):
            warnings.warn(warning.message, warning.category, stacklevel=2)
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    _log_to_stderr(log_level)
    config = server_config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        header_timeout=header_timeout,
        body_timeout=body_timeout,
    )
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:  # the port was taken, say: uvicorn logged why
        sys.exit(3)  # uvicorn.run's exit status for a failed start


def _is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (an address, or ``localhost``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip()).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def _log_to_stderr(level: LogLevel) -> None:
    """Send the ``contextfold`` logger's records at ``level`` and above to stderr,
    unless logging is configured already (then the application's set-up decides)."""
    logger = logging.getLogger("contextfold")
    if logger.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level.upper())


def _version() -> str:
    try:
        return version("contextfold")
    except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        return "0.0.0"

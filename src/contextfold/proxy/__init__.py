"""An HTTP proxy that gives any agent compaction by changing its base URL.

>>> serve(upstream_openai="https://api.openai.com/v1", port=8787)   # blocks

or, as an ASGI app under any server: ``app = create_app(db_path="proxy.db")``.

Routes:

``POST /v1/chat/completions`` (OpenAI) and ``POST /v1/messages`` (Anthropic)
    The body is parsed with :mod:`contextfold.formats`. When the conversation's
    estimated prompt size is over its model's limit (``threshold ×`` the context
    window from the model registry, never above ``window − max output``), the older
    part is replaced by a summary and the rewritten request is forwarded; otherwise
    the original bytes are forwarded untouched. The estimate is anchored on the
    prompt size the upstream reported for the longest already-seen prefix of the
    same history, and counted with the configured counter for the rest. A body
    whose byte size alone shows it far under the limit (twice ``bytes × tokens per
    byte``, the ratio learnt from the upstream's usage reports and at least 1/4,
    plus 600 per media part, still under it) is forwarded without being parsed;
    its ``tokens`` headers then carry that byte-based bound.
Anything else (``GET /v1/models``, ``/v1/embeddings``, ``/v1/messages/count_tokens``...)
    Proxied transparently: ``/v1/messages…`` and requests carrying an
    ``anthropic-version`` header go to the Anthropic upstream, the rest to OpenAI.
    The path and query reach the upstream as the client escaped them (``%2F``,
    ``%00`` and bytes that are not UTF-8 are relayed, not decoded); a path with a
    ``.`` or ``..`` segment is refused with a 400.
    Limit: these are buffered whole, both ways (only server-sent event streams are
    relayed as they arrive), and their request bodies are held to
    ``max_body_bytes`` like chat requests; upload large files to the provider
    directly.

Summaries are made through :class:`~contextfold.transports.openai.OpenAITransport`
or :class:`~contextfold.transports.anthropic.AnthropicTransport` pointed at the
configured upstream, with the *caller's own* credentials (``Authorization: Bearer``
/ ``x-api-key``, and the caller's ``OpenAI-Organization`` / ``OpenAI-Project``), and
the model ``summary_model`` or the request's. The proxy process's environment
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``...) is never used: a request without
credentials is forwarded unchanged, uncompacted, with an ``x-contextfold-error``. They are cached in
SQLite under a hash of the prefix they replace, so a client that resends its whole,
growing history pays one summarization per threshold crossing; the next crossing
extends the cached summary incrementally. Concurrent requests of one conversation
share one summarization; with ``db="postgresql://..."`` this holds across every
replica sharing the database (:mod:`._pgcache`).

Guarantees:

* Responses pass through byte for byte; server-sent event streams are relayed
  chunk by chunk as they arrive. Upstream errors keep their status and body.
* Every chat response says what happened: ``x-contextfold-compacted: true|false``,
  ``x-contextfold-tokens-before`` / ``-after`` (estimated prompt sizes),
  ``x-contextfold-summary: none|cached|created`` and, when summarization failed or
  the rewrite was invalid, ``x-contextfold-error`` - the original request is then
  forwarded unchanged rather than failing the call.
* A rewritten history passes :func:`~contextfold.validation.history_problems`
  (tool calls stay with their results, system messages are kept) or is not sent.
* A history with content :mod:`contextfold.formats` does not model (images by URL,
  files, audio, server tool blocks...) is forwarded unchanged, with
  ``x-contextfold-compacted: false`` and an ``x-contextfold-error`` saying why.
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
* Credentials are forwarded and used for summaries only; they are never logged,
  never put in a header or error, never stored (the cache holds summaries and
  hashes; a summary that repeats one has it redacted). Credentials are the values of
  ``Authorization``, ``x-api-key``, ``api-key``, ``Cookie`` and of the headers named
  in ``secret_headers``; they are scrubbed also where an upstream echoes them (in an
  error, or at ``DEBUG`` in the SDKs' and ``httpx``'s logs). An upstream's own answer
  is relayed as it is: its echo goes back only to the caller who sent the credential.
  Hop-by-hop headers, ``Host`` and ``Content-Length`` are not forwarded.

The room: :mod:`._forward` (routes, forwarding, streaming relay), :mod:`._dialects`
(a request body as a conversation and back), :mod:`._compact` (the per-request plan),
:mod:`._memo` (incremental parsing of a resent history), :mod:`._cache` (summary cache
and usage anchors), :mod:`._pgcache` (both, and the single-flight, shared on
PostgreSQL) and :mod:`._bound` (the byte-size fast path). A face: it may import
everything below it (compaction, transports, formats, stores), never ``cli`` or
``manager``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import httpx2

from contextfold._extras import requires_extra

with requires_extra("proxy", "contextfold.proxy"):
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

from contextfold.compaction import CompactionSettings, PromptLike
from contextfold.proxy._cache import CacheBackend, SummaryCache, UsageAnchors
from contextfold.proxy._compact import Planner
from contextfold.proxy._forward import Forwarder
from contextfold.proxy._guard import SafetyNet, http_error
from contextfold.tokens import TokenCounter

__all__ = ["DEFAULT_MAX_BODY_BYTES", "create_app", "serve"]

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
"""32 MiB, the request size limit of the Anthropic Messages API."""

_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def create_app(
    *,
    upstream_openai: str = "https://api.openai.com/v1",
    upstream_anthropic: str = "https://api.anthropic.com",
    db_path: str | os.PathLike[str] | None = None,
    settings: CompactionSettings | None = None,
    threshold: float | None = None,
    keep_recent: int | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    summary_model: str | None = None,
    http_client: httpx2.AsyncClient | None = None,
    context_window: int | None = None,
    counter: TokenCounter | None = None,
    system_prompt: PromptLike | None = None,
    max_summary_tokens: int | None = None,
    target_ratio: float | None = None,
    summary_max_retries: int = 2,
    timeout: float = 600.0,
    secret_headers: Iterable[str] = (),
    db: str | os.PathLike[str] | None = None,
) -> Starlette:
    """The proxy as a Starlette (ASGI) application.

    ``upstream_openai`` is an OpenAI base URL including its ``/v1`` (the proxy's
    ``/v1/x`` goes to ``{upstream_openai}/x``); ``upstream_anthropic`` is an
    Anthropic base URL without it (``/v1/x`` goes to ``{upstream_anthropic}/v1/x``),
    the same conventions as the official SDKs' ``base_url``. ``db_path`` is the
    SQLite summary cache (``None``: in memory, lost on restart). ``context_window``
    overrides the registry's window for every model (a local server). ``http_client``
    (an ``httpx2.AsyncClient``, the SDKs' HTTP library) carries every upstream call,
    forwarded and summarizing alike; the app closes it only if it made it.
    ``settings`` (a :class:`~contextfold.compaction.CompactionSettings`) holds the
    compaction options; ``threshold``, ``keep_recent``, ``counter``, ``system_prompt``,
    ``max_summary_tokens`` and ``target_ratio`` (the share of the limit a fresh
    compaction aims for), when given, override its fields;
    ``summary_max_retries`` counts the summarizer's retries of transient errors and
    ``timeout`` bounds each upstream read in seconds. ``secret_headers`` names request
    headers whose values are credentials too (a gateway's own key header, say), to be
    scrubbed like ``Authorization``.

    ``db`` is where summaries are kept: an SQLite file (like ``db_path``) or a
    ``postgresql://`` URL (the ``postgres`` extra). Replicas given one PostgreSQL
    database share the summary cache, the usage anchors and the single-flight: N of
    them behind a load balancer pay for one summary per threshold crossing of a
    conversation (a replica that dies while summarizing blocks the others for at
    most 30 seconds, the length of its lease).

    The SQLite file is opened by the app's lifespan (or on the first request when the
    server runs no lifespan). Bad settings raise :class:`ValueError` here.
    """
    settings = (settings or CompactionSettings()).replace(
        threshold=threshold,
        keep_recent=keep_recent,
        counter=counter,
        system_prompt=system_prompt,
        max_summary_tokens=max_summary_tokens,
        target_ratio=target_ratio,
    )
    if max_body_bytes < 1:
        raise ValueError(f"max_body_bytes must be positive, got {max_body_bytes}")
    if context_window is not None and context_window < 1024:
        raise ValueError(f"context_window must be at least 1024, got {context_window}")
    if summary_max_retries < 0:
        raise ValueError(f"summary_max_retries must be non-negative, got {summary_max_retries}")
    if isinstance(secret_headers, str):
        raise ValueError(f"secret_headers must be a list of header names, got {secret_headers!r}")
    for name, url in (
        ("upstream_openai", upstream_openai),
        ("upstream_anthropic", upstream_anthropic),
    ):
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"{name} must be an http(s) URL, got {url!r}")
    planner = Planner(
        _cache_backend(db, db_path),
        UsageAnchors(),
        settings.options(),
        threshold=settings.threshold,
        target_ratio=settings.target_ratio,
        context_window=context_window,
        flight_timeout=timeout,
    )
    owns_client = http_client is None
    client = http_client or httpx2.AsyncClient(
        timeout=httpx2.Timeout(timeout, connect=min(timeout, 30.0)),
        limits=httpx2.Limits(max_connections=256, max_keepalive_connections=64),
    )
    forwarder = Forwarder(
        client,
        planner,
        upstream_openai=upstream_openai.rstrip("/"),
        upstream_anthropic=upstream_anthropic.rstrip("/"),
        max_body_bytes=max_body_bytes,
        summary_model=summary_model,
        context_window=context_window,
        summary_max_retries=summary_max_retries,
        secret_headers=secret_headers,
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await forwarder.start()
        try:
            yield
        finally:
            await planner.cache.close()
            if owns_client:
                await client.aclose()

    async def chat_completions(request: Request) -> Response:
        return await forwarder.chat(request, "openai")

    async def messages(request: Request) -> Response:
        return await forwarder.chat(request, "anthropic")

    async def other(request: Request) -> Response:
        return await forwarder.passthrough(request)

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/v1/messages", messages, methods=["POST"]),
            Route("/{path:path}", other, methods=_METHODS),
        ],
        middleware=[Middleware(SafetyNet)],
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.forwarder = forwarder
    return app


def _cache_backend(
    db: str | os.PathLike[str] | None, db_path: str | os.PathLike[str] | None
) -> CacheBackend:
    """The summary cache ``db`` (or the older ``db_path``) names."""
    if db is not None and db_path is not None:
        raise ValueError("give db or db_path, not both")
    target = db if db is not None else db_path
    if isinstance(target, str) and target.startswith(("postgresql://", "postgres://")):
        from contextfold.proxy._pgcache import PostgresSummaryCache  # the postgres extra

        return PostgresSummaryCache(target)
    return SummaryCache(target)


def serve(host: str = "127.0.0.1", port: int = 8787, **create_app_kwargs: Any) -> None:
    """Run :func:`create_app` (``**create_app_kwargs``) with uvicorn until interrupted.

    Binds ``127.0.0.1`` unless told otherwise: anyone who can reach the port can
    spend the credentials that pass through it, so expose it deliberately.
    """
    with requires_extra("proxy", "contextfold.proxy.serve"):
        import uvicorn

    uvicorn.run(create_app(**create_app_kwargs), host=host, port=port, log_level="info")

"""The proxy's own counters, and their Prometheus text exposition at ``GET /metrics``.

Written here rather than with ``prometheus_client``: a handful of counters and one
histogram need no dependency, and each update is a dict or list increment on the
event loop's thread (the proxy is one asyncio process; nothing here is shared
between threads).

Every label value comes from a fixed set, so no request can add a time series: routes
are :data:`ROUTES` (anything else is ``other``; never a raw path), compaction outcomes
:data:`OUTCOMES`, upstream error kinds :data:`UPSTREAM_ERRORS`, and statuses the
three-digit HTTP code of the answer. Nothing a request carries (credentials, model
names, conversation hashes) ever becomes a label.

*Added latency* is the proxy's overhead on a request: the time from its arrival to
the start of the answer, less the time spent waiting for the upstream's answer to
the forwarded request (its headers, and for a buffered reply its body). A
summarization made for the request counts as added latency - the client waits for
it; the relay of a stream after its first byte does not.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from contextfold.compaction import FactCoverage

__all__ = [
    "BUCKETS",
    "CONTENT_TYPE",
    "OUTCOMES",
    "ROUTES",
    "UPSTREAM_ERRORS",
    "MetricsMiddleware",
    "ProxyMetrics",
    "upstream_time",
]

ROUTES: Final = {
    ("POST", "/v1/chat/completions"): "/v1/chat/completions",
    ("POST", "/v1/messages"): "/v1/messages",
    ("POST", "/v1/responses"): "/v1/responses",
    ("GET", "/healthz"): "/healthz",
    ("HEAD", "/healthz"): "/healthz",
    ("GET", "/metrics"): "/metrics",
    ("HEAD", "/metrics"): "/metrics",
    ("GET", "/dashboard"): "/dashboard",
    ("HEAD", "/dashboard"): "/dashboard",
}
"""(method, path) -> route label; every other request is ``other`` (forwarded as is)."""
_LOCAL_ROUTES: Final = frozenset({"/healthz", "/metrics", "/dashboard"})

Outcome = Literal["not_needed", "masked", "cached", "created", "relieved", "error"]
OUTCOMES: Final[tuple[Outcome, ...]] = (
    "not_needed",
    "masked",
    "cached",
    "created",
    "relieved",
    "error",
)
Unplaced = Literal[
    "unmodelled",
    "invalid_rewrite",
    "encoded_body",
    "server_state",
    "unserializable",
    "frees_too_little",
    "held",
    "backoff",
    "no_credentials",
    "busy",
    "summary_failed",
    "internal_error",
]
"""Why a request over the limit (or that could not be read) was forwarded uncompacted."""
UNPLACED: Final[tuple[Unplaced, ...]] = get_args(Unplaced)
NativeApi = Literal[
    "responses_compact",
    "responses_context",
    "messages_compaction",
    "messages_compact_edit",
    "messages_edits",
]
"""The providers' compaction APIs the proxy emulates (see :mod:`._native`)."""
NATIVE_APIS: Final[tuple[NativeApi, ...]] = get_args(NativeApi)
UpstreamError = Literal["timeout", "connect", "broken"]
UPSTREAM_ERRORS: Final[tuple[UpstreamError, ...]] = ("timeout", "connect", "broken")
# Prometheus client libraries' default buckets, with four below 5 ms: the proxy's
# pass-through overhead is a fraction of a millisecond.
BUCKETS: Final = (
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.075,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
)
CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
_PREFIX = "contextfold_proxy_"


@dataclass(slots=True)
class _Timing:
    """One request's clock: when it arrived, and how long it waited on the upstream."""

    started: float
    upstream: float = 0.0


_TIMING: ContextVar[_Timing | None] = ContextVar("contextfold_proxy_timing", default=None)


def upstream_time(seconds: float) -> None:
    """Count ``seconds`` spent waiting on the upstream for the current request."""
    timing = _TIMING.get()
    if timing is not None:
        timing.upstream += seconds


class ProxyMetrics:
    """Counters of one proxy app; :meth:`render` writes them in the text format."""

    def __init__(self) -> None:
        self.requests: dict[tuple[str, int], int] = {}
        self.compactions: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        self.unplaced: dict[str, int] = dict.fromkeys(UNPLACED, 0)
        self.cache_hits = 0
        self.cache_misses = 0
        self.summarizer_tokens = {"input": 0, "output": 0}
        self.upstream_errors: dict[str, int] = dict.fromkeys(UPSTREAM_ERRORS, 0)
        self.native: dict[tuple[str, str], int] = {
            (api, outcome): 0 for api in NATIVE_APIS for outcome in ("applied", "error")
        }
        self.items: dict[str, int] = {"expanded": 0, "refused": 0}
        self.facts: dict[str, int] = dict.fromkeys(("found", "kept", "restored", "dropped"), 0)
        self.latency_buckets = [0] * len(BUCKETS)
        self.latency_sum = 0.0
        self.latency_count = 0

    # -- updates ---------------------------------------------------------------------

    def request(self, route: str, status: int) -> None:
        key = (route, status)
        self.requests[key] = self.requests.get(key, 0) + 1

    def compaction(self, outcome: Outcome, why: Unplaced | None = None) -> None:
        self.compactions[outcome] += 1
        if outcome in ("error", "relieved") and why is not None:
            self.unplaced[why] += 1

    def cache_hit(self) -> None:
        self.cache_hits += 1

    def cache_miss(self) -> None:
        self.cache_misses += 1

    def summarized(self, input_tokens: int, output_tokens: int) -> None:
        self.summarizer_tokens["input"] += input_tokens
        self.summarizer_tokens["output"] += output_tokens

    def fact_coverage(self, coverage: FactCoverage) -> None:
        """Count what a new summary's fact ledger found, kept, restored and dropped."""
        for result in self.facts:
            self.facts[result] += getattr(coverage, result)

    def native_call(self, api: NativeApi, ok: bool) -> None:
        key = (api, "applied" if ok else "error")
        self.native[key] = self.native.get(key, 0) + 1

    def compaction_items(self, result: Literal["expanded", "refused"], count: int = 1) -> None:
        self.items[result] += count

    def upstream_error(self, kind: UpstreamError) -> None:
        self.upstream_errors[kind] += 1

    def added_latency(self, seconds: float) -> None:
        for i, bound in enumerate(BUCKETS):
            if seconds <= bound:
                self.latency_buckets[i] += 1
                break
        self.latency_sum += seconds
        self.latency_count += 1

    # -- exposition --------------------------------------------------------------------

    def render(self) -> str:
        """Every metric in the Prometheus text exposition format (version 0.0.4)."""
        lines: list[str] = []

        def family(name: str, kind: str, text: str) -> None:
            lines.append(f"# HELP {_PREFIX}{name} {text}")
            lines.append(f"# TYPE {_PREFIX}{name} {kind}")

        family("requests_total", "counter", "Requests answered, by route and HTTP status.")
        for (route, status), count in sorted(self.requests.items()):
            lines.append(f'{_PREFIX}requests_total{{route="{route}",status="{status}"}} {count}')
        family(
            "compactions_total",
            "counter",
            "Chat requests by compaction outcome: not_needed (under the limit), masked (old "
            "tool outputs masked, no summary), cached "
            "(a cached summary spliced in), created (summarized now), relieved (no summary "
            "could be made and the request was over the window: cut under it without a "
            "model, with x-contextfold-error), error (forwarded "
            "unchanged with x-contextfold-error); a request compacted by force after a "
            "context overflow counts once more.",
        )
        for outcome, count in self.compactions.items():
            lines.append(f'{_PREFIX}compactions_total{{outcome="{outcome}"}} {count}')
        family(
            "not_compacted_total",
            "counter",
            "Chat requests counted under outcome error or relieved, by why no summary "
            "was made for them: unmodelled (content the proxy cannot read as a history), "
            "invalid_rewrite (the rewrite failed the dialect's checks), encoded_body (a "
            "Content-Encoding the proxy does not decode), server_state (a Responses request "
            "that continues server-side state), unserializable (NaN or infinity), "
            "frees_too_little (a summary would free too little of the limit), held (the "
            "should_compact hook said not now), backoff "
            "(skipped after failed summaries), no_credentials, busy (another replica is "
            "summarizing), summary_failed, internal_error.",
        )
        for why, count in self.unplaced.items():
            lines.append(f'{_PREFIX}not_compacted_total{{reason="{why}"}} {count}')
        family(
            "summary_cache_hits_total",
            "counter",
            "Over-limit histories answered from the summary cache.",
        )
        lines.append(f"{_PREFIX}summary_cache_hits_total {self.cache_hits}")
        family(
            "summary_cache_misses_total",
            "counter",
            "Over-limit histories the summary cache could not bring under the limit.",
        )
        lines.append(f"{_PREFIX}summary_cache_misses_total {self.cache_misses}")
        family(
            "summarizer_tokens_total",
            "counter",
            "Tokens the upstream reported for completed summarizations, by direction.",
        )
        for direction, count in self.summarizer_tokens.items():
            lines.append(f'{_PREFIX}summarizer_tokens_total{{direction="{direction}"}} {count}')
        family(
            "summary_facts_total",
            "counter",
            "Facts the fact ledger found in the parts new summaries replaced (files and "
            "their state, identifiers, the user's instructions and next steps), by result: "
            "found, kept (the summary or the verbatim messages state it), restored (in the "
            "ledger section after the summary), dropped (past the fact budget).",
        )
        for result, count in self.facts.items():
            lines.append(f'{_PREFIX}summary_facts_total{{result="{result}"}} {count}')
        family(
            "native_compactions_total",
            "counter",
            "The providers' compaction APIs answered or applied by the proxy, by API "
            "(responses_compact, responses_context, messages_compaction, "
            "messages_compact_edit, messages_edits) and outcome (applied, error).",
        )
        for (api, outcome), count in sorted(self.native.items()):
            lines.append(
                f'{_PREFIX}native_compactions_total{{api="{api}",outcome="{outcome}"}} {count}'
            )
        family(
            "compaction_items_total",
            "counter",
            "Compaction items and blocks of the proxy's own that later requests carried: "
            "expanded into their summaries, or refused (forged, damaged or another's).",
        )
        for result, count in self.items.items():
            lines.append(f'{_PREFIX}compaction_items_total{{result="{result}"}} {count}')
        family(
            "upstream_errors_total",
            "counter",
            "Forwarded requests whose upstream timed out, could not be reached, or broke off.",
        )
        for kind, count in self.upstream_errors.items():
            lines.append(f'{_PREFIX}upstream_errors_total{{kind="{kind}"}} {count}')
        family(
            "added_latency_seconds",
            "histogram",
            "Time the proxy added to a forwarded request: arrival to answer, less the "
            "wait for the upstream.",
        )
        cumulative = 0
        for bound, count in zip(BUCKETS, self.latency_buckets, strict=True):
            cumulative += count
            lines.append(f'{_PREFIX}added_latency_seconds_bucket{{le="{bound}"}} {cumulative}')
        lines.append(f'{_PREFIX}added_latency_seconds_bucket{{le="+Inf"}} {self.latency_count}')
        lines.append(f"{_PREFIX}added_latency_seconds_sum {self.latency_sum!r}")
        lines.append(f"{_PREFIX}added_latency_seconds_count {self.latency_count}")
        return "\n".join(lines) + "\n"


_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_ASGIApp = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


class MetricsMiddleware:
    """Counts every HTTP request by route and status, and the latency the proxy added
    to each forwarded one (pure ASGI: streams pass through untouched)."""

    def __init__(self, app: _ASGIApp, metrics: ProxyMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = ROUTES.get((scope.get("method", ""), scope.get("path", "")), "other")
        timing = _Timing(time.perf_counter())
        answered: list[float] = []
        status = 0

        async def sending(message: _Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start" and not answered:
                answered.append(time.perf_counter())
                status = int(message["status"])
            await send(message)

        token = _TIMING.set(timing)
        try:
            await self.app(scope, receive, sending)
        finally:
            _TIMING.reset(token)
            if answered:  # a request whose client left unanswered is not counted
                self.metrics.request(route, status)
                if route not in _LOCAL_ROUTES:
                    added = answered[0] - timing.started - timing.upstream
                    self.metrics.added_latency(max(added, 0.0))

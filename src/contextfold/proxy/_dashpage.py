"""``GET /dashboard``: the recorder's conversations (:mod:`._dashboard`) as one HTML page.

Rendered on the server, with the standard library only: a table of conversations
(tenant, root, model, requests, compactions, the prompt size now, the limit, cache
hits, requests forwarded over an error, the summarizer's tokens), and per conversation
a token timeline - an inline SVG chart, per request, of the size of the history the
client sent and of the prompt the proxy forwarded (its estimates) and of that prompt as
the upstream reported it, a marker per compaction from its size before to its size
after, the limit as a dashed line, numbered axes - and the list of its compactions.
The page holds no script and loads nothing: its ``Content-Security-Policy`` forbids
both.

Every text on it is escaped (:func:`html.escape`), attribute values included: the
model name is the client's text, and the tenant keys and roots are shown as the proxy
knows them, hashes (:mod:`._tenant`), never a credential.

With a ``token``, the page is answered only to a request that carries it, as
``Authorization: Bearer TOKEN`` or ``?token=TOKEN`` (compared in constant time); any
other gets a 401 in the proxy's JSON error shape, which never quotes what was sent.
The token is not written on the page, and the proxy's log scrubber already cleans a
``token`` query parameter from every log line (:mod:`contextfold._secrets`).
"""

from __future__ import annotations

import hmac
import html
import math
import time
from collections.abc import Awaitable, Callable, Sequence

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from contextfold.proxy._dashboard import Compaction, ConversationRecord, DashboardRecorder, Point

__all__ = ["CHART_HEIGHT", "CHART_WIDTH", "dashboard_endpoint", "render_chart", "render_page"]

CHART_WIDTH = 960
CHART_HEIGHT = 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 72, 20, 16, 40
_SHORT = 12  # hex digits shown of a tenant key or a root (the whole one in its title)

_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1f2933; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 6px; }
p.meta, p.legend { color: #52606d; margin: 2px 0 12px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { padding: 4px 8px; border-bottom: 1px solid #e4e7eb; text-align: left; }
td { white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f5f7fa; font-weight: 600; }
code { font: 12px ui-monospace, monospace; }
svg { background: #fbfcfd; border: 1px solid #e4e7eb; }
svg text { font: 11px system-ui, sans-serif; fill: #52606d; }
.swatch { display: inline-block; width: 18px; height: 3px; vertical-align: middle; }
"""


def dashboard_endpoint(
    recorder: DashboardRecorder, token: str | None
) -> Callable[[Request], Awaitable[Response]]:
    """The ``GET /dashboard`` route over ``recorder``, asking for ``token`` when given."""

    async def dashboard(request: Request) -> Response:
        if token is not None and not _authorized(request, token):
            raise HTTPException(
                401,
                "the dashboard needs its token: Authorization: Bearer TOKEN, or ?token=TOKEN",
                headers={"WWW-Authenticate": 'Bearer realm="contextfold dashboard"'},
            )
        return HTMLResponse(render_page(recorder, now=time.time()), headers=_HEADERS)

    return dashboard


def _authorized(request: Request, token: str) -> bool:
    expected = token.encode()
    given = request.query_params.getlist("token")
    authorization = request.headers.get("authorization", "")
    if authorization[:7].lower() == "bearer ":
        given.append(authorization[7:].strip())
    # every candidate compared, in constant time each
    matches = [hmac.compare_digest(g.encode(errors="surrogatepass"), expected) for g in given]
    return any(matches)


# -- the page --------------------------------------------------------------------------


def render_page(recorder: DashboardRecorder, *, now: float) -> str:
    """The whole page (see the module doc) as the recorder holds it at ``now``."""
    records = recorder.conversations()
    requests = sum(r.requests for r in records)
    compactions = sum(r.compactions for r in records)
    hits = sum(r.cache_hits for r in records)
    spent_in = sum(r.summarizer_input for r in records)
    spent_out = sum(r.summarizer_output for r in records)
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>contextfold proxy dashboard</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>contextfold proxy</h1>",
        '<p class="meta" id="totals">',
        f"{_n(len(records))} conversations (the last {_n(recorder.max_conversations)} "
        f"kept), {_n(requests)} requests, {_n(compactions)} compactions, {_n(hits)} "
        f"cache hits, summarizer tokens {_n(spent_in)} in / {_n(spent_out)} out; "
        f"{_n(recorder.unattributed)} chat requests not read as a history. "
        f"Since {_clock(recorder.started)}, as of {_clock(now)} (UTC).</p>",
    ]
    if not records:
        parts.append('<p id="empty">No chat request has reached the proxy yet.</p>')
    else:
        parts.append(_conversation_table(records))
        for index, record in enumerate(records, 1):
            parts.append(_conversation_section(index, record))
    parts.append("</body></html>")
    return "\n".join(parts)


def _conversation_table(records: Sequence[ConversationRecord]) -> str:
    head = _row(
        "th",
        [
            ("", "Tenant"),
            ("", "Conversation"),
            ("", "Model"),
            ("num", "Requests"),
            ("num", "Compactions"),
            ("num", "Tokens now"),
            ("num", "Upstream reported"),
            ("num", "Limit"),
            ("num", "Cache hits"),
            ("num", "Errors"),
            ("num", "Summarizer tokens in"),
            ("num", "Summarizer tokens out"),
            ("", "Last request (UTC)"),
        ],
    )
    rows = []
    for index, record in enumerate(records, 1):
        last = record.points[-1] if record.points else None
        cells = [
            f'<td class="tenant">{_hash(record.tenant)}</td>',
            f'<td class="root"><a href="#conversation-{index}">{_hash(record.root)}</a></td>',
            f'<td class="model">{_e(record.model) or "-"}</td>',
            _num("requests", record.requests),
            _num("compactions", record.compactions),
            _num("tokens-now", None if last is None else last.sent),
            _num("reported", None if last is None else last.reported),
            _num("limit", record.limit),
            _num("cache-hits", record.cache_hits),
            _num("errors", record.errors),
            _num("summarizer-in", record.summarizer_input),
            _num("summarizer-out", record.summarizer_output),
            f'<td class="last">{_clock(record.last_at)}</td>',
        ]
        rows.append(f'<tr id="row-{index}">{"".join(cells)}</tr>')
    return f'<table id="conversations"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _conversation_section(index: int, record: ConversationRecord) -> str:
    title = (
        f"Conversation {_hash(record.root)} of tenant {_hash(record.tenant)}"
        f" &middot; {_e(record.model) or '-'}"
    )
    legend = (
        '<p class="legend"><span class="swatch" style="background:#94d2bd"></span> the '
        'history the client sent &nbsp; <span class="swatch" style="background:#2563eb">'
        "</span> the prompt forwarded (both estimated) &nbsp; "
        '<span class="swatch" style="background:#9aa5b1"></span> the prompt as the upstream '
        'reported it &nbsp; <span class="swatch" style="background:#e8590c"></span> '
        'compaction, before &rarr; after &nbsp; <span class="swatch" '
        'style="background:#c92a2a"></span> limit</p>'
    )
    shown = len(record.points)
    note = ""
    if shown < record.requests:
        note = f'<p class="meta">The last {_n(shown)} of {_n(record.requests)} requests.</p>'
    return (
        f'<section class="conversation" id="conversation-{index}">'
        f"<h2>{title}</h2>{legend}"
        f"{render_chart(list(record.points), list(record.events), record.limit)}"
        f"{note}"
        f"{_compaction_table(list(record.events))}</section>"
    )


def _compaction_table(events: Sequence[Compaction]) -> str:
    if not events:
        return '<p class="meta compactions-none">No compaction yet.</p>'
    head = _row(
        "th",
        [
            ("num", "Request"),
            ("", "Time (UTC)"),
            ("", "Outcome"),
            ("num", "Tokens before"),
            ("num", "Tokens after"),
            ("", "Summary"),
            ("", "Cache hit"),
            ("num", "Summarizer tokens in"),
            ("num", "Summarizer tokens out"),
            ("", "Facts kept / restored / dropped of found"),
        ],
    )
    rows = []
    for event in events:
        usage = event.usage
        facts = event.facts
        found = "-" if facts is None else "none found"
        if facts is not None and facts.found:
            shares = (facts.kept, facts.restored, facts.dropped)
            found = f"{' / '.join(map(_n, shares))} of {_n(facts.found)}"
        cells = [
            _num("request", event.number),
            f'<td class="time">{_clock(event.at)}</td>',
            f'<td class="outcome">{_e(event.outcome)}</td>',
            _num("before", event.before),
            _num("after", event.after),
            f'<td class="summary">{_summary_origin(event)}</td>',
            f'<td class="cache-hit">{"yes" if event.cache_hit else "no"}</td>',
            _num("summarizer-in", None if usage is None else usage.input_tokens),
            _num("summarizer-out", None if usage is None else usage.output_tokens),
            f'<td class="facts">{found}</td>',
        ]
        rows.append(f'<tr class="compaction">{"".join(cells)}</tr>')
    return f'<table class="compactions"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _summary_origin(event: Compaction) -> str:
    if event.prepared:
        return "prepared ahead"
    return {"created": "new", "cached": "from the cache", "none": "none"}[event.summary]


# -- the chart -------------------------------------------------------------------------


def render_chart(points: Sequence[Point], events: Sequence[Compaction], limit: int | None) -> str:
    """The token timeline of one conversation as an inline SVG: polylines with one
    vertex per request of ``points`` that has the size (class ``history``: the history
    the client sent; ``tokens``: the prompt forwarded; ``reported``: that prompt as the
    upstream reported it), one group (``compaction``) per event of ``events`` among
    those requests, a line at ``limit``, and numbered axes (request number across,
    tokens up)."""
    history = [(p.number, p.history) for p in points if p.history is not None]
    sent = [(p.number, p.sent) for p in points if p.sent is not None]
    reported = [(p.number, p.reported) for p in points if p.reported is not None]
    first = points[0].number if points else 1
    last = points[-1].number if points else 1
    shown = [e for e in events if first <= e.number <= last]
    highest = max(
        [v for _, v in history]
        + [v for _, v in sent]
        + [v for _, v in reported]
        + [e.before for e in shown if e.before is not None]
        + ([limit] if limit is not None else [])
        + [1]
    )
    top = _nice(highest * 1.05)
    width, height = CHART_WIDTH - _LEFT - _RIGHT, CHART_HEIGHT - _TOP - _BOTTOM

    def x(number: int) -> float:
        if last == first:
            return _LEFT + width / 2
        return _LEFT + (number - first) * width / (last - first)

    def y(tokens: int) -> float:
        return _TOP + height - tokens * height / top

    parts = [
        f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{CHART_WIDTH}" '
        f'height="{CHART_HEIGHT}" viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" role="img" '
        f'aria-label="prompt tokens per request">'
    ]
    for step in range(5):  # y grid and its numbers
        tokens = top * step // 4
        at = y(tokens)
        parts.append(
            f'<line x1="{_LEFT}" y1="{at:.1f}" x2="{_LEFT + width}" y2="{at:.1f}" '
            f'stroke="#e4e7eb"/><text class="y-tick" x="{_LEFT - 6}" y="{at + 4:.1f}" '
            f'text-anchor="end">{_n(tokens)}</text>'
        )
    for number in _x_ticks(first, last):
        parts.append(
            f'<text class="x-tick" x="{x(number):.1f}" y="{_TOP + height + 16}" '
            f'text-anchor="middle">{_n(number)}</text>'
        )
    parts.append(
        f'<text x="{_LEFT + width / 2:.1f}" y="{CHART_HEIGHT - 4}" text-anchor="middle">'
        "request</text>"
        f'<text x="14" y="{_TOP + height / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_TOP + height / 2:.1f})">tokens</text>'
    )
    if limit is not None:
        at = y(limit)
        parts.append(
            f'<line class="limit" x1="{_LEFT}" y1="{at:.1f}" x2="{_LEFT + width}" '
            f'y2="{at:.1f}" stroke="#c92a2a" stroke-dasharray="6 4"/>'
            f'<text class="limit-label" x="{_LEFT + width - 4}" y="{at - 5:.1f}" '
            f'text-anchor="end">limit {_n(limit)}</text>'
        )
    if history:
        parts.append(
            f'<polyline class="history" points="{_vertices(history, x, y)}" fill="none" '
            'stroke="#94d2bd" stroke-width="2"/>'
        )
    if reported:
        parts.append(
            f'<polyline class="reported" points="{_vertices(reported, x, y)}" fill="none" '
            'stroke="#9aa5b1" stroke-width="1.5" stroke-dasharray="4 3"/>'
        )
    if sent:
        parts.append(
            f'<polyline class="tokens" points="{_vertices(sent, x, y)}" fill="none" '
            'stroke="#2563eb" stroke-width="2"/>'
        )
    for event in shown:
        after = event.after if event.after is not None else event.before
        if after is None:
            continue
        before = event.before if event.before is not None else after
        at = x(event.number)
        parts.append(
            f'<g class="compaction" data-request="{event.number}">'
            f'<line x1="{at:.1f}" y1="{y(before):.1f}" x2="{at:.1f}" y2="{y(after):.1f}" '
            f'stroke="#e8590c" stroke-width="2"/>'
            f'<circle cx="{at:.1f}" cy="{y(before):.1f}" r="4" fill="#e8590c"/>'
            f"<title>request {event.number}: {_n(before)} &#8594; {_n(after)} tokens "
            f"({_e(event.outcome)})</title></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _vertices(
    values: Sequence[tuple[int, int]], x: Callable[[int], float], y: Callable[[int], float]
) -> str:
    return " ".join(f"{x(number):.1f},{y(tokens):.1f}" for number, tokens in values)


def _nice(value: float) -> int:
    """The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is at least ``value``."""
    power = int(10 ** max(math.floor(math.log10(max(value, 1))), 0))
    return next(int(step * power) for step in (1, 2, 2.5, 5, 10) if step * power >= value)


def _x_ticks(first: int, last: int) -> list[int]:
    """At most seven request numbers from ``first`` to ``last``, both included."""
    span = last - first
    if span <= 6:
        return list(range(first, last + 1))
    return sorted({first + round(span * i / 6) for i in range(7)})


# -- text ------------------------------------------------------------------------------


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _n(number: int) -> str:
    return f"{number:,}"


def _num(name: str, value: int | None) -> str:
    return f'<td class="num {name}">{"-" if value is None else _n(value)}</td>'


def _hash(value: str) -> str:
    """A tenant key or a root: its first hex digits, the whole in the title."""
    if not value:
        return "<code>(none)</code>"
    return f'<code title="{_e(value)}">{_e(value[:_SHORT])}</code>'


def _clock(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(at))


def _row(cell: str, columns: Sequence[tuple[str, str]]) -> str:
    inner = "".join(
        f'<{cell} class="{kind}">{_e(text)}</{cell}>' if kind else f"<{cell}>{_e(text)}</{cell}>"
        for kind, text in columns
    )
    return f"<tr>{inner}</tr>"

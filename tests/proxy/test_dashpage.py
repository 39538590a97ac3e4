"""``GET /dashboard``: the page and its chart as rendered (everything escaped), the route
off (a local 404, never forwarded) and on (its methods, its token), and ``serve``
refusing a dashboard without a token on an address that is not loopback."""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import AsyncIterator
from html.parser import HTMLParser
from typing import Any

import httpx2
import pytest
import uvicorn

from contextfold.proxy import ProxyOptions, serve
from contextfold.proxy._dashboard import DashboardRecorder
from contextfold.proxy._dashpage import render_chart, render_page
from contextfold.proxy._plan import ForwardPlan
from contextfold.transports.base import Usage
from tests._proxy_upstream import ProxyApps, Upstream, openai_history
from tests.cli.test_cli import assert_one_line_error, run

KEY = "sk-test-DASHPAGE-DISTINCTIVE-1a2b3c4d"
TOKEN = "dashboard-token-DISTINCTIVE-0123456789"
MODEL = "test-model"


class Page(HTMLParser):
    """Every start tag of a page, with its attributes."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def all(self, tag: str, cls: str | None = None) -> list[dict[str, str | None]]:
        return [
            attrs
            for name, attrs in self.tags
            if name == tag and (cls is None or cls in (attrs.get("class") or "").split())
        ]


def numbered(recorder: DashboardRecorder, before: int, after: int, outcome: Any) -> ForwardPlan:
    """A request of conversation ``r`` of tenant ``t`` recorded under ``outcome``."""
    summary = {"created": "created", "cached": "cached"}.get(outcome, "none")
    body = None if outcome in ("not_needed", "error") else {}
    planned = ForwardPlan(body, "k", before, after, summary, tenant="t", conversation="r")
    return recorder.request(planned, outcome, model=MODEL, limit=4096)


# -- the page -----------------------------------------------------------------------------


def test_hostile_strings_are_escaped_everywhere() -> None:
    recorder = DashboardRecorder()
    hostile = '"><script>alert(1)</script><img src=x onerror=alert(2)>&amp;'
    planned = ForwardPlan(None, "k", 10, 10, tenant=hostile, conversation=hostile + "root")
    recorder.request(planned, "not_needed", model=hostile, limit=None)
    recorder.summarized(hostile, hostile + "root", Usage(input_tokens=1, output_tokens=1), None)
    page = render_page(recorder, now=recorder.started)
    parsed = Page(page)
    assert not parsed.all("script")
    assert not parsed.all("img")
    for _, attrs in parsed.tags:
        assert not any(name.startswith("on") for name in attrs), attrs
    assert "&lt;script&gt;" in page
    assert "&amp;amp;" in page  # escaped once more, not taken for an entity
    assert "<script" not in page.lower()


def test_the_chart_has_a_vertex_per_request_a_marker_per_compaction_and_numbers() -> None:
    recorder = DashboardRecorder()
    for n in range(1, 6):
        numbered(recorder, n * 1000, n * 1000, "not_needed")
    recorder.summarized("t", "r", Usage(input_tokens=4000, output_tokens=300), None)
    numbered(recorder, 6000, 900, "created")
    numbered(recorder, 7000, 1900, "cached")
    numbered(recorder, 8000, 800, "masked")
    (record,) = recorder.conversations()
    for point, reported in zip(record.points, range(1100, 10_000, 1000), strict=False):
        point.reported = reported
    svg = render_chart(list(record.points), list(record.events), record.limit)
    parsed = Page(svg)
    (tokens,) = parsed.all("polyline", "tokens")
    (history,) = parsed.all("polyline", "history")
    (reported_line,) = parsed.all("polyline", "reported")
    assert len((tokens["points"] or "").split()) == 8
    assert len((history["points"] or "").split()) == 8
    assert len((reported_line["points"] or "").split()) == 8
    markers = parsed.all("g", "compaction")
    assert [m["data-request"] for m in markers] == ["6", "8"]
    assert parsed.all("line", "limit")
    assert "limit 4,096" in svg
    ticks = re.findall(r'class="y-tick"[^>]*>([0-9,]+)<', svg)
    assert ticks == ["0", "2,500", "5,000", "7,500", "10,000"]
    across = re.findall(r'class="x-tick"[^>]*>([0-9,]+)<', svg)
    assert (across[0], across[-1]) == ("1", "8")
    # higher prompts are drawn higher (smaller y)
    ys = [float(v.split(",")[1]) for v in (tokens["points"] or "").split()]
    assert ys[0] > ys[4]
    assert ys[5] > ys[4]


def test_one_request_and_no_request_render_too() -> None:
    recorder = DashboardRecorder()
    assert 'id="empty"' in render_page(recorder, now=recorder.started)
    numbered(recorder, 500, 500, "not_needed")
    page = render_page(recorder, now=recorder.started)
    (tokens,) = Page(page).all("polyline", "tokens")
    assert len((tokens["points"] or "").split()) == 1
    assert "No compaction yet." in page


def test_the_table_says_when_older_requests_are_not_drawn() -> None:
    recorder = DashboardRecorder(points=3)
    for n in range(5):
        numbered(recorder, n, n, "not_needed")
    page = render_page(recorder, now=recorder.started)
    assert "The last 3 of 5 requests." in page
    assert 'class="num requests">5<' in page


# -- the route ----------------------------------------------------------------------------


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def apps(upstream: Upstream) -> AsyncIterator[ProxyApps]:
    made = ProxyApps(upstream)
    yield made
    await made.close()


async def _client(app: Any) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy")


@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"])
@pytest.mark.parametrize("path", ["/dashboard", "/dashboard/", "/dashboard/x?token=y"])
async def test_off_the_dashboard_is_a_local_404_never_forwarded(
    apps: ProxyApps, upstream: Upstream, method: str, path: str
) -> None:
    app = await apps.make()
    async with await _client(app) as client:
        answer = await client.request(method, path, headers={"authorization": f"Bearer {KEY}"})
    assert answer.status_code == 404
    if method != "HEAD":
        assert answer.json()["error"]["message"] == "Not Found"
    assert upstream.seen == []


async def test_on_the_page_is_served_locally_and_other_methods_are_refused(
    apps: ProxyApps, upstream: Upstream
) -> None:
    app = await apps.make(dashboard=True)
    async with await _client(app) as client:
        page = await client.get("/dashboard")
        head = await client.head("/dashboard")
        posted = await client.post("/dashboard", json={})
        deeper = await client.get("/dashboard/anything")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "script-src" not in page.headers["content-security-policy"]  # none: default-src
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    assert page.headers["cache-control"] == "no-store"
    assert "<h1>contextfold proxy</h1>" in page.text
    assert head.status_code == 200
    assert posted.status_code == 405
    assert posted.headers["allow"] == "GET, HEAD"
    assert "error" in posted.json()
    assert deeper.status_code == 404
    assert upstream.seen == []


async def test_a_token_is_asked_for_compared_and_never_shown(
    apps: ProxyApps, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    app = await apps.make(dashboard=True, dashboard_token=TOKEN)
    wrong = "dashboard-token-WRONG-DISTINCTIVE-999"
    async with await _client(app) as client:
        await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": openai_history(2)},
            headers={"authorization": f"Bearer {KEY}"},
        )
        refused = [
            await client.get("/dashboard"),
            await client.get("/dashboard", headers={"authorization": f"Bearer {wrong}"}),
            await client.get("/dashboard", params={"token": wrong}),
            await client.get("/dashboard", headers={"authorization": f"Basic {TOKEN}"}),
            await client.get("/dashboard", params={"token": TOKEN[:-1]}),
        ]
        shown = [
            await client.get("/dashboard", headers={"authorization": f"Bearer {TOKEN}"}),
            await client.get("/dashboard", headers={"authorization": f"bearer  {TOKEN} "}),
            await client.get("/dashboard", params={"token": TOKEN}),
            await client.get("/dashboard", params=[("token", wrong), ("token", TOKEN)]),
        ]
    for answer in refused:
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert "token" in answer.json()["error"]["message"]
        assert TOKEN not in answer.text
        assert wrong not in answer.text
        assert TOKEN not in str(answer.headers)
        assert wrong not in str(answer.headers)
    for answer in shown:
        assert answer.status_code == 200
        assert 'class="num requests">1<' in answer.text
        assert TOKEN not in answer.text
        assert KEY not in answer.text
    assert TOKEN not in caplog.text
    assert wrong not in caplog.text
    assert [s.path for s in upstream.seen if s.path != "/v1/models"] == ["/v1/chat/completions"]


def test_a_short_token_is_refused_without_echoing_it() -> None:
    with pytest.raises(ValueError, match="dashboard_token") as caught:
        ProxyOptions(dashboard=True, dashboard_token="short-one")
    assert "short-one" not in str(caught.value)
    assert TOKEN not in repr(ProxyOptions(dashboard=True, dashboard_token=TOKEN))
    with pytest.raises(ValueError, match="dashboard must be"):
        ProxyOptions(dashboard="yes")  # type: ignore[arg-type]


# -- serve --------------------------------------------------------------------------------


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> list[uvicorn.Config]:
    """The configurations servers are run with from now on (none really runs)."""
    configs: list[uvicorn.Config] = []

    def run(server: uvicorn.Server, sockets: Any = None) -> None:
        configs.append(server.config)
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    return configs


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "proxy.internal"])
def test_serve_refuses_a_dashboard_without_a_token_off_loopback(
    no_server: list[uvicorn.Config], host: str
) -> None:
    with pytest.raises(ValueError, match="needs a token"):
        serve(host=host, options=ProxyOptions(dashboard=True))
    assert no_server == []
    serve(host=host, options=ProxyOptions(dashboard=True, dashboard_token=TOKEN))
    serve(host=host, options=ProxyOptions())  # no dashboard: nothing to protect
    assert len(no_server) == 2


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "localhost"])
def test_serve_takes_a_dashboard_without_a_token_on_loopback(
    no_server: list[uvicorn.Config], host: str
) -> None:
    serve(host=host, options=ProxyOptions(dashboard=True))
    assert len(no_server) == 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_cli_says_in_one_line_that_the_dashboard_needs_a_token() -> None:
    result = run("serve", "--host", "0.0.0.0", "--port", str(_free_port()), "--dashboard")
    line = assert_one_line_error(result)
    assert "needs a token" in line
    assert "--dashboard-token" in line
    short = run("serve", "--dashboard", "--dashboard-token", "tiny-secret")
    line = assert_one_line_error(short)
    assert "--dashboard-token" in line
    assert "tiny-secret" not in line

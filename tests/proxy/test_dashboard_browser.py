"""The dashboard in a real browser: headless Chromium (Debian's ``chromium``) opens
``/dashboard`` of a proxy on a real port, in front of the fake upstream, after two
tenants' conversations went through it, one compacted twice. The page as the browser
rendered it (its DOM) must hold the chart and the numbers the recorder and ``/metrics``
hold, and its screenshot must show the chart's lines.

Skipped when ``chromium`` is missing, unless ``CONTEXTFOLD_REQUIRE_SERVICES=1`` (set by
``.ci/run``, which installs it): then that is a failure. With
``CONTEXTFOLD_WRITE_SCREENSHOT=1`` the screenshot is written to
``docs/images/dashboard.png``, the one the manual and the README show.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import struct
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from contextfold.compaction import CompactionSettings
from contextfold.proxy import ProxyOptions, create_app
from contextfold.proxy._dashboard import ConversationRecord, DashboardRecorder
from tests._proxy_upstream import Upstream, anthropic_history, openai_history
from tests._raw_http import Served
from tests.conftest import require_service

KEY = "sk-test-BROWSER-DISTINCTIVE-7f8e9d0c"
OTHER_KEY = "sk-ant-test-BROWSER-OTHER-DISTINCTIVE-1b2a"
TOKEN = "browser-dashboard-token-DISTINCTIVE-42"
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "dashboard.png"
WIDTH, HEIGHT = 1280, 900
BLUE = (0x25, 0x63, 0xEB)  # the prompt forwarded (the chart's polyline "tokens")
ORANGE = (0xE8, 0x59, 0x0C)  # a compaction marker


@pytest.fixture
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        require_service("chromium is not installed (apt-get install chromium)")
    assert found is not None
    return found


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, Any, Upstream]]:
    upstream = Upstream()
    async with Served(upstream.app()) as up:
        app = create_app(
            upstream_openai=f"{up.url}/v1",
            upstream_anthropic=up.url,
            db=tmp_path / "proxy.db",
            context_window=8192,
            settings=CompactionSettings(threshold=0.5, prepare_threshold=None),
            options=ProxyOptions(summary_max_retries=0, dashboard=True, dashboard_token=TOKEN),
        )
        async with Served(app) as proxy:
            yield proxy.url, app, upstream


async def _browse(chromium: str, profile: Path, *args: str) -> bytes:
    """What headless Chromium prints for ``args`` (it runs without its sandbox: CI runs
    as root, where Chromium refuses the sandbox, and it opens only our own page)."""
    process = await asyncio.create_subprocess_exec(
        chromium,
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(120):
        out, err = await process.communicate()
    assert process.returncode == 0, err.decode(errors="replace")[-2000:]
    return out


async def _converse(proxy: str) -> list[httpx2.Response]:
    """A short Anthropic conversation of one tenant, then a long OpenAI one of another
    (compacted twice on the way: an 8,192-token window at threshold 0.5)."""
    answers = []
    async with httpx2.AsyncClient(base_url=proxy, timeout=60) as client:
        for turns in range(1, 7):
            answer = await client.post(
                "/v1/messages",
                json={
                    "model": "claude-test",
                    "max_tokens": 100,
                    "messages": anthropic_history(turns, 300),
                },
                headers={"x-api-key": OTHER_KEY, "anthropic-version": "2023-06-01"},
            )
            assert answer.status_code == 200
        for turns in range(1, 41):
            answer = await client.post(
                "/v1/chat/completions",
                json={"model": "test-model", "messages": openai_history(turns, 300)},
                headers={"authorization": f"Bearer {KEY}"},
            )
            assert answer.status_code == 200
            answers.append(answer)
        metrics = await client.get("/metrics")
    return [*answers, metrics]


def _cells(row: str) -> dict[str, str]:
    """The numeric cells of a table row as Chromium serialized it, by class."""
    return dict(re.findall(r'<td class="num ([a-z-]+)">([^<]*)</td>', row))


def _number(text: str) -> int | None:
    return None if text == "-" else int(text.replace(",", ""))


def _metric(text: str, sample: str) -> int:
    (line,) = [line for line in text.splitlines() if line.startswith(sample + " ")]
    return int(float(line.rsplit(" ", 1)[1]))


async def test_the_dashboard_in_headless_chromium(
    chromium: str, served: tuple[str, Any, Upstream], tmp_path: Path
) -> None:
    proxy, app, upstream = served
    *answers, metrics = await _converse(proxy)
    recorder: DashboardRecorder = app.state.dashboard
    url = f"{proxy}/dashboard?token={TOKEN}"
    dom = (await _browse(chromium, tmp_path / "profile", "--dump-dom", url)).decode()
    shot = tmp_path / "dashboard.png"
    await _browse(
        chromium,
        tmp_path / "profile",
        f"--screenshot={shot}",
        f"--window-size={WIDTH},{HEIGHT}",
        url,
    )
    assert not [s for s in upstream.seen if "dashboard" in s.path]  # never forwarded

    # -- the numbers: as the recorder and /metrics have them ----------------------------
    long, short = recorder.conversations()  # the most recently active first
    assert (long.requests, short.requests) == (40, 6)
    assert long.compactions >= 2
    assert long.compactions == _metric(
        metrics.text, 'contextfold_proxy_compactions_total{outcome="created"}'
    )
    rows = re.findall(r'<tr id="row-\d+">(.*?)</tr>', dom, re.S)
    assert len(rows) == 2
    _check_row(_cells(rows[0]), long)
    _check_row(_cells(rows[1]), short)
    assert _number(_cells(rows[0])["cache-hits"]) == _metric(
        metrics.text, 'contextfold_proxy_compactions_total{outcome="cached"}'
    )
    assert _number(_cells(rows[0])["summarizer-in"]) == _metric(
        metrics.text, 'contextfold_proxy_summarizer_tokens_total{direction="input"}'
    )
    assert _number(_cells(rows[0])["tokens-now"]) == int(
        answers[-1].headers["x-contextfold-tokens-after"]
    )
    (totals,) = re.findall(r'<p class="meta" id="totals">(.*?)</p>', dom, re.S)
    assert f"{long.requests + short.requests} requests" in totals
    assert f"{long.compactions + short.compactions} compactions" in totals

    # -- the chart: a vertex per request, a marker per compaction, the limit ----------
    sections = re.findall(r'<section class="conversation".*?</section>', dom, re.S)
    assert len(sections) == 2
    chart = sections[0]
    (vertices,) = re.findall(r'<polyline class="tokens" points="([^"]*)"', chart)
    assert len(vertices.split()) == long.requests
    markers = re.findall(r'<g class="compaction" data-request="(\d+)"', chart)
    assert [int(m) for m in markers] == [event.number for event in long.events]
    assert len(markers) == long.compactions
    assert re.search(r'<line class="limit"', chart)
    assert f"limit {long.limit:,}" in chart
    # the compaction list says the same
    listed = re.findall(
        r'<tr class="compaction"><td class="num request">(\d+)</td>.*?'
        r'<td class="num before">([\d,]+)</td><td class="num after">([\d,]+)</td>',
        chart,
        re.S,
    )
    assert [(int(n), _number(b), _number(a)) for n, b, a in listed] == [
        (e.number, e.before, e.after) for e in long.events
    ]
    assert TOKEN not in dom
    assert KEY not in dom
    assert OTHER_KEY not in dom

    # -- the screenshot: the chart's lines are drawn --------------------------------------
    data = shot.read_bytes()
    width, height, colours = _colours(data, (BLUE, ORANGE))
    assert (width, height) == (WIDTH, HEIGHT)
    assert colours[BLUE] > 600, colours  # the legend's swatch alone is 54 pixels
    assert colours[ORANGE] > 150, colours
    if os.environ.get("CONTEXTFOLD_WRITE_SCREENSHOT") == "1":
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        SCREENSHOT.write_bytes(data)


def _check_row(cells: dict[str, str], record: ConversationRecord) -> None:
    last = record.points[-1]
    assert _number(cells["requests"]) == record.requests
    assert _number(cells["compactions"]) == record.compactions
    assert _number(cells["tokens-now"]) == last.sent
    assert _number(cells["reported"]) == last.reported
    assert _number(cells["limit"]) == record.limit
    assert _number(cells["cache-hits"]) == record.cache_hits
    assert _number(cells["errors"]) == record.errors
    assert _number(cells["summarizer-in"]) == record.summarizer_input
    assert _number(cells["summarizer-out"]) == record.summarizer_output


def _colours(
    png: bytes, wanted: tuple[tuple[int, int, int], ...]
) -> tuple[int, int, dict[tuple[int, int, int], int]]:
    """Width, height and how many pixels are near each of ``wanted`` in an 8-bit RGB(A)
    PNG (what Chromium writes), decoded with the standard library."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks, header = 8, [], b""
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at : at + 8])
        body = png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, interlace, colour in (2, 6)) == (8, 0, True)
    size = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * size
    counts = dict.fromkeys(wanted, 0)
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        _unfilter(kind, line, previous, size)
        for x in range(0, stride, size):
            r, g, b = line[x], line[x + 1], line[x + 2]
            for rgb in wanted:
                if abs(r - rgb[0]) < 40 and abs(g - rgb[1]) < 40 and abs(b - rgb[2]) < 40:
                    counts[rgb] += 1
        previous = line
    return width, height, counts


def _unfilter(kind: int, line: bytearray, previous: bytearray, size: int) -> None:
    """Undo a PNG row filter (RFC 2083 section 6) in place."""
    if kind == 0:
        return
    if kind == 2:
        line[:] = bytes((a + b) & 255 for a, b in zip(line, previous, strict=True))
        return
    for i in range(len(line)):
        left = line[i - size] if i >= size else 0
        up = previous[i]
        corner = previous[i - size] if i >= size else 0
        if kind == 1:
            line[i] = (line[i] + left) & 255
        elif kind == 3:
            line[i] = (line[i] + ((left + up) >> 1)) & 255
        elif kind == 4:
            guess = left + up - corner
            near = min(
                (abs(guess - left), 0, left),
                (abs(guess - up), 1, up),
                (abs(guess - corner), 2, corner),
            )
            line[i] = (line[i] + near[2]) & 255

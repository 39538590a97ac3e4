"""The dashboard's recorder: what it keeps of each conversation, the bounds it holds to,
and, through the proxy in front of the fake upstream, that its numbers are the proxy's
own (the metrics') and that it keeps no credential."""

from __future__ import annotations

import tracemalloc
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from contextfold.compaction import FactCoverage
from contextfold.proxy._dashboard import (
    DEFAULT_COMPACTIONS,
    DEFAULT_CONVERSATIONS,
    DEFAULT_POINTS,
    MODEL_CHARS,
    DashboardRecorder,
)
from contextfold.proxy._metrics import Outcome
from contextfold.proxy._plan import ForwardPlan, SummaryState
from contextfold.transports.base import Usage
from tests._proxy_upstream import ProxyApps, Upstream, openai_history

KEY = "sk-test-DASHBOARD-DISTINCTIVE-5e6f7a8b"
OTHER_KEY = "sk-test-DASHBOARD-OTHER-DISTINCTIVE-9c0d"
MODEL = "test-model"


def plan(
    before: int,
    after: int,
    summary: SummaryState = "none",
    *,
    tenant: str = "t1",
    root: str = "r1",
    compacted: bool = False,
) -> ForwardPlan:
    body = {"model": MODEL} if compacted or summary != "none" else None
    return ForwardPlan(body, "key", before, after, summary, tenant=tenant, conversation=root)


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_requests_are_numbered_per_conversation_and_keyed_by_tenant_and_root() -> None:
    recorder = DashboardRecorder(clock=Clock())
    first = recorder.request(plan(100, 100), "not_needed", model=MODEL, limit=4096)
    second = recorder.request(plan(200, 200), "not_needed", model=MODEL, limit=4096)
    other = recorder.request(plan(50, 50, tenant="t2"), "not_needed", model=MODEL, limit=4096)
    assert (first.seen, second.seen, other.seen) == (1, 2, 1)
    records = recorder.conversations()
    assert [(r.tenant, r.root, r.requests) for r in records] == [("t2", "r1", 1), ("t1", "r1", 2)]
    t1 = records[1]
    assert [(p.number, p.history, p.sent, p.outcome) for p in t1.points] == [
        (1, 100, 100, "not_needed"),
        (2, 200, 200, "not_needed"),
    ]
    assert (t1.model, t1.limit, t1.compactions, t1.cache_hits) == (MODEL, 4096, 0, 0)
    assert t1.last_at > t1.first_at


def test_a_request_not_read_as_a_history_is_counted_apart() -> None:
    recorder = DashboardRecorder()
    unread = ForwardPlan.unchanged("not compacted: request body is br-encoded", "encoded_body")
    assert recorder.request(unread, "error", model="", limit=None) == unread
    assert (len(recorder), recorder.unattributed) == (0, 1)


def test_compactions_are_listed_and_a_splice_of_the_same_summary_is_a_cache_hit() -> None:
    recorder = DashboardRecorder()
    facts = FactCoverage(found=5, kept=3, restored=1, dropped=1, tokens=40)
    recorder.request(plan(3000, 3000), "not_needed", model=MODEL, limit=4096)
    recorder.summarized("t1", "r1", Usage(input_tokens=2900, output_tokens=300), facts)
    recorder.request(plan(4200, 900, "created"), "created", model=MODEL, limit=4096)
    recorder.request(plan(4400, 1100, "cached"), "cached", model=MODEL, limit=4096)
    recorder.request(plan(4600, 1300, "none", compacted=True), "masked", model=MODEL, limit=4096)
    (record,) = recorder.conversations()
    assert (record.requests, record.compactions, record.cache_hits) == (4, 2, 1)
    assert (record.summaries, record.summarizer_input, record.summarizer_output) == (1, 2900, 300)
    created, masked = record.events
    assert (created.number, created.outcome, created.before, created.after) == (
        2,
        "created",
        4200,
        900,
    )
    assert (created.summary, created.cache_hit, created.prepared) == ("created", False, False)
    assert created.usage == Usage(input_tokens=2900, output_tokens=300)
    assert (created.summaries, created.facts) == (1, facts)
    assert (masked.number, masked.outcome, masked.usage, masked.facts) == (4, "masked", None, None)


def test_a_summary_prepared_ahead_is_listed_when_first_spliced_with_its_cost() -> None:
    recorder = DashboardRecorder()
    recorder.request(plan(2500, 2500), "not_needed", model=MODEL, limit=4096)
    # made in the background, between two requests; two of them, say
    recorder.summarized("t1", "r1", Usage(input_tokens=2000, output_tokens=200), None)
    recorder.summarized("t1", "r1", Usage(input_tokens=100, output_tokens=20), None)
    recorder.request(plan(4200, 800, "cached"), "cached", model=MODEL, limit=4096)
    recorder.request(plan(4300, 900, "cached"), "cached", model=MODEL, limit=4096)
    (record,) = recorder.conversations()
    (event,) = record.events
    assert (event.number, event.prepared, event.cache_hit, event.summaries) == (2, True, True, 2)
    assert event.usage == Usage(input_tokens=2100, output_tokens=220)
    assert (record.compactions, record.cache_hits) == (1, 2)


def test_errors_retries_and_reported_usage_land_on_their_request() -> None:
    recorder = DashboardRecorder()
    sent = recorder.request(plan(3000, 3000), "not_needed", model=MODEL, limit=4096)
    later = recorder.request(plan(3100, 3100), "error", model=MODEL, limit=4096)
    recorder.reported(sent, 3333)
    # the second was refused as too long, compacted by force and sent again
    forced = ForwardPlan(
        {}, "k", 3100, 700, "created", tenant="t1", conversation="r1", seen=later.seen
    )
    recorder.retried(forced, "created")
    recorder.reported(forced, 777)
    (record,) = recorder.conversations()
    assert [(p.sent, p.reported, p.outcome) for p in record.points] == [
        (3000, 3333, "not_needed"),
        (700, 777, "created"),
    ]
    assert (record.errors, record.compactions, record.events[0].number) == (1, 1, 2)
    # a plan the recorder never numbered, or of a conversation it never saw, changes nothing
    recorder.reported(plan(1, 1), 5)
    recorder.reported(plan(1, 1, root="elsewhere"), 5)
    recorder.retried(plan(1, 1, root="elsewhere"), "created")
    assert [p.reported for p in record.points] == [3333, 777]


def test_bounds_drop_the_least_recently_active_conversation_and_the_oldest_points() -> None:
    recorder = DashboardRecorder(conversations=2, points=3, compactions=2)
    for root in ("a", "b"):
        recorder.request(plan(10, 10, root=root), "not_needed", model=MODEL, limit=None)
    recorder.request(plan(10, 10, root="a"), "not_needed", model=MODEL, limit=None)  # a is active
    recorder.request(plan(10, 10, root="c"), "not_needed", model=MODEL, limit=None)
    assert [r.root for r in recorder.conversations()] == ["c", "a"]
    assert recorder.dropped == 1
    numbered = []
    for n in range(6):
        numbered.append(
            recorder.request(plan(n, n, "created", root="c"), "created", model=MODEL, limit=None)
        )
    (c,) = [r for r in recorder.conversations() if r.root == "c"]
    assert [p.number for p in c.points] == [5, 6, 7]
    assert [e.number for e in c.events] == [6, 7]
    assert (c.requests, c.compactions) == (7, 6)  # counts stay whole
    recorder.reported(numbered[0], 99)  # its point is gone: nothing to set
    assert all(p.reported is None for p in c.points)


def test_a_model_name_is_cut_and_bad_bounds_are_refused() -> None:
    recorder = DashboardRecorder()
    recorder.request(plan(1, 1), "not_needed", model="m" * 1000, limit=None)
    assert recorder.conversations()[0].model == "m" * MODEL_CHARS
    for name in ("conversations", "points", "compactions"):
        with pytest.raises(ValueError, match=name):
            DashboardRecorder(**{name: 0})


def test_the_default_bounds_hold_it_under_six_mib() -> None:
    # The worst case: every conversation full, every request a compaction with its
    # summary's cost and fact coverage, the longest model name kept.
    facts = FactCoverage(found=9, kept=5, restored=3, dropped=1, tokens=120)
    outcomes: list[Outcome] = ["created", "not_needed", "cached", "masked"]
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        recorder = DashboardRecorder()
        for c in range(DEFAULT_CONVERSATIONS + 5):
            tenant, root = f"{c:032x}", f"{c:064x}"
            for n in range(DEFAULT_POINTS + 5):
                recorder.summarized(tenant, root, Usage(input_tokens=n, output_tokens=n), facts)
                outcome = outcomes[n % 4]
                planned = plan(100_000 + n, 1_000 + n, "created", tenant=tenant, root=root)
                numbered = recorder.request(planned, outcome, model="m" * 200, limit=90_000)
                recorder.reported(numbered, 1_234_567 + n)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert len(recorder) == DEFAULT_CONVERSATIONS
    assert all(len(r.points) == DEFAULT_POINTS for r in recorder.conversations())
    assert all(len(r.events) == DEFAULT_COMPACTIONS for r in recorder.conversations())
    assert held < 6 * 1024 * 1024, held  # 5.3 MiB when measured


# -- through the proxy --------------------------------------------------------------------


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def apps(upstream: Upstream) -> AsyncIterator[ProxyApps]:
    made = ProxyApps(upstream)
    yield made
    await made.close()


async def _drive(app: Any, key: str, turns: range, chars: int = 300) -> list[httpx2.Response]:
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy") as client:
        return [
            await client.post(
                "/v1/chat/completions",
                json={"model": MODEL, "messages": openai_history(n, chars)},
                headers={"authorization": f"Bearer {key}"},
            )
            for n in turns
        ]


def _metric(text: str, sample: str) -> float:
    (line,) = [line for line in text.splitlines() if line.startswith(sample + " ")]
    return float(line.rsplit(" ", 1)[1])


async def test_numbers_through_the_proxy_are_the_metrics_own(
    apps: ProxyApps, upstream: Upstream
) -> None:
    app = await apps.make(
        context_window=8192,
        threshold=0.5,
        prepare_threshold=None,
        summary_max_retries=0,
        dashboard=True,
    )
    answers = await _drive(app, KEY, range(1, 41))
    others = await _drive(app, OTHER_KEY, range(1, 4))
    assert all(a.status_code == 200 for a in answers + others)
    recorder: DashboardRecorder = app.state.dashboard
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy") as client:
        metrics = (await client.get("/metrics")).text
    long, short = sorted(recorder.conversations(), key=lambda r: -r.requests)
    assert (long.requests, short.requests) == (40, 3)
    assert long.tenant != short.tenant  # two keys, two tenants: each its own conversation
    assert long.compactions == _metric(
        metrics, 'contextfold_proxy_compactions_total{outcome="created"}'
    )
    assert long.compactions >= 2
    assert long.cache_hits == _metric(
        metrics, 'contextfold_proxy_compactions_total{outcome="cached"}'
    )
    assert long.summarizer_input == _metric(
        metrics, 'contextfold_proxy_summarizer_tokens_total{direction="input"}'
    )
    assert long.summarizer_output == _metric(
        metrics, 'contextfold_proxy_summarizer_tokens_total{direction="output"}'
    )
    # each point is what the response's headers said and what the upstream reported
    chats = [s for s in upstream.chats if s.headers["authorization"] == f"Bearer {KEY}"]
    for point, answer, seen in zip(long.points, answers, chats, strict=True):
        assert point.history == int(answer.headers["x-contextfold-tokens-before"])
        assert point.sent == int(answer.headers["x-contextfold-tokens-after"])
        assert point.reported == int(answer.json()["usage"]["prompt_tokens"])
        assert seen.json["messages"]  # the request the upstream got
    for event in long.events:
        answer = answers[event.number - 1]
        assert answer.headers["x-contextfold-summary"] == "created"
        assert (event.before, event.after) == (
            int(answer.headers["x-contextfold-tokens-before"]),
            int(answer.headers["x-contextfold-tokens-after"]),
        )
    # what it keeps: hashes and numbers, never a key
    kept = repr(recorder.conversations())
    assert KEY not in kept
    assert OTHER_KEY not in kept
    assert "request 0" not in kept  # nor message text


async def test_small_requests_are_read_and_counted_when_the_dashboard_is_on(
    apps: ProxyApps,
) -> None:
    # Far under the limit a request is forwarded unread, unless the dashboard needs
    # its conversation.
    plain = await apps.make(summary_max_retries=0)
    shown = await apps.make(summary_max_retries=0, dashboard=True)
    await _drive(plain, KEY, range(1, 3))
    await _drive(shown, KEY, range(1, 3))
    assert plain.state.dashboard is None
    (record,) = shown.state.dashboard.conversations()
    assert record.requests == 2
    assert shown.state.dashboard.unattributed == 0

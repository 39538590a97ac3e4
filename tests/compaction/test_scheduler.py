"""The one compaction policy (``compaction._scheduler``): the trigger, single flight,
back-off, preparation ahead of the limit and the summary timeout, and every face
running on it.

Issue 25, item 1: the store, the manager and the proxy each kept these themselves (a
future and a joined count, an ``asyncio.Lock``, a dict of futures; three back-off
records; three calls of the timeout; a ``Preparation``, three attributes, and a task
dict with two sized maps for the preparations); they now hold one :class:`Scheduler`
each, built from their settings, and nothing else of their own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path

import pytest

from contextfold import AutoCompactStore, MemoryContextStore
from contextfold.compaction import CompactionSettings
from contextfold.compaction._backoff import BackOff
from contextfold.compaction._scheduler import BackOffs, Flights, Preparations, Scheduler
from contextfold.compaction._trigger import TriggerCheck
from contextfold.errors import CompactionError
from contextfold.manager import CompactingContextManager
from contextfold.proxy import create_app
from contextfold.proxy._budget import MemoryBudget
from contextfold.proxy._prepare import MAX_RUNNING
from contextfold.testing import StubTransport
from contextfold.transports.base import ModelInfo
from tests._proxy_upstream import Upstream
from tests.compaction.test_compaction import WINDOW, GatedSummarizer, alternating
from tests.manager.test_prepare import THRESHOLD, crossed, grow
from tests.manager.test_prepare import GatedSummarizer as ManagerSummarizer
from tests.proxy.test_prepare import PREPARED, planner_of, post, turns
from tests.proxy.test_proxy import MakeApp, make_app, upstream  # noqa: F401 (fixtures)

# -- single flight ------------------------------------------------------------------


async def test_a_run_covers_the_histories_that_extend_it() -> None:
    flights: Flights[str] = Flights()
    with flights.hold("b") as run:
        assert flights.running(["a", "b", "c"]) == ("b", run)
        assert flights.running(["a", "x"]) is None
        assert flights.running(["a"]) is None
        assert flights
    assert run.done()
    assert flights.running(["a", "b", "c"]) is None
    assert not flights


async def test_the_longest_prefix_run_is_found_first() -> None:
    flights: Flights[str] = Flights()
    with flights.hold("a"), flights.hold("b") as longer:
        assert flights.running(["a", "b"]) == ("b", longer)
        assert len(flights) == 2


async def test_a_held_run_ends_for_its_waiters_however_the_block_ends() -> None:
    flights: Flights[str] = Flights()
    with pytest.raises(RuntimeError), flights.hold("a") as run:
        raise RuntimeError("the summary broke")
    assert run.done()
    assert run.result() is None
    assert flights.running(["a"]) is None


async def test_a_tracked_run_is_found_until_it_ends_and_shares_its_answer() -> None:
    flights: Flights[str] = Flights()
    gate = asyncio.Event()

    async def work() -> bool:
        await gate.wait()
        return True

    run = flights.track("h", asyncio.ensure_future(work()))
    found = flights.running(["h"])
    assert found is not None
    assert found[1] is run
    gate.set()
    assert await run is True
    assert flights.running(["h"]) is None  # done: not found even before its callback ran
    await asyncio.sleep(0)
    assert len(flights) == 0


async def test_a_second_run_of_a_key_still_running_leaves_the_first_found() -> None:
    flights: Flights[str] = Flights()
    loop = asyncio.get_running_loop()
    first: asyncio.Future[None] = loop.create_future()
    second: asyncio.Future[None] = loop.create_future()
    flights.track("h", first)
    assert flights.track("h", second) is second
    assert flights.running(["h"]) == ("h", first)
    second.set_result(None)  # the second ending does not forget the first
    await asyncio.sleep(0)
    assert flights.running(["h"]) == ("h", first)
    first.set_result(None)
    await asyncio.sleep(0)
    assert flights.running(["h"]) is None
    third: asyncio.Future[None] = loop.create_future()
    flights.track("h", third)  # a key whose run ended takes a new one
    assert flights.running(["h"]) == ("h", third)
    third.set_result(None)


async def test_exclusive_turns_go_in_the_order_asked() -> None:
    flights: Flights[str] = Flights()
    order: list[str] = []
    gate = asyncio.Event()

    async def turn(name: str, again: bool = False) -> None:
        async with flights.exclusive("v"):
            order.append(name)
            if not again:
                return
            await gate.wait()
        await turn(name + "'")  # straight back: behind those already waiting

    first = asyncio.ensure_future(turn("a", again=True))
    await asyncio.sleep(0)
    others = [asyncio.ensure_future(turn(n)) for n in "bc"]
    await asyncio.sleep(0)
    assert flights.running(["v"]) is not None
    gate.set()
    await asyncio.gather(first, *others)
    assert order == ["a", "b", "c", "a'"]
    assert not flights._turns  # nothing kept once nobody waits


# -- back-off ---------------------------------------------------------------------------


def fail(backoffs: BackOffs[str], chain: list[str]) -> BackOff:
    """A run of ``chain``'s history that started and failed now."""
    return backoffs.ended_alone(chain, failed=True)


def skips_after_each_failure(backoffs: BackOffs[str], failures: int) -> list[int]:
    """How many triggers are skipped after each of ``failures`` failures in a row."""
    counts = []
    for _ in range(failures):
        fail(backoffs, ["h"])
        skipped = 0
        while backoffs.skip(["h"]) is not None:
            skipped += 1
        counts.append(skipped)
    return counts


def test_failures_skip_one_two_four_up_to_max_backoff() -> None:
    assert skips_after_each_failure(BackOffs(max_backoff=32), 7) == [1, 2, 4, 8, 16, 32, 32]
    assert skips_after_each_failure(BackOffs(max_backoff=3), 4) == [1, 2, 3, 3]
    assert skips_after_each_failure(BackOffs(max_backoff=1), 3) == [1, 1, 1]


def test_a_forced_trigger_does_not_wait_and_spends_no_skip() -> None:
    backoffs: BackOffs[str] = BackOffs(max_backoff=8)
    fail(backoffs, ["h"])
    assert backoffs.skip(["h"], forced=True) is None
    assert backoffs.state(["h"]) == BackOff(1, 1)
    assert backoffs.skip(["h"]) == BackOff(1, 0)


def test_a_success_starts_over() -> None:
    backoffs: BackOffs[str] = BackOffs(max_backoff=8)
    fail(backoffs, ["h"])
    fail(backoffs, ["h"])
    backoffs.ended_alone(["h"], failed=False)
    assert backoffs.state(["h"]) == BackOff()
    assert skips_after_each_failure(backoffs, 1) == [1]


def test_a_failure_covers_the_histories_extending_it_and_counts_on() -> None:
    backoffs: BackOffs[str] = BackOffs(max_backoff=8)
    fail(backoffs, ["a", "b"])
    assert backoffs.skip(["a", "b", "c"]) == BackOff(1, 0)  # grew: still held once
    assert backoffs.skip(["a", "x"]) is None  # another branch: not this failure's
    assert fail(backoffs, ["a", "b", "c"]) == BackOff(2, 2)  # the second in a row
    assert len(backoffs) == 1  # the longer history's record replaced the prefix's


def test_a_run_counts_from_what_it_read_when_it_started() -> None:
    backoffs: BackOffs[str] = BackOffs(max_backoff=8)
    fail(backoffs, ["a"])
    first, second = backoffs.latest(["a", "b"]), backoffs.latest(["a", "c"])
    assert backoffs.ended("b", first, failed=True) == BackOff(2, 2)
    # the sibling's run started on the same record: its failure is the second in a row
    # too, though the first to end took that record away
    assert backoffs.ended("c", second, failed=True) == BackOff(2, 2)
    assert backoffs.ended("d", None, failed=False) == BackOff()
    assert backoffs.state(["a", "b"]) == BackOff(2, 2)  # a run that read nothing clears nothing


def test_the_table_is_bounded_least_recently_written_first() -> None:
    backoffs: BackOffs[str] = BackOffs(max_backoff=8, max_entries=3, entry_bytes=100)
    for key in "abcde":
        fail(backoffs, [key])
    assert len(backoffs) == 3
    assert backoffs.nbytes == 300
    assert backoffs.state(["a"]) == BackOff()  # dropped
    assert backoffs.state(["e"]) == BackOff(1, 1)


# -- preparation ahead of the limit -------------------------------------------------------


class Gate:
    """A preparation's work, held until :meth:`open`; counts how often it ran."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.runs = 0

    def open(self) -> None:
        self.event.set()

    async def work(self) -> None:
        self.runs += 1
        await self.event.wait()


async def test_one_preparation_a_key_and_none_while_its_result_waits() -> None:
    table: Preparations[str, str] = Preparations()
    gate = Gate()
    task = table.start(["h"], gate.work)
    assert task is not None
    assert table.running("h")
    assert table.in_flight == {"h": task}
    assert table.start(["h"], gate.work) is None  # running
    assert table.start(["g"], Gate().work) is not None  # another history's own
    gate.open()
    table.keep("h", "summary")
    await task
    assert not table.running("h")
    assert "h" not in table.in_flight  # gone as soon as it ended
    assert table.start(["h"], gate.work) is None  # its result waits for the limit
    assert table.ready("h") == "summary"  # a look leaves it
    assert table.take("h") == "summary"
    assert table.take("h") is None  # handed over once
    assert table.ready_nbytes == 0
    again = table.start(["h"], gate.work)
    assert again is not None
    await again
    assert gate.runs == 2
    await table.close()


async def test_work_is_not_even_called_when_refused() -> None:
    table: Preparations[str, str] = Preparations()
    table.fail("h")

    def never() -> Awaitable[None]:
        raise AssertionError("a refused preparation is not made")

    assert table.start(["h"], never) is None
    await table.close()
    assert table.start(["g"], never) is None  # closed


async def test_a_failure_says_no_more_for_that_history_and_those_extending_it() -> None:
    table: Preparations[str, str] = Preparations()
    table.fail("a")
    assert table.failed(["a", "b"])
    assert table.start(["a", "b"], Gate().work) is None  # extends the failed history
    assert not table.failed(["x", "b"])  # another branch
    started = table.start(["x", "b"], Gate().work)
    assert started is not None
    table.allow("a")  # a summary was made at the limit: prepare again
    assert not table.failed(["a", "b"])
    assert table.start(["a", "c"], Gate().work) is not None
    await table.close()


async def test_wait_is_bounded_and_cancel_ends_one_preparation() -> None:
    table: Preparations[str, str] = Preparations()
    slow, other = Gate(), Gate()
    task = table.start(["h"], slow.work)
    kept = table.start(["g"], other.work)
    assert task is not None
    assert kept is not None
    await table.wait("h", 0.01)  # returns though it still runs
    assert table.running("h")
    await table.cancel("h")
    assert task.cancelled()
    assert not table.running("h")
    assert table.running("g")  # the other history's goes on
    await table.wait("h", None)  # nothing to wait for
    other.open()
    await table.wait("g", None)
    assert kept.done()


async def test_close_ends_every_preparation_a_finished_one_committing_included() -> None:
    table: Preparations[str, str] = Preparations()
    committing = Gate()

    async def prepare_then_commit() -> None:
        table.keep("h", "summary")
        table.finish("h")  # ready: it goes on to commit, no longer "running"
        await committing.work()

    task = table.start(["h"], prepare_then_commit)
    assert task is not None
    await asyncio.sleep(0)
    assert not table.running("h")
    assert table.take("h") == "summary"
    await table.close()
    assert task.cancelled()
    assert table.start(["h"], Gate().work) is None  # closed: none again


async def test_a_preparation_cancelled_before_it_ran_frees_its_key() -> None:
    table: Preparations[str, str] = Preparations()
    task = table.start(["h"], Gate().work)
    assert task is not None
    task.cancel()
    await asyncio.wait([task])
    await asyncio.sleep(0)
    assert not table.running("h")
    assert table.in_flight == {}


async def test_at_most_max_running_at_once() -> None:
    table: Preparations[str, str] = Preparations()
    table.bound(max_running=2, max_bytes=None, max_failed=None)
    gates = {key: Gate() for key in "abc"}
    assert table.start(["a"], gates["a"].work) is not None
    assert table.start(["b"], gates["b"].work) is not None
    assert table.full
    assert table.start(["c"], gates["c"].work) is None
    assert gates["c"].runs == 0
    gates["a"].open()
    await table.wait("a", None)
    assert len(table) == 1
    assert not table.full
    assert table.start(["c"], gates["c"].work) is not None
    await table.close()


def test_results_are_held_to_max_bytes_least_recently_kept_first() -> None:
    table: Preparations[str, str] = Preparations(max_bytes=300)
    for key in "abcd":
        table.keep(key, key.upper(), 100)
    assert table.ready_nbytes == 300
    assert table.ready("a") is None  # dropped
    assert table.ready_in(["a", "b"]) == "b"
    assert table.ready_in(["a", "x", "c", "d"]) == "d"  # the longest prefix first
    assert table.ready_in(["a", "x"]) is None
    table.keep("b", "B2", 100)  # kept again: the most recent now
    table.keep("e", "E", 100)
    assert table.ready("c") is None
    assert table.ready("b") == "B2"
    table.keep("f", "F", 301)  # larger than the bound alone: not kept
    assert table.ready("f") is None
    assert table.ready_nbytes == 300


def test_failures_are_held_to_max_failed_entries() -> None:
    table: Preparations[str, str] = Preparations(max_failed=2, failed_bytes=50)
    for key in "abc":
        table.fail(key)
    assert table.failed_nbytes == 100
    assert not table.failed(["a"])  # the oldest dropped
    assert table.failed(["b"])
    assert table.failed(["c"])


async def test_a_face_with_one_history_sees_its_key_s_entry() -> None:
    table: Preparations[str, str] = Preparations()
    prep = table.of("view")
    gate = Gate()
    assert prep.start(gate.work)
    assert prep.running
    assert table.running("view")
    assert not prep.start(gate.work)
    gate.open()
    await prep.wait(None)
    prep.keep("summary")
    assert prep.ready == table.ready("view") == "summary"
    assert prep.take() == "summary"
    prep.fail()
    assert prep.failed
    assert table.failed(["view"])
    assert not prep.start(gate.work)
    prep.allow()
    assert prep.start(gate.work)
    await prep.cancel()
    assert not prep.running


# -- the trigger and the time limit ---------------------------------------------------------


async def test_without_a_hook_the_rule_decides_and_no_check_is_built() -> None:
    scheduler: Scheduler[str] = Scheduler("store")

    def never() -> TriggerCheck:
        raise AssertionError("a check is built only for a hook")

    assert await scheduler.due(101, 100, never) is True
    assert await scheduler.due(100, 100, never) is False


@pytest.mark.parametrize(
    ("answer", "tokens", "expected"),
    [(True, 10, True), (False, 500, False), (None, 500, True), (None, 10, False)],
)
async def test_the_hook_overrules_the_rule_and_sees_the_face(
    answer: bool | None, tokens: int, expected: bool
) -> None:
    seen: list[TriggerCheck] = []

    def hook(check: TriggerCheck) -> bool | None:
        seen.append(check)
        return answer

    scheduler: Scheduler[str] = Scheduler("manager", should_compact=hook)

    def check() -> TriggerCheck:
        return scheduler.check("m", tokens, 100, 1_000, messages=7, session="s")

    assert await scheduler.due(tokens, 100, check) is expected
    assert seen == [TriggerCheck("manager", "m", tokens, 100, 1_000, 7, "s")]


async def test_a_summary_past_the_time_limit_is_cancelled_and_named() -> None:
    scheduler: Scheduler[str] = Scheduler("proxy", summary_timeout=0.01)
    cancelled = asyncio.Event()

    async def hangs() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    with pytest.raises(CompactionError, match=r"summary_timeout=0\.01"):
        await scheduler.bounded(hangs())
    assert cancelled.is_set()
    assert (
        await Scheduler[str]("proxy", summary_timeout=None).bounded(asyncio.sleep(0, "ok")) == "ok"
    )


# -- every face runs on it ------------------------------------------------------------------


def _hook(check: TriggerCheck) -> bool | None:
    return None


SETTINGS = CompactionSettings(max_backoff=5, summary_timeout=7.5, should_compact=_hook)


def _faces(tmp_path: Path) -> dict[str, Scheduler[str]]:
    model = ModelInfo("test-model", context_window=32_768, max_output_tokens=4_096)
    store = AutoCompactStore(
        MemoryContextStore(), StubTransport([], model=model), settings=SETTINGS
    )
    manager = CompactingContextManager(settings=SETTINGS)
    app = create_app(settings=SETTINGS, db=tmp_path / "cache.db")
    return {
        "store": store._core.scheduler,
        "manager": manager._scheduler,
        "proxy": app.state.forwarder.planner.scheduler,
    }


@pytest.mark.parametrize("face", ["store", "manager", "proxy"])
def test_every_face_holds_the_one_policy_built_from_its_settings(face: str, tmp_path: Path) -> None:
    scheduler = _faces(tmp_path)[face]
    assert isinstance(scheduler, Scheduler)
    assert scheduler.face == face
    assert scheduler.max_backoff == 5
    assert scheduler.summary_timeout == 7.5
    assert scheduler.should_compact is _hook


async def test_the_store_keeps_its_preparation_in_its_scheduler() -> None:
    """Issue 25: the store's preparation in flight and its ready plan are the entry of
    its one history in ``scheduler.preparations``, not slots of its own."""
    summary = GatedSummarizer()
    store = AutoCompactStore(
        MemoryContextStore(alternating(30)),
        StubTransport(model=WINDOW),
        keep_recent=4,
        summary_transport=summary,
    )
    table = store._core.scheduler.preparations
    await store.add_context_tokens(2_600, 10)  # past the prepare point (2,400)
    await asyncio.wait_for(summary.started.wait(), 5)
    assert table.running("history")
    assert list(table.in_flight) == ["history"]
    summary.release.set()
    await table.wait("history", 5)
    assert table.ready("history") is not None  # the plan waits for the limit
    await store.add_context_tokens(3_100, 10)  # the limit takes it
    assert store.compactions == 1
    assert table.ready("history") is None
    await store.close()
    assert table.closed


async def test_the_manager_keeps_its_preparation_in_its_scheduler() -> None:
    """Issue 25: the manager's preparation in flight, its prepared summary and the
    "none after a failure" rule are its view's entry in ``scheduler.preparations``."""
    failing = ManagerSummarizer(fail=True)  # an empty summary: rejected
    manager, _, history = await crossed(failing)
    table = manager._scheduler.preparations
    await asyncio.wait_for(failing.started.wait(), 5)
    assert list(table.in_flight) == ["view"]
    failing.release.set()
    await table.wait("view", 5)
    assert table.failed(["view"])  # no more preparations of the view
    await manager.clear()
    assert not table.failed(["view"])  # a clear starts over

    summary = ManagerSummarizer()
    manager, _, history = await crossed(summary)
    table = manager._scheduler.preparations
    await asyncio.wait_for(summary.started.wait(), 5)
    assert table.running("view")
    summary.release.set()
    await table.wait("view", 5)
    assert table.ready("view") is not None  # waits for the threshold
    await grow(manager, history, THRESHOLD)
    await manager.get_messages_for_request()  # the threshold takes it
    assert table.ready("view") is None
    assert len(summary.requests) == 1


async def test_the_proxy_keeps_its_preparations_in_its_scheduler(
    make_app: MakeApp,  # noqa: F811
    upstream: Upstream,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Issue 25: the proxy's preparations in flight, its summaries waiting for their
    limit and its failed histories are entries of ``scheduler.preparations``, bounded as
    its memory budget and ``MAX_RUNNING`` say; its memory report reads that table."""
    app = await make_app(**PREPARED)
    planner = planner_of(app)
    table = planner.scheduler.preparations
    assert table.max_running == MAX_RUNNING
    assert table.max_bytes == MemoryBudget().share("prepared")
    upstream.summary_gate = summary_made = asyncio.Event()
    await post(app, "openai", turns("openai", 24))  # past the prepare point
    (key,) = table.in_flight
    assert table.running(key)
    assert planner.scheduler.flights.running([key]) is not None  # one flight with the limit's
    summary_made.set()
    await table.wait(key, 5)
    assert len(table) == 0
    assert table.ready_nbytes > 0  # the summary waits for its limit ...
    assert planner.memory()["prepared"] == table.ready_nbytes
    over = await post(app, "openai", turns("openai", 36))
    assert over.headers["x-contextfold-summary"] == "cached"
    assert table.ready_nbytes == 0  # ... which took it into the cache

    upstream.fail_summary = (500, {"error": {"message": "down", "type": "server_error"}})
    upstream.summary_gate = summary_made = asyncio.Event()
    app = await make_app(**PREPARED, db=tmp_path / "another.db")
    table = planner_of(app).scheduler.preparations
    await post(app, "openai", turns("openai", 24))
    (key,) = table.in_flight
    summary_made.set()
    await table.wait(key, 5)
    assert table.failed([key])  # not prepared again for this history
    assert planner_of(app).memory()["failed"] == table.failed_nbytes > 0

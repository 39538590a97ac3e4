"""Attack on the context manager's single flight after cf2af9b: ``ViewSummarizer.view``
replaced its ``asyncio.Lock`` with a wait loop on ``Flights`` (``running`` then
``hold``). Budget 3,000 tokens: views are summarized past 2,400."""

from __future__ import annotations

import asyncio

import pytest

from contextfold.compaction import TriggerCheck
from contextfold.manager import CompactingContextManager, manager_settings
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from tests.attack_sched._wait import until
from tests.manager.test_manager import SUMMARY, Recorder, conversation, filled, tool_round

DEADLINE = 30  # generous: only a hang exceeds it


class Gated(FunctionTransport):
    """A summarizer that records each request's start and answers once ``release`` is set;
    ``fail`` answers with an empty (rejected) summary, ``explode`` raises it."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = 0
        self.fail = False
        self.explode: BaseException | None = None
        super().__init__(self._reply)

    async def _reply(self, request: StubRequest) -> StubResponse:
        self.started += 1
        await self.release.wait()
        explode, self.explode = self.explode, None  # one request only
        if explode is not None:
            raise explode
        return make_text_response("" if self.fail else SUMMARY)


async def settle() -> None:
    for _ in range(50):
        await asyncio.sleep(0)


def summaries(hooks: Recorder) -> list[str]:
    return [d["summary"] for d in hooks.named("context:post_compact")]


async def test_a_waiter_cancelled_in_the_wait_loop_leaves_the_others_one_summary() -> None:
    # Impact: a request cancelled while it waits for another's summary must neither
    # end the running summary nor wedge or duplicate it for the remaining requests.
    transport = Gated()
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=transport), conversation(30)
    )
    holder = asyncio.ensure_future(manager.get_messages_for_request())
    await until(lambda: transport.started == 1)
    waiters = [asyncio.ensure_future(manager.get_messages_for_request()) for _ in range(4)]
    await settle()
    waiters[1].cancel()
    waiters[3].cancel()
    await settle()
    transport.release.set()
    async with asyncio.timeout(DEADLINE):
        views = await asyncio.gather(holder, waiters[0], waiters[2])
    assert waiters[1].cancelled()
    assert waiters[3].cancelled()
    assert transport.started == 1
    assert all(v == views[0] for v in views)


async def test_the_holder_cancelled_mid_summary_lets_the_waiters_go_on() -> None:
    # Impact: a client that goes away while its request summarizes must not leave the
    # other requests of the conversation waiting forever: the next one summarizes.
    transport = Gated()
    hooks = Recorder()
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=transport, hooks=hooks),
        conversation(30),
    )
    holder = asyncio.ensure_future(manager.get_messages_for_request())
    await until(lambda: transport.started == 1)
    waiters = [asyncio.ensure_future(manager.get_messages_for_request()) for _ in range(3)]
    await settle()
    holder.cancel()
    await until(lambda: transport.started == 2)  # a waiter took over
    transport.release.set()
    async with asyncio.timeout(DEADLINE):
        views = await asyncio.gather(*waiters)
    assert holder.cancelled()
    assert transport.started == 2
    assert all(v == views[0] for v in views)
    assert summaries(hooks).count("new") == 1


@pytest.mark.parametrize(
    "exc", [RuntimeError("summarizer bug"), KeyError("x")], ids=["runtime", "keyerror"]
)
async def test_a_summary_that_raises_a_bug_still_frees_the_flight(exc: BaseException) -> None:
    # Impact: an unexpected exception in the holder's summary must reach its caller
    # (or be reported as a failed summary) and the waiters must still be answered.
    transport = Gated()
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=transport), conversation(30)
    )
    holder = asyncio.ensure_future(manager.get_messages_for_request())
    await until(lambda: transport.started == 1)
    waiter = asyncio.ensure_future(manager.get_messages_for_request())
    await settle()
    transport.explode = exc
    transport.release.set()
    async with asyncio.timeout(DEADLINE):
        await asyncio.gather(holder, return_exceptions=True)
        view = await waiter
    assert len(view) < len(conversation(30))


async def test_many_concurrent_requests_make_one_summary_and_each_sees_its_snapshot() -> None:
    # Impact: many requests of one conversation at once (fan-out tools): one summary,
    # no starvation, every request answered with the view of the history it saw.
    transport = Gated()
    manager = await filled(
        CompactingContextManager(max_tokens=3_000, transport=transport), conversation(30)
    )
    first = [asyncio.ensure_future(manager.get_messages_for_request()) for _ in range(40)]
    await until(lambda: transport.started == 1)
    await manager.add_message({"role": "assistant", "content": "later"})
    second = [asyncio.ensure_future(manager.get_messages_for_request()) for _ in range(40)]
    await settle()
    transport.release.set()
    async with asyncio.timeout(DEADLINE):
        a = await asyncio.gather(*first)
        b = await asyncio.gather(*second)
    assert transport.started == 1
    assert all(v == a[0] for v in a)
    assert all(v == b[0] for v in b)
    assert b[0] == [*a[0], {"role": "assistant", "content": "later"}]


async def test_a_hanging_summarizer_bounds_every_queued_request_and_backs_off() -> None:
    # Impact: with a summarizer that never answers, requests queued on the flight each
    # get an answer (timeout, then back-off skips), never one summary wait per request
    # more than the back-off allows.
    async def never(request: object) -> object:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    hooks = Recorder()
    transport = FunctionTransport(never)
    manager = await filled(
        CompactingContextManager(
            max_tokens=3_000,
            transport=transport,
            hooks=hooks,
            settings=manager_settings(summary_timeout=0.2, max_backoff=32),
        ),
        conversation(30),
    )
    async with asyncio.timeout(DEADLINE):
        views = await asyncio.gather(*(manager.get_messages_for_request() for _ in range(5)))
    assert all(len(v) < len(conversation(30)) for v in views)
    # failed, skip 1, failed, skip 2: two summary attempts for five requests
    assert summaries(hooks) == ["failed", "backoff", "failed", "backoff", "backoff"]
    assert len(transport.requests) == 2


@pytest.mark.parametrize("max_backoff", [1, 2, 32])
async def test_manager_backoff_counts_with_max_backoff_and_a_success_starts_over(
    max_backoff: int,
) -> None:
    # Impact: the back-off's accounting (1, 2, 4 ... max_backoff) must be what it was.
    transport = Gated()
    transport.release.set()
    transport.fail = True
    hooks = Recorder()
    manager = await filled(
        CompactingContextManager(
            max_tokens=3_000,
            transport=transport,
            hooks=hooks,
            settings=manager_settings(max_backoff=max_backoff, prepare_threshold=None),
        ),
        conversation(30),
    )
    for _ in range(12):
        await manager.get_messages_for_request()
    expected: list[str] = []
    failures = 0
    while len(expected) < 12:
        expected.append("failed")
        failures += 1
        expected += ["backoff"] * min(2 ** (failures - 1), max_backoff)
    assert summaries(hooks) == expected[:12]
    transport.fail = False
    while summaries(hooks)[-1] != "new":
        await manager.get_messages_for_request()
    transport.fail = True
    for wire in [w for i in range(100, 130) for w in tool_round(i)]:
        await manager.add_message(wire)
    await manager.get_messages_for_request()
    await manager.get_messages_for_request()
    assert summaries(hooks)[-2:] == ["failed", "backoff"]  # one skip: it started over
    await manager.get_messages_for_request()
    assert summaries(hooks)[-1] == "failed"


async def test_a_waiter_is_served_before_a_busy_caller_comes_back() -> None:
    # Impact: fairness. With the lock, requests were served in the order they queued;
    # a caller that asks again as soon as its own summary ends (an agent loop whose
    # hook wants a summary every turn) could not overtake one already waiting. With
    # the wait loop it takes the flight again before the waiter wakes: the waiter
    # waits for every one of the busy caller's summaries (unbounded latency).
    first_summary = asyncio.Event()

    async def reply(request: StubRequest) -> StubResponse:
        first_summary.set()
        await asyncio.sleep(0.01)
        return make_text_response(SUMMARY)

    def every_turn(check: TriggerCheck) -> bool:
        return True

    manager = await filled(
        CompactingContextManager(
            max_tokens=3_000,
            transport=FunctionTransport(reply),
            settings=manager_settings(should_compact=every_turn, prepare_threshold=None),
        ),
        conversation(30),
    )
    order: list[str] = []

    async def busy() -> None:
        for turn in range(6):
            for wire in tool_round(200 + turn):
                await manager.add_message(wire)
            await manager.get_messages_for_request()
            order.append(f"busy {turn}")

    async def waiter() -> None:
        await first_summary.wait()  # the busy caller's first summary is in flight
        await manager.get_messages_for_request()
        order.append("waiter")

    async with asyncio.timeout(DEADLINE):
        await asyncio.gather(busy(), waiter())
    assert order.index("waiter") <= 2, order


async def test_a_should_compact_hook_set_on_the_managers_settings_later_is_asked() -> None:
    # Impact: minor. The manager read its hook from ``manager.settings`` on every
    # request; the scheduler copies it at construction, so settings replaced on a
    # live manager (``manager.settings = manager.settings.replace(should_compact=f)``)
    # no longer reach the trigger.
    asked: list[TriggerCheck] = []

    def hook(check: TriggerCheck) -> bool:
        asked.append(check)
        return True

    manager = await filled(
        CompactingContextManager(max_tokens=100_000, transport=Gated()), conversation(3)
    )
    manager.settings = manager.settings.replace(should_compact=hook)
    async with asyncio.timeout(DEADLINE):
        task = asyncio.ensure_future(manager.get_messages_for_request())
        await settle()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert asked, "the hook on the manager's settings was not asked"

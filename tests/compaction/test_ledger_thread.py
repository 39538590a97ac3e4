"""The fact ledger of a long session is read on a worker thread in every face.

Reading it costs about 2 µs a character (0.2-0.4 s for a session of 150 KB,
``bench/loop_lag.py``). On the event loop that held the agent's next model call, a
store's heartbeat, the manager's other sessions. Up to ``LEDGER_INLINE_CHARS`` it is
still read on the loop (a thread's hand-off costs more than it saves there).

AGENT's window is 16,000 tokens with 1,000 of output: compaction at 12,000 (0.75),
preparation at 9,600 (0.6), reads relieved past 13,500 (halfway to the 15,000 the
window takes with room for a reply) while no summary can be committed. The session
(~4,500 tokens counted) is reported larger, as a real prompt with its system prompt
and tools is.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from contextfold import (
    AutoCompactStore,
    CompactionEvent,
    MemoryContextStore,
    Message,
    ModelInfo,
)
from contextfold.compaction import CompactionSettings, _ledger
from contextfold.compaction._engine import (
    LEDGER_INLINE_CHARS,
    compact_history,
    ledger_chars,
    within_summary_timeout,
)
from contextfold.errors import CompactionError
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    make_text_response,
)
from tests.attack_sched._wait import until
from tests.compaction.test_compaction import tool_round

REVIEW = "<summary>\n## Current state\nReviewing the invoice export module.\n</summary>"


def session(n: int = 30, size: int = 600) -> list[Message]:
    """``n`` messages about the invoice export of about ``size`` characters each
    (30 of 600 read ~18,000 characters)."""
    words = "the invoice export module rounds each line "
    pad = (words * (size // len(words) + 1))[:size]
    return [
        Message.user(f"q{i}: review {pad}") if i % 2 == 0 else Message.assistant(f"a{i}: {pad}")
        for i in range(n)
    ]


class Ledgers:
    """``build_ledger`` recorded: the thread each call ran on; with ``gate`` set up, a
    call waits (at most 10 s) until the test opens it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, gated: bool = False) -> None:
        self.threads: list[threading.Thread] = []
        self.entered = threading.Event()
        self.gate = threading.Event()
        if not gated:
            self.gate.set()
        build = _ledger.build_ledger

        def recorded(*args: Any, **kwargs: Any) -> _ledger.Ledger:
            self.threads.append(threading.current_thread())
            self.entered.set()
            self.gate.wait(10)
            return build(*args, **kwargs)

        monkeypatch.setattr(_ledger, "build_ledger", recorded)

    @property
    def off_loop(self) -> list[bool]:
        return [thread is not threading.main_thread() for thread in self.threads]


def outcomes(events: list[CompactionEvent]) -> list[str | None]:
    return [e.outcome for e in events if e.phase == "after"]


AGENT = ModelInfo("agent-model", 16_000, 1_000)


def reviewer() -> FunctionTransport:
    """A summarizer that answers at once, every time, with a window the session fits."""
    return FunctionTransport(
        lambda request: make_text_response(REVIEW), model=ModelInfo("summarizer", 200_000, 4_000)
    )


def make_store(history: list[Message], events: list[CompactionEvent]) -> AutoCompactStore:
    return AutoCompactStore(
        MemoryContextStore(history),
        FunctionTransport(lambda request: make_text_response(REVIEW), model=AGENT),
        summary_transport=reviewer(),
        keep_recent=4,
        on_event=events.append,
    )


def test_what_the_ledger_reads_is_counted_by_block() -> None:
    history = [
        Message.user("abcd"),
        *tool_round(1, output="x" * 50),  # "step 1", {"n": 1} as JSON, the output
    ]
    assert ledger_chars(history) == 4 + len("step 1") + len('{"n": 1}') + 50
    assert ledger_chars([], ["the user's words"]) == 16


async def test_a_store_reads_a_long_sessions_ledger_off_its_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ledgers = Ledgers(monkeypatch)
    events: list[CompactionEvent] = []
    history = session()
    assert ledger_chars(history[:-4]) > LEDGER_INLINE_CHARS
    store = make_store(history, events)
    assert await store.compact(force=True)
    assert ledgers.off_loop == [True]
    await store.close()


async def test_a_short_sessions_ledger_stays_on_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    ledgers = Ledgers(monkeypatch)
    events: list[CompactionEvent] = []
    history = session(30, 80)
    assert ledger_chars(history) < LEDGER_INLINE_CHARS
    store = make_store(history, events)
    assert await store.compact(force=True)
    assert ledgers.off_loop == [False]
    await store.close()


async def test_the_manager_reads_a_long_sessions_ledger_off_its_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from contextfold.manager import CompactingContextManager

    ledgers = Ledgers(monkeypatch)
    manager = CompactingContextManager(transport=reviewer(), max_tokens=3_000, keep_recent=4)
    for message in session():
        await manager.add_message({"role": message.role, "content": message.text})
    view = await manager.get_messages_for_request()
    assert "<summary>" in view[0]["content"]  # the history over the budget was summarized
    assert ledgers.off_loop
    assert all(ledgers.off_loop)


async def test_a_read_that_would_be_relieved_waits_for_a_ledger_being_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The summary came back; its ledger is read on a thread when the prompt jumps past
    # the relief point (13,500). The caller waits for it (a fraction of a second) and
    # gets the summary, not a relieved view of the whole history.
    ledgers = Ledgers(monkeypatch, gated=True)
    events: list[CompactionEvent] = []
    store = make_store(session(), events)
    await store.add_context_tokens(10_000, 10)  # past the prepare point: preparing
    await until(ledgers.entered.is_set)
    assert ledgers.off_loop == [True]
    crossing = asyncio.ensure_future(store.add_context_tokens(14_000, 10))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not crossing.done()  # waiting for the ledger, not relieved
    ledgers.gate.set()
    await asyncio.wait_for(crossing, 10)
    assert store.compactions == 1
    assert outcomes(events) == ["prepared", "committed"]
    history = await store.get_history()
    assert "Reviewing the invoice export module." in history[0].text
    assert "relieved" not in outcomes(events)
    await store.close()


async def test_a_read_that_fits_does_not_wait_for_a_ledger_being_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Past the limit (12,000) but under the relief point, the next request is sent
    # whole: nothing is worth a wait; the summary is committed once its ledger is read.
    ledgers = Ledgers(monkeypatch, gated=True)
    events: list[CompactionEvent] = []
    store = make_store(session(), events)
    await store.add_context_tokens(10_000, 10)
    await until(ledgers.entered.is_set)
    await asyncio.wait_for(store.add_context_tokens(12_500, 10), 1)  # returns at once
    assert store.compactions == 0
    assert len(await store.get_history()) == 30  # whole, not relieved
    ledgers.gate.set()
    await until(lambda: store.compactions == 1)
    assert outcomes(events) == ["prepared", "committed"]
    await store.close()


async def test_the_limit_does_not_wait_for_a_summary_still_being_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The model has not answered: waiting would be the stall preparation avoids.
    from tests.compaction.test_compaction import GatedSummarizer

    ledgers = Ledgers(monkeypatch)
    events: list[CompactionEvent] = []
    summary = GatedSummarizer()
    store = AutoCompactStore(
        MemoryContextStore(session()),
        FunctionTransport(lambda request: make_text_response(REVIEW), model=AGENT),
        summary_transport=summary,
        keep_recent=4,
        on_event=events.append,
    )
    await store.add_context_tokens(10_000, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    await asyncio.wait_for(store.add_context_tokens(12_500, 10), 1)  # returns at once
    assert store.compactions == 0
    summary.release.set()
    await until(lambda: store.compactions == 1)  # committed once it is ready
    assert ledgers.off_loop == [True]
    await store.close()


def slow_ledgers(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Every ``build_ledger`` call takes ``seconds`` more."""
    build = _ledger.build_ledger

    def slow(*args: Any, **kwargs: Any) -> _ledger.Ledger:
        time.sleep(seconds)
        return build(*args, **kwargs)

    monkeypatch.setattr(_ledger, "build_ledger", slow)


@pytest.fixture
def slow_ledger(monkeypatch: pytest.MonkeyPatch) -> None:
    slow_ledgers(monkeypatch, 0.5)


def answering_in(seconds: float) -> FunctionTransport:
    async def answer(request: StubRequest) -> StubResponse:
        await asyncio.sleep(seconds)
        return make_text_response(REVIEW)

    return FunctionTransport(answer)


@pytest.mark.usefixtures("slow_ledger")
async def test_the_summary_timeout_stops_its_clock_while_the_ledger_is_read() -> None:
    # The model answered in 0.05 s of a 0.3 s limit; the ledger then took 0.5 s on a
    # thread: the limit bounds the wait on the model, as on the loop.
    opts = CompactionSettings(keep_recent=4, user_message_budget=0).options()
    work = compact_history(session(), answering_in(0.05), opts, off_loop=True)
    result = await within_summary_timeout(0.3, work)
    assert result is not None
    assert result.summarized_messages == 26


@pytest.mark.usefixtures("slow_ledger")
async def test_the_summary_timeout_still_bounds_the_model() -> None:
    opts = CompactionSettings(keep_recent=4, user_message_budget=0).options()
    work = compact_history(session(), answering_in(5), opts, off_loop=True)
    started = time.monotonic()
    with pytest.raises(CompactionError, match="summary_timeout"):
        await within_summary_timeout(0.2, work)
    assert time.monotonic() - started < 3


async def test_a_run_cancelled_while_its_ledger_is_read_ends_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The thread cannot be stopped; the run is (a store closing, a client gone), and
    # its time limit is left as it was.
    ledgers = Ledgers(monkeypatch, gated=True)
    opts = CompactionSettings(keep_recent=4, user_message_budget=0).options()
    work = compact_history(session(), answering_in(0), opts, off_loop=True)
    run = asyncio.ensure_future(within_summary_timeout(30, work))
    await until(ledgers.entered.is_set)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(run, 2)
    ledgers.gate.set()


@pytest.mark.parametrize("ledger", [True, False])
def test_a_face_that_reads_ledgers_loads_their_rules_in_the_background(ledger: bool) -> None:
    # Compiling the rules (0.1-0.4 s) held the event loop at the first compaction.
    code = (
        "import sys\n"
        "from contextfold.compaction import _engine\n"
        "from contextfold.compaction._scheduler import Scheduler\n"
        f"Scheduler('store', ledger={ledger})\n"
        "if _engine._warming is not None:\n"
        "    _engine._warming.join(30)\n"
        "print('contextfold.compaction._ledger' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(ledger)

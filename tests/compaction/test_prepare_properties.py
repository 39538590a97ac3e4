"""Property test (issue 14): appends, usage reports, background preparation, commits, clears
and rewrites interleaved in any order keep every guarantee.

The summarizer is controlled: each request waits on a future the scenario resolves (with
a summary naming every message id the request showed it, or with a failure) when the
drawn operations say so, so the interleavings are explored by hypothesis, not by timing.
Every operation but an append runs as a task that may block on the summarizer; the
scenario goes on while it does.

Invariants:

* no appended message is lost: each id appended since the last clear/rewrite is in the
  live history, or in a summary there (the summarizer saw it);
* no message is duplicated: each id is live at most once;
* every read is valid (both dialects), relieved views included;
* a stale preparation is never committed: nothing from before a clear/rewrite ever
  appears in the live history again;
* at most one summary is in preparation (indeed, one summarizer request) at a time.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import AutoCompactStore, MemoryContextStore, Message, ModelInfo
from contextfold.compaction import CompactionEvent, CompactionSettings
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from contextfold.tokens import count_tokens
from contextfold.validation import validate_history

WINDOW = ModelInfo("small-model", 4_000, 500)  # limit 3,000, relief past 3,250
ID = re.compile(r"<e(\d+)m(\d+)>")

Op = tuple[str, int]
operations = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 3)),
        st.tuples(st.just("usage"), st.integers(-200, 1_200)),
        st.tuples(st.just("append"), st.integers(1, 3)),
        st.tuples(st.just("usage"), st.integers(-200, 1_200)),
        st.tuples(st.just("finish"), st.integers(0, 9)),
        st.tuples(st.just("finish"), st.integers(0, 9)),
        st.tuples(st.just("read"), st.just(0)),
        # rarer: 0 clears, 1-3 rewrite with that many pairs, 4-5 compact now
        st.tuples(st.just("rare"), st.integers(0, 5)),
    ),
    min_size=1,
    max_size=40,
)


@dataclass
class Scenario:
    epoch: int = 0
    next_id: int = 0
    appended: list[str] = field(default_factory=list)  # ids of the current epoch
    pending: list[tuple[StubRequest, asyncio.Future[str | None]]] = field(default_factory=list)
    most_in_flight: int = 0
    tasks: list[asyncio.Task[object]] = field(default_factory=list)
    events: list[CompactionEvent] = field(default_factory=list)

    def pair(self, size: int) -> list[Message]:
        """A user/assistant pair with fresh ids of the current epoch."""
        messages = []
        for role in ("user", "assistant"):
            tag = f"<e{self.epoch}m{self.next_id}>"
            self.next_id += 1
            self.appended.append(tag)
            text = tag + " " + ("words " * 20 * size)
            messages.append(Message.user(text) if role == "user" else Message.assistant(text))
        return messages

    async def summarize(self, request: StubRequest) -> StubResponse:
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.pending.append((request, future))
        self.most_in_flight = max(self.most_in_flight, len(self.pending))
        try:
            outcome = await future
        finally:
            self.pending.remove((request, future))
        if outcome is None:
            raise ConnectionError("the summarizer failed (scripted)")
        return make_text_response(outcome)

    def finish(self, how: int) -> None:
        if not self.pending:
            return
        request, future = self.pending[0]
        if how == 0:
            future.set_result(None)  # a failure
        else:
            seen = " ".join(dict.fromkeys(m.group(0) for m in ID.finditer(request.text)))
            future.set_result(f"## Current state\nseen {seen}")


async def settle() -> None:
    for _ in range(30):
        await asyncio.sleep(0)


def check_live(history: list[Message], scenario: Scenario) -> None:
    validate_history(history)
    live: list[str] = []
    summarized: set[str] = set()
    for message in history:
        found = [m.group(0) for m in ID.finditer(message.text)]
        if message.role != "system" and "seen " in message.text:
            summarized.update(found)
        else:
            live.extend(found)
    assert len(live) == len(set(live)), f"duplicated: {live}"
    for tag in live + sorted(summarized):
        epoch = int(ID.fullmatch(tag).group(1))  # type: ignore[union-attr]
        assert epoch == scenario.epoch, f"{tag} from before a clear/rewrite came back"
    missing = [t for t in scenario.appended if t not in live and t not in summarized]
    assert not missing, f"lost: {missing}"


async def run(ops: list[Op], start: int = 30, prepare: float = 0.6) -> Scenario:
    scenario = Scenario()
    summary = FunctionTransport(scenario.summarize, model=WINDOW)
    store = AutoCompactStore(
        MemoryContextStore([m for _ in range(start) for m in scenario.pair(1)]),
        FunctionTransport(lambda request: make_text_response("ok"), model=WINDOW),
        summary_transport=summary,
        keep_recent=2,
        on_event=scenario.events.append,
        settings=CompactionSettings(cache_friendly=False, prepare_threshold=prepare),
    )

    async def read() -> None:
        view = await store.get_history()
        validate_history(view, "anthropic")
        validate_history(view, "openai")

    for name, value in ops:
        if name == "append":
            for message in scenario.pair(value):
                await asyncio.wait_for(store.append(message), 5)
        elif name == "usage":  # what the live history costs, give or take
            size = count_tokens(await store.inner.get_history()) + value
            scenario.tasks.append(asyncio.ensure_future(store.add_context_tokens(size, 10)))
        elif name == "read":
            scenario.tasks.append(asyncio.ensure_future(read()))
        elif name == "finish":
            scenario.finish(value)
        elif value >= 4:  # rare: a manual compaction
            scenario.tasks.append(asyncio.ensure_future(store.compact()))
        elif value == 0:  # rare: a clear
            scenario.epoch += 1
            scenario.appended = []
            await asyncio.wait_for(store.clear(), 5)
            for message in scenario.pair(1):
                await store.append(message)
        else:  # rare: replace_history
            scenario.epoch += 1
            scenario.appended = []
            await asyncio.wait_for(store.replace_history(scenario.pair(value)), 5)
        await settle()
        assert len(scenario.pending) <= 1, "two summaries in flight at once"
        check_live(await store.inner.get_history(), scenario)
    # Let everything in flight end: answer every summarizer request.
    for _ in range(200):
        if all(task.done() for task in scenario.tasks) and not scenario.pending:
            break
        scenario.finish(1)
        await settle()
    for task in scenario.tasks:
        await asyncio.wait_for(task, 5)  # re-raises a failed read's validation error
    await store.close()
    check_live(await store.inner.get_history(), scenario)
    await read()
    return scenario


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, start=st.integers(2, 40), prepare=st.sampled_from([0.3, 0.45, 0.6]))
def test_interleaved_appends_preparation_commits_and_rewrites_keep_every_guarantee(
    ops: list[Op], start: int, prepare: float
) -> None:
    scenario = asyncio.run(run(ops, start, prepare))
    assert scenario.most_in_flight <= 1
    prepares = [e for e in scenario.events if e.trigger == "prepare" and e.phase == "before"]
    ends = [
        e
        for e in scenario.events
        if e.trigger == "prepare" and e.phase == "after" and e.outcome != "discarded"
    ]
    assert len(ends) == len(prepares)  # every preparation ended, and was reported once

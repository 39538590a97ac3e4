"""Background preparation (issue 14): the agent never waits for a summary.

WINDOW is 4,000 tokens with 500 of output: compaction at 3,000 (0.75), preparation at
2,400 (0.6), and past 3,250 (halfway from the limit to the 3,500 the window takes with
room for a full reply) a read is relieved while no summary can be committed.
"""

from __future__ import annotations

import asyncio

import pytest

from contextfold import AutoCompactStore, CompactionEvent, MemoryContextStore, Message
from contextfold.compaction._trigger import TriggerCheck
from contextfold.testing import StubRequest, StubResponse, StubTransport, make_text_response
from contextfold.validation import validate_history
from tests._faces import store_arguments
from tests.attack_sched._wait import until
from tests.compaction.test_compaction import SUMMARY, WINDOW, GatedSummarizer, alternating


def outcomes(events: list[CompactionEvent]) -> list[str | None]:
    return [e.outcome for e in events if e.phase == "after"]


def make_store(
    history: list[Message],
    summary: GatedSummarizer,
    events: list[CompactionEvent],
    **options: object,
) -> AutoCompactStore:
    return AutoCompactStore(
        MemoryContextStore(history),
        StubTransport(model=WINDOW),
        **store_arguments(
            keep_recent=4, summary_transport=summary, on_event=events.append, **options
        ),
    )


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_the_call_that_crosses_the_prepare_threshold_returns_at_once() -> None:
    summary = GatedSummarizer()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events)
    assert store.prepare_limit == 2_400
    await store.add_context_tokens(2_000, 10)  # under: nothing happens
    await settle()
    assert not summary.started.is_set()
    await store.add_context_tokens(2_600, 10)  # over: preparing, and returned already
    await asyncio.wait_for(summary.started.wait(), 5)
    assert len(await store.get_history()) == 30  # nothing committed yet
    summary.release.set()
    await settle()
    assert outcomes(events) == ["prepared"]
    assert store.compactions == 0


async def test_a_prepared_summary_is_committed_at_the_limit_without_a_model_call() -> None:
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    history = alternating(30)
    store = make_store(history, summary, events)
    await store.add_context_tokens(2_600, 10)
    await settle()
    assert outcomes(events) == ["prepared"]
    requests = len(summary.requests)
    late = [Message.user("appended after the snapshot"), Message.assistant("and kept")]
    for message in late:
        await store.append(message)
    await store.add_context_tokens(3_100, 10)
    assert len(summary.requests) == requests  # no model call at the limit
    assert outcomes(events) == ["prepared", "committed"]
    committed = events[-1]
    assert committed.waited_s is not None
    assert committed.waited_s < 1.0
    compacted = await store.get_history()
    validate_history(compacted)
    assert SUMMARY in compacted[0].text
    assert compacted[-2:] == late  # appends after the snapshot stay after it, in order
    assert store.compactions == 1


async def test_the_limit_before_the_summary_is_ready_does_not_wait_when_there_is_room() -> None:
    summary = GatedSummarizer()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events)
    await store.add_context_tokens(2_600, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    # Over the limit, under the wait point: the call returns with the summary pending.
    await asyncio.wait_for(store.add_context_tokens(3_100, 10), 1)
    assert store.compactions == 0
    summary.release.set()
    await settle()
    assert outcomes(events) == ["prepared", "committed"]  # committed as soon as it arrived
    assert store.compactions == 1


async def test_past_the_relief_point_the_caller_does_not_wait_the_read_is_relieved() -> None:
    """Relief makes the next request fit, so nobody waits for the summary in preparation."""
    summary = GatedSummarizer()
    events: list[CompactionEvent] = []
    history = alternating(30)
    store = make_store(history, summary, events)
    await store.add_context_tokens(2_600, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    await asyncio.wait_for(store.add_context_tokens(3_400, 10), 1)  # past 3,250: no wait
    view = await store.get_history()
    assert len(view) < len(history)
    validate_history(view, "anthropic")
    validate_history(view, "openai")
    assert await store.inner.get_history() == history  # the store keeps everything
    assert outcomes(events) == ["relieved"]
    summary.release.set()
    await settle()
    assert outcomes(events) == ["relieved", "prepared", "committed"]
    assert store.compactions == 1
    assert len(summary.requests) == 1  # the same summary, not a second one


async def test_a_stale_prepared_summary_is_discarded_never_committed() -> None:
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    inner_history = alternating(30)
    store = make_store(inner_history, summary, events)
    await store.add_context_tokens(2_600, 10)
    await settle()
    # Another process rewrites the history under the prepared summary.
    rewritten = [
        Message.user(f"B-task {i} " + "x" * 80) if i % 2 == 0 else Message.assistant(f"B{i}")
        for i in range(30)
    ]
    await store.inner.replace_history(rewritten)
    await store.add_context_tokens(3_100, 10)
    assert outcomes(events)[:3] == ["prepared", "discarded", "compacted"]
    discarded = next(e for e in events if e.outcome == "discarded")
    assert discarded.summarizer_usage is not None
    assert discarded.summarizer_usage.input_tokens > 0  # paid for, and reported
    history = await store.get_history()
    validate_history(history)
    assert history[-2:] == rewritten[-2:]
    assert not any(m.text.startswith(("q", "a")) for m in history[2:])  # nothing of the old


async def test_clearing_discards_a_prepared_summary() -> None:
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events)
    await store.add_context_tokens(2_600, 10)
    await settle()
    await store.clear()
    assert outcomes(events) == ["prepared", "discarded"]
    await store.append(Message.user("fresh start"))
    await store.add_context_tokens(3_100, 10)
    assert await store.get_history() == [Message.user("fresh start")]


async def test_preparation_off() -> None:
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events, prepare_threshold=None)
    assert store.prepare_limit is None
    await store.add_context_tokens(2_900, 10)
    await settle()
    assert outcomes(events) == []
    await store.add_context_tokens(3_100, 10)
    assert outcomes(events) == ["compacted"]


@pytest.mark.parametrize(
    ("options", "limit"),
    [
        ({"prepare_threshold": 0.8}, 3_000),  # a share at/above the threshold
        ({"threshold": 0.5}, 2_000),  # the default 0.6 over a low threshold
        ({"max_tokens": 2_000}, 2_000),  # ... or over a small max_tokens
    ],
)
async def test_a_prepare_point_not_below_the_limit_falls_back_to_80_percent_of_it(
    options: dict[str, object], limit: int
) -> None:
    """Preparation is never switched off silently by a low compaction threshold."""
    summary = GatedSummarizer()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events, **options)
    assert store.limit == limit
    assert store.prepare_limit == int(limit * 0.8)
    await store.add_context_tokens(int(limit * 0.85), 10)  # past the fallback point
    await asyncio.wait_for(summary.started.wait(), 5)
    summary.release.set()
    await settle()
    assert outcomes(events) == ["prepared"]
    await store.add_context_tokens(limit + 100, 10)
    assert outcomes(events) == ["prepared", "committed"]


async def test_appends_interleaved_with_preparation_and_commit_are_all_kept() -> None:
    summary = GatedSummarizer()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events)
    await store.add_context_tokens(2_600, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    added = [
        Message.user(f"during {i}") if i % 2 == 0 else Message.assistant(f"r{i}") for i in range(6)
    ]
    for message in added[:3]:
        await store.append(message)
    summary.release.set()
    await settle()
    for message in added[3:]:
        await store.append(message)
    await store.add_context_tokens(3_100, 10)
    history = await store.get_history()
    assert history[-6:] == added
    assert outcomes(events) == ["prepared", "committed"]


async def test_a_failed_preparation_backs_off_and_is_never_retried_inline_at_once() -> None:
    """Past the relief point the caller does not wait for the preparation; when it fails
    (here: its summary_timeout), the next trigger backs off instead of summarizing inline."""
    summary = GatedSummarizer()  # never released: every attempt times out
    events: list[CompactionEvent] = []
    # long enough that the call past the relief point comes while it still runs, on a
    # loaded machine too (0.05 s was not: the preparation failed first, and the back-off
    # was spent on that call)
    store = make_store(alternating(30), summary, events, summary_timeout=0.5)
    await store.add_context_tokens(2_600, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    await asyncio.wait_for(store.add_context_tokens(3_400, 10), 1)
    assert outcomes(events) == []  # the preparation is still running
    await until(lambda: bool(outcomes(events)), 5)  # it times out in the background
    await asyncio.wait_for(store.add_context_tokens(3_420, 10), 1)
    assert outcomes(events) == ["failed", "held"]
    assert len(summary.requests) == 1  # no second, inline attempt after the failed one


async def test_two_callers_waiting_for_one_failed_preparation_start_one_attempt() -> None:
    summary = GatedSummarizer()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events, summary_timeout=0.2)
    await store.add_context_tokens(2_600, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    first = asyncio.ensure_future(store.compact())
    second = asyncio.ensure_future(store.compact())
    await settle()
    summary.started.clear()
    await asyncio.sleep(0.3)  # the preparation times out; both callers go on
    summary.release.set()
    assert await asyncio.wait_for(asyncio.gather(first, second), 5) == [True, True]
    assert outcomes(events) == ["failed", "compacted"]  # one attempt, shared
    assert len(summary.requests) == 2  # the preparation's, then one more


def late_round(tag: str, size: int = 300) -> list[Message]:
    return [Message.user(f"{tag} " + "z" * size), Message.assistant(f"{tag} done " + "y" * size)]


async def test_a_commit_left_over_the_target_updates_its_summary_in_the_background() -> None:
    """What accumulated after the snapshot leaves the committed result over the target
    (but under the limit): one incremental update anchored on the committed summary is
    prepared in the background, and committed at the next limit without a model call."""
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    store = make_store(alternating(100), summary, events)
    await store.add_context_tokens(2_600, 10)
    await settle()
    late = [m for i in range(10) for m in late_round(f"after the snapshot {i}")]
    for message in late:
        await store.append(message)
    await store.add_context_tokens(3_100, 10)
    committed = next(e for e in events if e.outcome == "committed")
    assert committed.tokens_after is not None
    target = int(store.limit * store.settings.target_ratio)
    assert target < committed.tokens_after <= store.limit  # over the target, room left
    await settle()
    assert outcomes(events) == ["prepared", "committed", "prepared"]
    assert len(summary.requests) == 2  # the first summary, then one update
    # The update is anchored on the committed summary: it is in the update's request.
    update_request = "".join(m.text for m in summary.requests[1].messages)
    assert f"<previous-summary>\n{SUMMARY}" in update_request
    requests = len(summary.requests)
    more = late_round("later still", 40)
    for message in more:
        await store.append(message)
    await store.add_context_tokens(3_100, 10)
    await settle()
    assert outcomes(events) == ["prepared", "committed", "prepared", "committed"]
    assert len(summary.requests) == requests  # no model call at the limit
    history = await store.get_history()
    validate_history(history)
    assert history[-2:] == more
    assert store.compactions == 2


async def test_a_commit_within_the_target_starts_no_update() -> None:
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    store = make_store(alternating(100), summary, events)
    await store.add_context_tokens(2_600, 10)
    await settle()
    for message in late_round("after the snapshot"):
        await store.append(message)
    await store.add_context_tokens(3_100, 10)
    committed = events[-1]
    assert committed.outcome == "committed"
    assert committed.tokens_after is not None
    assert committed.tokens_after <= int(store.limit * store.settings.target_ratio)
    await settle()
    await asyncio.sleep(0.05)
    assert outcomes(events) == ["prepared", "committed"]
    assert len(summary.requests) == 1


async def test_a_commit_over_the_target_by_what_no_summary_shrinks_starts_no_update() -> None:
    """Usage that reports 1,850 tokens more than the messages count (a system prompt,
    tools): every commit lands over the target by that much, and an update could not
    shrink it; the prepare point prepares the next summary instead."""
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events)
    await store.add_context_tokens(2_600, 10)
    await settle()
    for message in late_round("after the snapshot"):
        await store.append(message)
    await store.add_context_tokens(3_100, 10)
    committed = events[-1]
    assert committed.outcome == "committed"
    assert committed.tokens_after is not None
    assert committed.tokens_after > int(store.limit * store.settings.target_ratio)
    await settle()
    await asyncio.sleep(0.05)
    assert outcomes(events) == ["prepared", "committed"]
    assert len(summary.requests) == 1


class CancelledOnItsOwn(GatedSummarizer):
    """Its first request, once released, raises CancelledError though nothing cancelled
    it (a library's own timeout); later requests answer."""

    async def _reply(self, request: StubRequest) -> StubResponse:
        if len(self.requests) == 1:
            self.started.set()
            await self.release.wait()
            raise asyncio.CancelledError
        return make_text_response(SUMMARY)


async def test_a_preparation_whose_summarizer_raises_cancelled_error_is_a_failed_one() -> None:
    """It fails like any preparation (reported as such, backed off), and the turn's next
    reads, appends and commit work; the limit was crossed while it ran."""
    summary = CancelledOnItsOwn()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events)
    await store.add_context_tokens(2_600, 10)
    await asyncio.wait_for(summary.started.wait(), 5)
    await asyncio.wait_for(store.add_context_tokens(3_100, 10), 1)  # commit when ready
    summary.release.set()
    await settle()
    failed = [e for e in events if e.phase == "after"]
    assert [e.outcome for e in failed] == ["failed"]
    assert failed[0].error is not None
    assert "CancelledError" in failed[0].error  # not taken for a cancellation of it
    assert len(await store.get_history()) == 30
    await store.append(Message.user("next turn"))
    await store.add_context_tokens(3_150, 10)  # backed off once, as after any failure
    await store.add_context_tokens(3_200, 10)
    assert outcomes(events) == ["failed", "held", "compacted"]
    compacted = await store.get_history()
    validate_history(compacted)
    assert compacted[-1] == Message.user("next turn")


async def test_the_usage_of_a_request_read_before_another_callers_commit_is_not_believed() -> None:
    # Two agents share one store. Both read their requests; B's usage crosses the limit
    # and its own trigger commits a summary; then A reports the usage of its request,
    # read before that commit. Believed, it put the estimate back over the limit: a
    # second summary was paid for at the limit while A waited (bench/stall.py saw a
    # 250 ms wait when the caller was the preparation's own commit).
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    store = make_store(alternating(30), summary, events, prepare_threshold=None)
    await store.get_history()  # A's request
    await store.get_history()  # B's request
    await store.add_context_tokens(3_100, 10)  # B's usage: over the limit
    assert outcomes(events) == ["compacted"]
    await store.add_context_tokens(3_150, 10)  # A's usage, of the history before
    assert outcomes(events) == ["compacted"]
    assert store.compactions == 1
    await store.get_history()
    await store.add_context_tokens(1_000, 10)  # a request read after it is believed
    assert outcomes(events) == ["compacted"]


async def test_a_verdict_given_while_another_caller_committed_is_not_acted_on() -> None:
    # A's usage is over the limit; its should_compact hook takes a while to answer.
    # Meanwhile B's trigger commits a summary. A's verdict is about a history that is
    # gone: acted on, it paid for a second summary at the limit.
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    slow = asyncio.Event()
    asked: list[int] = []

    async def hook(check: TriggerCheck) -> bool | None:
        asked.append(check.tokens)
        if len(asked) == 1:
            await slow.wait()  # A's first answer comes late
        return None  # the rule decides

    store = make_store(
        alternating(30), summary, events, prepare_threshold=None, should_compact=hook
    )
    await store.get_history()
    a = asyncio.ensure_future(store.add_context_tokens(3_100, 10))  # A, over the limit
    await until(lambda: len(asked) == 1)
    await store.compact(force=True)  # B commits a summary meanwhile
    assert store.compactions == 1
    slow.set()
    await asyncio.wait_for(a, 5)
    assert store.compactions == 1
    assert asked == [3_100]  # the next report decides, with the size after the commit


async def test_a_hook_that_compacts_the_store_itself_is_asked_once_a_report() -> None:
    # Every answer lands a commit, so the size it was asked about is always gone: asked
    # again with the live size each time, it compacted for ever.
    summary = GatedSummarizer()
    summary.release.set()
    events: list[CompactionEvent] = []
    asked: list[int] = []
    store: AutoCompactStore

    async def hook(check: TriggerCheck) -> bool | None:
        asked.append(check.tokens)
        for _ in range(4):
            await store.append(Message.user("more " * 60))
            await store.append(Message.assistant("noted " * 60))
        await store.compact(force=True)
        return False

    store = make_store(
        alternating(30), summary, events, prepare_threshold=None, should_compact=hook
    )
    await store.get_history()
    await asyncio.wait_for(store.add_context_tokens(3_100, 10), 10)
    assert len(asked) == 1
    assert store.compactions == 1

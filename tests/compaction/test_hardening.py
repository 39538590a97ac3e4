"""Issue 13: compaction never hangs, never breaks the turn, and budgets hold.

Each test here failed on the commit before the fix it covers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import pytest

from contextfold import (
    Agent,
    AutoCompactStore,
    CompactionEvent,
    ContextStore,
    MemoryContextStore,
    Message,
    ModelInfo,
    PromptError,
    Usage,
)
from contextfold.compaction import CompactionSettings
from contextfold.testing import FunctionTransport, StubRequest, StubTransport, make_text_response
from contextfold.tokens import count_tokens
from tests.compaction.test_compaction import SUMMARY, WINDOW, alternating, summarizer


class ListStore(ContextStore):
    """A user's store with the default, non-atomic replace_history (clear + append)."""

    def __init__(self, history: list[Message]) -> None:
        self.items = [m.copy() for m in history]
        self.slow_appends = False
        self.half_way = asyncio.Event()  # set once a slow rewrite has written 2 messages

    async def append(self, message: Message) -> None:
        if self.slow_appends:
            await asyncio.sleep(0.001)
        self.items.append(message.copy())
        if self.slow_appends and len(self.items) == 2:
            self.half_way.set()

    async def get_history(self) -> list[Message]:
        return [m.copy() for m in self.items]

    async def clear(self) -> None:
        self.items = []


# --- item 4: a summarizer that never answers ---------------------------------------------------


async def test_a_hung_summarizer_times_out_and_the_turn_completes() -> None:
    hang = asyncio.Event()

    async def never(request: StubRequest) -> Any:
        await hang.wait()
        return make_text_response(SUMMARY)

    transport = StubTransport(
        [make_text_response("paid reply", usage=Usage(3_500, 10))] * 3, model=WINDOW
    )
    events: list[CompactionEvent] = []
    inner = MemoryContextStore(alternating(20))
    store = AutoCompactStore(
        inner,
        transport,
        keep_recent=2,
        summary_transport=FunctionTransport(never, model=WINDOW),
        on_event=events.append,
        settings=CompactionSettings(summary_timeout=0.05),
    )
    before = await inner.get_history()
    assert await Agent("sys", transport).run("go on", store) == "paid reply"
    history = await inner.get_history()
    assert history[: len(before)] == before  # untouched
    assert history[-1].text == "paid reply"
    failed = [e for e in events if e.phase == "after"]
    assert [e.outcome for e in failed] == ["failed"]
    assert failed[0].error is not None
    assert "summary_timeout" in failed[0].error
    # The next (forced) trigger is a fresh attempt, not the stuck one.
    hang.set()
    assert await store.compact(force=True)
    assert SUMMARY in (await inner.get_history())[0].text


def test_summary_timeout_is_checked() -> None:
    for bad in (0, -1, "60", True):
        with pytest.raises(ValueError, match="summary_timeout"):
            AutoCompactStore(
                MemoryContextStore(),
                StubTransport(),
                settings=CompactionSettings(summary_timeout=bad),
            )  # type: ignore[arg-type]


# --- item 5: transports without a readable model -------------------------------------------------


class NoModel:
    """A duck-typed transport: it can complete, but has no ``model``."""

    scripted = True  # its replies are written here, not by a model: no <summary> tags

    def __init__(self) -> None:
        self.calls = 0

    async def complete(
        self, messages: Sequence[Message], tools: Any = (), system: Any = None
    ) -> Any:
        self.calls += 1
        return await summarizer().complete(messages, tools, system)


class BrokenModel(NoModel):
    @property
    def model(self) -> Any:
        raise RuntimeError("model lookup failed")


class PartialModel(NoModel):
    model = type("M", (), {"name": "local"})()


@pytest.mark.parametrize("kind", [NoModel, BrokenModel, PartialModel])
async def test_a_transport_without_a_readable_model_still_compacts(kind: type[NoModel]) -> None:
    summary = kind()
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        summary,  # type: ignore[arg-type]
        keep_recent=2,
    )
    assert store.limit == 96_000  # 0.75 of the 128k fallback
    await store.add_context_tokens(100_000, 10)  # must not raise into the agent's turn
    history = await store.get_history()
    assert SUMMARY in history[0].text
    assert summary.calls == 1


# --- item 6: cancellation during a non-atomic rewrite --------------------------------------------


async def test_cancelling_the_turn_during_a_non_atomic_commit_loses_nothing() -> None:
    inner = ListStore(alternating(30))
    store = AutoCompactStore(
        inner, StubTransport(model=WINDOW), keep_recent=4, summary_transport=summarizer()
    )
    inner.slow_appends = True  # the default replace_history appends one by one
    task = asyncio.ensure_future(store.compact(force=True))
    await inner.half_way.wait()  # the rewrite has cleared the store and written 2 messages
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    while store._core.running is not None and not store._core.running.done():
        await asyncio.wait([store._core.running])  # the commit goes on to its end
    assert_compacted_or_untouched(inner.items, compacted=True)


def test_a_shutdown_in_the_middle_of_a_non_atomic_commit_rolls_it_back() -> None:
    """``asyncio.run`` ending cancels every task, the commit's own included."""
    inner = ListStore(alternating(30))

    async def main() -> None:
        store = AutoCompactStore(
            inner, StubTransport(model=WINDOW), keep_recent=4, summary_transport=summarizer()
        )
        inner.slow_appends = True
        compaction = asyncio.ensure_future(store.compact(force=True))
        await inner.half_way.wait()
        assert not compaction.done()  # asyncio.run cancels it, mid-commit

    asyncio.run(main())
    assert_compacted_or_untouched(inner.items)


def assert_compacted_or_untouched(history: list[Message], *, compacted: bool = False) -> None:
    """``history`` is the old one, or summary + acknowledgement + a whole recent tail."""
    original = alternating(30)
    if history == original and not compacted:
        return
    assert SUMMARY in history[0].text
    tail = history[2:]
    assert tail
    assert tail == original[-len(tail) :]


# --- item 12: a usage of 0 cannot hide a full window ---------------------------------------------


@pytest.mark.parametrize("reported", [0, 50])
async def test_a_usage_report_far_below_what_was_sent_still_triggers(reported: int) -> None:
    transport = StubTransport(model=ModelInfo("m", 8_000, 1_000))
    store = AutoCompactStore(
        MemoryContextStore(), transport, keep_recent=2, summary_transport=summarizer()
    )
    for i in range(40):
        await store.append(Message.user(f"question {i} " + "word " * 60))
        await store.append(Message.assistant(f"answer {i} " + "word " * 60))
        await store.add_context_tokens(reported, 10)  # a custom transport reporting nothing
    assert store.compactions >= 1
    history = await store.get_history()
    assert len(history) < 80


async def test_an_existing_history_is_estimated_when_usage_is_missing() -> None:
    history = [
        m for i in range(40) for m in (Message.user("q " * 200), Message.assistant("a " * 200))
    ]
    store = AutoCompactStore(
        MemoryContextStore(history),
        StubTransport(model=ModelInfo("m", 8_000, 1_000)),
        keep_recent=2,
        summary_transport=summarizer(),
    )
    await store.add_context_tokens(0, 0)
    assert store.compactions == 1


# --- item 13: the smaller ones --------------------------------------------------------------------


async def test_held_back_triggers_leave_an_event_and_a_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refuse(request: StubRequest) -> Any:
        return make_text_response("")  # rejected: empty

    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=FunctionTransport(refuse, model=WINDOW),
        on_event=events.append,
    )
    await store.add_context_tokens(3_900, 1)  # rejected; the next trigger is backed off
    with caplog.at_level(logging.INFO, logger="contextfold.compaction"):
        await store.add_context_tokens(3_950, 1)
    held = [e for e in events if e.phase == "after" and e.outcome == "held"]
    assert len(held) == 1
    assert held[0].error is not None
    assert "backing off" in held[0].error
    assert any("held back" in r.getMessage() for r in caplog.records)


async def test_cache_friendly_keeps_a_custom_system_prompt() -> None:
    seen: list[StubRequest] = []

    def record(request: StubRequest) -> Any:
        seen.append(request)
        return make_text_response(SUMMARY)

    store = AutoCompactStore(
        MemoryContextStore(alternating(20)),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=FunctionTransport(record, model=WINDOW),
        system_prompt="Summarize in PIRATE speak, at most {max_summary_tokens} tokens.",
        settings=CompactionSettings(cache_friendly=True, agent_system="You are a helpful agent."),
    )
    assert await store.compact()
    assert seen
    assert "PIRATE" in seen[0].text


def test_a_prompt_path_that_does_not_exist_is_an_error() -> None:
    with pytest.raises(PromptError, match="does not exist"):
        AutoCompactStore(MemoryContextStore(), StubTransport(), system_prompt="prompts/sumary.md")


def test_unused_prompt_vars_are_an_error() -> None:
    with pytest.raises(PromptError, match="projetc"):
        AutoCompactStore(
            MemoryContextStore(),
            StubTransport(),
            system_prompt="Summarize the work on {project}.",
            settings=CompactionSettings(prompt_vars={"project": "x", "projetc": "typo"}),
        )


class CountingStore(ContextStore):
    """Only the abstract methods plus token storage: the default add_context_tokens."""

    def __init__(self) -> None:
        self.tokens = (0, 0)

    async def append(self, message: Message) -> None: ...

    async def get_history(self) -> list[Message]:
        return []

    async def get_context_tokens(self) -> tuple[int, int]:
        await asyncio.sleep(0)  # a real store awaits its backend here
        return self.tokens

    async def set_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        await asyncio.sleep(0)
        self.tokens = (input_tokens, output_tokens)


async def test_default_add_context_tokens_loses_no_update_under_concurrency() -> None:
    store = CountingStore()
    await asyncio.gather(*(store.add_context_tokens(10, 1) for _ in range(50)))
    assert await store.get_context_tokens() == (500, 50)


# --- item 11: system messages stay bounded --------------------------------------------------------


async def test_a_system_note_every_turn_never_overflows_the_window() -> None:
    """500 turns, each with a fresh system note: the live history stays in the window."""
    window = ModelInfo("m", 6_000, 1_000)
    agent_model = FunctionTransport(
        lambda r: make_text_response("ok, noted"), model=window, enforce_window=True
    )
    store = AutoCompactStore(
        MemoryContextStore([Message.system("You are the build agent. Never push to main.")]),
        agent_model,
        keep_recent=4,
        summary_transport=FunctionTransport(lambda r: make_text_response(SUMMARY), model=window),
    )
    agent = Agent(None, agent_model)
    live_systems: list[int] = []
    for turn in range(500):
        await store.append(Message.system(f"note {turn}: CI run {turn} finished, 3 warnings"))
        # enforce_window: a request over the window would raise here
        assert await agent.run(f"turn {turn}: what next?", store) == "ok, noted"
        history = await store.get_history()
        live_systems.append(sum(m.role == "system" for m in history))
        assert history[0].text == "You are the build agent. Never push to main."  # verbatim
    assert store.compactions >= 3
    # Bounded, not growing with the session: right after every compaction only the
    # instructions and the newest notes that fit their budget are left.
    after_compaction = [b for a, b in pairwise(live_systems) if b < a]
    assert 3 <= len(after_compaction) <= store.compactions
    assert max(after_compaction) <= 40
    assert max(live_systems) < 200  # an unbounded history reaches 500


async def test_repeated_system_notes_are_kept_once() -> None:
    note = Message.system("reminder: run the linter")
    history = [Message.system("instructions")]
    for i in range(12):
        history += [note, Message.user(f"q{i}"), Message.assistant(f"a{i}")]
    store = AutoCompactStore(
        MemoryContextStore(history),
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=summarizer(),
    )
    assert await store.compact()
    compacted = await store.get_history()
    assert [m.text for m in compacted if m.role == "system"] == ["instructions", note.text]


# --- item 10: budgets hold for every language ----------------------------------------------------

CJK = "这是一个关于上下文压缩的测试句子，我们需要确保摘要请求不会超过窗口。"
TEXTS = {
    "zh": CJK * 12,
    "ja": "これは日本語のテキストです。圧縮のテストをしています。" * 12,
    "code": "def f(x):\n    return [i * x for i in range(10) if i % 3]\n" * 10,
    "json": '{"id": 17, "tags": ["a", "b"], "ok": true, "v": 3.25}' * 10,
    "en": "The build failed because the migration ran twice on the replica. " * 8,
}


@pytest.mark.parametrize(
    ("kind", "counted_by"),
    [(kind, "tiktoken") for kind in sorted(TEXTS)]
    # The default heuristic is pessimistic for prose and CJK (a wide character is a
    # token); it undercounts dense JSON and code, where TiktokenCounter is the answer.
    + [("zh", "heuristic"), ("ja", "heuristic"), ("en", "heuristic")],
)
async def test_the_summarizer_request_fits_its_window_in_every_language(
    kind: str, counted_by: str
) -> None:
    """The summarizer's window is enforced with an exact tiktoken count."""
    from contextfold.tokens import TiktokenCounter, approx_token_counter

    exact = TiktokenCounter()
    window = ModelInfo("small", 7_000, 1_000)
    summary_model = FunctionTransport(
        lambda r: make_text_response(SUMMARY), model=window, counter=exact, enforce_window=True
    )
    history = [
        m
        for i in range(40)
        for m in (Message.user(f"{i}: {TEXTS[kind]}"), Message.assistant(f"{i}: {TEXTS[kind]}"))
    ]
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        MemoryContextStore(history),
        StubTransport(model=ModelInfo("agent", 200_000, 8_000)),
        keep_recent=2,
        summary_transport=summary_model,
        on_event=events.append,
        settings=CompactionSettings(
            counter=exact if counted_by == "tiktoken" else approx_token_counter
        ),
    )
    assert await store.compact(force=True), [e.error for e in events if e.error]
    assert summary_model.requests
    assert all(r.input_tokens <= window.input_budget for r in summary_model.requests)


async def test_a_transport_that_leaves_cache_reads_out_still_compacts() -> None:
    """Each report is only the uncached part (about the last turn): never the real size."""
    store = AutoCompactStore(
        MemoryContextStore(),
        StubTransport(model=ModelInfo("m", 8_000, 1_000)),
        keep_recent=2,
        summary_transport=summarizer(),
    )
    previous = 0
    for _ in range(100):
        await store.append(Message.user("w " * 100))
        await store.append(Message.assistant("w " * 100))
        real = count_tokens(await store.get_history())
        await store.add_context_tokens(real - previous, 10)  # the uncached delta only
        previous = real
        assert real <= 8_000 - 1_000  # every request still fits the window
    assert store.compactions >= 1

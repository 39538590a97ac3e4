"""Strategies: LLM-free ways to bound a transcript, and their invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold.blocks import ImageBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.strategies import (
    ContextStrategy,
    FitContextWindow,
    Pipeline,
    TrimRounds,
    TruncateToolOutputs,
)
from contextfold.tokens import count_tokens
from contextfold.validation import validate_history
from tests._histories import PNG, histories


def call(*ids: str) -> Message:
    return Message("assistant", [ToolUseBlock(i, "run", {"cmd": i}) for i in ids])


def results(*ids: str, text: str = "ok") -> Message:
    return Message("user", [ToolResultBlock(i, f"{text} {i}") for i in ids])


SYS = Message.system("You are a coding agent.")
TASK = Message.user("Fix the failing test.")


def loop(rounds: int, *, output: str = "ok") -> list[Message]:
    """System, task, then ``rounds`` rounds of two parallel tool calls, then an answer."""
    history = [SYS, TASK]
    for r in range(rounds):
        history += [call(f"{r}a", f"{r}b"), results(f"{r}b", f"{r}a", text=output)]
    history.append(Message.assistant("All green."))
    return history


def systems(history: list[Message]) -> list[Message]:
    return [m for m in history if m.role == "system"]


def is_subsequence(part: list[Message], whole: list[Message]) -> bool:
    it = iter(whole)
    return all(any(m is w for w in it) for m in part)


# TrimRounds -------------------------------------------------------------------------------


async def test_trim_rounds_keeps_system_task_and_last_rounds() -> None:
    history = loop(5)
    trimmed = await TrimRounds(2).compact(history)
    assert trimmed == [SYS, TASK, *history[-3:]]
    validate_history(trimmed)
    assert history == loop(5)  # the input is untouched


async def test_trim_rounds_returns_the_same_list_when_short_enough() -> None:
    history = loop(2)
    assert await TrimRounds(3).compact(history) is history
    assert await TrimRounds(3)(history) is history  # strategies are async callables


async def test_trim_rounds_keeps_a_mid_transcript_system_message() -> None:
    note = Message.system("The user prefers pytest.")
    history = [*loop(3)[:4], note, *loop(3)[4:]]
    trimmed = await TrimRounds(1).compact(history)
    assert trimmed == [SYS, TASK, note, history[-1]]


async def test_trim_rounds_keeps_the_follow_up_prompt_with_its_reply() -> None:
    follow_up = Message.user("Now run the linter.")
    history = [*loop(2), follow_up, call("z"), results("z"), Message.assistant("Clean.")]
    assert await TrimRounds(2).compact(history) == [SYS, TASK, *history[-4:]]


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3", True, None])
def test_trim_rounds_rejects_bad_arguments(bad: object) -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        TrimRounds(bad)  # type: ignore[arg-type]


# TruncateToolOutputs -----------------------------------------------------------------------


async def test_truncate_keeps_head_and_tail() -> None:
    output = "collected 120 items\n" + "." * 5_000 + "\nFAILED test_x.py::test_y - KeyError"
    history = [TASK, call("a"), Message("user", [ToolResultBlock("a", output, is_error=True)])]
    cut = await TruncateToolOutputs(100).compact(history)
    result = cut[2].content[0]
    assert isinstance(result, ToolResultBlock)
    assert isinstance(result.content, str)
    assert len(result.content) == 100
    assert result.content.startswith("collected 120 items")
    assert result.content.endswith("KeyError")
    assert "...[truncated]" in result.content
    assert result.is_error
    assert result.tool_use_id == "a"
    assert cut[0] is history[0]
    assert cut[1] is history[1]
    assert await TruncateToolOutputs(100).compact(cut) is cut  # idempotent


async def test_truncate_block_content_keeps_images_and_total_budget() -> None:
    parts: list[TextBlock | ImageBlock] = [
        TextBlock("HEAD" + "a" * 50),
        ImageBlock("image/png", PNG),
        TextBlock("b" * 50),
        TextBlock("c" * 50 + "TAIL"),
    ]
    history = [TASK, call("a"), Message("user", [ToolResultBlock("a", parts)])]
    cut = await TruncateToolOutputs(40, marker="<cut>").compact(history)
    result = cut[2].content[0]
    assert isinstance(result, ToolResultBlock)
    assert isinstance(result.content, list)
    texts = [p.text for p in result.content if isinstance(p, TextBlock)]
    assert sum(map(len, texts)) == 40
    joined = "".join(texts)
    assert joined.startswith("HEAD")
    assert joined.endswith("TAIL")
    assert joined.count("<cut>") == 1
    assert ImageBlock("image/png", PNG) in result.content


async def test_truncate_leaves_short_outputs_and_other_messages_alone() -> None:
    history = [TASK, Message.assistant("x" * 1_000)]
    assert await TruncateToolOutputs(50).compact(history) is history


@pytest.mark.parametrize(
    ("max_chars", "marker"), [(0, "..."), (-5, "..."), (3, "..."), (10, 5), (2.5, "")]
)
def test_truncate_rejects_bad_arguments(max_chars: object, marker: object) -> None:
    with pytest.raises(ValueError, match=r"max_chars|marker"):
        TruncateToolOutputs(max_chars, marker=marker)  # type: ignore[arg-type]


# FitContextWindow --------------------------------------------------------------------------


async def test_fit_keeps_as_many_recent_rounds_as_fit() -> None:
    history = loop(10, output="x" * 400)
    fit = FitContextWindow(800)
    kept = await fit.compact(history)
    validate_history(kept)
    assert kept[:2] == [SYS, TASK]
    assert count_tokens(kept) <= 800
    start = len(history) - (len(kept) - 2)
    assert kept[2:] == history[start:]
    assert start > 2  # something was dropped
    one_more = [SYS, TASK, *history[start - 2 :]]
    assert count_tokens(one_more) > 800  # maximal: the next older round would not fit


async def test_fit_returns_same_list_when_everything_fits() -> None:
    history = loop(3)
    assert await FitContextWindow(100_000).compact(history) is history


async def test_fit_always_keeps_the_latest_round() -> None:
    huge = [TASK, call("a"), results("a", text="y" * 10_000)]
    kept = await FitContextWindow(50).compact(huge)
    assert kept is huge
    two = [TASK, call("a"), results("a"), call("b"), results("b", text="y" * 10_000)]
    assert await FitContextWindow(50).compact(two) == [TASK, *two[-2:]]


async def test_fit_honours_reserve_and_custom_counter() -> None:
    history = loop(6)
    per_message = FitContextWindow(1_000, lambda text: 1, per_message_overhead=0)
    assert await per_message.compact(history) is history
    reserved = FitContextWindow(1_000, lambda text: 10, per_message_overhead=0, reserve_tokens=900)
    assert reserved.budget == 100
    kept = await reserved.compact(history)
    assert len(kept) < len(history)
    assert count_tokens(kept, lambda text: 10, per_message_overhead=0) <= 100
    assert kept[-1] is history[-1]


async def test_fit_counts_each_message_once_across_calls() -> None:
    calls: list[str] = []

    def counter(text: str) -> int:
        calls.append(text)
        return len(text)

    fit = FitContextWindow(10_000_000, counter)
    history = loop(50)
    await fit.compact(history)
    first = len(calls)
    history = [*history, Message.user("and the docs?"), Message.assistant("Done.")]
    await fit.compact(history)
    assert len(calls) - first == 2  # only the two new messages were counted


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_tokens": 0},
        {"max_tokens": 100, "reserve_tokens": 100},
        {"max_tokens": 100, "reserve_tokens": -1},
        {"max_tokens": 100, "per_message_overhead": -1},
        {"max_tokens": 100, "tokens_per_media": -3},
        {"max_tokens": 100, "counter": "tiktoken"},
    ],
)
def test_fit_rejects_bad_arguments(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must"):
        FitContextWindow(**kwargs)  # type: ignore[arg-type]


# Pipeline and custom strategies ------------------------------------------------------------


async def test_pipeline_composes_strategies_and_plain_callables() -> None:
    seen: list[int] = []

    async def record(messages: list[Message]) -> list[Message]:
        seen.append(len(messages))
        return messages

    history = loop(6, output="z" * 2_000)
    pipeline = Pipeline(TruncateToolOutputs(200), record, TrimRounds(2))
    out = await pipeline.compact(history)
    assert seen == [len(history)]
    assert len(out) == 2 + 2 * 2 - 1
    assert all(
        len(r.content) <= 200 for m in out for r in m.tool_results if isinstance(r.content, str)
    )
    unchanged = loop(1)
    assert (
        await Pipeline(TrimRounds(5), TruncateToolOutputs(1_000), record).compact(unchanged)
        is unchanged
    )
    assert await Pipeline().compact(unchanged) is unchanged


async def test_pipeline_rejects_bad_steps() -> None:
    with pytest.raises(ValueError, match="pipeline step"):
        Pipeline(TrimRounds(1), 42)  # type: ignore[arg-type]

    async def broken(messages: list[Message]) -> list[Message]:
        return tuple(messages)  # type: ignore[return-value]

    with pytest.raises(TypeError, match="expected a list"):
        await Pipeline(broken).compact(loop(1))


async def test_a_user_strategy_subclass_plugs_into_a_pipeline() -> None:
    class DropThinking(ContextStrategy):
        async def compact(self, messages: list[Message]) -> list[Message]:
            if not any(m.has_thinking for m in messages):
                return messages
            return [
                Message(m.role, [b for b in m.content if not isinstance(b, ThinkingBlock)])
                if m.has_thinking
                else m
                for m in messages
            ]

    answer = Message("assistant", [ThinkingBlock("hmm", "sig"), TextBlock("Done.")])
    history = [*loop(3)[:-1], answer]
    out = await Pipeline(DropThinking(), TrimRounds(1)).compact(history)
    assert out == [SYS, TASK, Message.assistant("Done.")]
    validate_history(out)


# Properties over arbitrary valid histories -------------------------------------------------


def check_invariants(history: list[Message], out: list[Message], snapshot: list[Message]) -> None:
    validate_history(out, allow_pending=True)
    assert history == snapshot  # the input was not modified
    assert systems(out) == systems(history)
    first = next(m for m in history if m.role != "system")
    assert next(m for m in out if m.role != "system") is first


@settings(max_examples=200, deadline=None)
@given(histories(), st.integers(1, 6))
async def test_trim_rounds_properties(history: list[Message], n: int) -> None:
    snapshot = [m.copy() for m in history]
    out = await TrimRounds(n).compact(history)
    check_invariants(history, out, snapshot)
    assert is_subsequence(out, history)
    assert history[-1] is out[-1]


@settings(max_examples=200, deadline=None)
@given(histories(), st.integers(15, 300))
async def test_truncate_properties(history: list[Message], max_chars: int) -> None:
    snapshot = [m.copy() for m in history]
    strategy = TruncateToolOutputs(max_chars)
    out = await strategy.compact(history)
    check_invariants(history, out, snapshot)
    assert len(out) == len(history)
    assert [m.role for m in out] == [m.role for m in history]
    for before, after in zip(history, out, strict=True):
        if not before.tool_results:
            assert after is before
        assert len(after.content) == len(before.content)
        ids = [r.tool_use_id for r in after.tool_results]
        assert ids == [r.tool_use_id for r in before.tool_results]
        for result in after.tool_results:
            content = result.content
            size = (
                len(content)
                if isinstance(content, str)
                else sum(len(p.text) for p in content if isinstance(p, TextBlock))
            )
            assert size <= max_chars
    assert await strategy.compact(out) is out


@settings(max_examples=200, deadline=None)
@given(histories(), st.integers(1, 400))
async def test_fit_context_window_properties(history: list[Message], budget: int) -> None:
    snapshot = [m.copy() for m in history]
    out = await FitContextWindow(budget, tokens_per_media=30).compact(history)
    check_invariants(history, out, snapshot)
    assert is_subsequence([m for m in out if m.role != "system"], history)
    assert history[-1] is out[-1] or out[-1].role == "system"
    if out is not history:
        assert len(out) < len(history)


@settings(max_examples=150, deadline=None)
@given(histories())
async def test_full_pipeline_properties(history: list[Message]) -> None:
    snapshot = [m.copy() for m in history]
    pipeline = Pipeline(TruncateToolOutputs(40), FitContextWindow(120), TrimRounds(3))
    out = await pipeline.compact(history)
    check_invariants(history, out, snapshot)

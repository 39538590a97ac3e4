"""The history validator: one accepted and one rejected history for every rule."""

from __future__ import annotations

import pytest
from hypothesis import given

from contextfold import (
    HistoryValidationError,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.validation import history_problems, validate_history
from tests.strategies_hyp import histories

IMAGE = ImageBlock("image/png", b"\x89PNG")


def call(*ids: str, text: str | None = None) -> Message:
    head = [TextBlock(text)] if text else []
    return Message("assistant", [*head, *(ToolUseBlock(i, "grep", {"q": i}) for i in ids)])


def results(*ids: str) -> Message:
    return Message("user", [ToolResultBlock(i, f"result {i}") for i in ids])


def assert_valid(history: list[Message], **kwargs: object) -> None:
    assert history_problems(history, **kwargs) == []  # type: ignore[arg-type]
    validate_history(history, **kwargs)  # type: ignore[arg-type]


def assert_invalid(history: list[Message], problem: str, **kwargs: object) -> None:
    problems = history_problems(history, **kwargs)  # type: ignore[arg-type]
    assert any(problem in p for p in problems), problems
    with pytest.raises(HistoryValidationError) as info:
        validate_history(history, **kwargs)  # type: ignore[arg-type]
    assert info.value.problems == problems
    assert problem in str(info.value)


def test_empty_history_is_valid() -> None:
    assert_valid([])


# Rule: the first non-system message is a user message.


def test_history_may_open_with_system_then_user() -> None:
    assert_valid([Message.system("be brief"), Message.user("hi"), Message.assistant("hello")])


def test_history_opening_with_assistant_is_rejected() -> None:
    assert_invalid(
        [Message.system("be brief"), Message.assistant("hello")],
        "message 1: the first non-system message must be a user message",
    )


# Rule: no two assistant messages follow each other (system messages are transparent).


def test_two_user_messages_in_a_row_are_allowed() -> None:
    assert_valid([Message.user("a"), Message.user("b"), Message.assistant("c")])


def test_two_assistant_messages_in_a_row_are_rejected() -> None:
    history = [Message.user("hi"), Message.assistant("a"), Message.assistant("b")]
    assert_invalid(history, "message 2: two assistant messages in a row")


def test_a_system_message_does_not_separate_two_assistant_messages() -> None:
    history = [
        Message.user("hi"),
        Message.assistant("a"),
        Message.system("note"),
        Message.assistant("b"),
    ]
    assert_invalid(history, "message 3: two assistant messages in a row")


# Rule: no message is empty.


def test_empty_message_is_rejected() -> None:
    assert_invalid([Message.user("hi"), Message("assistant", [])], "message 1 (assistant) is empty")


# Rule: which role may hold which block.


def test_each_role_holds_its_own_blocks() -> None:
    assert_valid(
        [
            Message.system("rules"),
            Message("user", [TextBlock("what is this?"), IMAGE]),
            Message("assistant", [ThinkingBlock("hm", "sig"), TextBlock("a cat")]),
        ]
    )


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        (Message("user", [ThinkingBlock("x")]), "user messages cannot hold ThinkingBlock"),
        (Message("user", [ToolUseBlock("t", "x", {})]), "user messages cannot hold ToolUseBlock"),
        (Message("system", [IMAGE]), "system messages cannot hold ImageBlock"),
        (Message("assistant", [IMAGE]), "assistant messages cannot hold ImageBlock"),
    ],
)
def test_a_block_in_the_wrong_role_is_rejected(message: Message, problem: str) -> None:
    history = [Message.user("hi"), message] if message.role == "assistant" else [message]
    assert_invalid(history, problem)


def test_assistant_tool_result_is_rejected() -> None:
    history = [Message.user("hi"), Message("assistant", [ToolResultBlock("t", "x")])]
    assert_invalid(history, "assistant messages cannot hold ToolResultBlock")


# Rule: every tool use is answered in the next non-system message, exactly once.


def test_tool_calls_answered_in_the_next_message_are_valid() -> None:
    assert_valid([Message.user("go"), call("a", "b"), results("b", "a"), Message.assistant("done")])


def test_a_system_message_may_sit_between_a_call_and_its_result() -> None:
    assert_valid([Message.user("go"), call("a"), Message.system("note"), results("a")])


def test_unanswered_tool_call_is_rejected() -> None:
    history = [Message.user("go"), call("a", "b"), results("a"), Message.assistant("done")]
    assert_invalid(history, "message 2: tool call(s) b from message 1 have no result")


def test_tool_call_answered_late_is_rejected() -> None:
    history = [Message.user("go"), call("a"), Message.user("wait"), results("a")]
    problems = history_problems(history)
    assert any("tool call(s) a from message 1 have no result" in p for p in problems)
    assert any("tool result 'a' answers no tool call" in p for p in problems)


def test_tool_result_without_a_call_is_rejected() -> None:
    history = [Message.user("go"), Message.assistant("ok"), results("ghost")]
    assert_invalid(history, "message 2: tool result 'ghost' answers no tool call")


def test_tool_call_answered_twice_is_rejected() -> None:
    history = [Message.user("go"), call("a"), results("a", "a")]
    assert_invalid(history, "message 2: tool call 'a' is answered more than once")


def test_pending_tool_call_at_the_end_needs_allow_pending() -> None:
    history = [Message.user("go"), call("a")]
    assert_invalid(history, "message 1: tool call(s) a are pending at the end")
    assert_valid(history, allow_pending=True)


def test_allow_pending_still_rejects_a_pending_call_in_the_middle() -> None:
    history = [Message.user("go"), call("a"), Message.assistant("hm")]
    assert_invalid(history, "have no result in the next message", allow_pending=True)


def test_pending_call_followed_only_by_system_messages_counts_as_pending() -> None:
    history = [Message.user("go"), call("a"), Message.system("note")]
    assert_invalid(history, "are pending at the end")
    assert_valid(history, allow_pending=True)


# Rule: tool use ids are unique; Anthropic wants tool results before other blocks.


def test_reused_tool_use_id_is_rejected() -> None:
    history = [Message.user("go"), call("a"), results("a"), call("a"), results("a")]
    assert_invalid(history, "message 3: duplicate tool use id 'a'")


def test_results_before_text_are_valid_in_every_dialect() -> None:
    answer = Message("user", [ToolResultBlock("a", "x"), TextBlock("and also")])
    for dialect in ("any", "anthropic", "openai"):
        assert_valid([Message.user("go"), call("a"), answer], dialect=dialect)


def test_text_before_results_is_rejected_for_anthropic_only() -> None:
    answer = Message("user", [TextBlock("first"), ToolResultBlock("a", "x")])
    history = [Message.user("go"), call("a"), answer]
    assert_invalid(history, "message 2: tool results must come before other blocks")
    assert_invalid(history, "tool results must come before", dialect="anthropic")
    assert_valid(history, dialect="openai")


def test_unknown_dialect_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="dialect must be 'any', 'anthropic' or 'openai'"):
        history_problems([], "gemini")  # type: ignore[arg-type]


def test_every_problem_is_reported_at_once() -> None:
    history = [Message.assistant("first"), Message("assistant", []), results("x")]
    assert len(history_problems(history)) >= 3


def test_history_validation_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="two assistant messages"):
        validate_history([Message.user("a"), Message.assistant("b"), Message.assistant("c")])


# Property: every generated history is valid, in every dialect.


@given(histories(max_size=40))
def test_generated_histories_validate(history: list[Message]) -> None:
    for dialect in ("any", "anthropic", "openai"):
        validate_history(history, dialect)


@given(histories(min_size=1, max_size=30, allow_pending=True))
def test_generated_histories_with_pending_calls_validate_with_allow_pending(
    history: list[Message],
) -> None:
    validate_history(history, allow_pending=True)

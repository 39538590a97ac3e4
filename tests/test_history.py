"""History operations (``contextfold._history``): cut points, rounds, truncation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from contextfold._history import is_tool_result_message, safe_cut_points, split_rounds
from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.validation import validate_history
from tests._histories import histories


def call(*ids: str) -> Message:
    return Message("assistant", [ToolUseBlock(i, "run", {}) for i in ids])


def results(*ids: str) -> Message:
    return Message("user", [ToolResultBlock(i, f"out {i}") for i in ids])


SYS = Message.system("be brief")
TASK = Message.user("fix the bug")
LOOP = [
    SYS,  # 0
    TASK,  # 1
    call("a", "b"),  # 2
    results("b", "a"),  # 3
    Message.system("mid"),  # 4
    call("c"),  # 5
    Message.system("between call and result"),  # 6
    results("c"),  # 7
    Message.assistant("done"),  # 8
    Message.user("thanks, now test it"),  # 9
    call("d"),  # 10
    results("d"),  # 11
    Message.assistant("tested"),  # 12
]


def test_safe_cut_points_skip_tool_results() -> None:
    assert safe_cut_points(LOOP) == [0, 1, 2, 4, 5, 8, 9, 10, 12, 13]


def test_safe_cut_points_by_role() -> None:
    assert safe_cut_points(LOOP, starts_with="user") == [0, 1, 9]
    assert safe_cut_points(LOOP, starts_with="assistant") == [2, 4, 5, 8, 10, 12]
    assert safe_cut_points([]) == [0]
    assert safe_cut_points([], starts_with="user") == []


def test_split_rounds_of_a_tool_loop() -> None:
    split = split_rounds(LOOP)
    assert split.head == [SYS, TASK]
    # the system message before a round opens it; the follow-up prompt joins its reply
    assert split.starts == (2, 4, 8, 9, 12)
    assert [len(r) for r in split.rounds] == [2, 4, 1, 3, 1]
    assert len(split) == 5


def test_keep_from_moves_dropped_system_messages_after_the_task() -> None:
    split = split_rounds(LOOP)
    kept = split.keep_from(3)
    assert kept == [SYS, TASK, LOOP[4], LOOP[6], *LOOP[9:]]
    validate_history(kept)
    assert split.keep_from(0) == LOOP
    assert split.keep_from(5) == [SYS, TASK, LOOP[4], LOOP[6]]
    with pytest.raises(ValueError, match="first_round"):
        split.keep_from(6)


def test_split_without_a_task_or_rounds() -> None:
    assert split_rounds([]).starts == ()
    only_task = split_rounds([SYS, TASK])
    assert only_task.head == [SYS, TASK]
    assert only_task.rounds == []
    headless = split_rounds([Message.assistant("hi"), Message.user("yo")])
    assert headless.head_end == 0
    assert headless.starts == (0, 1)


def test_is_tool_result_message() -> None:
    assert is_tool_result_message(results("x"))
    assert not is_tool_result_message(Message("user", [TextBlock("x")]))
    assert not is_tool_result_message(call("x"))


@settings(max_examples=300, deadline=None)
@given(histories())
def test_cut_points_are_exactly_the_cuts_that_orphan_nothing(history: list[Message]) -> None:
    points = set(safe_cut_points(history))
    for i in range(len(history) + 1):
        tail = history[i:]
        used = {u.id for m in tail for u in m.tool_uses}
        orphaned = any(r.tool_use_id not in used for m in tail for r in m.tool_results)
        assert (i in points) == (not orphaned), i


@settings(max_examples=300, deadline=None)
@given(histories())
def test_rounds_cover_the_history_and_every_suffix_is_valid(history: list[Message]) -> None:
    split = split_rounds(history)
    assert [*split.head, *(m for r in split.rounds for m in r)] == history
    assert all(any(m.role != "system" for m in r) for r in split.rounds)
    points = set(safe_cut_points(history))
    assert set(split.starts) <= points
    for k in range(len(split) + 1):
        kept = split.keep_from(k)
        validate_history(kept, allow_pending=True)
        assert [m for m in kept if m.role == "system"] == [m for m in history if m.role == "system"]

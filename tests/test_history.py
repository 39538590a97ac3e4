"""History operations (``contextfold._history``): cut points, rounds, truncation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from contextfold._history import (
    image_placeholder,
    is_tool_result_message,
    omit_tool_images,
    safe_cut_points,
    split_rounds,
)
from contextfold.blocks import ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.tokens import count_tokens
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


# --- images left out of tool results ----------------------------------------------------


def shot(i: int, size: int = 2_048) -> ImageBlock:
    return ImageBlock("image/png", bytes([i]) * size)


def image_rounds() -> list[Message]:
    """Two tool rounds of 3 images each, and a user photo that is not a tool output."""
    return [
        Message("user", [TextBlock("look"), shot(99)]),
        call("a"),
        Message("user", [ToolResultBlock("a", [TextBlock("page 0"), shot(0), shot(1), shot(2)])]),
        call("b"),
        Message("user", [ToolResultBlock("b", [shot(3), TextBlock("page 1"), shot(4), shot(5)])]),
    ]


def images_of(messages: list[Message]) -> list[ImageBlock]:
    return [
        part
        for message in messages
        for block in message.tool_results
        if isinstance(block.content, list)
        for part in block.content
        if isinstance(part, ImageBlock)
    ]


def test_image_placeholder_names_the_type_and_size() -> None:
    assert image_placeholder(shot(0, 40_960)) == TextBlock(
        "[image/png, 40 KB, omitted to fit the context window]"
    )
    assert image_placeholder(shot(0, 10)).text.startswith("[image/png, 1 KB,")


def test_omit_tool_images_leaves_out_the_fewest_oldest_images_that_make_it_fit() -> None:
    history = image_rounds()
    full = count_tokens(history)
    for omitted in range(7):
        goal = full - omitted * 550  # each image is 600 tokens, a placeholder ~15
        view = omit_tool_images(history, lambda v, goal=goal: count_tokens(v) <= goal)
        assert images_of(view) == images_of(history)[omitted:]  # the newest stay
        if omitted == 0:
            assert view is history
        validate_history(view)
        assert [m.role for m in view] == [m.role for m in history]
        assert [b.tool_use_id for m in view for b in m.tool_results] == ["a", "b"]
        assert view[0] == history[0]  # the user's own photo is not a tool output
    assert len(images_of(image_rounds())) == 6  # the input is not modified


def test_omit_tool_images_puts_placeholders_where_the_images_were() -> None:
    history = image_rounds()
    view = omit_tool_images(history, lambda v: len(images_of(v)) <= 2)
    assert view[2].tool_results[0].content == [
        TextBlock("page 0"),
        image_placeholder(shot(0)),
        image_placeholder(shot(1)),
        image_placeholder(shot(2)),
    ]
    assert view[4].tool_results[0].content == [
        image_placeholder(shot(3)),
        TextBlock("page 1"),
        shot(4),
        shot(5),
    ]
    assert view[:2] == history[:2]
    assert view[3] is history[3]
    nothing_fits = omit_tool_images(history, lambda v: False)
    assert images_of(nothing_fits) == []  # every tool image, and no more, left out
    assert nothing_fits[0] == history[0]

"""Messages: construction rules, helpers, and exact dict round-trips."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.messages import check_message
from contextfold.stores._rows import decode_message, encode_message
from tests.strategies_hyp import histories, messages


def test_shortcuts_build_one_text_block() -> None:
    assert Message.user("hi") == Message("user", [TextBlock("hi")])
    assert Message.assistant("yo") == Message("assistant", [TextBlock("yo")])
    assert Message.system("be brief") == Message("system", [TextBlock("be brief")])
    assert Message("user").content == []


def test_text_joins_text_blocks_only() -> None:
    message = Message(
        "assistant",
        [
            ThinkingBlock("secret plan"),
            TextBlock("first"),
            ToolUseBlock("t1", "grep", {"q": "x"}),
            TextBlock("second"),
        ],
    )
    assert message.text == "first\nsecond"
    assert message.tool_uses == [ToolUseBlock("t1", "grep", {"q": "x"})]
    assert message.has_thinking
    assert not Message.user("x").has_thinking


def test_tool_results_lists_results_in_order() -> None:
    message = Message("user", [ToolResultBlock("b", "2"), ToolResultBlock("a", "1")])
    assert [r.tool_use_id for r in message.tool_results] == ["b", "a"]


def test_copy_has_its_own_content_list() -> None:
    original = Message.user("hi")
    duplicate = original.copy()
    duplicate.content.append(TextBlock("more"))
    assert original == Message.user("hi")


def test_to_dict_shape() -> None:
    message = Message("user", [TextBlock("look"), ImageBlock("image/gif", b"GIF89a")])
    assert message.to_dict() == {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "media_type": "image/gif", "data": "R0lGODlh"},
        ],
    }


@given(messages())
def test_any_message_round_trips_exactly(message: Message) -> None:
    assert Message.from_dict(message.to_dict()) == message


@given(histories(max_size=25))
def test_histories_round_trip_through_json(history: list[Message]) -> None:
    wire = json.dumps([m.to_dict() for m in history])
    assert [Message.from_dict(d) for d in json.loads(wire)] == history


def test_missing_content_means_empty() -> None:
    assert Message.from_dict({"role": "assistant"}) == Message("assistant", [])


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("user: hi", "message must be a dict, got str"),
        ([{"role": "user"}], "message must be a dict, got list"),
        ({"content": []}, "message is missing field 'role'"),
        ({"role": "tool", "content": []}, "must be one of user, assistant, system; got 'tool'"),
        ({"role": "USER", "content": []}, "got 'USER'"),
        ({"role": ["user"], "content": []}, "got ['user']"),
        ({"role": 1, "content": []}, "got 1"),
        ({"role": "user", "content": "hi"}, "field 'content' must be a list of blocks, got str"),
        ({"role": "user", "content": {"type": "text"}}, "must be a list of blocks, got dict"),
        ({"role": "user", "content": [{"type": "text", "text": 1}]}, "field 'text' must be str"),
        ({"role": "user", "content": [{"type": "audio"}]}, "unknown content block type 'audio'"),
    ],
)
def test_malformed_message_dict_raises_value_error(bad: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        Message.from_dict(bad)


def test_constructor_rejects_a_bad_role() -> None:
    with pytest.raises(ValueError, match="got 'robot'"):
        Message("robot", [])  # type: ignore[arg-type]


def test_constructor_rejects_content_that_is_not_a_list_of_blocks() -> None:
    with pytest.raises(TypeError, match="must be a list of content blocks, got str"):
        Message("user", "hello")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="non-block: 'hello'"):
        Message("user", ["hello"])  # type: ignore[list-item]


# --- check_message: what the stores refuse --------------------------------------------

_JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=5)
    | st.binary(max_size=3)
    | st.builds(object)
    | st.frozensets(st.integers(), max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)
        | st.tuples(inner, inner)
        | st.sets(st.integers(), max_size=2)
    ),
    max_leaves=8,
)


def _raw(cls: type, **fields: Any) -> Any:
    """An instance of ``cls`` with exactly ``fields``, bypassing its constructor."""
    block = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(block, name, value)
    return block


def _either(right: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return right | _JSONISH


_TEXTS = st.text(max_size=8)
_PARTS = st.builds(_raw, st.just(TextBlock), text=_either(_TEXTS)) | st.builds(
    _raw,
    st.just(ImageBlock),
    media_type=st.sampled_from(["image/png", "image/bmp"]) | _JSONISH,
    data=_either(st.binary(max_size=4)),
)
_ANY_BLOCK = st.one_of(
    _PARTS,
    st.builds(
        _raw,
        st.just(ToolUseBlock),
        id=_either(_TEXTS),
        name=_either(_TEXTS),
        input=st.dictionaries(_TEXTS, _JSONISH, max_size=3) | _JSONISH,
    ),
    st.builds(
        _raw,
        st.just(ToolResultBlock),
        tool_use_id=_either(_TEXTS),
        content=_TEXTS | st.lists(_PARTS | _JSONISH, max_size=3) | _JSONISH,
        is_error=_either(st.booleans()),
    ),
    st.builds(
        _raw,
        st.just(ThinkingBlock),
        thinking=_either(_TEXTS),
        signature=_either(_TEXTS),
        redacted=_either(st.booleans()),
    ),
    _JSONISH,
)
_ANY_MESSAGE = st.builds(
    _raw,
    st.just(Message),
    role=st.sampled_from(["user", "assistant", "system", "tool"]) | _JSONISH,
    content=st.lists(_ANY_BLOCK, max_size=3) | _JSONISH,
)


@given(_ANY_MESSAGE)
def test_a_message_check_message_accepts_reads_back_equal_from_a_store_row(
    message: Message,
) -> None:
    try:
        check_message(message)
    except ValueError as exc:
        refused: str | None = str(exc)
    else:
        refused = None
    if refused is not None:
        assert refused.startswith("cannot store this message")
        return
    role, content, _ = encode_message(message)
    assert decode_message("s", 1, role, content) == message
    assert Message.from_dict(json.loads(json.dumps(message.to_dict()))) == message


@given(messages())
def test_check_message_accepts_every_well_formed_message(message: Message) -> None:
    check_message(message)

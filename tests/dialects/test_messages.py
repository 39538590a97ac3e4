"""contextfold.dialects.messages: whole histories to and from Anthropic Messages."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from contextfold.blocks import (
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.dialects._common import split_system
from contextfold.dialects.messages import from_anthropic, to_anthropic
from contextfold.messages import Message
from tests.dialects._strategies import histories

PNG = ImageBlock("image/png", b"\x89PNG\r\n")

# ------------------------------------------------------------------ examples


def test_anthropic_request_shape() -> None:
    history = [
        Message.system("lead"),
        Message("user", [TextBlock("look"), PNG]),
        Message(
            "assistant",
            [
                ThinkingBlock("hmm", "sig"),
                ThinkingBlock("opaque", redacted=True),
                ToolUseBlock("t1", "f", {"a": 1}),
            ],
        ),
        Message.system("between call and result"),
        Message("user", [ToolResultBlock("t1", [TextBlock("bad"), PNG], is_error=True)]),
    ]
    system, wire = to_anthropic(history, system="top")
    assert system == "top\n\nlead"
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
    }
    assert wire == [
        {"role": "user", "content": [{"type": "text", "text": "look"}, image]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "is_error": True,
                    "content": [{"type": "text", "text": "bad"}, image],
                },
                {"type": "text", "text": "<system>\nbetween call and result\n</system>"},
            ],
        },
    ]
    assert from_anthropic(wire, system="lead") == history


def test_anthropic_system_blocks_and_string_content() -> None:
    parsed = from_anthropic(
        [{"role": "user", "content": "hi"}],
        system=[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    )
    assert parsed == [Message.system("a\n\nb"), Message.user("hi")]


@pytest.mark.parametrize(
    ("wire", "problem"),
    [
        ({"content": "x"}, "missing field 'role'"),
        ({"role": "user", "content": [{"type": 7}]}, "'type' must be a string"),
        ({"role": "user", "content": [{"text": "x"}]}, "missing field 'type'"),
        ({"role": "user", "content": [{"type": "image", "source": "x"}]}, "'source'"),
        ({"role": "user", "content": [{"type": "tool_result", "content": "x"}]}, "tool_use_id"),
        (
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "i", "name": "n", "input": []}],
            },
            "object",
        ),
        ({"role": "user", "content": 3}, "'content' must be"),
        ({"role": ["user"], "content": "x"}, "'role' must be a string"),
        ({"role": {"role": "user"}, "content": "x"}, "'role' must be a string"),
        (
            {
                "role": "assistant",
                "content": [{"type": "thinking", "thinking": "t", "signature": 5}],
            },
            "'signature' must be a string",
        ),
    ],
)
def test_malformed_anthropic_messages_are_value_errors(wire: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        from_anthropic([wire])


def test_split_system() -> None:
    history = [Message.system("a"), Message.system("b"), Message.user("u"), Message.system("c")]
    assert split_system(history) == ("a\n\nb", history[2:])
    assert split_system(history[2:]) == (None, history[2:])


# --------------------------------------------------------- round-trip properties


@settings(max_examples=100, deadline=None)
@given(histories(anthropic=True))
def test_anthropic_round_trip(history: list[Message]) -> None:
    system, wire = to_anthropic(history)
    assert from_anthropic(wire, system) == history


def test_a_bad_anthropic_image_names_its_message_once() -> None:
    bad = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/tiff", "data": "AA=="},
    }
    with pytest.raises(ValueError, match="image/tiff") as info:
        from_anthropic([{"role": "user", "content": [bad]}])
    assert str(info.value).count("message 0") == 1

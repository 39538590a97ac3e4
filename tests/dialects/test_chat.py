"""contextfold.dialects.chat: whole histories to and from OpenAI chat messages."""

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
from contextfold.dialects.chat import from_openai, to_openai
from contextfold.messages import Message
from contextfold.validation import history_problems
from tests.dialects._strategies import histories

PNG = ImageBlock("image/png", b"\x89PNG\r\n")
PNG_URL = "data:image/png;base64,iVBORw0K"

# ------------------------------------------------------------------ examples


def test_real_openai_client_payload_is_understood() -> None:
    wire: list[dict[str, Any]] = [
        {"role": "developer", "content": "Be terse."},
        {
            "role": "user",
            "name": "alice",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": PNG_URL, "detail": "low"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "look", "arguments": '{"q": 1}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "ping", "arguments": ""}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a picture"},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: timeout"},
        {"role": "assistant", "content": "A picture."},
    ]
    assert from_openai(wire) == [
        Message.system("Be terse."),
        Message("user", [TextBlock("What is this?"), PNG]),
        Message(
            "assistant", [ToolUseBlock("c1", "look", {"q": 1}), ToolUseBlock("c2", "ping", {})]
        ),
        Message(
            "user",
            [
                ToolResultBlock("c1", "a picture"),
                ToolResultBlock("c2", "Error: timeout", is_error=True),
            ],
        ),
        Message.assistant("A picture."),
    ]


def test_openai_error_results_get_the_prefix_once() -> None:
    wire = to_openai(
        [
            Message(
                "user",
                [
                    ToolResultBlock("a", "boom", is_error=True),
                    ToolResultBlock("b", "Error: already marked", is_error=True),
                ],
            )
        ]
    )
    assert [m["content"] for m in wire] == ["Error: boom", "Error: already marked"]


def test_openai_tool_images_follow_and_fold_back() -> None:
    history = [
        Message("assistant", [ToolUseBlock("s1", "screenshot", {})]),
        Message("user", [ToolResultBlock("s1", [TextBlock("here"), PNG])]),
    ]
    wire = to_openai(history)
    assert wire[1:] == [
        {"role": "tool", "tool_call_id": "s1", "content": [{"type": "text", "text": "here"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "[images returned by tool call s1]"},
                {"type": "image_url", "image_url": {"url": PNG_URL}},
            ],
        },
    ]
    assert from_openai(wire) == history


def test_openai_image_only_results_never_send_empty_content() -> None:
    history = [
        Message("assistant", [ToolUseBlock("s1", "shot", {}), ToolUseBlock("s2", "shot", {})]),
        Message(
            "user",
            [ToolResultBlock("s1", [PNG]), ToolResultBlock("s2", [PNG, PNG], is_error=True)],
        ),
    ]
    wire = to_openai(history)
    assert wire[1:3] == [
        {
            "role": "tool",
            "tool_call_id": "s1",
            "content": [{"type": "text", "text": "[the tool returned only images; they follow]"}],
        },
        {
            "role": "tool",
            "tool_call_id": "s2",
            "content": [
                {"type": "text", "text": "Error: [the tool returned only images; they follow]"}
            ],
        },
    ]
    images = ["text", "image_url", "text", "image_url", "image_url"]
    assert [p["type"] for p in wire[3]["content"]] == images
    assert from_openai(wire) == history  # no "Error: " block added, is_error kept


def test_openai_empty_result_list_is_an_empty_string() -> None:
    history = [
        Message("assistant", [ToolUseBlock("c1", "noop", {}), ToolUseBlock("c2", "noop", {})]),
        Message("user", [ToolResultBlock("c1", []), ToolResultBlock("c2", [], is_error=True)]),
    ]
    assert [m["content"] for m in to_openai(history)[1:]] == ["", "Error: "]


def test_openai_system_message_waits_for_the_tool_results() -> None:
    history = [
        Message.user("go"),
        Message("assistant", [ToolUseBlock("c1", "ls", {}), ToolUseBlock("c2", "shot", {})]),
        Message.system("budget: 10% left"),
        Message.system("be brief"),
        Message("user", [ToolResultBlock("c1", "a.txt"), ToolResultBlock("c2", [PNG])]),
        Message.user("thanks"),
    ]
    wire = to_openai(history)
    assert [(m["role"], m.get("tool_call_id")) for m in wire] == [
        ("user", None),
        ("assistant", None),
        ("tool", "c1"),
        ("tool", "c2"),
        ("user", None),  # the image of c2
        ("system", None),
        ("system", None),
        ("user", None),
    ]
    assert [m["content"] for m in wire if m["role"] == "system"] == ["budget: 10% left", "be brief"]
    # Read back after the results (and with the images folded back in).
    assert from_openai(wire) == [*history[:2], history[4], *history[2:4], history[5]]


def test_openai_system_message_without_pending_results_stays_in_place() -> None:
    history = [
        Message("assistant", [ToolUseBlock("c1", "ls", {})]),
        Message.system("the tool result was lost"),
        Message.assistant("Moving on."),
        Message.system("late note"),
    ]
    assert [m["role"] for m in to_openai(history)] == ["assistant", "system", "assistant", "system"]
    assert from_openai(to_openai(history)) == history


def test_openai_system_argument_and_thinking() -> None:
    history = [
        Message.user("hi"),
        Message("assistant", [ThinkingBlock("t", "sig"), TextBlock("yo")]),
    ]
    assert to_openai(history, system="S") == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo"},
    ]
    reasoning = {"role": "assistant", "content": "yo", "reasoning_content": "t"}
    assert from_openai([reasoning]) == [Message("assistant", [ThinkingBlock("t"), TextBlock("yo")])]


@pytest.mark.parametrize(
    ("wire", "problem"),
    [
        ({"content": "hi"}, "missing field 'role'"),
        ({"role": ["user"], "content": "x"}, "'role' must be a string"),
        ({"role": {"role": "user"}, "content": "x"}, "'role' must be a string"),
        ({"role": "user", "content": 42}, "'content' must be a string"),
        ({"role": "user", "content": [{"text": "x"}]}, "malformed content part"),
        ({"role": "user", "content": [{"type": "text", "text": 3}]}, "malformed content part"),
        ({"role": "user", "content": [{"type": "image_url", "image_url": {}}]}, "string url"),
        (
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "data:image/bmp;base64,AA=="}}
                ],
            },
            "media type",
        ),
        ({"role": "tool", "content": "x"}, "tool_call_id"),
        ({"role": "assistant", "tool_calls": [{"id": "c"}]}, "'function'"),
        ("hello", "must be a dict"),
    ],
)
def test_malformed_openai_messages_are_value_errors(wire: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as caught:
        from_openai([{"role": "user", "content": "ok"}, wire])
    assert "message 1" in str(caught.value)


# --------------------------------------------------------- round-trip properties


@settings(max_examples=100, deadline=None)
@given(histories(anthropic=False))
def test_openai_round_trip(history: list[Message]) -> None:
    # A system message between a tool call and its results comes back after them.
    expected = list(history)
    for i in range(1, len(expected) - 1):
        if expected[i].role == "system" and expected[i - 1].tool_uses:
            expected[i], expected[i + 1] = expected[i + 1], expected[i]
    # An assistant's lone empty text next to tool calls is written "" and read as none.
    for i, message in enumerate(expected):
        if message.tool_uses and [b for b in message.content if isinstance(b, TextBlock)] == [
            TextBlock("")
        ]:
            content = [b for b in message.content if b != TextBlock("")]
            expected[i] = Message(message.role, content)
    wire = to_openai(history)
    for i, message in enumerate(wire):
        if message.get("tool_calls"):
            following = wire[i + 1 : i + 1 + len(message["tool_calls"])]
            assert [m["role"] for m in following] == ["tool"] * len(message["tool_calls"])
    assert from_openai(wire) == expected


@pytest.mark.parametrize("arguments", ["{", "[1]", "null", "not json"])
def test_a_call_whose_arguments_are_no_json_object_is_carried(arguments: str) -> None:
    # A model's broken or cut JSON, which the API takes back in a history: carried as
    # it came, paired with its result by the id (it turned compaction off before).
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
    wire = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
    ]
    messages = from_openai(wire)
    assert history_problems(messages) == []
    assert to_openai(messages)[1]["tool_calls"] == [call]

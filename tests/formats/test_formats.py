"""contextfold.formats: whole histories to and from OpenAI chat and Anthropic Messages."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.formats import from_anthropic, from_openai, split_system, to_anthropic, to_openai
from contextfold.messages import Message
from contextfold.validation import history_problems

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

_text = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="[<"), max_size=20)
_ids = st.text(alphabet="abcdef0123456789", min_size=1, max_size=8)
_images = st.builds(
    ImageBlock, st.sampled_from(["image/png", "image/jpeg"]), st.binary(max_size=16)
)
_inputs = st.dictionaries(_text, st.integers() | _text | st.booleans(), max_size=3)


@st.composite
def histories(draw: st.DrawFn, *, anthropic: bool) -> list[Message]:
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(Message.system(draw(_text.filter(bool))))
    for _ in range(draw(st.integers(1, 4))):
        user: list[ContentBlock] = [TextBlock(draw(_text))]
        user += draw(st.lists(_images | st.builds(TextBlock, _text), max_size=2))
        messages.append(Message("user", user))
        if draw(st.booleans()):
            messages.append(Message.system(draw(_text)))
        assistant: list[ContentBlock] = []
        if anthropic and draw(st.booleans()):
            redacted = draw(st.booleans())
            signature = "" if redacted else draw(_text)
            assistant.append(ThinkingBlock(draw(_text), signature, redacted))
        assistant.append(TextBlock(draw(_text)))
        ids = draw(st.lists(_ids, max_size=3, unique=True))
        assistant += [ToolUseBlock(i, draw(_text), draw(_inputs)) for i in ids]
        messages.append(Message("assistant", assistant))
        if ids and draw(st.booleans()):
            messages.append(Message.system(draw(_text)))
        if ids:
            results: list[ContentBlock] = []
            for i in ids:
                if anthropic:
                    content: str | list[TextBlock | ImageBlock] = draw(
                        _text | st.lists(_images | st.builds(TextBlock, _text), max_size=2)
                    )
                    results.append(ToolResultBlock(i, content, draw(st.booleans())))
                elif draw(st.booleans()):
                    error = draw(st.booleans())
                    text = ("Error: " if error else "") + draw(_text)
                    results.append(ToolResultBlock(i, text, error))
                else:  # images only
                    shots = draw(st.lists(_images, min_size=1, max_size=2))
                    results.append(ToolResultBlock(i, list(shots), draw(st.booleans())))
            messages.append(Message("user", results))
    return messages


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

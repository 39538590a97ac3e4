"""contextfold.dialects.responses: OpenAI Responses ``input`` items, both ways
(:func:`from_responses`, :func:`to_responses`)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from openai.types.responses import ResponseInputParam
from pydantic import TypeAdapter

from contextfold.blocks import (
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.dialects.responses import from_responses, item_starts, to_responses
from contextfold.messages import Message
from tests._proxy_upstream import responses_history

PNG = b"\x89PNG\r\n\x1a\nfake"
DATA_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


def test_items_group_into_turns() -> None:
    items: list[dict[str, Any]] = [
        {"role": "developer", "content": "rules"},
        {"role": "user", "content": [{"type": "input_text", "text": "look"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hm"}]},
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": '{"x": 1}'},
        {"type": "function_call", "call_id": "b", "name": "g", "arguments": ""},
        {"type": "function_call_output", "call_id": "a", "output": "one"},
        {"type": "function_call_output", "call_id": "b", "output": "Error: failed"},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "opaque"},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        },
        {"role": "user", "content": "thanks"},
    ]
    assert item_starts(items) == [0, 1, 2, 5, 7, 9]
    messages = from_responses(items, "be brief")
    assert messages == [
        Message.system("be brief"),
        Message.system("rules"),
        Message.user("look"),
        Message(
            "assistant",
            [ThinkingBlock("hm"), ToolUseBlock("a", "f", {"x": 1}), ToolUseBlock("b", "g", {})],
        ),
        Message(
            "user",
            [ToolResultBlock("a", "one", False), ToolResultBlock("b", "Error: failed", True)],
        ),
        Message("assistant", [ThinkingBlock("opaque", redacted=True), TextBlock("done")]),
        Message.user("thanks"),
    ]


def test_a_string_input_is_one_user_message() -> None:
    assert from_responses("hi") == [Message.user("hi")]
    assert from_responses("hi", "sys") == [Message.system("sys"), Message.user("hi")]


def test_round_trip_without_thinking() -> None:
    messages = [
        Message.system("rules"),
        Message.user("look"),
        Message("assistant", [TextBlock("calling"), ToolUseBlock("a", "f", {"x": [1, "é"]})]),
        Message(
            "user", [ToolResultBlock("a", [TextBlock("see"), ImageBlock("image/png", PNG)], False)]
        ),
        Message("user", [TextBlock("and this"), ImageBlock("image/png", PNG)]),
        Message("assistant", [ToolUseBlock("b", "g", {})]),
        Message("user", [ToolResultBlock("b", [ImageBlock("image/png", PNG)], True)]),
        Message.assistant(""),
        Message.user("bye"),
    ]
    items = to_responses(messages)
    assert from_responses(json.loads(json.dumps(items))) == messages
    # text next to tool results follows them as a user message of its own
    mixed = Message("user", [ToolResultBlock("a", "r", False), TextBlock("also")])
    assert from_responses(to_responses([messages[2], mixed])) == [
        messages[2],
        Message("user", [ToolResultBlock("a", "r", False)]),
        Message.user("also"),
    ]
    assert items[3] == {
        "type": "function_call",
        "call_id": "a",
        "name": "f",
        "arguments": '{"x": [1, "é"]}',
    }


def test_thinking_is_never_written() -> None:
    messages = from_responses(responses_history(1))
    items = to_responses(messages)
    assert not [i for i in items if i.get("type") == "reasoning"]
    assert [m.role for m in from_responses(items)] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ] * 1 + ["user"]


@pytest.mark.parametrize(
    ("item", "says"),
    [
        ({"content": "no role"}, "'type' must be a string, got None"),
        ({"type": 3}, "'type' must be a string, got 3"),
        ({"role": ["user"], "content": "x"}, "'role' must be a string"),
        ({"role": "user", "content": [{"text": "no type"}]}, "malformed content part"),
        ({"role": "user", "content": [{"type": "input_text", "text": 1}]}, "malformed"),
        ({"role": "user", "content": 5}, "must be a string or a list"),
        ({"type": "function_call", "name": "f", "arguments": "{}"}, "'call_id'"),
        ({"type": "function_call", "call_id": "c", "arguments": "{}"}, "'name'"),
        ({"type": "reasoning", "summary": "text"}, "'summary' must be a list"),
        ("a string", "must be an object"),
    ],
)
def test_malformed_items_raise_value_error(item: Any, says: str) -> None:
    with pytest.raises(ValueError, match="input item 1") as caught:
        from_responses([{"role": "user", "content": "hi"}, item])
    assert says in str(caught.value)


def test_written_items_fit_the_request_schema() -> None:
    # an assistant message written anew carries no id or status, so it must be an
    # "easy" input message (string content), not an output message missing its id;
    # an image part in a message needs its detail
    messages = [
        Message.system("rules"),
        Message.user("look"),
        Message.assistant("first"),
        Message("user", [TextBlock("go on"), ImageBlock("image/png", PNG)]),
        Message("assistant", [TextBlock("one"), TextBlock("two"), ToolUseBlock("a", "f", {})]),
        Message("user", [ToolResultBlock("a", "done", False)]),
        Message("assistant", [ToolUseBlock("b", "g", {})]),
        Message("user", [ToolResultBlock("b", [TextBlock("x")], False)]),
        Message.assistant(""),
    ]
    items = to_responses(messages)
    TypeAdapter(ResponseInputParam).validate_python(items)
    assert from_responses(items) == messages

"""Content blocks: exact dict round-trips and loud, specific errors on malformed dicts."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest
from hypothesis import given

from contextfold import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    from_dict,
    to_dict,
)
from contextfold.blocks import IMAGE_MEDIA_TYPES
from tests.strategies_hyp import blocks

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def test_text_block_dict_form_is_exactly_type_and_text() -> None:
    assert to_dict(TextBlock(text="hello")) == {"type": "text", "text": "hello"}


def test_image_data_travels_as_base64() -> None:
    d = to_dict(ImageBlock("image/png", PNG))
    assert d == {"type": "image", "media_type": "image/png", "data": base64.b64encode(PNG).decode()}
    assert from_dict(d) == ImageBlock("image/png", PNG)


def test_every_block_kind_has_its_documented_dict_form() -> None:
    assert to_dict(ToolUseBlock("t1", "grep", {"q": "x", "n": [1, 2]})) == {
        "type": "tool_use",
        "id": "t1",
        "name": "grep",
        "input": {"q": "x", "n": [1, 2]},
    }
    assert to_dict(ToolResultBlock("t1", [TextBlock("ok")], is_error=True)) == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [{"type": "text", "text": "ok"}],
        "is_error": True,
    }
    assert to_dict(ThinkingBlock("hmm", signature="sig")) == {
        "type": "thinking",
        "thinking": "hmm",
        "signature": "sig",
        "redacted": False,
    }


def test_optional_fields_take_their_defaults_when_absent() -> None:
    assert from_dict({"type": "tool_result", "tool_use_id": "t", "content": "x"}) == (
        ToolResultBlock("t", "x", is_error=False)
    )
    assert from_dict({"type": "thinking", "thinking": "hmm"}) == ThinkingBlock("hmm", "", False)


@given(blocks())
def test_every_block_round_trips_exactly(block: ContentBlock) -> None:
    assert from_dict(to_dict(block)) == block


@given(blocks())
def test_dict_form_survives_json(block: ContentBlock) -> None:
    d = to_dict(block)
    assert json.loads(json.dumps(d)) == d
    assert from_dict(json.loads(json.dumps(d))) == block


def test_to_dict_copies_tool_input() -> None:
    block = ToolUseBlock("t1", "grep", {"q": "x"})
    to_dict(block)["input"]["q"] = "changed"
    assert block.input == {"q": "x"}


def test_to_dict_rejects_a_non_block() -> None:
    with pytest.raises(TypeError, match="not a content block"):
        to_dict("hello")  # type: ignore[arg-type]


def test_image_block_rejects_unsupported_media_type() -> None:
    with pytest.raises(ValueError, match=r"image/bmp.*is not one of: image/gif"):
        ImageBlock("image/bmp", b"BM")
    assert {"image/jpeg", "image/png", "image/gif", "image/webp"} == IMAGE_MEDIA_TYPES


MALFORMED: list[tuple[Any, str]] = [
    ("text", "content block must be a dict, got str"),
    (["type", "text"], "content block must be a dict, got list"),
    (None, "content block must be a dict, got NoneType"),
    ({"text": "hi"}, "content block is missing field 'type'"),
    ({"type": "video", "url": "x"}, "unknown content block type 'video'"),
    ({"type": 3}, "unknown content block type 3"),
    ({"type": "text"}, "text block is missing field 'text'"),
    ({"type": "text", "text": 5}, "text block field 'text' must be str, got int"),
    ({"type": "text", "text": None}, "text block field 'text' must be str, got NoneType"),
    ({"type": "image", "data": "aGk="}, "image block is missing field 'media_type'"),
    ({"type": "image", "media_type": "image/png"}, "image block is missing field 'data'"),
    (
        {"type": "image", "media_type": "image/png", "data": b"raw"},
        "image block field 'data' must be str, got bytes",
    ),
    (
        {"type": "image", "media_type": "image/png", "data": "not base64!"},
        "image block field 'data' is not valid base64",
    ),
    (
        {"type": "image", "media_type": "image/png", "data": "abc"},
        "image block field 'data' is not valid base64",
    ),
    (
        {"type": "image", "media_type": "image/png", "data": "ümlaut"},
        "image block field 'data' is not valid base64",
    ),
    (
        {"type": "image", "media_type": "image/tiff", "data": "aGk="},
        "image media_type 'image/tiff' is not one of",
    ),
    ({"type": "tool_use", "name": "grep", "input": {}}, "tool_use block is missing field 'id'"),
    ({"type": "tool_use", "id": "t", "input": {}}, "tool_use block is missing field 'name'"),
    ({"type": "tool_use", "id": "t", "name": "grep"}, "tool_use block is missing field 'input'"),
    (
        {"type": "tool_use", "id": 7, "name": "grep", "input": {}},
        "tool_use block field 'id' must be str, got int",
    ),
    (
        {"type": "tool_use", "id": "t", "name": "grep", "input": "{}"},
        "tool_use block field 'input' must be dict, got str",
    ),
    (
        {"type": "tool_use", "id": "t", "name": "grep", "input": [1]},
        "tool_use block field 'input' must be dict, got list",
    ),
    (
        {"type": "tool_result", "tool_use_id": "t"},
        "tool_result block is missing field 'content'",
    ),
    (
        {"type": "tool_result", "content": "x"},
        "tool_result block is missing field 'tool_use_id'",
    ),
    (
        {"type": "tool_result", "tool_use_id": "t", "content": 42},
        "field 'content' must be a string or a list of text/image blocks, got int",
    ),
    (
        {"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": 1},
        "tool_result block field 'is_error' must be bool, got int",
    ),
    (
        {"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": "yes"},
        "tool_result block field 'is_error' must be bool, got str",
    ),
    (
        {
            "type": "tool_result",
            "tool_use_id": "t",
            "content": [{"type": "tool_use", "id": "u", "name": "grep", "input": {}}],
        },
        "tool_result content may hold only text, image and opaque blocks, got 'tool_use'",
    ),
    (
        {
            "type": "tool_result",
            "tool_use_id": "t",
            "content": [{"type": "thinking", "thinking": "hm"}],
        },
        "tool_result content may hold only text, image and opaque blocks, got 'thinking'",
    ),
    (
        {"type": "tool_result", "tool_use_id": "t", "content": ["plain string"]},
        "content block must be a dict, got str",
    ),
    (
        {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]},
        "text block is missing field 'text'",
    ),
    ({"type": "thinking"}, "thinking block is missing field 'thinking'"),
    (
        {"type": "thinking", "thinking": "x", "signature": None},
        "thinking block field 'signature' must be str, got NoneType",
    ),
    (
        {"type": "thinking", "thinking": "x", "redacted": 0},
        "thinking block field 'redacted' must be bool, got int",
    ),
    ({"type": "thinking", "thinking": True}, "thinking block field 'thinking' must be str"),
]


@pytest.mark.parametrize(("bad", "problem"), MALFORMED)
def test_malformed_dict_raises_value_error_naming_the_problem(bad: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        from_dict(bad)


def test_bad_base64_keeps_the_decoder_error_as_cause() -> None:
    with pytest.raises(ValueError, match="not valid base64") as info:
        from_dict({"type": "image", "media_type": "image/png", "data": "abc"})
    assert info.value.__cause__ is not None


def test_blocks_are_frozen() -> None:
    block = TextBlock("hi")
    with pytest.raises(AttributeError):
        block.text = "changed"  # type: ignore[misc]

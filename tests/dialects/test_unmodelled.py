"""Content nobody models is carried, never refused: model what you need, carry the rest.

Each wire format's unknown blocks, parts, items and roles read as
:class:`~contextfold.blocks.OpaqueBlock` s, write back unchanged in their own dialect,
show as a short placeholder elsewhere, and keep tool pairing.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from contextfold._history import compaction_cut_points, safe_cut_points
from contextfold.blocks import OpaqueBlock, TextBlock, ToolResultBlock, from_dict, to_dict
from contextfold.dialects.chat import from_openai, to_openai
from contextfold.dialects.messages import from_anthropic, to_anthropic
from contextfold.dialects.responses import from_responses, to_responses
from contextfold.messages import Message, check_message
from contextfold.tokens import count_message_tokens
from contextfold.validation import history_problems

ANTHROPIC: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "<system-reminder>\nskills\n</system-reminder>"},
            {"type": "text", "text": "Summarize the attached report.", "cache_control": {}},
            {
                "type": "document",
                "source": {"type": "url", "url": "https://example.com/report.pdf"},
                "title": "Q3 report",
            },
        ],
    },
    # Claude Code sends the environment as a system message inside ``messages``
    {"role": "system", "content": "# Environment\ncwd: /tmp/x", "output_config": {"a": 1}},
    {
        "role": "assistant",
        "content": [
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"q": "x"}},
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srv_1",
                "content": [{"type": "web_search_result", "url": "https://a", "title": "A"}],
            },
            {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.txt"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [
                    {"type": "text", "text": "found"},
                    {"type": "search_result", "source": "s", "title": "t", "content": []},
                ],
            },
            {"type": "image", "source": {"type": "file", "file_id": "file_9"}},
        ],
    },
    {"role": "critic", "content": "a role nobody models"},
]

OPENAI: list[dict[str, Any]] = [
    {"role": "system", "content": "be brief"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is in this picture?"},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            {"type": "file", "file": {"file_id": "file_1"}},
        ],
    },
    {"role": "assistant", "content": "calling", "audio": {"id": "audio_1"}},
    {"role": "function", "name": "f", "content": "legacy result"},
    {"role": "user", "content": "thanks"},
]

RESPONSES: list[dict[str, Any]] = [
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev"}]},
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "patch the file"},
            {"type": "input_file", "file_id": "file_2"},
            {"type": "input_image", "image_url": "https://example.com/x.png", "detail": "low"},
        ],
    },
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "q"}},
    {
        "type": "custom_tool_call",
        "id": "ctc_1",
        "call_id": "call_patch",
        "name": "apply_patch",
        "input": "*** Begin Patch\n*** Update File: a.py\n-x\n+y\n*** End Patch",
    },
    {"type": "custom_tool_call_output", "call_id": "call_patch", "output": "Done!"},
    {"type": "mcp_approval_request", "id": "apr_1", "name": "t", "server_label": "s"},
    {"type": "mcp_approval_response", "approval_request_id": "apr_1", "approve": True},
    {"type": "message", "role": "critic", "content": "a role nobody models"},
    {"type": "message", "role": "user", "content": "go on"},
]


def test_anthropic_unmodelled_content_reads_and_writes_back_unchanged() -> None:
    messages = from_anthropic(copy.deepcopy(ANTHROPIC), "top")
    assert [m.role for m in messages] == ["system", "user", "system", "assistant", "user", "system"]
    assert messages[2] == Message("system", [TextBlock("# Environment\ncwd: /tmp/x")])
    opaque = [b for m in messages for b in m.content if isinstance(b, OpaqueBlock)]
    assert [b.kind for b in opaque] == [
        "document",
        "server_tool_use",
        "web_search_tool_result",
        "image",
        "message",
    ]
    result = messages[4].content[0]
    assert isinstance(result, ToolResultBlock)
    assert isinstance(result.content, list)
    assert isinstance(result.content[1], OpaqueBlock)
    assert result.content[1].kind == "search_result"
    top, wire = to_anthropic(messages)
    assert top == "top"
    # the system message becomes a note (Anthropic has no system turn to write it as);
    # every other block and the message of an unknown role come back as they came
    assert wire[0]["content"][2] == ANTHROPIC[0]["content"][2]
    assert wire[2] == {"role": "assistant", "content": ANTHROPIC[2]["content"]}
    assert wire[3]["content"][0]["content"][1] == ANTHROPIC[3]["content"][0]["content"][1]
    assert wire[3]["content"][1] == ANTHROPIC[3]["content"][1]
    assert wire[4] == ANTHROPIC[4]
    assert from_anthropic(wire, top) == messages
    for message in messages:
        check_message(message)
        assert Message.from_dict(message.to_dict()) == message


def test_openai_unmodelled_content_reads_and_writes_back_unchanged() -> None:
    messages = from_openai(copy.deepcopy(OPENAI))
    assert [m.role for m in messages] == ["system", "user", "assistant", "system", "user"]
    kinds = [b.kind for b in messages[1].content if isinstance(b, OpaqueBlock)]
    assert kinds == ["image_url", "input_audio", "file"]
    assert to_openai(messages)[1] == OPENAI[1]
    assert to_openai(messages)[3] == OPENAI[3]  # the legacy function message, whole
    assert from_openai(to_openai(messages)) == messages


def test_responses_unmodelled_items_pair_and_write_back_unchanged() -> None:
    messages = from_responses(copy.deepcopy(RESPONSES))
    roles = ["system", "user", "assistant", "user", "assistant", "user", "system", "user"]
    assert [m.role for m in messages] == roles
    call = messages[2].content[1]
    output = messages[3].content[0]
    assert isinstance(call, OpaqueBlock)
    assert (call.call_id, call.is_result) == ("call_patch", False)
    assert isinstance(output, OpaqueBlock)
    assert (output.call_id, output.is_result) == (
        "call_patch",
        True,
    )
    assert history_problems(messages) == []
    # the call and its output are never split; the approval pairs with its request
    for point in safe_cut_points(messages):
        assert point != 3
    assert 3 not in compaction_cut_points(messages)
    items = to_responses(messages)
    for item in RESPONSES[1:8]:
        if item.get("role") != "user":
            assert item in items
    assert items[1]["content"][1:] == RESPONSES[1]["content"][1:]
    assert from_responses(items) == messages


def test_an_opaque_call_without_its_output_is_a_problem() -> None:
    messages = from_responses([*copy.deepcopy(RESPONSES[:4]), RESPONSES[-1]])
    problems = history_problems(messages)
    assert any("call_patch" in p and "no result" in p for p in problems), problems


@pytest.mark.parametrize(
    ("writer", "kind"),
    [
        (lambda ms: to_openai(ms)[0]["content"][2], "document"),
        (lambda ms: to_responses(ms)[0]["content"][2], "document"),
    ],
)
def test_other_dialects_see_a_placeholder(writer: Any, kind: str) -> None:
    messages = from_anthropic(copy.deepcopy(ANTHROPIC))
    part = writer(messages)
    assert part["text"].startswith(f"[{kind}: ")
    assert "Q3 report" in part["text"]


def test_the_placeholder_names_the_kind_and_leaves_payloads_out() -> None:
    block = OpaqueBlock(
        "custom_tool_call",
        {"call_id": "c", "name": "apply_patch", "input": "+x", "signature": "A" * 200},
        "responses",
    )
    assert block.placeholder() == "[custom_tool_call: apply_patch +x]"
    long = OpaqueBlock("document", {"text": "word " * 500})
    assert len(long.placeholder(50)) < 80
    assert long.placeholder(50).endswith("…]")
    assert OpaqueBlock("compaction", {"encrypted_content": "Zm9v" * 100}).placeholder() == (
        "[compaction]"
    )


def test_opaque_blocks_round_trip_and_count() -> None:
    block = OpaqueBlock("web_search_call", {"id": "ws", "action": {"query": "cats"}}, "responses")
    assert from_dict(to_dict(block)) == block
    assert count_message_tokens(Message("assistant", [block])) > 4
    image = OpaqueBlock("image_url", {"type": "image_url", "image_url": {"url": "https://x"}})
    assert count_message_tokens(Message("user", [image])) == 600 + 4  # media, like an image
    with pytest.raises(ValueError, match="OpaqueBlock field 'data'"):
        check_message(Message("user", [OpaqueBlock("x", {"bad": {1, 2}})]))

"""contextfold.dialects: one object per wire format, each fulfilling the same contract."""

from __future__ import annotations

import json
from typing import Any

import pytest

import contextfold.formats
from contextfold.dialects import (
    CHAT,
    DIALECTS,
    MESSAGES,
    RESPONSES,
    ChatCompletions,
    Dialect,
    Messages,
    Responses,
    chat,
    dialect_for,
    messages,
    responses,
)
from contextfold.messages import Message
from contextfold.validation import history_problems

HISTORY = [
    Message.system("Be terse."),
    Message.user("hi"),
    Message.assistant("hello"),
    Message.user("bye"),
]


def test_each_format_is_one_singleton_found_by_its_name() -> None:
    assert DIALECTS == (CHAT, RESPONSES, MESSAGES)
    assert [type(d) for d in DIALECTS] == [ChatCompletions, Responses, Messages]
    for dialect in DIALECTS:
        assert isinstance(dialect, Dialect)
        assert dialect_for(dialect.name) is dialect
        assert str(dialect) == dialect.name
        assert dialect.name in repr(dialect)
    assert len({d.path for d in DIALECTS}) == len(DIALECTS)


def test_an_unknown_name_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown dialect 'gemini'.*'anthropic'"):
        dialect_for("gemini")


def test_the_formats_module_keeps_its_names_as_the_same_objects() -> None:
    assert contextfold.formats.from_openai is chat.from_openai
    assert contextfold.formats.to_openai is chat.to_openai
    assert contextfold.formats.TOOL_ERROR_PREFIX == chat.TOOL_ERROR_PREFIX
    assert contextfold.formats.from_anthropic is messages.from_anthropic
    assert contextfold.formats.to_anthropic is messages.to_anthropic
    assert contextfold.formats.from_responses is responses.from_responses
    assert contextfold.formats.to_responses is responses.to_responses


@pytest.mark.parametrize("dialect", DIALECTS, ids=str)
def test_a_history_written_into_a_body_reads_back(dialect: Dialect) -> None:
    body: dict[str, Any] = {"model": "m"}
    lead = 1 if dialect.place_outside(body, HISTORY[:1]) else 0
    body[dialect.history_key] = dialect.write(HISTORY[lead:])
    dialect.check_body(body)
    assert dialect.read_body(body) == HISTORY
    items, outside = dialect.history(body)
    assert dialect.read(items, outside) == HISTORY
    assert (outside is None) == (dialect.outside_key is None)


@pytest.mark.parametrize("dialect", DIALECTS, ids=str)
def test_write_split_lifts_the_leading_system_messages_where_the_format_can(
    dialect: Dialect,
) -> None:
    outside, items = dialect.write_split(HISTORY)
    assert dialect.read(items, outside) == HISTORY
    assert (outside is None) == (dialect.outside_key is None)


@pytest.mark.parametrize("dialect", DIALECTS, ids=str)
def test_a_body_without_its_history_field_is_refused(dialect: Dialect) -> None:
    with pytest.raises(ValueError, match=f"field '{dialect.history_key}'"):
        dialect.check_body({"model": "m", dialect.history_key: 5})


def test_the_field_outside_the_history_is_checked() -> None:
    with pytest.raises(ValueError, match="'system'"):
        MESSAGES.history({"messages": [], "system": 5})
    with pytest.raises(ValueError, match="'instructions'"):
        RESPONSES.history({"input": [], "instructions": ["no"]})
    assert CHAT.history({"messages": [], "system": "ignored"}) == ([], None)


@pytest.mark.parametrize("dialect", DIALECTS, ids=str)
def test_every_cut_fresh_allows_reads_the_same_alone(dialect: Dialect) -> None:
    body: dict[str, Any] = {"model": "m"}
    history = [
        Message.user("a"),
        Message.assistant("b"),
        Message.system("note"),
        Message.user("c"),
        Message.assistant("d"),
    ]
    items = dialect.write(history)
    starts = [i for i in range(len(items)) if dialect.fresh(items, i)]
    assert starts[0] == 0
    pieces = [
        dialect.read(items[a:b]) for a, b in zip(starts, [*starts[1:], len(items)], strict=True)
    ]
    assert [m for piece in pieces for m in piece] == dialect.read(items)
    body[dialect.history_key] = items
    assert dialect.server_state(body) is None


@pytest.mark.parametrize("dialect", DIALECTS, ids=str)
def test_fresh_and_classify_never_raise_on_malformed_items(dialect: Dialect) -> None:
    items: list[Any] = [5, None, {"role": ["x"]}, {"type": 3}, {"role": "user", "content": 7}]
    for index in range(len(items)):
        dialect.fresh(items, index)
        assert dialect.classify(items[index]).side in ("turn", "results", "assistant", "other")


def test_items_are_classified_by_whose_they_are() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    assert CHAT.classify({"role": "assistant", "tool_calls": [call]}).tools
    assert CHAT.classify({"role": "tool", "tool_call_id": "c", "content": ""}).side == "results"
    assert CHAT.classify({"role": "user", "content": "hi"}).texts == ("hi",)
    use = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    assert MESSAGES.classify({"role": "assistant", "content": [use]}).tools
    result = {"type": "tool_result", "tool_use_id": "t", "content": ""}
    assert MESSAGES.classify({"role": "user", "content": [result]}).side == "results"
    assert RESPONSES.classify({"type": "reasoning"}).side == "assistant"
    assert RESPONSES.classify({"type": "function_call_output"}).side == "results"
    assert RESPONSES.classify({"role": "developer", "content": "x"}).side == "other"


@pytest.mark.parametrize("dialect", DIALECTS, ids=str)
def test_the_overflow_error_of_each_api_is_recognized(dialect: Dialect) -> None:
    body = dialect.overflow_body(210_345, 200_000)
    error = body["error"]
    assert dialect.is_overflow(400, error)
    assert not dialect.is_overflow(500, error)
    assert not dialect.is_overflow(400, {"message": "bad temperature"})
    sizes = dialect.reported_sizes(json.dumps(body))
    assert sizes in (None, (200_000, 210_345))  # Responses' error does not say them


def test_overflow_phrases_belong_to_their_api() -> None:
    anthropic = {"message": "prompt is too long: 9 tokens > 8 maximum"}
    openai = {"code": "context_length_exceeded", "message": "x"}
    assert MESSAGES.is_overflow(400, anthropic)
    assert not CHAT.is_overflow(400, anthropic)
    assert CHAT.is_overflow(400, openai)
    assert RESPONSES.is_overflow(400, openai)
    assert not MESSAGES.is_overflow(400, openai)
    assert CHAT.is_overflow(None, openai)  # inside a stream
    assert MESSAGES.is_overflow(200, anthropic)  # an error event inside a stream


def test_error_bodies_are_in_each_apis_shape() -> None:
    assert CHAT.error_body(413, "big") == {
        "error": {
            "message": "big",
            "type": "invalid_request_error",
            "param": None,
            "code": "request_too_large",
        }
    }
    assert RESPONSES.error_body(502, "x") == CHAT.error_body(502, "x")
    assert MESSAGES.error_body(504, "slow") == {
        "type": "error",
        "error": {"type": "timeout_error", "message": "slow"},
    }


def test_usage_is_read_where_each_api_reports_it() -> None:
    assert CHAT.input_tokens({"usage": {"prompt_tokens": 7}}) == 7
    assert RESPONSES.input_tokens({"response": {"usage": {"input_tokens": 8}}}) == 8
    cached = {"input_tokens": 1, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 3}
    assert MESSAGES.input_tokens({"message": {"usage": cached}}) == 9
    assert CHAT.input_tokens({"usage": {"prompt_tokens": True}}) is None
    assert MESSAGES.input_tokens("not a payload") is None


def test_routing_per_format() -> None:
    bases = {"openai_base": "http://o/v1", "anthropic_base": "http://a"}
    assert CHAT.upstream_url("/v1/models", **bases) == "http://o/v1/models"
    assert RESPONSES.upstream_url("/v1/responses", **bases) == "http://o/v1/responses"
    assert MESSAGES.upstream_url("/v1/models", **bases) == "http://a/v1/models"
    assert MESSAGES.claims("/v1/messages/count_tokens", {})
    assert MESSAGES.claims("/v1/models", {"anthropic-version": "2023-06-01"})
    assert not MESSAGES.claims("/v1/models", {})
    assert MESSAGES.window([("anthropic-beta", "x"), ("Anthropic-Beta", "context-1m-2025")])
    assert MESSAGES.window([("anthropic-beta", "x")]) is None
    assert CHAT.window([("anthropic-beta", "context-1m-2025")]) is None


def test_rules_a_rewrite_must_pass() -> None:
    # an empty text block: Anthropic refuses it, OpenAI does not
    empty = [Message.user(""), Message.assistant("ok")]
    assert history_problems(empty, RESPONSES.rules) == []  # it reaches OpenAI only
    assert history_problems(empty, MESSAGES.rules) != []
    assert history_problems(empty, CHAT.rules) != []  # gateways serve any model behind it


def test_server_held_state_is_a_responses_matter() -> None:
    assert RESPONSES.server_state({"input": [], "previous_response_id": "r"}) is not None
    assert RESPONSES.server_state({"input": [{"type": "item_reference", "id": "i"}]})
    assert CHAT.server_state({"messages": [], "previous_response_id": "r"}) is None
    assert all(RESPONSES.server_state_markers)
    assert not CHAT.server_state_markers


# -- recall -------------------------------------------------------------------------------


def test_recall_is_refused_loudly_where_the_format_lacks_it() -> None:
    assert not RESPONSES.supports_recall
    with pytest.raises(NotImplementedError, match="responses"):
        RESPONSES.offer_tool({"input": []}, "recall", "d", {})
    with pytest.raises(NotImplementedError, match="responses"):
        list(RESPONSES.tool_uses({}))
    with pytest.raises(NotImplementedError, match="responses"):
        RESPONSES.opening_thinking({})


@pytest.mark.parametrize("dialect", [CHAT, MESSAGES], ids=str)
def test_a_tool_is_offered_only_where_there_is_room(dialect: Dialect) -> None:
    body: dict[str, Any] = {"model": "m", "messages": [], "stream": True}
    offered = dialect.offer_tool(body, "recall", "Read it back.", {"type": "object"})
    assert offered is not None
    assert offered["stream"] is False
    spec = dialect.tool_spec(offered["tools"][-1])
    assert spec is not None
    assert spec["name"] == "recall"
    assert dialect.offer_tool({**body, "tool_choice": "none"}, "recall", "", {}) is None
    assert dialect.offer_tool({**body, "n": 2}, "recall", "", {}) is None
    assert dialect.offer_tool(offered, "recall", "", {}) is None  # taken
    assert dialect.offer_tool({**body, "tools": [5]}, "recall", "", {}) is None


def test_chat_recall_round_and_its_replay() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "recall", "arguments": "{}"}}
    reply = {
        "id": "x",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 3},
    }
    assert list(CHAT.tool_uses(reply)) == [("recall", "c1", "{}")]
    body = CHAT.answer_tools({"messages": []}, reply, [("c1", "the text", False)])
    assert body["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "the text"}
    cleaned = CHAT.without_tool(reply, "recall", "limit")
    assert cleaned["choices"][0]["message"]["content"] == "limit"
    assert cleaned["choices"][0]["finish_reason"] == "stop"
    events = "".join(CHAT.replay(cleaned, {"stream_options": {"include_usage": True}}))
    assert events.endswith("data: [DONE]\n\n")
    assert '"prompt_tokens": 3' in events


def test_messages_recall_round_keeps_the_opening_thinking() -> None:
    thinking = {"type": "thinking", "thinking": "hm", "signature": "s"}
    use = {"type": "tool_use", "id": "t1", "name": "recall", "input": {"handle": "h"}}
    first = {"content": [thinking, use], "stop_reason": "tool_use"}
    assert MESSAGES.opening_thinking(first) == [thinking]
    assert list(MESSAGES.tool_uses(first)) == [("recall", "t1", {"handle": "h"})]
    body = MESSAGES.answer_tools({"messages": []}, first, [("t1", "Error: no", True)])
    assert body["messages"][-1]["content"][0]["is_error"] is True
    own = {"type": "tool_use", "id": "t2", "name": "edit", "input": {}}
    later = MESSAGES.with_opening({"content": [own], "stop_reason": "tool_use"}, [thinking])
    assert later["content"] == [thinking, own]
    cleaned = MESSAGES.without_tool(first, "recall", "limit")
    assert cleaned["content"][-1] == {"type": "text", "text": "limit"}
    assert cleaned["stop_reason"] == "end_turn"
    events = "".join(MESSAGES.replay({**cleaned, "usage": {"input_tokens": 2}}, {}))
    assert "event: message_stop" in events
    assert "thinking_delta" in events

"""OpenAI chat: the messages a compaction keeps reach the upstream byte for byte."""

from __future__ import annotations

from typing import Any

import pytest

from contextfold_harness.fake_upstream import Upstream
from tests.attack23._harness import check, open_proxy, summary_requests, words


def call(i: int, content: Any = None) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }


def rounds(n: int, content: Any = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": "TASK: do the thing"},
    ]
    for i in range(n):
        out.append(call(i, content))
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": words(i)})
        out.append({"role": "assistant", "content": f"done {i}"})
        out.append({"role": "user", "content": f"go on {i}"})
    return out


async def test_a_kept_user_message_right_after_tool_messages_keeps_its_fields() -> None:
    # The cut falls on a user message that follows tool messages (a reminder, a
    # client's note: what agents put after tool results). It is kept, but was written
    # anew: its "name" and its text part's cache_control were lost.
    reminder = {
        "role": "user",
        "name": "reminder",
        "content": [
            {"type": "text", "text": "remember the plan", "cache_control": {"type": "ephemeral"}},
            {"type": "file", "file": {"file_id": "file-1"}},
        ],
    }
    messages = [
        *rounds(30),
        call(99),
        {"role": "tool", "tool_call_id": "c99", "content": "small"},
        reminder,
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "next"},
    ]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000, keep_recent=3)
    try:
        body = {"model": "m", "messages": messages}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=1)
        assert reminder in proxy.sent["messages"]
    finally:
        await proxy.close()


async def test_assistant_tool_calls_with_empty_string_content_are_compacted() -> None:
    # Many OpenAI SDK users send "content": "" next to tool_calls. It was read as an
    # empty text block, which the proxy's rules call invalid: every compaction was
    # paid for, then thrown away ("the compacted history is invalid: a text block is
    # empty"), and the request forwarded unchanged.
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        body = {"model": "m", "messages": rounds(30, content="")}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=1), reply.headers.get(
            "x-contextfold-error"
        )
    finally:
        await proxy.close()


async def test_consecutive_assistant_messages_do_not_turn_compaction_off() -> None:
    messages = rounds(30)
    at = len(messages) - 1  # before the last user turn: an assistant note, then the answer
    messages[at:at] = [{"role": "assistant", "content": "let me think"}]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000, keep_recent=3)
    try:
        body = {"model": "m", "messages": messages}
        reply = await proxy.post("openai", body)
        assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
            "x-contextfold-error"
        )
    finally:
        await proxy.close()


async def test_legacy_function_calling_is_compacted() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "TASK: do the thing"},
    ]
    for i in range(30):
        messages += [
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "f", "arguments": "{}"},
            },
            {"role": "function", "name": "f", "content": words(i)},
            {"role": "assistant", "content": f"done {i}"},
            {"role": "user", "content": f"go on {i}"},
        ]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        body = {"model": "m", "messages": messages}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=1), reply.headers.get(
            "x-contextfold-error"
        )
    finally:
        await proxy.close()


@pytest.mark.parametrize(
    "extra", [{"refusal": "I can't help with that."}, {"audio": {"id": "audio_1"}}]
)
async def test_an_assistant_answer_in_an_unmodelled_field_does_not_turn_compaction_off(
    extra: dict[str, Any],
) -> None:
    messages = [
        *rounds(30),
        {"role": "assistant", "content": None, **extra},
        {"role": "user", "content": "ok then"},
    ]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000, keep_recent=3)
    try:
        body = {"model": "m", "messages": messages}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=1), reply.headers.get(
            "x-contextfold-error"
        )
    finally:
        await proxy.close()


def custom_call(i: int) -> dict[str, Any]:
    call = {"id": f"k{i}", "type": "custom", "custom": {"name": "exec", "input": f"print({i})"}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


async def test_custom_tool_calls_in_chat_completions_are_compacted_and_carried() -> None:
    # GPT-5's custom tools in Chat Completions: a tool call of type "custom" (no
    # "function"), answered by an ordinary tool message. It was refused as malformed
    # ("a tool call is missing field 'function'"): compaction off for the conversation.
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "TASK: do the thing"},
    ]
    for i in range(30):
        messages += [
            custom_call(i),
            {"role": "tool", "tool_call_id": f"k{i}", "content": words(i)},
            {"role": "assistant", "content": f"done {i}"},
            {"role": "user", "content": f"go on {i}"},
        ]
    messages += [custom_call(99), {"role": "tool", "tool_call_id": "k99", "content": "last"}]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        body = {"model": "m", "messages": messages}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=1), reply.headers.get(
            "x-contextfold-error"
        )
        assert proxy.sent["messages"][-2] == custom_call(99)
        summarized = summary_requests(upstream)
        assert "exec" in summarized
        assert "print(3)" in summarized
    finally:
        await proxy.close()

"""Compaction over the real SDKs (respx-scripted): the output cap on the wire, the
``<summary>`` format judged strictly for a model, stop reasons, and no lone surrogate
ever sent to a provider (issue 13, items 1-3)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import respx

from contextfold import Agent, MemoryContextStore, Message, ModelInfo
from contextfold.compaction import AutoCompactStore, CompactionEvent, compact_context
from contextfold.errors import SummaryRejectedError
from contextfold.testing import StubTransport, make_text_response
from contextfold.transports import AnthropicTransport, OpenAITransport, RetryPolicy
from tests.transports.conftest import (
    FAKE_ANTHROPIC_KEY,
    FAKE_OPENAI_KEY,
    anthropic_message,
    body,
    openai_completion,
    openai_text,
)

SUMMARY = "## User requests and intent\nThe user asked about logs.\n## Current state\nAnswered."
TAGGED = f"Here is the summary.\n<summary>\n{SUMMARY}\n</summary>"


def history(n: int = 12) -> list[Message]:
    return [
        Message.user(f"question {i}: " + "please look at the logs " * 12)
        if i % 2 == 0
        else Message.assistant(f"answer {i}: " + "the logs show a timeout " * 12)
        for i in range(n)
    ]


def anthropic_reply(text: str, stop: str = "end_turn") -> dict[str, Any]:
    return anthropic_message([{"type": "text", "text": text}], stop)


def openai_reply(text: str, finish: str = "stop") -> dict[str, Any]:
    usage = {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}
    return openai_completion({"content": text}, finish, usage)


# --- item 2: the cap the summarizer's request carries --------------------------------------


async def test_anthropic_summary_request_sends_the_cap_as_max_tokens(
    anthropic_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    route = anthropic_api.post("/v1/messages").respond(json=anthropic_reply(TAGGED))
    transport = AnthropicTransport("claude-haiku-4-5", api_key=FAKE_ANTHROPIC_KEY, retry=policy)
    result = await compact_context(history(), transport, keep_recent=2, max_summary_tokens=2_000)
    assert result is not None
    assert SUMMARY in result[0].text
    assert "Here is the summary." not in result[0].text
    sent = body(route)
    assert sent["max_tokens"] == 2_564  # 1.25 x 2,000 + 64, not the model's 64,000


async def test_anthropic_cap_leaves_room_for_the_thinking_budget(
    anthropic_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    route = anthropic_api.post("/v1/messages").respond(json=anthropic_reply(TAGGED))
    transport = AnthropicTransport(
        "claude-haiku-4-5", api_key=FAKE_ANTHROPIC_KEY, thinking=2_048, retry=policy
    )
    await compact_context(history(), transport, keep_recent=2, max_summary_tokens=2_000)
    sent = body(route)
    assert sent["max_tokens"] == 2_564 + 2_048
    assert sent["thinking"]["budget_tokens"] < sent["max_tokens"]


@pytest.mark.parametrize(
    ("model", "key", "extra"),
    [("gpt-4.1", "max_tokens", 0), ("gpt-5", "max_completion_tokens", 25_000)],
)
async def test_openai_summary_request_sends_the_cap(
    openai_api: respx.MockRouter, policy: RetryPolicy, model: str, key: str, extra: int
) -> None:
    route = openai_api.post("/chat/completions").respond(json=openai_reply(TAGGED))
    transport = OpenAITransport(model, api_key=FAKE_OPENAI_KEY, retry=policy)
    await compact_context(history(), transport, keep_recent=2, max_summary_tokens=1_000)
    sent = body(route)
    assert sent[key] == 1_314 + extra
    assert ({"max_tokens", "max_completion_tokens"} - {key}).isdisjoint(sent)


async def test_a_local_model_gets_the_cap_although_it_gets_no_default_limit(
    policy: RetryPolicy,
) -> None:
    base = "http://localhost:11434/v1"
    with respx.mock(base_url=base) as local:
        route = local.post("/chat/completions").respond(json=openai_reply(TAGGED))
        transport = OpenAITransport("qwen3:8b", base_url=base, retry=policy)
        await transport.complete([Message.user("hi")])
        assert "max_tokens" not in body(route, 0)  # the server's default, as before
        await compact_context(history(), transport, keep_recent=2, max_summary_tokens=1_000)
        assert body(route, 1)["max_tokens"] == 1_314


async def test_a_summary_cut_at_the_cap_is_rejected(
    openai_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    openai_api.post("/chat/completions").respond(json=openai_reply("<summary>## User", "length"))
    transport = OpenAITransport("gpt-4.1", api_key=FAKE_OPENAI_KEY, retry=policy)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), transport, keep_recent=2)
    assert info.value.reason == "truncated"


# --- item 1: a model's reply is judged -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "stop", "reason"),
    [
        ("Samahani, siwezi kusaidia na ombi hili.", "end_turn", "refusal"),
        ("I can\u2019t help with that.", "end_turn", "refusal"),
        ("Pole, siwezi kufanya hivyo.", "end_turn", "unrelated"),
        (f"<summary>\n{SUMMARY}", "end_turn", "format"),
        (TAGGED, "pause_turn", "incomplete"),
        ("", "refusal", "refusal"),
        ("<summary>Lo siento, pero no puedo ayudarte con eso.</summary>", "end_turn", "refusal"),
    ],
)
async def test_anthropic_bad_summaries_leave_the_history_untouched(
    anthropic_api: respx.MockRouter, policy: RetryPolicy, text: str, stop: str, reason: str
) -> None:
    anthropic_api.post("/v1/messages").respond(json=anthropic_reply(text, stop))
    summarizer = AnthropicTransport("claude-haiku-4-5", api_key=FAKE_ANTHROPIC_KEY, retry=policy)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), summarizer, keep_recent=2)
    assert info.value.reason == reason

    inner = MemoryContextStore(history(20))
    before = await inner.get_history()
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        inner,
        StubTransport(model=ModelInfo("agent", 8_000, 1_000)),
        keep_recent=2,
        summary_transport=summarizer,
        on_event=events.append,
    )
    await store.add_context_tokens(7_000, 10)
    assert await inner.get_history() == before
    assert [e.outcome for e in events if e.phase == "after"] == ["rejected"]


# --- item 3: no lone surrogate reaches a provider --------------------------------------------


async def test_a_summary_with_a_lone_surrogate_does_not_break_the_next_openai_turn(
    openai_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    route = openai_api.post("/chat/completions").respond(json=openai_text("Noted."))
    agent_model = OpenAITransport("gpt-4o", api_key=FAKE_OPENAI_KEY, retry=policy)
    broken = make_text_response(f"{SUMMARY} (emoji cut: \ud83d)")
    store = AutoCompactStore(
        MemoryContextStore(history(20)),
        agent_model,
        keep_recent=2,
        max_tokens=1_500,
        summary_transport=StubTransport([broken]),
    )
    await store.add_context_tokens(2_000, 10)
    assert store.compactions == 1
    answer = await Agent("Be brief.", agent_model).run("And now?", store)
    assert answer == "Noted."
    sent = route.calls[-1].request.content.decode("utf-8")  # strict: valid UTF-8
    assert "emoji cut: \ufffd" in json.loads(sent)["messages"][1]["content"]


async def test_a_history_with_a_lone_surrogate_is_summarized_over_openai(
    openai_api: respx.MockRouter, policy: RetryPolicy
) -> None:
    route = openai_api.post("/chat/completions").respond(json=openai_reply(TAGGED))
    messages = history()
    messages[3] = Message.assistant("half an emoji: \ud83d")
    transport = OpenAITransport("gpt-4.1", api_key=FAKE_OPENAI_KEY, retry=policy)
    result = await compact_context(messages, transport, keep_recent=2)
    assert result is not None
    sent = route.calls[-1].request.content.decode("utf-8")
    assert "half an emoji: \ufffd" in sent or "half an emoji: \\ufffd" in sent

"""Prompt or history: the layout never pins so much that nothing can be compacted, nor
so little that the task is summarized."""

from __future__ import annotations

from typing import Any

import pytest

from contextfold_harness.fake_upstream import Upstream
from tests.attack23._harness import check, open_proxy, summary_requests, words


def chat(turns: int, start: int = 0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(start, start + turns):
        out.append({"role": "assistant", "content": f"answer {i} " + words(i, 40)})
        out.append({"role": "user", "content": f"question {i} " + words(i + 1000, 40)})
    return out


OPENING = [{"role": "system", "content": "sys"}, {"role": "user", "content": "TASK: chat with me"}]


async def test_a_chat_first_seen_just_under_the_limit_still_gets_under_it() -> None:
    upstream = Upstream(reply_text="ok")
    # limit 4,000 tokens (and the model's input budget: 8,000 - 4,000 of output)
    proxy = await open_proxy(upstream, context_window=8_000, threshold=0.5)
    try:
        messages = [*OPENING, *chat(17)]  # ~3,800 tokens: first seen here
        after: list[int] = []
        for step in range(10):
            body = {"model": "m", "messages": messages}
            reply = await proxy.post("openai", body)
            check("openai", body, reply, proxy.sent, task=1)
            after.append(int(reply.headers["x-contextfold-tokens-after"]))
            messages = [*messages, *chat(1, 100 + step)]
        assert max(after[-4:]) <= 4_000, after
        assert len(upstream.summaries) <= 4, len(upstream.summaries)
    finally:
        await proxy.close()


async def test_a_chat_first_seen_over_the_limit_keeps_its_real_task() -> None:
    # Over the limit, the head is not believed: the fallback keeps the first user turn.
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000, threshold=0.5)
    try:
        body = {"model": "m", "messages": [*OPENING, *chat(30)]}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=1)
        assert int(reply.headers["x-contextfold-tokens-after"]) <= 4_000
    finally:
        await proxy.close()


@pytest.mark.xfail(
    strict=True,
    reason=(
        "layouts live in one process: an aider session first seen after a restart (or by "
        "another replica) over the limit falls back to 'the first user turn is the task', "
        "which is aider's first few-shot example; the real task, the other examples and "
        "the chat-files message are summarized, and the examples quoted as the user's words"
    ),
)
async def test_an_aider_session_first_seen_by_this_proxy_keeps_its_task_and_examples() -> None:
    from tests.clients.test_bodies import TASK, _aider_grown, body

    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=16_000, threshold=0.75)
    try:
        grown = _aider_grown(body("aider-3"), 12)
        reply = await proxy.post("openai", grown)
        assert reply.headers["x-contextfold-compacted"] == "true"
        messages = grown["messages"]
        task = next(i for i, m in enumerate(messages) if m["content"] == TASK)
        sent = proxy.sent["messages"]
        assert sent[: task + 1] == messages[: task + 1]
        assert "get_factorial" not in summary_requests(upstream)
    finally:
        await proxy.close()


def tool_round(i: int) -> list[dict[str, Any]]:
    call = {"id": f"c{i}", "type": "function", "function": {"name": "calc", "arguments": "{}"}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i} " + words(i)},
        {"role": "assistant", "content": f"answer {i}"},
        {"role": "user", "content": f"go on {i}"},
    ]


@pytest.mark.xfail(
    strict=True,
    reason=(
        "an opening that holds tool calls is never laid out by the opening rule: few-shot "
        "examples with tool calls before the task (LangChain's documented few-shot "
        "tool-calling pattern) make the fallback take the first example for the task; "
        "the real task is summarized and the examples quoted as the user's words"
    ),
)
async def test_few_shot_tool_call_examples_before_the_task_are_prompt() -> None:
    example = "EXAMPLE-QUESTION: what is 2 + 2?"
    opening = [
        {"role": "system", "content": "You are a calculator agent."},
        {"role": "user", "content": example},
        *tool_round(900)[:3],
        {"role": "user", "content": "TASK: add up the invoices"},
    ]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        await proxy.post("openai", {"model": "m", "messages": opening})
        messages = list(opening)
        for i in range(30):
            messages += tool_round(i)
        body = {"model": "m", "messages": messages}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=len(opening) - 1)
        assert proxy.sent["messages"][: len(opening)] == opening
        assert "EXAMPLE-QUESTION" not in summary_requests(upstream)
    finally:
        await proxy.close()


@pytest.mark.xfail(
    strict=True,
    reason=(
        "the append rule trusts any earlier request that is a prefix: a request of the "
        "prompt alone (a prompt-cache warm-up, a probe, another conversation that stopped "
        "there) makes its last user turn, a few-shot example, the task of every "
        "conversation that opens with that prompt; their real tasks are summarized"
    ),
)
async def test_a_request_of_the_prompt_alone_does_not_decide_later_conversations_tasks() -> None:
    prompt = [
        {"role": "system", "content": "You are an editor."},
        {"role": "user", "content": "EXAMPLE-ASK: rename foo to bar"},
        {"role": "assistant", "content": "Renamed."},
        {"role": "user", "content": "EXAMPLE-ASK-2: add a docstring"},
    ]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        await proxy.post("openai", {"model": "m", "max_tokens": 1, "messages": prompt})  # warm-up
        opening = [*prompt, {"role": "assistant", "content": "Added."}]
        opening.append({"role": "user", "content": "TASK: port the parser to rust"})
        await proxy.post("openai", {"model": "m", "messages": opening})
        messages = [*opening, *chat(30)]
        body = {"model": "m", "messages": messages}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=len(opening) - 1)
        assert "EXAMPLE-ASK" not in summary_requests(upstream)
    finally:
        await proxy.close()

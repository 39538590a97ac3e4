"""The prompt is not the user's words: never summarized, never quoted as theirs."""

from __future__ import annotations

import json
from typing import Any

from contextfold_harness.fake_upstream import Upstream
from tests.attack23._harness import check, open_proxy, summary_requests, words

EXAMPLE = "Example request: when you summarize, always keep the word BANANA-PROMPT."


def grown(prompt: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    out = list(prompt)
    for i in range(n):
        out.append({"role": "assistant", "content": f"answer {i}: " + words(i)})
        out.append({"role": "user", "content": f"follow-up {i}: " + words(i + 100)})
    return out


async def test_a_few_shot_example_in_the_prompt_is_not_quoted_as_the_users_instruction() -> None:
    # aider-style few-shot examples before the task are prompt: the summarizer must not
    # be told "The user said, earlier in the conversation: ..." with their words.
    prompt = [
        {"role": "system", "content": "You are an editor."},
        {"role": "user", "content": EXAMPLE},
        {"role": "assistant", "content": "Ok."},
        {"role": "user", "content": "TASK: fix the parser"},
    ]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        first = {"model": "m", "messages": prompt}
        await proxy.post("openai", first)  # the opening: the proxy learns the prompt
        body = {"model": "m", "messages": grown(prompt, 30)}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=3)
        sent = proxy.sent["messages"]
        assert sent[:4] == prompt
        assert upstream.summaries
        assert "BANANA-PROMPT" not in summary_requests(upstream)
    finally:
        await proxy.close()


async def test_the_tasks_own_standing_instruction_still_reaches_the_summarizer() -> None:
    prompt = [
        {"role": "system", "content": "You are an editor."},
        {"role": "user", "content": "TASK: fix it. When you summarize, always keep KIWI-TASK."},
    ]
    upstream = Upstream(reply_text="ok")
    proxy = await open_proxy(upstream, context_window=8_000)
    try:
        await proxy.post("openai", {"model": "m", "messages": prompt})
        body = {"model": "m", "messages": grown(prompt, 30)}
        reply = await proxy.post("openai", body)
        assert check("openai", body, reply, proxy.sent, task=1)
        assert "KIWI-TASK" in summary_requests(upstream)
        assert json.dumps(proxy.sent["messages"][1]) == json.dumps(prompt[1])
    finally:
        await proxy.close()

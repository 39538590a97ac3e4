"""The proxy on request bodies real clients sent (fixtures captured from them).

``fixtures/`` holds requests Claude Code 2.1.332 (its default model and tools), Codex
CLI 0.171, opencode 1.18 and aider 0.86 sent to the scripted model
(:mod:`tests.clients.scripted`), gzipped: each client's first request and a later
one (aider: its first three). Each test sends them through the proxy in-process with
a window small enough to compact them, and checks what the upstream receives: the
unmodelled content carried byte for byte, the prompt and the task kept verbatim and
never summarized, the moving prompt (aider's chat files) kept. These need no client
installed; ``test_clients.py`` runs the clients themselves.
"""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from contextfold.compaction import CompactionSettings
from contextfold.proxy import create_app
from contextfold_harness.fake_upstream import Upstream
from tests._faces import app_arguments

FIXTURES = Path(__file__).parent / "fixtures"
TASK = "TASK-MARKER: run the numbered shell steps until they are all done"


def body(name: str) -> dict[str, Any]:
    with gzip.open(FIXTURES / f"{name}.json.gz") as f:
        data: dict[str, Any] = json.load(f)["body"]
    return data


@pytest.fixture
def upstream() -> Upstream:
    return Upstream(reply_text="ok")


class Proxy:
    def __init__(self, app: Starlette, upstream: Upstream) -> None:
        self.app = app
        self.upstream = upstream
        self.client = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test"
        )

    async def post(self, path: str, payload: dict[str, Any]) -> httpx2.Response:
        headers = {"x-api-key": "sk-ant-k", "authorization": "Bearer sk-k"}
        payload = {**payload, "stream": False}
        return await self.client.post(path, json=payload, headers=headers)

    @property
    def sent(self) -> dict[str, Any]:
        body: dict[str, Any] = self.upstream.chats[-1].json
        return body


@pytest.fixture
async def make_proxy(upstream: Upstream) -> AsyncIterator[Any]:
    opened: list[Any] = []

    async def make(**settings: Any) -> Proxy:
        http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=upstream.app()))
        app = create_app(
            **app_arguments(
                upstream_openai="http://upstream.test/v1",
                upstream_anthropic="http://upstream.test",
                http_client=http,
                **settings,
                settings=CompactionSettings(prepare_threshold=None),
            )
        )
        context = app.router.lifespan_context(app)
        await context.__aenter__()
        opened.append(context)
        return Proxy(app, upstream)

    yield make
    for context in opened:
        await context.__aexit__(None, None, None)


def summarizer_text(upstream: Upstream) -> str:
    return "\n".join(json.dumps(s.json) for s in upstream.summaries)


async def test_claude_code_with_a_system_message_in_messages_is_compacted(
    make_proxy: Any, upstream: Upstream
) -> None:
    # On today's main: "not compacted: the proxy does not model this request's content
    # (message 1 has unsupported role 'system')", for every request Claude Code sends.
    # ~19.7k tokens, of which Claude Code's prompt, tools and first message take ~13k
    proxy = await make_proxy(context_window=30_000, threshold=0.5)
    original = body("claude-code-2")
    messages = original["messages"]
    assert messages[1]["role"] == "system"
    reply = await proxy.post("/v1/messages", original)
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
        "x-contextfold-error"
    )
    sent = proxy.sent
    assert sent["system"] == original["system"]  # cache_control and all
    assert sent["messages"][0] == messages[0]  # reminders and the task, word for word
    assert sent["messages"][1] == messages[1]  # the system message, its own fields too
    assert sent["messages"][-2]["content"][-1] == messages[-2]["content"][-1]  # last call
    assert len(sent["messages"]) < len(messages)
    # the turn in progress still opens with its thinking (Claude Code has it on)
    first = next(m for m in sent["messages"][3:] if m["role"] == "assistant")
    assert first["content"][0]["type"] == "thinking"
    assert "output_config" not in summarizer_text(upstream)


async def test_codex_keeps_its_prompt_environment_and_task(
    make_proxy: Any, upstream: Upstream
) -> None:
    # On today's main the custom apply_patch call turned compaction off; without it,
    # the environment context and the task were summarized away.
    proxy = await make_proxy(context_window=24_000, threshold=0.5)  # ~15.9k, ~9k of prompt
    original = body("codex-2")
    items = original["input"]
    assert any(item.get("type") == "custom_tool_call" for item in items)
    reply = await proxy.post("/v1/responses", original)
    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
        "x-contextfold-error"
    )
    sent = proxy.sent["input"]
    assert sent[:4] == items[:4]  # two developer messages, the environment, the task
    assert "<environment_context>" in json.dumps(sent[2])
    assert TASK in json.dumps(sent[3])
    assert sent[-2] == items[-2]  # the last call, its output after it
    assert sent[-1]["call_id"] == items[-1]["call_id"]
    assert "<environment_context>" not in summarizer_text(upstream)
    # what the summarizer saw of the custom call: a placeholder naming it
    assert "custom_tool_call: apply_patch" in summarizer_text(upstream)


async def test_opencode_keeps_its_task(make_proxy: Any, upstream: Upstream) -> None:
    proxy = await make_proxy(context_window=20_000, threshold=0.5)  # ~13.3k, ~7.7k of prompt
    original = body("opencode-2")
    reply = await proxy.post("/v1/chat/completions", original)
    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
        "x-contextfold-error"
    )
    sent = proxy.sent["messages"]
    assert sent[:2] == original["messages"][:2]  # the system prompt and the task
    assert sent[-2] == original["messages"][-2]  # the last call
    assert sent[-1]["tool_call_id"] == original["messages"][-1]["tool_call_id"]


def _aider_grown(later: dict[str, Any], times: int) -> dict[str, Any]:
    """aider's third request with its history (the turns after the repo map and
    before the chat files) repeated ``times`` more times, as a longer session sends."""
    grown = copy.deepcopy(later)
    messages = grown["messages"]
    start = next(i for i, m in enumerate(messages) if TASK in str(m["content"]))
    end = len(messages) - 3  # the chat files, their acknowledgement, the current turn
    history = messages[start + 2 : end]  # the turns after the task's own
    extra = []
    for n in range(times):
        for message in history:
            extra.append({**message, "content": f"{message['content']} (again {n})"})
    grown["messages"] = [*messages[:end], *extra, *messages[end:]]
    return grown


async def test_aider_keeps_its_examples_files_and_task(make_proxy: Any, upstream: Upstream) -> None:
    # On today's main aider's canned examples were summarized and quoted as "the user's
    # own messages", and the chat-files message was summarized away.
    proxy = await make_proxy(context_window=16_000, threshold=0.75)
    first, second, third = (body(f"aider-{n}") for n in (1, 2, 3))
    for request in (first, second, third):  # the proxy sees the session from its opening
        await proxy.post("/v1/chat/completions", request)
    grown = _aider_grown(third, 12)
    reply = await proxy.post("/v1/chat/completions", grown)
    assert reply.headers["x-contextfold-compacted"] == "true", reply.headers.get(
        "x-contextfold-error"
    )
    sent = proxy.sent["messages"]
    messages = grown["messages"]
    task = next(i for i, m in enumerate(messages) if m["content"] == TASK)
    assert sent[: task + 1] == messages[: task + 1]  # system, examples, repo map, task
    assert sent[-3:] == messages[-3:]  # the files in the chat, as aider sent them
    assert "I have *added these files to the chat*" in sent[-3]["content"]
    text = summarizer_text(upstream)
    assert "get_factorial" not in text  # the examples are never summarized nor quoted
    assert "added these files to the chat" not in text

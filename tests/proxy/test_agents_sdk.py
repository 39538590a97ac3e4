"""The OpenAI Agents SDK's default model (the Responses API) through the proxy: a
multi-turn, tool-using agent whose history the proxy compacts on the way upstream."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled
from agents.models.openai_provider import OpenAIProvider
from starlette.applications import Starlette

from contextfold.compaction import CompactionSettings
from contextfold.formats import from_responses
from contextfold.proxy import create_app
from contextfold.validation import validate_history
from tests._proxy_upstream import ProxyApps, Upstream, responses_history
from tests._raw_http import Served

KEY = "sk-test-DISTINCTIVE-agents-7c6b5a4f3e2d"
MODEL = "test-model"


@function_tool
def read_file(n: int) -> str:
    """Read file number ``n``."""
    return f"file {n}: " + "x" * 3000


@pytest.fixture
def upstream() -> Upstream:
    return Upstream(tool_call="read_file", tool_arguments={"n": 1}, reasoning=True)


@pytest.fixture
async def app(upstream: Upstream, tmp_path: Path) -> AsyncIterator[Starlette]:
    apps = ProxyApps(upstream)
    yield await apps.make(
        upstream_openai="http://upstream.test/v1",
        db=tmp_path / "proxy.db",
        context_window=32_768,
        threshold=0.25,
        summary_max_retries=0,
    )
    await apps.close()


def check_request(body: dict[str, Any]) -> None:
    """A valid Responses request: calls and outputs paired, each reasoning item right
    before the call or message it led to."""
    items = body["input"]
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    assert calls == outputs
    for i, item in enumerate(items):
        if item.get("type") == "reasoning":
            assert items[i + 1].get("type") in ("function_call", "message")
            assert items[i + 1].get("role", "assistant") == "assistant"
    messages = from_responses(items, body.get("instructions"))
    validate_history(messages, "openai", allow_pending=True)


async def test_multi_turn_tool_agent_is_compacted(app: Starlette, upstream: Upstream) -> None:
    local = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app))
    client = openai.AsyncOpenAI(
        api_key=KEY, base_url="http://proxy.test/v1", http_client=local, max_retries=0
    )
    agent = Agent(
        name="coder", instructions="You are a careful coding agent.", model=MODEL, tools=[read_file]
    )
    config = RunConfig(model_provider=OpenAIProvider(openai_client=client), tracing_disabled=True)
    history: list[Any] = []
    for turn in range(12):
        task = {"role": "user", "content": f"task {turn}: " + "q" * 500}
        result = await Runner.run(agent, [*history, task], run_config=config)
        assert result.final_output == "Hello from upstream"
        history = result.to_input_list()
    # the client keeps its whole history; the upstream saw it compacted
    assert sum(1 for item in history if item.get("type") == "function_call") == 12
    assert len(upstream.summaries) >= 1
    requests = [s.json for s in upstream.chats]
    assert all(s.path == "/v1/responses" for s in upstream.chats)
    compacted = [r for r in requests if "SUMMARY-" in json.dumps(r["input"])]
    assert compacted
    last = requests[-1]
    assert last["instructions"] == "You are a careful coding agent."
    assert len(last["input"]) < len(history)
    for body in requests:
        check_request(body)
    # the kept part of the last request: the client's own items (reasoning included)
    *_, reasoning, call, output = last["input"]
    assert reasoning["encrypted_content"] == history[-5]["encrypted_content"]
    assert call["call_id"] == output["call_id"] == history[-4]["call_id"]
    assert last["input"][0] == history[0]  # the task, word for word
    assert "SUMMARY-" in json.dumps(last["input"][1])


async def test_streamed_agent_run_is_compacted(app: Starlette, upstream: Upstream) -> None:
    local = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app))
    client = openai.AsyncOpenAI(
        api_key=KEY, base_url="http://proxy.test/v1", http_client=local, max_retries=0
    )
    agent = Agent(name="coder", instructions="Be careful.", model=MODEL, tools=[read_file])
    config = RunConfig(model_provider=OpenAIProvider(openai_client=client), tracing_disabled=True)
    task = {"role": "user", "content": "go on"}
    result = Runner.run_streamed(agent, [*responses_history(24), task], run_config=config)
    kinds = {event.type async for event in result.stream_events()}
    assert "raw_response_event" in kinds
    assert result.final_output == "Hello from upstream"
    call, answer = upstream.chats  # the tool call, then the answer after its output
    for seen in (call, answer):
        assert seen.json["stream"] is True
        assert "SUMMARY-1" in json.dumps(seen.json["input"])
        check_request(seen.json)
    assert len(upstream.summaries) == 1


QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "proxy_quickstart.md"


def quickstart_snippets(number: int) -> list[str]:
    """The Python blocks of the quickstart's section ``## N. ...``."""
    [section] = [
        part for part in QUICKSTART.read_text().split("\n## ") if part.startswith(f"{number}. ")
    ]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


async def test_the_quickstart_responses_snippets_run_against_the_proxy(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.tool_call = None
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    set_tracing_disabled(True)  # the snippet keeps the SDK's default: tracing to OpenAI
    try:
        async with Served(upstream.app()) as up:
            app = create_app(
                upstream_openai=f"{up.url}/v1",
                db=tmp_path / "proxy.db",
                context_window=32_768,
                settings=CompactionSettings(threshold=0.25),
            )
            async with Served(app) as proxy:
                ask, turn = [
                    snippet.replace("http://127.0.0.1:8787", proxy.url)
                    for snippet in quickstart_snippets(4)
                ]
                namespace: dict[str, Any] = {}
                exec(compile(ask, "quickstart-4", "exec", dont_inherit=True), namespace)
                assert await namespace["ask"](responses_history(24)) == "Hello from upstream"
                await namespace["client"].close()
                exec(compile(turn, "quickstart-4", "exec", dont_inherit=True), namespace)
                history = await namespace["turn"]([], "hello")
                history = await namespace["turn"](history, "and again")
                assert len(history) == 6  # user, reasoning, answer; twice
                await namespace["client"].close()
    finally:
        set_tracing_disabled(False)
    first = upstream.chats[0].json
    assert "SUMMARY-1" in json.dumps(first["input"])
    assert upstream.chats[-1].json["input"][-1]["content"] == "and again"

"""The proxy as a real uvicorn server on a loopback port, in front of a real fake upstream."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
import uvicorn

from contextfold.formats import from_openai
from contextfold.proxy import create_app, serve
from contextfold.validation import validate_history
from tests._proxy_upstream import Upstream, anthropic_history, openai_history
from tests._raw_http import Served
from tests.cli.test_cli import CLI

KEY = "sk-test-SERVER-DISTINCTIVE-77aa88bb"
MODEL = "test-model"


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def proxy_url(upstream: Upstream, tmp_path: Any) -> AsyncIterator[str]:
    async with Served(upstream.app()) as up:
        app = create_app(
            upstream_openai=f"{up.url}/v1",
            upstream_anthropic=up.url,
            db_path=tmp_path / "proxy.db",
            context_window=32_768,
            threshold=0.25,
            summary_max_retries=0,
        )
        async with Served(app) as proxy:
            yield proxy.url


async def test_stock_clients_over_real_sockets(proxy_url: str, upstream: Upstream) -> None:
    oai = openai.AsyncOpenAI(api_key=KEY, base_url=f"{proxy_url}/v1", max_retries=0)
    reply = await oai.chat.completions.create(model=MODEL, messages=openai_history(1))
    assert reply.choices[0].message.content == "Hello from upstream"
    stream = await oai.chat.completions.create(model=MODEL, messages=openai_history(1), stream=True)
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "Hello from upstream"
    models = await oai.models.list()
    assert [m.id for m in models.data] == ["test-model"]

    ant = anthropic.AsyncAnthropic(api_key=KEY, base_url=proxy_url, max_retries=0)
    message = await ant.messages.create(model=MODEL, max_tokens=50, messages=anthropic_history(1))
    assert message.content[0].type == "text"
    async with ant.messages.stream(
        model=MODEL, max_tokens=50, messages=anthropic_history(1)
    ) as events:
        assert "".join([t async for t in events.text_stream]) == "Hello from upstream"
    await oai.close()
    await ant.close()


async def test_compaction_and_cache_over_real_sockets(proxy_url: str, upstream: Upstream) -> None:
    oai = openai.AsyncOpenAI(api_key=KEY, base_url=f"{proxy_url}/v1", max_retries=0)
    history = openai_history(24)
    raw = await oai.chat.completions.with_raw_response.create(model=MODEL, messages=history)
    assert raw.headers["x-contextfold-compacted"] == "true"
    validate_history(from_openai(upstream.chats[-1].json["messages"]))
    history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go on"}]
    stream = await oai.chat.completions.create(model=MODEL, messages=history, stream=True)
    assert stream.response.headers["x-contextfold-summary"] == "cached"
    async for _ in stream:
        pass
    assert len(upstream.summaries) == 1
    await oai.close()


@pytest.mark.parametrize("route", ["/v1/chat/completions", "/v1/messages"])
async def test_streams_are_relayed_chunk_by_chunk(
    proxy_url: str, upstream: Upstream, route: str
) -> None:
    # The upstream holds its last event back until the client has seen the first
    # ones: a proxy that buffered the stream would never deliver them.
    upstream.stream_gate = asyncio.Event()
    messages = openai_history(1) if route.endswith("completions") else anthropic_history(1)
    body = {"model": MODEL, "max_tokens": 10, "stream": True, "messages": messages}
    async with (
        httpx2.AsyncClient(base_url=proxy_url) as client,
        client.stream("POST", route, json=body, headers={"authorization": f"Bearer {KEY}"}) as r,
    ):
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["x-contextfold-compacted"] == "false"
        received = b""
        chunks = r.aiter_raw()
        async with asyncio.timeout(10):
            while b"Hello" not in received:
                received += await anext(chunks)
        # the final events are still held upstream
        assert b'"finish_reason": "stop"' not in received
        assert b"message_stop" not in received
        upstream.stream_gate.set()
        async with asyncio.timeout(10):
            async for chunk in chunks:
                received += chunk
    assert b"Hello" in received
    assert b"[DONE]" in received or b"message_stop" in received


async def test_upstream_status_passes_through_over_real_sockets(
    proxy_url: str, upstream: Upstream
) -> None:
    upstream.fail_chat = (429, {"error": {"message": "slow down"}}, {"retry-after": "3"})
    async with httpx2.AsyncClient(base_url=proxy_url) as client:
        reply = await client.post(
            "/v1/chat/completions", json={"model": MODEL, "messages": openai_history(1)}
        )
    assert reply.status_code == 429
    assert reply.json() == {"error": {"message": "slow down"}}
    assert reply.headers["retry-after"] == "3"


async def test_a_long_failure_reason_never_breaks_the_response(
    proxy_url: str, upstream: Upstream
) -> None:
    # The x-contextfold-error header is cut to 300 characters; cut on a space, it
    # was a value HTTP forbids, and uvicorn dropped the connection.
    history = [*openai_history(1), {"role": " " * 400, "content": "x"}]
    body = {"model": MODEL, "messages": history, "metadata": {"pad": "p" * 20_000}}
    async with httpx2.AsyncClient(base_url=proxy_url) as client:
        reply = await client.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200
    error = reply.headers["x-contextfold-error"]
    assert error.startswith("not compacted")
    assert "unsupported role" in error
    assert error == error.strip()


def test_serve_binds_loopback_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: calls.append(kwargs))
    serve()
    serve(host="0.0.0.0", port=9000)
    assert calls[0]["host"] == "127.0.0.1"
    assert calls[0]["port"] == 8787
    assert (calls[1]["host"], calls[1]["port"]) == ("0.0.0.0", 9000)


QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "proxy_quickstart.md"


def quickstart_section(number: int) -> str:
    """The text of the quickstart's section ``## N. ...``."""
    [section] = [
        part for part in QUICKSTART.read_text().split("\n## ") if part.startswith(f"{number}. ")
    ]
    return section


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


async def test_the_quickstart_python_snippets_run_against_the_proxy(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippets = blocks(quickstart_section(1) + quickstart_section(2), "python")
    assert len(snippets) == 3
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: served.append((app, kwargs)))
    async with Served(upstream.app()) as up:
        # 1: serve(...) and create_app(...) with the documented keywords
        exec(compile(snippets[0], "quickstart-1", "exec"), {})
        assert served[0][1]["host"] == "127.0.0.1"
        app = create_app(
            upstream_openai=f"{up.url}/v1", upstream_anthropic=up.url, db_path="proxy.db"
        )
        async with Served(app) as proxy:
            # 2, 3: the stock clients, pointed at the proxy's real port, as scripts define them
            history = openai_history(2)
            for snippet, messages in ((snippets[1], history), (snippets[2], history[1:])):
                code = snippet.replace("http://127.0.0.1:8787", proxy.url)
                namespace: dict[str, Any] = {}
                exec(compile(code, "quickstart", "exec", dont_inherit=True), namespace)
                await namespace["ask"](messages)
                await namespace["client"].close()
    chats = upstream.chats
    assert [c.path for c in chats] == ["/v1/chat/completions", "/v1/messages"]
    assert chats[0].headers["authorization"] == f"Bearer {KEY}"
    assert (tmp_path / "proxy.db").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(process: subprocess.Popen[str], port: int) -> None:
    for _ in range(600):  # startup imports take seconds on a loaded machine
        assert process.poll() is None, process.communicate()[0]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port}")


def test_the_offline_walkthrough_runs_as_written(tmp_path: Path) -> None:
    """Section 0 of the quickstart, run for real: its shell commands start the fake
    upstream and the proxy (the console script, in subprocesses), then its script, a
    stock ``openai`` client without a real key, prints exactly the output shown."""
    section = quickstart_section(0)
    [shell], [script], [shown] = (
        blocks(section, "bash"),
        blocks(section, "python"),
        blocks(section, "text"),
    )
    ports = {"8765": str(_free_port()), "8787": str(_free_port())}

    def local(text: str) -> str:
        for documented, free in ports.items():
            text = text.replace(documented, free)
        return text

    commands = [
        shlex.split(local(line).removesuffix("&"))
        for line in shell.replace("\\\n", " ").splitlines()
        if line.startswith("contextfold ")
    ]
    assert [c[1] for c in commands] == ["fake-upstream", "serve"]
    assert CLI
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    started: list[subprocess.Popen[str]] = []
    try:
        for command, port in zip(commands, ports.values(), strict=True):
            started.append(
                subprocess.Popen(
                    [CLI, *command[1:]],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    cwd=tmp_path,
                    env=env,
                )
            )
            _wait_listening(started[-1], int(port))
        result = subprocess.run(
            [sys.executable, "-c", local(script)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=300,
        )
    finally:
        logs = []
        for process in started:
            process.send_signal(signal.SIGINT)  # Ctrl-C, as the page says
            logs.append(process.communicate(timeout=60)[0])
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown
    upstream_log = logs[0].splitlines()
    assert upstream_log[0].startswith("fake upstream on http://127.0.0.1:")
    assert sum("summary request" in line for line in upstream_log) >= 2
    assert [process.returncode for process in started] == [0, 0]


@pytest.mark.parametrize(
    "body",
    [
        b"[1, 2]",
        b"not json",
        b'{"model": "m", "system": "s", "messages": 5}',
        b'{"model": "m", "messages": "abc"}',
        b'{"model": 7, "messages": [{"role": "user", "content": "hi"}]}',
        b'{"messages": []}',
    ],
)
@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages", "/v1/responses"])
async def test_the_fake_upstream_answers_hostile_bodies_without_a_500(
    upstream: Upstream, path: str, body: bytes
) -> None:
    upstream.reply_text = None  # the describing mode the command line uses
    async with Served(upstream.app()) as up, httpx2.AsyncClient() as client:
        reply = await client.post(f"{up.url}{path}", content=body)
    assert reply.status_code in (200, 400), reply.text
    assert reply.headers["content-type"].startswith("application/json")

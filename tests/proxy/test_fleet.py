"""Replicas of the proxy sharing one PostgreSQL database (``--db postgresql://...``).

Each test works in a PostgreSQL schema of its own, created here and dropped after.
The replicas are real processes (``contextfold serve``, or uvicorn running the app
with a short lease); the fake upstream runs in the test's event loop and counts the
summarization calls it answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx2
import pytest

from contextfold.compaction import CompactionSettings
from contextfold.formats import from_openai
from contextfold.proxy import create_app
from contextfold.validation import validate_history
from tests._proxy_upstream import Upstream, openai_history
from tests._raw_http import Served
from tests._stores import PG_BASE_DSN
from tests.cli.test_cli import CLI, assert_one_line_error, run
from tests.conftest import require_service

KEY = "sk-test-FLEET-DISTINCTIVE-5c5c"
MODEL = "test-model"
ROOT = Path(__file__).resolve().parents[2]
HEADERS = {"authorization": f"Bearer {KEY}"}

# One worker runs these one after another (``make test``): each starts replica processes.
pytestmark = pytest.mark.xdist_group("fleet")


def _base_url() -> str:
    from psycopg.conninfo import conninfo_to_dict

    params = conninfo_to_dict(PG_BASE_DSN)
    user = f"{params['user']}@" if params.get("user") else ""
    port = f":{params['port']}" if params.get("port") else ""
    return f"postgresql://{user}{params.get('host', '127.0.0.1')}{port}/{params['dbname']}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A ``postgresql://`` URL working in a fresh schema, dropped after the test."""
    import psycopg

    schema = f"cffleet_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    try:
        conn = psycopg.connect(PG_BASE_DSN, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        require_service(f"PostgreSQL is not reachable at {PG_BASE_DSN!r}: {exc}")
        raise
    with conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        try:
            yield f"{_base_url()}?options={quote(f'-csearch_path={schema}')}"
        finally:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
async def upstream() -> AsyncIterator[tuple[Upstream, str]]:
    fake = Upstream()
    async with Served(fake.app()) as served:
        yield fake, served.url


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _listening(process: subprocess.Popen[str], port: int) -> None:
    for _ in range(600):  # startup imports take seconds on a loaded machine
        assert process.poll() is None, process.communicate()[0]
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        return
    raise AssertionError(f"nothing listens on port {port}")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    return env


async def _start(*commands: list[str]) -> tuple[list[subprocess.Popen[str]], list[str]]:
    processes, urls = [], []
    for command in commands:
        port = _free_port()
        args = [arg.replace("{port}", str(port)) for arg in command]
        processes.append(
            subprocess.Popen(  # noqa: ASYNC220 - starting is quick; waiting is async
                args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env()
            )
        )
        urls.append(f"http://127.0.0.1:{port}")
    for process, url in zip(processes, urls, strict=True):
        await _listening(process, int(url.rsplit(":", 1)[1]))
    return processes, urls


def _stop(processes: list[subprocess.Popen[str]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    for process in processes:
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def _summary_of(body: dict[str, Any]) -> str:
    """The summary text a forwarded (compacted) request carries."""
    texts = [m["content"] for m in body["messages"] if isinstance(m.get("content"), str)]
    found = [t for t in texts if "SUMMARY-" in t]
    assert len(found) == 1, texts[:3]
    return found[0]


async def _twenty_requests(urls: list[str], body: dict[str, Any]) -> list[httpx2.Response]:
    """20 concurrent requests of one conversation, alternating between the replicas."""
    async with httpx2.AsyncClient(timeout=120) as client:
        return await asyncio.gather(
            *[
                client.post(f"{urls[i % 2]}/v1/chat/completions", json=body, headers=HEADERS)
                for i in range(20)
            ]
        )


def _all_compacted_alike(fake: Upstream, replies: list[httpx2.Response]) -> None:
    assert [r.status_code for r in replies] == [200] * 20
    assert all(r.headers["x-contextfold-compacted"] == "true" for r in replies)
    states = sorted(r.headers["x-contextfold-summary"] for r in replies)
    assert states == ["cached"] * 19 + ["created"]
    chats = fake.chats
    assert len(chats) == 20
    assert {_summary_of(c.json) for c in chats} == {_summary_of(chats[0].json)}
    for chat in chats:
        validate_history(from_openai(chat.json["messages"]))


async def test_two_replicas_pay_for_exactly_one_summary(
    pg_url: str, upstream: tuple[Upstream, str]
) -> None:
    fake, up = upstream
    fake.summary_delay = 0.5  # every request arrives while the summary is being made
    replica = [sys.executable, "-m", "tests._fleet_replica", "{port}", up, pg_url, "30"]
    processes, urls = await _start(replica, replica)
    try:
        replies = await _twenty_requests(urls, {"model": MODEL, "messages": openai_history(12)})
    finally:
        _stop(processes)
    assert len(fake.summaries) == 1
    _all_compacted_alike(fake, replies)
    assert "SUMMARY-1 (fresh)" in _summary_of(fake.chats[0].json)


async def test_two_serve_processes_on_one_database_summarize_once(
    pg_url: str, upstream: tuple[Upstream, str]
) -> None:
    """``contextfold serve --db postgresql://...``: the replicas make one compaction,
    as many summarizer calls as a single proxy makes for the history (the default
    threshold leaves more to summarize than one call reads, for this window)."""
    fake, up = upstream
    body = {"model": MODEL, "messages": openai_history(30)}
    alone = Upstream()
    async with Served(alone.app()) as solo:
        app = create_app(upstream_openai=f"{solo.url}/v1", context_window=16_384)
        async with Served(app) as proxy, httpx2.AsyncClient(timeout=120) as client:
            await client.post(f"{proxy.url}/v1/chat/completions", json=body, headers=HEADERS)
    assert len(alone.summaries) > 1
    fake.summary_delay = 0.5
    assert CLI
    serve = [CLI, "serve", "--port", "{port}", "--upstream-openai", f"{up}/v1"]
    serve += ["--db", pg_url, "--context-window", "16384"]
    processes, urls = await _start(serve, serve)
    try:
        replies = await _twenty_requests(urls, body)
    finally:
        _stop(processes)
    assert len(fake.summaries) == len(alone.summaries)
    _all_compacted_alike(fake, replies)


async def test_a_replica_killed_mid_summary_blocks_the_other_only_for_its_lease(
    pg_url: str, upstream: tuple[Upstream, str]
) -> None:
    fake, up = upstream
    gate = fake.summary_gate = asyncio.Event()  # the first replica's summary never comes back
    lease = 2.0
    replica = [sys.executable, "-m", "tests._fleet_replica", "{port}", up, pg_url, str(lease)]
    processes, (first, second) = await _start(replica, replica)
    body = {"model": MODEL, "messages": openai_history(12)}
    try:
        async with httpx2.AsyncClient(timeout=120) as client:
            doomed = asyncio.create_task(
                client.post(f"{first}/v1/chat/completions", json=body, headers=HEADERS)
            )
            async with asyncio.timeout(60):
                while not fake.summaries:  # noqa: ASYNC110 - the fake upstream has no event
                    await asyncio.sleep(0.02)
            fake.summary_gate = None
            waiting = asyncio.create_task(
                client.post(f"{second}/v1/chat/completions", json=body, headers=HEADERS)
            )
            await asyncio.sleep(0.5)
            assert not waiting.done()  # the first replica's lease holds it back
            processes[0].kill()
            killed_at = time.monotonic()
            reply = await waiting
            waited = time.monotonic() - killed_at
            with pytest.raises(httpx2.HTTPError):
                await doomed
    finally:
        gate.set()
        _stop(processes)
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-summary"] == "created"
    assert waited < lease + 3
    assert len(fake.summaries) == 2  # the dead replica's, then the survivor's


async def test_replicas_share_usage_anchors(pg_url: str, upstream: tuple[Upstream, str]) -> None:
    """A prompt size reported to one replica anchors the next estimate on another."""
    fake, up = upstream
    fake.usage_scale = 3.0  # the upstream counts three times what the proxy would
    apps = [
        create_app(upstream_openai=f"{up}/v1", db=pg_url, context_window=200_000) for _ in range(2)
    ]
    history = openai_history(12, chars=4000)  # too long for the byte fast path
    async with Served(apps[0]) as one, Served(apps[1]) as two, httpx2.AsyncClient() as client:
        url = "/v1/chat/completions"
        first = await client.post(
            one.url + url, json={"model": MODEL, "messages": history}, headers=HEADERS
        )
        reported = first.json()["usage"]["prompt_tokens"]
        assert int(first.headers["x-contextfold-tokens-before"]) < reported
        history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "on"}]
        async with asyncio.timeout(10):  # the anchor is written in the background
            while True:
                second = await client.post(
                    two.url + url, json={"model": MODEL, "messages": history}, headers=HEADERS
                )
                if int(second.headers["x-contextfold-tokens-before"]) >= reported:
                    break
                await asyncio.sleep(0.05)
    assert int(second.headers["x-contextfold-tokens-before"]) < reported + 100


async def test_a_summary_made_by_one_app_is_spliced_by_another(
    pg_url: str, upstream: tuple[Upstream, str]
) -> None:
    fake, up = upstream
    apps = [
        create_app(
            upstream_openai=f"{up}/v1",
            db=pg_url,
            context_window=16_384,
            settings=CompactionSettings(threshold=0.3),
        )
        for _ in range(2)
    ]
    body = {"model": MODEL, "messages": openai_history(12)}
    async with (
        Served(apps[0]) as one,
        Served(apps[1]) as two,
        httpx2.AsyncClient(timeout=60) as client,  # it summarizes: not 5 s on a loaded machine
    ):
        made = await client.post(f"{one.url}/v1/chat/completions", json=body, headers=HEADERS)
        body["messages"] += [
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "?"},
        ]
        used = await client.post(f"{two.url}/v1/chat/completions", json=body, headers=HEADERS)
    assert made.headers["x-contextfold-summary"] == "created"
    assert used.headers["x-contextfold-summary"] == "cached"
    assert len(fake.summaries) == 1
    assert _summary_of(fake.chats[1].json) == _summary_of(fake.chats[0].json)


def test_serve_with_an_unreachable_database_fails_in_one_line() -> None:
    secret = "hunter2-FLEET-PASSWORD"
    result = run(
        "serve",
        "--port",
        str(_free_port()),
        "--db",
        f"postgresql://postgres:{secret}@127.0.0.1:1/nowhere",
        timeout=60,
    )
    line = assert_one_line_error(result)
    assert "postgresql://postgres@127.0.0.1:1/nowhere: cannot be used as the summary cache" in line
    assert secret not in result.stderr + result.stdout


def test_db_and_db_path_are_exclusive(tmp_path: Path) -> None:
    with (
        pytest.raises(ValueError, match="db or db_path"),
        pytest.warns(DeprecationWarning, match="db_path"),
    ):
        create_app(db=str(tmp_path / "a.db"), db_path=tmp_path / "b.db")


async def test_db_names_an_sqlite_file_too(tmp_path: Path, upstream: tuple[Upstream, str]) -> None:
    _, up = upstream
    app = create_app(upstream_openai=f"{up}/v1", db=tmp_path / "cache.db", context_window=16_384)
    body = {"model": MODEL, "messages": openai_history(30)}
    # (it summarizes: httpx2's default timeout of 5 s is too short on a loaded machine)
    async with Served(app) as proxy, httpx2.AsyncClient(timeout=60) as client:
        reply = await client.post(f"{proxy.url}/v1/chat/completions", json=body, headers=HEADERS)
    assert reply.headers["x-contextfold-summary"] == "created"
    assert (tmp_path / "cache.db").exists()
    assert json.loads(reply.content)["choices"]


async def test_without_the_lease_table_a_replica_still_summarizes(
    pg_url: str, upstream: tuple[Upstream, str], caplog: pytest.LogCaptureFixture
) -> None:
    """The lease only saves money: a database that cannot answer for it (here, its
    tables gone) costs a second summary at worst, never a request."""
    import psycopg

    fake, up = upstream
    app = create_app(
        upstream_openai=f"{up}/v1",
        db=pg_url,
        context_window=16_384,
        settings=CompactionSettings(threshold=0.3),
    )
    body = {"model": MODEL, "messages": openai_history(12)}
    async with Served(app) as proxy, httpx2.AsyncClient(timeout=60) as client:
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            await conn.execute("DROP TABLE contextfold_proxy_leases, contextfold_proxy_anchors")
        reply = await client.post(f"{proxy.url}/v1/chat/completions", json=body, headers=HEADERS)
    assert reply.status_code == 200
    assert reply.headers["x-contextfold-summary"] == "created"
    assert len(fake.summaries) == 1
    assert any("summarizing without one" in r.getMessage() for r in caplog.records)


class _Relay:
    """A TCP relay to the test database that can stop answering (``stall``: sockets
    stay open, nothing passes, new connections are accepted and ignored) or go away
    (``drop``: every connection reset, the port closed)."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._writers: list[asyncio.StreamWriter] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self.port = 0
        self.answered = 0  # bytes the database sent

    async def __aenter__(self) -> _Relay:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.drop()
        for task in self._tasks:
            task.cancel()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        if not self._flowing.is_set():
            return
        up_reader, up_writer = await asyncio.open_connection(*self._target)
        self._writers.append(up_writer)
        pipes = (self._pipe(reader, up_writer), self._pipe(up_reader, writer, answers=True))
        for task in pipes:
            self._tasks.add(asyncio.create_task(task))

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, answers: bool = False
    ) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                await self._flowing.wait()
                if answers:
                    self.answered += len(data)
                writer.write(data)
                await writer.drain()

    def stall(self) -> None:
        self._flowing.clear()

    def drop(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._writers:
            writer.transport.abort()


@pytest.mark.parametrize("failure", ["stall", "drop"])
async def test_a_database_that_stops_answering_delays_a_request_only_briefly(
    pg_url: str, upstream: tuple[Upstream, str], failure: str
) -> None:
    """A database gone silent mid-run (or gone) must not hold requests: each is
    answered within the cache's query timeout (5 s by default, 1 s here), uncompacted,
    saying why."""
    from psycopg.conninfo import conninfo_to_dict

    fake, up = upstream
    params = conninfo_to_dict(pg_url)
    async with _Relay(params.get("host", "127.0.0.1"), int(params.get("port", 5432))) as relay:
        relayed = pg_url.replace(f":{params.get('port', 5432)}/", f":{relay.port}/", 1)
        assert relayed != pg_url
        app = create_app(
            upstream_openai=f"{up}/v1",
            db=relayed,
            context_window=16_384,
            settings=CompactionSettings(threshold=0.3),
        )
        async with Served(app) as proxy, httpx2.AsyncClient(timeout=120) as client:
            app.state.forwarder.planner.cache.query_timeout = 1.0  # the default waits 5 s
            url = f"{proxy.url}/v1/chat/completions"
            body = {"model": MODEL, "messages": openai_history(12)}
            made = await client.post(url, json=body, headers=HEADERS)
            assert made.headers["x-contextfold-summary"] == "created"
            await asyncio.sleep(0.2)  # the anchor of that reply is written
            relay.stall() if failure == "stall" else relay.drop()
            for turns in (13, 14):
                started = time.monotonic()
                body = {"model": MODEL, "messages": openai_history(turns)}
                reply = await client.post(url, json=body, headers=HEADERS)
                assert time.monotonic() - started < 4
                assert reply.status_code == 200
                assert "x-contextfold-error" in reply.headers
                assert json.loads(reply.content)["choices"]
    assert len(fake.chats) == 3


async def test_a_summary_the_database_cannot_store_still_compacts_its_request(
    pg_url: str, upstream: tuple[Upstream, str]
) -> None:
    """A summary is paid for before it is stored: a database refusing the row costs
    the cache entry, not the compaction of the request that paid for it."""
    import psycopg

    fake, up = upstream
    app = create_app(
        upstream_openai=f"{up}/v1",
        db=pg_url,
        context_window=16_384,
        settings=CompactionSettings(threshold=0.3),
    )
    body = {"model": MODEL, "messages": openai_history(12)}
    async with Served(app) as proxy, httpx2.AsyncClient(timeout=60) as client:
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            await conn.execute(
                "ALTER TABLE contextfold_proxy_summaries "
                "ADD CONSTRAINT refuse CHECK (length(summary) < 0) NOT VALID"
            )
        reply = await client.post(f"{proxy.url}/v1/chat/completions", json=body, headers=HEADERS)
    assert reply.status_code == 200
    assert len(fake.summaries) == 1
    assert reply.headers["x-contextfold-summary"] == "created"
    assert reply.headers["x-contextfold-compacted"] == "true"
    _summary_of(fake.chats[0].json)


async def test_a_summary_quoting_a_nul_character_is_shared(
    pg_url: str, upstream: tuple[Upstream, str]
) -> None:
    """JSON allows ``\\u0000`` in a message, and the summary quotes the user's words;
    PostgreSQL text cannot hold NUL, yet the summary must still be cached, not paid
    for again by every request."""
    fake, up = upstream
    app = create_app(
        upstream_openai=f"{up}/v1",
        db=pg_url,
        context_window=16_384,
        settings=CompactionSettings(threshold=0.3),
    )
    history = openai_history(12)
    for message in history:
        if message["role"] == "user":
            message["content"] = "NUL\u0000here " + message["content"]
    body = {"model": MODEL, "messages": history}
    async with Served(app) as proxy, httpx2.AsyncClient(timeout=60) as client:
        url = f"{proxy.url}/v1/chat/completions"
        made = await client.post(url, json=body, headers=HEADERS)
        body["messages"] += [
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "?"},
        ]
        used = await client.post(url, json=body, headers=HEADERS)
    assert made.headers["x-contextfold-summary"] == "created"
    assert used.headers["x-contextfold-summary"] == "cached"
    assert len(fake.summaries) == 1


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://postgres:hunter2-FLEET-PASSWORD@[::1/nowhere",  # unclosed IPv6 bracket
        "postgresql://postgres:hunter2-FLEET-PASSWORD%zz@127.0.0.1:1/nowhere",  # bad escape
    ],
)
def test_a_malformed_database_url_fails_without_its_password(url: str) -> None:
    """libpq quotes the text it cannot parse: the password must not reach the error."""
    result = run("serve", "--port", str(_free_port()), "--db", url, timeout=60)
    line = assert_one_line_error(result)
    assert "cannot be used as the summary cache" in line
    assert "hunter2" not in result.stderr + result.stdout


async def test_opening_a_malformed_database_url_raises_without_its_password() -> None:
    """``create_app(db=...)`` opens the cache in its lifespan, where the server logs
    the error with its whole chain: no part of it may carry the password."""
    import psycopg

    from contextfold.proxy._pgcache import PostgresSummaryCache

    cache = PostgresSummaryCache("postgresql://postgres:hunter2-FLEET-PASSWORD@[::1/nowhere")
    with pytest.raises(psycopg.Error) as caught:
        await cache.open()
    chain: list[BaseException] = []
    error: BaseException | None = caught.value
    while error is not None and len(chain) < 10:
        chain.append(error)
        error = error.__cause__ or error.__context__
    assert "IPv6" in str(caught.value)
    assert not any("hunter2" in f"{e} {e.args}" for e in chain)


async def test_looking_up_a_summary_reads_only_the_one_it_splices(pg_url: str) -> None:
    """Summaries of branches a conversation left (edits, regenerations) stay in its
    rows: a lookup must not transfer every one of them with each request."""
    from psycopg.conninfo import conninfo_to_dict

    from contextfold.compaction._cache import CachedSummary
    from contextfold.proxy._pgcache import PostgresSummaryCache

    params = conninfo_to_dict(pg_url)
    async with _Relay(params.get("host", "127.0.0.1"), int(params.get("port", 5432))) as relay:
        cache = PostgresSummaryCache(
            pg_url.replace(f":{params.get('port', 5432)}/", f":{relay.port}/", 1)
        )
        await cache.open()
        try:
            for i in range(8):  # 8 MB of summaries of abandoned branches
                await cache.store("root", CachedSummary(f"gone{i}", 10 + i, "x" * 1_000_000))
            await cache.store("root", CachedSummary("h50", 50, "the summary"))
            chain = [f"h{i}" for i in range(101)]
            before = relay.answered
            hit = await cache.longest("root", chain)
            read = relay.answered - before
        finally:
            await cache.close()
    assert hit == CachedSummary("h50", 50, "the summary")
    assert read < 100_000


async def test_a_replica_that_runs_for_weeks_prunes_old_anchors(pg_url: str) -> None:
    """Every forwarded history leaves an anchor row: rows a week old must go while
    replicas run, not only when one starts."""
    import psycopg

    from contextfold.proxy._pgcache import PostgresSummaryCache

    cache = PostgresSummaryCache(pg_url)
    await cache.open()
    try:
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            await conn.execute(
                "INSERT INTO contextfold_proxy_anchors VALUES ('stale', 1, 0), ('fresh', 2, %s)",
                (int(time.time() * 1000),),
            )
            for i in range(1000):
                cache.push_anchor(f"key{i}", i)
            await cache.close()
            cursor = await conn.execute(
                "SELECT usage_key FROM contextfold_proxy_anchors WHERE usage_key IN "
                "('stale', 'fresh')"
            )
            assert [row[0] for row in await cursor.fetchall()] == ["fresh"]
    finally:
        await cache.close()


async def test_connections_the_server_closed_cost_no_request(
    pg_url: str, upstream: tuple[Upstream, str]
) -> None:
    """A database restart (or failover) closes the pool's idle connections: the next
    request must be compacted all the same, not forwarded as an internal error."""
    import psycopg

    _, up = upstream
    tagged = f"{pg_url}&application_name=cfkill{uuid.uuid4().hex[:8]}"
    app = create_app(
        upstream_openai=f"{up}/v1",
        db=tagged,
        context_window=16_384,
        settings=CompactionSettings(threshold=0.3),
    )
    async with Served(app) as proxy, httpx2.AsyncClient(timeout=60) as client:
        url = f"{proxy.url}/v1/chat/completions"
        body = {"model": MODEL, "messages": openai_history(12)}
        made = await client.post(url, json=body, headers=HEADERS)
        assert made.headers["x-contextfold-summary"] == "created"
        await asyncio.sleep(0.2)  # the anchor of that reply is written
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            cursor = await conn.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE application_name = %s",
                (tagged.rsplit("=", 1)[1],),
            )
            assert (await cursor.fetchone()) != (0,)
        body = {"model": MODEL, "messages": openai_history(13)}
        used = await client.post(url, json=body, headers=HEADERS)
    assert "x-contextfold-error" not in used.headers
    assert used.headers["x-contextfold-summary"] == "cached"

"""How the store contract suite builds each kind of store.

Add a kind to :data:`STORE_KINDS` and a branch to :func:`open_store` and every
contract test in ``tests/stores/test_base.py`` runs against it. :func:`two_stores`
opens two stores on one session through separate connections, for races.

``postgres`` uses the database named by ``CONTEXTFOLD_TEST_PG_DSN`` (default: the local
``test`` database), in a schema of this test session's own: :data:`PG_DSN` sets its
``search_path``, so every connection, pool and subprocess worker given that DSN works
in it; it is created on first use and dropped, with everything in it, when the test
session ends (``tests/conftest.py``), so nothing is left in the shared database.
``redis`` uses the one at ``CONTEXTFOLD_TEST_REDIS_URL`` (default:
``redis://127.0.0.1:6379/0``, under a key prefix of its own that is deleted after the
test); when a server is unreachable the test is skipped through ``require_service``
(a failure in CI, where ``CONTEXTFOLD_REQUIRE_SERVICES=1``).
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from contextfold.context import ContextStore, MemoryContextStore

STORE_KINDS = ["memory", "sqlite", "postgres", "redis"]

PG_BASE_DSN = os.environ.get(
    "CONTEXTFOLD_TEST_PG_DSN", "host=127.0.0.1 port=5432 user=postgres dbname=test"
)
PG_SCHEMA = os.environ.get("CONTEXTFOLD_TEST_PG_SCHEMA") or (
    f"cftest_{os.getpid()}_{uuid.uuid4().hex[:12]}"
)
"""This test session's schema (``CONTEXTFOLD_TEST_PG_SCHEMA`` names it, for tests of this)."""
if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", PG_SCHEMA):
    raise ValueError(f"CONTEXTFOLD_TEST_PG_SCHEMA must be a plain lower-case name: {PG_SCHEMA!r}")


def pg_dsn(schema: str) -> str:
    """:data:`PG_BASE_DSN` working in ``schema`` (its ``search_path``), as a conninfo string."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    options = str(conninfo_to_dict(PG_BASE_DSN).get("options") or "")
    return make_conninfo(PG_BASE_DSN, options=f"{options} -c search_path={schema}".strip())


PG_DSN = pg_dsn(PG_SCHEMA)
_schema_ready = False


async def pg_connection_or_skip(require_service: Callable[[str], Any]) -> Any:
    """An autocommit psycopg connection to the test server in :data:`PG_SCHEMA` (created
    on first use), or skip/fail via ``require_service``."""
    import psycopg

    global _schema_ready
    try:
        conn = await psycopg.AsyncConnection.connect(PG_DSN, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        require_service(f"PostgreSQL is not reachable at {PG_BASE_DSN!r}: {exc}")
        raise
    if not _schema_ready:
        await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {PG_SCHEMA}")
        _schema_ready = True
    return conn


def drop_pg_schema() -> None:
    """Drop :data:`PG_SCHEMA` and everything in it, if this session created it."""
    global _schema_ready
    if not _schema_ready:
        return
    import psycopg

    with psycopg.connect(PG_BASE_DSN, autocommit=True, connect_timeout=3) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")
    _schema_ready = False


REDIS_URL = os.environ.get("CONTEXTFOLD_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


async def redis_client_or_skip(require_service: Callable[[str], Any], **kwargs: Any) -> Any:
    """A ``redis.asyncio.Redis`` to the test server, or skip/fail via ``require_service``."""
    from redis.asyncio import Redis
    from redis.exceptions import RedisError

    client = Redis.from_url(REDIS_URL, socket_connect_timeout=3, **kwargs)
    try:
        await client.ping()
    except (RedisError, OSError) as exc:
        await client.aclose()
        require_service(f"Redis is not reachable at {REDIS_URL!r}: {exc}")
        raise
    return client


def redis_prefix() -> str:
    """A key prefix no other test uses."""
    return f"cftest-{uuid.uuid4().hex}"


async def drop_prefix(client: Any, prefix: str) -> None:
    """Delete every key under ``prefix`` (a test's clean-up)."""
    keys = [key async for key in client.scan_iter(match=f"{prefix}:*", count=1000)]
    if keys:
        await client.delete(*keys)


@asynccontextmanager
async def open_store(
    kind: str, tmp_path: Path, require_service: Callable[[str], Any]
) -> AsyncIterator[ContextStore]:
    if kind == "memory":
        yield MemoryContextStore()
        return
    if kind == "sqlite":
        from contextfold.sqlite import SQLiteContextStore, connect

        conn = await connect(tmp_path / "contract.db")
        try:
            yield SQLiteContextStore(conn)
        finally:
            await conn.close()
        return
    if kind == "postgres":
        from contextfold.postgres import PostgresContextStore

        pg = await pg_connection_or_skip(require_service)
        try:
            yield PostgresContextStore(pg)
        finally:
            await pg.close()
        return
    if kind == "redis":
        from contextfold.redis import RedisContextStore

        client = await redis_client_or_skip(require_service)
        prefix = redis_prefix()
        try:
            yield RedisContextStore(client, prefix=prefix)
        finally:
            await drop_prefix(client, prefix)
            await client.aclose()
        return
    raise ValueError(f"unknown store kind {kind!r}")


@asynccontextmanager
async def two_stores(
    kind: str, tmp_path: Path, require_service: Callable[[str], Any], name: str = "race"
) -> AsyncIterator[tuple[Any, Any]]:
    """Two stores of ``kind`` on one new session named after ``name``, each with its own
    connection or client (the same object for ``memory``), for tests of races that
    only the database keeps apart."""
    if kind == "memory":
        from contextfold.stores.memory import MemoryContextStore

        one = MemoryContextStore()
        yield one, one
        return
    if kind == "sqlite":
        from contextfold.sqlite import SQLiteContextStore, connect

        a, b = await connect(tmp_path / f"{name}.db"), await connect(tmp_path / f"{name}.db")
        try:
            yield SQLiteContextStore(a, name), SQLiteContextStore(b, name)
        finally:
            await a.close()
            await b.close()
        return
    if kind == "postgres":
        import psycopg

        from contextfold.postgres import PostgresContextStore

        first = await pg_connection_or_skip(require_service)
        second = await psycopg.AsyncConnection.connect(PG_DSN, autocommit=True)
        sid = f"{name}-{id(first)}"
        try:
            yield PostgresContextStore(first, sid), PostgresContextStore(second, sid)
        finally:
            await PostgresContextStore(first, sid).clear()
            await first.close()
            await second.close()
        return
    from contextfold.redis import RedisContextStore

    c1 = await redis_client_or_skip(require_service)
    c2 = await redis_client_or_skip(require_service)
    prefix = redis_prefix()
    try:
        yield (
            RedisContextStore(c1, name, prefix=prefix),
            RedisContextStore(c2, name, prefix=prefix),
        )
    finally:
        await drop_prefix(c1, prefix)
        await c1.aclose()
        await c2.aclose()

"""Benchmark the persistent stores against the physical floor, side by side in one run.

    .venv/bin/python bench/stores.py            # SQLite, plus PostgreSQL and Redis if reachable
    CONTEXTFOLD_BENCH_PG_DSN="host=... dbname=..." .venv/bin/python bench/stores.py
    CONTEXTFOLD_BENCH_REDIS_URL="redis://host:6379/0" .venv/bin/python bench/stores.py

Every figure is measured in this run, and every ratio compares two measurements of
this run on the same machine. The floor is raw ``sqlite3`` with the same rows
(already encoded), the same file settings (WAL, synchronous=NORMAL) and no Python
objects in between. Messages are realistic agent rounds: a question, an assistant
turn with a tool call, a ~1.5 KB tool result, an answer.

Scale: the 10,000-message append goes through ``append`` one message (one
transaction) at a time; the 100,000-message session is loaded in one transaction with
``replace_prefix(0, ...)`` (100,000 single appends would take minutes), and per-append
cost is then measured with 1,000 appends on top of a 1,000- and a 100,000-message
session (alternating batches of 333, best batch of each). PostgreSQL runs a smaller
set (2,000 appends, a 10,000-message session) to stay within about two
minutes. Redis is compared with raw redis-py on the same client: ``RPUSH`` of the
already-encoded JSON (the floor) and ``json.dumps`` + ``RPUSH`` (a hand-written store),
``LRANGE`` alone and ``LRANGE`` + ``json.loads`` + ``Message.from_dict``; its flatness
check loads a 50,000-message session with one ``replace_prefix(0, ...)``. Prints a
markdown table.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.stores._rows import encode_message
from contextfold.stores.base import ContextStore
from contextfold.stores.sqlite import SQLiteContextStore, connect

PG_DSN = os.environ.get("CONTEXTFOLD_BENCH_PG_DSN", "host=127.0.0.1 user=postgres dbname=test")
REDIS_URL = os.environ.get("CONTEXTFOLD_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
ROWS: list[tuple[str, str, str, int]] = []  # the table body


def conversation(n: int) -> list[Message]:
    out: list[Message] = []
    i = 0
    while len(out) < n:
        out += [
            Message.user(
                f"Step {i}: the test in tests/test_mod{i}.py fails, can you check why? " * 2
            ),
            Message(
                "assistant",
                [
                    TextBlock("Let me read the file first."),
                    ToolUseBlock(
                        f"call_{i}", "read_file", {"path": f"src/mod{i}.py", "lines": [1, 80]}
                    ),
                ],
            ),
            Message(
                "user", [ToolResultBlock(f"call_{i}", f"def f{i}(x):\n    return x + {i}\n" * 50)]
            ),
            Message.assistant(
                f"The bug in mod{i} is an off-by-one in f{i}; fixed by returning x. " * 3
            ),
        ]
        i += 1
    return out[:n]


async def timed(fn: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


def timed_sync(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def row(what: str, ours: float, floor: float | None, floor_name: str) -> None:
    ratio = f"{ours / floor:.1f}×" if floor else "—"
    floor_text = f"{floor * 1000:.1f} ms ({floor_name})" if floor else floor_name
    ROWS.append((what, f"{ours * 1000:.1f} ms", floor_text, ratio))


def raw_db(path: Path) -> sqlite3.Connection:
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode = WAL")
    raw.execute("PRAGMA synchronous = NORMAL")
    raw.execute(
        "CREATE TABLE m (session_id TEXT, seq INTEGER, role TEXT, content TEXT, tokens INTEGER, "
        "synthetic INTEGER DEFAULT 0, PRIMARY KEY (session_id, seq))"
    )
    return raw


def raw_insert(
    raw: sqlite3.Connection, sid: str, rows: list[tuple[str, str, int]], *, one_tx: bool
) -> None:
    sql = "INSERT INTO m (session_id, seq, role, content, tokens) VALUES (?, ?, ?, ?, ?)"
    if one_tx:
        raw.execute("BEGIN")
        raw.executemany(sql, [(sid, i, *r) for i, r in enumerate(rows)])
        raw.execute("COMMIT")
        return
    for i, r in enumerate(rows):
        raw.execute("BEGIN")
        raw.execute(sql, (sid, i, *r))
        raw.execute("COMMIT")


async def per_append_us(store: ContextStore, extra: list[Message]) -> float:
    async def go() -> None:
        for m in extra:
            await store.append(m)

    return await timed(go) / len(extra) * 1e6


async def flatness(
    short: ContextStore, long: ContextStore, extra: list[Message]
) -> tuple[float, float]:
    """Per-append µs on a short and a long session: batches alternate, best batch wins."""
    third = len(extra) // 3
    best_short = best_long = float("inf")
    for k in range(3):
        batch = extra[k * third : (k + 1) * third]
        best_short = min(best_short, await per_append_us(short, batch))
        best_long = min(best_long, await per_append_us(long, batch))
    return best_short, best_long


async def bench_sqlite(tmp: Path) -> None:
    small, big = conversation(10_000), conversation(100_000)
    small_rows = [encode_message(m) for m in small]
    big_rows = [encode_message(m) for m in big]
    conn = await connect(tmp / "ours.db")
    raw = raw_db(tmp / "raw.db")

    store = SQLiteContextStore(conn, "s10k")

    async def append_all() -> None:
        for m in small:
            await store.append(m)

    ours = await timed(append_all)
    row(
        "SQLite: append 10k, one `append` each",
        ours,
        timed_sync(lambda: raw_insert(raw, "a", small_rows, one_tx=True)),
        "raw executemany, 1 tx",
    )
    row(
        "SQLite: append 10k, one `append` each",
        ours,
        timed_sync(lambda: raw_insert(raw, "b", small_rows, one_tx=False)),
        "raw sqlite3, 1 tx per row",
    )

    big_store = SQLiteContextStore(conn, "s100k")
    ours = await timed(lambda: big_store.replace_prefix(0, big))
    row(
        "SQLite: load 100k in one transaction",
        ours,
        timed_sync(lambda: raw_insert(raw, "c", big_rows, one_tx=True)),
        "raw executemany, 1 tx",
    )

    for label, st, sid in (("10k", store, "a"), ("100k", big_store, "c")):
        ours = await timed(st.get_history)
        floor = timed_sync(
            lambda sid=sid: raw.execute(
                "SELECT seq, role, content FROM m WHERE session_id = ? ORDER BY seq", (sid,)
            ).fetchall()
        )
        row(
            f"SQLite: get_history {label} (decoded to Messages)",
            ours,
            floor,
            "raw SELECT, rows only",
        )

    ours = await timed(big_store.fork)

    def raw_fork() -> None:
        raw.execute("BEGIN")
        raw.execute(
            "INSERT INTO m SELECT 'd', seq, role, content, tokens, synthetic "
            "FROM m WHERE session_id = 'c'"
        )
        raw.execute("COMMIT")

    row("SQLite: fork 100k", ours, timed_sync(raw_fork), "raw INSERT…SELECT")

    keep = big[-20:]
    ours = await timed(
        lambda: big_store.replace_history([Message.user("summary"), Message.assistant("ok"), *keep])
    )

    def raw_replace() -> None:
        raw.execute("BEGIN")
        raw.execute("DELETE FROM m WHERE session_id = 'c' AND seq < ?", (len(big) - 20,))
        raw.executemany(
            "INSERT INTO m (session_id, seq, role, content, tokens) VALUES ('c', ?, ?, ?, ?)",
            [
                (-2 + i, *encode_message(m))
                for i, m in enumerate([Message.user("summary"), Message.assistant("ok")])
            ],
        )
        raw.execute("COMMIT")

    row(
        "SQLite: replace_history 100k → summary + 20 (archives 99,980)",
        ours,
        timed_sync(raw_replace),
        "raw DELETE + INSERT, no archive",
    )

    extra = conversation(1_000)
    one_k = SQLiteContextStore(conn, "s1k")
    await one_k.replace_prefix(0, small[:1_000])
    hundred_k = SQLiteContextStore(conn, "s100k-b")
    await hundred_k.replace_prefix(0, big)
    at_1k, at_100k = await flatness(one_k, hundred_k, extra)
    ROWS.append(("SQLite: one append on a 1k-message session", f"{at_1k:.0f} µs", "", ""))
    ROWS.append(
        (
            "SQLite: one append on a 100k-message session",
            f"{at_100k:.0f} µs",
            f"{at_1k:.0f} µs (on 1k)",
            f"{at_100k / at_1k:.2f}×",
        )
    )
    await conn.close()
    raw.close()


async def bench_postgres() -> None:
    try:
        import psycopg

        from contextfold.stores.postgres import PostgresContextStore
        from contextfold.stores.postgres import connect as pg_connect

        conn = await pg_connect(PG_DSN, connect_timeout=3)
    except Exception as exc:  # any failure here only means "no PostgreSQL numbers"
        ROWS.append(("PostgreSQL", "skipped", f"not reachable: {type(exc).__name__}", ""))
        return
    run = os.urandom(4).hex()
    msgs = conversation(10_000)
    store = PostgresContextStore(conn, f"bench-{run}-a")

    async def append_2k() -> None:
        for m in msgs[:2_000]:
            await store.append(m)

    ours = await timed(append_2k)
    ROWS.append(
        (
            "PostgreSQL: append 2k, one `append` each",
            f"{ours * 1000:.0f} ms",
            f"{ours / 2_000 * 1e6:.0f} µs per append",
            "",
        )
    )
    big = PostgresContextStore(conn, f"bench-{run}-b")
    ROWS.append(
        (
            "PostgreSQL: load 10k in one transaction",
            f"{await timed(lambda: big.replace_prefix(0, msgs)) * 1000:.0f} ms",
            "",
            "",
        )
    )
    ROWS.append(
        ("PostgreSQL: get_history 10k", f"{await timed(big.get_history) * 1000:.0f} ms", "", "")
    )
    forked: list[Any] = []

    async def fork() -> None:
        forked.append(await big.fork())

    ROWS.append(("PostgreSQL: fork 10k", f"{await timed(fork) * 1000:.0f} ms", "", ""))
    summary = [Message.user("s"), Message.assistant("ok"), *msgs[-20:]]
    ROWS.append(
        (
            "PostgreSQL: replace_history 10k → summary + 20",
            f"{await timed(lambda: big.replace_history(summary)) * 1000:.0f} ms",
            "",
            "",
        )
    )
    extra = conversation(300)
    small = PostgresContextStore(conn, f"bench-{run}-c")
    await small.replace_prefix(0, msgs[:1_000])
    large = forked[0]
    at_small, at_large = await flatness(small, large, extra)
    ROWS.append(
        (
            "PostgreSQL: one append on a 1k / 10k session",
            f"{at_small:.0f} / {at_large:.0f} µs",
            "",
            f"{at_large / at_small:.2f}×",
        )
    )
    async with conn.cursor() as cur:
        for table in (
            "contextfold_archive",
            "contextfold_compactions",
            "contextfold_messages",
            "contextfold_sessions",
        ):
            await cur.execute(f"DELETE FROM {table} WHERE session_id LIKE %s", (f"bench-{run}-%",))
    await conn.close()
    del psycopg


async def bench_redis() -> None:
    """Redis: ours vs raw redis-py ``RPUSH`` / ``LRANGE`` of the same JSON, same client."""
    try:
        from redis.asyncio import Redis

        from contextfold.stores.redis import RedisContextStore

        client = Redis.from_url(REDIS_URL, socket_connect_timeout=3)
        await client.ping()
    except Exception as exc:  # any failure here only means "no Redis numbers"
        ROWS.append(("Redis", "skipped", f"not reachable: {type(exc).__name__}", ""))
        return
    prefix = f"bench-{os.urandom(4).hex()}"
    msgs = conversation(10_000)
    encoded = [encode_message(m)[1] for m in msgs]
    store = RedisContextStore(client, "a", prefix=prefix)

    async def ours_append() -> None:
        for m in msgs:
            await store.append(m)

    async def raw_append() -> None:  # the JSON already encoded: the floor
        for content in encoded:
            await client.rpush(f"{prefix}:raw", content)

    async def naive_append() -> None:  # what a hand-written store does: encode, then RPUSH
        for m in msgs:
            await client.rpush(f"{prefix}:naive", json.dumps(m.to_dict()))

    ours = await timed(ours_append)
    row("Redis: append 10k, one `append` each", ours, await timed(raw_append), "raw RPUSH")
    row(
        "Redis: append 10k, one `append` each",
        ours,
        await timed(naive_append),
        "json.dumps + RPUSH",
    )
    ours = await timed(store.get_history)
    row(
        "Redis: get_history 10k",
        ours,
        await timed(lambda: client.lrange(f"{prefix}:raw", 0, -1)),
        "raw LRANGE, bytes only",
    )

    async def naive_history() -> list[Message]:
        raw = await client.lrange(f"{prefix}:naive", 0, -1)
        return [Message.from_dict(json.loads(r)) for r in raw]

    row("Redis: get_history 10k", ours, await timed(naive_history), "LRANGE + json + Message")
    big = RedisContextStore(client, "b", prefix=prefix)
    await big.replace_prefix(0, conversation(50_000))
    small = RedisContextStore(client, "c", prefix=prefix)
    await small.replace_prefix(0, msgs[:1_000])
    at_small, at_big = await flatness(small, big, conversation(999))
    ROWS.append(
        (
            "Redis: one append on a 1k / 50k session",
            f"{at_small:.0f} / {at_big:.0f} µs",
            "",
            f"{at_big / at_small:.2f}×",
        )
    )
    keys = [k async for k in client.scan_iter(match=f"{prefix}:*", count=1000)]
    await client.delete(*keys)
    await client.aclose()


async def main() -> None:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        await bench_sqlite(Path(tmp))
    await bench_postgres()
    await bench_redis()
    print("| operation | contextfold | floor / reference | ratio |")
    print("|---|---|---|---|")
    for r in ROWS:
        print("| " + " | ".join(r) + " |")
    print(
        f"\n_total bench time {time.perf_counter() - start:.0f} s, "
        f"Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}_"
    )


if __name__ == "__main__":
    asyncio.run(main())

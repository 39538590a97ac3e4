"""The SQLite summary cache: what a lookup finds, and the rows it keeps in memory."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

import pytest

from contextfold.compaction._cache import CachedSummary
from contextfold.proxy._cache import SummaryCache, UsageAnchors, _rows_bytes


def rows_bytes(root: str, hashes: list[str], summaries: list[str]) -> int:
    """What the cache counts for ``root``'s rows kept in memory."""
    rows = [CachedSummary(h, i, s) for i, (h, s) in enumerate(zip(hashes, summaries, strict=True))]
    return _rows_bytes(root, rows)


def chain(n: int, tag: str = "") -> list[str]:
    """Prefix hashes of an ``n``-message history (``chain[i]``: its first ``i``)."""
    return [f"h{tag}{i}" for i in range(n + 1)]


def store_outside(path: Path, prefix_hash: str, count: int) -> None:
    """Another program's write: a summary ``external`` of the first ``count`` messages,
    through a plain ``sqlite3`` connection, committed and closed."""
    db = sqlite3.connect(path)
    with db:
        db.execute(
            "INSERT OR REPLACE INTO contextfold_proxy_summaries "
            "(prefix_hash, root_hash, message_count, summary, created_at) "
            "VALUES (?, 'r', ?, 'external', '')",
            (prefix_hash, count),
        )
    db.close()


@pytest.mark.parametrize("in_memory", [True, False])
async def test_the_longest_matching_prefix_is_found_and_writes_are_seen(
    tmp_path: Path, in_memory: bool
) -> None:
    cache = SummaryCache(None if in_memory else tmp_path / "cache.db")
    await cache.open()
    try:
        history = chain(20)
        assert await cache.longest("r", history) is None
        await cache.store("r", CachedSummary(history[5], 5, "five"))
        assert await cache.longest("r", history) == CachedSummary(history[5], 5, "five")
        await cache.store("r", CachedSummary(history[12], 12, "twelve"))
        assert (await cache.longest("r", history)).summary == "twelve"  # type: ignore[union-attr]
        # a history that diverged after message 8 only gets the summary of 5
        other = history[:9] + [f"x{i}" for i in range(9, 21)]
        assert (await cache.longest("r", other)).summary == "five"  # type: ignore[union-attr]
        # a prefix covering the whole history leaves nothing after it: ignored
        assert (await cache.longest("r", history[:13])).summary == "five"  # type: ignore[union-attr]
        assert await cache.longest("another root", history) is None
    finally:
        await cache.close()


async def test_a_summary_another_process_stored_is_found_at_the_next_lookup(
    tmp_path: Path,
) -> None:
    path = tmp_path / "shared.db"
    mine, theirs = SummaryCache(path), SummaryCache(path)
    await mine.open()
    await theirs.open()
    try:
        history = chain(30)
        await mine.store("r", CachedSummary(history[4], 4, "mine"))
        assert (await mine.longest("r", history)).summary == "mine"  # type: ignore[union-attr]
        await theirs.store("r", CachedSummary(history[20], 20, "theirs"))
        assert (await mine.longest("r", history)).summary == "theirs"  # type: ignore[union-attr]
        # a plain sqlite3 writer (another program): seen too
        store_outside(path, history[25], 25)
        assert (await mine.longest("r", history)).summary == "external"  # type: ignore[union-attr]
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM contextfold_proxy_summaries WHERE message_count >= 20")
        assert (await mine.longest("r", history)).summary == "mine"  # type: ignore[union-attr]
    finally:
        await mine.close()
        await theirs.close()


async def test_unchanged_files_are_not_queried_again_and_memory_is_bounded(
    tmp_path: Path,
) -> None:
    # room for the rows of 4 conversations of one short summary each
    cache = SummaryCache(tmp_path / "cache.db", max_bytes=4 * rows_bytes("0", ["h03"], ["s0"]))
    await cache.open()
    try:
        for root in range(8):
            history = chain(10, tag=str(root))
            await cache.store(str(root), CachedSummary(history[3], 3, f"s{root}"))
        queries = 0
        real = cache._db().execute_fetchall

        async def counted(*args: object) -> object:
            nonlocal queries
            queries += 1
            return await real(*args)  # type: ignore[arg-type]

        cache._db().execute_fetchall = counted  # type: ignore[method-assign]
        for _ in range(3):  # 4 roots fit
            for root in range(4):
                found = await cache.longest(str(root), chain(10, tag=str(root)))
                assert found is not None
                assert found.summary == f"s{root}"
        assert queries == 4
        for root in range(8):  # 8 do not: the least recently used are dropped
            assert await cache.longest(str(root), chain(10, tag=str(root))) is not None
        assert queries == 4 + 4
        assert cache.memory() <= cache.max_bytes
    finally:
        await cache.close()


async def test_a_relative_path_is_watched_where_it_was_opened_after_a_chdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite opened "cache.db" in tmp_path; after a chdir the stamp looked for it in
    # the new directory, found nothing, and stayed the same forever: a summary
    # another writer stored was never seen.
    monkeypatch.chdir(tmp_path)
    cache = SummaryCache("cache.db")
    await cache.open()
    try:
        history = chain(30)
        await cache.store("r", CachedSummary(history[4], 4, "mine"))
        assert (await cache.longest("r", history)).summary == "mine"  # type: ignore[union-attr]
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        monkeypatch.chdir(elsewhere)
        assert (await cache.longest("r", history)).summary == "mine"  # type: ignore[union-attr]
        store_outside(tmp_path / "cache.db", history[20], 20)
        assert (await cache.longest("r", history)).summary == "external"  # type: ignore[union-attr]
    finally:
        await cache.close()


async def test_a_database_reached_through_a_symlink_sees_other_writers(tmp_path: Path) -> None:
    # SQLite follows the link and keeps its log beside the real file (real.db-wal);
    # the stamp looked for link.db-wal, never found it, and missed every write that
    # only reached the log (all of them until a checkpoint).
    real, link = tmp_path / "real.db", tmp_path / "link.db"
    link.symlink_to(real)
    cache = SummaryCache(link)
    await cache.open()
    try:
        history = chain(30)
        await cache.store("r", CachedSummary(history[4], 4, "mine"))
        assert (await cache.longest("r", history)).summary == "mine"  # type: ignore[union-attr]
        assert (tmp_path / "real.db-wal").exists()
        store_outside(real, history[20], 20)
        assert (await cache.longest("r", history)).summary == "external"  # type: ignore[union-attr]
    finally:
        await cache.close()


_WRITER = r"""
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA synchronous=FULL")
for line in sys.stdin:
    n = int(line)
    db.execute(
        "INSERT OR REPLACE INTO contextfold_proxy_summaries "
        "(prefix_hash, root_hash, message_count, summary, created_at) "
        "VALUES (?, 'r', ?, ?, '')",
        (f"h{n}", n, f"s{n}"),
    )
    print(n, flush=True)
"""


async def test_a_commit_another_process_makes_while_lookups_run_is_seen_after_it(
    tmp_path: Path,
) -> None:
    # SQLite writes a commit's frames to the log (its size and time change) before
    # it makes them visible (the index in -shm): a lookup between the two read the old
    # rows under the new stamp and kept them; nothing changed the files after, so the
    # next lookups missed the summary (208 of 399 rounds before the fix).
    path = tmp_path / "shared.db"
    cache = SummaryCache(path)
    await cache.open()
    writer = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _WRITER,
        str(path),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert writer.stdin is not None
    assert writer.stdout is not None
    history = chain(100)
    missed = []
    try:
        for n in range(1, 60):
            writer.stdin.write(f"{n}\n".encode())
            await writer.stdin.drain()
            committed = asyncio.ensure_future(writer.stdout.readline())
            while not committed.done():  # lookups all through the commit
                await cache.longest("r", history)
                await asyncio.sleep(0)
            assert (await committed).strip() == str(n).encode()
            found = await cache.longest("r", history)
            if found is None or found.message_count != n:
                missed.append(n)
    finally:
        writer.stdin.close()
        await writer.wait()
        await cache.close()
    assert missed == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
async def test_the_proxy_creates_its_database_readable_by_its_owner_only(
    tmp_path: Path,
) -> None:
    # Summaries are conversations in clear: under the usual umask (022) the files were
    # created world-readable (0644). The log (-wal) and shared memory (-shm) files take
    # the database's mode from SQLite.
    import os
    import stat

    from contextfold.proxy import create_app

    path = tmp_path / "proxy.db"
    umask = os.umask(0o022)
    try:
        app = create_app(db=path)
        async with app.router.lifespan_context(app):
            cache = app.state.forwarder.planner.cache
            await cache.store("r", CachedSummary("h1", 1, "a summary in clear"))
            modes = {
                name: stat.S_IMODE((tmp_path / name).stat().st_mode)
                for name in ("proxy.db", "proxy.db-wal", "proxy.db-shm")
            }
    finally:
        os.umask(umask)
    assert modes == {"proxy.db": 0o600, "proxy.db-wal": 0o600, "proxy.db-shm": 0o600}


@pytest.mark.parametrize(
    "recorded",
    [[], [0], [3], [0, 3], [1, 3, 7], [10], [0, 10], [2, 9, 10]],
)
def test_usage_anchors_find_the_longest_recorded_prefix(recorded: list[int]) -> None:
    history = chain(10)
    anchors = UsageAnchors()
    for i in recorded:
        anchors.record(history[i], 100 + i)
    anchors.record("elsewhere", 1)
    longest = max((i for i in recorded if i > 0), default=None)  # never the empty prefix
    expected = None if longest is None else (longest, 100 + longest)
    assert anchors.latest(history) == expected
    assert anchors.latest(history[:2]) == ((1, 101) if 1 in recorded else None)
    assert anchors.latest([]) is None

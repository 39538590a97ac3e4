"""Database files for the CLI: checked before SQLite opens them, listed without writing.

:func:`check_database_path` runs before any command hands a path to SQLite. Besides
giving a clear message, it keeps a known aiosqlite defect out of sight: when
``sqlite3.connect`` itself fails (a directory, a missing folder), aiosqlite's worker
thread later posts to the closed event loop and prints a screenful of "Event loop is
closed" tracebacks after the CLI's own one-line error.

:func:`read_sessions` lists a contextfold database on a read-only connection: it never
creates tables, never changes the journal mode, never writes the file. A file that is
not a contextfold database (another application's SQLite file, an empty file) is
refused with :class:`ValueError` instead of being turned into one.

:func:`check_writable_database` guards the commands that write (``demo``): a file
that already holds tables must hold contextfold's, or it is refused, read-only and
untouched, before the store would add its tables to another application's database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from contextfold.stores.sqlite import SCHEMA_VERSION, SQLiteContextStore, assume_schema, connect

__all__ = ["check_database_path", "check_writable_database", "read_sessions"]

_SQLITE_HEADER = b"SQLite format 3\x00"
_TABLES = frozenset({"contextfold_sessions", "contextfold_messages", "contextfold_compactions"})
_SESSIONS = """
    SELECT s.session_id,
           (SELECT COUNT(*) FROM contextfold_messages m WHERE m.session_id = s.session_id),
           s.preview, s.created_at, s.input_tokens, s.output_tokens,
           (SELECT COUNT(*) FROM contextfold_compactions c WHERE c.session_id = s.session_id),
           (SELECT COALESCE(SUM(c.archived), 0) FROM contextfold_compactions c
             WHERE c.session_id = s.session_id)
    FROM contextfold_sessions s
    ORDER BY s.created_at DESC, s.session_id
"""


def check_database_path(path: Path, *, must_exist: bool = False, make_parent: bool = False) -> None:
    """Raise :class:`ValueError` (one line, naming ``path``) unless SQLite can open it.

    An existing path must be a regular file that is empty or starts with SQLite's
    header. A missing path is refused when ``must_exist``; otherwise its folder must
    exist, or be creatable when ``make_parent`` (the caller creates it). Reading the
    header may raise :class:`OSError` (say, permission denied), which names the file.
    """
    if path.is_dir():
        raise ValueError(f"{path}: is a directory, not a database file")
    if path.exists():
        if not path.is_file():
            raise ValueError(f"{path}: not a regular file")
        with path.open("rb") as file:
            header = file.read(len(_SQLITE_HEADER))
        if header and header != _SQLITE_HEADER:
            raise ValueError(f"{path}: not a SQLite database")
        return
    if must_exist:
        raise ValueError(f"{path}: no such database file")
    parent = path.parent
    if parent.is_dir():
        return
    if parent.exists():
        raise ValueError(f"{path}: {parent} is not a directory")
    if not make_parent:
        raise ValueError(f"{path}: the directory {parent} does not exist")


def _read_only_uri(path: Path) -> str:
    check_database_path(path, must_exist=True)
    return path.resolve().as_uri() + "?mode=ro"


async def _table_names(conn: aiosqlite.Connection) -> set[str]:
    rows = await conn.execute_fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(row[0]) for row in rows}


def _is_blank(path: Path) -> bool:
    """No file yet, or an empty one (SQLite's empty database)."""
    return not path.exists() or path.stat().st_size == 0


def _untouched_uri(path: Path) -> str:
    """A read-only URI for ``path`` that adds no file beside it when it can."""
    check_database_path(path, must_exist=True)
    # Without a pending write-ahead log the file alone is the whole database, and
    # ``immutable`` reads it without creating the -wal/-shm side files that a read-only
    # connection to a WAL database would leave behind.
    pending = Path(f"{path}-wal").exists()
    return path.resolve().as_uri() + ("?mode=ro" if pending else "?immutable=1")


async def check_writable_database(path: Path) -> None:
    """Raise :class:`ValueError` (one line, naming ``path``) unless contextfold may write it.

    A missing or empty file, a SQLite database without tables, and a contextfold
    database may be written; a database with tables but without contextfold's whole
    schema is another application's and is refused. The check reads the file on a
    read-only connection and never changes it, nor adds files beside it (unless a
    write-ahead log is already there). Call :func:`check_database_path` first.
    """
    if _is_blank(path):
        return
    conn = await aiosqlite.connect(_untouched_uri(path), uri=True)
    try:
        tables = await _table_names(conn)
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{path}: not a contextfold database ({exc})") from None
    finally:
        await conn.close()
    if not tables or tables >= _TABLES:
        return
    others = sorted(t for t in tables if not t.startswith(("contextfold_", "sqlite_")))
    what = f"it has other tables: {', '.join(others)}" if others else "its schema is incomplete"
    raise ValueError(
        f"{path}: not a contextfold database ({what}); give --db a new file or one the demo wrote"
    )


async def _check_contextfold(conn: aiosqlite.Connection, path: Path) -> int:
    """:class:`ValueError` naming ``path`` unless ``conn`` holds contextfold's tables of
    a schema this version reads; the schema version found (0 when none is recorded)."""
    tables = await _table_names(conn)
    if not tables >= _TABLES:
        raise ValueError(f"{path}: not a contextfold database")
    if "contextfold_meta" in tables:
        found = list(
            await conn.execute_fetchall(
                "SELECT value FROM contextfold_meta WHERE key = 'schema_version'"
            )
        )
        version = str(found[0][0]) if found else "0"
        if not version.isdigit() or int(version) > SCHEMA_VERSION:
            raise ValueError(
                f"{path}: written by a newer contextfold (schema version {version}; "
                f"this one reads up to {SCHEMA_VERSION}); upgrade contextfold"
            )
        return int(version)
    return 0


@asynccontextmanager
async def read_session(path: Path, session_id: str) -> AsyncIterator[SQLiteContextStore]:
    """The session ``session_id`` of the contextfold database at ``path``, read only
    (the file is never written, as with :func:`read_sessions`). :class:`ValueError`
    naming ``path`` when it is not such a database or holds no such session."""
    conn = await aiosqlite.connect(_read_only_uri(path), uri=True)
    try:
        try:
            version = await _check_contextfold(conn, path)
            found = await conn.execute_fetchall(
                "SELECT 1 FROM contextfold_sessions WHERE session_id = ?", (session_id,)
            )
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{path}: not a contextfold database ({exc})") from None
        if not list(found):
            raise ValueError(
                f"{path}: no session {session_id!r} (contextfold sessions {path} lists them)"
            )
        if version < SCHEMA_VERSION:
            raise ValueError(
                f"{path}: written by an older contextfold (schema version {version}, before "
                f"the compaction journal of version {SCHEMA_VERSION}); `contextfold sessions "
                f"upgrade {path}` upgrades it in place (nothing is lost; older contextfold "
                "versions cannot open it afterwards)"
            )
        assume_schema(conn)  # checked above; a read-only connection could not create them
        yield SQLiteContextStore(conn, session_id)
    finally:
        await conn.close()


@asynccontextmanager
async def write_session(path: Path, session_id: str) -> AsyncIterator[SQLiteContextStore]:
    """The session ``session_id`` of the contextfold database at ``path``, for writing.
    :class:`ValueError` naming ``path`` when it is not such a database, holds no such
    session, or was written by an older contextfold (``sessions upgrade`` first);
    nothing is written then."""
    async with read_session(path, session_id):
        pass  # the same checks, read-only: a database to upgrade is refused unwritten
    writer = await connect(path)
    try:
        yield SQLiteContextStore(writer, session_id)
    finally:
        await writer.close()


async def upgrade_database(path: Path) -> tuple[int, int]:
    """Upgrade the contextfold database at ``path`` to this version's schema, in place;
    ``(version before, version after)``. :class:`ValueError` naming ``path`` when it is
    not a contextfold database (nothing is written then)."""
    conn = await aiosqlite.connect(_read_only_uri(path), uri=True)
    try:
        try:
            before = await _check_contextfold(conn, path)
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{path}: not a contextfold database ({exc})") from None
    finally:
        await conn.close()
    writer = await connect(path)  # installs and upgrades the tables
    await writer.close()
    return before, SCHEMA_VERSION


async def read_sessions(path: Path) -> list[dict[str, Any]]:
    """Every session in the contextfold database at ``path``, newest first.

    Each row holds ``session_id``, ``messages`` (live), ``preview``, ``created_at``,
    ``input_tokens``, ``output_tokens``, ``compactions`` and ``archived_messages``.
    The file is opened read-only (SQLite may add its usual ``-wal``/``-shm`` side
    files next to a WAL database; the database file itself is never written). Raises
    :class:`ValueError` naming ``path`` when the file is missing, is not a SQLite
    database, lacks contextfold's tables, or was written by a newer contextfold.
    """
    conn = await aiosqlite.connect(_read_only_uri(path), uri=True)
    try:
        await _check_contextfold(conn, path)
        rows = await conn.execute_fetchall(_SESSIONS)
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{path}: not a contextfold database ({exc})") from None
    finally:
        await conn.close()
    return [
        {
            "session_id": str(r[0]),
            "messages": int(r[1]),
            "preview": str(r[2]),
            "created_at": str(r[3]),
            "input_tokens": int(r[4]),
            "output_tokens": int(r[5]),
            "compactions": int(r[6]),
            "archived_messages": int(r[7]),
        }
        for r in rows
    ]

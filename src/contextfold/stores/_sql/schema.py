"""The tables the SQL stores keep, how they are installed, and the driver interface.

Both persistent stores (SQLite and PostgreSQL) keep the same four tables; names are
prefixed so the stores can share a database with other software:

* ``contextfold_sessions`` — one row per session: creation time, cumulative token
  counts, the preview, and ``next_seq``, the next sequence number to hand out. An
  append allocates its number by incrementing ``next_seq`` in the same transaction,
  so an append never reads the session's messages (O(1) in the session length).
* ``contextfold_messages`` — the live history, ordered by ``seq``. ``synthetic`` marks
  rows written by a history rewrite (a summary, say) rather than by ``append``.
* ``contextfold_archive`` — rows a rewrite removed from the live history, with the
  number of the compaction that removed them. Nothing is ever deleted by a rewrite.
* ``contextfold_compactions`` — one record per rewrite (when, counts, token estimates,
  how many live rows it kept before the archived ones).
* ``contextfold_journal`` — the compaction journal: one line per rewrite a compactor
  described (written in the rewrite's transaction, naming its record), per undo, and
  per attempt that changed nothing; the line's note is JSON
  (:mod:`contextfold.stores._journal`).

A ``contextfold_meta`` table records :data:`SCHEMA_VERSION`.
:func:`install_schema` creates and upgrades the tables; :class:`SQLSession` is the
three-method driver interface (``?`` placeholders) that it and
:class:`~contextfold.stores._sql.store.SQLStore` run their statements through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from contextfold.errors import CorruptRecordError, SchemaVersionError

__all__ = [
    "FORK_COLUMNS",
    "SCHEMA_VERSION",
    "SESSION_TABLES",
    "SQLSession",
    "Statement",
    "install_schema",
    "int64",
    "now_iso",
    "schema",
    "upgrade_to_3",
]

SCHEMA_VERSION: Final = 3
"""The schema version this code writes; a database reporting a higher one is refused.

Version 2 stores message content as ``TEXT`` holding JSON in both databases (version 1
used ``JSONB`` in PostgreSQL, which cannot hold the character U+0000). Version 3 adds
the journal table and ``contextfold_compactions.kept_before`` (:func:`upgrade_to_3`).
"""

Statement = tuple[str, Sequence[Any]]
"""One SQL statement with ``?`` placeholders and its parameters."""


def now_iso() -> str:
    """The current UTC time as ISO 8601, the form of ``created_at`` columns.

    Stored as text, it sorts chronologically.
    """
    return datetime.now(UTC).isoformat()


class SQLSession(Protocol):
    """What the SQL stores need from a driver: statements with ``?`` placeholders."""

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]: ...

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


def schema(*, integer: str) -> tuple[str, ...]:
    """The ``CREATE … IF NOT EXISTS`` statements of the tables described above.

    The databases differ only in the type name ``integer`` for sequence numbers,
    counts and token figures (``INTEGER`` in SQLite, ``BIGINT`` in PostgreSQL).
    Message content is JSON text in a ``TEXT`` column: any JSON text round-trips
    exactly, including escaped NUL characters.
    """
    return (
        "CREATE TABLE IF NOT EXISTS contextfold_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        f"""CREATE TABLE IF NOT EXISTS contextfold_sessions (
            session_id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            input_tokens {integer} NOT NULL DEFAULT 0,
            output_tokens {integer} NOT NULL DEFAULT 0,
            next_seq {integer} NOT NULL DEFAULT 0,
            preview TEXT NOT NULL DEFAULT '')""",
        """CREATE INDEX IF NOT EXISTS contextfold_sessions_created
            ON contextfold_sessions (created_at)""",
        f"""CREATE TABLE IF NOT EXISTS contextfold_messages (
            session_id TEXT NOT NULL
                REFERENCES contextfold_sessions (session_id) ON DELETE CASCADE,
            seq {integer} NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            tokens {integer} NOT NULL,
            synthetic INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (session_id, seq))""",
        f"""CREATE TABLE IF NOT EXISTS contextfold_compactions (
            session_id TEXT NOT NULL
                REFERENCES contextfold_sessions (session_id) ON DELETE CASCADE,
            number {integer} NOT NULL,
            created_at TEXT NOT NULL,
            messages_before {integer} NOT NULL,
            messages_after {integer} NOT NULL,
            tokens_before {integer} NOT NULL,
            tokens_after {integer} NOT NULL,
            archived {integer} NOT NULL,
            kept_before {integer},
            PRIMARY KEY (session_id, number))""",
        f"""CREATE TABLE IF NOT EXISTS contextfold_journal (
            session_id TEXT NOT NULL
                REFERENCES contextfold_sessions (session_id) ON DELETE CASCADE,
            number {integer} NOT NULL,
            created_at TEXT NOT NULL,
            compaction {integer},
            note TEXT NOT NULL,
            PRIMARY KEY (session_id, number))""",
        f"""CREATE TABLE IF NOT EXISTS contextfold_archive (
            session_id TEXT NOT NULL,
            compaction {integer} NOT NULL,
            seq {integer} NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            tokens {integer} NOT NULL,
            synthetic INTEGER NOT NULL,
            PRIMARY KEY (session_id, compaction, seq),
            FOREIGN KEY (session_id, compaction)
                REFERENCES contextfold_compactions (session_id, number) ON DELETE CASCADE)""",
    )


def int64(value: int, name: str) -> int:
    """``value`` as an int that fits the tables' 64-bit counter columns.

    Raises :class:`ValueError` naming ``name`` when it does not fit.
    """
    number = int(value)
    if not -(2**63) <= number < 2**63:
        raise ValueError(f"{name}={number} does not fit in a signed 64-bit token counter")
    return number


# Kept beside the tables so that a column added to them is added here too.
SESSION_TABLES: Final = (
    "contextfold_archive",
    "contextfold_messages",
    "contextfold_compactions",
    "contextfold_journal",
)
"""The tables holding a session's rows besides its ``contextfold_sessions`` row."""

FORK_COLUMNS: Final = (
    ("contextfold_messages", "seq, role, content, tokens, synthetic"),
    (
        "contextfold_compactions",
        "number, created_at, messages_before, messages_after, tokens_before, tokens_after, "
        "archived, kept_before",
    ),
    ("contextfold_archive", "compaction, seq, role, content, tokens, synthetic"),
    ("contextfold_journal", "number, created_at, compaction, note"),
)
"""What a fork copies after the session row: each table, in an order that satisfies
the foreign keys, with every column but ``session_id``."""


def upgrade_to_3(integer: str, *, if_not_exists: bool = True) -> tuple[str, ...]:
    """The statements taking a version-2 database to version 3 (the journal table is
    created by :func:`schema`; records written before keep ``kept_before`` NULL).

    SQLite has no ``ADD COLUMN IF NOT EXISTS``: its caller checks the column first and
    passes ``if_not_exists=False``, or no upgrade at all when the column is there.
    """
    guard = "IF NOT EXISTS " if if_not_exists else ""
    return (f"ALTER TABLE contextfold_compactions ADD COLUMN {guard}kept_before {integer}",)


async def install_schema(
    db: SQLSession, *, integer: str, upgrades: Mapping[int, Sequence[str]]
) -> None:
    """Create the tables if missing, upgrade older ones, record :data:`SCHEMA_VERSION`.

    Idempotent. Run inside the caller's write transaction, with the database's type
    name for counters (``integer``). ``upgrades[v]`` holds the statements that take
    this database's tables from version ``v`` to ``v + 1`` (a missing entry: nothing
    to change). Raises :class:`~contextfold.errors.SchemaVersionError` when the
    database records a newer version, and
    :class:`~contextfold.errors.CorruptRecordError` when the recorded version is not
    a number; the caller's rollback then leaves the database as it was.
    """
    for statement in schema(integer=integer):
        await db.execute(statement)
    rows = await db.fetch("SELECT value FROM contextfold_meta WHERE key = 'schema_version'")
    try:
        found = int(rows[0][0]) if rows else None
    except ValueError as exc:
        raise CorruptRecordError(
            f"contextfold_meta holds schema_version {rows[0][0]!r}, not a number; the "
            "table was changed by something other than contextfold (nothing was changed)"
        ) from exc
    if found is not None and found > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"this database has contextfold schema version {found}, but this "
            f"contextfold understands up to version {SCHEMA_VERSION}; upgrade "
            "contextfold to use it (nothing was changed)"
        )
    if found != SCHEMA_VERSION:
        for version in range(SCHEMA_VERSION if found is None else found, SCHEMA_VERSION):
            for statement in upgrades.get(version, ()):
                await db.execute(statement)
        await db.execute(
            "INSERT INTO contextfold_meta (key, value) VALUES ('schema_version', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(SCHEMA_VERSION),),
        )

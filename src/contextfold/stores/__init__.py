"""Conversation stores: the contract and every store contextfold ships.

* :mod:`~contextfold.stores.base` - the contract: :class:`ContextStore`,
  :class:`SessionInfo`, the capability protocols (:class:`Archiving`,
  :class:`SnapshotReplacing`, ...) and the records a history rewrite leaves behind.
* :mod:`~contextfold.stores.memory` - :class:`MemoryContextStore`, one session in
  process memory.
* :mod:`~contextfold.stores.sqlite` - :class:`SQLiteContextStore`, many sessions in one
  file.
* :mod:`~contextfold.stores.postgres` - :class:`PostgresContextStore`, sessions shared
  across processes and machines (the ``postgres`` extra).
* :mod:`~contextfold.stores.redis` - :class:`RedisContextStore`, the same on Redis (the
  ``redis`` extra).

The private modules beside them are the machinery those stores share, and nothing
outside this package imports them: ``_rows`` (a message as a row, the plan of a
rewrite), ``_connection_state`` (what stores sharing a connection share), ``_sql/``
(the SQL stores' schema, lease, rewrite and store logic, written once for both
databases) and ``_redis`` (keys, Lua scripts and the lease of the Redis store). The modules
``contextfold.context``, ``contextfold.sqlite``, ``contextfold.postgres`` and
``contextfold.redis`` re-export the same objects under the names they always had.

Stores import only the ground and the contracts (messages, errors, tokens), never
transports, compaction or the faces.

The PostgreSQL and Redis stores are loaded on first access, so importing this package
needs neither driver; without its extra, that access raises :class:`ImportError`
naming the ``pip install`` command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contextfold.stores.base import (
    ArchivedMessage,
    Archiving,
    Compactable,
    CompactionLocking,
    CompactionRecord,
    ContextStore,
    JournalEntry,
    Journaling,
    PrefixReplacing,
    SessionInfo,
    SnapshotReplacing,
    last_undoable,
)
from contextfold.stores.memory import MemoryContextStore
from contextfold.stores.sqlite import SQLiteContextStore

if TYPE_CHECKING:
    from contextfold.stores.postgres import PostgresContextStore
    from contextfold.stores.redis import RedisContextStore

__all__ = [
    "ArchivedMessage",
    "Archiving",
    "Compactable",
    "CompactionLocking",
    "CompactionRecord",
    "ContextStore",
    "JournalEntry",
    "Journaling",
    "MemoryContextStore",
    "PostgresContextStore",
    "PrefixReplacing",
    "RedisContextStore",
    "SQLiteContextStore",
    "SessionInfo",
    "SnapshotReplacing",
    "last_undoable",
]


def __getattr__(name: str) -> Any:
    # psycopg and redis-py are optional extras: import their stores only when asked for.
    if name == "PostgresContextStore":
        from contextfold.stores.postgres import PostgresContextStore

        return PostgresContextStore
    if name == "RedisContextStore":
        from contextfold.stores.redis import RedisContextStore

        return RedisContextStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""The SQLite store, where it has always been imported from.

It lives in :mod:`contextfold.stores.sqlite`; this module re-exports the same objects
(``contextfold.sqlite.SQLiteContextStore is contextfold.stores.sqlite.SQLiteContextStore``),
so code written against ``contextfold.sqlite`` keeps working unchanged.
"""

from __future__ import annotations

from contextfold.stores.sqlite import (
    ArchivedMessage,
    CompactionRecord,
    SQLiteContextStore,
    connect,
    ensure_schema,
)

__all__ = [
    "ArchivedMessage",
    "CompactionRecord",
    "SQLiteContextStore",
    "connect",
    "ensure_schema",
]

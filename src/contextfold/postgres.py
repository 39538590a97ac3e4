"""The PostgreSQL store, where it has always been imported from.

It lives in :mod:`contextfold.stores.postgres`; this module re-exports the same objects
(``contextfold.postgres.PostgresContextStore is
contextfold.stores.postgres.PostgresContextStore``), so code written against
``contextfold.postgres`` keeps working unchanged. Like that module, it needs the
``postgres`` extra: without it, importing raises :class:`ImportError` naming the
``pip install`` command.
"""

from __future__ import annotations

from contextfold.stores.postgres import (
    ArchivedMessage,
    CompactionRecord,
    PostgresContextStore,
    connect,
    ensure_schema,
)

__all__ = [
    "ArchivedMessage",
    "CompactionRecord",
    "PostgresContextStore",
    "connect",
    "ensure_schema",
]

"""The store contract, where it has always been imported from.

The contract lives in :mod:`contextfold.stores.base` and the in-memory store in
:mod:`contextfold.stores.memory`; this module re-exports the same objects
(``contextfold.context.ContextStore is contextfold.stores.base.ContextStore``), so
code written against ``contextfold.context`` keeps working unchanged.
"""

from __future__ import annotations

from contextfold.stores.base import (
    ArchivedMessage,
    Archiving,
    Compactable,
    CompactionLocking,
    ContextStore,
    PrefixReplacing,
    SessionInfo,
    SnapshotReplacing,
    preview_of,
)
from contextfold.stores.memory import MemoryContextStore

__all__ = [
    "ArchivedMessage",
    "Archiving",
    "Compactable",
    "CompactionLocking",
    "ContextStore",
    "MemoryContextStore",
    "PrefixReplacing",
    "SessionInfo",
    "SnapshotReplacing",
    "preview_of",
]

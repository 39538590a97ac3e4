"""How the store contract suite builds each kind of store.

Add a kind to :data:`STORE_KINDS` and a branch to :func:`open_store` and every
contract test in ``tests/test_context.py`` runs against it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from contextfold.context import ContextStore, MemoryContextStore

STORE_KINDS = ["memory"]


@asynccontextmanager
async def open_store(
    kind: str, tmp_path: Path, require_service: Callable[[str], Any]
) -> AsyncIterator[ContextStore]:
    if kind == "memory":
        yield MemoryContextStore()
        return
    raise ValueError(f"unknown store kind {kind!r}")

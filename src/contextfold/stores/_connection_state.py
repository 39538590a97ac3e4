"""Bookkeeping kept per connection: what the stores sharing one connection share.

Several store objects (one per session, say) may run on one SQLite or PostgreSQL
connection, one PostgreSQL pool or one Redis client. :func:`state_of` gives each such
target one :class:`StoreState`, created on first use and dropped with the target: the
lock that serialises their statements on a shared connection, whether the schema is
known to be in place, and one in-process compaction lock per session.
"""

from __future__ import annotations

import asyncio
import weakref

__all__ = ["StoreState", "state_of"]


class StoreState:
    """Bookkeeping per connection (or pool, or client), shared by every store that uses it."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()  # serialises the stores sharing one connection
        self.schema_ready = False
        self.compaction_locks: dict[str, asyncio.Lock] = {}


_states: weakref.WeakKeyDictionary[object, StoreState] = weakref.WeakKeyDictionary()


def state_of(target: object) -> StoreState:
    """The :class:`StoreState` of a connection, pool or client, created on first use."""
    state = _states.get(target)
    if state is None:
        state = _states[target] = StoreState()
    return state

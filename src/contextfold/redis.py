"""The Redis store, where it has always been imported from.

It lives in :mod:`contextfold.stores.redis`; this module re-exports the same objects
(``contextfold.redis.RedisContextStore is contextfold.stores.redis.RedisContextStore``),
so code written against ``contextfold.redis`` keeps working unchanged. Like that
module, it needs the ``redis`` extra: without it, importing raises
:class:`ImportError` naming the ``pip install`` command.
"""

from __future__ import annotations

from contextfold.stores.redis import ArchivedMessage, CompactionRecord, RedisContextStore

__all__ = ["ArchivedMessage", "CompactionRecord", "RedisContextStore"]

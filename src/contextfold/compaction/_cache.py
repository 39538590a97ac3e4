"""A summary kept by the prefix it replaces: the entry of every face's summary cache.

The proxy and the context manager both keep summaries between requests, keyed by a
digest of the prefix of the conversation each one replaces: the proxy by the hash
chain of its parsed messages (hex strings seeded with the tenant and the model, see
:mod:`contextfold.proxy._cache`), the manager by the chain of the orchestrator's chat
dicts (raw digests, see :mod:`contextfold.manager._history`). A
:class:`CachedSummary` is one such entry, for either: the key type ``K`` is the
face's digest type.

What the faces keep differs only by what they can rebuild. The proxy rebuilds the
head of a request from the summary text alone, so it stores ``prefix_hash``,
``message_count`` and ``summary`` (the columns of its SQL tables). The manager
returns the orchestrator's own dicts, so it also keeps the messages that replace the
prefix (``head``), which of them are the history's own messages (``refs``), and the
size below which no new summary is tried (``floor``); these default to "none", which
is what every entry of the proxy holds.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from contextfold.messages import Message

__all__ = ["CachedSummary"]

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class CachedSummary(Generic[K]):
    """A summary of the first ``message_count`` messages of a conversation.

    ``prefix_hash`` is the digest of that prefix in the face's chain (``chain[i]``
    identifies the first ``i`` messages), so an entry serves a history exactly when
    ``chain[message_count] == prefix_hash``. A *message* is counted in the face's own
    units: the proxy's parsed wire messages, the manager's chat dicts.

    ``head`` is what replaces that prefix in a view (old system messages, the summary
    message, maybe the acknowledgement), empty when the face rebuilds it from
    ``summary``; ``refs[i]`` is the index of the stored message ``head[i]`` is (a kept
    system message), or ``None`` for a message made by the summary, so a view uses the
    history's own message (and its original dict) even after the history was
    reloaded; empty when every message of ``head`` was made by the summary.
    ``floor``: when the view built on this entry was still over the threshold, its
    size; no new summary is tried until the history grows past it.
    """

    prefix_hash: K
    message_count: int
    summary: str
    head: tuple[Message, ...] = ()
    floor: int | None = None
    refs: tuple[int | None, ...] = ()

    def head_in(self, messages: Sequence[Message], message_index: int) -> tuple[Message, ...]:
        """``head`` with each referenced message taken from ``messages`` (the history's
        parsed messages; only those before ``message_index`` are used)."""
        if not self.refs:
            return self.head
        return tuple(
            messages[ref] if ref is not None and ref < message_index else message
            for message, ref in zip(self.head, self.refs, strict=True)
        )

"""What the planner remembers between requests so a resent history costs only its news.

A client resends its whole history each turn; :mod:`._memo` parses and hashes only
the new messages. Two more per-request costs grow with the history, and both are
kept here:

* :class:`TokenCounts` - the estimated size of each message, by message object. The
  memo hands out the same :class:`~contextfold.messages.Message` objects for the
  messages it has seen, so counting a resent history looks up all but the new ones.
  Entries hold their message (an id is never reused while it is held), so the table
  is held to ``max_bytes`` of them (:func:`~._budget.message_bytes`, the prefix
  totals included) and emptied when it passes them, which only costs a recount.
* :class:`SplicedChains` - the prefix hashes of a history with a cached summary
  spliced in (``summary head + history[c:]``), which share nothing with the
  history's own hashes. Per head (known by its hash) and cut, the last spliced chain is kept
  with its running hash; a history that extends the one it was made for (equal
  hashes at its end) continues it with its new messages only. At most ``max_bytes``
  of chains, least recently used dropped first.

Both bounds default to their shares of :class:`~._budget.MemoryBudget`.

Both return exactly what computing from scratch returns
(:func:`~contextfold.tokens.count_tokens`,
:func:`~contextfold.proxy._cache.chain_hashes`).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from typing import Any

from contextfold.compaction._cache import CachedSummary
from contextfold.messages import Message
from contextfold.proxy._budget import (
    ENTRY_BYTES,
    HASH_BYTES,
    MemoryBudget,
    SizedLRU,
    message_bytes,
)
from contextfold.proxy._cache import extend_chain
from contextfold.tokens import TokenCounter, count_message_tokens

__all__ = ["SplicedChains", "TokenCounts"]

LOOKBACK = 64  # prefixes looked at for a recorded total (a resent history adds a few)
_SPLICED_ENTRY = 1024  # a kept chain's tuple, list and running hash, and its key


class TokenCounts:
    """``count_tokens(messages, counter)``, each message object counted once; and,
    for a history with its prefix hashes, the total of a prefix remembered under
    its hash, so a resent history adds up only the messages after the last one seen."""

    def __init__(self, counter: TokenCounter, max_bytes: int | None = None) -> None:
        self.counter = counter
        self.max_bytes = MemoryBudget().share("token_counts") if max_bytes is None else max_bytes
        self.nbytes = 0  # what the two tables hold, as estimated
        self._sizes: dict[int, tuple[Message, int]] = {}
        self._totals: dict[str, int] = {}  # prefix hash -> count of that prefix

    def through(self, messages: Sequence[Message], chain: Sequence[str], end: int = -1) -> int:
        """``count(messages[:end])`` (all of them by default), where ``chain[i]`` is
        the hash of ``messages[:i]``.

        Starts from the total of the longest prefix recorded among the last
        :data:`LOOKBACK` before ``end`` (else from the first message) and records
        its own.
        """
        end = len(messages) if end < 0 else end
        totals = self._totals
        known = totals.get(chain[end])
        if known is not None:
            return known
        start = base = 0
        for i in range(end - 1, max(0, end - LOOKBACK) - 1, -1):
            found = totals.get(chain[i])
            if found is not None:
                start, base = i, found
                break
        total = base + self.count(messages[start:end])
        self._charge(sys.getsizeof(chain[end]) + ENTRY_BYTES)
        self._totals[chain[end]] = total
        return total

    def count(self, messages: Sequence[Message]) -> int:
        sizes = self._sizes
        total = 0
        for message in messages:
            known = sizes.get(id(message))
            if known is not None and known[0] is message:
                total += known[1]
                continue
            size = count_message_tokens(message, self.counter)
            sizes[id(message)] = (message, size)
            self.nbytes += message_bytes(message) + ENTRY_BYTES
            total += size
        self._charge(0)
        return total

    def _charge(self, size: int) -> None:
        """Make room for ``size`` more bytes: both tables are emptied when they would
        pass ``max_bytes`` (the current call's own messages included)."""
        if self.nbytes + size > self.max_bytes:
            self._sizes = {}
            self._totals = {}
            self.nbytes = 0
        self.nbytes += size


class SplicedChains:
    """Prefix hashes of spliced histories, continued from the last one per head."""

    def __init__(self, max_bytes: int | None = None) -> None:
        # head hash -> (history length covered, history's hash there, running hash, chain)
        self._last: SizedLRU[str, tuple[int, str, Any, list[str]]] = SizedLRU(
            MemoryBudget().share("spliced_chains") if max_bytes is None else max_bytes
        )

    @property
    def nbytes(self) -> int:
        """What the kept chains hold, as estimated."""
        return self._last.nbytes

    def chain(
        self,
        model: str,
        head: Sequence[Message],
        history: Sequence[Message],
        chain: Sequence[str],
        hit: CachedSummary[str],
    ) -> list[str]:
        """``chain_hashes(model, [*head, *history[hit.message_count:]])``.

        ``chain`` is ``history``'s own prefix hashes.
        """
        running = hashlib.sha256(model.encode(errors="surrogatepass"))
        out = [running.hexdigest()]
        extend_chain(running, head, out)
        key = f"{out[-1]}:{hit.message_count}"
        start = hit.message_count
        known = self._last.get(key)
        if known is not None:
            length, at, state, spliced = known
            if start <= length < len(chain) and chain[length] == at:
                running, out, start = state.copy(), spliced[:], length
        extend_chain(running, history[start:], out)
        kept = out[:]
        size = len(kept) * (HASH_BYTES + 8) + 2 * HASH_BYTES + _SPLICED_ENTRY
        self._last.put(key, (len(history), chain[len(history)], running.copy(), kept), size)
        return out

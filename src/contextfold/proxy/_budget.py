"""The proxy's memory budget: every cache it keeps between requests, held to its bytes.

What the proxy remembers to make the next request cheap (parsed histories, token
counts, prefix hashes, summaries read from the cache, prepared summaries, usage
anchors, layout records, learned limits...) grows with every distinct conversation
it sees. Each such cache is bounded here by an estimate of the bytes it holds, not by
a count of its entries (a count lets a few large conversations, or many of them,
hold gigabytes), and all of them together by one budget:
``create_app(options=ProxyOptions(memory_budget=...))``, :data:`DEFAULT_MEMORY_BUDGET`
(128 MiB) by default, split by :data:`SHARES`:

==================  ======  ====================================================
cache               share   default
==================  ======  ====================================================
``memo``            40 %    51.2 MiB: parsed histories (:mod:`._memo`)
``token_counts``    15 %    19.2 MiB: token counts by message and prefix (:mod:`._reuse`)
``summary_rows``    15 %    19.2 MiB: summaries read from SQLite (:mod:`._cache`)
``prepared``        10 %    12.8 MiB: summaries prepared ahead (:mod:`._prepare`)
``spliced_chains``  5 %     6.4 MiB: prefix hashes of spliced histories (:mod:`._reuse`)
``anchors``         5 %     6.4 MiB: usage anchors (:mod:`._cache`)
``layouts``         5 %     6.4 MiB: layout records (:mod:`._layout`)
``backoff``         1.25 %  1.6 MiB: failed compactions backing off (:mod:`._compact`)
``failed``          1.25 %  1.6 MiB: failed preparations (:mod:`._prepare`)
``learned``         1.25 %  1.6 MiB: limits learnt from overflows (:mod:`._compact`)
``ratios``          1.25 %  1.6 MiB: tokens per byte (:mod:`._bound`)
==================  ======  ====================================================

Forgetting costs time (a parse, a count, a summary read again) or a hint (an anchor,
a learnt limit or ratio: the next estimate is less accurate, an overflow may be retried
once more); what is forwarded stays valid. The estimates
(:func:`message_bytes`, :func:`value_bytes`, the per-entry overheads below) are
measured upper bounds of what CPython holds, counting an object shared by two caches
twice; the work of one request in flight (its body, its parse) is not in the budget.
"""

from __future__ import annotations

import operator
import sys
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Generic, Literal, TypeVar, overload

from contextfold.blocks import (
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    to_dict,
)
from contextfold.messages import Message

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "ENTRY_BYTES",
    "HASH_BYTES",
    "SHARES",
    "Cache",
    "MemoryBudget",
    "SizedLRU",
    "message_bytes",
    "value_bytes",
]

DEFAULT_MEMORY_BUDGET = 128 * 1024 * 1024
"""Bytes all of the proxy's caches may hold together (128 MiB)."""

Cache = Literal[
    "memo",
    "token_counts",
    "summary_rows",
    "prepared",
    "spliced_chains",
    "anchors",
    "layouts",
    "backoff",
    "failed",
    "learned",
    "ratios",
]

SHARES: Mapping[Cache, float] = {
    "memo": 0.40,
    "token_counts": 0.15,
    "summary_rows": 0.15,
    "prepared": 0.10,
    "spliced_chains": 0.05,
    "anchors": 0.05,
    "layouts": 0.05,
    "backoff": 0.0125,
    "failed": 0.0125,
    "learned": 0.0125,
    "ratios": 0.0125,
}
"""Each cache's share of the budget (they add up to 1)."""

HASH_BYTES = sys.getsizeof("0" * 64)
"""A hex SHA-256 digest as a ``str`` (a prefix hash)."""

ENTRY_BYTES = 160
"""A table entry's own overhead: its slot in a dict (or an ordered dict's links) and
the tuple or small object holding its value."""

_BLOCK = 96  # a slotted, frozen block object and its slot in the content list
_MESSAGE = 120  # a Message, its role and its content list
_MIN_SHARE = 4096  # the least a cache is given, however small the budget


class MemoryBudget:
    """``total`` bytes (at least 1 MiB), split between the caches by :data:`SHARES`."""

    def __init__(self, total: int = DEFAULT_MEMORY_BUDGET) -> None:
        if isinstance(total, bool) or not isinstance(total, int) or total < 1024 * 1024:
            raise ValueError(f"memory_budget must be a number of bytes >= 1 MiB, got {total!r}")
        self.total = total

    def share(self, cache: Cache) -> int:
        """The bytes ``cache`` may hold."""
        return max(int(self.total * SHARES[cache]), _MIN_SHARE)


def message_bytes(message: Message) -> int:
    """An upper bound of the bytes ``message`` holds (its blocks, their texts and
    values), for the caches that keep parsed messages."""
    total = _MESSAGE + 8 * len(message.content)
    for block in message.content:
        total += _block_bytes(block)
    return total


def _block_bytes(block: Any) -> int:
    size = sys.getsizeof
    if type(block) is TextBlock:
        return _BLOCK + size(block.text)
    if type(block) is ToolUseBlock:
        return _BLOCK + size(block.id) + size(block.name) + value_bytes(block.input)
    if type(block) is ToolResultBlock:
        if isinstance(block.content, str):
            return _BLOCK + size(block.tool_use_id) + size(block.content)
        inner = sum(_block_bytes(b) + 8 for b in block.content)
        return _BLOCK + size(block.tool_use_id) + 56 + inner
    if type(block) is ImageBlock:
        return _BLOCK + size(block.media_type) + size(block.data)
    if type(block) is ThinkingBlock:
        return _BLOCK + size(block.thinking) + size(block.signature)
    if type(block) is OpaqueBlock:
        extra = size(block.kind) + size(block.dialect) + size(block.call_id)
        return _BLOCK + extra + value_bytes(block.data)
    return _BLOCK + value_bytes(to_dict(block))


def value_bytes(value: Any) -> int:
    """An upper bound of the bytes a JSON-like ``value`` (dicts, lists, strings,
    numbers) holds, every object counted where it is reached."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return total


_K = TypeVar("_K")
_V = TypeVar("_V")
_T = TypeVar("_T")


class SizedLRU(Mapping[_K, _V], Generic[_K, _V]):
    """A map held to ``max_bytes``: each entry is put with its size (an estimate, its
    key's included), and the least recently used entries are dropped past the bound.

    Reading (``[]``, :meth:`get`, ``in``) does not refresh an entry; :meth:`put` and
    :meth:`touch` do. An entry larger than the bound alone is not kept.
    """

    def __init__(self, max_bytes: int) -> None:
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be at least 1, got {max_bytes}")
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._items: OrderedDict[_K, tuple[_V, int]] = OrderedDict()

    def __getitem__(self, key: _K) -> _V:
        return self._items[key][0]

    def __iter__(self) -> Iterator[_K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    @overload
    def get(self, key: _K, /) -> _V | None: ...

    @overload
    def get(self, key: _K, /, default: _V | _T) -> _V | _T: ...

    def get(self, key: _K, /, default: object = None) -> object:
        # Mapping's own get goes through __getitem__ and a KeyError per miss: several
        # times slower, and a prefix scan (UsageAnchors.latest) misses on most keys.
        found = self._items.get(key)
        return default if found is None else found[0]

    def put(self, key: _K, value: _V, size: int) -> None:
        """Keep ``value`` under ``key`` (replacing any), as the most recent entry."""
        self.pop(key)
        if size > self.max_bytes:
            return
        self._items[key] = (value, size)
        self.nbytes += size
        while self.nbytes > self.max_bytes:
            _, (_, dropped) = self._items.popitem(last=False)
            self.nbytes -= dropped

    def last_kept(self, keys: Sequence[_K]) -> int:
        """The highest ``i`` whose ``keys[i]`` is kept here, ``-1`` when none is."""
        # the scan runs in C (a prefix chain of a long history misses on most keys)
        found = map(self._items.__contains__, reversed(keys))
        try:
            return len(keys) - 1 - operator.indexOf(found, True)
        except ValueError:
            return -1

    def touch(self, key: _K) -> None:
        """Make ``key``'s entry the most recent one, if it is kept."""
        if key in self._items:
            self._items.move_to_end(key)

    def pop(self, key: _K, default: _V | None = None) -> _V | None:
        """Drop ``key``'s entry; its value, else ``default``."""
        found = self._items.pop(key, None)
        if found is None:
            return default
        self.nbytes -= found[1]
        return found[0]

    def clear(self) -> None:
        self._items.clear()
        self.nbytes = 0

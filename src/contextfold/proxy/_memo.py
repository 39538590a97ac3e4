"""Incremental parsing and hashing of the growing histories clients resend.

A client resends its whole history with every request, one or two messages longer
each time. :class:`HistoryMemo` remembers, per conversation, the last history it
parsed (its messages, its prefix hashes, the running hash at each safe cut, the
digests of its wire items' prefixes) and, for a new request, parses and hashes only
the messages and items after the longest prefix it has already seen. Results are
exactly those of the dialect's :meth:`~contextfold.dialects.base.Dialect.read`,
:func:`~contextfold.proxy._cache.chain_hashes` and
:func:`~contextfold.proxy._layout.item_prefixes` on the whole history.

Prefixes are recognised by text: the wire list is serialized once with
:func:`contextfold.proxy._json.text` (compact JSON, orjson when installed), whose
output for a list is ``[`` + the items' own encodings joined by ``,`` + ``]``. JSON
values are self-delimiting, so a history whose text starts with the first ``k``
items' text of a remembered one (followed by ``,`` or ``]``) holds exactly those
``k`` items; equal text means equal values, types included. (Callers pass only
histories parsed strictly - see :mod:`._json` - where that holds.)

The memo also checks how deeply each item nests (``max_depth``): a remembered item
was checked when it was first seen, so a resent history costs a check of its new
items only.

A parse may resume at wire index ``k`` only where nothing before ``k`` is changed by
what follows (the dialect's :meth:`~contextfold.dialects.base.Dialect.fresh`): every
Anthropic message parses on its own, while an OpenAI ``tool`` or ``user`` message may
merge into the results message before it, and Responses items group by their side of
the conversation. The same points split a
history into the *segments* the proxy copies verbatim when it rewrites a request
(:attr:`Parsed.cuts`). Memoized messages are shared between requests and must not be
mutated.
"""

from __future__ import annotations

import bisect
import hashlib
import sys
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contextfold.dialects import Dialect
from contextfold.messages import Message
from contextfold.proxy._budget import HASH_BYTES, MemoryBudget, message_bytes
from contextfold.proxy._cache import canonical
from contextfold.proxy._json import SEPARATOR
from contextfold.proxy._json import text as json_text
from contextfold.proxy._layout import next_prefix

_PER_GROUP = 4  # remembered histories per opening (diverging branches of one conversation)
# What an entry holds besides its text and its messages' own bytes: per message its
# prefix hash, its slots in three lists and its weight; per wire item its end and its
# prefix digest (32 bytes); per cut the cut, its copy of the running hash (OpenSSL's
# context, outside Python's heap) and its pair in Parsed.cuts; per entry its objects and
# its group's key.
_PER_MESSAGE = HASH_BYTES + 3 * 8 + 36
_PER_ITEM = 8 + 36 + 8 + 65
_PER_CUT = 640
_PER_ENTRY = 640


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed history and ``chain``, its prefix hashes (``chain_hashes`` exactly).

    ``cuts``: ``(wire index, message count)`` pairs where ``wire[index:]`` parses,
    on its own, to exactly ``messages[count:]`` (empty for a history parsed from
    scratch). ``items``: ``item_prefixes(wire, seed)`` (:mod:`._layout`), ``None`` for
    a history parsed from scratch.
    """

    messages: list[Message]
    chain: list[str]
    cuts: tuple[tuple[int, int], ...] = ()
    items: list[bytes] | None = None


@dataclass(frozen=True, slots=True)
class _Cut:
    wire_index: int  # the parse may resume here
    message_count: int  # messages parsed from wire[:wire_index]
    state: Any  # the running chain hash after those messages (hashlib object)


@dataclass(frozen=True, slots=True, eq=False)
class _Entry:
    text: bytes  # compact JSON of the wire list (an exact-size copy: see _kept)
    ends: list[int]  # ends[i]: where item i's text ends in ``text``
    cuts: list[_Cut]  # ascending wire_index; the last one is the whole history
    parsed: Parsed
    weights: list[int]  # weights[i]: message_bytes of parsed.messages[:i]
    items: list[bytes]  # parsed.items: item_prefixes of the wire list

    @property
    def nbytes(self) -> int:
        """An upper bound of what this entry holds (see :mod:`._budget`)."""
        messages = len(self.parsed.messages)
        return (
            sys.getsizeof(self.text)
            + self.weights[-1]
            + messages * _PER_MESSAGE
            + len(self.ends) * _PER_ITEM
            + len(self.cuts) * _PER_CUT
            + _PER_ENTRY
        )


class HistoryMemo:
    """Parses and hashes histories, reusing the longest prefix already seen.

    Bounded: at most ``max_entries`` remembered histories holding at most
    ``max_bytes`` (:attr:`nbytes`: their serialized text, their parsed messages
    estimated by :func:`~._budget.message_bytes`, their prefix hashes and resume
    points; by default the memo's share of :class:`~._budget.MemoryBudget`), least
    recently used dropped first. Forgetting only costs time: every answer equals a
    parse from scratch. ``parses`` counts the messages handed to the parser,
    ``hashed`` those hashed.
    """

    def __init__(self, max_entries: int = 256, max_bytes: int | None = None) -> None:
        max_bytes = MemoryBudget().share("memo") if max_bytes is None else max_bytes
        if max_entries < 1 or max_bytes < 1:
            raise ValueError("max_entries and max_bytes must be at least 1")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.parses = 0
        self.hashed = 0
        self.nbytes = 0  # what the remembered entries hold, as estimated
        self._groups: OrderedDict[tuple[Dialect, bytes], list[_Entry]] = OrderedDict()
        self._entries = 0

    def parse(
        self,
        dialect: Dialect,
        scope: str,
        wire: Sequence[Any],
        system: str | Sequence[Mapping[str, Any]] | None = None,
        *,
        check: Callable[[Any], None] | None = None,
        seed: bytes = b"",
    ) -> Parsed:
        """``wire`` (and Anthropic's ``system``) parsed and hashed under ``scope`` (the
        model name under the tenant key, :func:`~._tenant.scope`: a history is only
        ever resumed from one its own tenant sent); its items' digests
        (:attr:`Parsed.items`) start from ``seed`` (:func:`~._layout.seed`).

        Raises the :class:`ValueError` the dialect's reader raises for the whole
        history when it holds content the parser rejects, and what ``check`` raises
        for an item of ``wire`` (called on every item not seen before).
        """
        try:
            text = json_text(wire)
            # The group: scope, system and first item, as a digest (a key holding
            # their text would hold a client's model name and system prompt whole).
            opening = hashlib.sha256()
            for part in (scope.encode(errors="surrogatepass"), json_text(system), seed):
                opening.update(len(part).to_bytes(8, "big") + part)
            opening.update(json_text(wire[0]) if wire else b"")
            key = (dialect, opening.digest())
        except (TypeError, ValueError, RecursionError):
            return self._scratch(dialect, scope, wire, system, check)
        group = self._groups.get(key, [])
        best: tuple[_Entry, _Cut] | None = None
        for entry in group:
            cut = _resume(dialect, entry, text, wire)
            if cut is not None and (best is None or cut.wire_index > best[1].wire_index):
                best = (entry, cut)
        try:
            entry = self._extend(dialect, scope, wire, system, text, best, check, seed)
        except ValueError:
            return self._scratch(dialect, scope, wire, system, check)
        if best is not None and best[1] is best[0].cuts[-1] and best[0] in group:
            group.remove(best[0])  # superseded: the new history extends it whole
            self._forget(best[0])
        group.insert(0, entry)
        self.nbytes += entry.nbytes
        self._entries += 1
        while len(group) > _PER_GROUP:
            self._forget(group.pop())
        self._groups[key] = group
        self._groups.move_to_end(key)
        while self._groups and (self._entries > self.max_entries or self.nbytes > self.max_bytes):
            _, dropped = self._groups.popitem(last=False)
            for old in dropped:
                self._forget(old)
        return entry.parsed

    def _forget(self, entry: _Entry) -> None:
        self.nbytes -= entry.nbytes
        self._entries -= 1

    def _scratch(
        self,
        dialect: Dialect,
        scope: str,
        wire: Sequence[Any],
        system: str | Sequence[Mapping[str, Any]] | None,
        check: Callable[[Any], None] | None,
    ) -> Parsed:
        """The whole history parsed from scratch, not remembered (the parser's errors raise)."""
        if check is not None:
            for item in wire:
                check(item)
        self.parses += len(wire)
        messages = dialect.read(wire, system)
        running = hashlib.sha256(scope.encode(errors="surrogatepass"))
        chain = [running.hexdigest()]
        for message in messages:
            _update(running, message)
            chain.append(running.hexdigest())
        self.hashed += len(messages)
        return Parsed(messages, chain, segment_cuts(dialect, wire, len(messages)))

    def _extend(
        self,
        dialect: Dialect,
        scope: str,
        wire: Sequence[Any],
        system: str | Sequence[Mapping[str, Any]] | None,
        text: bytes,
        best: tuple[_Entry, _Cut] | None,
        check: Callable[[Any], None] | None,
        seed: bytes,
    ) -> _Entry:
        if best is None:
            head = dialect.read([], system)  # what stands outside the items
            running = hashlib.sha256(scope.encode(errors="surrogatepass"))
            messages: list[Message] = []
            chain = [running.hexdigest()]
            weights = [0]
            start = 0
            ends: list[int] = []
            items = [seed]
            cuts: list[_Cut] = []
            pairs: tuple[tuple[int, int], ...] = ()
            tail_head = head
        else:
            entry, cut = best
            running = cut.state.copy()
            messages = entry.parsed.messages[: cut.message_count]
            chain = entry.parsed.chain[: cut.message_count + 1]
            weights = entry.weights[: cut.message_count + 1]
            start = cut.wire_index
            ends = entry.ends[:start]
            items = entry.items[: start + 1]
            kept = bisect.bisect_left(entry.cuts, start, key=lambda c: c.wire_index)
            cuts = entry.cuts[:kept]
            pairs = entry.parsed.cuts[:kept]
            tail_head = []
        for message in tail_head:
            messages.append(message)
            _update(running, message)
            chain.append(running.hexdigest())
            weights.append(weights[-1] + message_bytes(message))
            self.hashed += 1
        position = ends[-1] if ends else 1
        for i in range(start, len(wire)):
            if check is not None:
                check(wire[i])
            item = json_text(wire[i])
            position += len(item) + (len(SEPARATOR) if i else 0)
            ends.append(position)
            items.append(next_prefix(items[-1], item))
        if position + 1 != len(text):
            raise ValueError("the history's text is not its items' text joined")
        i = start
        while i < len(wire):
            if dialect.fresh(wire, i):
                cuts.append(_Cut(i, len(messages), running.copy()))
            j = i + 1
            while j < len(wire) and not dialect.fresh(wire, j):
                j += 1
            self.parses += j - i
            segment = wire[i:j]
            parsed = dialect.read(segment)
            for message in parsed:
                messages.append(message)
                _update(running, message)
                chain.append(running.hexdigest())
                weights.append(weights[-1] + message_bytes(message))
                self.hashed += 1
            i = j
        cuts.append(_Cut(len(wire), len(messages), running.copy()))
        pairs += tuple((c.wire_index, c.message_count) for c in cuts[len(pairs) :])
        result = Parsed(messages, chain, pairs, items)
        return _Entry(_kept(text), ends, cuts, result, weights, items)


def _kept(text: bytes) -> bytes:
    """An exact-size copy of ``text``: orjson's output keeps the buffer it grew (64 KiB
    for a few bytes of JSON, twice a long history's size), and the memo keeps its
    texts for long."""
    return bytes(memoryview(text))


def segment_cuts(dialect: Dialect, wire: Sequence[Any], total: int) -> tuple[tuple[int, int], ...]:
    """``(wire index, message count)`` at every point where ``dialect`` reads ``wire``
    afresh (:meth:`~contextfold.dialects.base.Dialect.fresh`) and at its
    end, for a history that parses whole to ``total`` messages (each segment is parsed
    on its own to count its messages)."""
    starts = [i for i in range(len(wire)) if dialect.fresh(wire, i)]
    counts = [
        len(dialect.read(wire[a:b])) for a, b in zip(starts, [*starts[1:], len(wire)], strict=True)
    ]
    offset = total - sum(counts)  # the messages made outside ``wire`` (a system prompt)
    cuts: list[tuple[int, int]] = []
    for start, count in zip(starts, counts, strict=True):
        cuts.append((start, offset))
        offset += count
    cuts.append((len(wire), offset))
    return tuple(cuts)


def _update(running: Any, message: Message) -> None:
    data = canonical(message)
    running.update(len(data).to_bytes(8, "big"))
    running.update(data)


def _resume(dialect: Dialect, entry: _Entry, text: bytes, wire: Sequence[Any]) -> _Cut | None:
    """The latest cut of ``entry`` that ``wire`` (serialized as ``text``) may resume at."""

    def equal_through(items: int) -> bool:  # the first ``items`` items are the same
        end = entry.ends[items - 1]
        return text.startswith(entry.text[:end]) and text[end : end + 1] in (SEPARATOR, b"]")

    low, high = 0, min(len(entry.ends), len(wire))  # items known equal: ``low``
    if high and equal_through(high):  # the usual resend: all of it, then news
        low = high
    while low < high:
        mid = (low + high + 1) // 2
        if equal_through(mid):
            low = mid
        else:
            high = mid - 1
    common = low
    for cut in reversed(entry.cuts):
        if cut.wire_index > common:
            continue
        # Past the common part the new history must start afresh (or end) here too.
        if cut.wire_index == len(wire) or dialect.fresh(wire, cut.wire_index):
            return cut
        if cut.wire_index < common:
            return cut
    return None

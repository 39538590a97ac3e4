"""The context manager's stored history and its summary cache.

:class:`StoredHistory` keeps the orchestrator's OpenAI chat dicts exactly as given
(deep copies), the :class:`~contextfold.messages.Message` each group of dicts parses
to, and a hash chain over the dicts, so that "is this summarized prefix still the
start of the history?" is one comparison. Parsing happens once, when a message is
added; :mod:`contextfold.manager._render` turns a view back into dicts.

Content parts formats does not model (remote images, audio, files, new part types)
are parsed through a stand-in (see :mod:`contextfold.manager._parts`); the stored
dict stays as given, so a view that keeps the message returns it unchanged.
"""

from __future__ import annotations

import bisect
import copy
import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from contextfold._history import safe_cut_points
from contextfold.blocks import ToolResultBlock
from contextfold.compaction._cache import CachedSummary
from contextfold.formats import from_openai
from contextfold.manager._amplifier import is_native, parse_native
from contextfold.manager._parts import stand_in
from contextfold.messages import Message
from contextfold.validation import result_ids, use_ids

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The history at one moment: dicts, parsed messages and where each message starts.

    Message ``i`` was parsed from ``dicts[starts[i]:starts[i + 1]]`` (the last one runs
    to the end); ``chain[k]`` is the digest of ``dicts[:k]``; ``sums[i]`` is the
    estimated tokens of ``messages[:i]``.
    """

    dicts: tuple[dict[str, Any], ...]
    messages: tuple[Message, ...]
    starts: tuple[int, ...]
    chain: tuple[bytes, ...]
    sums: tuple[int, ...]
    native: bool = False
    """Whether any dict is in Amplifier's native shape (fresh dicts are then written so)."""

    def tokens_from(self, index: int) -> int:
        """Estimated tokens of ``messages[index:]``."""
        return self.sums[-1] - self.sums[index]

    def group(self, index: int) -> tuple[dict[str, Any], ...]:
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.dicts)
        return self.dicts[self.starts[index] : end]

    def copy_dicts(self) -> list[dict[str, Any]]:
        return [clone(wire) for wire in self.dicts]

    def protected(self, share: float, base: int = 0, head: int = 0) -> int:
        """How many of the last messages the latest ``share`` of a view protects.

        The view is ``head`` messages (a summary of ``messages[:base]``) followed by
        ``messages[base:]``, counted as Amplifier's context-simple counts the list it
        compacts: one per head message, one per stored dict. Its protected part starts
        at ``int(count × (1 − share))`` and moves back to a safe cut point, so that a
        turn stays whole: an assistant message with its tool calls and every result
        answering them. It never reaches into the head; ``0`` when ``share`` is 0 or
        no message follows ``base``.
        """
        rest = self.messages[base:]
        if share <= 0 or not rest:
            return 0
        offset = self.starts[base]
        count = head + len(self.dicts) - offset
        first = offset + max(int(count * (1 - share)) - head, 0)  # a dict index
        index = bisect.bisect_right(self.starts, first) - 1 - base  # the message holding it
        start = max((p for p in safe_cut_points(rest) if p <= index), default=0)
        return len(rest) - start


_IMMUTABLE = (str, int, float, bool, type(None))


def clone(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars); ``copy.deepcopy`` for the rest.

    Several times faster than ``copy.deepcopy`` on chat messages, which matters because
    every request returns copies of the whole history.
    """
    if isinstance(value, dict):
        return {key: clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item) for item in value]
    if isinstance(value, _IMMUTABLE):
        return value
    return copy.deepcopy(value)


def _reword(exc: ValueError, index: int) -> ValueError:
    # formats names the position inside the list it was given; name the real one.
    text = str(exc)
    if text.startswith("message 0"):
        return ValueError(f"message {index}" + text[len("message 0") :])
    return ValueError(f"message {index}: {text}")


def _digest(previous: bytes, wire: Mapping[str, Any]) -> bytes:
    try:  # key order does not matter when the keys can be sorted
        canonical = json.dumps(wire, sort_keys=True, ensure_ascii=False, default=repr)
    except TypeError:  # keys of mixed types: take them in their order
        canonical = json.dumps(wire, ensure_ascii=False, default=repr)
    return hashlib.sha256(previous + canonical.encode("utf-8", "surrogatepass")).digest()


def _only_results(message: Message) -> bool:
    return bool(message.content) and all(isinstance(b, ToolResultBlock) for b in message.content)


@dataclass(frozen=True, slots=True)
class Pending:
    """A validated message, not yet added: what :meth:`StoredHistory.commit` applies."""

    stored: dict[str, Any]
    parse_from: dict[str, Any] | None  # the OpenAI dict parsed (a stand-in); None if native
    message: Message  # the new message, or the last one with this dict merged in
    merged: bool
    open_calls: frozenset[str]
    length: int  # the history's length when it was prepared
    digest: bytes  # of the history with this dict
    tokens: int  # of ``message``


class StoredHistory:
    """An append-only list of validated message dicts (plus ``replace`` and ``clear``).

    Dicts are OpenAI chat messages or Amplifier's native shapes (see
    :mod:`contextfold.manager._amplifier`), stored as given. Every method is
    synchronous, so a caller on the event loop sees each change happen atomically.
    :meth:`prepare` validates without changing anything and :meth:`commit` applies
    (a caller can write the message elsewhere in between); :meth:`append` does both.
    ``count`` estimates a message's tokens; each message is counted once, when added.
    """

    def __init__(self, count: Callable[[Message], int]) -> None:
        self._count = count
        self._sums: list[int] = [0]
        self._dicts: list[dict[str, Any]] = []
        self._parsed_from: list[dict[str, Any] | None] = []
        self._messages: list[Message] = []
        self._starts: list[int] = []
        self._chain: list[bytes] = [b""]
        self._open_calls: frozenset[str] = frozenset()
        self._native = 0

    def __len__(self) -> int:
        return len(self._dicts)

    def append(self, wire: object) -> None:
        """Validate ``wire`` and add it, or raise :class:`ValueError` naming the defect."""
        self.commit(self.prepare(wire))

    def prepare(self, wire: object) -> Pending:
        """Validate ``wire`` as the next message, or raise :class:`ValueError` naming the defect.

        Rejected: a non-dict; an OpenAI dict :func:`~contextfold.formats.from_openai`
        rejects once the content parts it does not model are replaced by placeholders
        (a missing or unknown ``role``, malformed content or ``tool_calls``); an
        Amplifier dict :func:`~contextfold.manager._amplifier.parse_native` rejects;
        an ``input_audio`` or ``file`` part without its object; a tool result that
        answers no tool call of the latest assistant message (or answers one twice).
        """
        index = len(self._dicts)
        if not isinstance(wire, Mapping):
            raise ValueError(f"message {index} must be a dict, got {type(wire).__name__}")
        try:
            stored: dict[str, Any] = clone(dict(wire))
            digest = _digest(self._chain[-1], stored)
        except RecursionError:
            raise ValueError(f"message {index} is nested too deeply") from None
        try:
            parse_from, parsed = self._parse(stored, index)
        except RecursionError:
            raise ValueError(f"message {index} is nested too deeply") from None
        open_calls = set(self._open_calls)
        for answered in result_ids(parsed):
            if answered not in open_calls:
                raise ValueError(
                    f"message {index}: tool result {answered!r} answers no open tool "
                    "call; a tool result must follow the assistant message that made the "
                    "call, once"
                )
            open_calls.discard(answered)
        merged = self._merge(parse_from, parsed)
        match parsed.role:
            case "assistant":
                open_calls = set(use_ids(parsed))
            case "user" if merged is None and not _only_results(parsed):
                open_calls = set()
        message = parsed if merged is None else merged
        try:
            tokens = self._count(message)
        except RecursionError:
            raise ValueError(f"message {index} is nested too deeply") from None
        return Pending(
            stored,
            parse_from,
            message,
            merged is not None,
            frozenset(open_calls),
            index,
            digest,
            tokens,
        )

    @staticmethod
    def _parse(stored: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, Message]:
        """``(the dict parsed, or None for a native one; the message)``, or ``ValueError``."""
        if is_native(stored):
            return None, parse_native(stored, index)
        role = stored.get("role")
        if isinstance(role, str) and role not in _ROLES:
            raise ValueError(
                f"message {index} has unsupported role {role!r} "
                "(expected system, developer, user, assistant or tool)"
            )
        try:
            # Parts formats would carry opaque are placeholders here (see ._parts).
            substitute = stand_in(stored)
            parse_from = stored if substitute is None else substitute
            (parsed,) = from_openai([parse_from])
            return parse_from, parsed
        except ValueError as exc:
            raise _reword(exc, index) from None

    def _merge(self, parse_from: dict[str, Any] | None, parsed: Message) -> Message | None:
        """The last message with the new one folded in, when it continues a tool group."""
        if not self._messages or not _only_results(self._messages[-1]):
            return None
        last = self._messages[-1]
        if _only_results(parsed):
            return Message("user", [*last.content, *parsed.content])
        group = self._parsed_from[self._starts[-1] :]
        if parse_from is None or parse_from["role"] != "user" or None in group:
            return None
        # An OpenAI user message of the images a tool returned folds into its results.
        merged = from_openai([*(g for g in group if g is not None), parse_from])
        return merged[0] if len(merged) == 1 else None

    def commit(self, pending: Pending) -> None:
        """Add a message :meth:`prepare` validated (only list appends: it cannot fail half-way);
        ``ValueError`` if the history changed since."""
        if pending.length != len(self._dicts):
            raise ValueError("the history changed since this message was prepared")
        if pending.merged:
            self._messages[-1] = pending.message
            self._sums[-1] = self._sums[-2] + pending.tokens
        else:
            self._messages.append(pending.message)
            self._starts.append(pending.length)
            self._sums.append(self._sums[-1] + pending.tokens)
        self._dicts.append(pending.stored)
        self._parsed_from.append(pending.parse_from)
        self._chain.append(pending.digest)
        self._open_calls = pending.open_calls
        self._native += pending.parse_from is None

    def replaced(self, wires: Sequence[object]) -> StoredHistory:
        """A new history of ``wires`` (validated; this one unchanged), for :meth:`adopt`."""
        if isinstance(wires, str | bytes | Mapping) or not isinstance(wires, Sequence):
            raise ValueError(f"messages must be a list of dicts, got {type(wires).__name__}")
        fresh = StoredHistory(self._count)
        for wire in wires:
            fresh.append(wire)
        return fresh

    def adopt(self, fresh: StoredHistory) -> None:
        """Take over the contents of ``fresh`` (made by :meth:`replaced`)."""
        self._dicts, self._messages, self._starts = fresh._dicts, fresh._messages, fresh._starts
        self._parsed_from, self._native = fresh._parsed_from, fresh._native
        self._chain, self._open_calls, self._sums = fresh._chain, fresh._open_calls, fresh._sums

    def replace(self, wires: Sequence[object]) -> None:
        """Replace everything with ``wires``; on a ``ValueError`` nothing changes."""
        self.adopt(self.replaced(wires))

    def clear(self) -> None:
        self.replace([])

    def snapshot(self) -> Snapshot:
        return Snapshot(
            tuple(self._dicts),
            tuple(self._messages),
            tuple(self._starts),
            tuple(self._chain),
            tuple(self._sums),
            self._native > 0,
        )


class SummaryCache:
    """The last ``size`` summaries, keyed by the digest of the prefix they summarize."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[bytes, CachedSummary[bytes]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, snapshot: Snapshot) -> tuple[CachedSummary[bytes], int] | None:
        """The entry covering the longest prefix of ``snapshot``, with its message index."""
        best: tuple[CachedSummary[bytes], int] | None = None
        for entry in self._entries.values():
            if (
                entry.message_count >= len(snapshot.dicts)
                or snapshot.chain[entry.message_count] != entry.prefix_hash
            ):
                continue
            message_index = bisect.bisect_left(snapshot.starts, entry.message_count)
            if (
                message_index == len(snapshot.starts)
                or snapshot.starts[message_index] != entry.message_count
            ):
                continue  # the prefix now ends inside a message (a tool group grew)
            if best is None or entry.message_count > best[0].message_count:
                best = (entry, message_index)
        if best is not None:
            self._entries.move_to_end(best[0].prefix_hash)
        return best

    def store(self, entry: CachedSummary[bytes]) -> None:
        self._entries[entry.prefix_hash] = entry
        self._entries.move_to_end(entry.prefix_hash)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def set_floor(
        self, entry: CachedSummary[bytes], floor: int | None
    ) -> CachedSummary[bytes] | None:
        """Record ``floor`` on the entry for ``entry``'s prefix; the updated entry, if cached."""
        if entry.prefix_hash not in self._entries:
            return None
        updated = self._entries[entry.prefix_hash] = replace(entry, floor=floor)
        return updated

    def entries(self) -> list[CachedSummary[bytes]]:
        """Every cached entry, least recently used first."""
        return list(self._entries.values())

    def clear(self) -> None:
        self._entries.clear()

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

from contextfold.formats import from_openai
from contextfold.manager._parts import stand_in
from contextfold.messages import Message


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

    def tokens_from(self, index: int) -> int:
        """Estimated tokens of ``messages[index:]``."""
        return self.sums[-1] - self.sums[index]

    def group(self, index: int) -> tuple[dict[str, Any], ...]:
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.dicts)
        return self.dicts[self.starts[index] : end]

    def copy_dicts(self) -> list[dict[str, Any]]:
        return [clone(wire) for wire in self.dicts]


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
    canonical = json.dumps(wire, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(previous + canonical.encode("utf-8")).digest()


class StoredHistory:
    """An append-only list of validated OpenAI chat dicts (plus ``replace`` and ``clear``).

    Every method is synchronous, so a caller on the event loop sees each change
    happen atomically. :meth:`append` validates before it changes anything.
    ``count`` estimates a message's tokens; each message is counted once, when added.
    """

    def __init__(self, count: Callable[[Message], int]) -> None:
        self._count = count
        self._sums: list[int] = [0]
        self._dicts: list[dict[str, Any]] = []
        self._parsed_from: list[dict[str, Any]] = []  # the dicts as parsed (stand-ins)
        self._messages: list[Message] = []
        self._starts: list[int] = []
        self._chain: list[bytes] = [b""]
        self._open_calls: set[str] = set()

    def __len__(self) -> int:
        return len(self._dicts)

    def append(self, wire: object) -> None:
        """Validate ``wire`` and add it, or raise :class:`ValueError` naming the defect.

        Rejected: anything :func:`~contextfold.formats.from_openai` rejects (not a dict,
        a missing or unknown ``role``, malformed content or ``tool_calls``) once the
        content parts it does not model are replaced by placeholders, an ``input_audio``
        or ``file`` part without its object, and a ``tool`` message that answers no
        tool call of the latest assistant message (or answers one twice).
        """
        index = len(self._dicts)
        if not isinstance(wire, Mapping):
            raise ValueError(f"message {index} must be a dict, got {type(wire).__name__}")
        stored: dict[str, Any] = clone(dict(wire))
        parse_from = stored
        try:
            try:
                (parsed,) = from_openai([stored])
            except ValueError:
                substitute = stand_in(stored)
                if substitute is None:
                    raise
                parse_from = substitute
                (parsed,) = from_openai([substitute])
        except ValueError as exc:
            raise _reword(exc, index) from None
        role = stored["role"]
        if role == "tool":
            call_id = stored["tool_call_id"]
            if call_id not in self._open_calls:
                raise ValueError(
                    f"message {index}: tool result {call_id!r} answers no open tool call; a "
                    "tool message must follow the assistant message that made the call, once"
                )
        merged = self._merge(parse_from)
        if merged is not None:
            self._messages[-1] = merged
            self._sums[-1] = self._sums[-2] + self._count(merged)
        else:
            self._messages.append(parsed)
            self._starts.append(index)
            self._sums.append(self._sums[-1] + self._count(parsed))
        self._dicts.append(stored)
        self._parsed_from.append(parse_from)
        self._chain.append(_digest(self._chain[-1], stored))
        match role:
            case "tool":
                self._open_calls.discard(stored["tool_call_id"])
            case "assistant":
                self._open_calls = {use.id for use in parsed.tool_uses}
            case "user" if merged is None:
                self._open_calls = set()

    def _merge(self, wire: dict[str, Any]) -> Message | None:
        """The last message with ``wire`` folded in, if formats folds it (tool groups)."""
        if wire["role"] not in ("tool", "user") or not self._starts:
            return None
        group = self._parsed_from[self._starts[-1] :]
        if group[0]["role"] != "tool":
            return None
        merged = from_openai([*group, wire])
        return merged[0] if len(merged) == 1 else None

    def replace(self, wires: Sequence[object]) -> None:
        """Replace everything with ``wires``; on a ``ValueError`` nothing changes."""
        if isinstance(wires, str | bytes | Mapping) or not isinstance(wires, Sequence):
            raise ValueError(f"messages must be a list of dicts, got {type(wires).__name__}")
        fresh = StoredHistory(self._count)
        for wire in wires:
            fresh.append(wire)
        self._dicts, self._messages, self._starts = fresh._dicts, fresh._messages, fresh._starts
        self._parsed_from = fresh._parsed_from
        self._chain, self._open_calls, self._sums = fresh._chain, fresh._open_calls, fresh._sums

    def clear(self) -> None:
        self.replace([])

    def snapshot(self) -> Snapshot:
        return Snapshot(
            tuple(self._dicts),
            tuple(self._messages),
            tuple(self._starts),
            tuple(self._chain),
            tuple(self._sums),
        )


@dataclass(frozen=True, slots=True)
class CachedSummary:
    """A summary of ``dicts[:cut]`` of a history whose prefix digest is ``digest``.

    ``head`` is what replaces that prefix in a view (old system messages, the summary
    message, maybe the acknowledgement). ``floor``: when the view built on this entry
    was still over the threshold, its size; no new summary is tried until the
    history grows past it.
    """

    digest: bytes
    cut: int
    head: tuple[Message, ...]
    summary: str
    floor: int | None = None


class SummaryCache:
    """The last ``size`` summaries, keyed by the digest of the prefix they summarize."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[bytes, CachedSummary] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, snapshot: Snapshot) -> tuple[CachedSummary, int] | None:
        """The entry covering the longest prefix of ``snapshot``, with its message index."""
        best: tuple[CachedSummary, int] | None = None
        for entry in self._entries.values():
            if entry.cut >= len(snapshot.dicts) or snapshot.chain[entry.cut] != entry.digest:
                continue
            message_index = bisect.bisect_left(snapshot.starts, entry.cut)
            if message_index == len(snapshot.starts) or snapshot.starts[message_index] != entry.cut:
                continue  # the prefix now ends inside a message (a tool group grew)
            if best is None or entry.cut > best[0].cut:
                best = (entry, message_index)
        if best is not None:
            self._entries.move_to_end(best[0].digest)
        return best

    def store(self, entry: CachedSummary) -> None:
        self._entries[entry.digest] = entry
        self._entries.move_to_end(entry.digest)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def set_floor(self, entry: CachedSummary, floor: int | None) -> None:
        if entry.digest in self._entries:
            self._entries[entry.digest] = replace(entry, floor=floor)

    def clear(self) -> None:
        self._entries.clear()

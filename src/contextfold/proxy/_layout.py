"""Prompt or history: which messages of a request the proxy may summarize.

History is what a client appends; prompt is what it sends every time and rewrites in
place (few-shot examples, an environment or a repo map before the task, files or
reminders it moves to the end of every request). The proxy never summarizes prompt,
never quotes it as the user's words, and always keeps the user's task (the
conversation's first real user message) word for word. Nothing here is told which
client is talking: the rules read the requests themselves, each conversation being
resent whole with every request. They work on the wire items of a request (their
JSON, hashed item by item: :func:`item_prefixes`), so a request the proxy forwards
without parsing (far under its limit) is still remembered, for a few tens of
microseconds; a request the proxy parses brings its items' digests from the memo of
seen histories (:mod:`._memo`), which hashes only the items it has not seen before.

* **The opening.** In the first request of a conversation, everything before its
  last user turn is prompt, and that turn is the task (a client's first request is
  its prompt plus one user turn; aider's few-shot examples, Codex's developer
  messages and environment context, Claude Code's reminders all come before it).
* **Appends.** A request that extends one seen before keeps that request's task.
* **Rewritten tails.** A request that shares all but the last few (at most
  :data:`MAX_TAIL`) items of one seen before, and goes on after them, rewrote those
  items in place: as many items at its own end are prompt that moves (aider's chat
  files and its reminder), always kept; the task stays where it was, or, when the
  rewritten part held it, is the first user turn after the shared part.
* **Fallback.** A request that shares nothing known and holds tool calls is a
  conversation under way that the proxy did not see open (it restarted, or another
  replica saw the opening): its task is its first user turn that is not client
  markup alone (every text of it one ``<tag>...</tag>`` element, like Codex's
  ``<environment_context>``), and what comes before is prompt.

A prompt head over the model's limit is not believed, nor one over half of it that
holds more than :data:`MAX_PROMPT_TURNS` user turns (a long conversation resumed
without tool calls, seen first after a restart, would otherwise be all prompt, and
nothing could ever be summarized): the fallback rule decides instead. The task itself
is kept whatever its size. Remembered: a few digests per request (at most
:data:`MAX_TAIL` + 1, of 32 bytes), as many requests as ``max_bytes`` holds (by default
the layouts' share of :class:`~._budget.MemoryBudget`: 6.4 MiB, some 3,000 requests),
least recently used dropped first, under the tenant key (``scope`` of :func:`shape`):
one tenant's requests never decide another's layout.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from contextfold.dialects import Dialect
from contextfold.proxy import _json
from contextfold.proxy._budget import ENTRY_BYTES, MemoryBudget

__all__ = [
    "MAX_TAIL",
    "Layout",
    "Layouts",
    "Shape",
    "is_markup",
    "item_prefixes",
    "next_prefix",
    "seed",
    "shape",
]

MAX_TAIL = 8
"""The most items at the end of a request that may be prompt a client moves."""

MAX_PROMPT_TURNS = 8
"""A prompt head over half the limit with more user turns than this is a conversation
under way, not a client's prompt (aider's examples and files are five or six)."""

# A remembered request: its record and its keys' list (_RECORD), and per key the digest,
# its entry in ``_ends`` with its tuple, and its slot in the list (_KEY).
_RECORD = 400
_KEY = 65 + ENTRY_BYTES + 64 + 8  # 65: a 32-byte digest (bytes)

_MARKUP = re.compile(r"\s*<(?P<tag>[A-Za-z][\w:-]*)(?:\s[^>]*)?>.*</(?P=tag)>\s*\Z", re.DOTALL)

Kind = Literal["turn", "markup", "results", "assistant", "other"]
"""What a wire item is, for these rules: a user turn (``markup`` when it is client
markup alone), tool results, the assistant's (with tool calls or not), or anything
else (system messages, unknown roles)."""


class _Kinds(Sequence["Kind"]):
    """The kinds of a request's wire items, each read when first asked for: the usual
    request, an append to one seen before, needs only its opening's."""

    def __init__(self, dialect: Dialect, items: Sequence[Any]) -> None:
        self._dialect = dialect
        self._items = items
        self._kinds: list[Kind] = []
        self.tools = False  # whether an item read so far calls or answers a tool

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Kind: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Kind]: ...

    def __getitem__(self, index: int | slice) -> Kind | Sequence[Kind]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self._items))
            self._read(stop if step > 0 else start + 1)
            return self._kinds[index]
        if index < 0:
            index += len(self._items)
        if not 0 <= index < len(self._items):
            raise IndexError(index)
        self._read(index + 1)
        return self._kinds[index]

    def all(self) -> tuple[Kind, ...]:
        self._read(len(self._items))
        return tuple(self._kinds)

    def _read(self, stop: int) -> None:
        kinds, dialect, items = self._kinds, self._dialect, self._items
        for item in items[len(kinds) : stop]:
            role = dialect.classify(item)
            markup = role.side == "turn" and role.texts is not None and is_markup(role.texts)
            kinds.append("markup" if markup else role.side)
            self.tools = self.tools or role.tools


class Shape:
    """A request's wire items as these rules see them: each item's kind (read when
    asked for), whether any item calls or answers a tool, and ``chain[i]``, a digest of
    the first ``i`` items (with the request's model and system prompt)."""

    __slots__ = ("_kinds", "chain")

    def __init__(self, kinds: _Kinds, chain: Sequence[bytes]) -> None:
        self._kinds = kinds
        self.chain = chain

    @property
    def kinds(self) -> Sequence[Kind]:
        return self._kinds

    @property
    def tools(self) -> bool:
        """Whether any item calls or answers a tool (reads every item's kind)."""
        self._kinds.all()
        return self._kinds.tools


@dataclass(frozen=True, slots=True)
class Layout:
    """``items[:pinned]`` are prompt and task, kept verbatim; the last ``tail`` items
    are prompt that moves, always kept; ``task`` indexes the task's item."""

    pinned: int
    tail: int = 0
    task: int | None = None
    rule: str = "opening"


@dataclass(frozen=True, slots=True)
class _Record:
    length: int
    task: int | None


def is_markup(texts: Sequence[str]) -> bool:
    """Whether ``texts`` (a user message's) are client markup alone: each one
    ``<tag>...</tag>``."""
    return bool(texts) and all(_MARKUP.match(text) for text in texts)


def shape(
    dialect: Dialect,
    items: Sequence[Any],
    model: str,
    system: Any = None,
    scope: str = "",
    chain: Sequence[bytes] | None = None,
) -> Shape:
    """The :class:`Shape` of a request's wire items (``messages`` or ``input``), its
    digests made under ``scope`` (the tenant key). ``chain``: its digests when already
    known (``item_prefixes(items, seed(dialect, model, system, scope))``: the memo's,
    :mod:`._memo`); made here otherwise."""
    if chain is None:
        chain = item_prefixes(items, seed(dialect, model, system, scope))
    return Shape(_Kinds(dialect, items), chain)


def seed(dialect: Dialect, model: str, system: Any, scope: str) -> bytes:
    """What the digests of a request's items start from: its dialect, model, system
    prompt (or instructions) and tenant key."""
    return hashlib.sha256(_encoded([dialect.name, model, system, scope])).digest()


def item_prefixes(items: Sequence[Any], start: bytes) -> list[bytes]:
    """``[d0, d1, ..., dn]``: ``d0`` is ``start`` (a :func:`seed`), ``di`` a digest of
    it and ``items[:i]``, from their JSON (equal items, and only they, write alike:
    :func:`._json.text`). Each digest is made from the one before and one item's text
    (:func:`next_prefix`), so a request sharing a prefix with one seen before extends
    that one's digests."""
    last = start
    prefixes = [last]
    for item in items:
        last = next_prefix(last, _encoded(item))
        prefixes.append(last)
    return prefixes


def next_prefix(previous: bytes, text: bytes) -> bytes:
    """The :func:`item_prefixes` digest after the one of the items before, ``previous``,
    and one more item, written ``text`` (its compact JSON, :func:`._json.text`)."""
    return hashlib.sha256(previous + text).digest()


def _encoded(value: Any) -> bytes:
    """``value`` as JSON bytes (lone surrogates and all: equal values, equal bytes)."""
    try:
        return _json.text(value)
    except (TypeError, ValueError):  # orjson refuses lone surrogates
        return json.dumps(value, default=repr).encode("utf-8", "surrogatepass")


def _is_turn(kind: Kind) -> bool:
    return kind in ("turn", "markup")


class Layouts:
    """Decides each request's :class:`Layout` and remembers it for the next ones."""

    def __init__(self, max_bytes: int | None = None) -> None:
        self.max_bytes = MemoryBudget().share("layouts") if max_bytes is None else max_bytes
        self.nbytes = 0  # what the records hold, as estimated
        # digest of a remembered request's first n - k items -> (the request, k)
        self._ends: OrderedDict[bytes, tuple[_Record, int]] = OrderedDict()
        self._records: OrderedDict[int, tuple[_Record, list[bytes]]] = OrderedDict()

    def decide(
        self,
        request: Shape,
        *,
        head_tokens: Callable[[int], int] | None = None,
        budget: int | None = None,
    ) -> Layout:
        """The layout of ``request``, remembered for later requests.

        ``head_tokens(n)`` estimates the first ``n`` items; with ``budget``, a prompt
        head over it, or over half of it with many user turns, is not believed (see the
        module doc)."""
        layout = self._decide(request)
        if (
            layout.rule != "fallback"
            and budget is not None
            and head_tokens is not None
            and layout.pinned > _fallback(request.kinds).pinned
        ):
            size = head_tokens(layout.pinned)
            turns = sum(1 for kind in request.kinds[: layout.pinned] if _is_turn(kind))
            if size > budget or (size > budget // 2 and turns > MAX_PROMPT_TURNS + 1):
                layout = _fallback(request.kinds, layout.tail)
        self._remember(request, layout)
        return layout

    def _decide(self, request: Shape) -> Layout:
        kinds, chain = request.kinds, request.chain
        n = len(kinds)
        for i in range(n, 0, -1):
            found = self._ends.get(chain[i])
            if found is None:
                continue
            record, k = found
            if k == 0 or i == n:  # an append to a request seen before, or a part of it
                if record.task is not None and record.task < n:
                    return Layout(record.task + 1, 0, record.task, "append")
                break
            tail = min(k, n - i)
            if record.task is not None and record.task < i:  # the tail moved, not the task
                return Layout(record.task + 1, tail, record.task, "tail")
            if n > record.length:  # a continuation whose rewritten part held the task
                task = next((j for j in range(i, n - tail) if _is_turn(kinds[j])), None)
                if task is not None:
                    return Layout(task + 1, tail, task, "tail")
            break
        if request.tools:
            return _fallback(kinds)  # tool calls: a conversation already under way
        return _opening(kinds)

    def _remember(self, request: Shape, layout: Layout) -> None:
        n = len(request.kinds)
        record = _Record(n, layout.task)
        keys = [request.chain[n - k] for k in range(min(MAX_TAIL, n) + 1)]
        for k, key in enumerate(keys):
            self._ends[key] = (record, k)
            self._ends.move_to_end(key)
        self._records[id(record)] = (record, keys)
        self.nbytes += _RECORD + _KEY * len(keys)
        while self.nbytes > self.max_bytes and self._records:
            _, (old, old_keys) = self._records.popitem(last=False)
            self.nbytes -= _RECORD + _KEY * len(old_keys)
            for key in old_keys:
                entry = self._ends.get(key)
                if entry is not None and entry[0] is old:
                    del self._ends[key]


def _opening(kinds: Sequence[Kind]) -> Layout:
    """The first request of a conversation: its last user turn is the task."""
    task = next((j for j in range(len(kinds) - 1, -1, -1) if _is_turn(kinds[j])), None)
    if task is None:
        return Layout(0, 0, None, "opening")
    return Layout(task + 1, 0, task, "opening")


def _fallback(kinds: Sequence[Kind], tail: int = 0) -> Layout:
    """The first user turn that is not client markup alone is the task."""
    task = next((j for j, k in enumerate(kinds) if k == "turn"), None)
    if task is None:
        task = next((j for j, k in enumerate(kinds) if k == "markup"), None)
    if task is None:
        return Layout(0, tail, None, "fallback")
    return Layout(task + 1, tail, task, "fallback")

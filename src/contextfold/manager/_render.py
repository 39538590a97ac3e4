"""A compacted view back to the orchestrator's dicts (OpenAI chat or Amplifier's shapes).

Extra fields (``name``, an image's ``detail``, unmodelled content parts) live only in
the stored dicts, never in a :class:`~contextfold.messages.Message`, so rendering
reuses stored dicts wherever it can:

* a message the view kept as it is (the same object as in the snapshot) becomes the
  dicts it was parsed from;
* a tool group that compaction rewrote (a tool output truncated) is matched to the
  group it came from by its tool call ids; each tool message is its original dict,
  with only ``content`` replaced when that result changed, and the images that
  followed the group stay the original dicts when they did not change;
* anything else (a summary, an acknowledgement) is converted with
  :func:`~contextfold.formats.to_openai`, or with
  :func:`~contextfold.manager._amplifier.to_amplifier` when the history holds an
  Amplifier-native dict (so that ``amplifier_core.Message(**d)`` accepts it).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

from contextfold.blocks import ToolResultBlock
from contextfold.formats import to_openai
from contextfold.manager._amplifier import to_amplifier
from contextfold.manager._history import Snapshot, clone
from contextfold.messages import Message

__all__ = ["render_view"]

_CallIds = tuple[str, ...]
_Writer = Callable[[Sequence[Message]], list[dict[str, Any]]]


def _result_ids(message: Message) -> _CallIds | None:
    """The tool call ids a tool-result group answers, or ``None`` if it is not one."""
    if message.role != "user" or not message.content:
        return None
    if not all(isinstance(block, ToolResultBlock) for block in message.content):
        return None
    return tuple(block.tool_use_id for block in message.tool_results)


class _Sources:
    """Finds the snapshot's tool group a rewritten group came from (built on first use)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        self._index: dict[_CallIds, list[int]] | None = None

    def find(self, ids: _CallIds, start: int) -> int | None:
        """The first message at or after ``start`` answering exactly ``ids``."""
        if self._index is None:
            self._index = {}
            for i, message in enumerate(self._snapshot.messages):
                key = _result_ids(message)
                if key is not None:
                    self._index.setdefault(key, []).append(i)
        positions = self._index.get(ids, [])
        k = bisect.bisect_left(positions, start)
        return positions[k] if k < len(positions) else None


def _with_content(original: dict[str, Any], content: Any) -> dict[str, Any]:
    """A copy of ``original`` (every field, in order) whose ``content`` is ``content``."""
    merged = {key: content if key == "content" else clone(value) for key, value in original.items()}
    merged["content"] = content
    return merged


def _rewritten_group(
    message: Message, source: Message, originals: Sequence[dict[str, Any]], write: _Writer
) -> list[dict[str, Any]]:
    """``message``, a rewrite of ``source`` (parsed from ``originals``), as dicts."""
    rendered = write([message])
    before = write([source])
    stored = {w["tool_call_id"]: w for w in originals if w.get("role") == "tool"}
    previous = {w["tool_call_id"]: w for w in before if w["role"] == "tool"}
    out: list[dict[str, Any]] = []
    for wire in rendered:
        if wire["role"] != "tool":
            continue
        call_id = wire["tool_call_id"]
        original = stored.get(call_id)
        if original is None:
            out.append(wire)
        elif wire == previous.get(call_id):
            out.append(clone(original))
        else:
            out.append(_with_content(original, wire["content"]))
    others = [w for w in rendered if w["role"] != "tool"]
    if others and others == [w for w in before if w["role"] != "tool"]:
        others = [clone(w) for w in originals if w.get("role") != "tool"]
    return out + others


def render_view(view: Sequence[Message], snapshot: Snapshot) -> list[dict[str, Any]]:
    """``view`` as OpenAI dicts, reusing ``snapshot``'s stored dicts (see the module doc).

    Messages of ``view`` must be in history order, as every compaction keeps them.
    The dicts returned are fresh copies: the caller may change them freely.
    """
    write: _Writer = to_amplifier if snapshot.native else to_openai
    position = {id(message): i for i, message in enumerate(snapshot.messages)}
    sources = _Sources(snapshot)
    out: list[dict[str, Any]] = []
    cursor = 0  # messages before it are behind the view's current point
    for message in view:
        i = position.get(id(message))
        if i is not None and snapshot.messages[i] is message:
            out.extend(clone(wire) for wire in snapshot.group(i))
            cursor = i + 1
            continue
        ids = _result_ids(message)
        source = None if ids is None else sources.find(ids, cursor)
        if source is None:
            out.extend(write([message]))
        else:
            group = snapshot.group(source)
            out.extend(_rewritten_group(message, snapshot.messages[source], group, write))
            cursor = source + 1
    return out

"""The manager's records in a :class:`~contextfold.context.ContextStore`.

A store holds :class:`~contextfold.messages.Message` s, but the manager must give back
the orchestrator's dicts exactly (extra keys, Amplifier blocks, key order). So each
stored dict becomes one *record*: a message with a single text block that reads::

    contextfold.manager/1 message
    {"role":"user","content":"hello"}

(the first line a marker, then the dict as compact JSON). Cached summaries are records
of their own kind in the same session, appended when a summary is made::

    contextfold.manager/1 summary
    {"digest":"<sha-256 hex of the summarized prefix>","cut":12,"summary":"...",
     "floor":null,"head":[{"ref":0,"message":{...}},{"ref":null,"message":{...}}]}

where ``head`` lists the messages that replace the prefix in a view (``ref``: the
stored message a kept system message is; ``message``: its
:meth:`~contextfold.messages.Message.to_dict` form). A summary record is self-checking:
it is used only while the history still starts with the prefix whose digest it names,
so an outdated one is ignored, never wrong. The record's role is the dict's
(``tool`` → ``user``, ``developer`` → ``system``) and summary records are ``system``,
so store listings stay readable. Only JSON data round-trips exactly, so a dict that
is not (a NaN, a tuple, a non-string key, an object) is refused before anything is
written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from contextfold.blocks import TextBlock
from contextfold.compaction._cache import CachedSummary
from contextfold.context import ContextStore
from contextfold.errors import CorruptRecordError
from contextfold.messages import Message, Role

__all__ = [
    "MARKER",
    "Persistence",
    "decode_record",
    "encode_dict",
    "encode_summary",
]

MARKER: Final = "contextfold.manager/1"
_MESSAGE: Final = MARKER + " message\n"
_SUMMARY: Final = MARKER + " summary\n"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _role(wire: Mapping[str, Any]) -> Role:
    role = wire.get("role")
    if role == "assistant":
        return "assistant"
    return "system" if role in ("system", "developer") else "user"


def encode_dict(wire: Mapping[str, Any], index: int) -> Message:
    """The record of stored dict ``index``; :class:`ValueError` if JSON cannot hold it exactly."""
    try:
        text = _json(wire)
        exact = json.loads(text) == wire
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(
            f"message {index} cannot be persisted: it is not JSON data ({exc})"
        ) from None
    if not exact:
        raise ValueError(
            f"message {index} cannot be persisted exactly: JSON would change it (a tuple, "
            "or a dict key that is not a string)"
        )
    return Message(_role(wire), [TextBlock(_MESSAGE + text)])


def encode_summary(entry: CachedSummary[bytes]) -> Message:
    """The record of a cached summary (see the module docstring)."""
    refs = entry.refs or (None,) * len(entry.head)
    head = [
        {"ref": ref, "message": message.to_dict()}
        for message, ref in zip(entry.head, refs, strict=True)
    ]
    body = {
        "digest": entry.prefix_hash.hex(),
        "cut": entry.message_count,
        "summary": entry.summary,
        "floor": entry.floor,
        "head": head,
    }
    return Message("system", [TextBlock(_SUMMARY + _json(body))])


def _int(value: object, *, nullable: bool = False) -> int | None:
    if value is None and nullable:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"expected a non-negative int, got {value!r}")
    return value


def _summary(body: object) -> CachedSummary[bytes]:
    if not isinstance(body, Mapping) or not isinstance(body.get("summary"), str):
        raise ValueError("a summary record needs 'summary' text")
    head_items = body.get("head")
    if not isinstance(head_items, list):
        raise ValueError("a summary record needs a 'head' list")
    head: list[Message] = []
    refs: list[int | None] = []
    for item in head_items:
        if not isinstance(item, Mapping):
            raise ValueError("a head entry must be an object")
        message = item.get("message")
        if not isinstance(message, Mapping):
            raise ValueError("a head entry needs its 'message'")
        head.append(Message.from_dict(message))
        refs.append(_int(item.get("ref"), nullable=True))
    digest = body.get("digest")
    if not isinstance(digest, str):
        raise ValueError("a summary record needs a 'digest'")
    cut = _int(body.get("cut"))
    assert cut is not None  # _int without nullable never returns None
    return CachedSummary(
        bytes.fromhex(digest),
        cut,
        body["summary"],
        tuple(head),
        floor=_int(body.get("floor"), nullable=True),
        refs=tuple(refs),
    )


def decode_record(
    record: Message, session_id: str, position: int
) -> dict[str, Any] | CachedSummary[bytes]:
    """A stored dict, or a cached summary, from the record at ``position``.

    Raises :class:`~contextfold.errors.CorruptRecordError` naming the session and the
    position for a message the manager did not write or cannot read back.
    """
    block = record.content[0] if len(record.content) == 1 else None
    text = block.text if isinstance(block, TextBlock) else ""
    if not text.startswith((_MESSAGE, _SUMMARY)):
        raise CorruptRecordError(
            f"session {session_id!r}: stored message {position} was not written by "
            "CompactingContextManager (its history must live in a session of its own)"
        )
    try:
        if text.startswith(_SUMMARY):
            return _summary(json.loads(text[len(_SUMMARY) :]))
        wire = json.loads(text[len(_MESSAGE) :])
        if not isinstance(wire, dict):
            raise ValueError("a message record must hold a JSON object")
        return wire
    except (ValueError, TypeError, RecursionError) as exc:
        raise CorruptRecordError(
            f"session {session_id!r}: record {position} cannot be decoded ({exc})"
        ) from None


class Persistence:
    """The manager's history and summaries kept in ``store`` (one session).

    Every method writes or reads the store once; errors of the store propagate.
    """

    def __init__(self, store: ContextStore) -> None:
        self.store = store

    async def load(self) -> tuple[list[dict[str, Any]], list[CachedSummary[bytes]]]:
        """The stored dicts and the cached summaries, in the order they were written.

        Raises :class:`~contextfold.errors.CorruptRecordError` for a record it cannot
        read (or one it did not write).
        """
        dicts: list[dict[str, Any]] = []
        summaries: list[CachedSummary[bytes]] = []
        session = self.store.session_id
        for position, record in enumerate(await self.store.get_history()):
            decoded = decode_record(record, session, position)
            if isinstance(decoded, CachedSummary):
                summaries.append(decoded)
            else:
                dicts.append(decoded)
        return dicts, summaries

    async def append(self, wire: Mapping[str, Any], index: int) -> None:
        await self.store.append(encode_dict(wire, index))

    async def save_summary(self, entry: CachedSummary[bytes]) -> None:
        await self.store.append(encode_summary(entry))

    async def replace(
        self, dicts: Sequence[Mapping[str, Any]], summaries: Sequence[CachedSummary[bytes]]
    ) -> None:
        """Replace the session with ``dicts`` and ``summaries`` (one call of the store)."""
        records = [encode_dict(wire, i) for i, wire in enumerate(dicts)]
        records += [encode_summary(entry) for entry in summaries]
        await self.store.replace_history(records)

    async def clear(self) -> None:
        await self.store.clear()

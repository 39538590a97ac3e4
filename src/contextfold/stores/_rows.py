"""A history as rows: how a message becomes a row and back, and how a rewrite is planned.

The persistent stores (SQLite, PostgreSQL, Redis) keep a session as numbered rows;
this module holds what they share that does not touch a database: the row codec
(:func:`encode_message`, :func:`decode_message`, :func:`storable_text`,
:func:`integer_column`) and the plan of a history rewrite (:func:`plan_rewrite`).
The SQL tables are in :mod:`contextfold.stores._sql.schema` and the SQL that runs,
written once for both databases, in :mod:`contextfold.stores._sql.store`; the Redis
rows are described in :mod:`contextfold.stores.redis`.

Sequence numbers of appended rows grow with every append and are never reused (an
append takes the next one from the session row), so the original transcript is the
appended rows, live or archived, ordered by ``seq``. A rewrite never deletes a row:
the rows it replaces move to the archive under a
:class:`~contextfold.stores.base.CompactionRecord`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contextfold.errors import CorruptRecordError
from contextfold.messages import Message, check_message
from contextfold.tokens import count_message_tokens

__all__ = [
    "RewritePlan",
    "decode_message",
    "encode_content",
    "encode_message",
    "integer_column",
    "json_text",
    "plan_rewrite",
    "rewrite_window",
    "storable_text",
]


def encode_message(message: Message) -> tuple[str, str, int]:
    """``(role, content JSON, estimated tokens)`` for a message row.

    Raises :class:`ValueError` (before anything is written) for a message that could
    not be read back, naming the block and field
    (:func:`~contextfold.messages.check_message`): a wrong-typed field, an unknown
    block, a role outside the three, content JSON cannot represent (NaN, a set, an
    arbitrary object in a tool input). Characters that a database cannot store raw
    (NUL, unpaired surrogates) are written as JSON escapes, so they round-trip.
    """
    check_message(message)
    return message.role, encode_content(message), count_message_tokens(message)


def encode_content(message: Message) -> str:
    """The JSON stored in a row's ``content`` column (``message`` already checked)."""
    blocks = message.to_dict()["content"]
    try:
        return json_text(blocks)
    except (ValueError, TypeError) as exc:  # check_message lets none through; kept as a guard
        raise ValueError(
            f"cannot store this {message.role} message: its content is not JSON data ({exc})"
        ) from exc
    except RecursionError as exc:
        raise ValueError(
            f"cannot store this {message.role} message: its content is nested too deeply"
        ) from exc


def json_text(value: Any) -> str:
    """``value`` as compact JSON that any store can keep: raw text, except that text a
    database cannot store raw (unpaired surrogates) makes it escape everything
    non-ASCII (``json.loads`` restores it)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    if not text.isascii() and not _utf8_encodable(text):
        text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text


def _utf8_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def storable_text(text: str) -> str:
    """``text`` made storable in a ``TEXT`` column of either database (for previews).

    NUL becomes U+FFFD and unpaired surrogates become ``?``; other text is unchanged.
    """
    text = text.replace("\x00", "\ufffd")
    return (
        text
        if text.isascii() or _utf8_encodable(text)
        else text.encode("utf-8", "replace").decode()
    )


def decode_message(session_id: str, seq: int, role: Any, content: Any) -> Message:
    """Rebuild a message from its row.

    Raises :class:`~contextfold.errors.CorruptRecordError` naming the session and the
    row when the JSON or the block shapes are invalid (or nested too deeply to parse).
    """
    try:
        blocks = json.loads(content) if isinstance(content, str | bytes) else content
        return Message.from_dict({"role": role, "content": blocks})
    except (ValueError, TypeError, RecursionError) as exc:
        reason = "its JSON is nested too deeply" if isinstance(exc, RecursionError) else exc
        raise CorruptRecordError(
            f"session {session_id!r}: stored message seq={seq} cannot be decoded ({reason}); "
            "the row was written by something other than contextfold or was damaged"
        ) from exc


def integer_column(session_id: str, column: str, value: Any) -> int:
    """A stored integer (a count, a token figure, a sequence number) read back.

    Raises :class:`~contextfold.errors.CorruptRecordError` naming the session and the
    column when the database holds something else there (SQLite keeps whatever was
    written, text included).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise CorruptRecordError(
        f"session {session_id!r}: stored {column} is {value!r}, not an integer; the row "
        "was written by something other than contextfold or was damaged"
    )


@dataclass(frozen=True, slots=True)
class RewritePlan:
    """How to turn the live rows into the requested history.

    The ``archive_count`` live rows numbered in ``[archive_from, archive_to)`` move
    to the archive; then ``inserts`` are written numbered ``first_seq, first_seq + 1,
    ...`` (which sorts them into their place among the rows that stay), and the
    session's ``next_seq`` becomes ``next_seq``. ``synthetic`` marks the inserts as
    rewrite products (summaries, edits) rather than transcript: inserts written after
    every live row when nothing was archived are appends, and are not synthetic.
    """

    archive_count: int
    archive_from: int
    archive_to: int
    inserts: tuple[Message, ...]
    first_seq: int
    next_seq: int
    synthetic: bool


def rewrite_window(count: int, new_count: int) -> tuple[range, range]:
    """The row indexes :func:`plan_rewrite` compares: the head and the tail of the span.

    Replacing the first ``count`` live rows with ``new_count`` messages, only the
    first and the last ``min(count, new_count)`` rows of that span can match.
    """
    width = min(count, new_count)
    return range(width), range(count - width, count)


def plan_rewrite(
    seqs: Sequence[int],
    count: int,
    old: Mapping[int, Message],
    new: Sequence[Message],
    next_seq: int,
) -> RewritePlan:
    """Plan replacing the first ``count`` live rows with ``new``; later rows stay.

    ``seqs`` numbers every live row in order; ``old`` maps a row index to its
    message, for at least the indexes :func:`rewrite_window` names. Rows at the start
    of the span that ``new`` starts with, and rows at its end that ``new`` ends with,
    stay in place (neither rewritten nor duplicated in the transcript); only the rows
    between are archived and only the messages between are inserted. When nothing
    is archived and nothing inserted, the plan changes nothing. Raises
    :class:`ValueError` when ``count`` is not between 0 and the number of live rows.
    """
    if not 0 <= count <= len(seqs):
        raise ValueError(f"cannot replace the first {count} messages of a history of {len(seqs)}")
    head, _ = rewrite_window(count, len(new))
    prefix = 0
    while prefix < len(head) and old[prefix] == new[prefix]:
        prefix += 1
    plan = _plan(seqs, count, old, new, next_seq, prefix)
    if plan is None:
        # The inserts do not fit between the kept head and the kept rows after the
        # span: replace the head too (its originals stay in the archive's transcript).
        plan = _plan(seqs, count, old, new, next_seq, 0)
    assert plan is not None  # with nothing kept in front, every plan fits
    return plan


def _plan(
    seqs: Sequence[int],
    count: int,
    old: Mapping[int, Message],
    new: Sequence[Message],
    next_seq: int,
    prefix: int,
) -> RewritePlan | None:
    suffix = 0
    while (
        suffix < min(count, len(new)) - prefix
        and old[count - 1 - suffix] == new[len(new) - 1 - suffix]
    ):
        suffix += 1
    stop = count - suffix  # index of the first live row kept after the replaced rows
    inserts = tuple(new[prefix : len(new) - suffix])
    archived = stop - prefix
    if stop < len(seqs):
        # Written just below the first kept row, above the kept head.
        first = seqs[stop] - len(inserts)
        if prefix and first <= seqs[prefix - 1]:
            return None
        start = seqs[prefix] if archived else seqs[stop]
        return RewritePlan(archived, start, seqs[stop], inserts, first, next_seq, True)
    # Nothing kept after: number the new rows after everything ever written, so they
    # sort after the archived rows in the transcript too.
    start = seqs[prefix] if archived else next_seq
    return RewritePlan(
        archived,
        start,
        next_seq,
        inserts,
        next_seq,
        next_seq + len(inserts),
        synthetic=archived > 0,
    )

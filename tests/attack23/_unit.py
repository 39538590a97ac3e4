"""Unit-level invariants of parsing, segmenting and rebuilding a request body."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from contextfold._history import compaction_cut_points
from contextfold.blocks import to_dict
from contextfold.compaction._summarizer import acknowledgement, render_summary_message
from contextfold.dialects import dialect_for
from contextfold.messages import Message
from contextfold.proxy._dialects import conversation, rebuild
from contextfold.proxy._memo import HistoryMemo
from contextfold.validation import history_problems

__all__ = ["dump", "unit_check"]


def dump(messages: list[Message]) -> list[Any]:
    return [(m.role, [to_dict(b) for b in m.content]) for m in messages]


def enc(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False)


def unit_check(name: str, body: dict[str, Any], *, pinned: int | None = None) -> None:
    dialect = dialect_for(name)
    key = dialect.history_key
    wire = body[key]
    conv = conversation(dialect, body, "m")
    memo = HistoryMemo()
    # twice: the second parse resumes from the memo
    again = conversation(dialect, body, "m", memo)
    again = conversation(dialect, body, "m", memo)
    assert dump(again.messages) == dump(conv.messages)
    assert again.cuts == conv.cuts, (again.cuts, conv.cuts)
    # every segment parses on its own to its messages
    for (w0, m0), (w1, m1) in pairwise(conv.cuts):
        alone = dialect.read(wire[w0:w1])
        assert dump(alone) == dump(conv.messages[m0:m1]), (w0, w1)
    # the identity rebuild is the client's wire
    same = rebuild(conv, conv.messages)
    assert [enc(i) for i in same.body[key]] == [enc(i) for i in wire]
    rules = dialect.rules
    valid = not history_problems(conv.messages, rules, allow_pending=True)
    messages = conv.messages
    head = conv.lead + 1 if pinned is None else pinned
    for cut in compaction_cut_points(messages):
        if cut <= head:
            continue
        systems = [m for m in messages[head:cut] if m.role == "system"]
        recent = messages[cut:]
        first_kept = next((m for m in recent if m.role != "system"), None)
        ack = [acknowledgement()] if first_kept is None or first_kept.role == "user" else []
        summary = render_summary_message("S")
        history = [*messages[:head], *systems, summary, *ack, *recent]
        rebuilt = rebuild(conv, history)
        out = rebuilt.body[key]
        parsed = dialect.read_body(rebuilt.body)
        if rebuilt.messages is not None:
            assert dump(rebuilt.messages) == dump(parsed), f"cut {cut}: known != reparsed"
        if valid:
            problems = history_problems(parsed, rules, allow_pending=True)
            assert not problems, f"cut {cut}: {problems}"
        assert dump(parsed[len(parsed) - len(recent) :]) == dump(recent), f"cut {cut}"
        # the kept part, byte for byte: the client's own items after the summary
        texts = [enc(i) for i in out]
        at = next(k for k, t in enumerate(texts) if "S" in t and "summary" in t.lower())
        tail = texts[at + 1 + len(ack) :]
        client = [enc(i) for i in wire]
        assert client[len(client) - len(tail) :] == tail, (
            f"cut {cut}: kept items rewritten: "
            + next(
                f"{a[:200]} != {b[:200]}"
                for a, b in zip(tail, client[len(client) - len(tail) :], strict=True)
                if a != b
            )
        )

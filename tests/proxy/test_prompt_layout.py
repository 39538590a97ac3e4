"""The rules that tell a request's prompt from its history (:mod:`contextfold.proxy._layout`),
at their boundaries: when a first request's head is believed to be prompt."""

from __future__ import annotations

from typing import Any

import pytest

from contextfold.dialects import CHAT
from contextfold.proxy._layout import MAX_PROMPT_TURNS, Layouts, shape


def pairs(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        out.append({"role": "user", "content": f"example question {i}"})
        out.append({"role": "assistant", "content": f"example answer {i}"})
    return out


def first_request(examples: int) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "sys"},
        *pairs(examples),
        {"role": "user", "content": "T"},
    ]


@pytest.mark.parametrize(
    ("examples", "head_tokens", "believed"),
    [
        (MAX_PROMPT_TURNS, 900, True),  # many examples, but over half the limit is fine
        (MAX_PROMPT_TURNS + 1, 400, True),  # many user turns, under half the limit
        (MAX_PROMPT_TURNS + 1, 600, False),  # both: a conversation under way
        (2, 1_001, False),  # over the limit: never believed
    ],
)
def test_an_opening_head_is_prompt_unless_it_looks_like_a_conversation(
    examples: int, head_tokens: int, believed: bool
) -> None:
    items = first_request(examples)
    layout = Layouts().decide(
        shape(CHAT, items, "m"), head_tokens=lambda _: head_tokens, budget=1_000
    )
    task = len(items) - 1 if believed else 1  # the fallback: the first user turn
    assert layout.task == task
    assert layout.pinned == task + 1


def test_a_fallback_decision_holds_for_the_conversations_appends() -> None:
    layouts = Layouts()
    items = first_request(MAX_PROMPT_TURNS + 1)
    first = layouts.decide(shape(CHAT, items, "m"), head_tokens=lambda _: 600, budget=1_000)
    assert first.task == 1
    longer = [*items, {"role": "assistant", "content": "a"}, {"role": "user", "content": "q"}]
    later = layouts.decide(shape(CHAT, longer, "m"), head_tokens=lambda _: 10, budget=1_000)
    assert (later.task, later.rule) == (1, "append")

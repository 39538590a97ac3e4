"""The OpenAI Responses API as a proxy dialect: what ``POST /v1/responses`` adds to chat.

A Responses request carries its history in ``input`` (a string, or a list of items
:mod:`contextfold.formats` reads with :func:`~contextfold.formats.from_responses`)
and its system prompt in ``instructions``. Unless it leans on history the upstream
holds (:func:`server_state`), it is planned like a chat request: the older part
becomes a summary, the rest is kept.

The rewritten ``input`` keeps the input's leading system items, then the new head
(moved system messages, the summary, the acknowledgement), then the kept messages -
each copied item for item from the original ``input`` when it was not changed, so
``reasoning`` items (their ``encrypted_content``), item ids, statuses and
annotations survive in the kept part. Reasoning in the summarized part goes with
it (the summarizer never reads reasoning). ``instructions`` and every other field
are left as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from contextfold.formats import to_responses
from contextfold.formats._responses import item_starts
from contextfold.messages import Message

if TYPE_CHECKING:
    from contextfold.proxy._dialects import Conversation

__all__ = ["input_items", "rebuild_responses", "server_state"]

_STATE_FIELDS = ("previous_response_id", "conversation")


def server_state(body: dict[str, Any]) -> str | None:
    """Why a Responses request cannot be compacted here, when it uses server-held state.

    With ``previous_response_id`` or ``conversation`` the upstream prepends history
    the proxy never sees, so nothing it could summarize is in the request.
    """
    for name in _STATE_FIELDS:
        if body.get(name) is not None:
            return (
                f"not compacted: the request continues server-held state ({name}); the "
                "upstream holds the earlier history, which the proxy cannot see or compact; "
                "forwarded unchanged (send the whole history as input to have it compacted)"
            )
    return None


def input_items(body: dict[str, Any]) -> tuple[str | list[Any], str | None]:
    """``(input, instructions)`` of a Responses body accepted by ``parse_body``.

    :class:`ValueError` for ``instructions`` that is not a string.
    """
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ValueError("field 'instructions' must be a string")
    wire: str | list[Any] = body.get("input", [])
    return wire, instructions or None


def rebuild_responses(
    conv: Conversation, head: Sequence[Message], tail: Sequence[Message], start: int
) -> dict[str, Any]:
    """A copy of ``conv.body`` whose history is ``lead systems + head + tail``.

    ``tail[j]`` stands for ``conv.messages[start + j]``; where they are equal, that
    message's original items are copied verbatim, otherwise it is written anew.
    """
    items: list[Any] = conv.body["input"]
    offset = 1 if conv.body.get("instructions") else 0  # messages made from instructions
    bounds = [*item_starts(items), len(items)]
    out: list[Any] = list(items[: bounds[conv.lead - offset]])
    out += to_responses(head)
    for j, message in enumerate(tail):
        i = start + j - offset  # the message's index among those made from ``input``
        if 0 <= i < len(bounds) - 1 and message == conv.messages[start + j]:
            out += items[bounds[i] : bounds[i + 1]]
        else:
            out += to_responses([message])
    body = dict(conv.body)
    body["input"] = out
    return body

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

from typing import Any

__all__ = ["input_items", "server_state"]

_STATE_FIELDS = ("previous_response_id", "conversation")


def server_state(body: dict[str, Any]) -> str | None:
    """Why a Responses request cannot be compacted here, when it uses server-held state.

    With ``previous_response_id`` or ``conversation`` the upstream prepends history
    the proxy never sees, and an ``item_reference`` stands for an item only the
    upstream holds, so the proxy cannot tell what it would summarize.
    """
    for name in _STATE_FIELDS:
        if body.get(name) is not None:
            return (
                f"not compacted: the request continues server-held state ({name}); the "
                "upstream holds the earlier history, which the proxy cannot see or compact; "
                "forwarded unchanged (send the whole history as input to have it compacted)"
            )
    items = body.get("input")
    if isinstance(items, list) and any(
        isinstance(item, dict) and item.get("type") == "item_reference" for item in items
    ):
        return (
            "not compacted: the request refers to items the upstream holds (item_reference), "
            "which the proxy cannot see or compact; forwarded unchanged"
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

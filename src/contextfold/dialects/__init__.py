"""The wire formats, one object each: Chat Completions, Responses, Messages.

A :class:`~contextfold.dialects.base.Dialect` knows everything about its format's
JSON: how a request body holds its history and how that history reads as messages
and is written back (losslessly where the format allows, content nobody models
carried byte for byte), where a history may be cut, what its answers report, its
errors and overflow errors, its route and upstream, and the recall tool's wire
details. The proxy and the transports go through it and never ask which format
they hold. Each format is a singleton, compared by identity:

================  ===========================  ===================================
:data:`CHAT`      OpenAI Chat Completions       :mod:`contextfold.dialects.chat`
:data:`RESPONSES` OpenAI Responses              :mod:`contextfold.dialects.responses`
:data:`MESSAGES`  Anthropic Messages            :mod:`contextfold.dialects.messages`
================  ===========================  ===================================

:func:`dialect_for` finds one by its :attr:`~contextfold.dialects.base.Dialect.name`
(``"openai"``, ``"responses"``, ``"anthropic"``: also the
:attr:`~contextfold.blocks.OpaqueBlock.dialect` of the content its readers carry).
The history readers and writers are public in :mod:`contextfold.formats` too.

This package imports only the ground (``blocks``, ``messages``).
"""

from __future__ import annotations

from typing import Final

from contextfold.dialects.base import Dialect
from contextfold.dialects.chat import CHAT, ChatCompletions
from contextfold.dialects.messages import MESSAGES, Messages
from contextfold.dialects.responses import RESPONSES, Responses

__all__ = [
    "CHAT",
    "DIALECTS",
    "MESSAGES",
    "RESPONSES",
    "ChatCompletions",
    "Dialect",
    "Messages",
    "Responses",
    "dialect_for",
]

DIALECTS: Final[tuple[Dialect, ...]] = (CHAT, RESPONSES, MESSAGES)
"""Every wire format contextfold speaks."""

_BY_NAME: Final = {dialect.name: dialect for dialect in DIALECTS}


def dialect_for(name: str) -> Dialect:
    """The dialect named ``name``; :class:`ValueError` naming the known ones otherwise."""
    found = _BY_NAME.get(name)
    if found is None:
        known = ", ".join(repr(n) for n in sorted(_BY_NAME))
        raise ValueError(f"unknown dialect {name!r} (known: {known})")
    return found

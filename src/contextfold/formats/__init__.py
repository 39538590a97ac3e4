"""Whole histories to and from the wire formats: OpenAI chat and Responses, Anthropic Messages.

The readers and writers belong to the dialects (:mod:`contextfold.dialects`), each
of which documents its mapping and what its format cannot express:
:mod:`~contextfold.dialects.chat` (:func:`from_openai`, :func:`to_openai`, and the
:data:`TOOL_ERROR_PREFIX` that marks an error result),
:mod:`~contextfold.dialects.responses` (:func:`from_responses`,
:func:`to_responses`) and :mod:`~contextfold.dialects.messages`
(:func:`from_anthropic`, :func:`to_anthropic`). This module keeps their public
names, the same objects.

Every ``from_*`` function accepts what real clients send and raises
:class:`ValueError` naming the message (or item) index and the defect for malformed
JSON of a modelled type; content nobody models is carried as an
:class:`~contextfold.blocks.OpaqueBlock`, put back unchanged by the writers of the
same format and written as its placeholder by the others.
"""

from __future__ import annotations

from contextfold.dialects._common import split_system
from contextfold.dialects.chat import TOOL_ERROR_PREFIX, from_openai, to_openai

# Not in __all__: the OpenAI transport parses streamed tool calls with it.
from contextfold.dialects.chat import parse_openai_tool_call as parse_openai_tool_call
from contextfold.dialects.messages import from_anthropic, to_anthropic
from contextfold.dialects.responses import from_responses, to_responses

__all__ = [
    "TOOL_ERROR_PREFIX",
    "from_anthropic",
    "from_openai",
    "from_responses",
    "split_system",
    "to_anthropic",
    "to_openai",
    "to_responses",
]

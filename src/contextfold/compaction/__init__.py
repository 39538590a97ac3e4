"""LLM-summarizing compaction: :func:`compact_context` and :class:`AutoCompactStore`.

:func:`compact_context` turns a history into ``[summary, acknowledgement, *recent]``
without touching any store. :class:`AutoCompactStore` wraps any
:class:`~contextfold.context.ContextStore`, watches the real input tokens the agent
reports after every model call, and compacts when they cross its limit.

Guarantees (each has its own tests):

1. *Valid history, always*: the cut never separates a tool call from its result,
   the first message stays a user message, no system message is dropped, and the
   result is checked with :func:`~contextfold.validation.validate_history` before it
   is committed.
2. *No lost messages*: compaction summarizes a snapshot and splices; messages
   appended while the summarizer ran are kept, in order, after the recent part.
3. *A bad summary is never committed*: empty, refused (in any common phrasing of
   eleven languages), truncated, unfinished (any stop but a normal end), tool-calling
   and over-budget replies are rejected, and so is a model's reply without the
   ``<summary>`` tags the built-in prompts ask for; lone surrogates are repaired. The
   history stays untouched and the next attempts back off. Every summarizer request
   carries an output cap (the summary budget plus slack), and an automatic compaction
   that would not make the history smaller is rejected (an explicit
   :func:`compact_context` or :meth:`AutoCompactStore.compact` is not).
4. *The summarizer's request fits its own window*: sanitized, budgeted, chunked.
5. *No loops*: what would remain is estimated first; when it would not free room,
   fewer messages are kept and kept tool outputs are truncated; after a compaction
   that could not get under the limit, the next one waits until usage grows again.
6. *Cost is visible*: :attr:`AutoCompactStore.summarizer_usage` and every event carry
   the summarizer's own usage; ``cache_friendly=True`` summarizes as a continuation
   of the agent's own prefix so the provider's prompt cache is hit.
7. *Observable*: ``on_event`` callbacks before and after each compaction, and logging.
8. *Proactive as well as reactive*: a large append that would push the next request
   past the limit compacts before that request; ``compact(force=True)`` (called by
   :class:`~contextfold.agent.Agent` on a context-overflow error) compacts at once.
9. *The user's words survive*: the user's own messages of the summarized part are kept
   word for word in the summary message, newest first up to ``user_message_budget``
   tokens; ``instructions`` and the standing instructions the user gave ("when you
   summarize, keep ...") reach every summarizer request (:mod:`._userwords`).

The room: :mod:`._engine` (the split, the summary run and the splice shape, options and
events), :mod:`._summarizer` (the summarizer's sanitized, budgeted, chunked requests and
the checks a summary must pass), :mod:`._splice` (committing a compaction over a store
that may have changed), :mod:`._settings` (:class:`CompactionSettings`, shared with the
manager and the proxy), :mod:`._userwords` (the user's verbatim words and compaction
instructions), :mod:`._compactor` (the trigger rules, attempts and background
preparation) and :mod:`._store` (:class:`AutoCompactStore`, the face). It may import the
ground, the contracts (``context``, ``tokens``, ``prompts``, ``validation``,
``transports.base``) and :mod:`contextfold._history`; it talks to a store only through
:class:`~contextfold.context.ContextStore` and to a model only through
:class:`~contextfold.transports.base.CompletionTransport`, never the faces.
"""

from __future__ import annotations

from collections.abc import Sequence

from contextfold.compaction._coverage import FactCoverage
from contextfold.compaction._engine import (
    DEFAULT_PROMPT,
    CompactionEvent,
    CompactionHook,
    CompactionResult,
    PromptLike,
    compact_history,
    compaction_limit,
)
from contextfold.compaction._settings import CompactionSettings
from contextfold.compaction._store import AutoCompactStore
from contextfold.compaction._trigger import TriggerCheck
from contextfold.context import ContextStore
from contextfold.messages import Message
from contextfold.tokens import TokenCounter, approx_token_counter
from contextfold.transports.base import CompletionTransport

__all__ = [
    "DEFAULT_PROMPT",
    "AutoCompactStore",
    "CompactionEvent",
    "CompactionHook",
    "CompactionResult",
    "CompactionSettings",
    "FactCoverage",
    "PromptLike",
    "TriggerCheck",
    "compact_context",
    "compaction_limit",
]


async def compact_context(
    context: ContextStore | Sequence[Message],
    transport: CompletionTransport,
    *,
    keep_recent: int = 6,
    system_prompt: PromptLike = DEFAULT_PROMPT,
    update_prompt: PromptLike | None = None,
    prompt_vars: dict[str, object] | None = None,
    counter: TokenCounter = approx_token_counter,
    max_summary_tokens: int = 4_000,
    max_tool_chars: int = 8_000,
    instructions: str | None = None,
    user_message_budget: int = 2_000,
    fact_budget: int = 1_000,
) -> list[Message] | None:
    """The compacted history of ``context``, or ``None`` when it is too short to split.

    The result is ``[summary (user), acknowledgement (assistant), *recent]`` where
    ``recent`` is about the last ``keep_recent`` messages, moved to the nearest cut
    that keeps tool calls with their results (the acknowledgement is left out when
    ``recent`` starts with an assistant turn; system messages of the old part come
    first). The store is never modified. A bad summary raises
    :class:`~contextfold.errors.SummaryRejectedError`. This is an explicit compaction:
    a result larger than ``context`` (a summary of a few short messages) is returned,
    not refused; only the automatic triggers of :class:`AutoCompactStore` require a
    compaction to shrink the history.

    ``system_prompt`` and ``update_prompt`` (used when a previous summary exists or
    the old part is summarized in chunks) are text, a file path or a
    :class:`~contextfold.prompts.Prompt`; ``{max_summary_tokens}`` and every key of
    ``prompt_vars`` are available to them as variables.

    ``instructions`` (what to keep or stress) reach the summarizer after the transcript,
    with the standing instructions the user gave in the conversation ("when you
    summarize, keep ..."). The user's own messages of the summarized part are kept word
    for word in the summary message, newest first, up to ``user_message_budget`` tokens.
    Facts of the summarized part that the summary leaves out (files and what happened
    to them, identifiers, the user's instructions and next steps) are restored after
    it, up to ``fact_budget`` tokens (``0``: no fact ledger; see
    :class:`CompactionSettings`).
    """
    opts = CompactionSettings(
        keep_recent=keep_recent,
        system_prompt=system_prompt,
        update_prompt=update_prompt,
        prompt_vars=prompt_vars or {},
        counter=counter,
        max_summary_tokens=max_summary_tokens,
        max_tool_chars=max_tool_chars,
        kept_tool_chars=max_tool_chars,
        instructions=instructions,
        user_message_budget=user_message_budget,
        fact_budget=fact_budget,
    ).options()
    history = await context.get_history() if isinstance(context, ContextStore) else list(context)
    if len(history) <= keep_recent:
        return None
    result = await compact_history(history, transport, opts, require_smaller=False)
    return None if result is None else result.messages

"""When to compact: the rule every face asks, and the user's hook that may overrule it.

The rule is one line: a prompt estimated over the limit is compacted. A user who knows
better (compact when a task ends, never inside a tool loop, earlier for one model) sets
``CompactionSettings(should_compact=hook)``. Every face asks the hook at the point where
it would apply the rule - :class:`~contextfold.AutoCompactStore` after each usage report
and before each read with appends pending, the context manager for each request's view,
the proxy for each chat request - with a :class:`TriggerCheck` of what it knows, and
acts on the answer the same way:

- ``True``: compact now, over the limit or not (back-off after failures still applies;
  a compaction that would not make the history smaller is still refused);
- ``False``: not now. A history past the relief point still never reaches the model
  whole: it is relieved without a model, as when no summary can be made;
- ``None``: the rule decides.

A hook may be sync or async; a sync one runs on the event loop, so it must be quick.
One that raises, answers something else than a bool or ``None``, or (async) takes more
than :data:`HOOK_TIMEOUT` seconds, is logged and the rule decides: a hook never breaks
or holds a request. A compaction
asked for explicitly (``compact()``, an overflow the upstream reported) does not ask it.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from contextfold._cancel import cancelled

__all__ = ["HOOK_TIMEOUT", "Face", "TriggerCheck", "TriggerHook", "decide", "due"]

logger = logging.getLogger("contextfold.compaction")

Face = Literal["store", "manager", "proxy"]


@dataclass(frozen=True, slots=True)
class TriggerCheck:
    """What a face knows when it decides whether to compact.

    Attributes:
        face: who asks: ``"store"`` (:class:`~contextfold.AutoCompactStore`),
            ``"manager"`` or ``"proxy"``.
        model: the model the history is sent to.
        tokens: the estimated prompt size of the next request.
        limit: the size past which the rule compacts.
        window: the model's context window.
        messages: how many messages the history holds (``0`` where the face has not
            read them: the store's usage reports).
        session: the store's session id, or the proxy's conversation key (``""`` for
            the manager).
    """

    face: Face
    model: str
    tokens: int
    limit: int
    window: int
    messages: int = 0
    session: str = ""

    @property
    def over(self) -> bool:
        """What the rule says: the estimate is over the limit."""
        return self.tokens > self.limit


TriggerHook: TypeAlias = Callable[[TriggerCheck], "bool | Awaitable[bool | None] | None"]
"""``should_compact``: answers a :class:`TriggerCheck` (see the module doc)."""


HOOK_TIMEOUT = 5.0
"""Seconds an async hook may take before the rule decides without it."""


async def decide(hook: TriggerHook | None, check: TriggerCheck) -> bool | None:
    """``hook``'s answer to ``check``: ``True`` or ``False``, or ``None`` when it leaves
    it to the rule - it answered ``None``, something else than a bool, raised, or took
    longer than :data:`HOOK_TIMEOUT` (each but ``None`` logged)."""
    if hook is None:
        return None
    try:
        answer = hook(check)
        if inspect.isawaitable(answer):
            async with asyncio.timeout(HOOK_TIMEOUT):
                answer = await answer
    except TimeoutError:
        logger.warning("should_compact took over %.0f s: the limit decides", HOOK_TIMEOUT)
        return None
    except asyncio.CancelledError:
        if cancelled():  # the request itself is being cancelled
            raise
        logger.warning("should_compact raised CancelledError: the limit decides (%s)", check)
        return None
    except Exception as exc:
        logger.warning(
            "should_compact raised %s: the limit decides (%s)", type(exc).__name__, check
        )
        return None
    if answer is not None and not isinstance(answer, bool):
        logger.warning(
            "should_compact answered %r, not True, False or None: the limit decides",
            type(answer).__name__,
        )
        return None
    return answer


async def due(hook: TriggerHook | None, check: TriggerCheck) -> bool:
    """Whether to compact now: ``hook``'s answer, else the rule (see the module doc)."""
    if hook is None:
        return check.over
    answer = await decide(hook, check)
    return check.over if answer is None else answer

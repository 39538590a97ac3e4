"""A context manager for orchestrators that keep their history as message dicts.

The orchestrator adds every message with :meth:`~CompactingContextManager.add_message`
and, before each model call, asks :meth:`~CompactingContextManager.get_messages_for_request`
for what to send. The stored history is never rewritten: the request gets a
*compacted view* once the history outgrows ``compaction_threshold`` of the budget,
and :meth:`~CompactingContextManager.get_messages` always returns everything. Messages
are OpenAI chat dicts or Amplifier's own shapes, each returned as given; with
``store=`` the history and its summaries persist and resume.

Module-loading hosts (the ``amplifier.modules`` entry-point group, name
``contextfold-context``) call :func:`mount`, whose ``config`` also takes the keys of
Amplifier's default context modules.

The room: :mod:`._manager` (the class), :mod:`._protocols`, :mod:`._history` (the
stored dicts and their parsed form), :mod:`._amplifier` (Amplifier's message shapes),
:mod:`._parts` (unmodelled content parts), :mod:`._budget` (the request budget from a
provider), :mod:`._summary` (cached, incremental view summaries), :mod:`._view` (one
request's view and events), :mod:`._render` (the view back as the caller's dicts),
:mod:`._persist` (the records in a store), :mod:`._transports` and :mod:`._provider`
(where summaries come from), :mod:`._config` and :mod:`._mount` (the host's side). A
face: it may import compaction, strategies and everything below them, never ``cli``
or ``proxy``.
"""

from __future__ import annotations

from contextfold.manager._manager import CompactingContextManager
from contextfold.manager._mount import mount
from contextfold.manager._options import ManagerOptions, manager_settings
from contextfold.manager._protocols import ContextManager, Coordinator, EventHooks

__all__ = [
    "CompactingContextManager",
    "ContextManager",
    "Coordinator",
    "EventHooks",
    "ManagerOptions",
    "manager_settings",
    "mount",
]

__amplifier_module_type__ = "context"
"""Read by Amplifier's module loader: this package mounts at the ``context`` point."""

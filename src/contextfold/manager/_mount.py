"""``mount``: the manager as a module of a module-loading host (Amplifier's kernel).

The host calls ``await mount(coordinator, config)`` while it builds a session; see
:func:`mount` for what is registered where. Stores named by URL are opened here:

* ``sqlite:PATH`` (``sqlite:///abs/path.db``, ``sqlite:relative.db``, ``~`` expanded,
  the directory made when missing);
* ``postgresql://...`` (or ``postgres://``), the ``postgres`` extra;
* ``redis://...`` (or ``rediss://``, ``unix://``), the ``redis`` extra;

each for the coordinator's session id, and closed by the session's cleanup.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import os
import uuid
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Final

from contextfold.compaction import CompactionSettings
from contextfold.context import ContextStore
from contextfold.manager._config import read_config
from contextfold.manager._manager import CompactingContextManager
from contextfold.manager._options import OPTION_NAMES, ManagerOptions, manager_settings
from contextfold.manager._protocols import Coordinator, EventHooks
from contextfold.manager._view import EVENTS

__all__ = ["mount", "open_store"]

_SETTINGS_FIELDS: Final = frozenset(f.name for f in dataclasses.fields(CompactionSettings))
_MANAGER_KEYWORDS: Final = frozenset({"max_tokens", "keep_recent"})
"""Keys that are the manager's own keywords although settings have fields of the name."""

logger = logging.getLogger("contextfold.manager")

Closer = Callable[[], Awaitable[None]]


async def _nothing() -> None:
    return None


_SCHEMES = "sqlite:PATH, postgresql://..., redis://..."


async def open_store(spec: object, session_id: str) -> tuple[ContextStore | None, Closer]:
    """``(store, close)`` for a ``store`` config value: a URL (see the module docstring),
    a :class:`~contextfold.context.ContextStore` (used as it is, not closed) or ``None``.

    Raises :class:`ValueError` for another value or scheme, :class:`ImportError` (with
    the extra to install) when the store's driver is missing, and the store's errors
    when it cannot be reached.
    """
    if spec is None or isinstance(spec, ContextStore):
        return spec, _nothing
    if not isinstance(spec, str):
        raise ValueError(f"store must be a URL ({_SCHEMES}) or a ContextStore, got {spec!r}")
    scheme, _, rest = spec.partition(":")
    scheme = scheme.lower()
    if scheme == "sqlite" and rest:
        from contextfold.sqlite import SQLiteContextStore
        from contextfold.sqlite import connect as sqlite_connect

        path = await asyncio.to_thread(_prepared, rest[2:] if rest.startswith("//") else rest)
        conn = await sqlite_connect(path)
        return SQLiteContextStore(conn, session_id), conn.close
    if scheme in ("postgresql", "postgres"):
        from contextfold.postgres import PostgresContextStore
        from contextfold.postgres import connect as pg_connect

        connection = await pg_connect(spec)
        return PostgresContextStore(connection, session_id), connection.close
    if scheme in ("redis", "rediss", "unix"):
        # contextfold.redis checked that redis-py is installed.
        from redis.asyncio import Redis

        from contextfold.redis import RedisContextStore

        client = Redis.from_url(spec)
        try:
            store = RedisContextStore(client, session_id)
        except BaseException:
            await client.aclose()
            raise
        return store, client.aclose
    raise ValueError(f"store URL {spec.split('@')[-1]!r} has an unknown scheme; use {_SCHEMES}")


def _prepared(path: str) -> str:
    """``path`` with ``~`` expanded and its directory made (as context-persistent does)."""
    full = os.path.expanduser(path)
    os.makedirs(os.path.dirname(full) or ".", exist_ok=True)
    return full


async def _memory(files: tuple[str, ...]) -> list[dict[str, Any]]:
    """context-persistent's memory files as system messages (missing ones logged)."""
    out: list[dict[str, Any]] = []
    for name in files:
        path = Path(await asyncio.to_thread(os.path.expanduser, name))
        try:
            text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            logger.warning("memory file %s cannot be read (%s); skipping it", path, exc)
            continue
        out.append({"role": "system", "content": f"[Context from {path.name}]\n\n{text}"})
    return out


def _lookup(coordinator: object) -> Callable[[], Mapping[str, object]] | None:
    get = getattr(coordinator, "get", None)
    if not callable(get):
        return None

    def providers() -> Mapping[str, object]:
        found = get("providers")
        return found if isinstance(found, Mapping) else {}

    return providers


async def mount(
    coordinator: Coordinator, config: Mapping[str, Any] | None = None
) -> CompactingContextManager:
    """Build a :class:`CompactingContextManager` from ``config`` and register it.

    ``config`` keys are the constructor's keywords (``max_tokens``,
    ``compaction_threshold``, ``keep_recent``, ``safety_margin``, ``target_ratio``,
    ``max_tool_chars``, ``max_summary_tokens``, ``system_prompt``, ``update_prompt``,
    ``prompt_vars``, ``cache_size``, ``max_backoff``, ``transport`` /
    ``summary_transport`` as an object or a string such as
    ``"anthropic:claude-haiku-4-5"``, ``"mounted"`` or ``"none"``), ``store`` (a URL,
    see the module docstring, or a ContextStore) and the keys of Amplifier's
    context-simple and context-persistent, mapped so:

    ============================  ==================================================
    ``max_tokens``                ``max_tokens`` (the budget without provider limits)
    ``compact_threshold``         ``compaction_threshold``
    ``target_usage``              ``target_ratio``
    ``truncate_chars``            ``max_tool_chars`` (raised to 64 if smaller)
    ``memory_files``              system messages added when a session starts empty
    ``protected_recent``          ``protected_recent`` (the latest share of the
                                  messages, in whole turns, ends every view verbatim)
    ``transcript_path``,          accepted and logged as having no equivalent (use
    ``protected_tool_results``,   ``store``; the latest round is kept whole; events
    ``compaction_notice_*``,      replace the notice; all of ``max_output_tokens`` is
    ``output_reserve_fraction``,  reserved; counts are estimates; results are stored
    ``token_meter``,              whole)
    ``max_tool_result_bytes``,
    ``truncate_boundary``
    ============================  ==================================================

    An unknown key raises :class:`ValueError` listing the valid ones.

    Without ``transport``, summaries reuse the host's provider (``"mounted"``): the
    one the orchestrator passes to each request, else the preferred one of
    ``coordinator.get("providers")``, looked up at request time because Amplifier
    mounts providers after the context. Events go to ``coordinator.hooks`` and are
    declared with ``register_contributor("observability.events", ...)``; the store
    opened from a URL (keyed by ``coordinator.session_id``) and the clients the
    manager made are closed by :meth:`~CompactingContextManager.aclose`, which is
    given to ``register_cleanup``, where the coordinator has these. The manager is
    registered with ``coordinator.mount("context", manager, name="contextfold")``
    (sync or async) and returned.
    """
    if not isinstance(coordinator, Coordinator):
        raise ValueError(
            f"coordinator must have a mount(point, module, name=...) method: {coordinator!r}"
        )
    settings = read_config(config or {})
    options = dict(settings.options)
    if "transport" not in options and "summary_transport" not in options:
        options["transport"] = "mounted"
    hooks = getattr(coordinator, "hooks", None)
    session = getattr(coordinator, "session_id", None)
    session_id = session if isinstance(session, str) and session else uuid.uuid4().hex
    store, close_store = await open_store(settings.store, session_id)
    manager: CompactingContextManager | None = None
    try:
        own = {name: options.pop(name) for name in list(options) if name in OPTION_NAMES}
        fields = {
            name: options.pop(name)
            for name in list(options)
            if name in _SETTINGS_FIELDS and name not in _MANAGER_KEYWORDS
        }
        manager = CompactingContextManager(
            settings=manager_settings(**fields),
            options=ManagerOptions(provider_lookup=_lookup(coordinator), **own),
            hooks=hooks if isinstance(hooks, EventHooks) else None,
            store=store,
            **options,
        )
        resumed = await manager.load()
        if settings.memory_files and not resumed and not await manager.get_messages():
            for message in await _memory(settings.memory_files):
                await manager.add_message(message)
        registered = coordinator.mount("context", manager, name="contextfold")
        if inspect.isawaitable(registered):
            await registered
    except BaseException:
        if manager is not None:
            await manager.aclose()
        await close_store()
        raise
    manager.close_with(close_store)
    contribute = getattr(coordinator, "register_contributor", None)
    if callable(contribute):
        contribute("observability.events", "contextfold-context", lambda: list(EVENTS))
    register = getattr(coordinator, "register_cleanup", None)
    if callable(register):
        register(manager.aclose)
    return manager

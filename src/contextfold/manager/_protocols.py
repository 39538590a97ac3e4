"""What the manager offers orchestrators, and what it needs from the host.

:class:`ContextManager` is the protocol orchestrators call (Amplifier's, with OpenAI
chat dicts or Amplifier's own message dicts); :class:`EventHooks` and
:class:`Coordinator` are what :func:`~contextfold.manager.mount` finds on the host
(an Amplifier ``ModuleCoordinator`` has both).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["ContextManager", "Coordinator", "EventHooks"]


@runtime_checkable
class ContextManager(Protocol):
    """What an orchestrator needs from a context manager (messages are dicts)."""

    async def add_message(self, message: dict[str, Any]) -> None: ...

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: object | None = None
    ) -> list[dict[str, Any]]: ...

    async def get_messages(self) -> list[dict[str, Any]]: ...

    async def set_messages(self, messages: list[dict[str, Any]]) -> None: ...

    async def clear(self) -> None: ...


@runtime_checkable
class EventHooks(Protocol):
    """Receives events: ``emit(name, data)``, sync or async (e.g. an amplifier hook registry)."""

    def emit(self, event: str, data: dict[str, Any], /) -> object: ...


@runtime_checkable
class Coordinator(Protocol):
    """Where :func:`mount` registers the manager: ``mount(point, module, name=...)``."""

    def mount(self, mount_point: str, module: object, *, name: str | None = None) -> object: ...

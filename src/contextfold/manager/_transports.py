"""Where the manager's summaries come from: a transport object, a spec string, a provider.

A bundle configuration cannot hold a Python object, so the summarizer may be named by
a string (:func:`parse_transport`):

``"anthropic:<model>"`` / ``"openai:<model>"`` (the model may be left out)
    an :class:`SDKModelTransport`: the official SDK's transport, built on the first
    summary request, so the API key is read from the environment
    (``ANTHROPIC_API_KEY`` / ``OPENAI_API_KEY``) then, not when the config is read.
``"mounted"`` / ``"mounted:<name>"``
    a :class:`MountedProvider`: reuse a provider the host already runs (in Amplifier,
    one mounted on the coordinator, which mounts providers *after* the context
    module). It is resolved at request time: the ``provider`` the orchestrator passes
    to ``get_messages_for_request``, else the named (or the preferred) mounted one.
    An Amplifier provider is wrapped in a :class:`ProviderTransport`.
``"none"``
    no LLM summaries (strategies only).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from contextfold.messages import Message
from contextfold.transports.base import (
    Completion,
    CompletionTransport,
    ModelInfo,
    ToolSpec,
    lookup_model,
)

__all__ = ["MountedProvider", "SDKModelTransport", "TransportSpec", "parse_transport"]

logger = logging.getLogger("contextfold.manager")

DEFAULT_MODELS: Final = {"anthropic": "claude-haiku-4-5", "openai": "gpt-4o-mini"}
"""The providers a spec string may name, and the model used when it names none."""


@dataclass(frozen=True, slots=True)
class MountedProvider:
    """Summarize with a provider the host runs: ``name`` on the coordinator, or the
    request's provider (then the preferred mounted one) when ``name`` is ``None``."""

    name: str | None = None


TransportSpec = CompletionTransport | MountedProvider | None


class SDKModelTransport:
    """A provider SDK's transport for ``model``, built when it is first used.

    ``model`` is known at once (from the model registry); the real transport, and
    with it the API key from the environment, comes with the first :meth:`complete`.
    A missing key raises :class:`~contextfold.errors.AuthenticationError` from that
    call (and is looked for again on the next one). :meth:`aclose` closes the client
    it built.
    """

    def __init__(self, provider: str, model: str) -> None:
        if provider not in DEFAULT_MODELS:
            raise ValueError(
                f"unknown provider {provider!r} (valid: {', '.join(sorted(DEFAULT_MODELS))})"
            )
        self.provider = provider
        self._model = lookup_model(model)
        self._transport: CompletionTransport | None = None

    @property
    def model(self) -> ModelInfo:
        return self._model

    def _build(self) -> CompletionTransport:
        if self.provider == "anthropic":
            from contextfold.transports.anthropic import AnthropicTransport

            return AnthropicTransport(self._model.name)
        from contextfold.transports.openai import OpenAITransport

        return OpenAITransport(self._model.name)

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
    ) -> Completion:
        if self._transport is None:
            self._transport = self._build()
        return await self._transport.complete(messages, tools, system)

    async def aclose(self) -> None:
        transport, self._transport = self._transport, None
        aclose = getattr(transport, "aclose", None)
        if aclose is not None:
            await aclose()

    def __repr__(self) -> str:
        return f"SDKModelTransport({self.provider!r}, {self._model.name!r})"


_SPEC_HELP = (
    "use 'anthropic:<model>' or 'openai:<model>' (providers: anthropic, openai), "
    "'mounted' or 'mounted:<provider name>', or 'none'"
)


def parse_transport(spec: object, name: str = "transport") -> TransportSpec:
    """``spec`` (a transport, ``None`` or a spec string, see the module docstring) resolved.

    Raises :class:`ValueError` naming the valid forms for an unknown provider, a bad
    string, or an object that is not a
    :class:`~contextfold.transports.base.CompletionTransport`.
    """
    if spec is None or isinstance(spec, MountedProvider):
        return spec
    if not isinstance(spec, str):
        if isinstance(spec, CompletionTransport):
            return spec
        raise ValueError(f"{name} must be a CompletionTransport or a string, got {spec!r}")
    text = spec.strip()
    provider, _, model = text.partition(":")
    provider, model = provider.strip(), model.strip()
    if provider == "none" and not model:
        return None
    if provider == "mounted":
        if _ and not model:
            raise ValueError(f"{name} {spec!r} names no provider; {_SPEC_HELP}")
        return MountedProvider(model or None)
    if provider in DEFAULT_MODELS:
        if _ and not model:
            raise ValueError(f"{name} {spec!r} names no model; {_SPEC_HELP}")
        return SDKModelTransport(provider, model or DEFAULT_MODELS[provider])
    raise ValueError(f"unknown {name} {spec!r}: {_SPEC_HELP}")


def preferred(providers: object) -> object | None:
    """The provider an Amplifier orchestrator would pick: the lowest ``priority`` (default
    100), the first mounted among equals; ``None`` when there is none."""
    if not isinstance(providers, dict) or not providers:
        return None
    ranked: list[tuple[int, object]] = sorted(
        enumerate(providers.values()), key=lambda pair: (_priority(pair[1]), pair[0])
    )
    return ranked[0][1]


def _priority(provider: object) -> float:
    value: Any = getattr(provider, "priority", 100)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 100

"""How many tokens a request's messages may use: read from a provider, or configured.

Orchestrators describe their model in one of two shapes, and both are accepted:

* ``provider.get_model_info()`` returning an object or a dict with ``context_window``
  and ``max_output_tokens``;
* ``provider.get_info().defaults`` (``get_info()`` an object or a dict, ``defaults`` an
  object or a dict) holding the same two keys.

Either method may be sync or async. A contextfold transport (anything whose ``model`` is
a :class:`~contextfold.transports.base.ModelInfo`) and a bare ``ModelInfo`` work too.
The budget is ``context_window - max_output_tokens - ceil(safety_margin *
context_window)``; a missing ``max_output_tokens`` counts as 0.
"""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from contextfold.transports.base import ModelInfo

logger = logging.getLogger("contextfold.manager")


@runtime_checkable
class ModelInfoProvider(Protocol):
    """A provider that describes its model with ``get_model_info()`` (sync or async)."""

    def get_model_info(self) -> object: ...


@runtime_checkable
class InfoProvider(Protocol):
    """A provider whose ``get_info()`` (sync or async) carries ``defaults``."""

    def get_info(self) -> object: ...


async def _resolve(value: object) -> object:
    return await value if inspect.isawaitable(value) else value


def _field(source: object, name: str) -> object:
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


def _limits(source: object) -> tuple[int, int] | None:
    """``(context_window, max_output_tokens)`` from an object or dict, if it has them."""
    if source is None:
        return None
    window = _field(source, "context_window")
    max_output = _field(source, "max_output_tokens")
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        return None
    if max_output is None:
        return window, 0
    if not isinstance(max_output, int) or isinstance(max_output, bool) or max_output < 0:
        return None
    return window, max_output


async def provider_limits(provider: object) -> tuple[int, int] | None:
    """``(context_window, max_output_tokens)`` that ``provider`` reports, or ``None``.

    ``None`` when the provider exposes neither shape, reports no usable numbers, or
    raises while being asked (logged as a warning: a provider that cannot describe
    itself must not fail the request).
    """
    try:
        if isinstance(provider, ModelInfo):
            return provider.context_window, provider.max_output_tokens
        model = getattr(provider, "model", None)
        if isinstance(model, ModelInfo):
            return model.context_window, model.max_output_tokens
        if isinstance(provider, ModelInfoProvider):
            found = _limits(await _resolve(provider.get_model_info()))
            if found is not None:
                return found
        if isinstance(provider, InfoProvider):
            info = await _resolve(provider.get_info())
            return _limits(_field(info, "defaults"))
    except Exception as exc:
        logger.warning(
            "could not read the model limits of provider %s (%s: %s); using max_tokens",
            type(provider).__name__,
            type(exc).__name__,
            exc,
        )
    return None


async def request_budget(
    token_budget: int | None, provider: object, *, safety_margin: float, fallback: int
) -> int:
    """The token budget of one request's messages (see the module docstring).

    An explicit ``token_budget`` wins (``ValueError`` unless it is a positive int);
    then the provider's limits; then ``fallback``.
    """
    if token_budget is not None:
        if not isinstance(token_budget, int) or isinstance(token_budget, bool) or token_budget < 1:
            raise ValueError(f"token_budget must be a positive int, got {token_budget!r}")
        return token_budget
    if provider is None:
        return fallback
    limits = await provider_limits(provider)
    if limits is None:
        logger.debug("provider %s reports no model limits; using max_tokens", type(provider))
        return fallback
    window, max_output = limits
    budget = window - max_output - math.ceil(safety_margin * window)
    if budget < 1:
        logger.warning(
            "provider window %d leaves no room after %d output tokens and the safety margin; "
            "using max_tokens",
            window,
            max_output,
        )
        return fallback
    return budget

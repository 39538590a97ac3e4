"""Context windows the upstream reports, for models nobody configured or listed.

A local or hosted OpenAI-compatible server often serves models the registry cannot
know (a fine-tune, a quantized local model) and says how long their context is in its
``GET /v1/models`` list. The first chat request naming such a model (not configured,
not in the registry) makes the proxy ask that list once, in the background, with
the request's own credentials; a window found there is used from then on (see
:class:`~contextfold.proxy._config.ModelTable`). The request itself goes on with
what is known at that moment, and a failure is logged at ``DEBUG`` and not retried,
unless the upstream refused the request's credentials (401, 403): a request without
them, or with a wrong key, must not keep every other tenant from learning the window,
so the next request naming the model asks again with its own. A name longer than
256 characters (no model's) is never asked for, nor remembered.

Fields read, the first positive integer found in the model's entry: ``context_length``
(OpenRouter, Together, LM Studio), ``max_model_len`` (vLLM), ``context_window``
(Groq and others), ``max_context_length``, ``max_input_tokens`` (Anthropic's model
list, LiteLLM), ``meta.n_ctx_train`` / ``meta.n_ctx`` (llama.cpp's server) and
``top_provider.context_length`` (OpenRouter).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

import httpx2

from contextfold.proxy import _json

__all__ = ["WindowAsker", "window_of"]

logger = logging.getLogger("contextfold.proxy")

_FIELDS = (
    "context_length",
    "max_model_len",
    "context_window",
    "max_context_length",
    "max_input_tokens",
)
_NESTED = (("meta", "n_ctx_train"), ("meta", "n_ctx"), ("top_provider", "context_length"))
_MAX_ASKED = 1024
_MAX_BYTES = 4 * 1024 * 1024  # a model list longer than this is not read
_MAX_NAME = 256  # characters: no model is named longer; a longer name is not asked for
_REFUSED = frozenset({401, 403})  # the request's credentials refused: asked again later


def window_of(entry: Any) -> int | None:
    """The context window a ``/v1/models`` entry reports, if it reports one."""
    if not isinstance(entry, Mapping):
        return None
    candidates = [entry.get(name) for name in _FIELDS]
    for outer, inner in _NESTED:
        nested = entry.get(outer)
        if isinstance(nested, Mapping):
            candidates.append(nested.get(inner))
    for value in candidates:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _entries(payload: Any) -> list[Any]:
    if isinstance(payload, Mapping):
        data = payload.get("data", payload.get("models"))
        return data if isinstance(data, list) else []
    return payload if isinstance(payload, list) else []


class WindowAsker:
    """Asks the upstream's model list for windows, once per model (background tasks)."""

    def __init__(self, client: httpx2.AsyncClient, learn: Any) -> None:
        self.client = client
        self.learn = learn  # (model, window) -> None
        self._asked: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def ask(self, model: str, url: str, headers: list[tuple[bytes, bytes]]) -> None:
        """Look ``model`` up in the list at ``url`` (``GET``, with ``headers``: the
        request's credentials), unless it was looked up before; returns at once."""
        if len(model) > _MAX_NAME or model in self._asked or len(self._asked) >= _MAX_ASKED:
            return
        self._asked.add(model)
        task = asyncio.create_task(self._look(model, url, headers))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _look(self, model: str, url: str, headers: list[tuple[bytes, bytes]]) -> None:
        try:
            async with self.client.stream("GET", url, headers=headers, timeout=10.0) as reply:
                if reply.status_code != 200:
                    logger.debug("the model list answered %d; no window learned", reply.status_code)
                    if reply.status_code in _REFUSED:  # these credentials, not the model's
                        self._asked.discard(model)
                    return
                chunks: list[bytes] = []
                size = 0
                async for chunk in reply.aiter_bytes():
                    size += len(chunk)
                    if size > _MAX_BYTES:  # not a model list: not read further
                        return
                    chunks.append(chunk)
            payload, _ = _json.loads(b"".join(chunks))
        except (httpx2.HTTPError, ValueError, RecursionError) as exc:
            logger.debug("could not read the upstream's model list: %s", type(exc).__name__)
            return
        for entry in _entries(payload):
            if isinstance(entry, Mapping) and entry.get("id") in (model, f"models/{model}"):
                window = window_of(entry)
                if window is not None:
                    self.learn(model, window)
                return

    async def close(self) -> None:
        """Stop the lookups still running (the app is stopping)."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks))

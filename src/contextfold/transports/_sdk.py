"""The machinery both official-SDK transports share, written once.

:class:`SDKTransport` holds what :class:`~contextfold.transports.anthropic.AnthropicTransport`
and :class:`~contextfold.transports.openai.OpenAITransport` do the same way: the
``model`` property, ``repr`` (the model name, never a key), the async context manager
that closes only a client the transport built itself, finding the API key, running a
call or a stream under the :class:`RetryPolicy`, and turning every failure into
:mod:`contextfold.errors` - the SDK's own exceptions, the ``httpx2`` errors the SDKs let
through while a stream is being read, and the ``ValueError`` (``JSONDecodeError``) of
a body that is not the JSON promised. A subclass says which SDK exceptions are which
(:class:`SDKErrors`) and how to read that SDK's HTTP error answers
(:meth:`SDKTransport._api_error`); the wire formats stay in the subclasses.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, replace
from types import TracebackType
from typing import ClassVar, Generic, Protocol, Self, TypeVar

import httpx2

from contextfold.errors import (
    ContextfoldError,
    ResponseFormatError,
    TransportConnectionError,
    TransportError,
    TransportTimeoutError,
)
from contextfold.transports._errors import Provider, redact_text
from contextfold.transports._retry import RetryPolicy
from contextfold.transports.base import ModelInfo

__all__ = ["SDKClient", "SDKErrors", "SDKTransport", "resolve_key"]


class SDKClient(Protocol):
    """What the shared machinery needs from an SDK client: that it can be closed."""

    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=SDKClient)
FinalT = TypeVar("FinalT")


@dataclass(frozen=True, slots=True)
class SDKErrors:
    """An SDK's exception classes: its root, its timeout and its connection failure.

    ``timeout`` is checked before ``connection`` (both SDKs derive the one from the
    other).
    """

    base: type[Exception]
    timeout: type[Exception]
    connection: type[Exception]


def resolve_key(api_key: str | None, provider: Provider) -> str | None:
    """``api_key`` if given (and not empty), else the provider's environment variable."""
    return api_key or os.environ.get(provider.env_var)


class SDKTransport(ABC, Generic[ClientT]):
    """Base of the transports built on an official async SDK client.

    A subclass calls ``super().__init__`` with its :class:`ModelInfo` and retry
    settings, builds or configures its client, then hands it to :meth:`_adopt`.
    ``max_retries`` counts retries after the first attempt; ``retry=`` replaces the
    whole policy.
    """

    _errors: ClassVar[SDKErrors]
    _client: ClientT
    _owns_client: bool
    _provider: Provider

    def __init__(self, model: ModelInfo, *, retry: RetryPolicy | None, max_retries: int) -> None:
        self._model = model
        self.retry = retry or RetryPolicy(max_attempts=max_retries + 1)

    def _adopt(
        self, client: ClientT, provider: Provider, *, injected: object | None, key: str | None
    ) -> None:
        """Use ``client``: configured from the caller's ``injected`` client, or built
        with ``key``. Only a client built here is closed by :meth:`aclose`. The key in
        use (the injected client's, or ``key``) is redacted from every error.
        """
        if injected is not None:
            found = getattr(injected, "api_key", None)
            secrets: tuple[str, ...] = (found,) if isinstance(found, str) else ()
        else:
            secrets = (key,) if key else ()
        self._client = client
        self._owns_client = injected is None
        self._provider = replace(provider, secrets=secrets)

    @property
    def model(self) -> ModelInfo:
        return self._model

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model.name!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the SDK client if this transport built it (an injected one is yours)."""
        if self._owns_client:
            await self._client.close()

    async def _retried(
        self, request: Callable[[], Awaitable[object]], expected: type[FinalT]
    ) -> FinalT:
        """Await ``request()`` under the retry policy; failures come out translated.

        The reply must be an ``expected`` (the SDK's parsed model): an SDK hands back
        the bare text of a body that is not JSON (a gateway's HTML page), which raises
        :class:`~contextfold.errors.ResponseFormatError` (not retried).
        """
        async for attempt in self.retry.retrying():
            with attempt, self._translated():
                reply = await request()
        if not isinstance(reply, expected):
            raise self._unreadable(f"expected a JSON {expected.__name__}, got non-JSON text")
        return reply

    async def _retried_stream(
        self,
        attempt: Callable[[], AsyncGenerator[str | FinalT, None]],
        *,
        retry_after_output: bool = False,
    ) -> AsyncIterator[str | FinalT]:
        """Yield the text deltas of ``attempt()``, then the final object it ended with.

        ``attempt()`` yields non-empty text deltas and, last, once the reply is
        complete, one final object (the SDK's reply, or what the deltas built). A
        failure is retried under the policy while no delta has been yielded, or always
        when ``retry_after_output`` (a caller that collects the whole reply and shows
        nothing). Failures come out translated, also those raised while the stream is
        read (the SDKs let ``httpx2`` errors through there).
        """
        emitted = False

        def may_retry() -> bool:
            return retry_after_output or not emitted

        async for trial in self.retry.retrying(allowed=may_retry):
            with trial, self._translated():
                async with aclosing(attempt()) as items:
                    async for item in items:
                        if isinstance(item, str):
                            emitted = True
                            yield item
                        else:
                            final = item
        yield final

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """Raise a :mod:`contextfold.errors` exception in place of any other failure.

        Translated: the SDK's exceptions; ``httpx2`` errors (a timeout becomes
        :class:`~contextfold.errors.TransportTimeoutError`, a network or protocol error
        :class:`~contextfold.errors.TransportConnectionError`, both retryable); and a
        ``ValueError`` such as ``JSONDecodeError`` from reading the reply, which becomes
        :class:`~contextfold.errors.ResponseFormatError`. Our own errors pass as they are.
        """
        try:
            yield
        except ContextfoldError:
            raise
        except (self._errors.base, httpx2.HTTPError, ValueError) as exc:
            raise self._translate(exc) from exc

    def _translate(self, exc: Exception) -> TransportError:
        name, model, label = self._provider.name, self._model.name, self._provider.label
        if isinstance(exc, (self._errors.timeout, httpx2.TimeoutException)):
            return TransportTimeoutError(
                f"the request to the {label} API timed out", provider=name, model=model
            )
        if isinstance(exc, self._errors.connection):
            return TransportConnectionError(
                f"could not reach the {label} API", provider=name, model=model
            )
        if isinstance(exc, httpx2.TransportError):
            return TransportConnectionError(
                f"the connection to the {label} API failed ({type(exc).__name__})",
                provider=name,
                model=model,
            )
        mapped = self._api_error(exc)
        if mapped is not None:
            return mapped
        if isinstance(exc, ValueError):
            return self._unreadable(redact_text(str(exc), self._provider.secrets))
        return self._unreadable(type(exc).__name__)

    def _unreadable(self, why: str) -> ResponseFormatError:
        """The error for a reply that cannot be read (never retried)."""
        return ResponseFormatError(
            f"unexpected reply from {self._provider.label}: {why}",
            provider=self._provider.name,
            model=self._model.name,
        )

    @abstractmethod
    def _api_error(self, exc: Exception) -> TransportError | None:
        """The error for an SDK exception that carries the API's answer, else ``None``."""

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

Credentials: a transport knows every credential its client sends (the API key or
bearer token, the values of the secret headers among the client's and the HTTP
client's default headers, and those of the failed request itself) and scrubs them
from every error it raises; the SDK's own exception is never chained, since it holds
the request with its headers (see :mod:`contextfold._secrets`).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
)
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, replace
from types import TracebackType
from typing import ClassVar, Generic, Protocol, Self, TypeVar

import httpx2

from contextfold._secrets import Secrets, header_secrets, scrub_exception, watch
from contextfold.errors import (
    ContextfoldError,
    ResponseFormatError,
    TransportConnectionError,
    TransportError,
    TransportTimeoutError,
)
from contextfold.transports._errors import Provider
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

    def __init__(
        self,
        model: ModelInfo,
        *,
        retry: RetryPolicy | None,
        max_retries: int,
        secret_headers: Iterable[str] = (),
    ) -> None:
        self._model = model
        self.retry = retry or RetryPolicy(max_attempts=max_retries + 1)
        if isinstance(secret_headers, str):
            raise TypeError("secret_headers must be a collection of header names, not a str")
        self._secret_headers = tuple(secret_headers)

    def _adopt(
        self,
        client: ClientT,
        provider: Provider,
        *,
        injected: object | None,
        key: str | None,
        http_client: object | None = None,
    ) -> None:
        """Use ``client``: configured from the caller's ``injected`` client, or built
        with ``key``. Only a client built here is closed by :meth:`aclose`.

        Redacted from every error and log record: ``key``, the client's ``api_key``
        and ``auth_token``, and the secret headers (``Authorization``, ``x-api-key``...
        and the ``secret_headers`` named) among the SDK client's default headers and
        the headers of its HTTP client (``http_client``, or the one inside it).
        """
        values: list[str | None] = [key]
        for source in (client, injected):
            for name in ("api_key", "auth_token"):
                found = getattr(source, name, None)
                values.append(found if isinstance(found, str) else None)
            values += header_secrets(_headers(source, "default_headers"), self._secret_headers)
            # The SDK's HTTP client (a private attribute: read defensively).
            inner = getattr(source, "_client", None)
            values += header_secrets(_headers(inner, "headers"), self._secret_headers)
        values += header_secrets(_headers(http_client, "headers"), self._secret_headers)
        self._client = client
        self._owns_client = injected is None
        self._provider = replace(provider, secrets=watch(Secrets(values)))

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
        with self._detached():
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

        with self._detached():
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
    def _detached(self) -> Iterator[None]:
        """Scrub a :mod:`contextfold.errors` exception leaving the transport, and cut
        its chain: Python links the SDK exception it replaced as ``__context__``
        whenever it is raised while that one is handled, retries included."""
        try:
            yield
        except ContextfoldError as exc:
            scrub_exception(exc, self._provider.secrets)
            raise

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
            secrets = self._provider.secrets | Secrets(
                header_secrets(_request_headers(exc), self._secret_headers)
            )
            raise scrub_exception(self._translate(exc, secrets), secrets) from None

    def _translate(self, exc: Exception, secrets: Secrets) -> TransportError:
        """The error for ``exc``; ``secrets``: every credential of the failed request."""
        name, model, label = self._provider.name, self._model.name, self._provider.label
        if isinstance(exc, (self._errors.timeout, httpx2.TimeoutException)):
            return TransportTimeoutError(
                f"the request to the {label} API timed out", provider=name, model=model
            )
        if isinstance(exc, self._errors.connection) and not isinstance(
            exc.__cause__, httpx2.TransportError
        ):
            return TransportConnectionError(
                f"could not reach the {label} API", provider=name, model=model
            )
        if isinstance(exc, self._errors.connection | httpx2.TransportError):
            # anthropic >= 2.17 wraps a failure of a stream already open (a reset
            # connection) in its connection error; it is named by the httpx2 error it
            # wraps, like the raw one older releases let through
            failed = exc.__cause__ if isinstance(exc.__cause__, httpx2.TransportError) else exc
            if isinstance(failed, httpx2.ConnectError):
                return TransportConnectionError(
                    f"could not reach the {label} API", provider=name, model=model
                )
            return TransportConnectionError(
                f"the connection to the {label} API failed ({type(failed).__name__})",
                provider=name,
                model=model,
            )
        mapped = self._api_error(exc, secrets)
        if mapped is not None:
            return mapped
        if isinstance(exc, ValueError):
            return self._unreadable(secrets.text(str(exc)))
        return self._unreadable(type(exc).__name__)

    def _unreadable(self, why: str) -> ResponseFormatError:
        """The error for a reply that cannot be read (never retried)."""
        return ResponseFormatError(
            f"unexpected reply from {self._provider.label}: {why}",
            provider=self._provider.name,
            model=self._model.name,
        )

    @abstractmethod
    def _api_error(self, exc: Exception, secrets: Secrets) -> TransportError | None:
        """The error for an SDK exception that carries the API's answer, else ``None``;
        ``secrets`` are redacted from everything it takes from the answer."""


def _headers(source: object, attribute: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of ``source.<attribute>`` if it is a header mapping."""
    headers = getattr(source, attribute, None)
    items = getattr(headers, "items", None)
    if not callable(items):
        return []
    return [(k, v) for k, v in items() if isinstance(k, str) and isinstance(v, str)]


def _request_headers(exc: BaseException) -> list[tuple[str, str]]:
    """The headers of the request ``exc`` failed on (the SDKs' and ``httpx``'s errors
    carry it), so credentials added per request are known too."""
    try:
        request = getattr(exc, "request", None)
    except RuntimeError:  # httpx: ".request" of an error raised without one
        return []
    return _headers(request, "headers")

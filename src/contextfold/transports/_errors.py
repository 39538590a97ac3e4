"""Turning a provider's failure into the one :mod:`contextfold.errors` tree.

Both transports pull the status, the provider's error payload and the response
headers out of their SDK's exception and hand them to :func:`status_error`, which
picks the class (:class:`ContextOverflowError` before :class:`BadRequestError`,
``Retry-After`` on 429/5xx, the env var to set on 401/403); whether an answer is a
context overflow is the dialect's to say
(:meth:`~contextfold.dialects.base.Dialect.is_overflow`, which the proxy asks too).
Every text, payload and request id goes through the transport's
:class:`~contextfold._secrets.Secrets` first, so a credential echoed by a server
never reaches an error, a log line or a stored record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from contextfold._secrets import Secrets
from contextfold.errors import (
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    ProviderUnavailableError,
    RateLimitError,
    TransportError,
    TransportTimeoutError,
)
from contextfold.transports._retry import parse_retry_after

__all__ = ["Provider", "missing_key_error", "status_error"]


@dataclass(frozen=True, slots=True)
class Provider:
    """Who we were talking to: for messages and for the env var hint."""

    name: str  # "anthropic" / "openai"
    label: str  # "Anthropic" / "OpenAI"
    env_var: str
    model: str
    secrets: Secrets = field(default_factory=Secrets)


def missing_key_error(provider: Provider) -> AuthenticationError:
    return AuthenticationError(
        f"no {provider.label} API key: set the {provider.env_var} environment variable, "
        "or pass api_key= or client= to the transport",
        provider=provider.name,
        model=provider.model,
    )


def status_error(
    provider: Provider,
    *,
    status: int | None,
    error_type: str | None,
    message: str,
    body: Any,
    headers: Mapping[str, str] | None,
    overflow: bool,
    request_id: str | None = None,
    secrets: Secrets | None = None,
) -> TransportError:
    """The :mod:`contextfold.errors` exception for an HTTP error answer.

    ``error_type`` is the provider's own error kind (``"overloaded_error"``, ...),
    which decides when the status does not (an error event inside a 200 stream).
    ``secrets`` (default: the provider's) are redacted from the message, the body and
    the request id.
    """
    secrets = provider.secrets if secrets is None else secrets
    message = secrets.text(message)
    kwargs: dict[str, Any] = {
        "provider": provider.name,
        "model": provider.model,
        "status": status,
        "body": secrets.value(body),
        "request_id": None if request_id is None else secrets.text(request_id),
    }
    where = f"{provider.label} API error {status or ''}".rstrip()
    if error_type:
        where += f" ({error_type})"
    text = f"{where}: {message}"
    retry_after = parse_retry_after(headers)
    if overflow:
        return ContextOverflowError(
            f"{text} - the prompt is longer than {provider.model}'s context window; "
            "compact the history",
            **kwargs,
        )
    if status in (401, 403) or error_type in ("authentication_error", "permission_error"):
        return AuthenticationError(
            f"{text} - check the {provider.env_var} environment variable (or api_key=)",
            **kwargs,
        )
    if status == 429 or error_type == "rate_limit_error":
        return RateLimitError(text, retry_after=retry_after, **kwargs)
    if status == 408:
        return TransportTimeoutError(text, **kwargs)
    if (
        (status is not None and status >= 500)
        or error_type in ("overloaded_error", "api_error", "server_error")
        or (status is not None and status < 400)
    ):
        return ProviderUnavailableError(text, retry_after=retry_after, **kwargs)
    return BadRequestError(text, **kwargs)

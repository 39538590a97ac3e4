"""Turning a provider's failure into the one :mod:`contextfold.errors` tree.

Both transports pull the status, the provider's error payload and the response
headers out of their SDK's exception and hand them to :func:`status_error`, which
picks the class (:class:`ContextOverflowError` before :class:`BadRequestError`,
``Retry-After`` on 429/5xx, the env var to set on 401/403). Every text and payload
goes through :func:`redact` first, so an API key echoed by a server never reaches an
error, a log line or a stored record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

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

__all__ = ["Provider", "missing_key_error", "redact", "redact_text", "status_error"]

# Anthropic, OpenAI and look-alike keys; real keys are also redacted by value.
_KEY_PATTERN = re.compile(r"\b(?:sk|key)-[A-Za-z0-9_\-*.]{8,}")
_REDACTED = "[REDACTED]"


@dataclass(frozen=True, slots=True)
class Provider:
    """Who we were talking to: for messages and for the env var hint."""

    name: str  # "anthropic" / "openai"
    label: str  # "Anthropic" / "OpenAI"
    env_var: str
    model: str
    secrets: tuple[str, ...] = ()


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every secret and key-like token replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, _REDACTED)
    return _KEY_PATTERN.sub(_REDACTED, text)


def redact(value: object, secrets: Iterable[str] = ()) -> object:
    """A JSON-like ``value`` with :func:`redact_text` applied to every string, recursively."""
    keys = tuple(secrets)
    if isinstance(value, str):
        return redact_text(value, keys)
    if isinstance(value, Mapping):
        return {redact(k, keys): redact(v, keys) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v, keys) for v in value]
    return value


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
) -> TransportError:
    """The :mod:`contextfold.errors` exception for an HTTP error answer.

    ``error_type`` is the provider's own error kind (``"overloaded_error"``, ...),
    which decides when the status does not (an error event inside a 200 stream).
    """
    message = redact_text(message, provider.secrets)
    kwargs: dict[str, Any] = {
        "provider": provider.name,
        "model": provider.model,
        "status": status,
        "body": redact(body, provider.secrets),
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

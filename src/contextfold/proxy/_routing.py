"""Where a request goes: its dialect, and the upstream URL it is forwarded to.

A ``POST`` to a dialect's chat route (:attr:`~contextfold.dialects.base.Dialect.path`)
is that dialect's: ``/v1/chat/completions`` OpenAI's, ``/v1/responses`` OpenAI
Responses' (forwarded to the OpenAI upstream) and ``/v1/messages`` Anthropic's; any
other request is Anthropic's when Anthropic's dialect claims it (its path is
``/v1/messages`` or lies under it, or it carries an ``anthropic-version`` header), and
OpenAI's otherwise. Errors the proxy makes itself are written in that dialect's shape.

The upstream URL is built from the *raw* request target, as the client escaped it:
the decoded path would turn ``%2F`` into a separator, ``%00`` into a byte no URL
may hold, and lose bytes that are not UTF-8. Escapes of unreserved characters are
decoded (an equivalent URI, RFC 3986 §6.2.2.2), bytes a URL may not hold raw are
escaped, and every other escape is relayed as sent. A path with a ``.`` or ``..``
segment (raw or escaped) is refused: the upstream URL would resolve it out of the
upstream's base path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from starlette.datastructures import Headers
from starlette.types import Scope

from contextfold.dialects import CHAT, DIALECTS, MESSAGES, Dialect

CHAT_ROUTES: Final[dict[str, Dialect]] = {dialect.path: dialect for dialect in DIALECTS}
DOT_SEGMENT: Final = (
    "not forwarded: the request path holds a '.' or '..' segment, which would leave "
    "the upstream's base path"
)
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")
# What may stand unescaped in a path (RFC 3986 pchar and "/"), in a query also "?";
# a "%" that starts no escape is escaped itself.
_PATH_UNSAFE = re.compile(rb"[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]|%(?![0-9A-Fa-f]{2})")
_QUERY_UNSAFE = re.compile(rb"[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})")


class BadTarget(ValueError):
    """The request target cannot be forwarded (the message says why)."""


def route_dialect(path: str, headers: Mapping[str, str]) -> Dialect:
    """The dialect of a request to anything but the chat routes, by its decoded path."""
    return MESSAGES if MESSAGES.claims(path, headers) else CHAT


def answer_dialect(scope: Scope) -> Dialect:
    """The dialect a request is handled (and answered) in: see the module doc."""
    path = scope.get("path", "")
    if scope.get("method") == "POST" and path in CHAT_ROUTES:
        return CHAT_ROUTES[path]
    return route_dialect(path, Headers(scope=scope))


def upstream_url(scope: Scope, dialect: Dialect, *, openai_base: str, anthropic_base: str) -> str:
    """The URL a request is forwarded to, its path and query as the client escaped them.

    ``openai_base`` includes its ``/v1`` (the proxy's ``/v1/x`` goes to
    ``{openai_base}/x``); ``anthropic_base`` does not (see
    :meth:`~contextfold.dialects.base.Dialect.upstream_url`). :class:`BadTarget` for a
    path with dot segments.
    """
    raw = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
    path = _normalized(raw, _PATH_UNSAFE)
    if any(segment in (".", "..") for segment in path.split("/")):
        raise BadTarget(DOT_SEGMENT)
    url = dialect.upstream_url(path, openai_base=openai_base, anthropic_base=anthropic_base)
    query = _normalized(scope.get("query_string", b""), _QUERY_UNSAFE)
    return f"{url}?{query}" if query else url


def _normalized(raw: bytes, unsafe: re.Pattern[bytes]) -> str:
    """``raw`` with unreserved characters unescaped and ``unsafe`` bytes escaped."""
    decoded = _ESCAPE.sub(
        lambda m: bytes([int(m[1], 16)]) if int(m[1], 16) in _UNRESERVED else m[0], raw
    )
    return unsafe.sub(lambda m: b"%%%02X" % m[0][0], decoded).decode("ascii")

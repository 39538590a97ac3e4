"""What :func:`~contextfold.proxy.create_app` takes besides the compaction settings
and the upstreams: :class:`ProxyOptions`."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from contextfold.proxy._budget import DEFAULT_MEMORY_BUDGET

__all__ = ["DEFAULT_MAX_BODY_BYTES", "OPTION_NAMES", "ProxyOptions"]

DEFAULT_MAX_BODY_BYTES: Final = 32 * 1024 * 1024
"""32 MiB, the request size limit of the Anthropic Messages API."""

_MIN_MEMORY_BUDGET: Final = 1024 * 1024
_HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")  # RFC 9110's token


@dataclass(frozen=True, slots=True, kw_only=True)
class ProxyOptions:
    """The proxy's own options (``create_app(options=...)``).

    Attributes:
        max_body_bytes: the largest request body read (32 MiB, Anthropic's limit); a
            larger one is refused with a 413 in the dialect's shape.
        timeout: seconds each upstream read may take (600).
        summary_max_retries: the summarizer's retries of transient errors (2).
        secret_headers: request headers whose values are credentials too (a
            gateway's own key header, say), scrubbed like ``Authorization`` and part
            of the tenant key.
        tenant_header: a header (``"x-user-id"`` set by a gateway, say) whose value
            names the tenant instead of the request's credentials.
        memory_budget: bytes of everything the proxy keeps between requests,
            together (128 MiB; at least 1 MiB; see :mod:`contextfold.proxy._budget`).
        recall: offer the model a ``recall`` tool on compacted requests and answer
            it from the client's own history (see :mod:`contextfold.proxy._recall`).
        native_compaction: ``"auto"`` (default), ``"emulate"`` or ``"pass"``: whether
            the providers' own compaction APIs (``/v1/responses/compact``...) are
            served by the proxy for upstreams that lack them; ``"auto"`` passes them
            to the providers' own hosts and emulates them for every other (see
            :mod:`contextfold.proxy._native`). A model's table may override it.
        compaction_key: the secret the proxy signs its compaction items with (at
            least 16 bytes; kept out of ``repr``). Replicas that share one expand each
            other's items, also after a restart; without one, a key is made when the
            app starts and its items expire with the process.
        dashboard: serve ``GET /dashboard``, a page of conversations, compactions and
            token timelines (see :mod:`contextfold.proxy._dashpage`); off by default,
            when ``/dashboard`` is a local 404, never forwarded. With it on, every chat
            request is read (the byte-size fast path is off), so that each is counted
            in its conversation.
        dashboard_token: the token ``/dashboard`` asks for (``Authorization: Bearer``
            or ``?token=``; at least 16 bytes; kept out of ``repr``). :func:`serve`
            refuses a dashboard without one on an address that is not loopback.

    Bad values raise :class:`ValueError` when the options are made.
    """

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    timeout: float = 600.0
    summary_max_retries: int = 2
    secret_headers: tuple[str, ...] = ()
    tenant_header: str | None = None
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    recall: bool = False
    native_compaction: str = "auto"
    compaction_key: str | None = field(default=None, repr=False)
    dashboard: bool = False
    dashboard_token: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not _is_int(self.max_body_bytes) or self.max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be positive, got {self.max_body_bytes!r}")
        timeout = self.timeout
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if not _is_int(self.summary_max_retries) or self.summary_max_retries < 0:
            raise ValueError(
                f"summary_max_retries must be non-negative, got {self.summary_max_retries!r}"
            )
        headers: object = self.secret_headers
        if isinstance(headers, str | bytes) or not isinstance(headers, Iterable):
            raise ValueError(f"secret_headers must be a list of header names, got {headers!r}")
        names = tuple(headers)
        for name in names:
            if not (isinstance(name, str) and _HEADER_NAME.fullmatch(name)):
                raise ValueError(f"secret_headers must be header names, got {name!r}")
        object.__setattr__(self, "secret_headers", names)
        if self.tenant_header is not None and not (
            isinstance(self.tenant_header, str) and _HEADER_NAME.fullmatch(self.tenant_header)
        ):
            raise ValueError(f"tenant_header must be a header name, got {self.tenant_header!r}")
        if not _is_int(self.memory_budget) or self.memory_budget < _MIN_MEMORY_BUDGET:
            raise ValueError(
                f"memory_budget must be a number of bytes >= 1 MiB, got {self.memory_budget!r}"
            )
        if not isinstance(self.recall, bool):
            raise ValueError(f"recall must be True or False, got {self.recall!r}")
        if self.native_compaction not in ("auto", "emulate", "pass"):
            raise ValueError(
                "native_compaction must be one of auto, emulate, pass, got "
                f"{self.native_compaction!r}"
            )
        key = self.compaction_key
        if key is not None and (not isinstance(key, str) or len(key.encode()) < 16):
            # the key itself is never echoed
            raise ValueError("compaction_key must be a string of at least 16 bytes")
        if not isinstance(self.dashboard, bool):
            raise ValueError(f"dashboard must be True or False, got {self.dashboard!r}")
        token = self.dashboard_token
        if token is not None and (not isinstance(token, str) or len(token.encode()) < 16):
            raise ValueError("dashboard_token must be a string of at least 16 bytes")

    def replace(self, **changes: Any) -> ProxyOptions:
        """A copy with ``changes``."""
        return dataclasses.replace(self, **changes) if changes else self


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


OPTION_NAMES: Final = tuple(f.name for f in dataclasses.fields(ProxyOptions))

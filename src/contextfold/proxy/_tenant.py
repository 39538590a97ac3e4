"""Tenants: whose traffic the proxy learns from, and who may use what it learned.

Everything the proxy keeps or learns from a request is scoped by the request's
*tenant key*: summaries, usage anchors, learned limits and tokens per byte,
preparations, single-flight and back-off entries, layout records and the parse memo's
chains. One tenant's traffic never shapes what another's requests get, nor shows in
what they are told (``x-contextfold-summary: cached`` says only that the same tenant
sent that prefix before). What is global is what the operator configured (settings,
per-model tables), the model registry and the context windows the upstream's model
list reports (:mod:`._windows`: the same upstream's, whoever asked).

A tenant key is an HMAC-SHA256, under a secret of the proxy's (below), of

* the request's credentials: the values of ``x-api-key``, ``Authorization`` (its
  token when it is ``Bearer``) and ``api-key``, and of the headers the operator named
  credentials too (``secret_headers``: a gateway's own key header, say), all that the
  request carries, each under its name, so two requests share a tenant only when they
  carry the same credentials (a placeholder ``x-api-key`` beside a real token changes
  nothing);
* or, with ``tenant_header`` (``--tenant-header NAME``), the value of that header
  (a user id a gateway sets, say), whatever the credentials; a request without it
  (or with it empty) falls back to its credentials. The two never collide: each is
  hashed under its own label.

The key itself is 32 hex digits; a credential or header value is never stored,
logged or compared in clear. Requests without any credential get a tenant key too
(they share one), and are still forwarded uncompacted: no key pays for a summary.

The secret (:data:`SECRET_BYTES` random bytes) is the cache's
(:meth:`~contextfold.proxy._cache.CacheBackend.tenant_secret`): made on the first
open of an SQLite file or a PostgreSQL database and kept there, in the
``contextfold_proxy_secrets`` table, so tenants are the same after a restart and on
every replica sharing the database; random per process for a cache in memory. It is
never derived from what the cache holds otherwise: without it, a tenant key cannot
be computed from a credential, nor a credential tested against a key. Whoever can
read the database can read the secret too (and the summaries themselves): keep the
file (0600) or the database private.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping

__all__ = ["SECRET_BYTES", "Tenants", "scope"]

SECRET_BYTES = 32
"""Length of the random secret tenant keys are made with."""

_CREDENTIALS = ("x-api-key", "authorization", "api-key")


class Tenants:
    """Computes tenant keys (see the module doc) under ``secret``; ``header`` names
    the request header that holds the tenant, if the operator chose one; ``secret_headers``
    names headers whose values are credentials too."""

    def __init__(
        self, secret: bytes, header: str | None = None, secret_headers: Iterable[str] = ()
    ) -> None:
        if len(secret) < 16:
            raise ValueError("the tenant secret must be at least 16 bytes")
        self._secret = secret
        self.header = header.strip().lower() if header else None
        extra = {name.strip().lower() for name in secret_headers} - set(_CREDENTIALS)
        self._credentials = (*_CREDENTIALS, *sorted(extra))

    def of(self, headers: Mapping[str, str]) -> str:
        """The tenant key of a request with ``headers`` (names in any case)."""
        lowered = _lowered(headers)
        if self.header is not None:
            given = [value for value in lowered.get(self.header, []) if value]
            if given:
                return self._key(b"header", [given])
        values = []
        for name in self._credentials:
            found = lowered.get(name, [])
            if name == "authorization":
                found = [_token(value) for value in found]
            values.append([value for value in found if value])
        return self._key(b"credentials", values)

    def _key(self, label: bytes, fields: list[list[str]]) -> str:
        mac = hmac.new(self._secret, label, hashlib.sha256)
        for values in fields:  # every value length-prefixed: no two inputs hash alike
            mac.update(len(values).to_bytes(8, "big"))
            for value in values:
                data = value.encode("utf-8", "surrogatepass")
                mac.update(len(data).to_bytes(8, "big"))
                mac.update(data)
        return mac.hexdigest()[:32]


def _lowered(headers: Mapping[str, str]) -> dict[str, list[str]]:
    """Every value of ``headers`` (a Starlette ``Headers`` lists a repeated header
    once per value), by lower-case name, stripped."""
    out: dict[str, list[str]] = {}
    for name, value in headers.items():
        out.setdefault(name.lower(), []).append(value.strip())
    return out


def _token(authorization: str) -> str:
    """The token of a ``Bearer`` authorization, else the value as it is."""
    if authorization[:7].lower() == "bearer ":
        return authorization[7:].strip()
    return authorization


def scope(tenant: str, model: str) -> str:
    """What a conversation's prefix hashes are seeded with: ``model`` under ``tenant``
    (``model`` alone for the empty tenant, which only tests and the library use)."""
    return f"{tenant}:{model}" if tenant else model

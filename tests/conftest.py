"""Shared fixtures.

* ``tests/_alias_httpx.py`` (loaded first, see pyproject ``addopts``) makes ``httpx``
  and the SDKs' ``httpx2`` one module, so respx sees SDK traffic.
* Tests never touch the network: an autouse fixture refuses any socket connection
  that is not to this machine.
* Tests that need a server (PostgreSQL) skip when it is absent, unless
  ``CONTEXTFOLD_REQUIRE_SERVICES=1`` (set by ``.ci/run``) turns that skip into a failure.
* PostgreSQL tests work in a schema of the test session's own, dropped at its end
  (``tests/_stores.py``).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from contextfold.context import ContextStore
from tests._stores import STORE_KINDS, drop_pg_schema, open_store

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_local(address: Any) -> bool:
    if isinstance(address, str | bytes):  # unix socket path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True, scope="session")
def _drop_the_sessions_pg_schema() -> Iterator[None]:
    yield
    drop_pg_schema()


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def guarded_connect(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise RuntimeError(f"tests must not touch the network (tried {address!r})")
        return _real_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise RuntimeError(f"tests must not touch the network (tried {address!r})")
        return _real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def require_service(reason: str) -> None:
    """Skip the calling test because a server is missing, or fail when CI forbids skips."""
    if os.environ.get("CONTEXTFOLD_REQUIRE_SERVICES") == "1":
        pytest.fail(f"required service unavailable (CONTEXTFOLD_REQUIRE_SERVICES=1): {reason}")
    pytest.skip(reason)


@pytest.fixture(params=STORE_KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[ContextStore]:
    """A fresh, empty store of every kind the project ships (the contract suite runs on each)."""
    async with open_store(request.param, tmp_path, require_service) as s:
        yield s

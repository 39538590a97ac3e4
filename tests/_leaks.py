"""Looking for a credential everywhere it could have got to: texts, objects, exceptions, logs.

A leak is a credential found as given, URL-encoded, base64-encoded, or with whitespace
inserted anywhere in it (an echo wrapped over lines), in any string or bytes reachable
from an object: an exception's message, args, attributes, notes and its whole
``__cause__``/``__context__`` chain (and what those hold: an SDK's request with its
headers, say), its formatted traceback, and every captured log record.
"""

from __future__ import annotations

import base64
import logging
import traceback
from collections.abc import Iterable, Mapping
from types import FunctionType, ModuleType
from urllib.parse import quote

import pytest

LOGGERS = ("contextfold", "httpx", "httpx2", "httpcore", "httpcore2", "anthropic", "openai")

# Credentials that do not look like keys, and ones that do.
BEARER = "hunter2-bearer-XYZ"
JWT = (
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudC03NyIsImV4cCI6NDEwMjQ0NDgwMH0"
    ".Qm9ndXNTaWduYXR1cmVGb3JUZXN0czEyMzQ1Ng"
)
UUID = "5b0c7d2e-91f4-4a6b-8c3d-e2f1a0b9c8d7"
ANTHROPIC_KEY = "sk-ant-api03-LEAKTEST-quokka-pelican-0042"
OPENAI_KEY = "sk-proj-LEAKTEST-narwhal-ibis-0099"


def debug_logging(caplog: pytest.LogCaptureFixture) -> None:
    """Capture everything, at DEBUG, from the root and from each library's logger."""
    caplog.set_level(logging.DEBUG)
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)


def forms(secret: str) -> list[str]:
    """How a credential may be written down: as is, URL-encoded, base64-encoded."""
    raw = secret.encode()
    return [
        secret,
        quote(secret, safe=""),
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
    ]


def leaks_in_text(text: str, secrets: Iterable[str]) -> list[str]:
    """The credentials found in ``text``, also with whitespace inserted into them."""
    squeezed = "".join(text.split())
    return [s for s in secrets for form in forms(s) if form in text or form in squeezed]


def leaks_in(value: object, secrets: Iterable[str], *, depth: int = 10) -> list[str]:
    """Where (as attribute paths) credentials occur in anything reachable from ``value``."""
    wanted = list(secrets)
    found: list[str] = []
    seen: set[int] = set()

    def visit(obj: object, path: str, left: int) -> None:
        if left < 0 or id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, str | bytes | bytearray):
            text = obj if isinstance(obj, str) else bytes(obj).decode("latin-1")
            found.extend(f"{path}: {s!r}" for s in leaks_in_text(text, wanted))
            return
        if obj is None or isinstance(obj, int | float | type | ModuleType | FunctionType):
            return
        if isinstance(obj, Mapping):
            for k, v in list(obj.items()):
                visit(k, f"{path}[key]", left - 1)
                visit(v, f"{path}[{k!r}]", left - 1)
            return
        if isinstance(obj, list | tuple | set | frozenset):
            for i, item in enumerate(obj):
                visit(item, f"{path}[{i}]", left - 1)
            return
        if isinstance(obj, BaseException):
            visit(str(obj), f"{path}.__str__", left - 1)
            visit(repr(obj), f"{path}.__repr__", left - 1)
            visit(obj.args, f"{path}.args", left - 1)
            visit(getattr(obj, "__notes__", None), f"{path}.__notes__", left - 1)
            visit(obj.__cause__, f"{path}.__cause__", left)
            visit(obj.__context__, f"{path}.__context__", left)
        attributes = dict(getattr(obj, "__dict__", {}))
        for cls in type(obj).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if isinstance(name, str) and hasattr(obj, name):
                    attributes.setdefault(name, getattr(obj, name))
        for name, attribute in attributes.items():
            visit(attribute, f"{path}.{name}", left - 1)

    visit(value, "value", depth)
    return found


def assert_exception_clean(exc: BaseException, secrets: Iterable[str]) -> None:
    """No credential in ``exc``, its chain, what they hold, or its formatted traceback."""
    wanted = list(secrets)
    found = leaks_in(exc, wanted)
    assert found == [], found
    printed = "".join(traceback.format_exception(exc))
    assert leaks_in_text(printed, wanted) == [], printed


def assert_logs_clean(caplog: pytest.LogCaptureFixture, secrets: Iterable[str]) -> None:
    """No credential in any captured record, formatted as a handler with tracebacks would."""
    wanted = list(secrets)
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    for record in caplog.records:
        text = formatter.format(record)
        assert leaks_in_text(text, wanted) == [], text
    assert leaks_in_text(caplog.text, wanted) == [], caplog.text

"""Attack 24: credentials in a query string, written so the log scrubber missed them."""

from __future__ import annotations

import io
import logging

import pytest

from contextfold._secrets import REDACTED, Secrets, guard_logs

GEMINI_KEY = "AIzaSyATTACK24-query-heron-0077"


@pytest.mark.parametrize(
    "query",
    [
        f"%6Bey={GEMINI_KEY}",  # "key", its k percent-encoded: a server decodes names
        f"ke%79={GEMINI_KEY}",
        f"api%5Fkey={GEMINI_KEY}",
        f"ACCESS%5FTOKEN={GEMINI_KEY}",
        f"alt=sse;key={GEMINI_KEY}",  # inside another parameter's value
        f"token=abc;{GEMINI_KEY}",  # a ';' ends no value for most servers
    ],
)
def test_an_escaped_credential_parameter_never_reaches_the_access_log(query: str) -> None:
    # Impact: the scrubber matched parameter names as written: ?%6Bey=AIza... (the key
    # a Gemini-style upstream reads as ?key=) reached uvicorn's access log in clear,
    # and so did what followed a ';' in a token.
    from uvicorn.logging import AccessFormatter

    guard_logs()
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(AccessFormatter('"%(request_line)s" %(status_code)s', use_colors=False))
    access = logging.getLogger("uvicorn.access")
    level = access.level
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    try:
        target = f"/v1beta/models/g:generateContent?{query}&monkey=banana"
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "POST", target, "1.1", 200)
    finally:
        access.removeHandler(handler)
        access.setLevel(level)
    line = out.getvalue()
    assert GEMINI_KEY not in line
    assert line.count(REDACTED) == 1
    assert line.endswith(f'{REDACTED}&monkey=banana HTTP/1.1" 200 OK\n')


def test_other_parameters_are_kept_as_they_are() -> None:
    text = "GET /v1?alt=json&keys=3&monkey=banana&tokens=5;x=1 ?%6Beys=kept"
    assert Secrets().text(text) == text

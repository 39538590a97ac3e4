"""Redaction by value (contextfold/_secrets.py): every shape an echo can take, and no more."""

from __future__ import annotations

import base64
import gc
import io
import json
import logging
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold._secrets import (
    LOG_TEXT_LIMIT,
    REDACTED,
    Secrets,
    _watched,
    guard_logs,
    header_secrets,
    scrub_exception,
    watch,
)
from tests._leaks import (
    ANTHROPIC_KEY,
    BEARER,
    JWT,
    UUID,
    assert_exception_clean,
    leaks_in_text,
)

ODD = "p@ss/w+rd=with&odd?chars"  # everything URL- and JSON-encoding would touch
SECRETS = [ANTHROPIC_KEY, BEARER, JWT, UUID, ODD]


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def echoes(secret: str) -> list[str]:
    """The shapes in which a server, a log line or a proxy may repeat a credential."""
    half = len(secret) // 2
    out = [
        f"invalid token: {secret}.",
        f"{secret}{secret}",
        f"Authorization: Bearer {secret}",
        f"url=https://x.test/?key={quote(secret, safe='')}&q=1",
        f"form: key={quote_plus(secret)}",
        json.dumps({"error": {"message": f"bad {secret}"}}),
        json.dumps({"k": secret}).replace("/", "\\/"),  # a JSON encoder escaping slashes
        f"b64 {b64(secret)} and urlsafe {base64.urlsafe_b64encode(secret.encode()).decode()}",
        f"header bytes: {secret.encode()!r}",
        f"truncated: {secret[:16]}...",
        f"...the tail: {secret[-16:]}",
        f"wrapped at 10: {' '.join(secret[i : i + 10] for i in range(0, len(secret), 10))}",
        f"across lines: {secret[:half]}\r\n\t{secret[half:]}",
    ]
    out += [f"split {secret[:i]}\n{secret[i:]} end" for i in range(1, len(secret))]
    return out


@pytest.mark.parametrize("secret", SECRETS)
def test_every_echo_of_a_credential_is_redacted(secret: str) -> None:
    secrets = Secrets([secret])
    for text in echoes(secret):
        clean = secrets.text(text)
        assert REDACTED in clean, text
        assert leaks_in_text(clean, [secret]) == [], (text, clean)
        assert secret[:12] not in clean.replace(" ", "")


def test_text_without_a_credential_is_left_alone() -> None:
    secrets = Secrets(SECRETS)
    prose = (
        "The bearer token expired at 12:00; retry with a new one. Hunter 2 was a good "
        "film. {'type': 'error', 'message': 'overloaded'} 5b0c7d2e is a short id."
    )
    assert secrets.text(prose) == prose
    assert secrets.value({"a": [prose, 1, None]}) == {"a": [prose, 1, None]}


def test_the_surroundings_of_a_redacted_credential_are_kept() -> None:
    text = f"line one\ntoken {BEARER[:9]}\n  {BEARER[9:]} expired\nline four"
    assert Secrets([BEARER]).text(text) == f"line one\ntoken {REDACTED} expired\nline four"


def test_key_like_tokens_are_redacted_even_when_unknown() -> None:
    assert Secrets().text("key sk-ant-api03-someoneelse-123 here") == f"key {REDACTED} here"
    assert Secrets().text("sk-ant-api03-someoneelse-123", key_like=False) == (
        "sk-ant-api03-someoneelse-123"
    )


def test_basic_auth_is_decoded_and_its_password_redacted() -> None:
    header = "Basic " + b64("alice:correct-horse-battery")
    secrets = Secrets([header])
    for text in (
        header,
        b64("alice:correct-horse-battery"),
        "login alice:correct-horse-battery failed",
        "password correct-horse-battery is wrong",
    ):
        assert "correct-horse" not in secrets.text(text)
        assert b64("alice:correct-horse-battery") not in secrets.text(text)
    assert secrets.text("user alice") == "user alice"  # a user name is no secret


def test_a_value_is_scrubbed_in_keys_and_nested_values() -> None:
    payload = {BEARER: [{"auth": f"Bearer {BEARER}"}, (UUID, 3)], "n": 1.5}
    assert Secrets([BEARER, UUID]).value(payload) == {
        REDACTED: [{"auth": f"Bearer {REDACTED}"}, [REDACTED, 3]],
        "n": 1.5,
    }


def test_header_secrets_picks_credential_headers_and_named_ones() -> None:
    headers = [
        ("Authorization", f"Bearer {BEARER}"),
        ("X-Api-Key", ANTHROPIC_KEY),
        ("Cookie", "sid=abc123456789"),
        ("X-Portkey-Api-Key", UUID),
        ("Content-Type", "application/json"),
    ]
    assert header_secrets(headers) == [f"Bearer {BEARER}", ANTHROPIC_KEY, "sid=abc123456789"]
    assert header_secrets(dict(headers), ["x-portkey-API-key"])[-1] == UUID
    assert header_secrets(None) == []


class _Upstream(Exception):
    def __init__(self, message: str, *, body: object, request: object) -> None:
        super().__init__(message, body)
        self.body = body
        self.request = request


def test_scrub_exception_cleans_args_attributes_notes_and_cuts_the_chain() -> None:
    class Request:
        def __init__(self) -> None:
            self.headers = {"authorization": f"Bearer {BEARER}"}

    try:
        try:
            raise _Upstream(f"echo {BEARER}", body={"seen": BEARER}, request=Request())
        except _Upstream as low:
            high = RuntimeError(f"failed ({low})", {"key": BEARER})
            high.add_note(f"while using {BEARER}")
            raise high from low
    except RuntimeError as exc:
        caught = exc
    assert scrub_exception(caught, Secrets([BEARER])) is caught
    assert caught.__cause__ is None
    assert caught.__context__ is None
    assert caught.args == (
        f"failed (('echo {REDACTED}', {{'seen': '{REDACTED}'}}))",
        {"key": REDACTED},
    )
    assert caught.__notes__ == [f"while using {REDACTED}"]
    assert_exception_clean(caught, [BEARER])


def test_watched_secrets_are_scrubbed_from_every_handler_while_alive(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    token = "watched-token-LEAKTEST-5150"
    own: list[str] = []

    class Collect(logging.Handler):  # a user's own handler, on the library's logger
        def emit(self, record: logging.LogRecord) -> None:
            own.append(logging.Formatter().format(record))

    sdk = logging.getLogger("anthropic._base_client")
    handler = Collect()
    sdk.addHandler(handler)
    secrets = watch(Secrets([token]))
    try:
        sdk.debug("HTTP Response: %s", {"x-echo": token})
        try:
            raise ValueError(f"bad header {token}")
        except ValueError:
            sdk.debug("Encountered Exception", exc_info=True)
        logging.getLogger("contextfold.proxy").warning("failed for %s", token)
        logging.getLogger("httpcore2.http11").debug("headers=[(b'x', b'%s')]", token)
    finally:
        sdk.removeHandler(handler)
    assert len(own) == 2
    for text in [*own, caplog.text]:
        assert token not in text
    assert caplog.text.count(REDACTED) == 4
    assert "ValueError: bad header [REDACTED]" in caplog.text
    del secrets


def test_watching_does_not_outlive_the_holder() -> None:
    # The proxy watches each request's credentials: they must not pile up.
    for i in range(200):
        watch(Secrets([f"per-request-token-{i:04d}-abcdef"]))
    gc.collect()
    assert not any(v.startswith("per-request-token-") for v in _watched().values)


_SECRET_CHARS = st.characters(min_codepoint=33, max_codepoint=0x2FF, exclude_characters="\x85\xa0")


@settings(max_examples=200, deadline=None)
@given(
    secret=st.text(_SECRET_CHARS, min_size=12, max_size=80),
    before=st.text(max_size=60),
    after=st.text(max_size=60),
    cuts=st.lists(st.tuples(st.integers(1, 79), st.sampled_from([" ", "\n", "\r\n  ", "\t"]))),
)
def test_an_inserted_credential_never_survives(
    secret: str, before: str, after: str, cuts: list[tuple[int, str]]
) -> None:
    echoed = secret
    for at, space in sorted(cuts, reverse=True):  # whitespace wedged in anywhere
        if at < len(echoed):
            echoed = echoed[:at] + space + echoed[at:]
    secrets = Secrets([secret])
    clean = secrets.text(f"{before}{echoed}{after}")
    assert secret not in "".join(clean.split())
    assert secrets.text(clean) == clean  # idempotent: nothing left to find


def test_a_short_toy_key_does_not_garble_the_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    toy = watch(Secrets(["k", "Bearer x"]))
    logging.getLogger("contextfold.proxy").info("kept a key-free line; x marks the spot")
    assert "kept a key-free line; x marks the spot" in caplog.text
    assert toy.text("k") == REDACTED  # errors still redact it


GEMINI_KEY = "AIzaSyLEAKTEST-gemini-osprey-0042"
QUERY_NAMES = ["key", "KEY", "api_key", "api-key", "Api-Key", "access_token", "token"]


@pytest.mark.parametrize("name", QUERY_NAMES)
def test_a_credential_in_a_query_string_never_reaches_the_access_log(name: str) -> None:
    # uvicorn's access log prints the path with its query; a Gemini-style ``?key=`` is
    # a credential no header names. The record keeps its five arguments (uvicorn's own
    # formatter unpacks them), each cleaned.
    from uvicorn.logging import AccessFormatter

    guard_logs()
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(
        AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False)
    )
    access = logging.getLogger("uvicorn.access")
    level = access.level
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    try:
        target = f"/v1beta/models/g:generateContent?alt=sse&{name}={GEMINI_KEY}&monkey=banana"
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "POST", target, "1.1", 200)
    finally:
        access.removeHandler(handler)
        access.setLevel(level)
    line = out.getvalue()
    assert GEMINI_KEY not in line
    assert line == (
        '127.0.0.1:5000 - "POST /v1beta/models/g:generateContent?alt=sse&'
        f'{name}={REDACTED}&monkey=banana HTTP/1.1" 200 OK\n'
    )


def test_query_credentials_are_redacted_in_any_reported_text() -> None:
    text = f"GET https://g.test/v1?alt=json&token={GEMINI_KEY} failed; tokens=5 ?keys=kept"
    assert Secrets().text(text) == (
        f"GET https://g.test/v1?alt=json&token={REDACTED} failed; tokens=5 ?keys=kept"
    )
    assert Secrets().text(text, key_like=False) == text  # content (a summary) is left alone


def test_text_in_a_record_argument_cannot_forge_a_line_or_fill_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # An upstream's error body, quoted in a warning: CR/LF and other controls would start
    # a line that looks like the proxy's own; 200 KB would be one enormous line.
    caplog.set_level(logging.INFO)
    guard_logs()
    forged = "overloaded\r\nERROR:    contextfold.proxy: all keys rotated\u2028\x1b[2J\x85\t"
    body = forged + "z" * 200_000
    logging.getLogger("contextfold.transports").warning("model call failed (%s); retry %d", body, 1)
    [record] = caplog.records
    message = record.getMessage()
    assert message.startswith(
        "model call failed (overloaded\\r\\nERROR:    contextfold.proxy: all keys rotated"
        "\\u2028\\x1b[2J\\x85\\t"
    )
    assert message.endswith(
        f"... [{len(body) - LOG_TEXT_LIMIT} more characters not logged]); retry 1"
    )
    assert len(message) < LOG_TEXT_LIMIT + 100
    assert not any(c in message for c in "\r\n\u2028\x1b\x85\t")

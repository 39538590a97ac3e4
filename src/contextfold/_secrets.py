"""Credentials, and scrubbing them out of everything contextfold reports.

A :class:`Secrets` holds the exact credential values one transport or one proxy
request knows (API keys, bearer tokens, the values of ``Authorization``,
``x-api-key`` and other secret headers) and redacts them from text, from JSON-like
payloads and from exceptions. It matches by value, not by look: a bearer token such
as ``hunter2-bearer-XYZ`` is found as surely as an ``sk-...`` key, which a pattern
also catches as a backstop. What it finds:

* each value as given, and the credential inside an ``Authorization`` value
  (``Bearer T`` -> ``T``; ``Basic B`` -> ``B``, the decoded ``user:password`` and the
  password);
* the same values URL-encoded, JSON-escaped (``\\/`` too) and base64-encoded (values
  of 8 characters or more);
* any stretch of 12 or more characters of those (a truncated echo, or a value cut by
  markup), for forms of at most 4,096 characters (a longer one is found whole: every
  stretch is a string of its own, and "keys" of 60 KB cost 38 MB each);
* all of it also when whitespace was inserted anywhere (an echo wrapped over lines).

Every match, together with the whitespace inside it, becomes ``[REDACTED]``.
:func:`scrub_exception` applies the same to an exception's ``args``, attributes and
``__notes__`` and detaches its ``__cause__``/``__context__`` chain, which may hold an
SDK exception carrying the request (and so the credentials) it failed on.

Key-like text is redacted even when no one knows it: ``sk-...`` / ``key-...`` tokens,
and the values of credential-like parameters in a URL's query (:data:`QUERY_CREDENTIALS`,
case-insensitive, names percent-decoded as a server reads them: ``?key=AIza...`` as
Gemini takes it becomes ``?key=[REDACTED]``, and so does ``?%6Bey=AIza...``; a value
runs to the next ``&``, a ``;`` inside it included).

Logs: a filter on the loggers under ``contextfold``, ``anthropic``, ``openai``,
``httpx``/``httpx2``, ``httpcore``/``httpcore2`` and ``uvicorn`` (installed by
:func:`guard_logs`, and by :func:`watch`) rewrites every record they create before any
handler (the user's included) sees it:

* while a :class:`Secrets` passed to :func:`watch` is alive, it is scrubbed from the
  record's message, arguments, traceback and stack; key-like text always is (the
  SDKs and ``httpcore`` log response headers at ``DEBUG``, where an upstream's echo
  of a credential would otherwise land; uvicorn's access log prints the query);
* each argument interpolated into the message (where a request's or an upstream's
  text lands: an upstream's error body, a model name) goes through :func:`log_text`:
  control characters escaped, so it cannot forge a log line, and cut at
  :data:`LOG_TEXT_LIMIT` characters. The arguments keep their places (uvicorn's access
  formatter reads them one by one); the format string is the code's own, and a
  traceback keeps its lines.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Final
from urllib.parse import quote, quote_plus, unquote_plus

__all__ = [
    "LOG_TEXT_LIMIT",
    "QUERY_CREDENTIALS",
    "REDACTED",
    "SECRET_HEADERS",
    "Secrets",
    "guard_logs",
    "header_secrets",
    "log_text",
    "scrub_exception",
    "watch",
]

REDACTED: Final = "[REDACTED]"
SECRET_HEADERS: Final = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie"}
)
"""Header names whose values are always credentials (compared lower-cased)."""

QUERY_CREDENTIALS: Final = (
    "key",
    "api_key",
    "api-key",
    "apikey",
    "x-api-key",
    "access_token",
    "auth_token",
    "id_token",
    "refresh_token",
    "token",
    "client_secret",
    "secret",
    "password",
    "sig",
)
"""Query parameters whose values are credentials, wherever a URL is written (any case)."""

# Anthropic, OpenAI and look-alike keys, redacted even when no transport knows them.
_KEY_PATTERN = re.compile(r"\b(?:sk|key)-[A-Za-z0-9_\-*.]{8,}")
# ``name=value`` after ``?``, ``&`` or ``;``: the name as a server reads it (its
# percent-escapes decoded: ``%6Bey`` is ``key``), the value running to the next ``&``,
# quote or whitespace (a URL in a log line or an error message ends there; a ``;`` does
# not end a value for most servers today).
_QUERY_NAMES = frozenset(QUERY_CREDENTIALS)
_QUERY_NAME = re.compile(r"[?&;]((?:[\w.~+-]|%[0-9A-Fa-f]{2})+)=")
_QUERY_VALUE = re.compile(r"[^&#\s\"'<>]+")
_AUTH_SCHEMES = frozenset({"bearer", "basic", "token", "apikey", "key"})
_FRAGMENT = 12  # the shortest stretch of a secret redacted on its own
# Every 12-character stretch of a text holds the 6 characters at some position that
# is a multiple of 7: only those are looked up among the secrets' 6-character pieces,
# and the stretches around a hit are then checked (cost: len(text) / 7 set lookups,
# however many secrets are known).
_ANCHOR = 6
_STRIDE = _FRAGMENT - _ANCHOR + 1
_BLOCK = 1024  # characters counted at once when mapping a match back into the text
_ENCODED_MIN = 8  # shorter values are not also searched for in encoded forms
_WHOLE_ONLY = 4096  # a longer form is found whole only, not by its stretches
_LOOKUP_CHARS = 128 * 1024  # characters of stretched forms the lookup cache holds (~17 MB)
_Lookup = tuple[tuple[str, ...], frozenset[str], frozenset[str]]
_looked_up: OrderedDict[tuple[frozenset[str], int], tuple[int, _Lookup]] = OrderedDict()
_looked_up_chars = 0
_lookup_lock = threading.Lock()


def _credential_forms(value: str) -> set[str]:
    """``value`` and the credentials inside it, if it is an ``Authorization`` value."""
    forms = {value}
    scheme, _, rest = value.partition(" ")
    credential = rest.strip()
    if not credential or scheme.lower() not in _AUTH_SCHEMES:
        return forms
    forms.add(credential)
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(credential, validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            return forms
        user, _, password = decoded.partition(":")
        forms.update((decoded, password or user))
    return {form for form in forms if form}


def _encoded_forms(value: str) -> set[str]:
    if len(value) < _ENCODED_MIN:
        return set()
    escaped = json.dumps(value)[1:-1]
    raw = value.encode()
    return {
        quote(value, safe=""),
        quote_plus(value),
        escaped,
        escaped.replace("/", "\\/"),
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
    }


def _lookup(given: frozenset[str], min_length: int) -> _Lookup:
    """The short forms, fragments and anchors :class:`Secrets` searches for.

    Cached: a proxy sees the same few credentials on every request of a client, and
    deriving them (every encoded form, every 12-character stretch) would cost each
    request more than forwarding it. Every stretch of a form is a string of its own
    (some 130 bytes a character of form), so the cache is held to
    :data:`_LOOKUP_CHARS` characters of forms in all, least recently used dropped,
    and a form longer than :data:`_WHOLE_ONLY` is found whole, not by its stretches: a
    client sending 60 KB "keys" made 38 MB of stretches each, kept for 256 of them.
    """
    global _looked_up_chars
    key = (given, min_length)
    with _lookup_lock:
        found = _looked_up.get(key)
        if found is not None:
            _looked_up.move_to_end(key)
            return found[1]
    forms: set[str] = set()
    for value in given:
        for form in _credential_forms(value):
            forms.add(form)
            forms.update(_encoded_forms(form))
    # Whitespace is ignored when matching, so it is dropped from the forms too.
    flat = {f for f in ("".join(form.split()) for form in forms) if len(f) >= min_length}
    long = [form for form in flat if _FRAGMENT < len(form) <= _WHOLE_ONLY]
    short = tuple(form for form in flat if len(form) <= _FRAGMENT or len(form) > _WHOLE_ONLY)
    fragments = frozenset(
        form[i : i + _FRAGMENT] for form in long for i in range(len(form) - _FRAGMENT + 1)
    )
    anchors = frozenset(
        form[i : i + _ANCHOR] for form in long for i in range(len(form) - _ANCHOR + 1)
    )
    made = (short, fragments, anchors)
    size = sum(map(len, long))
    if size <= _LOOKUP_CHARS:
        with _lookup_lock:
            if key not in _looked_up:
                _looked_up[key] = (size, made)
                _looked_up_chars += size
            while _looked_up_chars > _LOOKUP_CHARS:
                _, (dropped, _) = _looked_up.popitem(last=False)
                _looked_up_chars -= dropped
    return made


class Secrets:
    """A set of credential values, and the redaction of them (see the module doc).

    Empty and ``None`` values are ignored. Combine two with ``|``. Compared by
    identity: each holder keeps its own.
    """

    __slots__ = ("__weakref__", "_anchors", "_fragments", "_short", "_values")

    def __init__(self, values: Iterable[str | None] = (), *, min_length: int = 1) -> None:
        """``min_length``: shorter forms (values, or credentials found inside them) are
        not looked for."""
        given = frozenset(v.strip() for v in values if v and v.strip())
        self._values: frozenset[str] = given
        self._short: tuple[str, ...]
        self._fragments: Collection[str]  # asked for membership only (see _Watched)
        self._anchors: Collection[str]
        self._short, self._fragments, self._anchors = _lookup(given, min_length)

    @property
    def values(self) -> frozenset[str]:
        """The credential values as given (stripped)."""
        return self._values

    def __bool__(self) -> bool:
        return bool(self._values)

    def __or__(self, other: Secrets) -> Secrets:
        return Secrets([*self._values, *other._values])

    def __repr__(self) -> str:
        return f"Secrets(<{len(self._values)} value(s)>)"

    def text(self, text: str, *, key_like: bool = True) -> str:
        """``text`` with every known secret redacted, and every key-like token
        (``sk-...``, a credential parameter's value in a query) too unless
        ``key_like=False`` (for content, such as a summary)."""
        if self._values and text:
            text = self._redact_known(text)
        if not key_like:
            return text
        if "sk-" in text or "key-" in text:
            text = _KEY_PATTERN.sub(REDACTED, text)
        if "=" in text:
            text = _redact_query(text)
        return text

    def value(self, value: object) -> object:
        """A JSON-like ``value`` with :meth:`text` applied to every string, keys included."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def _redact_known(self, text: str) -> str:
        spans = self._spans("".join(text.split()))
        if not spans:
            return text
        ends = _positions(text, [i for span in spans for i in (span[0], span[1] - 1)])
        out: list[str] = []
        done = 0
        for begin, last in zip(ends[::2], ends[1::2], strict=True):
            out += [text[done:begin], REDACTED]
            done = last + 1
        out.append(text[done:])
        return "".join(out)

    def _spans(self, flat: str) -> list[tuple[int, int]]:
        """Merged ``[start, end)`` ranges of ``flat`` that are (parts of) secrets."""
        marks: list[tuple[int, int]] = []
        for form in self._short:
            at = flat.find(form)
            while at != -1:
                marks.append((at, at + len(form)))
                at = flat.find(form, at + 1)
        anchors, fragments = self._anchors, self._fragments
        if anchors:
            for at in range(0, len(flat) - _ANCHOR + 1, _STRIDE):
                if flat[at : at + _ANCHOR] in anchors:
                    for i in range(max(0, at + _ANCHOR - _FRAGMENT), at + 1):
                        if flat[i : i + _FRAGMENT] in fragments:
                            marks.append((i, i + _FRAGMENT))
        marks.sort()
        merged: list[tuple[int, int]] = []
        for start, end in marks:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged


def _redact_query(text: str) -> str:
    """``text`` with the values of credential-like query parameters redacted (a name
    is looked for inside another parameter's value too: ``?a=b;key=...``)."""
    out: list[str] = []
    done = 0
    for found in _QUERY_NAME.finditer(text):
        if found.start() < done or unquote_plus(found[1]).strip().lower() not in _QUERY_NAMES:
            continue
        value = _QUERY_VALUE.match(text, found.end())
        if value is not None:
            out += [text[done : found.end()], REDACTED]
            done = value.end()
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _positions(text: str, wanted: list[int]) -> list[int]:
    """Where in ``text`` its non-whitespace characters number ``wanted`` (ascending) are."""
    out: list[int] = []
    seen = 0  # non-whitespace characters before ``start``
    for start in range(0, len(text), _BLOCK):
        block = text[start : start + _BLOCK]
        size = sum(map(len, block.split()))
        if seen + size <= wanted[len(out)]:
            seen += size
            continue
        for offset, char in enumerate(block):
            if char.isspace():
                continue
            while len(out) < len(wanted) and wanted[len(out)] == seen:
                out.append(start + offset)
            if len(out) == len(wanted):
                return out
            seen += 1
    return out


def header_secrets(
    headers: Iterable[tuple[str, str]] | Mapping[str, str] | None,
    extra: Iterable[str] = (),
) -> list[str]:
    """The values of the secret headers among ``headers``.

    Secret: the names in :data:`SECRET_HEADERS` and in ``extra`` (case-insensitive).
    """
    if headers is None:
        return []
    names = SECRET_HEADERS | {name.lower() for name in extra}
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return [value for name, value in pairs if name.lower() in names and isinstance(value, str)]


def scrub_exception(exc: BaseException, secrets: Secrets) -> BaseException:
    """``exc``, scrubbed in place, and with its cause and context chain detached.

    Every string, list, tuple and mapping in ``exc.args``, in its instance attributes
    and in ``__notes__`` goes through :meth:`Secrets.value` (key-like tokens are
    redacted even when ``secrets`` is empty). The chain is detached rather than
    scrubbed: the exceptions in it are often an SDK's or ``httpx``'s, which hold the
    request with its credential headers as an object.
    """
    exc.args = tuple(_scrubbed(arg, secrets) for arg in exc.args)
    for name, attribute in list(getattr(exc, "__dict__", {}).items()):
        if name.startswith("__"):
            continue
        clean = _scrubbed(attribute, secrets)
        if clean is not attribute:
            setattr(exc, name, clean)
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, list):
        exc.__notes__ = [secrets.text(n) if isinstance(n, str) else n for n in notes]
    exc.__cause__ = None
    exc.__context__ = None
    exc.__suppress_context__ = True
    return exc


def _scrubbed(value: object, secrets: Secrets) -> object:
    if isinstance(value, str | Mapping | list | tuple):
        clean = secrets.value(value)
        if isinstance(value, tuple) and isinstance(clean, list):
            clean = tuple(clean)
        return value if clean == value else clean
    return value


_LOGGER_PREFIXES = ("contextfold", "anthropic", "openai", "httpx", "httpcore", "uvicorn")
# Loggers that may not exist yet when the first transport is made (created here, so
# that the module which later asks for one gets the filtered logger).
_KNOWN_LOGGERS = (
    *(f"contextfold.{part}" for part in ("agent", "compaction", "manager", "proxy", "transports")),
    "anthropic._base_client",
    "openai._base_client",
    "httpx",
    "httpx2",
    "uvicorn.error",
    "uvicorn.access",
    *(
        f"{package}.{part}"
        for package in ("httpcore", "httpcore2")
        for part in ("connection", "connection_pool", "http11", "http2", "proxy", "socks")
    ),
)
_LOG_MIN_LENGTH = 8
_lock = threading.RLock()


class _Watched(Secrets):
    """Everything watched now, as one :class:`Secrets` (what :func:`_watched` returns).

    Its forms, fragments and anchors are those of the live watched secrets, each
    counted, so that a secret starting or ending its watch costs its own size. (Made
    again from all the live values whenever they changed, the union cost every log
    record the size of them all: ~130 ms at 1,000 requests in flight with API keys,
    seconds with OAuth tokens of 2 KB, and a served proxy logs every request.) The
    fragment and anchor tables are only ever asked for membership, which is safe while
    another thread counts; the values and short forms are replaced, never changed.
    """

    __slots__ = ("_anchor_counts", "_fragment_counts", "_live", "_short_counts", "_value_counts")

    def __init__(self) -> None:
        super().__init__()
        self._live: weakref.WeakKeyDictionary[Secrets, weakref.finalize[Any, Secrets]] = (
            weakref.WeakKeyDictionary()
        )
        self._value_counts: dict[str, int] = {}
        self._short_counts: dict[str, int] = {}
        self._fragment_counts: dict[str, int] = {}
        self._anchor_counts: dict[str, int] = {}
        self._fragments = self._fragment_counts
        self._anchors = self._anchor_counts

    def add(self, secrets: Secrets) -> None:
        """Watch ``secrets`` until it dies (idempotent); under ``_lock``."""
        if secrets in self._live:
            return
        parts = (
            secrets._values,
            [form for form in secrets._short if len(form) >= _LOG_MIN_LENGTH],
            secrets._fragments,
            secrets._anchors,
        )
        self._live[secrets] = weakref.finalize(secrets, self._forget, parts)
        self._count(parts, 1)

    def _forget(self, parts: tuple[Iterable[str], ...]) -> None:
        with _lock:  # reentrant: a collection may finalize a secret while it is held
            self._count(parts, -1)

    def _count(self, parts: tuple[Iterable[str], ...], step: int) -> None:
        tables = (
            self._value_counts,
            self._short_counts,
            self._fragment_counts,
            self._anchor_counts,
        )
        for table, items in zip(tables, parts, strict=True):
            for item in items:
                count = table.get(item, 0) + step
                if count > 0:
                    table[item] = count
                else:
                    table.pop(item, None)
        self._values = frozenset(self._value_counts)
        self._short = tuple(self._short_counts)


_union = _Watched()


def guard_logs() -> None:
    """Put the log filter (see the module doc) on the libraries' loggers; idempotent.

    :func:`watch` does it too; a face that logs what clients send (the proxy) calls
    this once, so the filter is there before any credential is watched."""
    _install()


def watch(secrets: Secrets) -> Secrets:
    """Keep ``secrets`` out of the log records of the libraries named in the module
    doc for as long as ``secrets`` is alive; returns it. Idempotent.

    Only forms of 8 characters or more are looked for in logs: a shorter "key" (a
    test's ``api_key="k"``, a caller's ``Bearer x``) is no real credential, and
    redacting it would garble every record while it lives (errors still redact it).
    """
    if secrets:
        with _lock:
            _union.add(secrets)
        _install()
    return secrets


def _watched() -> Secrets:
    """Everything watched now, as one :class:`Secrets` (see :class:`_Watched`)."""
    return _union


LOG_TEXT_LIMIT: Final = 2000
"""The most characters of one argument of a log record that are logged."""

# C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the bidi
# overrides and isolates (which reorder how the rest of a line reads): escaped in logs.
_UNSAFE = [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F)]
_UNSAFE += range(0x2066, 0x206A)
_ESCAPES = {
    code: {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}.get(
        code, f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    )
    for code in _UNSAFE
}


def log_text(text: str, limit: int = LOG_TEXT_LIMIT) -> str:
    """``text`` as one log line: its first ``limit`` characters, every control
    character among them escaped (``\\r``, ``\\n``, ``\\x1b``, ``\\u2028``...; the
    backslash itself is not), followed by ``... [N more characters not logged]`` when
    it was longer."""
    cut = len(text) - limit
    if cut > 0:
        return text[:limit].translate(_ESCAPES) + f"... [{cut} more characters not logged]"
    return text.translate(_ESCAPES)


def _log_argument(value: object, secrets: Secrets) -> object:
    """A record's argument, scrubbed of ``secrets`` first, then made :func:`log_text`.

    Numbers and ``None`` stay as they are (``%d`` still takes them); another object
    is replaced by its cleaned ``str`` only when that differs from it."""
    if value is None or isinstance(value, int | float):
        return value
    text = value if isinstance(value, str) else str(value)
    clean = log_text(secrets.text(text))
    return value if clean == text else clean


class _ScrubFilter(logging.Filter):
    """Rewrites each record as the module doc says: arguments escaped and bounded,
    secrets scrubbed from its message, exception and stack text."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = _watched()
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(_log_argument(arg, secrets) for arg in args)
        elif isinstance(args, Mapping):
            record.args = {key: _log_argument(arg, secrets) for key, arg in args.items()}
        try:
            message = record.getMessage()
        except Exception:  # a broken format: logging reports it itself, later
            return True
        clean = secrets.text(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            clean = secrets.text(record.exc_text)
            if clean != record.exc_text:
                record.exc_text, record.exc_info = clean, None
        if record.stack_info:
            record.stack_info = secrets.text(record.stack_info)
        return True


_FILTER = _ScrubFilter()


_installed: tuple[int, tuple[str, ...]] = (-1, ())  # logger count, placeholders then


def _install() -> None:
    """Put the filter on every matching logger (new ones appear as modules load).

    Loggers are never removed: while their number is unchanged and the placeholders
    (parents named before they were created) that could become ours are still
    placeholders, every logger has been seen already and the walk is skipped (it
    would run once per proxied request).
    """
    global _installed
    loggers = logging.Logger.manager.loggerDict
    count, pending = _installed
    if len(loggers) == count and all(
        isinstance(loggers.get(name), logging.PlaceHolder) for name in pending
    ):
        return
    for name in _KNOWN_LOGGERS:
        logging.getLogger(name)
    placeholders = []
    for name, logger in list(loggers.items()):
        if name.split(".")[0].rstrip("2") not in _LOGGER_PREFIXES:
            continue
        if not isinstance(logger, logging.Logger):  # a placeholder for a parent
            placeholders.append(name)
            continue
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
    _installed = (len(loggers), tuple(placeholders))

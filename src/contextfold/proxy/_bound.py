"""The proxy's fast path: requests whose byte size alone shows they are far under the limit.

Parsing and hashing a long history costs milliseconds; most requests are nowhere
near their model's limit and need neither. :class:`SizeBound` bounds a request's
prompt size from its raw bytes (``bytes × tokens per byte``, plus a fixed charge per
base64 image, file or audio part, which may be small in bytes but is counted whole) and lets the
request through untouched when twice that bound is still under the limit.

``tokens per byte`` starts at ``1/4`` (the approximate counter's 4 characters per
token; a character is at least one byte of JSON) and only grows: every usage report
the upstream sends for a chat request raises it to the reported prompt size per
byte forwarded, if that is higher. A conversation denser in tokens than its bytes
suggest is therefore parsed (and anchored, and compacted) from then on.

The ratio is learnt per tenant (:mod:`._tenant`), as many as ``max_bytes`` holds (the
ratios' share of :class:`~._budget.MemoryBudget` by default: 1.6 MiB, some 7,000
tenants; the least recently taught forgotten: back to ``1/4``, which may let a dense request
over its limit through uncompacted once more, the upstream's overflow error then
retried compacted, as for a new tenant). A global ratio would be harmless to
what others' requests become (a parsed request under its limit is forwarded as it
is, like an unparsed one), but not to what they are told: a tenant sending dense
text would switch every other tenant's requests from the byte bound to a parse, and
their ``x-contextfold-tokens-before`` headers from one kind of number to the other,
so each could see that somebody had. Nothing the proxy learns is shared.

The model is read without parsing, only when the body names exactly one ``"model"``
whose value is a plain string and has its dialect's history field once
(:attr:`~contextfold.dialects.base.Dialect.history_marker`: a ``"messages"`` list;
Responses: one ``"input"``, a list or a string), and none of the keys that make it
lean on server-held state (Responses' ``"previous_response_id"`` or
``"conversation"``, whose usage reports count history the body does not hold);
anything else takes the ordinary path, and so does a body with a letter written as
a ``\\u`` escape (it may spell a key, ``"\\u0074ype"``, that no byte search finds).
A body let through here is not validated: the upstream judges it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from contextfold.dialects import CHAT, Dialect
from contextfold.proxy._budget import ENTRY_BYTES, MemoryBudget, SizedLRU
from contextfold.tokens import DEFAULT_TOKENS_PER_MEDIA

_MODEL = re.compile(rb'"model"\s*:\s*"([^"\\]{1,256})"')
# A key spelled with an escaped letter ("\u0074ype", "\u006dodel") is a key like
# any other to a JSON parser but escapes every byte search here: such a body is
# parsed. Escapes of other characters (accents, CJK, Go's "\u003c") spell no key.
_ESCAPED_LETTER = re.compile(rb"\\u00[4-7][0-9a-fA-F]")
# Media: counted whole (600 tokens each), however few bytes they take (a URL). Some
# parts match twice ("file" is type and key); that only errs toward parsing.
_MEDIA_MARKERS = (b'"image_url"', b'"image"', b'"input_audio"', b'"file"', b'"document"')
_MIN_LEARN_BYTES = 1024
_SAFETY = 2.0  # parse once the bound is within 2x of the limit
_MAX_TOKENS_PER_BYTE = 4.0
_MAX_LIMIT = 10_000_000  # above any model's window: a body this large is always parsed
_START = 0.25


class SizeBound:
    """Decides from a body's bytes whether it can be forwarded without parsing.

    ``limit(model, tenant)`` is the lowest estimate at which a request needs a look."""

    def __init__(self, limit: Callable[[str, str], int], max_bytes: int | None = None) -> None:
        self._limit = limit
        self._ratios: SizedLRU[str, float] = SizedLRU(
            MemoryBudget().share("ratios") if max_bytes is None else max_bytes
        )

    @property
    def nbytes(self) -> int:
        """What the learnt ratios hold, as estimated."""
        return self._ratios.nbytes

    def tokens_per_byte(self, tenant: str) -> float:
        """The ratio learnt from ``tenant``'s usage reports (``1/4`` before any)."""
        return self._ratios.get(tenant, _START)

    def estimate(self, raw: bytes, tenant: str) -> int:
        """An upper bound of ``raw``'s prompt size in tokens, as far as ``tenant``'s
        usage reports tell."""
        # Every media part is typed ({"type": "image_url", ...}): a body without a
        # "type" key holds none, and one search spares five counts.
        media = sum(raw.count(m) for m in _MEDIA_MARKERS) if b'"type"' in raw else 0
        return int(len(raw) * self.tokens_per_byte(tenant)) + media * DEFAULT_TOKENS_PER_MEDIA

    def far_under(self, raw: bytes, tenant: str, dialect: Dialect = CHAT) -> int | None:
        """``raw``'s bound when it is far under its model's limit for ``tenant``, else
        ``None``; ``raw`` is a body in ``dialect``."""
        ratio = self.tokens_per_byte(tenant)
        if len(raw) * ratio * _SAFETY >= _MAX_LIMIT:
            return None  # too large for any model's limit: not worth scanning
        if raw.lstrip()[:1] != b"{":
            return None
        model = _MODEL.search(raw)
        if model is None:
            return None
        try:
            name = model.group(1).decode()
        except UnicodeDecodeError:
            return None
        # The first "model" may not be the body's own (checked below), but this only
        # ever answers "parse it": a body over some model's limit is not far under.
        # Checked first, because it spares the scans of the whole body below.
        limit = self._limit(name, tenant)
        if len(raw) * ratio * _SAFETY >= limit:
            return None  # over before media are counted (they only add)
        if b"\\" in raw and _ESCAPED_LETTER.search(raw) is not None:  # memchr first
            return None
        key = f'"{dialect.history_key}"'.encode()
        if not (_once(raw, b'"model"') and _once(raw, key)):
            return None
        if any(marker in raw for marker in dialect.server_state_markers):
            return None
        if dialect.history_marker.search(raw) is None:
            return None
        tokens = self.estimate(raw, tenant)
        return tokens if tokens * _SAFETY < limit else None

    def learn(self, forwarded: bytes, input_tokens: int, tenant: str) -> None:
        """Take in a usage report: ``input_tokens`` for ``tenant``'s ``forwarded`` body.

        Bodies under 1 KiB (fixed prompt overhead dominates) and bodies with media
        (charged by the upstream in its own way) teach nothing.
        """
        if len(forwarded) < _MIN_LEARN_BYTES or input_tokens <= 0:
            return
        if any(marker in forwarded for marker in _MEDIA_MARKERS):
            return
        ratio = min(input_tokens / len(forwarded), _MAX_TOKENS_PER_BYTE)
        if ratio > self._ratios.get(tenant, _START):
            self._ratios.put(tenant, ratio, sys.getsizeof(tenant) + ENTRY_BYTES + 24)


def _once(raw: bytes, needle: bytes) -> bool:
    """Whether ``needle`` occurs exactly once in ``raw`` (two searches, no count)."""
    first = raw.find(needle)
    return first != -1 and raw.find(needle, first + 1) == -1


def model_named(raw: bytes) -> str | None:
    """The first ``"model"`` a raw body names, unparsed (a hint: the body may name
    another one later; see the module doc)."""
    found = _MODEL.search(raw)
    if found is None:
        return None
    try:
        return found.group(1).decode()
    except UnicodeDecodeError:
        return None

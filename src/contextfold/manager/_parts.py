"""Stand-ins for OpenAI content parts that :mod:`contextfold.formats` does not model.

OpenAI chat messages may carry parts that have no :class:`~contextfold.blocks`
equivalent: images by remote URL, ``input_audio``, ``file`` and part types added
later. The context manager stores such messages exactly as given; for counting and
summarizing it parses a *stand-in*: the same dict with each unmodelled part replaced
by a short text placeholder (``"[image: https://…]"``, ``"[audio: wav]"``,
``"[file: report.pdf]"``, ``"[content part: <type>]"``). The placeholder never holds
the part's data (base64 audio, file bytes), so that never reaches a summarizer.

:class:`MediaAwareCounter` charges a placeholder like an image
(:data:`~contextfold.tokens.DEFAULT_TOKENS_PER_MEDIA`) instead of its few characters,
so a history of remote images is not mistaken for a small one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from contextfold.tokens import DEFAULT_TOKENS_PER_MEDIA, TokenCounter

__all__ = ["MediaAwareCounter", "placeholder", "stand_in"]

_MAX_LABEL = 200
"""Longest URL or name a placeholder shows; longer ones are cut and end in ``…``."""

_PLACEHOLDER = re.compile(r"\[(?:image|audio|file|content part)(?:: [^\n]*)?\]\Z")
_LONGEST_PLACEHOLDER = len("[content part: ]") + _MAX_LABEL + 1


def _label(text: str) -> str:
    text = " ".join(text.split())  # one line, so a placeholder stays one line
    return text if len(text) <= _MAX_LABEL else text[: _MAX_LABEL - 1] + "…"


def _mapping(part: Mapping[str, Any], key: str, kind: str) -> Mapping[str, Any]:
    value = part.get(key)
    if not isinstance(value, Mapping):
        raise ValueError(f"content part {kind!r} needs an object in field {key!r}")
    return value


def placeholder(part: object) -> str | None:
    """The placeholder text standing in for ``part``, or ``None`` when formats models it.

    ``None`` is also returned for parts too malformed to classify (not a dict, no
    string ``type``): :func:`~contextfold.formats.from_openai` then rejects them.
    Raises :class:`ValueError` for a part of a known type that lacks its payload
    (an ``image_url`` without a URL, an ``input_audio`` or ``file`` part without its
    object).
    """
    if not isinstance(part, Mapping):
        return None
    kind = part.get("type")
    if not isinstance(kind, str) or kind in ("text", "refusal"):
        return None
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, Mapping) else image
        if not isinstance(url, str) or not url:
            raise ValueError(f"content part {kind!r} needs a string 'url'")
        if url.startswith("data:"):
            return None  # formats parses data URLs (or says what is wrong with one)
        return f"[image: {_label(url)}]"
    if kind == "input_audio":
        audio_format = _mapping(part, "input_audio", kind).get("format")
        return f"[audio: {_label(audio_format)}]" if isinstance(audio_format, str) else "[audio]"
    if kind == "file":
        file = _mapping(part, "file", kind)
        name = next(
            (v for k in ("filename", "file_id") if isinstance(v := file.get(k), str) and v), None
        )
        return f"[file: {_label(name)}]" if name else "[file]"
    return f"[content part: {_label(kind)}]"


def stand_in(wire: Mapping[str, Any]) -> dict[str, Any] | None:
    """``wire`` with every unmodelled content part replaced by its placeholder text part.

    Returns ``None`` when ``wire`` has no such part (its content is not a list, or
    every part is one formats models). The other fields are shared with ``wire``,
    not copied. Raises :class:`ValueError` as :func:`placeholder` does.
    """
    content = wire.get("content")
    if not isinstance(content, list):
        return None
    parts: list[Any] = []
    replaced = False
    for part in content:
        text = placeholder(part)
        if text is None:
            parts.append(part)
        else:
            parts.append({"type": "text", "text": text})
            replaced = True
    return {**wire, "content": parts} if replaced else None


class MediaAwareCounter:
    """A token counter that charges each placeholder text ``tokens_per_media`` tokens.

    Every other text is counted by ``counter``. A text is a placeholder when it is
    exactly one (as a whole content part is): a user's text that happens to read
    ``"[audio]"`` is charged like audio too, an overestimate that is harmless.
    """

    __slots__ = ("counter", "tokens_per_media")

    def __init__(
        self, counter: TokenCounter, tokens_per_media: int = DEFAULT_TOKENS_PER_MEDIA
    ) -> None:
        self.counter = counter
        self.tokens_per_media = tokens_per_media

    def __call__(self, text: str, /) -> int:
        if (
            len(text) <= _LONGEST_PLACEHOLDER
            and text.startswith("[")
            and _PLACEHOLDER.match(text) is not None
        ):
            return self.tokens_per_media
        return self.counter(text)

    def __repr__(self) -> str:
        return f"MediaAwareCounter({self.counter!r}, tokens_per_media={self.tokens_per_media})"

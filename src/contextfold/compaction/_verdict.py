"""What the summarizer may answer: the checks a reply passes before it can be committed.

:func:`check_summary` turns a summarizer's :class:`~contextfold.transports.base.Completion`
into the summary text, or raises :class:`~contextfold.errors.SummaryRejectedError` whose
``reason`` says why the reply is unusable:

``"tool_call"``
    the summarizer called a tool (or stopped to wait for one).
``"truncated"``
    the reply was cut at the output limit (``stop_reason="max_tokens"``).
``"incomplete"``
    any other stop than a normal end (``end_turn``, ``stop_sequence``): ``pause_turn``,
    or a value this library does not know.
``"empty"``
    no text, also once invisible and format characters are removed (zero-width and
    other format characters, combining marks without a letter, fillers such as
    U+3164 and U+2800): a summary holds at least one letter or digit.
``"format"``
    a ``<summary>`` tag that is never closed: the reply was cut or garbled.
``"refusal"``
    ``stop_reason="refusal"``, or the reply (the part inside the tags, when there are
    tags) opens by declining the task (:func:`~contextfold.compaction._refusal.looks_like_refusal`).
``"unrelated"``
    an untagged reply from a model (not a scripted stub: a transport whose
    ``scripted`` attribute is true, such as :mod:`contextfold.testing`'s) that is
    short and mentions nothing of what it summarizes: no word of four letters or more
    (or pair of CJK characters) of the transcript. A refusal in a language the refusal
    detector does not know is such a reply; a summary, even a terse one, names what
    happened.

Tags are how the built-in prompts ask for the summary, not a condition: with tags,
what they enclose is the summary (a preamble around them is dropped); an untagged
reply with a normal stop is judged like any other. A compaction whose result is not
smaller than what it replaces is rejected by the engine (``"not_smaller"``).
``"too_long"``
    the summary counts more than the summary budget plus slack
    (:func:`summary_allowance`) with the configured token counter.

Text that cannot be encoded (lone UTF-16 surrogates, as a broken stream or a
mis-decoded ``\\ud83d`` escape leaves behind) is *repaired*, not rejected: each lone
surrogate becomes U+FFFD and split surrogate pairs are joined. Rejecting would throw
away a paid summary for one unreadable character; letting it through would make every
later request to a provider that encodes UTF-8 fail. :func:`repair_text` is also
applied to everything the summarizer is sent.
"""

from __future__ import annotations

import re

from contextfold.compaction._refusal import looks_like_refusal, opening
from contextfold.errors import SummaryRejectedError
from contextfold.tokens import TokenCounter
from contextfold.transports.base import Completion

__all__ = [
    "NORMAL_STOPS",
    "SUMMARY_SLACK",
    "UNRELATED_WORDS",
    "asks_for_tags",
    "check_summary",
    "extract_tagged",
    "repair_text",
    "summary_allowance",
]

NORMAL_STOPS = frozenset({"end_turn", "stop_sequence"})
"""Stop reasons of a reply that ended on its own."""

SUMMARY_SLACK = 1.25
"""A summary may exceed ``max_summary_tokens`` by this factor (plus a few tokens):
the prompt asks for the budget in the provider's tokens, the check counts with ours."""

UNRELATED_WORDS = 40
"""An untagged reply of fewer words than this must share words with its transcript."""

_SLACK_TOKENS = 64
# Letters that show nothing: Hangul fillers, the Khmer and Mongolian invisible vowels.
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u17b4\u17b5\u180e\u2800")
_WORDS = re.compile(r"[^\W_]{4,}")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
_OPEN = re.compile(r"<summary\s*>", re.IGNORECASE)
_CLOSE = re.compile(r"</summary\s*>", re.IGNORECASE)
_QUOTE_CHARS = 120


def summary_allowance(max_summary_tokens: int) -> int:
    """The most tokens a summary may count: the budget plus :data:`SUMMARY_SLACK`.

    It is also the output cap sent with every summarizer request, so a reply that
    would run past it is cut by the provider and rejected as ``"truncated"``.
    """
    return int(max_summary_tokens * SUMMARY_SLACK) + _SLACK_TOKENS


def asks_for_tags(prompt_text: str) -> bool:
    """Whether a rendered prompt asks for the summary inside ``<summary>`` tags."""
    return bool(_OPEN.search(prompt_text) and _CLOSE.search(prompt_text))


def repair_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD and split pairs joined.

    Text that UTF-8 can encode is returned unchanged (the same object).
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def extract_tagged(text: str) -> tuple[str, bool] | None:
    """The text between the first ``<summary>`` and the last ``</summary>``, and
    whether the closing tag was there.

    ``None`` when there is no opening tag. A missing closing tag takes the rest of
    the reply (a model that forgot it still ended normally); the last closing tag is
    used so a summary that quotes ``</summary>`` keeps its tail.
    """
    start = _OPEN.search(text)
    if start is None:
        return None
    closes = list(_CLOSE.finditer(text, start.end()))
    end = closes[-1].start() if closes else len(text)
    return text[start.end() : end], bool(closes)


def visible(text: str) -> bool:
    """Whether ``text`` shows a letter or a digit (format characters, combining marks
    alone, punctuation, fillers and blank symbols do not count)."""
    return any(ch.isalnum() and ch not in _FILLERS for ch in text)


def _vocabulary(text: str) -> set[str]:
    """Words of four or more letters, and pairs of CJK characters, case folded."""
    folded = text.casefold()
    words = set(_WORDS.findall(folded))
    for run in _CJK_RUN.findall(folded):
        words.update(run[i : i + 2] for i in range(len(run) - 1))
    return words


# The words of the transcript's own framing (its tags, labels and markers): a reply
# that names only these ("I can't summarize this transcript" in a language the
# refusal detector does not know) mentions nothing of the conversation.
_FRAMING = frozenset(
    {
        "transcript", "previous", "summary", "compaction", "instructions", "user",
        "assistant", "system", "tool", "call", "result", "error", "image", "omitted",
        "bytes", "truncated", "content", "message",
    }
)  # fmt: skip


def grounded(summary: str, source: str) -> bool:
    """Whether ``summary`` mentions anything of ``source`` (see ``"unrelated"``):
    long replies always do; a short one shares at least one word with it, other than
    the words of the transcript's framing."""
    if len(summary.split()) >= UNRELATED_WORDS:
        return True
    return bool((_vocabulary(summary) & _vocabulary(source)) - _FRAMING)


def _wrapped(text: str) -> tuple[str, bool] | None:
    """A reply wholly wrapped in ``<summary>`` tags, as :func:`extract_tagged` gives it
    (for a prompt that did not ask for tags: a tag inside the text is content)."""
    if _OPEN.match(text) and re.search(r"</summary\s*>\Z", text, re.IGNORECASE):
        return extract_tagged(text)
    return None


def _rejected(reason: str, message: str) -> SummaryRejectedError:
    return SummaryRejectedError(message, reason=reason)


def check_summary(
    completion: Completion,
    *,
    tagged: bool = False,
    strict: bool = False,
    counter: TokenCounter | None = None,
    max_tokens: int | None = None,
    source: str | None = None,
) -> str:
    """The summary text of ``completion``, or :class:`SummaryRejectedError` saying why not.

    ``tagged``: the prompt asked for ``<summary>`` tags; when the reply has them, the
    summary is what they enclose (for another prompt, only a reply wholly wrapped in
    them is unwrapped); an untagged reply is judged as a whole. ``strict``:
    the reply comes from a model, so an untagged one must be grounded in ``source``
    (the transcript it summarizes; ``"unrelated"``). ``max_tokens`` (counted with
    ``counter``) bounds the summary (``"too_long"``). The returned text is stripped
    and repaired (see :func:`repair_text`).
    """
    stop = completion.stop_reason
    if completion.tool_uses or stop == "tool_use":
        raise _rejected("tool_call", "the summarizer called a tool instead of summarizing")
    if stop == "max_tokens":
        raise _rejected("truncated", "the summary was cut off at the output limit")
    if stop == "refusal":
        raise _rejected("refusal", "the summarizer refused (stop_reason 'refusal')")
    if stop not in NORMAL_STOPS:
        raise _rejected(
            "incomplete", f"the summarizer stopped with {stop!r}, not a normal end of its reply"
        )
    text = repair_text(completion.text).strip()
    if not visible(text):
        raise _rejected("empty", "the summarizer returned no text")
    found = extract_tagged(text) if tagged else _wrapped(text)
    untagged = found is None
    if found is not None:
        inner, closed = found
        if not closed:
            if looks_like_refusal(text):
                # "I can't write a <summary> of this." mentions the tag; it holds no summary.
                raise _rejected(
                    "refusal", f"the summarizer refused: {opening(text)[:_QUOTE_CHARS]!r}"
                )
            raise _rejected(
                "format",
                f"the reply opens a <summary> tag and never closes it: {text[-_QUOTE_CHARS:]!r}",
            )
        text = inner.strip()
    if not visible(text):
        raise _rejected("empty", "the summarizer's <summary> tags hold no text")
    if looks_like_refusal(text):
        raise _rejected("refusal", f"the summarizer refused: {opening(text)[:_QUOTE_CHARS]!r}")
    if untagged and strict and source is not None and not grounded(text, source):
        raise _rejected(
            "unrelated",
            "the reply mentions nothing of the conversation it summarizes (a refusal in "
            f"another language?): {text[:_QUOTE_CHARS]!r}",
        )
    if counter is not None and max_tokens is not None:
        size = counter(text)
        if size > max_tokens:
            raise _rejected(
                "too_long",
                f"the summary has ~{size:,} tokens, over the {max_tokens:,} allowed "
                "(max_summary_tokens plus slack)",
            )
    return text

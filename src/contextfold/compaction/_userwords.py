"""The user's own words: verbatim user messages and compaction instructions.

A summary written by a model paraphrases; an instruction or a correction the user typed
must survive word for word (SPEC §6, guarantee 10). Two things live here:

* **Verbatim user messages.** The text of the user's messages in the summarized part
  (not tool results, not earlier summaries) is kept word for word inside the summary
  message, in a delimited ``<user-messages>`` section that *we* render after the model's
  summary, so it survives whatever the model writes. Messages that hold a standing
  instruction (below) are kept first, so later compactions still read it, then the
  newest, while they fit ``user_message_budget`` tokens; a message that does not fit on its own
  is skipped (the summary covers it) and older ones still get their chance. The next
  compaction reads the section back and the budget is spent again, newest first, over
  those and the newly summarized messages.
* **Compaction instructions.** The caller's ``instructions`` and the *standing
  instructions* the user gave in the conversation reach the summarizer in a
  ``<compaction-instructions>`` block after the transcript. A sentence of a user
  message is a standing instruction only when it names summarizing or compacting as an
  occasion (``when/if/before/while/after/each time`` + ``you/we/it`` + ``summarize`` /
  ``compact`` / ``compress``, or ``in/into/for your/any/each/every/future/the next
  summary/compaction``, ending its clause or naming the conversation as its object:
  "after we compact the table" and "in the summary of the PR" are tasks, not occasions)
  *and* gives a directive (``keep``, ``preserve``, ``retain``,
  ``include``, ``remember``, ``mention``, ``record``, ``note``, ``list``, ``quote``,
  ``always``, ``never``, ``make sure``, ``must``, ``don't/do not/never drop, lose,
  forget, omit``); questions are not instructions. The newest
  :data:`MAX_STANDING` such sentences are sent, each cut to :data:`MAX_STANDING_CHARS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from contextfold.blocks import TextBlock
from contextfold.messages import Message
from contextfold.tokens import TokenCounter

__all__ = [
    "MAX_STANDING",
    "MAX_STANDING_CHARS",
    "choose_verbatim",
    "instructions_block",
    "parse_user_words",
    "render_user_words",
    "standing_instructions",
    "user_texts",
]

MAX_STANDING: Final = 10
MAX_STANDING_CHARS: Final = 500

_OPEN: Final = "<user-messages>"
_CLOSE: Final = "</user-messages>"
_HEADER: Final = (
    "The user's own messages from the compacted part, word for word and oldest first. "
    "Where they disagree, the later message wins."
)
_HEADER_PARTIAL: Final = (
    "The user's own messages from the compacted part, word for word and oldest first "
    "(older ones are only in the summary). Where they disagree, the later message wins."
)
_FIRST_LABEL = re.compile(r"\n\n\[user message 1 of (\d+)(, \d+ characters)?\]\n")
_SIZED_LABEL = re.compile(r"\n\n\[user message (\d+) of (\d+), (\d+) characters\]\n")

# The occasion ends its clause, or names the conversation as what is summarized: "after
# we compact the table" or "in the summary of the PR" is the user's task, not compaction.
_OCCASION_END = (
    r"(?=\s*(?:[,.;:!]|$|(?:it|this|that|(?:this|the|our)\s+(?:conversation|context|"
    r"history|chat|session|transcript|thread)(?:\s+so\s+far)?)\b\s*(?:[,.;:!]|$)))"
)
_OCCASION = re.compile(
    r"\b(?:when(?:ever)?|if|before|while|after|each\s+time|every\s+time)\s+"
    r"(?:you\s+|we\s+|it\s+|they\s+)?(?:(?:are|is|get|gets)\s+)?"
    r"(?:summari[sz]\w*|compact\w*|compress\w*)" + _OCCASION_END + "|"
    r"\b(?:in|into|for)\s+(?:your|any|each|every|future|the\s+next|the)\s+"
    r"(?:summar(?:y|ies)|compactions?)\b" + _OCCASION_END,
    re.IGNORECASE,
)
_DIRECTIVE = re.compile(
    r"\b(?:keep|preserve|retain|include|remember|mention|record|note|list|quote|always|"
    r"never|make\s+sure|must|(?:don'?t|do\s+not|never)\s+(?:drop|lose|forget|omit))\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!;])\s+|\n+")


def user_texts(messages: Iterable[Message]) -> list[str]:
    """The text of each user message that has any (tool results and images skipped)."""
    texts: list[str] = []
    for message in messages:
        if message.role != "user":
            continue
        text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
        if text:
            texts.append(text)
    return texts


def choose_verbatim(
    texts: Sequence[str], budget: int, counter: TokenCounter
) -> tuple[list[str], bool]:
    """The messages of ``texts`` (oldest first) kept within ``budget`` tokens, newest
    first, and whether any was left out. Exact repeats of a kept message are dropped.

    The newest :data:`MAX_STANDING` messages holding a standing instruction are chosen
    before the others: the next compaction finds its standing instructions only in the
    words kept here."""
    holders = [i for i, text in enumerate(texts) if standing_instructions([text])]
    first_ones = set(holders[-MAX_STANDING:])  # as many as are sent to the summarizer
    standing = [i in first_ones for i in range(len(texts))]
    chosen: dict[str, int] = {}
    used = 0
    left_out = False
    for first in (True, False):
        for index in reversed(range(len(texts))):
            text = texts[index]
            if standing[index] is not first or text in chosen:
                continue
            cost = counter(text) + 8
            if used + cost > budget:
                left_out = True
                continue
            chosen[text] = index
            used += cost
    return sorted(chosen, key=chosen.__getitem__), left_out


def render_user_words(kept: Sequence[str], left_out: bool) -> str:
    """The ``<user-messages>`` section for ``kept``, or ``""`` when there is none."""
    if not kept:
        return ""
    total = len(kept)
    header = _HEADER_PARTIAL if left_out else _HEADER
    plain = [f"[user message {n} of {total}]\n{text}" for n, text in enumerate(kept, 1)]
    section = f"{_OPEN}\n" + "\n\n".join([header, *plain]) + f"\n{_CLOSE}"
    if parse_user_words(section) == list(kept):
        return section
    # A message quotes a later label (a pasted summary): the labels carry the lengths.
    sized = [
        f"[user message {n} of {total}, {len(text)} characters]\n{text}"
        for n, text in enumerate(kept, 1)
    ]
    return f"{_OPEN}\n" + "\n\n".join([header, *sized]) + f"\n{_CLOSE}"


def parse_user_words(section: str) -> list[str] | None:
    """The messages of a section :func:`render_user_words` wrote, or ``None`` if
    ``section`` is not one. Labels are matched in sequence (1 of N, 2 of N ...), so a
    message that quotes a label elsewhere does not split; where a message quotes the
    label that follows it, :func:`render_user_words` wrote each message's length in its
    label and the messages are read by length."""
    if not (section.startswith(_OPEN + "\n") and section.endswith("\n" + _CLOSE)):
        return None
    body = section[len(_OPEN) + 1 : len(section) - len(_CLOSE) - 1]
    first = _FIRST_LABEL.search(body)
    if first is None or body[: first.start()] not in (_HEADER, _HEADER_PARTIAL):
        return None
    total = int(first.group(1))
    if first.group(2):
        return _parse_sized(body, first.start(), total)
    texts: list[str] = []
    start = first.end()
    for number in range(2, total + 1):
        label = f"\n\n[user message {number} of {total}]\n"
        end = body.find(label, start)
        if end < 0:
            return None
        texts.append(body[start:end])
        start = end + len(label)
    texts.append(body[start:])
    return texts


def _parse_sized(body: str, start: int, total: int) -> list[str] | None:
    """The messages of a section whose labels carry each message's length."""
    texts: list[str] = []
    for number in range(1, total + 1):
        label = _SIZED_LABEL.match(body, start)
        if label is None or (int(label.group(1)), int(label.group(2))) != (number, total):
            return None
        end = label.end() + int(label.group(3))
        if end > len(body):
            return None
        texts.append(body[label.end() : end])
        start = end
    return texts if start == len(body) else None


def standing_instructions(texts: Iterable[str]) -> list[str]:
    """Sentences of the user's messages that instruct how to summarize (module doc)."""
    found: list[str] = []
    for text in texts:
        for sentence in _SENTENCE.split(text):
            sentence = sentence.strip()
            if not sentence or sentence.endswith("?"):
                continue
            if _OCCASION.search(sentence) and _DIRECTIVE.search(sentence):
                cut = sentence[:MAX_STANDING_CHARS]
                if cut in found:
                    found.remove(cut)
                found.append(cut)
    return found[-MAX_STANDING:]


def instructions_block(instructions: str | None, standing: Sequence[str]) -> str:
    """The ``<compaction-instructions>`` block for a summarizer request, or ``""``."""
    parts: list[str] = []
    if instructions and instructions.strip():
        parts.append(instructions.strip())
    if standing:
        quoted = "\n".join(f'- "{s}"' for s in standing)
        parts.append(f"The user said, earlier in the conversation:\n{quoted}")
    if not parts:
        return ""
    return "<compaction-instructions>\n" + "\n\n".join(parts) + "\n</compaction-instructions>"

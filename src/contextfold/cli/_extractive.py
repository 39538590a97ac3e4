"""An offline, extractive summarizer that speaks :class:`CompletionTransport`.

:class:`ExtractiveSummarizer` is what ``contextfold compact`` uses when no model is
configured. It is not a language model: it reads the transcript that compaction
sends it (``<transcript>`` entries labelled ``[user]``, ``[assistant]``, ``[tool
call ...]``, ``[tool result]``, ``[tool error]``, plus an optional
``<previous-summary>``) and *extracts* the standard summary sections from it: the
user's requests, sentences that state decisions or constraints, file paths and URLs
with the tools that touched them, error lines and failed tool calls, the latest
state, the next step, and exact identifiers. Because it answers like a transport,
it plugs into :func:`~contextfold.compaction.compact_context` unchanged.

Guarantees: deterministic output for the same request; every line of the summary is
copied (possibly shortened) from the request, never invented; the text stays under
``max_summary_chars``; a previous summary is merged (its items kept, newest items
added), so repeated compactions anchor on it instead of drifting. The custom prompt
in ``system`` is ignored: the sections are fixed, and the reply is always inside
``<summary>`` tags (compaction unwraps them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter, count_tokens
from contextfold.transports.base import Completion, ModelInfo, ToolSpec, Usage

__all__ = ["SECTIONS", "ExtractiveSummarizer"]

_MIN_CAPPED_CHARS = 200

SECTIONS = (
    "User requests and intent",
    "Decisions and constraints",
    "Files and artifacts",
    "Errors and dead ends",
    "Current state",
    "Pending work and next step",
    "Exact identifiers",
)
# How many items each section keeps (a merged summary keeps the newest ones).
_CAPS = (12, 12, 30, 12, 4, 4, 40)
_ITEM_CHARS = 240

_ENTRY = re.compile(r"\n\n(?=\[(?:user|assistant|system)\] )")
_PART = re.compile(r"^\[(tool call (?P<name>[^\]]+)|tool result|tool error)\] ?", re.MULTILINE)
_TAG = "<{0}>\n(?P<body>.*?)\n</{0}>"
_PATH = re.compile(
    r"(?<![\w@/.-])(?:https?://[^\s'\"`<>)\]]+|(?:\.{0,2}/)?(?:[\w@-]+(?:\.[\w-]+)*/)*"
    r"[\w@-]+(?:\.[\w-]+)*\.(?:py|pyi|js|jsx|ts|tsx|json|jsonl|ya?ml|toml|ini|cfg|md|rst|txt|"
    r"csv|sql|sh|go|rs|java|kt|c|h|cc|cpp|hpp|rb|php|html|css|lock|env|log|db|xml))(?![\w/])"
)
_ERROR_LINE = re.compile(
    r"(\b\w*(Error|Exception)\b|Traceback|\bFAIL(ED)?\b|\bfailed\b|\berror:|\bpanic\b"
    r"|exit code [1-9])"
)
_DECISION = re.compile(
    r"\b(must|must not|should|shouldn't|don't|do not|never|always|prefer|decided|decide|"
    r"instead|avoid|keep|only|require[sd]?|constraint|without|rather than|going with)\b",
    re.IGNORECASE,
)
_NEXT = re.compile(r"\b(next|then|todo|remaining|still need|will|going to|plan)\b", re.IGNORECASE)
_IDENTIFIER = re.compile(
    r"`([^`\n]{2,80})`"
    r"|\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b"
    r"|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b"
    r"|\b(v?\d+\.\d+(?:\.\d+)+)\b"
    r"|\b([0-9a-f]{7,40})\b"
    r"|\b((?:[A-Z]{2,}|[a-z]+)[-_]\d{2,})\b"
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(slots=True)
class _Entry:
    role: str
    kind: str  # "text", "call", "result" or "error"
    text: str
    tool: str = ""


@dataclass(slots=True)
class _Sections:
    items: list[list[str]] = field(default_factory=lambda: [[] for _ in SECTIONS])

    def add(self, index: int, item: str) -> None:
        item = _shorten(item)
        if item and item not in self.items[index]:
            self.items[index].append(item)

    def render(self, max_chars: int) -> str:
        caps = list(_CAPS)
        while True:
            text = self._render(caps)
            if len(text) <= max_chars or max(caps) <= 1:
                return text if len(text) <= max_chars else text[: max_chars - 3] + "..."
            caps = [max(1, c * 3 // 4) for c in caps]

    def _render(self, caps: Sequence[int]) -> str:
        out: list[str] = []
        for title, items, cap in zip(SECTIONS, self.items, caps, strict=True):
            # The first request is the task itself; beyond the cap keep it plus the newest.
            kept = items if len(items) <= cap else [items[0], *items[len(items) - cap + 1 :]]
            body = "\n".join(f"- {item}" for item in kept[:cap]) if kept else "None."
            out.append(f"## {title}\n{body}")
        return "\n\n".join(out)


def _shorten(text: str, limit: int = _ITEM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _parse_transcript(body: str) -> list[_Entry]:
    entries: list[_Entry] = []
    for raw in _ENTRY.split(body.strip()):
        role, _, rest = raw.partition("] ")
        role = role.lstrip("[")
        matches = list(_PART.finditer(rest))
        head = rest[: matches[0].start()] if matches else rest
        if head.strip():
            entries.append(_Entry(role, "text", head.strip()))
        for i, match in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(rest)
            text = rest[match.end() : end].strip()
            if match.group("name"):
                entries.append(_Entry(role, "call", text, match.group("name")))
            else:
                kind = "error" if match.group(1) == "tool error" else "result"
                entries.append(_Entry(role, kind, text))
    return entries


def _entries_from_messages(messages: Sequence[Message]) -> list[_Entry]:
    """Entries straight from message blocks (a request that is not a transcript)."""
    entries: list[_Entry] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                entries.append(_Entry(message.role, "text", block.text))
            elif isinstance(block, ToolUseBlock):
                entries.append(_Entry(message.role, "call", json.dumps(block.input), block.name))
            elif isinstance(block, ToolResultBlock):
                text = block.content if isinstance(block.content, str) else ""
                if not isinstance(block.content, str):
                    text = "\n".join(p.text for p in block.content if isinstance(p, TextBlock))
                entries.append(_Entry(message.role, "error" if block.is_error else "result", text))
    return entries


def _parse_previous(text: str, sections: _Sections) -> None:
    current: int | None = None
    for line in text.splitlines():
        heading = line.strip().lstrip("#").strip()
        if line.startswith("#") and heading in SECTIONS:
            current = SECTIONS.index(heading)
        elif current is not None and line.startswith("- "):
            sections.add(current, line[2:])


def _extract(entries: Sequence[_Entry], sections: _Sections) -> None:
    requests, decisions, files, errors, state, pending, identifiers = range(len(SECTIONS))
    touched: dict[str, list[str]] = {}
    tokens: list[str] = []
    last_call: _Entry | None = None
    last_text: _Entry | None = None
    for entry in entries:
        if entry.kind == "text" and entry.role == "user":
            sections.add(requests, entry.text)
        if entry.kind == "text":
            last_text = entry
            for sentence in _SENTENCE.split(entry.text):
                if _DECISION.search(sentence) and len(sentence.split()) >= 3:
                    sections.add(decisions, sentence)
        if entry.kind == "call":
            last_call = entry
        if entry.kind == "error":
            lines = [ln for ln in entry.text.splitlines() if ln.strip()]
            first = next((ln for ln in lines if _ERROR_LINE.search(ln)), lines[0] if lines else "")
            sections.add(errors, f"tool error: {first}")
        elif entry.kind == "result":
            lines = [ln for ln in entry.text.splitlines() if _ERROR_LINE.search(ln)]
            for line in lines[:3]:
                sections.add(errors, line)
        for path in _PATH.findall(entry.text):
            actions = touched.setdefault(path.rstrip(".,:;"), [])
            label = {"call": entry.tool, "error": "in an error"}.get(entry.kind, "mentioned")
            if label not in actions:
                actions.append(label)
        # Tool output is bulky; its identifiers count only on lines that report errors.
        source = entry.text
        if entry.kind == "result":
            source = "\n".join(ln for ln in entry.text.splitlines() if _ERROR_LINE.search(ln))
        for match in _IDENTIFIER.finditer(source):
            tokens.append(next(g for g in match.groups() if g))
    for token in tokens:  # a fragment of a file path is not worth a line of its own
        if not any(token in path for path in touched):
            sections.add(identifiers, f"`{token}`")
    # Files something was done to first; a bare name is dropped when its full path is known.
    ordered = sorted(touched.items(), key=lambda kv: kv[1] == ["mentioned"])
    for path, actions in ordered:
        if "/" not in path and any(p.endswith("/" + path) for p in touched):
            continue
        sections.add(files, f"`{path}`: {', '.join(actions)}")
    if last_text is not None:
        sections.add(state, f"last {last_text.role} message: {last_text.text}")
    if last_call is not None:
        sections.add(state, f"last tool call: {last_call.tool} {last_call.text}")
    for entry in reversed(entries):
        if entry.kind == "text" and entry.role == "assistant":
            for sentence in _SENTENCE.split(entry.text):
                if _NEXT.search(sentence):
                    sections.add(pending, sentence)
            break
    for entry in reversed(entries):
        if entry.kind == "text" and entry.role == "user":
            sections.add(pending, f"latest user request: {entry.text}")
            break


class ExtractiveSummarizer:
    """A :class:`~contextfold.transports.base.CompletionTransport` that summarizes offline.

    ``complete`` returns a Markdown summary with the standard sections (see the module
    docstring) extracted from the last user message of the request; it never calls
    tools, never refuses and never raises for ordinary text. Usage is estimated with
    the heuristic counter (``Usage.estimated`` is true). ``requests`` counts calls.
    """

    def __init__(self, *, max_summary_chars: int = 12_000, window: int = 1_000_000) -> None:
        if max_summary_chars < 500:
            raise ValueError(f"max_summary_chars must be at least 500, got {max_summary_chars}")
        self.max_summary_chars = max_summary_chars
        self._model = ModelInfo("contextfold-extractive", window, 32_000)
        self.requests = 0

    @property
    def model(self) -> ModelInfo:
        return self._model

    def summarize(self, messages: Sequence[Message]) -> str:
        """The summary for a request's messages (the work behind :meth:`complete`)."""
        return self._summary(messages, self.max_summary_chars)

    def _summary(self, messages: Sequence[Message], max_chars: int) -> str:
        sections = _Sections()
        last = messages[-1].text if messages else ""
        previous = re.search(_TAG.format("previous-summary"), last, re.DOTALL)
        if previous:
            _parse_previous(previous.group("body"), sections)
            # The latest state and next step are replaced, not accumulated.
            sections.items[4].clear()
            sections.items[5].clear()
        transcript = re.search(_TAG.format("transcript"), last, re.DOTALL)
        if transcript:
            entries = _parse_transcript(transcript.group("body"))
        else:
            entries = _entries_from_messages(messages)
        _extract(entries, sections)
        return sections.render(max_chars)

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> Completion:
        """The summary, inside ``<summary>`` tags as the built-in prompts ask.

        ``max_output_tokens`` lowers the character limit to three characters a token.
        """
        self.requests += 1
        limit = self.max_summary_chars
        if max_output_tokens is not None:
            limit = min(limit, max(_MIN_CAPPED_CHARS, max_output_tokens * 3))
        text = f"<summary>\n{self._summary(messages, limit)}\n</summary>"
        usage = Usage(
            count_tokens(messages, approx_token_counter, system=system),
            approx_token_counter(text),
            estimated=True,
        )
        return Completion([TextBlock(text)], "end_turn", usage, self._model.name)

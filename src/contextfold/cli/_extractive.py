"""An offline, extractive summarizer that speaks :class:`CompletionTransport`.

:class:`ExtractiveSummarizer` is what ``contextfold compact`` (and ``contextfold
fidelity``) use when no model is configured. It is not a language model: it reads the
transcript that compaction sends it (``<transcript>`` entries labelled ``[user]``,
``[assistant]``, ``[tool call ...]``, ``[tool result]``, ``[tool error]``, plus an
optional ``<previous-summary>``) and *extracts* the sections the built-in prompts ask
for (rules in :mod:`contextfold.compaction._rules`): the user's requests, instructions and
corrections, decisions, the state of every artifact a tool touched (created, modified,
deleted or read; tests passed or failed since the change; a ticket's status),
errors, commitments, the latest state, the next step, and exact identifiers ranked by
who said them. Because it answers like a transport, it plugs into
:func:`~contextfold.compaction.compact_context` unchanged.

Guarantees: deterministic output for the same request; every line of the summary is
copied (possibly shortened) from the request, never invented; the text stays under
``max_summary_chars``; a previous summary is merged section by section (artifacts
updated in place, the current state and next step replaced, everything else kept with
the newest items added), so repeated compactions anchor on it instead of drifting.
When the text must shrink, what matters least goes first: files only mentioned or
read before files changed, tool-output identifiers before the agent's, the agent's
before the user's. The custom prompt in ``system`` is ignored: the sections are fixed,
and the reply is always inside ``<summary>`` tags (compaction unwraps them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from contextfold.blocks import TextBlock
from contextfold.compaction._rules import (
    Facts,
    entries_from_messages,
    extract,
    read_entries,
    shorten,
)
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter, count_tokens
from contextfold.transports.base import Completion, ModelInfo, ToolSpec, Usage

__all__ = ["SECTIONS", "ExtractiveSummarizer"]

_MIN_CAPPED_CHARS = 200

SECTIONS = (
    "User requests and intent",
    "User instructions and corrections",
    "Decisions and constraints",
    "Files and artifacts",
    "Errors and dead ends",
    "Commitments, blockers and open questions",
    "Current state",
    "Pending work and next step",
    "Exact identifiers",
)
# How many items a section keeps (the newest; requests keep the first, the task, too).
_CAPS = {"requests": 12, "instructions": 24, "decisions": 12, "files": 40, "errors": 12}
_CAPS |= {"commitments": 10, "identifiers": 60}
_ITEM_CHARS = 240
_SOURCES = (("user", "from the user"), ("agent", "from the agent"), ("tool", "from tool output"))
_CHANGED = ("created", "modified", "deleted", "status", "set by")

_LATEST = "latest user request: "
_TAG = "<{0}>\n(?P<body>.*?)\n</{0}>"
_FILE_LINE = re.compile(r"^`(?P<path>[^`]+)`: (?P<actions>[^;]*)(?:; (?P<tests>.*))?$")
_TICKED = re.compile(r"`([^`]+)`")


def _newest(items: list[str], cap: int, *, keep_first: bool = False) -> list[str]:
    if len(items) <= cap:
        return items
    if keep_first:
        return [items[0], *items[len(items) - cap + 1 :]] if cap > 1 else items[:1]
    return items[len(items) - cap :]


def _merge(old: list[str], new: list[str]) -> list[str]:
    return old + [item for item in new if item not in old]


def _parse_previous(text: str) -> Facts:
    facts = Facts()
    lists = {0: facts.requests, 1: facts.instructions, 2: facts.decisions, 4: facts.errors}
    lists |= {5: facts.commitments}
    current: int | None = None
    for line in text.splitlines():
        heading = line.strip().lstrip("#").strip()
        if line.startswith("#") and heading in SECTIONS:
            current = SECTIONS.index(heading)
        elif current is not None and line.startswith("- "):
            item = line[2:]
            if current in lists:
                lists[current].append(item)
            elif current == 3 and (found := _FILE_LINE.match(item)):
                facts.artifacts[found["path"]] = found["actions"].split(", ")
                if found["tests"]:
                    facts.tests[found["path"]] = found["tests"]
            elif current == 8:
                for key, label in _SOURCES:
                    if item.startswith(label + ": "):
                        facts.identifiers[key] += _TICKED.findall(item)
    return facts


def _combine(old: Facts, new: Facts) -> Facts:
    """``old`` (a previous summary) updated with ``new``: lists merged, artifacts updated
    in place, the current state and next step replaced."""
    merged = Facts(
        requests=_merge(old.requests, new.requests),
        instructions=_merge(old.instructions, new.instructions),
        decisions=_merge(old.decisions, new.decisions),
        errors=_merge(old.errors, new.errors),
        commitments=_merge(old.commitments, new.commitments),
        state=new.state,
        pending=new.pending,
    )
    for path in [*old.artifacts, *new.artifacts]:
        merged.artifacts[path] = _merge(old.artifacts.get(path, []), new.artifacts.get(path, []))
        tests = new.tests.get(path) or old.tests.get(path)
        if tests:
            merged.tests[path] = tests
    for key, _ in _SOURCES:
        merged.identifiers[key] = [
            t for t in old.identifiers[key] if t not in new.identifiers[key]
        ] + new.identifiers[key]
    return merged


def _file_rank(actions: list[str]) -> int:
    if any(a.startswith(_CHANGED) or " (set by " in a for a in actions):
        return 0
    return 1 if "read" in actions else 2


def _files(facts: Facts, cap: int) -> list[str]:
    paths = list(facts.artifacts)
    # a bare name is dropped when its full path is known
    paths = [p for p in paths if "/" in p or not any(q.endswith("/" + p) for q in paths)]
    kept: list[str] = []
    for rank in (0, 1, 2):
        ranked = [p for p in paths if _file_rank(facts.artifacts[p]) == rank]
        kept += _newest(ranked, max(cap - len(kept), 0))
    lines = []
    for path in paths:
        if path in kept:
            tests = facts.tests.get(path)
            actions = ", ".join(facts.artifacts[path])
            lines.append(f"`{path}`: {actions}" + (f"; {tests}" if tests else ""))
    return lines


def _identifiers(facts: Facts, cap: int) -> list[str]:
    paths = list(facts.artifacts)
    seen: set[str] = set()
    lines = []
    for key, label in _SOURCES:
        tokens = []
        for token in facts.identifiers[key]:
            if token in seen or any(token in path for path in paths):
                continue  # said already, or a fragment of a file path listed above
            seen.add(token)
            tokens.append(token)
        if tokens:
            lines.append(f"{label}: " + ", ".join(f"`{t}`" for t in _newest(tokens, cap)))
    return lines


def _pointer(item: str, requests: list[str]) -> str:
    """A pending item that only repeats the newest request points to it instead."""
    if requests and item == f"{_LATEST}{requests[-1]}":
        return f"{_LATEST}the last one under User requests and intent"
    return item


def _render(facts: Facts, scale: float) -> str:
    def cap(name: str) -> int:
        return max(1, int(_CAPS[name] * scale))

    bodies = [
        [
            shorten(i, _ITEM_CHARS)
            for i in _newest(facts.requests, cap("requests"), keep_first=True)
        ],
        [shorten(i, _ITEM_CHARS) for i in _newest(facts.instructions, cap("instructions"))],
        [shorten(i, _ITEM_CHARS) for i in _newest(facts.decisions, cap("decisions"))],
        _files(facts, cap("files")),
        [shorten(i, _ITEM_CHARS) for i in _newest(facts.errors, cap("errors"))],
        [shorten(i, _ITEM_CHARS) for i in _newest(facts.commitments, cap("commitments"))],
        [shorten(i, _ITEM_CHARS) for i in facts.state],
        [shorten(_pointer(i, facts.requests), _ITEM_CHARS) for i in facts.pending[:4]],
        _identifiers(facts, cap("identifiers")),
    ]
    out = []
    for title, items in zip(SECTIONS, bodies, strict=True):
        body = "\n".join(f"- {item}" for item in items) if items else "None."
        out.append(f"## {title}\n{body}")
    return "\n\n".join(out)


def _render_within(facts: Facts, max_chars: int) -> str:
    scale = 1.0
    while True:
        text = _render(facts, scale)
        if len(text) <= max_chars or scale < 0.05:
            return text if len(text) <= max_chars else text[: max_chars - 3] + "..."
        scale *= 0.75


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
        last = messages[-1].text if messages else ""
        transcript = re.search(_TAG.format("transcript"), last, re.DOTALL)
        if transcript:
            facts = extract(read_entries(transcript.group("body")))
        else:
            facts = extract(entries_from_messages(messages))
        previous = re.search(_TAG.format("previous-summary"), last, re.DOTALL)
        if previous:
            facts = _combine(_parse_previous(previous.group("body")), facts)
        return _render_within(facts, max_chars)

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

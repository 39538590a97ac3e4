"""The summarization agent: what it is sent, how it is budgeted, what it may answer.

The summarizer never sees the agent's history as-is. Its copy is a plain-text
transcript in which images and documents become placeholders, thinking is dropped
and huge tool outputs are cut to head + tail. Content cannot pass for the request's own
structure: a line that starts like an entry label (``[user]``) is escaped with a
backslash, and our tags (``</transcript>``, ``<compaction-instructions>`` ...) with
``&lt;``, so a fetched page cannot speak for the user or end the transcript. The
request is budgeted against the summarizer's *own* window; a transcript that does not
fit is summarized in chunks, each chunk updating a running summary. A previous summary
is the anchor of the next one.

Every request carries an output cap, the summary budget plus slack
(:func:`~contextfold.compaction._verdict.summary_allowance`), through
:func:`~contextfold.transports.base.complete_with_cap`. Every reply passes
:func:`~contextfold.compaction._verdict.check_summary` before it is used: an empty,
refused, truncated, unfinished, tool-calling, untagged (a model answering a prompt
that asks for ``<summary>`` tags) or over-long reply raises
:class:`~contextfold.errors.SummaryRejectedError`. Lone surrogates are repaired in
everything sent and in the summary (see :mod:`~contextfold.compaction._verdict`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from contextfold._cancel import cancelled
from contextfold._history import truncate_text
from contextfold._otel import summarizer_span
from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.compaction._userwords import parse_user_words, render_user_words
from contextfold.compaction._verdict import (
    asks_for_tags,
    check_summary,
    repair_text,
    summary_allowance,
)
from contextfold.context import Archiving
from contextfold.errors import CompactionError, TransportError
from contextfold.messages import Message
from contextfold.prompts import Prompt, builtin_prompt
from contextfold.tokens import TokenCounter
from contextfold.transports.base import (
    Completion,
    CompletionTransport,
    ToolSpec,
    Usage,
    complete_with_cap,
    model_of,
)

TRUNCATION_MARKER = "\n...[truncated for the summary]...\n"
KEPT_TRUNCATION_MARKER = "\n...[truncated by contextfold to fit the context window]...\n"
# Our token estimates are heuristics; leave this share of the window unused.
SAFETY_MARGIN = 0.1
_ENTRY_OVERHEAD = 8
_MIN_CHUNK_TOKENS = 256


@dataclass(frozen=True, slots=True)
class SummaryRun:
    """The outcome of summarizing: the text, what it cost, how many requests it took."""

    text: str
    usage: Usage
    requests: int


ARCHIVE_NOTE = " The full transcript of the compacted part is archived."
"""The ``{archive_note}`` of the summary message when the store keeps an archive."""


def keeps_archive(store: object) -> bool:
    """Whether ``store`` keeps an archive of what compaction replaces."""
    return isinstance(store, Archiving)


def render_summary_message(
    summary: str,
    *,
    quotes: Sequence[str] = (),
    left_out: bool = False,
    archived: bool = False,
) -> Message:
    """The summary message: our wrapper around ``summary``, then the user's own words
    (``quotes``, oldest first, see :mod:`._userwords`) in a section we render."""
    note = ARCHIVE_NOTE if archived else ""
    text = builtin_prompt("summary_message").render(summary=summary, archive_note=note)
    words = render_user_words(quotes, left_out)
    return Message("user", [TextBlock(f"{text}\n\n{words}" if words else text)])


def acknowledgement() -> Message:
    return Message("assistant", [TextBlock(builtin_prompt("acknowledgement").render())])


def parse_summary_message(message: Message) -> tuple[str, list[str]] | None:
    """The summary text and the user's quoted words if ``message`` is a summary message
    made by an earlier compaction, else ``None``.

    Only the exact wrapper that :func:`render_summary_message` writes is recognised,
    so a user who quotes ``<summary>`` tags is never mistaken for a summary.
    """
    if message.role != "user" or len(message.content) != 1:
        return None
    text = message.text
    for prefix, suffix in _summary_wrappers():
        if not text.startswith(prefix) or len(text) < len(prefix) + len(suffix):
            continue
        if text.endswith(suffix):
            return text[len(prefix) : len(text) - len(suffix)], []
        # The summary ends at the first closing tag that a valid section of the user's
        # words follows (either may quote "</summary>").
        end = text.find(suffix + "\n\n", len(prefix))
        while end >= 0:
            quotes = parse_user_words(text[end + len(suffix) + 2 :])
            if quotes is not None:
                return text[len(prefix) : end], quotes
            end = text.find(suffix + "\n\n", end + 1)
    return None


def previous_summary(message: Message) -> str | None:
    """The summary text if ``message`` is a summary message (see :func:`parse_summary_message`)."""
    parsed = parse_summary_message(message)
    return None if parsed is None else parsed[0]


@cache
def _summary_wrappers() -> tuple[tuple[str, str], ...]:
    sentinel = "\x00contextfold-summary\x00"
    wrappers = []
    for note in ("", ARCHIVE_NOTE):
        rendered = builtin_prompt("summary_message").render(summary=sentinel, archive_note=note)
        prefix, _, suffix = rendered.partition(sentinel)
        wrappers.append((prefix, suffix))
    # Summaries written by contextfold before the wrapper changed stay recognised, so a
    # store compacted by an older version is updated, not summarized as a user message.
    wrappers.append((_LEGACY_PREFIX, "\n</summary>"))
    return tuple(wrappers)


_LEGACY_PREFIX = (
    "This session continues earlier work. The earlier part of the conversation was compacted\n"
    "into the summary below; the messages after it are the most recent ones, unchanged.\n"
    "Continue from where the work left off, without asking the user to repeat anything.\n\n"
    "<summary>\n"
)


# A line of content that starts like one of our entry labels would read as a new entry
# (a web page saying "[user] ..." would speak for the user); it is escaped with a "\\".
_LABEL_AT_LINE_START = re.compile(
    r"^(?=\[(?:user|assistant|system|tool call [^\]\n]*|tool result|tool error)\])", re.MULTILINE
)


# Our own tags in content (a file or page that quotes them) would end the transcript or
# the previous summary early, or open instructions of their own; their "<" is escaped.
_OUR_TAG = re.compile(r"<(?=/?(?:transcript|previous-summary|compaction-instructions)>)")


def _escape(text: str) -> str:
    """Content as a transcript shows it: it cannot start an entry of its own, nor open
    or close one of the request's sections."""
    return _OUR_TAG.sub("&lt;", _LABEL_AT_LINE_START.sub("\\\\", text))


def _describe(block: ContentBlock, max_tool_chars: int) -> str | None:
    match block:
        case TextBlock(text=text):
            return _escape(text)
        case ImageBlock(media_type=media_type, data=data):
            return f"[image omitted: {media_type}, {len(data):,} bytes]"
        case ThinkingBlock():
            return None
        case OpaqueBlock():
            return _escape(block.placeholder())
        case ToolUseBlock(name=name, input=input_):
            args = truncate_text(
                json.dumps(input_, ensure_ascii=False), max_tool_chars, TRUNCATION_MARKER
            )
            args = _OUR_TAG.sub("&lt;", args)
            return f"[tool call {name}] {args}"
        case ToolResultBlock(content=content, is_error=is_error):
            if isinstance(content, str):
                text = content
            else:
                text = "\n".join(
                    part.text if isinstance(part, TextBlock) else _describe(part, 0) or ""
                    for part in content
                )
            label = "[tool error]" if is_error else "[tool result]"
            return f"{label} {_escape(truncate_text(text, max_tool_chars, TRUNCATION_MARKER))}"
    return None


def transcript_entries(messages: Sequence[Message], max_tool_chars: int) -> list[str]:
    """One labelled, sanitized text per message (messages with nothing to show are skipped)."""
    entries: list[str] = []
    for message in messages:
        parts = [p for b in message.content if (p := _describe(b, max_tool_chars))]
        if parts:
            entries.append(repair_text(f"[{message.role}] " + "\n".join(parts)))
    return entries


def _text_of(message: Message) -> str:
    """The readable text of a message the summarizer is sent (what a summary can name)."""
    parts = [p for b in message.content if (p := _describe(b, 10**9))]
    return "\n".join(parts)


class Summarizer:
    """Turns an old part of a history into a summary through ``transport``."""

    def __init__(
        self,
        transport: CompletionTransport,
        *,
        prompt: Prompt,
        update_prompt: Prompt,
        chunk_prompt: Prompt | None = None,
        counter: TokenCounter,
        max_summary_tokens: int,
        max_tool_chars: int,
        prompt_vars: dict[str, object],
    ) -> None:
        self.transport = transport
        self.prompt = prompt
        self.update_prompt = update_prompt
        # Chunks 2..N of a first summary extend a partial summary of the same stretch;
        # they are not an update of an older summary.
        self.chunk_prompt = chunk_prompt or update_prompt
        self.counter = counter
        self.max_tool_chars = max_tool_chars
        self.prompt_vars = prompt_vars
        model = model_of(transport)
        self.max_summary_tokens = min(max_summary_tokens, model.max_output_tokens)
        self.max_reply_tokens = summary_allowance(self.max_summary_tokens)
        """The most tokens a summary may count (the budget plus slack)."""
        self.output_cap = min(self.max_reply_tokens, model.max_output_tokens)
        """The ``max_output_tokens`` sent with every request."""
        # Replies written by a person (stub transports) need not follow the prompt's format.
        self.strict = getattr(transport, "scripted", False) is not True
        self.input_budget = int(model.input_budget * (1 - SAFETY_MARGIN))
        self.usage = Usage(0, 0)
        """What every request this summarizer made has cost so far."""
        self.requests = 0

    def _system(self, prompt: Prompt) -> str:
        rendered = prompt.render(max_summary_tokens=self.max_summary_tokens, **self.prompt_vars)
        return repair_text(rendered)

    async def _ask(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        system: str | None,
        instructions: str,
    ) -> tuple[str, Usage]:
        """One capped request; its usage is counted, its reply checked (see the module doc).

        ``instructions`` is the prompt text that says what format to answer in.

        A :class:`asyncio.CancelledError` from the transport while this task is not
        being cancelled (some libraries raise it on their own internal timeouts) is a
        failed request like any other: it is raised as
        :class:`~contextfold.errors.TransportError`, so it ends this summary attempt
        and never the caller's turn. A cancellation of this task (the caller's, or the
        ``summary_timeout`` expiring) goes on as a cancellation.
        """
        model = model_of(self.transport)
        with summarizer_span(type(self.transport).__name__, model.name, self.output_cap) as span:
            try:
                completion: Completion = await complete_with_cap(
                    self.transport, messages, tools, system, max_output_tokens=self.output_cap
                )
            except asyncio.CancelledError:
                if cancelled():
                    raise
                raise TransportError(
                    f"the summarizer's transport ({type(self.transport).__name__}) raised "
                    "CancelledError though nothing cancelled it (a library's own timeout, "
                    "say); this summary attempt failed",
                    model=model.name,
                ) from None
            span(
                completion.usage.input_tokens,
                completion.usage.output_tokens,
                str(completion.stop_reason),
            )
        self.usage = self.usage + completion.usage
        self.requests += 1
        source = "\n".join(_text_of(m) for m in messages).replace(instructions, "")
        summary = check_summary(
            completion,
            tagged=asks_for_tags(instructions),
            strict=self.strict,
            counter=self.counter,
            max_tokens=self.max_reply_tokens,
            source=source,
        )
        return summary, completion.usage

    def _cut_to_tokens(self, text: str, tokens: int) -> str:
        """``text`` cut to head + tail so the counter gives it at most ``tokens``.

        The characters a token holds are measured on ``text`` itself (CJK, code and JSON
        pack very differently from English), then checked; a few rounds converge.
        """
        cut = text
        for _ in range(6):
            cost = self.counter(cut)
            if cost <= tokens:
                return cut
            chars = int(tokens * len(cut) / max(cost, 1) * 0.95)
            cut = truncate_text(text, max(min(chars, len(cut) - 1), 0), TRUNCATION_MARKER)
        return cut

    def _fit_summary(self, summary: str, system: str) -> str:
        """The running summary, cut to head + tail if it alone would crowd out the transcript."""
        room = (self.input_budget - self.counter(system)) // 2
        if self.counter(summary) <= room:
            return summary
        return self._cut_to_tokens(summary, room)

    def _take_chunk(self, entries: list[str], start: int, budget: int) -> tuple[list[str], int]:
        """Entries from ``start`` that fit ``budget`` tokens (at least one, cut if needed)."""
        group: list[str] = []
        used = 0
        index = start
        while index < len(entries):
            entry = entries[index]
            cost = self.counter(entry) + _ENTRY_OVERHEAD
            if cost > budget and not group:
                entry = self._cut_to_tokens(entry, budget - _ENTRY_OVERHEAD)
                cost = budget
            elif used + cost > budget:
                break
            group.append(entry)
            used += cost
            index += 1
        return group, index

    async def summarize(
        self, messages: Sequence[Message], previous: str | None, *, instructions: str = ""
    ) -> SummaryRun:
        """Summarize ``messages`` (updating ``previous`` if given), chunk by chunk.

        The first request uses the summary prompt (the update prompt when there is a
        ``previous`` summary), later chunks the chunk prompt of a first summary or the
        update prompt of an update. ``instructions`` (a ``<compaction-instructions>``
        block) follows the transcript in every request.

        Each request is budgeted against the summarizer's own window, counting the
        system prompt and the running summary it actually carries. Usage of every
        request made is added to :attr:`usage` as it happens, so a failure part-way
        still reports what was spent.
        """
        entries = transcript_entries(messages, self.max_tool_chars)
        if not entries and previous is None:
            raise CompactionError("nothing to summarize: the old part has no content")
        summary = None if previous is None else repair_text(previous)
        later = self.update_prompt if previous is not None else self.chunk_prompt
        extra = "" if not instructions else "\n\n" + repair_text(instructions)
        start = 0
        while start < len(entries) or start == 0:
            prompt = self.prompt if summary is None else later
            system = self._system(prompt)
            # The previous or running summary may quote our tags (a model copies content).
            anchor = (
                "" if summary is None else _OUR_TAG.sub("&lt;", self._fit_summary(summary, system))
            )
            budget = (
                self.input_budget
                - self.counter(system)
                - self.counter(anchor)
                - self.counter(extra)
                - 64
            )
            if budget < _MIN_CHUNK_TOKENS:
                window = model_of(self.transport).context_window
                if self.counter(extra) > self.input_budget // 2:
                    raise CompactionError(
                        f"the compaction instructions (~{self.counter(extra):,} tokens) leave "
                        f"no room for the transcript in the summarizer's window ({window} "
                        "tokens); shorten them"
                    )
                raise CompactionError(
                    f"the summarizer's window ({window} tokens) is "
                    "too small for its prompt and summary; use a summary_transport with a larger "
                    "window or lower max_summary_tokens"
                )
            group, start = self._take_chunk(entries, start, budget)
            transcript = "<transcript>\n" + "\n\n".join(group) + "\n</transcript>"
            body = (
                transcript
                if summary is None
                else f"<previous-summary>\n{anchor}\n</previous-summary>\n\n{transcript}"
            )
            summary, _ = await self._ask([Message.user(body + extra)], (), system, system)
            if not entries:
                break
        assert summary is not None
        return SummaryRun(summary, self.usage, self.requests)

    async def continue_prefix(
        self,
        prefix: Sequence[Message],
        system: str | None,
        tools: Sequence[ToolSpec],
        instruction: Prompt,
        *,
        instructions: str = "",
    ) -> SummaryRun:
        """Cache-friendly mode: the agent's own prefix with the summary instruction
        (and ``instructions``, a ``<compaction-instructions>`` block) appended."""
        text = self._system(instruction)
        if instructions:
            text = f"{text}\n\n{repair_text(instructions)}"
        request = [m.copy() for m in prefix]
        if request and request[-1].role == "user":
            request[-1].content.append(TextBlock(text))
        else:
            request.append(Message.user(text))
        summary, usage = await self._ask(request, tools, system, text)
        return SummaryRun(summary, usage, 1)

"""Check a history against the rules Anthropic and OpenAI enforce.

:func:`history_problems` lists every violation; :func:`validate_history` raises
:class:`~contextfold.errors.HistoryValidationError` listing them. Compaction, the
strategies and the proxy all use it, and so can you before sending a history you
built by hand.

Rules (``dialect="any"`` applies the union of both providers' rules):

* the first non-system message is a user message;
* no two assistant messages follow each other (system messages are transparent);
* no message is empty; in the Anthropic dialect no text block is empty;
* user messages hold text, images and tool results; assistant messages hold text,
  thinking and tool uses; system messages hold text only; opaque blocks (content
  nobody models, carried as it came) may sit in any of them;
* every tool use is answered, in the very next non-system message, by a tool result
  with its id (unless ``allow_pending`` and it is the last message), and every tool
  result answers a tool use of the message right before it, exactly once; an opaque
  call (an :class:`~contextfold.blocks.OpaqueBlock` with a ``call_id``) and its
  opaque output follow the same rule;
* tool use ids are unique; in the Anthropic dialect, tool results come before any
  other block of their message;
* the thinking rule (Anthropic dialect, when thinking is on: ``thinking=True``, or by
  default when the history holds a thinking block): in the
  turn in progress (after the last user message that is not tool results), when it
  uses tools, the first assistant message starts with its thinking block, as
  Anthropic requires of the current tool-use cycle when thinking is enabled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.errors import HistoryValidationError
from contextfold.messages import Message

__all__ = ["Dialect", "has_thinking", "history_problems", "validate_history"]

Dialect = Literal["any", "anthropic", "openai"]

# Whether each rule set includes Anthropic's own rules (no empty text block, tool
# results first, the thinking rule); OpenAI adds none of its own.
_ANTHROPIC_RULES: dict[str, bool] = {"any": True, "anthropic": True, "openai": False}

_ALLOWED = {
    "user": (TextBlock, ImageBlock, ToolResultBlock, OpaqueBlock),
    "assistant": (TextBlock, ThinkingBlock, ToolUseBlock, OpaqueBlock),
    "system": (TextBlock, OpaqueBlock),
}


def result_ids(message: Message) -> list[str]:
    """The call ids the tool results (and opaque outputs) of ``message`` answer, in order."""
    return [
        b.tool_use_id if isinstance(b, ToolResultBlock) else b.call_id
        for b in message.content
        if isinstance(b, ToolResultBlock | OpaqueBlock) and _is_result(b)
    ]


def use_ids(message: Message) -> list[str]:
    """The ids of the tool uses (and opaque calls) of ``message``, in order."""
    return [
        b.id if isinstance(b, ToolUseBlock) else b.call_id
        for b in message.content
        if isinstance(b, ToolUseBlock)
        or (isinstance(b, OpaqueBlock) and b.call_id and not b.is_result)
    ]


def _is_result(block: ContentBlock) -> bool:
    return isinstance(block, ToolResultBlock) or (
        isinstance(block, OpaqueBlock) and bool(block.call_id) and block.is_result
    )


def history_problems(
    messages: Sequence[Message],
    dialect: Dialect = "any",
    *,
    allow_pending: bool = False,
    thinking: bool | None = None,
) -> list[str]:
    """Every rule ``messages`` breaks, as readable strings (empty when valid).

    ``thinking`` says whether the provider has extended thinking on (for the thinking
    rule); ``None`` infers it from the history holding any thinking block.
    """
    anthropic = _ANTHROPIC_RULES.get(dialect)
    if anthropic is None:
        raise ValueError(f"dialect must be 'any', 'anthropic' or 'openai', got {dialect!r}")
    problems: list[str] = []
    seen_ids: set[str] = set()
    previous: Message | None = None  # previous non-system message
    pending: dict[str, int] = {}  # tool use id -> index of the assistant message
    last_index = len(messages) - 1

    for i, message in enumerate(messages):
        if not message.content:
            problems.append(f"message {i} ({message.role}) is empty")
        elif anthropic and any(isinstance(b, TextBlock) and not b.text for b in message.content):
            problems.append(f"message {i}: a text block is empty")
        for block in message.content:
            if not isinstance(block, _ALLOWED[message.role]):
                problems.append(
                    f"message {i}: {message.role} messages cannot hold {type(block).__name__}"
                )
        if message.role == "system":
            continue

        results = result_ids(message) if message.role == "user" else []
        if pending:
            answered = set(results)
            missing = [tid for tid in pending if tid not in answered]
            if missing:
                problems.append(
                    f"message {i}: tool call(s) {', '.join(missing)} from message "
                    f"{pending[missing[0]]} have no result in the next message"
                )
        seen_results: set[str] = set()
        for result in results:
            if result not in pending:
                problems.append(
                    f"message {i}: tool result {result!r} answers no tool call "
                    "in the previous message"
                )
            elif result in seen_results:
                problems.append(f"message {i}: tool call {result!r} is answered more than once")
            seen_results.add(result)
        if anthropic and results:
            first_other = next(
                (k for k, b in enumerate(message.content) if not isinstance(b, ToolResultBlock)),
                len(message.content),
            )
            if any(isinstance(b, ToolResultBlock) for b in message.content[first_other:]):
                problems.append(f"message {i}: tool results must come before other blocks")
        pending = {}

        if previous is None and message.role != "user":
            problems.append(f"message {i}: the first non-system message must be a user message")
        if previous is not None and previous.role == "assistant" == message.role:
            problems.append(f"message {i}: two assistant messages in a row")

        if message.role == "assistant":
            for use in use_ids(message):
                if use in seen_ids:
                    problems.append(f"message {i}: duplicate tool use id {use!r}")
                seen_ids.add(use)
                pending[use] = i
        previous = message

    if anthropic:
        problems.extend(_thinking_problems(messages, thinking))
    if pending and not allow_pending:
        index = next(iter(pending.values()))
        if index == last_index or all(m.role == "system" for m in messages[index + 1 :]):
            problems.append(
                f"message {index}: tool call(s) {', '.join(pending)} are pending at the end"
            )
    return problems


def _is_prompt(message: Message) -> bool:
    """A user message that opens a turn (not one carrying tool results)."""
    return message.role == "user" and not result_ids(message)


def has_thinking(messages: Sequence[Message]) -> bool:
    """Whether any message of ``messages`` holds a thinking block."""
    return any(isinstance(b, ThinkingBlock) for m in messages for b in m.content)


def _thinking_problems(messages: Sequence[Message], thinking: bool | None) -> list[str]:
    """The thinking rule of the turn in progress (see the module docstring)."""
    if not (has_thinking(messages) if thinking is None else thinking):
        return []
    start = max((i for i, m in enumerate(messages) if _is_prompt(m)), default=-1)
    turn = [(i, m) for i, m in enumerate(messages) if i > start and m.role == "assistant"]
    if not turn or not any(use_ids(m) for _, m in turn):
        return []
    first, message = turn[0]
    if message.content and isinstance(message.content[0], ThinkingBlock):
        return []
    return [
        f"message {first}: the assistant turn in progress uses tools but does not start "
        "with its thinking block (Anthropic rejects it when thinking is enabled)"
    ]


def validate_history(
    messages: Sequence[Message],
    dialect: Dialect = "any",
    *,
    allow_pending: bool = False,
    thinking: bool | None = None,
) -> None:
    """Raise :class:`HistoryValidationError` if ``messages`` breaks any rule above.

    ``allow_pending`` accepts a history whose last message is an assistant turn
    whose tool calls have not been answered yet (an agent about to run them).
    """
    problems = history_problems(messages, dialect, allow_pending=allow_pending, thinking=thinking)
    if problems:
        raise HistoryValidationError(problems)

"""Messages: a role and a list of content blocks.

Conventions shared by every part of contextfold:

* ``user`` messages carry text and images;
* ``assistant`` messages carry text, thinking and tool uses;
* tool results travel in a separate ``user`` message made of
  :class:`~contextfold.blocks.ToolResultBlock` s;
* ``system`` messages may appear anywhere in a history and are never dropped;
* content nobody models travels as :class:`~contextfold.blocks.OpaqueBlock` s, in
  any role, exactly as it came.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, get_args

from contextfold.blocks import (
    ContentBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    check_block,
    from_dict,
    to_dict,
)

__all__ = ["Message", "Role", "check_message", "check_messages"]


def _json_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_copy(v) for v in value]
    return value


def _isolated(block: ContentBlock) -> ContentBlock:
    if isinstance(block, ToolUseBlock):
        return ToolUseBlock(block.id, block.name, _json_copy(block.input))
    if isinstance(block, ToolResultBlock) and isinstance(block.content, list):
        parts = [_isolated(part) for part in block.content]
        return ToolResultBlock(block.tool_use_id, parts, block.is_error)  # type: ignore[arg-type]
    if isinstance(block, OpaqueBlock):
        return OpaqueBlock(
            block.kind, _json_copy(block.data), block.dialect, block.call_id, block.is_result
        )
    return block


Role = Literal["user", "assistant", "system"]
_ROLES: frozenset[str] = frozenset(get_args(Role))


def _is_role(value: object) -> TypeGuard[Role]:
    return isinstance(value, str) and value in _ROLES


@dataclass(slots=True)
class Message:
    """One turn of a conversation.

    Construction checks the role (``ValueError``) and that ``content`` is a list of
    :class:`~contextfold.blocks.ContentBlock` (``TypeError``).
    """

    role: Role
    content: list[ContentBlock] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not _is_role(self.role):
            raise ValueError(
                f"message role must be one of user, assistant, system; got {self.role!r}"
            )
        # A string here would silently become a list of characters later on.
        if not isinstance(self.content, list):
            raise TypeError(
                f"message content must be a list of content blocks, "
                f"got {type(self.content).__name__}"
            )
        for block in self.content:
            if not isinstance(block, ContentBlock):
                raise TypeError(f"message content holds a non-block: {block!r}")

    @classmethod
    def user(cls, text: str) -> Message:
        """A user message holding one text block."""
        return cls("user", [TextBlock(text)])

    @classmethod
    def assistant(cls, text: str) -> Message:
        """An assistant message holding one text block."""
        return cls("assistant", [TextBlock(text)])

    @classmethod
    def system(cls, text: str) -> Message:
        """A system message holding one text block."""
        return cls("system", [TextBlock(text)])

    @property
    def text(self) -> str:
        """The message's text blocks joined by newlines (tool results and thinking excluded)."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        """The tool calls this message requests."""
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    @property
    def tool_results(self) -> list[ToolResultBlock]:
        """The tool results this message carries."""
        return [b for b in self.content if isinstance(b, ToolResultBlock)]

    @property
    def has_thinking(self) -> bool:
        return any(isinstance(b, ThinkingBlock) for b in self.content)

    def copy(self) -> Message:
        """A copy that shares nothing mutable with this message.

        Blocks are frozen and shared, except the ones holding mutable values: a tool
        call's ``input`` dict and a tool result's list content are copied too, so
        changing a copy (or the original) never changes the other.
        """
        return Message(self.role, [_isolated(b) for b in self.content])

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict form: ``{"role": ..., "content": [block dicts]}``."""
        return {"role": self.role, "content": [to_dict(b) for b in self.content]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Message:
        """Parse the dict form, raising :class:`ValueError` naming any defect."""
        if not isinstance(d, Mapping):
            raise ValueError(f"message must be a dict, got {type(d).__name__}")
        role = d.get("role")
        if role is None:
            raise ValueError("message is missing field 'role'")
        if not _is_role(role):
            raise ValueError(f"message role must be one of user, assistant, system; got {role!r}")
        content = d.get("content", [])
        if not isinstance(content, list):
            raise ValueError(
                f"message field 'content' must be a list of blocks, got {type(content).__name__}"
            )
        return cls(role, [from_dict(b) for b in content])


def check_message(message: object, *, index: int | None = None) -> None:
    """Raise :class:`ValueError` unless ``message`` reads back equal from its dict form.

    Every store calls this before writing, so a message it could not read back is
    refused at ``append`` / ``replace_history`` time rather than breaking every later
    read. Checks that ``message`` is a :class:`Message` with one of the three roles and
    a list of blocks (a subclass of :class:`Message` is refused: it would read back
    as a plain one), and each block with :func:`~contextfold.blocks.check_block`.
    The error names the message (``index`` when the caller passes a list), the block
    and the field, e.g. ``cannot store message 3 (user): block 0: ToolResultBlock
    field 'tool_use_id' must be str, got NoneType``.
    """
    where = "this message" if index is None else f"message {index}"
    if type(message) is not Message:  # a subclass would read back as a Message
        raise ValueError(f"cannot store {where}: expected a Message, got {type(message).__name__}")
    role, content = message.role, message.content
    if not _is_role(role):
        raise ValueError(
            f"cannot store {where}: field 'role' must be one of user, assistant, system; "
            f"got {role!r}"
        )
    if not isinstance(content, list):
        raise ValueError(
            f"cannot store {where} ({role}): field 'content' must be a list of content "
            f"blocks, got {type(content).__name__}"
        )
    for i, block in enumerate(content):
        try:
            check_block(block)
        except ValueError as exc:
            raise ValueError(f"cannot store {where} ({role}): block {i}: {exc}") from None


def check_messages(messages: Sequence[object]) -> None:
    """:func:`check_message` on each of ``messages``, naming the first bad one by index."""
    for i, message in enumerate(messages):
        check_message(message, index=i)

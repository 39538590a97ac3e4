"""Hypothesis strategies for contextfold's data: blocks, messages and valid histories.

Shared by every property test in the suite (round-trips, validation, compaction,
strategies). Three levels:

* :func:`blocks` / :func:`messages` — *arbitrary* blocks and messages (any role with
  any block), for serialisation round-trips;
* :func:`user_messages`, :func:`assistant_messages`, ... — single messages that follow
  the conventions of :mod:`contextfold.messages`;
* :func:`histories` — whole transcripts that pass
  :func:`contextfold.validation.validate_history`: user turns with text and images,
  assistant turns with thinking and text, tool loops with several parallel calls
  whose results come back in any order (string or list content, ``is_error``), and
  system messages at the start and between turns.

>>> from hypothesis import given
>>> @given(histories(min_size=4, max_size=30))
... def test_split_keeps_pairs(history): ...
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from contextfold.blocks import (
    IMAGE_MEDIA_TYPES,
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.messages import Message

__all__ = [
    "TOOL_NAMES",
    "assistant_messages",
    "blocks",
    "histories",
    "image_blocks",
    "json_values",
    "messages",
    "text_blocks",
    "texts",
    "thinking_blocks",
    "tool_result_blocks",
    "tool_use_blocks",
    "user_messages",
]

# A long history takes tens of milliseconds to draw; on a busy CI machine that can trip
# Hypothesis's "too slow" health check and per-example deadline, which measure the
# machine, not our code. Tests that use these strategies run under this profile.
settings.register_profile(
    "contextfold", suppress_health_check=[HealthCheck.too_slow], deadline=None
)
settings.load_profile("contextfold")

TOOL_NAMES = ("read_file", "grep", "run_tests", "search_web", "write_file")


@cache  # building a strategy is costly; each one is reused on every draw
def texts(*, min_size: int = 1, max_size: int = 60) -> st.SearchStrategy[str]:
    """Text of any Unicode (surrogates excluded, so it always encodes to JSON/UTF-8)."""
    return st.text(st.characters(exclude_categories=("Cs",)), min_size=min_size, max_size=max_size)


@cache
def json_values(*, max_leaves: int = 8) -> st.SearchStrategy[Any]:
    """Any JSON value (finite floats only), nested lists and objects included."""
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-(2**53), 2**53)
        | st.floats(allow_nan=False, allow_infinity=False)
        | texts(min_size=0, max_size=20)
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(texts(max_size=10), inner, max_size=3)
        ),
        max_leaves=max_leaves,
    )


@cache
def tool_inputs() -> st.SearchStrategy[dict[str, Any]]:
    """A tool call's arguments: a JSON object, usually with identifier-like keys."""
    keys = st.sampled_from(["path", "query", "n", "flags", "options"]) | texts(max_size=8)
    return st.dictionaries(keys, json_values(max_leaves=4), max_size=3)


@cache
def _simple_tool_inputs() -> st.SearchStrategy[dict[str, Any]]:
    # Flat arguments, as most real tool calls have; far cheaper to draw than
    # tool_inputs(), which matters inside long histories.
    value = texts(min_size=0, max_size=30) | st.integers(-1000, 1000) | st.booleans()
    keys = st.sampled_from(["path", "query", "n", "flags", "pattern", "content"])
    return st.dictionaries(keys, value, max_size=3)


@cache
def text_blocks(*, max_text: int = 60) -> st.SearchStrategy[TextBlock]:
    return st.builds(TextBlock, texts(max_size=max_text))


@cache
def image_blocks() -> st.SearchStrategy[ImageBlock]:
    return st.builds(ImageBlock, st.sampled_from(sorted(IMAGE_MEDIA_TYPES)), st.binary(max_size=48))


@cache
def thinking_blocks() -> st.SearchStrategy[ThinkingBlock]:
    return st.builds(
        ThinkingBlock,
        texts(max_size=80),
        st.text("abcdefABCDEF0123456789+/=", max_size=24),
        st.booleans(),
    )


def tool_use_blocks(
    ids: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[ToolUseBlock]:
    return st.builds(
        ToolUseBlock,
        ids if ids is not None else texts(max_size=16),
        st.sampled_from(TOOL_NAMES) | texts(max_size=16),
        tool_inputs(),
    )


def tool_result_blocks(
    tool_use_id: str | st.SearchStrategy[str] | None = None, *, max_text: int = 60
) -> st.SearchStrategy[ToolResultBlock]:
    """A tool result: string content or a list of text/image parts, maybe an error."""
    if tool_use_id is None:
        ids: st.SearchStrategy[str] = texts(max_size=16)
    elif isinstance(tool_use_id, str):
        ids = st.just(tool_use_id)
    else:
        ids = tool_use_id
    return st.builds(ToolResultBlock, ids, _result_contents(max_text), st.booleans())


@cache
def _result_contents(max_text: int) -> st.SearchStrategy[str | list[TextBlock | ImageBlock]]:
    return texts(min_size=0, max_size=max_text) | st.lists(
        text_blocks(max_text=max_text) | image_blocks(), max_size=3
    )


@cache
def blocks() -> st.SearchStrategy[ContentBlock]:
    """Any content block of any kind."""
    return st.one_of(
        text_blocks(),
        image_blocks(),
        thinking_blocks(),
        tool_use_blocks(),
        tool_result_blocks(),
    )


@cache
def messages() -> st.SearchStrategy[Message]:
    """Any message: any role, any blocks (not necessarily a valid conversation turn)."""
    return st.builds(
        Message, st.sampled_from(["user", "assistant", "system"]), st.lists(blocks(), max_size=5)
    )


@cache
def user_messages(*, with_images: bool = True, max_text: int = 60) -> st.SearchStrategy[Message]:
    """A user turn: text, and images when ``with_images``; never empty."""
    part = text_blocks(max_text=max_text)
    if with_images:
        part = part | image_blocks()
    first = text_blocks(max_text=max_text)
    return st.builds(
        lambda head, rest: Message("user", [head, *rest]), first, st.lists(part, max_size=2)
    )


@st.composite
def assistant_messages(
    draw: st.DrawFn,
    tool_ids: list[str] | None = None,
    *,
    with_thinking: bool = True,
    thinking_first: bool = False,
    max_text: int = 60,
) -> Message:
    """An assistant turn: optional thinking, text, then a tool use for each of ``tool_ids``.

    Without tool ids it holds at least one text block; with ``thinking_first`` it
    always starts with a thinking block.
    """
    content: list[ContentBlock] = []
    if thinking_first or (with_thinking and draw(st.booleans())):
        content.append(draw(thinking_blocks()))
    if not tool_ids or draw(st.booleans()):
        content.append(draw(text_blocks(max_text=max_text)))
    for tool_id in tool_ids or []:
        content.append(
            ToolUseBlock(tool_id, draw(st.sampled_from(TOOL_NAMES)), draw(_simple_tool_inputs()))
        )
    return Message("assistant", content)


@st.composite
def histories(
    draw: st.DrawFn,
    *,
    min_size: int = 0,
    max_size: int = 20,
    with_system: bool = True,
    allow_pending: bool = False,
    with_images: bool = True,
    with_thinking: bool = True,
    max_parallel_tools: int = 3,
    max_text: int = 60,
) -> list[Message]:
    """A valid transcript of ``min_size`` to ``max_size`` messages.

    It passes ``validate_history(history, allow_pending=allow_pending)`` in every
    dialect. With ``with_system`` it may open with a system message and carry more
    system messages between turns (never inside a tool call/result pair). With
    ``allow_pending`` it may end on an assistant message whose tool calls are not
    answered yet. Tool use ids are unique across the whole history.
    """
    if not 0 <= min_size <= max_size:
        raise ValueError(f"need 0 <= min_size <= max_size, got {min_size}, {max_size}")
    target = draw(st.integers(min_size, max_size))
    history: list[Message] = []
    pending: list[str] = []  # ids the last assistant message asked for, not yet answered
    state = "start"  # start | user | tool_results | assistant_text | assistant_tools
    id_prefix = draw(st.sampled_from(["toolu_", "call_", "t"]))
    next_id = 0
    # A session thinks or does not; when it does, the assistant message that opens a
    # turn starts with its thinking (Anthropic's rule), later ones in the turn may.
    thinking = with_thinking and draw(st.booleans())

    def system_message() -> Message:
        return Message("system", [draw(text_blocks(max_text=max_text))])

    while len(history) < target:
        remaining = target - len(history)
        at_turn_boundary = state in ("start", "assistant_text", "tool_results")
        if with_system and at_turn_boundary and draw(st.integers(0, 5)) == 0:
            history.append(system_message())
            continue
        if state in ("start", "assistant_text"):
            history.append(draw(user_messages(with_images=with_images, max_text=max_text)))
            state = "user"
        elif state == "assistant_tools":
            order = draw(st.permutations(pending))
            results = [
                ToolResultBlock(tool_id, draw(_result_contents(max_text)), draw(st.booleans()))
                for tool_id in order
            ]
            history.append(Message("user", list(results)))
            pending = []
            state = "tool_results"
        elif state == "tool_results" and draw(st.integers(0, 7)) == 0:
            # A new user turn straight after tool results (e.g. after max_iterations).
            history.append(draw(user_messages(with_images=with_images, max_text=max_text)))
            state = "user"
        else:  # after a user message or tool results: the assistant answers
            may_call_tools = remaining >= 2 or allow_pending
            n_calls = draw(st.integers(0, max_parallel_tools)) if may_call_tools else 0
            ids = [f"{id_prefix}{next_id + k}" for k in range(n_calls)]
            next_id += n_calls
            opens_turn = state == "user"
            history.append(
                draw(
                    assistant_messages(
                        ids,
                        with_thinking=thinking,
                        thinking_first=thinking and opens_turn,
                        max_text=max_text,
                    )
                )
            )
            pending = ids
            state = "assistant_tools" if ids else "assistant_text"
    return history

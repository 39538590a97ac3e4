"""Hypothesis strategies: histories every wire format can carry, for round trips."""

from __future__ import annotations

from hypothesis import strategies as st

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.messages import Message

_text = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="[<"), max_size=20)
_ids = st.text(alphabet="abcdef0123456789", min_size=1, max_size=8)
_images = st.builds(
    ImageBlock, st.sampled_from(["image/png", "image/jpeg"]), st.binary(max_size=16)
)
_inputs = st.dictionaries(_text, st.integers() | _text | st.booleans(), max_size=3)


@st.composite
def histories(draw: st.DrawFn, *, anthropic: bool) -> list[Message]:
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(Message.system(draw(_text.filter(bool))))
    for _ in range(draw(st.integers(1, 4))):
        user: list[ContentBlock] = [TextBlock(draw(_text))]
        user += draw(st.lists(_images | st.builds(TextBlock, _text), max_size=2))
        messages.append(Message("user", user))
        if draw(st.booleans()):
            messages.append(Message.system(draw(_text)))
        assistant: list[ContentBlock] = []
        if anthropic and draw(st.booleans()):
            redacted = draw(st.booleans())
            signature = "" if redacted else draw(_text)
            assistant.append(ThinkingBlock(draw(_text), signature, redacted))
        assistant.append(TextBlock(draw(_text)))
        ids = draw(st.lists(_ids, max_size=3, unique=True))
        assistant += [ToolUseBlock(i, draw(_text), draw(_inputs)) for i in ids]
        messages.append(Message("assistant", assistant))
        if ids and draw(st.booleans()):
            messages.append(Message.system(draw(_text)))
        if ids:
            results: list[ContentBlock] = []
            for i in ids:
                if anthropic:
                    content: str | list[TextBlock | ImageBlock] = draw(
                        _text | st.lists(_images | st.builds(TextBlock, _text), max_size=2)
                    )
                    results.append(ToolResultBlock(i, content, draw(st.booleans())))
                elif draw(st.booleans()):
                    error = draw(st.booleans())
                    text = ("Error: " if error else "") + draw(_text)
                    results.append(ToolResultBlock(i, text, error))
                else:  # images only
                    shots = draw(st.lists(_images, min_size=1, max_size=2))
                    results.append(ToolResultBlock(i, list(shots), draw(st.booleans())))
            messages.append(Message("user", results))
    return messages

"""The byte-size bound that lets a body far under its limit skip parsing."""

from __future__ import annotations

import json

from contextfold.proxy._bound import SizeBound
from contextfold.tokens import DEFAULT_TOKENS_PER_MEDIA


def body(content: object, model: str = "m") -> bytes:
    return json.dumps({"model": model, "messages": [{"role": "user", "content": content}]}).encode()


def test_media_parts_count_whole_however_few_bytes_they_take() -> None:
    bound = SizeBound(lambda model: 10_000)
    plain = body("x" * 400)
    assert bound.estimate(plain) == int(len(plain) * 0.25)
    image = {"type": "image_url", "image_url": {"url": "https://e.x/a.png"}}
    for parts in ([image] * 3, [{"type": "image", "source": {}}] * 3):
        with_media = body(parts)
        least = int(len(with_media) * 0.25) + 3 * DEFAULT_TOKENS_PER_MEDIA
        assert bound.estimate(with_media) >= least
    # typed parts that are no media add nothing
    typed = body([{"type": "text", "text": "x" * 400}])
    assert bound.estimate(typed) == int(len(typed) * 0.25)


def test_a_few_bytes_of_media_are_not_far_under_while_the_same_bytes_of_text_are() -> None:
    bound = SizeBound(lambda model: 10_000)
    image = {"type": "image_url", "image_url": {"url": "https://e.x/a.png"}}
    media = body([image] * 10)
    text = body("y" * len(media))
    assert bound.far_under(media) is None  # 10 images: far over 10,000 / 2
    assert bound.far_under(text) is not None


def test_bodies_the_bound_cannot_vouch_for_are_parsed() -> None:
    bound = SizeBound(lambda model: 1_000_000 if model == "big" else 100)
    assert bound.far_under(body("hi", model="big")) is not None
    twice = b'{"model": "big", "messages": [{"role": "user", "content": "x"}], "model": "m"}'
    assert bound.far_under(twice) is None  # which "model" counts is the parser's call
    quoted = body('say "model" and "messages"', model="big")  # escaped inside a string
    assert bound.far_under(quoted) is not None
    assert bound.far_under(b'["model", "messages"]') is None
    assert bound.far_under(body("x" * 2_000, model="small")) is None  # over its own limit

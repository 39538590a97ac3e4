"""The byte-size bound that lets a body far under its limit skip parsing."""

from __future__ import annotations

import json

from contextfold.proxy._bound import SizeBound
from contextfold.tokens import DEFAULT_TOKENS_PER_MEDIA

T = "tenant"


def body(content: object, model: str = "m") -> bytes:
    return json.dumps({"model": model, "messages": [{"role": "user", "content": content}]}).encode()


def test_media_parts_count_whole_however_few_bytes_they_take() -> None:
    bound = SizeBound(lambda model, tenant: 10_000)
    plain = body("x" * 400)
    assert bound.estimate(plain, T) == int(len(plain) * 0.25)
    image = {"type": "image_url", "image_url": {"url": "https://e.x/a.png"}}
    for parts in ([image] * 3, [{"type": "image", "source": {}}] * 3):
        with_media = body(parts)
        least = int(len(with_media) * 0.25) + 3 * DEFAULT_TOKENS_PER_MEDIA
        assert bound.estimate(with_media, T) >= least
    # typed parts that are no media add nothing
    typed = body([{"type": "text", "text": "x" * 400}])
    assert bound.estimate(typed, T) == int(len(typed) * 0.25)


def test_a_few_bytes_of_media_are_not_far_under_while_the_same_bytes_of_text_are() -> None:
    bound = SizeBound(lambda model, tenant: 10_000)
    image = {"type": "image_url", "image_url": {"url": "https://e.x/a.png"}}
    media = body([image] * 10)
    text = body("y" * len(media))
    assert bound.far_under(media, T) is None  # 10 images: far over 10,000 / 2
    assert bound.far_under(text, T) is not None


def test_bodies_the_bound_cannot_vouch_for_are_parsed() -> None:
    bound = SizeBound(lambda model, tenant: 1_000_000 if model == "big" else 100)
    assert bound.far_under(body("hi", model="big"), T) is not None
    twice = b'{"model": "big", "messages": [{"role": "user", "content": "x"}], "model": "m"}'
    assert bound.far_under(twice, T) is None  # which "model" counts is the parser's call
    quoted = body('say "model" and "messages"', model="big")  # escaped inside a string
    assert bound.far_under(quoted, T) is not None
    assert bound.far_under(b'["model", "messages"]', T) is None
    assert bound.far_under(body("x" * 2_000, model="small"), T) is None  # over its own limit


_PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_media_parts_with_escaped_keys_are_not_far_under() -> None:
    # JSON reads "\\u0074ype" as "type": twenty data-URL images (600 tokens each once
    # parsed, 12,000 in all) in 3.5 KB were called far under a limit of 10,000.
    bound = SizeBound(lambda model, tenant: 10_000)
    url = '{"url": "' + _PNG + '"}'
    escaped_type = '{"\\u0074ype": "image_url", "image_url": ' + url + "}"
    escaped_marker = '{"type": "\\u0069mage_url", "\\u0069mage_url": ' + url + "}"
    data = _PNG.split(",")[1]
    anthropic = (
        '{"\\u0074ype": "image", "source": {"\\u0074ype": "base64", '
        '"media_type": "image/png", "data": "' + data + '"}}'
    )
    for part in (escaped_type, escaped_marker, anthropic):
        parts = ", ".join([part] * 20)
        raw = (
            '{"model": "m", "messages": [{"role": "user", "content": [' + parts + "]}]}"
        ).encode()
        parsed = json.loads(raw)["messages"][0]["content"]
        assert parsed[0]["type"] in ("image_url", "image")  # what the parser sees
        assert bound.far_under(raw, T) is None


def test_a_model_named_twice_with_one_key_escaped_is_parsed() -> None:
    # JSON keeps the last "model" ("small", limit 10); the bound read the first.
    bound = SizeBound(lambda model, tenant: 1_000_000 if model == "big" else 10)
    raw = (
        b'{"model": "big", "messages": [{"role": "user", "content": "hi"}], "\\u006dodel": "small"}'
    )
    assert json.loads(raw)["model"] == "small"
    assert bound.far_under(raw, T) is None
    messages_twice = (
        b'{"model": "big", "messages": [], "\\u006dessages": [{"role": "user", "content": "hi"}]}'
    )
    assert bound.far_under(messages_twice, T) is None


def test_escapes_that_spell_no_key_do_not_force_a_parse() -> None:
    bound = SizeBound(lambda model, tenant: 1_000_000)
    raw = json.dumps(
        {"model": "m", "messages": [{"role": "user", "content": "caf\u00e9 <b> \u4e2d"}]}
    )
    assert "\\u00e9" in raw
    assert "\\u4e2d" in raw
    assert bound.far_under(raw.encode(), T) is not None
    go_style = raw.replace("<", "\\u003c").replace(">", "\\u003e").encode()
    assert bound.far_under(go_style, T) is not None


def test_what_one_tenants_usage_teaches_bounds_its_own_requests_only() -> None:
    bound = SizeBound(lambda model, tenant: 10_000, max_bytes=500)  # two tenants' ratios
    raw = body("x" * 5_000)
    assert bound.far_under(raw, "a") is not None
    bound.learn(raw, len(raw), "a")  # a token a byte: dense text
    assert bound.tokens_per_byte("a") == 1.0
    assert bound.far_under(raw, "a") is None  # a's requests of that size are parsed
    assert bound.far_under(raw, "b") is not None  # b's are not: b learnt nothing
    assert bound.tokens_per_byte("b") == 0.25
    bound.learn(raw, len(raw) // 2, "b")
    bound.learn(raw, len(raw) // 2, "c")  # a third: the least recently taught is forgotten
    half = (len(raw) // 2) / len(raw)
    assert [bound.tokens_per_byte(t) for t in "abc"] == [0.25, half, half]
    assert bound.nbytes <= 500

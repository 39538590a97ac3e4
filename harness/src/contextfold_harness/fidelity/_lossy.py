"""A summarizer that behaves like a model dropping details, for measuring the ledger.

:class:`LossySummarizer` writes the offline extractive summary of each request and then
keeps only a seeded share of its facts: every bullet line (``- ...``) and every
identifier of the "Exact identifiers" lists survives with probability ``keep``,
drawn afresh for every request (the draw is seeded by ``seed`` and the request's
text, so a run is reproducible while two compactions drop different things, as a
model's two summaries would). Headings stay. It is what ``bench/fidelity.py`` calls
"lossy": a model that names a random 35 % of the facts it is shown.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence

from contextfold.blocks import TextBlock
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold.messages import Message
from contextfold.transports.base import Completion, ModelInfo, ToolSpec

__all__ = ["LossySummarizer"]

_TICKED = re.compile(r"`[^`\n]+`")


class LossySummarizer:
    """The extractive summary with a random ``1 - keep`` of its facts left out."""

    def __init__(self, *, keep: float = 0.35, seed: int = 0) -> None:
        if not 0.0 <= keep <= 1.0:
            raise ValueError(f"keep must be between 0 and 1, got {keep!r}")
        self.keep = keep
        self.seed = seed
        self._inner = ExtractiveSummarizer()
        self._model = ModelInfo(f"lossy-{round(keep * 100)}", 1_000_000, 32_000)

    @property
    def model(self) -> ModelInfo:
        return self._model

    def drop(self, text: str, request: str) -> str:
        """``text`` with a random ``1 - keep`` of its facts left out, drawn from
        ``seed`` and the ``request``."""
        digest = hashlib.sha256(request.encode("utf-8", "surrogatepass")).hexdigest()
        rng = random.Random(f"{self.seed}:{digest}")
        out: list[str] = []
        for line in text.splitlines():
            if not line.startswith("- "):
                out.append(line)
                continue
            ticked = _TICKED.findall(line)
            if line.startswith("- from ") and len(ticked) > 1:  # an identifier list
                kept = [t for t in ticked if rng.random() < self.keep]
                if kept:
                    out.append(line.split(":", 1)[0] + ": " + ", ".join(kept))
            elif rng.random() < self.keep:
                out.append(line)
        return "\n".join(out)

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> Completion:
        full = await self._inner.complete(
            messages, tools, system, max_output_tokens=max_output_tokens
        )
        request = "\n".join(m.text for m in messages)
        text = self.drop(full.text, request)
        return Completion([TextBlock(text)], "end_turn", full.usage, self._model.name)

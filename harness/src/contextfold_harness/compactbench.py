"""contextfold's compaction as a CompactBench ``Compactor`` (the harness's 'compactbench' extra).

`CompactBench <https://pypi.org/project/compactbench/>`_ scores compaction methods: it
hands a method a transcript, asks a model questions with only the method's artifact
as context, and repeats over drift cycles. :class:`ContextfoldCompactor` runs
contextfold's summarizer (the built-in prompts, chunking, the checks a summary must
pass, the user's verbatim words) on CompactBench's transcript, through CompactBench's
own provider (:class:`ProviderTransport`), and returns a validated
``CompactionArtifact``:

* ``summary_text``: the summary, then the user's own messages word for word (newest
  first while they fit), cut to CompactBench's 8,000 characters;
* ``structured_state``: the summary's sections mapped onto CompactBench's
  (instructions and decisions to ``locked_decisions``, prohibitions among them to
  ``forbidden_behaviors``, identifiers to ``immutable_facts``, pending work to
  ``deferred_items``, commitments, blockers and open questions to
  ``unresolved_items``);
* on a drift cycle, the previous artifact's summary is the anchor and only the turns
  since it are summarized (``method_metadata`` carries both);
* a transcript with nothing said yet gives an empty artifact, without a model call.

Run it against a real model with CompactBench's command line, whose ``--method`` takes
``FILE.py:ClassName`` (``python -m contextfold_harness.compactbench`` prints it), from a checkout
of the CompactBench repository (it holds the suites, ``benchmarks/public``), with the
provider's key in the environment (``GROQ_API_KEY`` here)::

    pip install 'contextfold-harness[compactbench]'
    compactbench run --method "$(python -m contextfold_harness.compactbench)" \\
        --provider groq --model llama-3.3-70b-versatile --output results.jsonl
    compactbench score --results results.jsonl
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from contextfold.blocks import TextBlock
from contextfold.compaction import CompactionSettings
from contextfold.compaction._engine import make_summarizer
from contextfold.compaction._userwords import (
    choose_verbatim,
    instructions_block,
    render_user_words,
    standing_instructions,
    user_texts,
)
from contextfold.messages import Message
from contextfold.transports.base import Completion, ModelInfo, ToolSpec, Usage

try:
    from compactbench.compactors import Compactor
    from compactbench.contracts import CompactionArtifact, StructuredState, Transcript
    from compactbench.providers import CompletionRequest, Provider
except ImportError as exc:  # said the way contextfold's own extras say it
    if (exc.name or "compactbench").partition(".")[0] != "compactbench":
        raise
    raise ImportError(
        "contextfold_harness.compactbench needs the 'compactbench' extra: "
        f"pip install 'contextfold-harness[compactbench]' (missing module {exc.name!r})",
        name=exc.name,
    ) from exc

__all__ = ["ContextfoldCompactor", "ProviderTransport", "artifact_state"]

_SUMMARY_CHARS = 8_000
_ITEM_CHARS = 500
_MAX_ITEMS = 200
_FORBIDDEN = re.compile(r"\b(never|must not|mustn't|do not|don't|no longer|forbidden)\b", re.I)
_HEADING = re.compile(r"^#+\s*(.+?)\s*$")


class ProviderTransport:
    """A :class:`~contextfold.transports.base.CompletionTransport` over a CompactBench
    ``Provider``: the messages become one prompt (the summarizer sends one message),
    ``system`` and the output cap pass through; usage is the provider's."""

    def __init__(self, provider: Provider, model: ModelInfo) -> None:
        self.provider = provider
        self.model = model

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> Completion:
        if len(messages) == 1:
            prompt = messages[0].text
        else:
            prompt = "\n\n".join(f"{m.role.upper()}: {m.text}" for m in messages)
        request = CompletionRequest(
            model=self.model.name,
            prompt=prompt,
            system=system,
            max_tokens=max_output_tokens or self.model.max_output_tokens,
            temperature=0.0,
        )
        response = await self.provider.complete(request)
        usage = Usage(response.prompt_tokens, response.completion_tokens)
        return Completion([TextBlock(response.text)], "end_turn", usage, response.model)


def _sections(summary: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in summary.splitlines():
        heading = _HEADING.match(line)
        if heading:
            current = sections.setdefault(heading.group(1).lower(), [])
        elif current is not None and line.strip() and line.strip().lower() != "none.":
            current.append(line.strip().removeprefix("- ").strip())
    return sections


def _items(values: Sequence[str]) -> list[str]:
    kept = [v[:_ITEM_CHARS] for v in values if v.strip()]
    return list(dict.fromkeys(kept))[:_MAX_ITEMS]


def artifact_state(summary: str) -> StructuredState:
    """CompactBench's structured state from the Markdown sections of ``summary``."""
    sections = _sections(summary)

    def take(*names: str) -> list[str]:
        return [item for name in names for item in sections.get(name, [])]

    rules = take("user instructions and corrections", "decisions and constraints")
    return StructuredState(
        immutable_facts=_items(take("exact identifiers")),
        locked_decisions=_items([r for r in rules if not _FORBIDDEN.search(r)]),
        forbidden_behaviors=_items([r for r in rules if _FORBIDDEN.search(r)]),
        deferred_items=_items(take("pending work and next step")),
        unresolved_items=_items(take("commitments, blockers and open questions")),
    )


class ContextfoldCompactor(Compactor):
    """contextfold's summarizer as a CompactBench method (see the module docstring).

    ``config`` (CompactBench passes it per call) may set ``context_window`` and
    ``max_output_tokens`` of the model (default 128,000 and 8,192), and
    ``max_summary_tokens``, ``user_message_budget`` (tokens) and ``instructions`` of
    :class:`~contextfold.compaction.CompactionSettings`.
    """

    name: ClassVar[str] = "contextfold"
    version: ClassVar[str] = "1.0.0"

    async def compact(
        self,
        transcript: Transcript,
        config: dict[str, Any] | None = None,
        previous_artifact: CompactionArtifact | None = None,
    ) -> CompactionArtifact:
        config = dict(config or {})
        info = ModelInfo(
            self.model,
            int(config.get("context_window", 128_000)),
            int(config.get("max_output_tokens", 8_192)),
        )
        settings = CompactionSettings(
            max_summary_tokens=int(config.get("max_summary_tokens", 1_500)),
            user_message_budget=int(config.get("user_message_budget", 600)),
            instructions=config.get("instructions"),
        )
        opts = settings.options()
        transport = ProviderTransport(self.provider, info)
        summarizer = make_summarizer(transport, opts)
        meta = previous_artifact.method_metadata if previous_artifact is not None else {}
        # an empty anchor (an empty transcript before) covers nothing: start afresh
        previous = meta.get("summary") if isinstance(meta.get("summary"), str) else None
        previous = previous or None
        done = int(meta.get("turns", 0)) if previous is not None else 0
        turns = transcript.turns[done:] if done < len(transcript.turns) else []
        messages = [Message(t.role.value, [TextBlock(t.content)]) for t in turns]
        all_messages = [Message(t.role.value, [TextBlock(t.content)]) for t in transcript.turns]
        said = user_texts(all_messages)
        if previous is None and not any(m.text.strip() for m in messages):
            # nothing said yet: an empty artifact, not an error that ends the benchmark run
            return CompactionArtifact(
                selectedSourceTurnIds=[t.id for t in transcript.turns],
                methodMetadata={"method": self.name, "version": self.version, "turns": 0},
            )
        extra = instructions_block(opts.instructions, standing_instructions(said))
        run = await summarizer.summarize(messages, previous, instructions=extra)
        words, left_out = choose_verbatim(said, opts.user_message_budget, opts.counter)
        quoted = render_user_words(words, left_out)
        text = f"{run.text}\n\n{quoted}" if quoted else run.text
        return CompactionArtifact(
            summaryText=text[:_SUMMARY_CHARS],
            structured_state=artifact_state(run.text),
            selectedSourceTurnIds=[t.id for t in transcript.turns],
            warnings=[] if len(text) <= _SUMMARY_CHARS else ["summary cut to 8000 characters"],
            methodMetadata={
                "method": self.name,
                "version": self.version,
                "model": self.model,
                "provider": self.provider.key,
                "calls": run.requests,
                "prompt_tokens": run.usage.input_tokens,
                "completion_tokens": run.usage.output_tokens,
                "summary": run.text,
                "turns": len(transcript.turns),
            },
        )


if __name__ == "__main__":  # pragma: no cover - prints the --method value for CompactBench
    print(f"{__file__}:{ContextfoldCompactor.__name__}")

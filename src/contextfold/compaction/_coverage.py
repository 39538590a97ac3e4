"""What one compaction's fact ledger found and what became of it (see
:mod:`._ledger`): a module of its own, so what reports coverage (the proxy's metrics,
the CLI, the manager) does not load the ledger's rules, whose patterns take a tenth of
a second to compile, until a compaction runs."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FactCoverage"]


@dataclass(frozen=True, slots=True)
class FactCoverage:
    """What one compaction's ledger found and what became of it: ``kept`` by the
    summary or verbatim, ``restored`` by the ledger section, ``dropped`` past the
    ``fact_budget``. ``found == kept + restored + dropped``; ``tokens`` is the size of
    the section."""

    found: int = 0
    kept: int = 0
    restored: int = 0
    dropped: int = 0
    tokens: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "found": self.found,
            "kept": self.kept,
            "restored": self.restored,
            "dropped": self.dropped,
            "tokens": self.tokens,
        }

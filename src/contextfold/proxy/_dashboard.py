"""What ``GET /dashboard`` shows: the proxy's chat requests by conversation, in memory.

A conversation is known by its tenant key (:mod:`._tenant`: a keyed hash of the
request's credentials or of the tenant header's value, never either in clear) and its
root: the prefix hash of its prompt and task, the messages the planner pins, seeded with
tenant and model (:func:`~contextfold.proxy._compact.conversation_root`). For each, the
recorder keeps

* one :class:`Point` per chat request: when, the size of the history the client sent
  and of the prompt forwarded (the proxy's estimates), the size the upstream reported
  for it, and the compaction outcome;
* one :class:`Compaction` per request that changed what was sent: a new summary, a
  summary prepared ahead and spliced for the first time, old tool outputs masked, or a
  relief without a model (a request that merely splices the summary the conversation
  already has is a cache hit, counted, not listed), with the tokens before and after,
  whether the summary came from the cache, and what the summaries made for it cost
  (the summarizer's tokens as the upstream reported them; there is no price table) and
  what their fact ledger kept;
* counts that stay whole when old points go: requests, compactions, cache hits,
  requests forwarded uncompacted over an error, summaries and their tokens.

It never keeps message text, a credential or a header value: hashes, numbers, the
outcome, and the model name the request gave, cut to :data:`MODEL_CHARS` characters.

Bounded: at most ``conversations`` conversations (when one more arrives, the one
active least recently is dropped), and per conversation the last ``points`` requests
and ``compactions`` compactions. With the defaults (100, 200, 50) that is at most
about 5.3 MiB, every conversation full (``tests/proxy/test_dashboard.py`` measures it).

Fed where the proxy counts (:mod:`._metrics`): each chat request's plan by the
forwarder, each summary by the planner, the upstream's reported usage by the relay.
Everything runs on the event loop's thread; nothing here is shared between threads.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from contextfold.compaction import FactCoverage
from contextfold.proxy._metrics import Outcome
from contextfold.proxy._plan import ForwardPlan, SummaryState
from contextfold.transports.base import Usage

__all__ = [
    "DEFAULT_COMPACTIONS",
    "DEFAULT_CONVERSATIONS",
    "DEFAULT_POINTS",
    "MODEL_CHARS",
    "Compaction",
    "ConversationRecord",
    "DashboardRecorder",
    "Point",
]

DEFAULT_CONVERSATIONS: Final = 100
DEFAULT_POINTS: Final = 200
DEFAULT_COMPACTIONS: Final = 50
MODEL_CHARS: Final = 64
"""The longest model name kept (a request names its model: it is the client's text)."""

_COMPACTING: Final = frozenset({"created", "masked", "relieved"})


@dataclass(slots=True)
class Point:
    """One chat request: its number in the conversation (from 1), when it was planned
    (seconds since the epoch), the estimated size of the history the client sent
    (``history``) and of the prompt forwarded (``sent``), the size the upstream reported
    for it (``reported``, once its answer said), and its outcome."""

    number: int
    at: float
    history: int | None
    sent: int | None
    outcome: Outcome
    reported: int | None = None


@dataclass(frozen=True, slots=True)
class Compaction:
    """A request that changed what was sent (see the module doc): its number, when,
    its outcome, the estimated prompt size before and after, where its summary came
    from (``summary``: ``created`` now, ``cached``, ``none``), whether that summary was
    ``prepared`` ahead of the limit, and what the summaries made for it cost: how many
    (``summaries``), their tokens (``usage``) and their fact ledger's coverage."""

    number: int
    at: float
    outcome: Outcome
    before: int | None
    after: int | None
    summary: SummaryState
    prepared: bool = False
    summaries: int = 0
    usage: Usage | None = None
    facts: FactCoverage | None = None

    @property
    def cache_hit(self) -> bool:
        return self.summary == "cached"


@dataclass(slots=True)
class _Spent:
    """Summaries made for a conversation and not yet used by a compaction."""

    count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    facts: FactCoverage | None = None

    def add(self, usage: Usage, facts: FactCoverage | None) -> None:
        self.count += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        if facts is not None:
            self.facts = _add_facts(self.facts, facts)


@dataclass(slots=True)
class ConversationRecord:
    """What the recorder keeps of one conversation (see the module doc): its last
    ``points`` and ``events`` (compactions), and counts of all it saw. ``limit`` is the
    prompt size over which its last request would have been compacted."""

    tenant: str
    root: str
    first_at: float
    last_at: float
    points: deque[Point]
    events: deque[Compaction]
    model: str = ""
    limit: int | None = None
    requests: int = 0
    compactions: int = 0
    cache_hits: int = 0
    errors: int = 0
    summaries: int = 0
    summarizer_input: int = 0
    summarizer_output: int = 0
    pending: _Spent | None = None  # summaries made and not used by a compaction yet


class DashboardRecorder:
    """The conversations the dashboard shows, bounded (see the module doc): the last
    ``conversations`` of them, each with its last ``points`` requests and
    ``compactions`` compactions. ``clock``: seconds since the epoch (tests fix it).
    A bound below 1 is a :class:`ValueError`."""

    def __init__(
        self,
        *,
        conversations: int = DEFAULT_CONVERSATIONS,
        points: int = DEFAULT_POINTS,
        compactions: int = DEFAULT_COMPACTIONS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        for name, value in (
            ("conversations", conversations),
            ("points", points),
            ("compactions", compactions),
        ):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        self.max_conversations = conversations
        self.max_points = points
        self.max_compactions = compactions
        self._clock = clock
        self.started = clock()
        self._conversations: OrderedDict[tuple[str, str], ConversationRecord] = OrderedDict()
        self.unattributed = 0  # chat requests not read as a history: no conversation
        self.dropped = 0  # conversations dropped to keep the bound

    # -- what the proxy tells it ---------------------------------------------------------

    def request(
        self, plan: ForwardPlan, outcome: Outcome, *, model: str, limit: int | None
    ) -> ForwardPlan:
        """Record a chat request planned as ``plan`` (counted under ``outcome``) of
        ``model``, whose limit was ``limit``; the plan comes back numbered (``seen``),
        for :meth:`reported` and :meth:`retried`."""
        if not plan.conversation:
            self.unattributed += 1
            return plan
        record = self._record(plan.tenant, plan.conversation)
        record.model = model[:MODEL_CHARS]
        record.limit = limit
        record.requests += 1
        point = Point(
            record.requests, record.last_at, plan.tokens_before, plan.tokens_after, outcome
        )
        record.points.append(point)
        self._counted(record, point, plan, outcome)
        return replace(plan, seen=point.number)

    def retried(self, plan: ForwardPlan, outcome: Outcome) -> None:
        """The request numbered ``plan.seen`` was refused as too long, compacted by force
        (``plan``, counted under ``outcome``) and sent once more."""
        record, point = self._point(plan)
        if record is not None and point is not None:
            point.sent, point.outcome = plan.tokens_after, outcome
            self._counted(record, point, plan, outcome)

    def reported(self, plan: ForwardPlan, input_tokens: int) -> None:
        """The upstream reported ``input_tokens`` for the request numbered ``plan.seen``."""
        _, point = self._point(plan)
        if point is not None:
            point.reported = input_tokens

    def summarized(
        self, tenant: str, conversation: str, usage: Usage, facts: FactCoverage | None
    ) -> None:
        """A summary of ``tenant``'s ``conversation`` was made (for a request, or ahead
        of the limit), for ``usage``; ``facts``: its fact ledger's coverage."""
        record = self._record(tenant, conversation)
        record.summaries += 1
        record.summarizer_input += usage.input_tokens
        record.summarizer_output += usage.output_tokens
        if record.pending is None:
            record.pending = _Spent()
        record.pending.add(usage, facts)

    # -- what the page reads ---------------------------------------------------------

    def conversations(self) -> list[ConversationRecord]:
        """Every conversation kept, the most recently active first."""
        return list(reversed(self._conversations.values()))

    def __len__(self) -> int:
        return len(self._conversations)

    # -- inside ----------------------------------------------------------------------

    def _record(self, tenant: str, root: str) -> ConversationRecord:
        now = self._clock()
        key = (tenant, root)
        record = self._conversations.get(key)
        if record is not None:
            self._conversations.move_to_end(key)
            record.last_at = now
            return record
        record = ConversationRecord(
            tenant,
            root,
            now,
            now,
            deque(maxlen=self.max_points),
            deque(maxlen=self.max_compactions),
        )
        self._conversations[key] = record
        while len(self._conversations) > self.max_conversations:
            self._conversations.popitem(last=False)
            self.dropped += 1
        return record

    def _point(self, plan: ForwardPlan) -> tuple[ConversationRecord | None, Point | None]:
        record = self._conversations.get((plan.tenant, plan.conversation))
        if record is None or not plan.seen or not record.points:
            return record, None
        index = plan.seen - record.points[0].number
        if 0 <= index < len(record.points) and record.points[index].number == plan.seen:
            return record, record.points[index]
        return record, None  # gone with the oldest points

    def _counted(
        self, record: ConversationRecord, point: Point, plan: ForwardPlan, outcome: Outcome
    ) -> None:
        """Count ``point``'s ``outcome``; list it when it changed what was sent."""
        if outcome == "error":
            record.errors += 1
        if plan.summary == "cached":
            record.cache_hits += 1
        spent = record.pending
        prepared = outcome == "cached" and spent is not None
        if outcome not in _COMPACTING and not prepared:
            return
        record.pending = None
        record.compactions += 1
        event = Compaction(
            point.number,
            point.at,
            outcome,
            plan.tokens_before,
            plan.tokens_after,
            plan.summary,
            prepared=prepared,
        )
        if spent is not None:
            usage = Usage(input_tokens=spent.input_tokens, output_tokens=spent.output_tokens)
            event = replace(event, summaries=spent.count, usage=usage, facts=spent.facts)
        record.events.append(event)


def _add_facts(one: FactCoverage | None, two: FactCoverage) -> FactCoverage:
    if one is None:
        return two
    return FactCoverage(
        found=one.found + two.found,
        kept=one.kept + two.kept,
        restored=one.restored + two.restored,
        dropped=one.dropped + two.dropped,
        tokens=one.tokens + two.tokens,
    )

"""Compaction machinery: option checking, the split, the summary run and the splice shape.

:mod:`contextfold.compaction` is the public face; this module holds the one
implementation both :func:`~contextfold.compaction.compact_context` and
:class:`~contextfold.compaction.AutoCompactStore` use.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import importlib
import logging
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal, TypeAlias, TypeVar

from contextfold._history import (
    compaction_cut_points,
    omit_tool_images,
    shrink_cut,
    truncate_tool_outputs,
)
from contextfold._masking import recallable_section, without_recallable
from contextfold.compaction._coverage import FactCoverage
from contextfold.compaction._summarizer import (
    KEPT_TRUNCATION_MARKER,
    Summarizer,
    SummaryRun,
    acknowledgement,
    parse_summary_message,
    render_summary_message,
)
from contextfold.compaction._userwords import (
    choose_verbatim,
    instructions_block,
    standing_instructions,
    user_texts,
)
from contextfold.errors import (
    CompactionError,
    ContextOverflowError,
    PromptError,
    SummaryRejectedError,
)
from contextfold.messages import Message
from contextfold.prompts import Prompt, builtin_prompt, load_prompt
from contextfold.tokens import TokenCounter, count_message_tokens, count_tokens
from contextfold.transports.base import CompletionTransport, ToolSpec, Usage, model_of
from contextfold.validation import has_thinking, history_problems

if TYPE_CHECKING:
    from contextfold.compaction._ledger import Fact, Ledger

logger = logging.getLogger("contextfold.compaction")

DEFAULT_PROMPT: Prompt = builtin_prompt("summary")
PromptLike: TypeAlias = str | os.PathLike[str] | Prompt


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """What :func:`compact_context` produced and what it cost."""

    messages: list[Message]
    summary: str
    summarized_messages: int
    kept_messages: int
    usage: Usage
    requests: int
    estimated_tokens: int
    facts: FactCoverage = field(default_factory=FactCoverage)
    """What the fact ledger found in the summarized part and what became of it."""


@dataclass(frozen=True, slots=True)
class Options:
    keep_recent: int
    prompt: Prompt
    update_prompt: Prompt
    continuation_prompt: Prompt
    prompt_vars: dict[str, object]
    counter: TokenCounter
    max_summary_tokens: int
    max_tool_chars: int
    kept_tool_chars: int
    cache_friendly: bool
    agent_system: str | None
    agent_tools: tuple[ToolSpec, ...]
    chunk_prompt: Prompt | None = None
    instructions: str | None = None
    user_message_budget: int = 0
    archived: bool = False
    """The store keeps an archive of what compaction replaces (the summary says so)."""
    recall: bool = True
    """A recall tool can fetch the originals: the summary lists their handles."""
    fact_budget: int = 0
    """Tokens of facts the summary left out that the ledger restores (0: no ledger)."""


_T = TypeVar("_T")

LEDGER_INLINE_CHARS = 10_000
"""Up to this many characters of summarized text the fact ledger is built on the event
loop; past it, on a worker thread (see :func:`compact_history`'s ``off_loop``). On a
2-core machine the ledger reads 2-3 µs a character of the fidelity sessions (28 ms
p50, 32 ms at most for 8,000-10,000 characters), but up to 13 µs of prose dense with
ids ("order 12345 costs 67.89 EUR, ticket #4521, v1.2.3..."): ~120 ms for 9,600
characters (bench/loop_lag.py). Lower, the summaries prepared for the short
histories of tests with stub transports (the README's example, users' own tests)
would land a thread's hand-off later, after the turns that expect them."""


_LEDGER_MODULE: Final = "contextfold.compaction._ledger"
_warming: threading.Thread | None = None


def warm_ledger() -> None:
    """Load the fact ledger's rules on a background thread, once a process.

    Compiling its ~165 patterns takes 0.1-0.4 s. They load with the first compaction,
    not with the package; a face that will read ledgers calls this when it is made, so
    that the first compaction finds them loaded (or waits only for the rest of the
    load) instead of compiling them all on the event loop: an agent waited 108 ms in
    the turn its first prepared summary arrived (bench/stall.py, --quick)."""
    global _warming
    if _warming is not None or _LEDGER_MODULE in sys.modules:
        return
    _warming = threading.Thread(
        target=importlib.import_module,
        args=(_LEDGER_MODULE,),
        name="contextfold-ledger-rules",
        # not a daemon: one stopped at the interpreter's exit in the middle of an import
        # prints a traceback; a process that exits this early waits for the rest of it
        daemon=False,
    )
    _warming.start()


def _finish_warming() -> None:
    # A child forked while the thread imports would inherit the import's lock with no
    # thread to release it: its first compaction would wait for ever.
    if _warming is not None and _warming.is_alive():
        _warming.join()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(before=_finish_warming)


def ledger_chars(body: Sequence[Message], quoted: Sequence[str] = ()) -> int:
    """How many characters the fact ledger reads in ``body`` and the ``quoted`` words:
    the entries :func:`~._ledger.build_ledger` reads (text, tool results' text and
    tool calls' arguments as JSON; not system messages)."""
    # loaded with the ledger's rules, which the caller is about to use
    from contextfold.compaction._rules import entries_from_messages

    entries = entries_from_messages([m for m in body if m.role != "system"])
    return sum(map(len, quoted)) + sum(len(entry.text) for entry in entries)


# The time limit of the summary run this task is in (within_summary_timeout), so that
# the run can stop its clock while it works on its own (_clock_stopped).
_DEADLINE: contextvars.ContextVar[asyncio.Timeout | None] = contextvars.ContextVar(
    "contextfold_summary_deadline", default=None
)


async def within_summary_timeout(time_limit: float | None, work: Awaitable[_T]) -> _T:
    """``await work``, bounded by ``time_limit`` seconds (``None``: unbounded): past it
    the work is cancelled and :class:`CompactionError` says so. Every face of the
    library (store, manager, proxy) bounds its summarizer runs with this, so
    ``summary_timeout`` means the same everywhere: the limit bounds the wait on the
    model; the clock stops while a run reads its fact ledger on a worker thread."""
    try:
        async with asyncio.timeout(time_limit) as deadline:
            token = _DEADLINE.set(deadline)
            try:
                return await work
            finally:
                _DEADLINE.reset(token)
    except TimeoutError:
        raise CompactionError(
            f"the summarizer did not finish within summary_timeout={time_limit}s"
        ) from None


@contextlib.contextmanager
def _clock_stopped() -> Iterator[None]:
    """The summary run's time limit (if any) does not count the ``with`` block: the
    time left when it starts is left when it ends (however it ends)."""
    deadline = _DEADLINE.get()
    when = None if deadline is None or deadline.expired() else deadline.when()
    if deadline is None or when is None:
        yield
        return
    loop = asyncio.get_running_loop()
    left = when - loop.time()
    deadline.reschedule(None)
    try:
        yield
    finally:
        deadline.reschedule(loop.time() + left)


def make_summarizer(transport: CompletionTransport, opts: Options) -> Summarizer:
    return Summarizer(
        transport,
        prompt=opts.prompt,
        update_prompt=opts.update_prompt,
        chunk_prompt=opts.chunk_prompt,
        counter=opts.counter,
        max_summary_tokens=opts.max_summary_tokens,
        max_tool_chars=opts.max_tool_chars,
        prompt_vars=opts.prompt_vars,
    )


def _strip_previous(old: Sequence[Message]) -> tuple[str | None, list[str], list[Message]]:
    """The earlier summary at the head of ``old`` (or ``None``), the user's words it
    quoted, and ``old`` without it and its acknowledgement (system messages stay)."""
    rest = list(old)
    first = next((i for i, m in enumerate(rest) if m.role != "system"), None)
    parsed = parse_summary_message(rest[first]) if first is not None else None
    if first is None or parsed is None:
        return None, [], rest
    del rest[first]
    after = next((i for i in range(first, len(rest)) if rest[i].role != "system"), None)
    if after is not None and rest[after] == acknowledgement():
        del rest[after]
    return parsed[0], parsed[1], rest


def _has_new_content(old: Sequence[Message]) -> bool:
    """Whether ``old`` holds anything besides system messages and an earlier summary."""
    return any(m.role != "system" for m in _strip_previous(old)[2])


def words_of(history: Sequence[Message]) -> list[str]:
    """The user's words in ``history``: quoted in a summary message, or its own."""
    texts: list[str] = []
    for message in history:
        parsed = parse_summary_message(message)
        if parsed is not None:
            texts += parsed[1]
        else:
            texts += user_texts([message])
    return texts


def kept_systems(old: Sequence[Message], budget: int, counter: TokenCounter) -> list[Message]:
    """The system messages of the summarized part that stay verbatim, in order.

    The first (the agent's instructions) always stays. Later ones stay once each (the
    latest copy of a repeated note), newest first while they fit ``budget`` tokens; the
    older ones are summarized with the rest, so a system note per turn cannot fill the
    window.
    """
    systems = [(i, m) for i, m in enumerate(old) if m.role == "system"]
    if not systems:
        return []
    kept = [systems[0]]
    seen = {systems[0][1].text}
    used = 0
    for index, message in reversed(systems[1:]):
        if message.text in seen:
            continue
        seen.add(message.text)
        used += count_message_tokens(message, counter)
        if used > budget:
            break
        kept.append((index, message))
    return [m for _, m in sorted(kept, key=lambda pair: pair[0])]


async def compact_history(
    history: Sequence[Message],
    transport: CompletionTransport,
    opts: Options,
    *,
    target_tokens: int | None = None,
    scale: float = 1.0,
    fixed_tokens: int = 0,
    summarizer: Summarizer | None = None,
    system_budget: int | None = None,
    words_fixed: int = 0,
    pinned: int = 0,
    pinned_tail: int = 0,
    require_smaller: bool = True,
    off_loop: bool | None = None,
    answered: Callable[[], object] | None = None,
) -> CompactionResult | None:
    """Summarize the old part of ``history``; ``None`` when there is nothing to fold.

    ``history[:pinned]`` (the client's prompt and the user's task, say) is kept
    verbatim in place, never summarized nor quoted; the last ``pinned_tail`` messages
    are always kept (prompt a client moves to the end of every request). The result
    is ``pinned messages + kept system messages + summary (+ acknowledgement) +
    recent``.

    Token estimates of a list of messages are ``count × scale``, or, when
    ``fixed_tokens`` (the real prompt's cost beyond its messages: system prompt,
    tools) is given, the larger of that and ``fixed_tokens + count``. With
    ``target_tokens`` the kept part is shrunk (fewer messages, then truncated tool
    outputs) until the estimate of the result fits, and a history too short for
    ``keep_recent`` is still cut when it is over the target. ``summarizer`` lets the
    caller read the usage of a run that failed part-way. With ``system_budget`` the
    old part's system messages are bounded (:func:`kept_systems`); without it all stay.
    The user's verbatim words fill only the room left under ``target_tokens``, counted
    with ``words_fixed`` (the real prompt's cost beyond its messages) as well.
    A result whose estimate is not below the estimate of ``history`` raises
    :class:`~contextfold.errors.SummaryRejectedError` (``reason="not_smaller"``), unless
    ``require_smaller`` is false: an explicit compaction asked for by the user, which
    a summary larger than the few messages it replaces does not make wrong.
    ``off_loop`` builds the fact ledger on a worker thread: its CPU (0.2-0.4 s for a
    session of 150 KB) then holds no other request on the event loop (an agent's
    next model call, the proxy's other requests). ``None`` (the default) decides by
    size: on the loop up to :data:`LEDGER_INLINE_CHARS` characters, on a thread past
    them; ``False`` keeps it on the loop whatever the size. ``answered`` is called
    when the summary came back and its ledger goes to a thread (a background
    preparation is then worth waiting for). While the thread works, the clock of
    :func:`within_summary_timeout` stops.
    """
    summarizer = summarizer or make_summarizer(transport, opts)

    def estimate(messages: Sequence[Message]) -> int:
        counted = count_tokens(messages, opts.counter)
        if fixed_tokens:
            return max(int(counted * scale), fixed_tokens + counted)
        return int(counted * scale)

    pinned = max(0, min(pinned, len(history)))
    last = len(history) - max(0, pinned_tail)
    first_content = next(
        (i for i in range(pinned, len(history)) if history[i].role != "system"), None
    )
    points = [
        p
        for p in compaction_cut_points(history)
        if first_content is not None and first_content < p <= last
    ]

    def choose(keep: int) -> int | None:
        target = len(history) - keep
        if target <= pinned or not points:
            return None
        earlier = [p for p in points if p <= target]
        return earlier[-1] if earlier else points[0]

    cut = choose(opts.keep_recent)
    if cut is None and target_tokens is not None and estimate(history) > target_tokens:
        cut = choose(1)  # over the target: keep fewer than keep_recent
    while cut is not None and not _has_new_content(history[pinned:cut]):
        cut = next((p for p in points if p > cut), None)  # nothing new: keep fewer
    if cut is None:
        return None

    recent = list(history[cut:])
    if target_tokens is not None:
        # Room the summary will take; a real summary rarely fills max_summary_tokens, and
        # reserving all of it on a small window would leave no recent message at all.
        overhead = min(summarizer.max_summary_tokens, target_tokens // 3) + 100
        fixed = int(count_tokens(history[:pinned], opts.counter) * scale) if pinned else 0
        cut = shrink_cut(
            history,
            cut,
            lambda c: fixed + estimate(history[c:]) + overhead <= target_tokens,
            last=last,
        )
        recent = list(history[cut:])
        if fixed + estimate(recent) + overhead > target_tokens:
            recent = truncate_tool_outputs(recent, opts.kept_tool_chars, KEPT_TRUNCATION_MARKER)
            # Text cuts leave images; the oldest kept ones go until the kept part fits.
            recent = omit_tool_images(
                recent, lambda k: fixed + estimate(k) + overhead <= target_tokens
            )

    kept_head = list(history[:pinned])
    old = history[pinned:cut]
    if system_budget is None:  # a view (manager, proxy): every system message stays
        systems = [m for m in old if m.role == "system"]
    else:
        systems = kept_systems(old, system_budget, opts.counter)
    kept_ids = {id(m) for m in systems}
    previous, quoted, body = _strip_previous([m for m in old if id(m) not in kept_ids])
    # the ledger's rules load with the first compaction, not with the package
    from contextfold.compaction._ledger import (
        build_ledger,
        render_section,
        seen_text,
        split_ledger,
    )

    carried: list[Fact] = []
    if previous is not None:
        previous, carried = split_ledger(previous)
    # The user's words: the task (the last pinned message) on; the prompt before it and
    # the prompt a client moves to the end are not theirs.
    users = history[max(pinned - 1, 0) : last]
    extra = instructions_block(opts.instructions, standing_instructions(words_of(users)))

    run: SummaryRun | None = None
    if opts.cache_friendly and estimate(history[:cut]) <= summarizer.input_budget:
        try:
            run = await summarizer.continue_prefix(
                history[:cut],
                opts.agent_system,
                opts.agent_tools,
                opts.continuation_prompt,
                instructions=extra,
            )
        except (ContextOverflowError, SummaryRejectedError) as exc:
            logger.info("cache-friendly summary failed (%s); summarizing a transcript instead", exc)
    if run is None:
        anchor = previous
        if previous is not None and carried:  # the model sees the facts it must keep
            anchor = previous + "\n\n" + render_section(carried)
        run = await summarizer.summarize(body, anchor, instructions=extra)

    # Built once a summary came back: a summary that fails (a model down, a timeout)
    # costs no ledger, and the back-off that follows no CPU.
    ledger: Ledger | None = None
    if opts.fact_budget:
        build = functools.partial(
            build_ledger, body, previous=previous, carried=carried, quoted=quoted
        )
        if off_loop is None:
            off_loop = ledger_chars(body, quoted) > LEDGER_INLINE_CHARS
        if not off_loop:
            ledger = build()
        else:
            if answered is not None:
                answered()
            with _clock_stopped():  # the limit bounds the wait on the model, not this
                ledger = await asyncio.to_thread(build)
    first_kept = next((m for m in recent if m.role != "system"), None)
    # The handles of what this summary replaces, so the model can recall the originals.
    # a ledger is ours to write (also one hidden behind a copied list of handles)
    written, _ = split_ledger(without_recallable(run.text))
    if opts.recall:
        summary = recallable_section(written, body, previous)
    else:  # no recall tool is offered: a list of handles would name a phantom tool
        summary = without_recallable(written)
    words = [*quoted, *user_texts(body)]
    before = estimate(history)
    words_budget = opts.user_message_budget
    if target_tokens is not None and words_budget:
        # The recent messages come first: the user's words fill the room left under the
        # target, at most a quarter of it.
        bare = [
            *kept_head,
            *systems,
            render_summary_message(summary),
            acknowledgement(),
            *recent,
        ]
        # The larger of the scaled estimate and the prompt's fixed part (system prompt,
        # tools) plus the messages: the words never push a conservative estimate up.
        taken = max(estimate(bare), words_fixed + count_tokens(bare, opts.counter))
        room = int((target_tokens - taken) / max(scale, 1.0))
        words_budget = max(min(words_budget, room, target_tokens // 4), 0)
    fact_budget = opts.fact_budget
    if target_tokens is not None:
        fact_budget = min(fact_budget, target_tokens // 8)
    # What the model reads besides the summary: the verbatim messages kept around it.
    around = seen_text([*kept_head, *systems, *recent])
    coverage = FactCoverage()
    while True:
        # The user's words are kept on top of a summary that covers them; when they
        # would make the result no smaller than the history, fewer are kept (and then,
        # where a compaction must shrink the history, fewer facts restored).
        kept_words, left_out = choose_verbatim(words, words_budget, opts.counter)
        full = summary
        if ledger is not None:
            verbatim = "\n".join([*kept_words, around])
            section, coverage = ledger.restore(summary, verbatim, fact_budget, opts.counter)
            full = f"{summary}\n\n{section}" if section else summary
        summary_message = render_summary_message(
            full, quotes=kept_words, left_out=left_out, archived=opts.archived
        )
        head = [*kept_head, *systems, summary_message]
        if first_kept is None or first_kept.role == "user":
            head.append(acknowledgement())
        result = [*head, *recent]
        after = estimate(result)
        if after < before or not (kept_words or (coverage.tokens and require_smaller)):
            break
        # Whichever of the two takes more gives way: halving the user's words alone
        # while the restored facts stayed whole dropped every quoted word (the user's
        # corrections among them) as soon as a section filled the room.
        words_tokens = sum(opts.counter(w) for w in kept_words)
        if kept_words and (not coverage.tokens or words_tokens >= coverage.tokens):
            words_budget //= 2
        else:
            fact_budget //= 2
    thinking = has_thinking(history)
    problems = history_problems(result, allow_pending=True, thinking=thinking)
    if problems and not history_problems(history, allow_pending=True, thinking=thinking):
        raise CompactionError("compaction would produce an invalid history: " + "; ".join(problems))
    # -- a compaction must shrink what it replaces (issue 13, item 2) --------------------
    if require_smaller and after >= before:
        raise SummaryRejectedError(
            f"the compacted history (~{after:,} tokens) is not smaller than the history it "
            f"would replace (~{before:,} tokens); lower max_summary_tokens or keep fewer "
            "recent messages",
            reason="not_smaller",
        )
    # -- end ------------------------------------------------------------------------------
    return CompactionResult(
        messages=result,
        summary=full,
        summarized_messages=len(old),
        kept_messages=len(recent),
        usage=summarizer.usage,
        requests=summarizer.requests,
        estimated_tokens=estimate(result),
        facts=coverage,
    )


def build_options(
    *,
    keep_recent: int,
    system_prompt: PromptLike | None,
    update_prompt: PromptLike | None,
    prompt_vars: dict[str, object] | None,
    counter: TokenCounter,
    max_summary_tokens: int,
    max_tool_chars: int,
    kept_tool_chars: int,
    cache_friendly: bool,
    agent_system: str | None,
    agent_tools: Iterable[ToolSpec],
    instructions: str | None = None,
    user_message_budget: int = 0,
    fact_budget: int = 0,
) -> Options:
    if system_prompt is DEFAULT_PROMPT:
        system_prompt = None  # the default passed explicitly is still the built-in set
    prompt = load_prompt(system_prompt) if system_prompt is not None else DEFAULT_PROMPT
    if update_prompt is not None:
        update = load_prompt(update_prompt)
    elif system_prompt is not None:
        # A custom prompt also writes the incremental updates (it gets the previous
        # summary in the request), so the user's instructions apply every time.
        update = prompt
    else:
        update = builtin_prompt("update")
    # A custom prompt is also the instruction of a cache-friendly continuation, so the
    # user's instructions are never silently replaced by the built-in ones.
    continuation = prompt if system_prompt is not None else builtin_prompt("continuation")
    # Chunks 2..N of a first summary: the built-in chunk prompt, unless the user wrote
    # their own prompts (then their update prompt, as for every later request).
    custom = system_prompt is not None or update_prompt is not None
    chunk = update if custom else builtin_prompt("chunk")
    variables = dict(prompt_vars or {})
    if "max_summary_tokens" in variables:  # render() would take it twice: a bare TypeError
        raise PromptError(
            "prompt_vars cannot set max_summary_tokens: the prompts get the "
            "max_summary_tokens setting under that name"
        )
    prompts = (prompt, update, chunk, continuation) if cache_friendly else (prompt, update, chunk)
    for p in prompts:
        p.render(max_summary_tokens=max_summary_tokens, **variables)  # fail early on typos
    used = frozenset().union(*(p.variables for p in prompts))
    unused = sorted(set(variables) - used)
    if unused:
        raise PromptError(
            f"prompt_vars {', '.join(unused)} are used by no prompt "
            f"(the prompts use: {', '.join(sorted(used)) or 'no variables'})"
        )
    return Options(
        keep_recent=keep_recent,
        prompt=prompt,
        update_prompt=update,
        continuation_prompt=continuation,
        prompt_vars=variables,
        counter=counter,
        max_summary_tokens=max_summary_tokens,
        max_tool_chars=max_tool_chars,
        kept_tool_chars=kept_tool_chars,
        cache_friendly=cache_friendly,
        agent_system=agent_system,
        agent_tools=tuple(agent_tools),
        chunk_prompt=chunk,
        instructions=instructions,
        user_message_budget=user_message_budget,
        fact_budget=fact_budget,
    )


Trigger = Literal["usage", "append", "forced", "manual", "prepare"]
Outcome = Literal[
    "compacted",
    "masked",
    "committed",
    "prepared",
    "discarded",
    "relieved",
    "truncated",
    "skipped",
    "held",
    "rejected",
    "failed",
    "conflict",
    "busy",
]


@dataclass(frozen=True, slots=True)
class CompactionEvent:
    """Emitted before (``phase="before"``) and after each compaction attempt.

    Token counts ``tokens_*`` are prompt sizes: ``tokens_before`` the real usage (or
    estimate) that triggered, ``tokens_after`` the estimated size of the new history.

    ``outcome`` (``after`` events): ``compacted`` (summarized while the caller
    waited); ``masked`` (old tool outputs masked, no model call: masking alone got
    the history under the target, see ``mask_tool_outputs``); ``prepared`` (a
    summary made in the background, trigger ``prepare``, ready to commit);
    ``committed`` (a prepared summary spliced in without a model call; ``waited_s``
    is how long the caller waited); ``discarded`` (a prepared summary paid for and
    never used: the history changed under it); ``relieved`` (no attempt: the read
    before a request returned a smaller view, tool outputs cut and old rounds left
    out, because the next request would not fit while no summary could be committed;
    ``tokens_after`` is the view's estimate, the store keeps everything);
    ``truncated`` (nothing to summarize, kept tool outputs cut); ``skipped``
    (nothing to summarize or free); ``held`` (a trigger held back by back-off or the
    no-loop floor, ``error`` says which; no attempt was made); ``rejected`` (a bad
    summary); ``failed`` (an error or the ``summary_timeout``); ``conflict`` (the
    history changed under the attempt); ``busy`` (another process holds the
    session's compaction lock).
    """

    phase: Literal["before", "after"]
    session_id: str
    trigger: Trigger
    limit: int
    messages_before: int
    tokens_before: int
    messages_after: int | None = None
    tokens_after: int | None = None
    summary_tokens: int | None = None
    summarized_messages: int = 0
    summarizer_usage: Usage | None = None
    summarizer_requests: int = 0
    duration_s: float = 0.0
    outcome: Outcome | None = None
    error: str | None = None
    waited_s: float | None = None
    facts: FactCoverage | None = None
    """The fact ledger's count (found, kept by the summary, restored after it,
    dropped past ``fact_budget``) for an event with a new summary, else ``None``."""


CompactionHook: TypeAlias = Callable[[CompactionEvent], Awaitable[None] | None]


def compaction_limit(
    transport: object, *, threshold: float = 0.75, max_tokens: int | None = None
) -> int:
    """The prompt size above which compaction runs, read from ``transport.model``.

    ``max_tokens`` if given, else ``threshold × context_window`` (128,000 when the
    transport has no model), never above ``context_window − max_output_tokens``.
    """
    model = model_of(transport)
    window, max_output = model.context_window, model.max_output_tokens
    limit = max_tokens if max_tokens is not None else int(threshold * window)
    return min(limit, window - max_output)

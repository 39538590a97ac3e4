"""Seeded long sessions with planted probes: a coding agent, customer support, research.

Each session is an *opening* that plants the probes (and is summarized by the first
compaction), followed by filler *segments* of unrelated, realistic work that later
compactions fold in: side questions, reads of other files, searches and lookups whose
tool outputs are full of identifiers that do not matter. Everything comes from one
:class:`random.Random` seeded per session, so a seed always gives the same session.
"""

from __future__ import annotations

import random

from contextfold_harness.fidelity._build import (
    PROBE_KINDS,
    SESSION_KINDS,
    WORDS,
    Builder,
    Parts,
    Probe,
    ProbeKind,
    Session,
    SessionKind,
    build_session,
    hexits,
    noise_lines,
    prose,
    segments_of,
    token,
)

__all__ = [
    "PROBE_KINDS",
    "SESSION_KINDS",
    "Probe",
    "ProbeKind",
    "Session",
    "SessionKind",
    "generate_session",
]

# --- coding ------------------------------------------------------------------------------

_MODULES = ("billing", "accounts", "search", "exports", "notifications", "scheduler")
_FILES = ("service", "models", "handlers", "rounding", "client", "validators", "queries")


def _coding(rng: random.Random, b: Builder, segments: int) -> Parts:
    module = rng.choice(_MODULES)
    edited = f"src/{module}/{rng.choice(_FILES)}.py"
    created = (
        f"src/{module}/{rng.choice(['currency', 'limits', 'retry'])}_{token(rng, 2).lower()}.py"
    )
    test_a = f"tests/{module}/test_{edited.rsplit('/', 1)[1]}"
    test_b = f"tests/{module}/test_{created.rsplit('/', 1)[1]}"
    flag = f"{module}_v{rng.randint(2, 9)}_rollout"
    commit = hexits(rng, 12)
    migration = f"{rng.randint(40, 99):04d}_add_{rng.choice(['currency', 'region', 'tier'])}_column"
    endpoint = f"/v{rng.randint(1, 3)}/{module}/{rng.choice(['items', 'records', 'entries'])}"
    b.user(
        f"We're fixing the {module} service. Task: invoices for non-USD accounts are rounded "
        f"wrong. Done means every test under tests/{module}/ passes and the nightly export "
        f"matches. The feature flag is `{flag}`; keep it off in production."
    )
    b.tool(
        "Let me look at the code first.",
        "read_file",
        {"path": edited},
        f"# {edited}\n"
        + noise_lines(rng, 30, lambda r: f"def f_{hexits(r, 4)}(x): return x * {r.randint(2, 99)}"),
    )
    b.tool(
        "And the recent history.",
        "run",
        {"command": "git log --oneline -5"},
        f"{commit} Round invoice totals per line\n"
        + noise_lines(rng, 4, lambda r: f"{hexits(r, 12)} {prose(r, 1)}"),
    )
    b.user("Store the amounts as floats for now, that's simplest.")
    b.tool(
        "Fixing the rounding.",
        "edit_file",
        {"path": edited, "old": "round(total, 2)", "new": "quantize(total)"},
        f"edited {edited}: 1 replacement",
    )
    b.tool(
        "Adding a currency helper.",
        "write_file",
        {"path": created, "content": "def to_minor(amount): ..."},
        f"created {created} (42 lines)",
    )
    b.tool(
        "Running the tests.",
        "run",
        {"command": f"pytest {test_a} -q"},
        f"{test_a} ....\n4 passed in 0.31s",
    )
    b.tool(
        "And the new helper's tests.",
        "run",
        {"command": f"pytest {test_b} -q"},
        f"{test_b} .F\nFAILED {test_b}::test_to_minor_negative - AssertionError: -105 != -106"
        "\n1 failed, 1 passed",
    )
    b.assistant(
        f"I added migration {migration} for the currency column. The helper test still "
        "fails on negative amounts."
    )
    b.user(
        "Actually, no floats for money: use Decimal for every amount. Also, when the tests pass, "
        f"the next step is to add pagination to the {endpoint} endpoint. Don't start it "
        "before they pass."
    )
    b.assistant(
        f"Understood: Decimal for every amount, and pagination for {endpoint} once the tests pass."
    )
    opening = b.take()
    probes = [
        Probe("identifier", "Which feature flag guards the change?", flag, ((flag,),)),
        Probe("identifier", "Which commit rounds invoice totals per line?", commit, ((commit,),)),
        Probe("identifier", "What is the new migration called?", migration, ((migration,),)),
        Probe(
            "artifact",
            f"What is the state of {edited}?",
            f"{edited} was modified and its tests passed",
            ((edited,), ("modified", "edited", "changed"), ("passed", "pass")),
        ),
        Probe(
            "artifact",
            f"What is the state of {created}?",
            f"{created} was created and its tests fail",
            ((created,), ("created", "new file", "added"), ("failed", "fail", "failing")),
        ),
        Probe(
            "decision",
            "How must money amounts be represented?",
            "As Decimal (the user overrode the earlier instruction to use floats)",
            (("decimal",), ("money", "amount")),
        ),
        Probe(
            "next_step",
            "What is the next step once the tests pass?",
            f"Add pagination to {endpoint}",
            (("pagination",), (endpoint,)),
        ),
    ]

    def filler(r: random.Random) -> None:
        other = f"src/{r.choice(_MODULES)}/{r.choice(_FILES)}_{token(r, 3).lower()}.py"
        b.user(f"Side question: what does {other} do? {prose(r, 1)}")
        b.tool(
            "Reading it.",
            "read_file",
            {"path": other},
            noise_lines(
                r, 40, lambda q: f"    {hexits(q, 6)} = call_{hexits(q, 4)}(ref='{token(q, 10)}')"
            ),
        )
        b.tool(
            "Searching for callers.",
            "run",
            {"command": f"grep -rn {hexits(r, 6)} src"},
            noise_lines(
                r,
                25,
                lambda q: (
                    f"src/{q.choice(_MODULES)}/{hexits(q, 5)}.py:{q.randint(1, 900)}: {prose(q, 1)}"
                ),
            ),
        )
        b.assistant(f"It is a helper for the {r.choice(WORDS)} path. {prose(r, 3)}")
        b.user(f"While you're there, fix the typo that ticket BUG-{r.randint(100, 9999)} reports.")
        b.tool(
            "Fixing it.",
            "edit_file",
            {"path": other, "old": "recieve", "new": "receive"},
            f"edited {other}: 1 replacement",
        )
        test = f"tests/{other.split('/')[1]}/test_{other.rsplit('/', 1)[1]}"
        b.tool(
            "Testing it.",
            "run",
            {"command": f"pytest {test} -q"},
            f"{test} ..\n{r.randint(2, 9)} passed in 0.{r.randint(10, 99)}s",
        )
        b.assistant(f"Fixed the typo in {other}; its tests pass (build {hexits(r, 10)}).")

    return opening, segments_of(rng, b, segments, filler), probes


_ASIDES = ("how long is the warranty", "do you ship abroad", "can I change my email")


# --- support -----------------------------------------------------------------------------


def _support(rng: random.Random, b: Builder, segments: int) -> Parts:
    order = f"ORD-{token(rng, 5)}-{rng.randint(1000, 9999)}"
    tracking = f"1Z{token(rng, 16)}"
    ticket = f"TCK-{rng.randint(10000, 99999)}"
    refund = f"RF-{token(rng, 6)}"
    street = f"{rng.randint(10, 999)} {rng.choice(['Linden', 'Harbor', 'Maple', 'Quarry'])} Street"
    b.user(
        f"Hi, my blender from order {order} arrived broken. I want a replacement, and it "
        "must arrive "
        "before Friday. Please ship it to my work address."
    )
    b.tool(
        "Looking up the order.",
        "lookup_order",
        {"order_id": order},
        f"order {order}: 1x Blender Pro 900, shipped, carrier UPS, tracking {tracking}\n"
        + noise_lines(rng, 12, lambda r: f"event {hexits(r, 8)}: {prose(r, 1)}"),
    )
    b.tool(
        "Opening a ticket.",
        "update_ticket",
        {"ticket_id": ticket, "status": "escalated"},
        f"ticket {ticket} status: escalated (to warehouse team)",
    )
    b.tool(
        "Starting the refund of the shipping fee.",
        "issue_refund",
        {"order_id": order, "amount": "9.99"},
        f"refund {refund} created for 9.99 USD, status: pending approval",
    )
    b.assistant(f"I escalated ticket {ticket} and started refund {refund} for the shipping fee.")
    b.user(
        "Correction: don't send it to my work address. Ship it to my home address, "
        f"{street}, instead."
    )
    b.assistant(f"Noted: the replacement goes to your home address, {street}.")
    b.user(f"Once the refund is approved, please email me the return label for {order}.")
    b.assistant("I will email you the return label as soon as the refund is approved.")
    opening = b.take()
    probes = [
        Probe("identifier", "Which order is affected?", order, ((order,),)),
        Probe(
            "identifier", "What is the tracking number of the shipment?", tracking, ((tracking,),)
        ),
        Probe("identifier", "What is the refund id?", refund, ((refund,),)),
        Probe(
            "artifact",
            f"What is the status of ticket {ticket}?",
            f"{ticket} is escalated",
            ((ticket,), ("escalated",)),
        ),
        Probe(
            "artifact",
            f"What is the status of refund {refund}?",
            f"{refund} is pending approval",
            ((refund,), ("pending",)),
        ),
        Probe(
            "decision",
            "Where must the replacement be shipped?",
            f"To the home address, {street} (the customer overrode the work address)",
            (("home",), (street.lower(),)),
        ),
        Probe(
            "next_step",
            "What is the next step once the refund is approved?",
            f"Email the customer the return label for {order}",
            (("return label",),),
        ),
    ]

    def filler(r: random.Random) -> None:
        article = f"KB-{r.randint(1000, 9999)}"
        b.user(f"Also, unrelated: {r.choice(_ASIDES)}? {prose(r, 1)}")
        b.tool(
            "Checking the knowledge base.",
            "search_kb",
            {"query": prose(r, 1)},
            noise_lines(
                r, 30, lambda q: f"KB-{q.randint(1000, 9999)} ({token(q, 6)}): {prose(q, 1)}"
            ),
        )
        b.tool(
            "Reading the article.", "read_article", {"id": article}, f"{article}\n{prose(r, 12)}"
        )
        b.assistant(f"According to {article}: {prose(r, 3)}")
        other = f"TCK-{r.randint(10000, 99999)}"
        b.user(
            f"My colleague's case is {other}, can you note that it's resolved? Ref {token(r, 8)}."
        )
        b.tool(
            "Updating it.",
            "update_ticket",
            {"ticket_id": other, "status": "resolved"},
            f"ticket {other} status: resolved",
        )
        b.assistant(f"Ticket {other} is marked resolved (log {hexits(r, 10)}).")

    return opening, segments_of(rng, b, segments, filler), probes


# --- research ----------------------------------------------------------------------------


def _research(rng: random.Random, b: Builder, segments: int) -> Parts:
    topic = rng.choice(["sleep and memory", "urban heat islands", "microplastics in rivers"])
    year, number = rng.randint(2015, 2025), rng.randint(100, 999)
    doi = f"10.{rng.randint(1000, 9999)}/{token(rng, 4).lower()}.{year}.{number}"
    cohort = f"{rng.randint(1, 9)},{rng.randint(100, 999)}"
    dataset = f"ds-{hexits(rng, 8)}"
    notes = f"notes/{topic.split()[0]}_sources.md"
    draft = f"drafts/{topic.split()[-1]}_review.md"
    b.user(
        f"Research question: what is the evidence on {topic}? I need a two-page review by Monday "
        "with every claim cited. Only use peer-reviewed sources."
    )
    b.tool(
        "Searching.",
        "search",
        {"query": topic},
        f"1. Meta-analysis of {topic} (doi:{doi})\n"
        + noise_lines(
            rng,
            15,
            lambda r: (
                f"{r.randint(2, 40)}. {prose(r, 1)} (doi:10.{r.randint(1000, 9999)}/{hexits(r, 6)})"
            ),
        ),
    )
    b.tool(
        "Reading the meta-analysis.",
        "fetch",
        {"url": f"https://doi.org/{doi}"},
        f"Abstract. Pooled cohort n = {cohort}; dataset {dataset}. " + prose(rng, 10),
    )
    b.tool(
        "Saving the sources.",
        "write_file",
        {"path": notes, "content": f"- doi:{doi}"},
        f"created {notes}",
    )
    b.tool(
        "Updating the draft.",
        "edit_file",
        {"path": draft, "old": "TODO intro", "new": "Intro with citations"},
        f"edited {draft}: 1 replacement",
    )
    b.assistant(f"The meta-analysis pools a cohort of n = {cohort} from dataset {dataset}.")
    b.user(
        "Actually, preprints are fine too, but label every preprint as a preprint in the review."
    )
    b.assistant("Understood: preprints are allowed, each labelled as a preprint.")
    b.user("Next, compare the effect sizes of the two meta-analyses in a table.")
    b.assistant("I will build the effect size comparison table next.")
    opening = b.take()
    probes = [
        Probe("identifier", "What is the DOI of the meta-analysis?", doi, ((doi,),)),
        Probe("identifier", "What is the pooled cohort size?", cohort, ((cohort,),)),
        Probe("identifier", "Which dataset does the meta-analysis use?", dataset, ((dataset,),)),
        Probe(
            "artifact",
            f"What is the state of {notes}?",
            f"{notes} was created",
            ((notes,), ("created", "new file", "written")),
        ),
        Probe(
            "artifact",
            f"What is the state of {draft}?",
            f"{draft} was modified",
            ((draft,), ("modified", "edited", "changed", "updated")),
        ),
        Probe(
            "decision",
            "Which sources may the review use?",
            "Peer-reviewed sources and preprints, each preprint labelled (the user relaxed "
            "the earlier rule)",
            (("preprint",),),
        ),
        Probe(
            "next_step",
            "What is the next step?",
            "Compare the effect sizes of the two meta-analyses in a table",
            (("effect size",), ("table",)),
        ),
    ]

    def filler(r: random.Random) -> None:
        b.user(f"Quick aside: {prose(r, 1)} Is that covered anywhere?")
        b.tool(
            "Searching.",
            "search",
            {"query": prose(r, 1)},
            noise_lines(
                r,
                25,
                lambda q: (
                    f"{q.randint(1, 30)}. {prose(q, 1)} "
                    f"(doi:10.{q.randint(1000, 9999)}/{hexits(q, 6)})"
                ),
            ),
        )
        b.tool(
            "Reading one.", "fetch", {"url": f"https://example.org/{hexits(r, 10)}"}, prose(r, 14)
        )
        b.assistant(f"Partly. {prose(r, 3)}")
        note = f"notes/aside_{hexits(r, 4)}.md"
        b.user(f"Save that under {note} and cite doi:10.{r.randint(1000, 9999)}/{hexits(r, 6)}.")
        b.tool("Saving.", "write_file", {"path": note, "content": prose(r, 2)}, f"created {note}")
        b.assistant(f"Saved {note} (checksum {hexits(r, 10)}).")

    return opening, segments_of(rng, b, segments, filler), probes


_KINDS = {"coding": _coding, "support": _support, "research": _research}


def generate_session(kind: SessionKind, seed: int, *, segments: int = 10) -> Session:
    """The session of ``kind`` for ``seed``: the same seed always gives the same session."""
    return build_session(_KINDS, kind, seed, segments, seed_prefix="", label="session")

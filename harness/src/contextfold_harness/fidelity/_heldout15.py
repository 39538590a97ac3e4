# ruff: noqa: E501
"""The fifteenth held-out set: six long-running agent sessions, each in another language
and on another stack, written blind (without the compaction code, the other sets or
their results).

``vercel_checkout_sl``
    a Next.js 14 shop on Vercel whose checkout returns 500 after a deploy (vercel CLI,
    pnpm, git, gh); Slovenian.
``elastic_watermark_lv``
    a yellow Elasticsearch 8 logging cluster with a data node over the disk watermark,
    run by curl against the _cat, ILM, snapshot and task APIs; Latvian.
``sam_orders_mk``
    an orders API on AWS SAM (Lambda, DynamoDB, SQS, EventBridge) timing out on a
    partner's API, read through CloudWatch logs and the aws CLI; Macedonian (Cyrillic).
``vault_leases_mr``
    a HashiCorp Vault raft cluster whose database secrets engine exhausts Postgres
    connections (leases, PKI, AppRole, policies, audit devices); Marathi (Devanagari).
``wpcli_shop_sq``
    a WooCommerce bookshop on a VPS, slow and double-charging after a plugin update,
    run with wp-cli, nginx and php-fpm; Albanian.
``rabbitmq_backlog_az``
    a three-node RabbitMQ 3.12 cluster with a memory alarm and a growing backlog
    (rabbitmqctl, rabbitmq-diagnostics, rabbitmqadmin); Azerbaijani.

Each opening plants seven probes, in an order the seed shuffles, among long tool
outputs in the tools' own formats and decoys of the same shape: three identifiers of
different types (a deployment id, a short commit hash and an issue number; a node id,
a snapshot name and a task id; a RequestId, an SQS ARN and a ticket key; a lease id, a
certificate serial and a token accessor; an order id, a plugin version and an IP; a
node name, a consumer tag and a message_id), some only inside a table, JSON or log,
some also in prose, next to same-shaped values that are not asked about (the last good
deployment beside the broken one, the PARTIAL snapshot after the good one, the
cancelled task, the other RequestIds, the user's wrong suspect commit); two artifacts
picked from a pool of four or five (a file, branch, env variable, cron, index, ILM
policy, table, bucket, rule, parameter, policy, secrets engine, AppRole role, audit
device, plugin, option, user, queue, exchange...) and what happened to them, told by
the tool's output, only by the agent, or both; one decision from two topics, dictated,
corrected later by the user (the earlier value stays in the history as a decoy),
proposed by the agent and approved or changed, relayed from a colleague, or the user's
answer to the agent's question; and one next step: the user's, with a date, or with a
condition mentioned in passing inside a message about something else, or the agent's
promise. The filler segments are later work on the same system (two or three
exchanges each, with tool calls) and never repeat a probed value or name.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    segments_of,
    token,
)

__all__ = ["HELDOUT15_KINDS", "generate_heldout15"]

Chunk = Callable[[], None]
_LOW = string.ascii_lowercase + string.digits
_B62 = string.ascii_letters + string.digits
_EN_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def _uniq(rng: random.Random, make: Callable[[random.Random], str], n: int) -> list[str]:
    """``n`` distinct values of ``make``."""
    out: list[str] = []
    while len(out) < n:
        value = make(rng)
        if value not in out:
            out.append(value)
    return out


def _arrange(
    rng: random.Random, chunks: list[Chunk], pairs: list[tuple[Chunk, Chunk]]
) -> list[Chunk]:
    """The chunks in a seeded order; of each pair, the second comes later than the first."""
    order = list(chunks)
    rng.shuffle(order)
    for first, second in pairs:
        i = rng.randint(0, len(order))
        order.insert(i, first)
        order.insert(rng.randint(i + 1, len(order)), second)
    return order


def _date(rng: random.Random) -> tuple[int, int]:
    return rng.randint(3, 27), rng.randint(1, 12)


def _date_needles(day: int, month: int, *local: str) -> tuple[str, ...]:
    """A deadline as the session writes it and as a summary in English may write it."""
    en = _EN_MONTHS[month - 1]
    return (
        *local,
        f"{en} {day}",
        f"{day} {en}",
        f"{en[:3]} {day}",
        f"{day} {en[:3]}",
        f"{day}.{month}.",
        f"{day}. {month}.",
        f"-{month:02d}-{day:02d}",
        f"{day}/{month}",
    )


@dataclass(frozen=True, slots=True)
class _Art:
    """A named thing and what happened to it, told by a tool's output, the agent, or both."""

    names: tuple[str, ...]
    states: tuple[str, ...]
    question: str
    answer: str
    ask: str
    lead: str
    cmd: str
    loud: str
    quiet: str
    said: str
    plain: str
    modes: tuple[str, ...] = ("tool", "prose", "both")
    quiet_cmd: str = ""


def _art_chunk(rng: random.Random, b: Builder, art: _Art, probes: list[Probe]) -> Chunk:
    mode = rng.choice(art.modes)
    probes.append(Probe("artifact", art.question, art.answer, (art.names, art.states)))

    def run() -> None:
        b.user(art.ask)
        cmd = art.quiet_cmd if mode == "prose" and art.quiet_cmd else art.cmd
        b.tool(art.lead, "bash", {"command": cmd}, art.quiet if mode == "prose" else art.loud)
        b.assistant(art.plain if mode == "tool" else art.said)

    return run


@dataclass(frozen=True, slots=True)
class _Topic:
    """A decision's topic: what the user, a colleague or the agent says about it."""

    question: str
    answer: Callable[[str], str]
    needles: Callable[[str], tuple[tuple[str, ...], ...]]
    values: tuple[str, ...]
    ctx: str
    look: tuple[str, str, str]
    dictate: Callable[[str], str]
    first: Callable[[str], str]
    correct: Callable[[str, str], str]
    propose: Callable[[str], str]
    approve: tuple[str, ...]
    modify: Callable[[str, str], str]
    relay: Callable[[str], str]
    ask: Callable[[str, str], str]
    reply: Callable[[str], str]
    apply: Callable[[str], tuple[str, str, str]]
    ack: Callable[[str], str]
    filler: tuple[str, ...]


def _decision(
    rng: random.Random,
    b: Builder,
    topics: tuple[_Topic, ...],
    probes: list[Probe],
    chunks: list[Chunk],
    pairs: list[tuple[Chunk, Chunk]],
) -> None:
    """Plants the decision probe: dictated, corrected later, proposed and approved or
    modified, relayed from a colleague, or the user's answer to the agent's question."""
    t = rng.choice(topics)
    value, other = rng.sample(t.values, 2)
    mode = rng.choice(("dictate", "correct", "approve", "modify", "relay", "answer"))
    probes.append(Probe("decision", t.question, t.answer(value), t.needles(value)))

    def apply(v: str) -> None:
        lead, cmd, out = t.apply(v)
        b.tool(lead, "bash", {"command": cmd}, out)

    def look() -> None:
        lead, cmd, out = t.look
        b.tool(lead, "bash", {"command": cmd}, out)

    if mode == "correct":

        def early() -> None:
            b.user(t.first(other))
            apply(other)
            b.assistant(t.ack(other))

        def late() -> None:
            b.user(t.correct(value, other))
            apply(value)
            b.assistant(t.ack(value))

        pairs.append((early, late))
        return

    def run() -> None:
        if mode in ("dictate", "relay"):
            b.user(t.dictate(value) if mode == "dictate" else t.relay(value))
            look()
            apply(value)
            b.assistant(t.ack(value))
            return
        b.user(t.ctx)
        look()
        if mode == "approve":
            b.assistant(t.propose(value))
            b.user(rng.choice(t.approve))
        elif mode == "modify":
            b.assistant(t.propose(other))
            b.user(t.modify(value, other))
        else:
            a, c = (value, other) if rng.random() < 0.5 else (other, value)
            b.assistant(t.ask(a, c))
            b.user(t.reply(value))
        apply(value)
        b.assistant(t.ack(value))

    chunks.append(run)


def _kind(
    rng: random.Random,
    b: Builder,
    segments: int,
    intro: Chunk,
    chunks: list[Chunk],
    pairs: list[tuple[Chunk, Chunk]],
    filler: Callable[[random.Random], None],
    probes: list[Probe],
) -> Parts:
    intro()
    for chunk in _arrange(rng, chunks, pairs):
        chunk()
    opening = b.take()
    return opening, segments_of(rng, b, segments, filler), probes


def _stamp(rng: random.Random, day: str, hour: int) -> str:
    return f"{day}T{hour:02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z"


def _uuid(rng: random.Random) -> str:
    h = hexits(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


# --------------------------------------------------------------------------------------
# Slovenian: a Next.js 14 shop on Vercel (vercel CLI, pnpm, git, gh)

_SL_MONTHS = (
    "januarja",
    "februarja",
    "marca",
    "aprila",
    "maja",
    "junija",
    "julija",
    "avgusta",
    "septembra",
    "oktobra",
    "novembra",
    "decembra",
)
_SL_COMMITS = (
    "fix(cart): keep quantity when variant changes",
    "style(cart): tighten spacing on mobile",
    "chore(deps): bump next from 14.1.4 to 14.2.3",
    "feat(catalog): filter by frame size",
    "fix(i18n): missing sl translations on /kosarica",
    "refactor(api): move price helpers to lib/cene.ts",
    "feat(search): debounce search input",
    "test(cart): cover coupon edge cases",
    "fix(images): use sizes prop on product gallery",
    "chore: update eslint config",
    "feat(account): order history pagination",
    "fix(catalog): sort by price ascending was reversed",
)


def _sl_vercel(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    chunks: list[Chunk] = []
    pairs: list[tuple[Chunk, Chunk]] = []
    users = ("tina-kos", "luka-novak", "maja-zupan")
    dpl = _uniq(rng, lambda r: "dpl_" + token(r, 24, _B62), 3)
    urls = _uniq(
        rng,
        lambda r: (
            f"kolesnik-{token(r, 9, string.ascii_lowercase + string.digits)}-kolesnik.vercel.app"
        ),
        9,
    )
    shas = _uniq(rng, lambda r: hexits(r, 7), 16)
    nums = _uniq(rng, lambda r: str(r.randint(1100, 1999)), 8)
    culprit, suspect = shas[0], shas[1]
    issue, other_issue = nums[0], nums[1]
    day = rng.randint(3, 26)
    reqs = [
        f"fra1::iad1::{token(rng, 5, string.ascii_lowercase + string.digits)}-{rng.randint(1717000000000, 1717999999999)}-{hexits(rng, 12)}"
        for _ in range(6)
    ]

    def ls_out() -> str:
        ages = ("16h", "19h", "1d", "1d", "2d", "3d", "3d", "4d", "6d")
        envs = (
            "Production",
            "Preview",
            "Production",
            "Preview",
            "Preview",
            "Production",
            "Preview",
            "Preview",
            "Production",
        )
        rows = [
            f"  {ages[i]:<7} https://{u:<47} {'● Error' if i == 3 else '● Ready':<11} {envs[i]:<15} {rng.randint(38, 97)}s          {rng.choice(users)}"
            for i, u in enumerate(urls)
        ]
        head = "  Age     Deployment                                             Status      Environment     Duration     Username"
        return (
            "Vercel CLI 33.5.1\n> Deployments for kolesnik/kolesnik [688ms]\n\n"
            + head
            + "\n"
            + "\n".join(rows)
            + "\n\n> To display the next page, run `vercel ls --next 1717412345678`"
        )

    def inspect_out(url: str, ident: str, when: str) -> str:
        fns = [
            "api/checkout",
            "api/products",
            "api/cart",
            "api/auth/[...nextauth]",
            "izdelki/[slug]",
            "kategorije/[kat]",
        ]
        builds = "\n".join(
            f"    ├── λ {f} ({rng.randint(600, 1900) / 1000:.2f}MB) [iad1]" for f in fns
        )
        return (
            f'Vercel CLI 33.5.1\n> Fetched deployment "{url}" in kolesnik [{rng.randint(300, 700)}ms]\n\n  General\n\n'
            f"    id\t\t{ident}\n    name\tkolesnik\n    target\tproduction\n    status\t● Ready\n"
            f"    url\t\thttps://{url}\n    created\t{when}\n\n  Aliases\n\n    ╶ https://kolesnik.si\n    ╶ https://www.kolesnik.si\n    ╶ https://kolesnik-git-main-kolesnik.vercel.app\n\n"
            f"  Builds\n\n    ┌ .        [0ms]\n{builds}\n    └── ◇ static (212 files) [0ms]"
        )

    def logs_out() -> str:
        lines = []
        times = sorted(
            f"{rng.randint(7, 11):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 99):02d}"
            for _ in range(rng.randint(14, 20))
        )
        for i, t in enumerate(times):
            if i % 3 == 1:
                lines.append(f"{t}  POST  500  kolesnik.si  λ /api/checkout")
                lines.append("TypeError: Cannot read properties of undefined (reading 'id')")
                lines.append(
                    f"    at POST (/var/task/.next/server/app/api/checkout/route.js:1:{rng.randint(1800, 2600)})"
                )
                lines.append(f"    request id: {rng.choice(reqs)}")
            else:
                path = rng.choice(
                    (
                        "/api/products?kat=gorska",
                        "/api/cart",
                        "/izdelki/shimano-xt-m8100",
                        "/api/auth/session",
                        "/kategorije/cestna",
                    )
                )
                lines.append(f"{t}  GET   200  kolesnik.si  λ {path}")
        return "Vercel CLI 33.5.1\n> Fetching deployment logs for kolesnik.si\n\n" + "\n".join(
            lines
        )

    def git_log(first: str) -> str:
        msgs = list(_SL_COMMITS)
        rng.shuffle(msgs)
        rows = [f"{shas[i + 2]} {m} (#{rng.randint(1100, 1999)})" for i, m in enumerate(msgs[:11])]
        rows.insert(
            rng.randint(0, 2),
            f"{culprit} feat(checkout): migrate to PaymentIntents with saved customers (#{nums[2]})",
        )
        rows.insert(
            rng.randint(3, 6), f"{suspect} style(cart): new coupon badge on /kosarica (#{nums[3]})"
        )
        return "\n".join(rows)

    # ------ intro
    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Živjo! Po včerajšnjem deployu na produkcijo checkout na kolesnik.si pri plačilu s kartico vrača 500. Repo je v ~/koda/kolesnik (Next.js 14, App Router, pnpm), Vercel CLI je prijavljen v ekipo kolesnik. Poglej, kaj se dogaja, prosim — sproti pa bom omenil še nekaj drobnarij, ki jih je treba pospraviti.",
                    "Pozdravljen. Stranke od včeraj popoldne javljajo, da plačilo s kartico na kolesnik.si ne gre skozi (napaka 500). Projekt je ~/koda/kolesnik, deploya se na Vercel v ekipo kolesnik. Najprej ugotovi, kaj je narobe, potem se lotiva še ostalega.",
                )
            )
        )
        b.tool(
            "Najprej pogledam zadnje deploymente.",
            "bash",
            {"command": "vercel ls kolesnik"},
            ls_out(),
        )
        b.assistant(
            f"Zadnji produkcijski deployment je https://{urls[0]} (pred 16 urami), pred njim je bil v produkciji https://{urls[2]}. En preview build ({urls[3]}) je padel, a ta ni v produkciji. Zdaj pogledam runtime loge produkcije."
        )

    # ------ noise
    def logs() -> None:
        b.user(
            rng.choice(
                (
                    "Kaj pravijo logi?",
                    "Pokaži mi, kaj se dogaja v runtime logih.",
                    "Preveri loge funkcij, prosim.",
                )
            )
        )
        b.tool(
            "Berem runtime loge produkcijskega deploymenta.",
            "bash",
            {"command": "vercel logs kolesnik.si --since 2h"},
            logs_out(),
        )
        b.assistant(
            "Vsi POST-i na /api/checkout padejo s TypeError: Cannot read properties of undefined (reading 'id'). GET zahtevki (izdelki, košarica, seja) so v redu. Napaka je v handlerju checkouta, ne v infrastrukturi."
        )

    def code() -> None:
        b.user("Pokaži mi handler za checkout.")
        src = (
            "import { NextResponse } from 'next/server'\nimport Stripe from 'stripe'\nimport { getServerSession } from 'next-auth'\nimport { authOptions } from '@/lib/auth'\nimport { izracunajKosarico } from '@/lib/cene'\n\n"
            "const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!, { apiVersion: '2024-04-10' })\n\n"
            "export async function POST(req: Request) {\n  const session = await getServerSession(authOptions)\n  const { items, kupon } = await req.json()\n  const znesek = await izracunajKosarico(items, kupon)\n\n"
            "  // shranjene kartice: vezano na Stripe customerja\n  const intent = await stripe.paymentIntents.create({\n    amount: znesek.centi,\n    currency: 'eur',\n    customer: session.user.stripeCustomer.id,\n    automatic_payment_methods: { enabled: true },\n    metadata: { kosarica: znesek.id },\n  })\n\n"
            "  return NextResponse.json({ clientSecret: intent.client_secret })\n}\n"
        )
        b.tool(
            "Berem datoteko.",
            "bash",
            {"command": "cat -n app/api/checkout/route.ts | sed -n 1,40p"},
            "\n".join(f"{i + 1:>6}\t{line}" for i, line in enumerate(src.splitlines())),
        )
        b.assistant(
            "Težava: `session.user.stripeCustomer.id` predpostavlja, da ima vsak prijavljen uporabnik Stripe customerja, gostje (brez seje) in stari računi pa ga nimajo — od tod `reading 'id'`. Popravek: customerja ustvarim po potrebi, za goste pa ga izpustim."
        )

    def build() -> None:
        b.user(
            rng.choice(
                (
                    "Ali lokalni build uspe?",
                    "Preveri še, da se projekt lokalno zgradi.",
                    "Zaženi build, da vidiva, ali je vse ok.",
                )
            )
        )
        routes = [
            "/",
            "/_not-found",
            "/api/auth/[...nextauth]",
            "/api/cart",
            "/api/checkout",
            "/api/products",
            "/izdelki/[slug]",
            "/kategorije/[kat]",
            "/kosarica",
            "/racun",
            "/racun/narocila",
        ]
        table = "\n".join(
            f"{'┌' if i == 0 else '└' if i == len(routes) - 1 else '├'} {'λ' if 'api' in r or '[' in r else '○'} {r:<32} {rng.randint(140, 9800) / 1000:.2f} kB {rng.randint(84, 190)} kB"
            for i, r in enumerate(routes)
        )
        out = (
            "> kolesnik@0.14.2 build /home/tina/koda/kolesnik\n> next build\n\n  ▲ Next.js 14.2.3\n  - Environments: .env.local\n\n   Creating an optimized production build ...\n ✓ Compiled successfully\n ✓ Linting and checking validity of types\n ✓ Collecting page data\n"
            f" ✓ Generating static pages (14/14)\n ✓ Finalizing page optimization\n\nRoute (app)                              Size     First Load JS\n{table}\n+ First Load JS shared by all            87.3 kB\n\n○  (Static)   prerendered as static content\nλ  (Dynamic)  server-rendered on demand"
        )
        b.tool("Gradim.", "bash", {"command": "pnpm build"}, out)
        b.assistant(
            "Build uspe brez opozoril; napaka se pokaže šele ob izvajanju, ko pride zahtevek brez Stripe customerja."
        )

    def tests() -> None:
        b.user("Popravi handler in zaženi teste.")
        b.tool(
            "Urejam handler.",
            "str_replace_editor",
            {
                "command": "str_replace",
                "path": "app/api/checkout/route.ts",
                "old_str": "    customer: session.user.stripeCustomer.id,",
                "new_str": "    customer: await poiščiAliUstvariCustomerja(session),",
            },
            "The file app/api/checkout/route.ts has been edited.",
        )
        names = [
            "cene.test.ts",
            "kosarica.test.ts",
            "kupon.test.ts",
            "checkout.test.ts",
            "iskanje.test.ts",
            "racun.test.ts",
        ]
        lines = "\n".join(
            f" ✓ tests/{n} ({rng.randint(3, 24)} tests) {rng.randint(12, 640)}ms" for n in names
        )
        b.tool(
            "Zaganjam vitest.",
            "bash",
            {"command": "pnpm vitest run"},
            f" RUN  v1.6.0 /home/tina/koda/kolesnik\n\n{lines}\n\n Test Files  6 passed (6)\n      Tests  {rng.randint(60, 99)} passed\n   Start at  10:{rng.randint(10, 59)}:0{rng.randint(0, 9)}\n   Duration  {rng.randint(2, 9)}.{rng.randint(10, 99)}s",
        )
        b.assistant(
            "Vsi testi gredo skozi, dodal sem tudi primer za gosta brez seje. Spremenljivko NEXT_PUBLIC_SITE_URL sem pustil pri miru, čeprav sem jo najprej hotel preimenovati."
        )

    chunks += [logs, code, build, tests]

    # ------ identifiers
    broken = rng.random() < 0.5
    named = rng.random() < 0.5

    def deployments() -> None:
        b.user(
            rng.choice(
                (
                    "Kateri deployment točno je pokvaril checkout? In kateri je bil zadnji dober, če bomo morali nazaj?",
                    "Primerjaj zadnja dva produkcijska deploymenta — rabim ID-ja za poročilo.",
                )
            )
        )
        b.tool(
            "Pregledam pokvarjenega.",
            "bash",
            {"command": f"vercel inspect https://{urls[0]}"},
            inspect_out(urls[0], dpl[0], f"Mon Jun {day:02d} 2024 17:41:09 GMT+0200 [16h]"),
        )
        b.tool(
            "In prejšnjega v produkciji.",
            "bash",
            {"command": f"vercel inspect https://{urls[2]}"},
            inspect_out(urls[2], dpl[1], f"Sun Jun {day - 1:02d} 2024 11:05:52 GMT+0200 [1d]"),
        )
        if named:
            b.assistant(
                f"Pokvarjen je {dpl[0]} (produkcija od včeraj ob 17:41), zadnji dober pa {dpl[1]} od predvčerajšnjim. Preview {urls[3]} je padel že na buildu in ni nikoli šel v produkcijo."
            )
        else:
            b.assistant(
                "Pokvarjen je prvi izpis (produkcija od včeraj ob 17:41), zadnji dober pa drugi, od predvčerajšnjim — ID-ja sta zgoraj pod General. Oba imata iste aliase, tako da bi bil rollback takojšen."
            )

    which = dpl[0] if broken else dpl[1]
    probes.append(
        Probe(
            "identifier",
            "What is the Vercel deployment id of the production deployment that broke checkout?"
            if broken
            else "What is the Vercel deployment id of the last good production deployment (the one before the broken one)?",
            which,
            ((which,),),
        )
    )

    suspects = rng.random() < 0.6

    def commit() -> None:
        if suspects:
            b.user(f"Mislim, da je kriv {suspect} — tisti s kuponi v košarici. Preveri.")
        else:
            b.user(
                rng.choice(
                    ("Kateri commit je to vnesel?", "Najdi commit, ki je pokvaril checkout.")
                )
            )
        b.tool(
            "Zgodovina main.", "bash", {"command": "git log --oneline -n 13 main"}, git_log(culprit)
        )
        b.tool(
            "Kaj spremeni kandidat.",
            "bash",
            {"command": f"git show --stat {culprit}"},
            f"commit {culprit}{hexits(rng, 33)}\nAuthor: Luka Novak <luka@kolesnik.si>\nDate:   Mon Jun {day:02d} 16:58:31 2024 +0200\n\n    feat(checkout): migrate to PaymentIntents with saved customers (#{nums[2]})\n\n app/api/checkout/route.ts   | 31 +++++++++++++++++++------------\n lib/stripe.ts               | 12 ++++++++++++\n prisma/schema.prisma        |  3 +++\n 3 files changed, 34 insertions(+), 12 deletions(-)",
        )
        lead = f"{suspect} ni kriv, spremeni samo CSS značke za kupon. " if suspects else ""
        b.assistant(
            lead
            + f"Napako je vnesel {culprit} (migracija na PaymentIntents s shranjenimi customerji): od takrat handler bere `session.user.stripeCustomer.id` brez preverjanja."
        )

    probes.append(
        Probe(
            "identifier",
            "Which commit (short hash) introduced the checkout 500 error?",
            culprit,
            ((culprit,),),
        )
    )

    opened = rng.random() < 0.5

    def ticket() -> None:
        if opened:
            b.user("Odpri issue za incident, da bo Maja videla, kaj se je zgodilo.")
            b.tool(
                "Odpiram issue.",
                "bash",
                {
                    "command": "gh issue create --title 'Checkout 500 po deployu PaymentIntents' --label incident --body-file /tmp/incident.md"
                },
                f"\nCreating issue in kolesnik/kolesnik\n\nhttps://github.com/kolesnik/kolesnik/issues/{issue}",
            )
            b.assistant(
                f"Odprl sem issue #{issue} z oznako incident; notri so časovnica, stack trace in povezava na PR #{nums[2]}. Starega #{other_issue} (kuponi) nisem spreminjal."
            )
        else:
            b.user(
                f"Incident zabeleži v GitHub issue #{issue}, tam že zbiramo pritožbe strank. #{other_issue} je za kupone, tega ne mešaj zraven."
            )
            b.tool(
                "Dodajam komentar.",
                "bash",
                {"command": f"gh issue comment {issue} --body-file /tmp/incident.md"},
                f"https://github.com/kolesnik/kolesnik/issues/{issue}#issuecomment-{rng.randint(2100000000, 2199999999)}",
            )
            b.assistant("Komentar s časovnico, stack traceom in vzrokom je dodan.")

    probes.append(
        Probe(
            "identifier",
            "Which GitHub issue number did the agent open for the checkout incident?"
            if opened
            else "Under which GitHub issue number did the user want the checkout incident logged?",
            f"#{issue}",
            ((f"#{issue}",),),
        )
    )
    chunks += [deployments, commit, ticket]

    # ------ artifacts
    env = rng.choice(
        ("STRIPE_WEBHOOK_SECRET_OLD", "NEXT_PUBLIC_GA_ID", "KV_REST_API_READ_ONLY_TOKEN")
    )
    branch = rng.choice(("feat/kosarica-v2", "feat/kuponi-poletje", "fix/stari-checkout"))
    cron = rng.choice(
        ("/api/cron/sync-zaloga", "/api/cron/pocisti-kosarice", "/api/cron/tecaji-eur")
    )
    route = rng.choice(("app/api/revalidate/route.ts", "app/api/health/route.ts"))
    sha2 = hexits(rng, 7)
    arts = [
        _Art(
            (env,),
            ("removed", "odstranil", "odstranjen", "deleted", "izbrisal"),
            "What happened to the unused environment variable in the Vercel Preview environment, and which one was it?",
            f"{env} was removed from the Preview environment.",
            f"V Preview okolju imamo še {env}, ki ga nihče več ne uporablja. Pospravi to, prosim.",
            "Urejam spremenljivke okolja.",
            f"vercel env rm {env} preview --yes",
            f"Vercel CLI 33.5.1\n> Removing Environment Variable {env} from Preview in kolesnik/kolesnik\n> Success! Removed Environment Variable {env} [231ms]",
            "Vercel CLI 33.5.1\n> Success! [231ms]",
            f"Spremenljivko {env} sem odstranil iz okolja Preview; v Production in Development je ni bilo.",
            "Urejeno; v drugih okoljih te spremenljivke ni bilo.",
        ),
        _Art(
            (branch,),
            ("deleted", "izbrisal", "izbrisana", "pobrisal"),
            "What happened to the merged feature branch on origin, and what was its name?",
            f"The branch {branch} was deleted from origin (still exists locally).",
            f"Veja {branch} je že zmergana, na originu je ne rabimo več.",
            "Pospravljam vejo na originu.",
            f"git push origin --delete {branch}",
            f"To github.com:kolesnik/kolesnik.git\n - [deleted]         {branch}",
            "To github.com:kolesnik/kolesnik.git",
            f"Vejo {branch} sem izbrisal z origina; lokalno je še, če jo boš rabil.",
            "Narejeno, lokalna kopija ostaja.",
        ),
        _Art(
            ("next.config.mjs", "next.config.js"),
            ("renamed", "preimenoval", "preimenovan"),
            "What happened to the Next.js config file?",
            "next.config.js was renamed to next.config.mjs (it uses ESM syntax).",
            "Next ob buildu javlja opozorilo, da next.config.js uporablja ESM sintakso. Uredi to.",
            "Spreminjam končnico konfiguracije.",
            "git mv next.config.js next.config.mjs && git status",
            "On branch main\nYour branch is up to date with 'origin/main'.\n\nChanges to be committed:\n  (use \"git restore --staged <file>...\" to unstage)\n\trenamed:    next.config.js -> next.config.mjs",
            "On branch main\nYour branch is up to date with 'origin/main'.\n\nChanges to be committed:\n  (use \"git restore --staged <file>...\" to unstage)",
            "Datoteko next.config.js sem preimenoval v next.config.mjs; opozorila ob buildu ni več.",
            "Urejeno, opozorila ob buildu ni več.",
        ),
        _Art(
            (cron,),
            ("disable", "onemogočil", "onemogočen", "izklopil"),
            "What was done to the Vercel cron job that was hammering the database, and which one was it?",
            f"The {cron} cron was disabled (removed from vercel.json) while debugging checkout.",
            f"Cron {cron} vsako četrt ure tolče po bazi, medtem ko iščemo napako. Ga lahko za zdaj ustaviš?",
            "Odstranim ga iz vercel.json in commitam.",
            f"git commit -qam 'chore: disable {cron} cron while debugging checkout' && git log -1 --format='[%h] %s'",
            f"[{sha2}] chore: disable {cron} cron while debugging checkout",
            f"[{sha2}] chore: cron off while debugging checkout",
            f"Cron {cron} sem onemogočil (vnos je odstranjen iz vercel.json); ko bo checkout stabilen, ga vrnemo.",
            "Commitano; ko bo checkout stabilen, ga vrnemo.",
            quiet_cmd="git commit -qam 'chore: cron off while debugging checkout' && git log -1 --format='[%h] %s'",
        ),
        _Art(
            (route,),
            ("create", "ustvaril", "ustvarjen", "dodal", "added"),
            "Which new API route file was added, and what happened to it?",
            f"{route} was created (new endpoint, guarded by a secret).",
            "Iz CMS-ja rabimo endpoint, ki ga bo klical ob objavi. Naredi ga, s preverjanjem skrivnosti.",
            "Pišem handler in commitam.",
            f"git add {route} && git commit -qm 'feat: on-demand endpoint for CMS' && git show --stat --format='[%h] %s' HEAD",
            f"[{sha2}] feat: on-demand endpoint for CMS\n\n {route} | 28 ++++++++++++++++++++++++++++\n 1 file changed, 28 insertions(+)\n create mode 100644 {route}",
            f"[{sha2}] feat: on-demand endpoint for CMS\n\n {route} | 28 ++++++++++++++++++++++++++++\n 1 file changed, 28 insertions(+)",
            f"Ustvaril sem nov endpoint {route}; brez pravilne glave x-cms-secret vrne 401.",
            "Commitano; brez pravilne glave x-cms-secret vrne 401.",
        ),
    ]
    for art in rng.sample(arts, 2):
        chunks.append(_art_chunk(rng, b, art, probes))

    # ------ decision
    reasons = {
        "fra1": ("ker je baza v Frankfurtu", "the database is in Frankfurt"),
        "cdg1": ("ker je Redis pri Upstashu v Parizu", "the Upstash Redis is in Paris"),
        "arn1": ("ker tam gostuje tudi iskalnik", "the search service is hosted there"),
    }

    def diff_region(v: str) -> str:
        return f'diff --git a/vercel.json b/vercel.json\n--- a/vercel.json\n+++ b/vercel.json\n@@ -1,6 +1,6 @@\n {{\n   "framework": "nextjs",\n-  "regions": ["iad1"],\n+  "regions": ["{v}"],\n   "crons": ['

    region = _Topic(
        "Which Vercel function region was finally chosen for the shop?",
        lambda v: f"{v} ({reasons[v][1]})",
        lambda v: ((v,), ("regij", "region")),
        ("fra1", "cdg1", "arn1"),
        "Funkcije tečejo v iad1 (ZDA), baza pa je v Evropi. Poglej, koliko nas to stane pri latenci.",
        (
            "Merim odzivni čas API-ja.",
            "for i in 1 2 3 4 5; do curl -s -o /dev/null -w '%{time_starttransfer}\\n' https://kolesnik.si/api/products?kat=gorska; done",
            "\n".join(f"0.{rng.randint(610, 990)}" for _ in range(5)),
        ),
        lambda v: f"Regijo funkcij prestavi na {v}, {reasons[v][0]}.",
        lambda o: f"Regija funkcij naj bo {o}, to bo najbližje.",
        lambda v, o: (
            f"Popravek glede regije funkcij: ne {o}, ampak {v} — {reasons[v][0]}. Prej sem se zmotil."
        ),
        lambda v: (
            f"Predlagam, da regijo funkcij nastaviva na {v}, {reasons[v][0]}. Naj to naredim?"
        ),
        ("Ja, kar daj.", "Se strinjam, naredi."),
        lambda v, o: f"Ne {o}, raje {v} za regijo funkcij, {reasons[v][0]}.",
        lambda v: (
            f"Luka iz backenda pravi, da mora biti regija funkcij {v}, {reasons[v][0]}. Tako naredi."
        ),
        lambda a, c: (
            f"Več kot 600 ms gre na pot čez Atlantik. Za regijo funkcij vidim dve možnosti: {a} ali {c}. Katero želiš?"
        ),
        lambda v: f"Regija {v}, {reasons[v][0]}.",
        lambda v: (
            "Nastavljam regijo v vercel.json.",
            f"jq '.regions = [\"{v}\"]' vercel.json > /tmp/v.json && mv /tmp/v.json vercel.json && git diff vercel.json",
            diff_region(v),
        ),
        lambda v: f"Regija funkcij je zdaj {v}; učinek bo viden po naslednjem deployu.",
        (),
    )
    rv = {
        "60": ("ker se zaloga hitro spreminja", "stock changes quickly"),
        "300": (
            "kompromis med svežino in obremenitvijo baze",
            "a compromise between freshness and DB load",
        ),
        "900": ("ker se katalog redko spreminja", "the catalogue rarely changes"),
    }
    revalidate = _Topic(
        "What revalidate interval (ISR) was decided for the product pages?",
        lambda v: f"revalidate = {v} seconds ({rv[v][1]})",
        lambda v: ((v,), ("revalidat",)),
        ("60", "300", "900"),
        "Strani izdelkov se renderirajo ob vsakem obisku in baza je preobremenjena. Kaj predlagaš?",
        (
            "Pogledam, kako so strani nastavljene.",
            "grep -rn \"dynamic\\|revalidate\" 'app/(trgovina)/izdelki'",
            "app/(trgovina)/izdelki/[slug]/page.tsx:4:export const dynamic = 'force-dynamic'\napp/(trgovina)/izdelki/page.tsx:3:export const dynamic = 'force-dynamic'",
        ),
        lambda v: f"Strani izdelkov naj gredo na ISR z revalidate {v} sekund, {rv[v][0]}.",
        lambda o: f"Za strani izdelkov uporabi revalidate {o} sekund.",
        lambda v, o: f"Glede revalidate sem se premislil: ne {o}, ampak {v} sekund — {rv[v][0]}.",
        lambda v: f"Predlagam ISR z revalidate {v} sekund, {rv[v][0]}. Se strinjaš?",
        ("Ja, naj bo tako.", "Okej, gremo."),
        lambda v, o: f"{o} je preveč, daj revalidate {v} sekund, {rv[v][0]}.",
        lambda v: (
            f"Maja iz vsebine je rekla, da je revalidate {v} sekund v redu, {rv[v][0]}. Nastavi tako."
        ),
        lambda a, c: (
            f"Strani so force-dynamic. Lahko jih damo na ISR — revalidate {a} ali {c} sekund?"
        ),
        lambda v: f"Revalidate {v} sekund, {rv[v][0]}.",
        lambda v: (
            "Nastavljam revalidate.",
            f"sed -i \"s/export const dynamic = 'force-dynamic'/export const revalidate = {v}/\" 'app/(trgovina)/izdelki/page.tsx' 'app/(trgovina)/izdelki/[slug]/page.tsx' && git diff --stat",
            " app/(trgovina)/izdelki/[slug]/page.tsx | 2 +-\n app/(trgovina)/izdelki/page.tsx        | 2 +-\n 2 files changed, 2 insertions(+), 2 deletions(-)",
        ),
        lambda v: f"Strani izdelkov imajo zdaj revalidate {v} sekund (ISR) namesto force-dynamic.",
        (),
    )
    _decision(rng, b, (region, revalidate), probes, chunks, pairs)

    # ------ next step
    d, m = _date(rng)
    when_sl = f"{d}. {_SL_MONTHS[m - 1]}"
    when_en = f"{_EN_MONTHS[m - 1]} {d}"
    variant = rng.randrange(3)
    if variant == 0:
        echo = rng.random() < 0.5

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        f"Še to, da ne pozabiva: do {when_sl} moramo zamenjati Stripe ključe v produkciji, to je zahteval varnostni pregled. Danes ne, samo zapiši si.",
                        f"Mimogrede, varnostni pregled zahteva rotacijo Stripe ključev v produkciji najkasneje do {when_sl}. Za zdaj ne spreminjaj ničesar.",
                    )
                )
            )
            b.tool(
                "Pogledam, katere spremenljivke so v produkciji.",
                "bash",
                {"command": "vercel env ls production"},
                "Vercel CLI 33.5.1\n> Environment Variables found in kolesnik/kolesnik [402ms]\n\n  name                          value               environments        created\n  STRIPE_SECRET_KEY             Encrypted           Production          84d ago\n  STRIPE_PUBLISHABLE_KEY        Encrypted           Production          84d ago\n  DATABASE_URL                  Encrypted           Production          211d ago\n  NEXTAUTH_SECRET               Encrypted           Production          211d ago\n  NEXT_PUBLIC_SITE_URL          Plain               Production          211d ago",
            )
            b.assistant(
                f"Zabeleženo: rotacija Stripe ključev do {when_sl}; ključa sta stara 84 dni."
                if echo
                else "Zabeleženo. V produkciji sta dva Stripe ključa, oba stara 84 dni."
            )

        probes.append(
            Probe(
                "next_step",
                "What must be done with the production Stripe keys, and by when?",
                f"Rotate (replace) the production Stripe keys by {when_en}.",
                (("Stripe",), _date_needles(d, m, when_sl)),
            )
        )
    elif variant == 1:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        "Build na previewu je zdaj zelen, hvala. Mimogrede, ko Maja potrdi QA na previewu, pobriši stare preview deploymente, starejše od dveh tednov — zdaj jih še ne. Zdaj pa poglej, zakaj je lint tako počasen.",
                        "Hvala za popravek. Zdaj pa lint: traja skoraj minuto, poglej zakaj. In ko Maja potrdi QA na previewu, lahko pobrišeš stare preview deploymente (starejše od dveh tednov), prej ne.",
                    )
                )
            )
            b.tool(
                "Merim lint.",
                "bash",
                {"command": "TIMING=1 pnpm lint"},
                "Rule                                  | Time (ms) | Relative\n:-------------------------------------|----------:|--------:\nimport/no-cycle                       | 38112.402 |    71.9%\n@typescript-eslint/no-floating-promises|  6231.118 |    11.8%\nreact-hooks/exhaustive-deps           |  2210.907 |     4.2%\nimport/order                          |  1904.551 |     3.6%\n@next/next/no-img-element             |   412.090 |     0.8%",
            )
            b.assistant(
                "Lint požre import/no-cycle (72 % časa). Predlagam, da ga omejimo na lib/ ali nastavimo maxDepth: 3. Stare deploymente pustim, dokler QA ni potrjen."
            )

        probes.append(
            Probe(
                "next_step",
                "What should be done with the old preview deployments, and on what condition?",
                "Delete the preview deployments older than two weeks once Maja confirms QA on preview (not before).",
                (("preview",), ("QA",)),
            )
        )
    else:

        def nxt() -> None:
            b.user("Je checkout zdaj pokrit s kakšnim testom od začetka do konca?")
            b.tool(
                "Pogledam e2e mapo.",
                "bash",
                {"command": "ls e2e/ && grep -c test e2e/*.spec.ts"},
                "iskanje.spec.ts\nkatalog.spec.ts\nprijava.spec.ts\ne2e/iskanje.spec.ts:4\ne2e/katalog.spec.ts:7\ne2e/prijava.spec.ts:3",
            )
            b.assistant(
                rng.choice(
                    (
                        "Ne, e2e testi pokrivajo samo iskanje, katalog in prijavo. Ko bo build na main zelen, bom dodal Playwright test za checkout s testno kartico 4242.",
                        "Ni ga. Predlagam tole: takoj ko bo build na main spet zelen, dodam Playwright test za celoten checkout (testna kartica 4242, gost in prijavljen uporabnik).",
                    )
                )
            )

        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to add, and when?",
                "A Playwright end-to-end test for checkout, once the build on main is green.",
                (("Playwright",), ("zelen", "green")),
            )
        )
    chunks.append(nxt)

    # ------ filler: other work in the same shop
    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user(r.choice(("Dodaj kategorije v sitemap.", "Sitemap nima kategorij, popravi to.")))
            cats = r.sample(
                [
                    "gorska",
                    "cestna",
                    "gravel",
                    "otroska",
                    "elektricna",
                    "deli",
                    "oblacila",
                    "orodje",
                ],
                5,
            )
            b.tool(
                "Pišem app/sitemap.ts.",
                "bash",
                {
                    "command": "curl -s http://localhost:3000/sitemap.xml | grep -c '<url>' && curl -s http://localhost:3000/sitemap.xml | grep kategorije | head"
                },
                f"{r.randint(180, 420)}\n"
                + "\n".join(
                    f"<url><loc>https://kolesnik.si/kategorije/{c}</loc><lastmod>2024-06-{r.randint(1, 28):02d}</lastmod></url>"
                    for c in cats
                ),
            )
            b.assistant(
                "Sitemap zdaj vsebuje vse kategorije z lastmod iz zadnje spremembe izdelka."
            )
        elif pick == 1:
            b.user(r.choice(("Kaj je zastarelega v odvisnostih?", "Preveri zastarele pakete.")))
            pk = r.sample(
                [
                    "react-hook-form",
                    "zod",
                    "@tanstack/react-query",
                    "date-fns",
                    "sharp",
                    "next-auth",
                    "prisma",
                    "tailwindcss",
                    "lucide-react",
                ],
                5,
            )
            rows = "\n".join(
                f"│ {p:<24}│ {r.randint(1, 4)}.{r.randint(0, 20)}.{r.randint(0, 9)}  │ {r.randint(1, 5)}.{r.randint(0, 20)}.{r.randint(0, 9)}  │"
                for p in pk
            )
            b.tool(
                "pnpm outdated.",
                "bash",
                {"command": "pnpm outdated"},
                "┌─────────────────────────┬─────────┬─────────┐\n│ Package                 │ Current │ Latest  │\n├─────────────────────────┼─────────┼─────────┤\n"
                + rows
                + "\n└─────────────────────────┴─────────┴─────────┘",
            )
            b.assistant(
                f"Za posodobitev je {len(pk)} paketov; večinoma manjše verzije, {pk[0]} ima novo glavno verzijo, zato ga bom posodobil posebej."
            )
        elif pick == 2:
            b.user(
                r.choice(
                    (
                        "Slike izdelkov so prevelike, poglej public/slike.",
                        "Koliko zasedajo slike v public?",
                    )
                )
            )
            dirs = r.sample(["gorska", "cestna", "gravel", "deli", "oblacila", "bannerji"], 4)
            b.tool(
                "Merim.",
                "bash",
                {"command": "du -sh public/slike/* | sort -h"},
                "\n".join(f"{r.randint(2, 90)}M\tpublic/slike/{x}" for x in dirs),
            )
            b.assistant(
                "Največ prostora zasedajo JPEG-i v polni ločljivosti; predlagam pretvorbo v AVIF in uporabo next/image s sizes."
            )
        else:
            b.user(r.choice(("Koliko nizov še ni prevedenih?", "Preveri prevode za stran računa.")))
            b.tool(
                "Štejem manjkajoče ključe.",
                "bash",
                {"command": "node scripts/i18n-manjkajoci.mjs sl en"},
                "\n".join(
                    f"racun.{k}: missing in en"
                    for k in r.sample(
                        ["naslov", "narocila", "naslovi", "odjava", "geslo", "placila", "vracila"],
                        4,
                    )
                ),
            )
            b.assistant(
                "V angleščini manjkajo štirje ključi na strani računa; dodal jih bom v messages/en.json."
            )

    return _kind(rng, b, segments, intro, chunks, pairs, filler, probes)


# --------------------------------------------------------------------------------------
# Latvian: an Elasticsearch 8 logging cluster run by curl (_cat APIs, ILM, snapshots)

_LV_MONTHS = (
    "janvārim",
    "februārim",
    "martam",
    "aprīlim",
    "maijam",
    "jūnijam",
    "jūlijam",
    "augustam",
    "septembrim",
    "oktobrim",
    "novembrim",
    "decembrim",
)
_ES = "https://es-prod.iekseja.lv:9200"


def _lv_elastic(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    chunks: list[Chunk] = []
    pairs: list[tuple[Chunk, Chunk]] = []
    ids = _uniq(rng, lambda r: token(r, 22, _B62 + "-_"), 7)
    names = [
        "es-master-1",
        "es-master-2",
        "es-master-3",
        "es-data-01",
        "es-data-02",
        "es-data-03",
        "es-data-04",
    ]
    ips = [f"10.40.{rng.randint(1, 9)}.{rng.randint(10, 250)}" for _ in names]
    hot = rng.randint(3, 6)  # the node over the high watermark
    other = rng.choice([i for i in range(3, 7) if i != hot])
    task_no = rng.randint(1000000, 99999999)
    task = f"{ids[other]}:{task_no}"
    decoy_task = f"{ids[rng.choice([i for i in range(3, 7) if i not in (hot, other)])]}:{rng.randint(1000000, 99999999)}"
    snaps = _uniq(
        rng,
        lambda r: (
            f"nightly-2024.06.{r.randint(10, 28):02d}-{token(r, 6, string.ascii_lowercase + string.digits)}"
        ),
        5,
    )
    snaps.sort()
    good = snaps[3]  # the last SUCCESS; snaps[4] is PARTIAL
    curl = "curl -s -n"

    def nodes_out() -> str:
        rows = [
            "id                     name        ip           node.role disk.used_percent heap.percent cpu load_1m"
        ]
        for i, n in enumerate(names):
            role = "m" if i < 3 else "dih"
            disk = (
                rng.randint(20, 40)
                if i < 3
                else (rng.randint(9050, 9390) / 100 if i == hot else rng.randint(6100, 8400) / 100)
            )
            rows.append(
                f"{ids[i]} {n:<11} {ips[i]:<12} {role:<9} {disk:>17} {rng.randint(28, 79):>12} {rng.randint(2, 88):>3} {rng.randint(10, 390) / 100:>7}"
            )
        return "\n".join(rows)

    def shards_out() -> str:
        rows = ["index                         shard prirep state      unassigned.reason node"]
        for _ in range(rng.randint(10, 14)):
            idx = f"{rng.choice(('app-logs', 'nginx-access', 'apm-traces', 'metrics'))}-2024.06.{rng.randint(1, 11):02d}"
            un = rng.random() < 0.5
            rows.append(
                f"{idx:<29} {rng.randint(0, 2):>5} {'r' if un else rng.choice('pr'):>6} {'UNASSIGNED' if un else 'STARTED':<10} {'ALLOCATION_FAILED' if un else '':<17} {'' if un else rng.choice(names[3:])}"
            )
        return "\n".join(rows)

    def indices_out() -> str:
        rows = [
            "health status index                          uuid                   pri rep docs.count store.size"
        ]
        for _ in range(rng.randint(12, 16)):
            fam = rng.choice(("app-logs", "nginx-access", "apm-traces", "metrics"))
            idx = f"{fam}-2024.0{rng.randint(4, 6)}.{rng.randint(1, 28):02d}"
            rows.append(
                f"{rng.choice(('green', 'green', 'yellow')):<6} open   {idx:<30} {token(rng, 22, _B62)} {rng.randint(1, 3):>3} {1:>3} {rng.randint(900000, 98000000):>10} {rng.randint(8, 190)}.{rng.randint(1, 9)}gb"
            )
        return "\n".join(rows)

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    f"Sveiki! Mūsu Elasticsearch klasteris logi-prod kopš rīta ir dzeltens, un Kibana paneļi lādējas mūžību. Piekļuve caur curl uz {_ES} (lietotājs ops, parole ir ~/.netrc). Lūdzu, paskaties, kas notiek. Un nekādu lielu izmaiņu bez manas ziņas.",
                    f"Labrīt. logi-prod klasteris ir yellow, daļa šardu nav izvietoti, un ingest sāk atpalikt. Strādā ar curl pret {_ES}, akreditācijas dati ir ~/.netrc. Sāc ar diagnostiku, tad runāsim.",
                )
            )
        )
        b.tool(
            "Sāku ar klastera veselību.",
            "bash",
            {"command": f"{curl} '{_ES}/_cluster/health?pretty'"},
            json.dumps(
                {
                    "cluster_name": "logi-prod",
                    "status": "yellow",
                    "timed_out": False,
                    "number_of_nodes": 7,
                    "number_of_data_nodes": 4,
                    "active_primary_shards": rng.randint(880, 990),
                    "active_shards": rng.randint(1700, 1900),
                    "relocating_shards": 0,
                    "initializing_shards": 0,
                    "unassigned_shards": rng.randint(40, 90),
                    "delayed_unassigned_shards": 0,
                    "number_of_pending_tasks": rng.randint(0, 4),
                    "active_shards_percent_as_number": rng.randint(9400, 9790) / 100,
                },
                indent=2,
            ),
        )
        b.assistant(
            "Klasteris ir dzeltens: visi primārie šardi ir aktīvi, bet daļa replikas šardu nav izvietoti. Datu zudumu nav, taču jānoskaidro, kāpēc replikas netiek izvietotas."
        )

    def shards() -> None:
        b.user(rng.choice(("Kuri šardi nav izvietoti?", "Parādi neizvietotos šardus.")))
        b.tool(
            "Skatos _cat/shards.",
            "bash",
            {
                "command": f"{curl} '{_ES}/_cat/shards?v&h=index,shard,prirep,state,unassigned.reason,node&s=state' | head -15"
            },
            shards_out(),
        )
        b.tool(
            "Un allocation explain vienam no tiem.",
            "bash",
            {
                "command": f'{curl} \'{_ES}/_cluster/allocation/explain?pretty\' -H \'Content-Type: application/json\' -d \'{{"index":"app-logs-2024.06.11","shard":0,"primary":false}}\' | head -30'
            },
            '{\n  "index" : "app-logs-2024.06.11",\n  "shard" : 0,\n  "primary" : false,\n  "current_state" : "unassigned",\n  "unassigned_info" : {\n    "reason" : "ALLOCATION_FAILED",\n    "last_allocation_status" : "no_attempt"\n  },\n  "can_allocate" : "no",\n  "allocate_explanation" : "Elasticsearch isn\'t allowed to allocate this shard to any of the nodes in the cluster. Choose a node to which you expect this shard to be allocated, find this node in the node-by-node explanation, and address the reasons which prevent Elasticsearch from allocating this shard there.",\n  "node_allocation_decisions" : [\n    {\n      "node_name" : "'
            + names[hot]
            + '",\n      "deciders" : [\n        {\n          "decider" : "disk_threshold",\n          "decision" : "NO",\n          "explanation" : "the node is above the high watermark cluster setting [cluster.routing.allocation.disk.watermark.high=90%], having less than the minimum required [10%] free space"\n        }\n      ]\n    }\n  ]\n}',
        )
        b.assistant(
            f"Iemesls ir disks: {names[hot]} ir pāri augstajam watermark (90 %), un pārējie datu mezgli jau glabā otru kopiju, tāpēc replikas nav kur likt."
        )

    def biggest() -> None:
        b.user(rng.choice(("Kas aizņem visvairāk vietas?", "Kuri indeksi ir lielākie?")))
        b.tool(
            "Kārtoju indeksus pēc izmēra.",
            "bash",
            {
                "command": f"{curl} '{_ES}/_cat/indices?v&s=store.size:desc&h=health,status,index,uuid,pri,rep,docs.count,store.size' | head -17"
            },
            indices_out(),
        )
        b.assistant(
            "Lielākie ir nginx-access un app-logs dienas indeksi (līdz ~190 GB katrs). apm-traces ir mazi. Vecie marta un aprīļa indeksi joprojām ir atvērti un aizņem vietu."
        )

    def threads() -> None:
        b.user("Vai ingest atpaliek arī rakstīšanas rindā?")
        rows = "\n".join(
            f"{n:<11} write {rng.randint(0, 8):>6} {rng.randint(0, 900):>5} {rng.randint(0, 40):>8}"
            for n in names[3:]
        )
        b.tool(
            "Skatos write thread pool.",
            "bash",
            {
                "command": f"{curl} '{_ES}/_cat/thread_pool/write?v&h=node_name,name,active,queue,rejected'"
            },
            "node_name   name  active queue rejected\n" + rows,
        )
        b.assistant(
            "Rinda ir, bet noraidījumu maz; atpalicība nāk no tā, ka viens mezgls ir pilns un šardi kārtojas uz pārējiem."
        )

    chunks += [shards, biggest, threads]

    # ------ identifiers
    said = rng.random() < 0.5

    def nodes() -> None:
        b.user(
            rng.choice(
                (
                    "Parādi mezglus ar pilniem ID, man tie vajadzīgi biļetei.",
                    "Kurš tieši mezgls ir pilns? Vajag pilno node ID.",
                )
            )
        )
        b.tool(
            "Skatos _cat/nodes ar full_id.",
            "bash",
            {
                "command": f"{curl} '{_ES}/_cat/nodes?v&full_id=true&h=id,name,ip,node.role,disk.used_percent,heap.percent,cpu,load_1m&s=name'"
            },
            nodes_out(),
        )
        if said:
            b.assistant(
                f"Pilns ir {names[hot]} ar ID {ids[hot]} — disks pāri 90 %. Pārējiem datu mezgliem ir 61–84 %."
            )
        else:
            b.assistant(
                f"Pilns ir {names[hot]} (tabulā augstākais disk.used_percent, pāri 90 %); pārējiem datu mezgliem ir 61–84 %. Pilnais ID ir tabulā pirmajā kolonnā."
            )

    probes.append(
        Probe(
            "identifier",
            "What is the full node ID of the data node whose disk went over the high watermark?",
            ids[hot],
            ((ids[hot],),),
        )
    )

    def snapshots() -> None:
        b.user(
            rng.choice(
                (
                    "Pirms kaut ko dzēšam — vai mums ir svaigs snapshot?",
                    "Pārbaudi, kurš ir pēdējais veiksmīgais snapshot.",
                )
            )
        )
        rows = [
            "id                                status start_epoch start_time end_epoch  end_time duration indices successful_shards failed_shards total_shards"
        ]
        for i, s in enumerate(snaps):
            st = "PARTIAL" if i == 4 else "SUCCESS"
            ep = 1718000000 + i * 86400
            rows.append(
                f"{s:<33} {st:<7} {ep} 02:00:0{i} {ep + 1900} 02:3{i}:41 31.6m {rng.randint(180, 240):>7} {rng.randint(1500, 1700):>17} {rng.randint(3, 40) if i == 4 else 0:>13} {rng.randint(1700, 1800):>12}"
            )
        b.tool(
            "Skatos repozitoriju nightly-s3.",
            "bash",
            {"command": f"{curl} '{_ES}/_cat/snapshots/nightly-s3?v&s=id'"},
            "\n".join(rows),
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Pēdējais veiksmīgais ir {good}. Jaunākais, {snaps[4]}, ir PARTIAL (daļa šardu neizdevās tieši pilnā mezgla dēļ), uz to nepaļaujos."
            )
        else:
            b.assistant(
                "Pēdējais, kas ir SUCCESS, ir priekšpēdējā rinda; jaunākais ir PARTIAL — pilnā mezgla dēļ daļa šardu neizdevās, tāpēc uz to nepaļaujos."
            )

    probes.append(
        Probe(
            "identifier",
            "What is the name of the last successful (SUCCESS) snapshot the agent verified before cleaning up?",
            good,
            ((good,),),
        )
    )

    started = rng.random() < 0.5

    def reindex() -> None:
        if started:
            b.user(
                "Pārindeksē nginx-access-2024.06.* uz jauno mapping ar mazāk laukiem, bet asinhroni."
            )
            b.tool(
                "Palaižu reindex bez gaidīšanas.",
                "bash",
                {
                    "command": f'{curl} -XPOST \'{_ES}/_reindex?wait_for_completion=false&slices=auto\' -H \'Content-Type: application/json\' -d \'{{"source":{{"index":"nginx-access-2024.06.*"}},"dest":{{"index":"nginx-access-v2-2024.06"}}}}\''
                },
                json.dumps({"task": task}),
            )
            lead = f"Reindex strādā fonā, uzdevums {task}. Iepriekšējais mēģinājums {decoy_task} tika atcelts, to neskaiti. Skatos statusu."
        else:
            b.user(
                f"Andris vakar palaida reindex uz nginx-access-v2-2024.06, uzdevuma ID ir {task}. Pārbaudi, kā tam iet. (Tas {decoy_task} bija atceltais mēģinājums.)"
            )
            lead = "Skatos uzdevuma statusu."
        done = rng.randint(10000000, 40000000)
        b.tool(
            lead,
            "bash",
            {"command": f"{curl} '{_ES}/_tasks/{task}?pretty' | head -20"},
            '{\n  "completed" : false,\n  "task" : {\n    "node" : "'
            + ids[other]
            + '",\n    "id" : '
            + str(task_no)
            + ',\n    "type" : "transport",\n    "action" : "indices:data/write/reindex",\n    "status" : {\n      "slice_id" : null,\n      "total" : '
            + str(done * 3)
            + ',\n      "created" : '
            + str(done)
            + ',\n      "updated" : 0,\n      "batches" : '
            + str(done // 1000)
            + ',\n      "version_conflicts" : 0,\n      "noops" : 0\n    },\n    "running_time_in_nanos" : '
            + str(rng.randint(10**12, 9 * 10**12))
            + ',\n    "cancellable" : true\n  }\n}',
        )
        b.assistant(
            f"Reindex ir apmēram trešdaļā ({done} no {done * 3} dokumentiem), konfliktu nav."
        )

    probes.append(
        Probe(
            "identifier",
            "What is the task ID of the running reindex into nginx-access-v2-2024.06?",
            task,
            ((task,),),
        )
    )
    chunks += [nodes, snapshots, reindex]

    # ------ artifacts
    dd = rng.randint(1, 28)
    old = f"app-logs-2024.03.{dd:02d}"
    pol = rng.choice(("logs-30d", "audit-retention", "apm-rollover"))
    q = rng.randint(1, 4)
    closed = f"audit-2023-q{q}"
    tmpl = rng.choice(("logs-app-v2", "logs-nginx-v3"))
    stamp = f"2024-06-{rng.randint(10, 28):02d} {rng.randint(8, 17):02d}:{rng.randint(10, 59)}:{rng.randint(10, 59)},{rng.randint(100, 999)}"
    arts = [
        _Art(
            (old,),
            ("delet", "dzēs", "izdzēs"),
            "Which old app-logs index was removed to free disk space, and what happened to it?",
            f"{old} was deleted (with curator).",
            f"Tas marta indekss {old} aizņem ap 180 GB un nevienam vairs nav vajadzīgs. Atbrīvo vietu, snapshot jau ir.",
            "Izmantoju curator ar precīzu filtru.",
            f'curator_cli --config ~/.curator/es.yml delete-indices --filter_list \'[{{"filtertype":"pattern","kind":"regex","value":"^app-logs-2024\\\\.03\\\\.{dd:02d}$"}}]\'',
            f'{stamp} INFO      Preparing Action ID: 1, "delete_indices"\n{stamp} INFO      Deleting 1 selected indices: [\'{old}\']\n{stamp} INFO      ---deleting index {old}\n{stamp} INFO      Action ID: 1, "delete_indices" completed.\n{stamp} INFO      Job completed.',
            f'{stamp} INFO      Preparing Action ID: 1, "delete_indices"\n{stamp} INFO      Action ID: 1, "delete_indices" completed.\n{stamp} INFO      Job completed.',
            f"Indekss {old} ir izdzēsts, atbrīvoti ~180 GB. Citus marta indeksus neaiztiku.",
            "Gatavs, atbrīvoti ~180 GB. Citus marta indeksus neaiztiku.",
        ),
        _Art(
            (pol,),
            ("modified", "changed", "updated", "mainīt", "mainīj", "atjaunin"),
            "Which ILM policy was changed so that indices roll over at 30gb, and what happened to it?",
            f"The ILM policy {pol} was modified (rollover at max_primary_shard_size 30gb).",
            f"ILM politika {pol} veido pārāk lielus šardus (virs 80 GB). Lai rollover notiek pie 30gb uz primāro šardu.",
            "Ielieku jauno rollover nosacījumu un pārbaudu versiju.",
            f"{curl} -XPUT '{_ES}/_ilm/policy/{pol}' -H 'Content-Type: application/json' -d @/tmp/ilm.json >/dev/null && {curl} '{_ES}/_ilm/policy/{pol}?filter_path=*.version,*.modified_date'",
            json.dumps(
                {
                    pol: {
                        "version": rng.randint(3, 9),
                        "modified_date": f"2024-06-{rng.randint(10, 28):02d}T0{rng.randint(7, 9)}:12:44.118Z",
                    }
                },
                separators=(",", ":"),
            ),
            '{"acknowledged":true}',
            f"Politika {pol} ir izmainīta: rollover tagad pie 30gb uz primāro šardu; esošie indeksi to saņems nākamajā rollover.",
            "Gatavs; esošie indeksi jauno nosacījumu saņems nākamajā rollover.",
            quiet_cmd=f"{curl} -XPUT '{_ES}/_ilm/policy/{pol}' -H 'Content-Type: application/json' -d @/tmp/ilm.json",
        ),
        _Art(
            (closed,),
            ("closed", "aizvēr", "slēgts", "slēdz"),
            "What was done with the 2023 audit index to save heap, and which one was it?",
            f"The index {closed} was closed (kept on disk, not deleted).",
            f"{closed} neviens nelasa, bet dzēst to nedrīkst — audits. Samazini, cik tas ēd heap.",
            "Aizveru indeksu (dati paliek uz diska).",
            f"{curl} -XPOST '{_ES}/{closed}/_close'",
            json.dumps(
                {
                    "acknowledged": True,
                    "shards_acknowledged": True,
                    "indices": {closed: {"closed": True}},
                },
                separators=(",", ":"),
            ),
            json.dumps({"acknowledged": True, "shards_acknowledged": True}, separators=(",", ":")),
            f"Indekss {closed} ir aizvērts: dati paliek uz diska, heap vairs netērē. Vajadzības gadījumā to var atvērt ar _open.",
            "Gatavs, dati paliek uz diska; vajadzības gadījumā atveram ar _open.",
        ),
        _Art(
            (tmpl,),
            ("created", "izveidoj", "izveidots"),
            "Which new index template was added for the smaller mapping, and what happened to it?",
            f"The index template {tmpl} was created (priority 300).",
            "Jaunajiem indeksiem vajag mapping bez tiem 1400 dinamiskajiem laukiem. Sagatavo šablonu.",
            "Ielieku šablonu.",
            f"{curl} -XPUT '{_ES}/_index_template/{tmpl}' -H 'Content-Type: application/json' -d @/tmp/template.json",
            '{"acknowledged":true}',
            '{"acknowledged":true}',
            f"Šablons {tmpl} ir izveidots ar prioritāti 300 un dynamic: false; tas attieksies tikai uz jauniem indeksiem.",
            "",
            modes=("prose",),
        ),
    ]
    for art in rng.sample(arts, 2):
        chunks.append(_art_chunk(rng, b, art, probes))

    # ------ decision
    why = {
        "14": (
            "jo tā prasa jaunā datu aizsardzības politika",
            "required by the new data-protection policy",
        ),
        "21": (
            "jo trīs nedēļas pietiek incidentu izmeklēšanai",
            "three weeks is enough for incident investigations",
        ),
        "30": ("jo auditoram vajag pilnu mēnesi", "the auditor needs a full month"),
    }
    ilm_look = json.dumps(
        {
            "app-logs-retention": {
                "version": 2,
                "policy": {
                    "phases": {
                        "hot": {"actions": {"rollover": {"max_age": "1d"}}},
                        "delete": {"min_age": "90d", "actions": {"delete": {}}},
                    }
                },
            }
        },
        indent=2,
    )
    retention = _Topic(
        "What retention (how many days before deletion) was decided for the app-logs indices?",
        lambda v: f"{v} days ({why[v][1]})",
        lambda v: (
            (f"{v} dien", f"{v}d", f"{v} days", f"{v}-day"),
            ("glabā", "retention", "ILM", "dzēš", "delete"),
        ),
        ("14", "21", "30"),
        "Disks atkal tuvojas limitam. Cik ilgi mēs vispār turam app-logs? Paskaties politiku.",
        ("Skatos ILM politiku.", f"{curl} '{_ES}/_ilm/policy/app-logs-retention?pretty'", ilm_look),
        lambda v: (
            f"Lietotņu logu glabāšanas termiņš būs {v} dienas, {why[v][0]}. Iestati ILM politiku tā."
        ),
        lambda o: f"app-logs glabāšanas termiņu uzliec uz {o} dienām.",
        lambda v, o: (
            f"Labojums par glabāšanas termiņu: nevis {o}, bet {v} dienas — {why[v][0]}. Iepriekš kļūdījos."
        ),
        lambda v: f"Iesaku glabāšanas termiņu {v} dienas, {why[v][0]}. Vai piekrīti?",
        ("Jā, dari.", "Piekrītu, iestati."),
        lambda v, o: f"{o} ir par daudz, liec {v} dienu glabāšanas termiņu, {why[v][0]}.",
        lambda v: (
            f"Ilze no drošības nodaļas rakstīja, ka glabāšanas termiņam jābūt {v} dienām, {why[v][0]}. Tā arī iestati."
        ),
        lambda a, c: (
            f"Politika dzēš indeksus tikai pēc 90 dienām. Kādu glabāšanas termiņu likt — {a} vai {c} dienas?"
        ),
        lambda v: f"Glabāšanas termiņš {v} dienas, {why[v][0]}.",
        lambda v: (
            "Atjauninu delete fāzi.",
            f'{curl} -XPUT \'{_ES}/_ilm/policy/app-logs-retention\' -H \'Content-Type: application/json\' -d \'{{"policy":{{"phases":{{"hot":{{"actions":{{"rollover":{{"max_age":"1d"}}}}}},"delete":{{"min_age":"{v}d","actions":{{"delete":{{}}}}}}}}}}}}\'',
            '{"acknowledged":true}',
        ),
        lambda v: (
            f"Politika app-logs-retention tagad dzēš indeksus pēc {v} dienām (glabāšanas termiņš {v} dienas)."
        ),
        (),
    )
    wm_look = json.dumps(
        {
            "defaults": {
                "cluster": {
                    "routing": {
                        "allocation": {
                            "disk": {
                                "watermark": {"low": "85%", "high": "90%", "flood_stage": "95%"}
                            }
                        }
                    }
                }
            }
        },
        indent=2,
    )
    watermark = _Topic(
        "What high disk watermark was decided for the cluster?",
        lambda v: f"{v} (temporarily, until IT delivers new disks)",
        lambda v: ((v,), ("watermark", "ūdenszīm")),
        ("91%", "92%", "93%"),
        "Vai mēs varam kaut ko darīt ar watermark, lai replikas atkal izvietojas?",
        (
            "Skatos pašreizējos iestatījumus.",
            f"{curl} '{_ES}/_cluster/settings?include_defaults=true&filter_path=*.cluster.routing.allocation.disk.watermark*&pretty'",
            wm_look,
        ),
        lambda v: f"Augsto watermark pacel uz {v}, kamēr IT piegādās jaunus diskus.",
        lambda o: f"Pacel augsto watermark uz {o}.",
        lambda v, o: (
            f"Par watermark pārdomāju: nevis {o}, bet {v} — {o} ir par riskantu ar flood_stage 95%."
        ),
        lambda v: (
            f"Iesaku uz laiku pacelt augsto watermark uz {v}, kamēr IT piegādās jaunus diskus. Vai drīkstu?"
        ),
        ("Jā, drīksti.", "Labi, dari."),
        lambda v, o: f"{o} ir par daudz, augsto watermark liec {v}.",
        lambda v: (
            f"Jānis no platformas komandas saka, ka augstais watermark uz laiku drīkst būt {v}. Iestati tā."
        ),
        lambda a, c: f"Augstais watermark ir 90%. Cik pacelt — uz {a} vai {c}?",
        lambda v: f"Watermark {v}, ne vairāk.",
        lambda v: (
            "Mainu persistent iestatījumu.",
            f"{curl} -XPUT '{_ES}/_cluster/settings' -H 'Content-Type: application/json' -d '{{\"persistent\":{{\"cluster.routing.allocation.disk.watermark.high\":\"{v}\"}}}}'",
            json.dumps(
                {
                    "acknowledged": True,
                    "persistent": {
                        "cluster": {"routing": {"allocation": {"disk": {"watermark": {"high": v}}}}}
                    },
                    "transient": {},
                },
                separators=(",", ":"),
            ),
        ),
        lambda v: f"Augstais watermark tagad ir {v} (persistent); replikas sāk izvietoties.",
        (),
    )
    _decision(rng, b, (retention, watermark), probes, chunks, pairs)

    # ------ next step
    d, m = _date(rng)
    when = f"{d}. {_LV_MONTHS[m - 1]}"
    variant = rng.randrange(3)
    if variant == 0:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        f"Vēl viena lieta: līdz {when} jāpasūta papildu diski datu mezgliem, citādi nākammēnes būsim tajā pašā bedrē. Pasūtīšu es, tu tikai atgādini.",
                        f"Starp citu, IT prasa, lai pieprasījumu par papildu diskiem datu mezgliem iesniedzam līdz {when}. Šodien ne, vienkārši pieraksti.",
                    )
                )
            )
            b.tool(
                "Aprēķinu, cik vietas vajag.",
                "bash",
                {
                    "command": f"{curl} '{_ES}/_cat/allocation?v&h=node,shards,disk.indices,disk.used,disk.avail,disk.total,disk.percent'"
                },
                "node        shards disk.indices disk.used disk.avail disk.total disk.percent\n"
                + "\n".join(
                    f"{n:<11} {rng.randint(380, 520):>6} {rng.randint(1100, 1700)}gb {rng.randint(1300, 1790)}gb {rng.randint(60, 600)}gb {1.8:>8}tb {rng.randint(62, 93):>12}"
                    for n in names[3:]
                ),
            )
            b.assistant(
                "Pierakstīju. Pēc pašreizējā pieauguma (~45 GB dienā) katram datu mezglam vajadzētu vismaz vēl 2 TB."
            )

        probes.append(
            Probe(
                "next_step",
                "What has to be ordered for the cluster, and by when?",
                f"Additional disks for the data nodes, by {_EN_MONTHS[m - 1]} {d}.",
                (("disk",), _date_needles(d, m, when)),
            )
        )
    elif variant == 1:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        "Paldies. Un, kad reindex beigsies, salīdzini dokumentu skaitu starp veco un jauno indeksu, pirms kaut ko aiztiec. Bet tagad paskaties, kāpēc Kibana Discover lādējas lēni.",
                        "Labi. Tagad Kibana: Discover lādējas 20 sekundes, paskaties slow log. Ā, un kad reindex beigsies, salīdzini dokumentu skaitu abos indeksos, pirms ko dzēšam.",
                    )
                )
            )
            b.tool(
                "Skatos search slow log.",
                "bash",
                {
                    "command": 'tail -n 5 /var/log/elasticsearch/logi-prod_index_search_slowlog.json | jq -c \'{took: .took, index: ."elasticsearch.index.name", source: ."elasticsearch.slowlog.source"[0:80]}\''
                },
                "\n".join(
                    json.dumps(
                        {
                            "took": f"{rng.randint(4, 19)}.{rng.randint(1, 9)}s",
                            "index": f"nginx-access-2024.06.{rng.randint(1, 11):02d}",
                            "source": '{"size":500,"query":{"bool":{"filter":[{"range":{"@timestamp":{"gte":"now-7d"',
                        }
                    )
                    for _ in range(5)
                ),
            )
            b.assistant(
                "Lēnie vaicājumi ir Discover ar 7 dienu logu un size 500 pār visiem nginx-access indeksiem; palīdzēs samazināt noklusējuma laika logu uz 24 h."
            )

        probes.append(
            Probe(
                "next_step",
                "What must be checked once the reindex finishes?",
                "Compare the document counts of the old and the new index (before touching anything).",
                (("dokumentu skait", "docs.count", "document count", "doc count"), ("reindex",)),
            )
        )
    else:
        hour = rng.choice(("02:00", "03:30", "01:15"))

        def nxt() -> None:
            b.user("Vai šodien vēl kaut kas jādara?")
            b.tool(
                "Skatos gaidošos uzdevumus.",
                "bash",
                {"command": f"{curl} '{_ES}/_cat/pending_tasks?v'"},
                "insertOrder timeInQueue priority source",
            )
            b.assistant(
                rng.choice(
                    (
                        f"Šobrīd nē, rindā nekā nav. Pēc nakts snapshot ({hour}) pārbaudīšu, vai visi šardi ir izvietoti, un uzrakstīšu tev.",
                        f"Nē. Es rīt pēc nakts snapshot ({hour}) paskatīšos, vai visi šardi ir izvietoti, un atskaitīšos.",
                    )
                )
            )

        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to check, and when?",
                f"Whether all shards are allocated, after the nightly snapshot at {hour}.",
                (("šard", "shard"), (hour,)),
            )
        )
    chunks.append(nxt)

    # ------ filler: other work on the same cluster
    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user(
                r.choice(
                    (
                        "Cik lauku ir nginx-access mapping?",
                        "Vai nginx-access mapping nav pārāk liels?",
                    )
                )
            )
            b.tool(
                "Skaitu laukus.",
                "bash",
                {
                    "command": f"{curl} '{_ES}/nginx-access-2024.06.0{r.randint(1, 9)}/_mapping' | jq '[paths(type == \"object\" and has(\"type\"))] | length'"
                },
                str(r.randint(300, 1500)),
            )
            b.assistant("Lauku ir daudz; lielākā daļa nāk no dinamiskiem headers.* laukiem.")
        elif pick == 1:
            b.user(r.choice(("Kāda mums ir licence?", "Pārbaudi licences derīgumu.")))
            b.tool(
                "Skatos licenci.",
                "bash",
                {
                    "command": f"{curl} '{_ES}/_license?pretty' | grep -E 'status|type|expiry_date\"'"
                },
                f'    "status" : "active",\n    "type" : "platinum",\n    "expiry_date" : "2025-0{r.randint(1, 9)}-{r.randint(10, 28)}T23:59:59.999Z",',
            )
            b.assistant("Licence ir aktīva (platinum), derīga vēl vairākus mēnešus.")
        elif pick == 2:
            b.user(r.choice(("Cik atmiņas ēd fielddata?", "Paskaties fielddata patēriņu.")))
            fields = r.sample(
                [
                    "host.name",
                    "url.path",
                    "user_agent.original",
                    "service.name",
                    "http.response.status_code",
                ],
                3,
            )
            b.tool(
                "_cat/fielddata.",
                "bash",
                {"command": f"{curl} '{_ES}/_cat/fielddata?v&s=size:desc' | head -5"},
                "id                     host    ip           node        field                       size\n"
                + "\n".join(
                    f"{token(r, 22, _B62)} {r.choice(names[3:])} 10.40.{r.randint(1, 9)}.{r.randint(10, 250)} {r.choice(names[3:])} {f:<27} {r.randint(10, 900)}mb"
                    for f in fields
                ),
            )
            b.assistant(
                f"Fielddata galvenokārt ēd {fields[0]}; pareizāk būtu to laukam lietot keyword ar doc_values."
            )
        else:
            b.user(
                r.choice(
                    ("Eksportē Kibana paneļus rezerves kopijai.", "Saglabā Kibana saved objects.")
                )
            )
            b.tool(
                "Eksportēju saved objects.",
                "bash",
                {
                    "command": "curl -s -n -XPOST 'https://kibana.iekseja.lv/api/saved_objects/_export' -H 'kbn-xsrf: true' -H 'Content-Type: application/json' -d '{\"type\":[\"dashboard\",\"visualization\",\"index-pattern\"]}' -o kibana-export.ndjson && wc -l kibana-export.ndjson"
                },
                f"{r.randint(120, 400)} kibana-export.ndjson",
            )
            b.assistant(
                "Eksports saglabāts kibana-export.ndjson; ielikšu to konfigurācijas repozitorijā."
            )

    return _kind(rng, b, segments, intro, chunks, pairs, filler, probes)


# --------------------------------------------------------------------------------------
# Macedonian: an orders API on AWS SAM (Lambda, DynamoDB, SQS) with CloudWatch logs

_MK_MONTHS = (
    "јануари",
    "февруари",
    "март",
    "април",
    "мај",
    "јуни",
    "јули",
    "август",
    "септември",
    "октомври",
    "ноември",
    "декември",
)


def _mk_sam(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    chunks: list[Chunk] = []
    pairs: list[tuple[Chunk, Chunk]] = []
    acct = str(rng.randint(100000000000, 999999999999))
    sfx = token(rng, 12)
    fn = f"naracki-prod-CreateOrderFn-{sfx}"
    group = f"/aws/lambda/{fn}"
    prof = "--profile naracki-prod --region eu-central-1"
    reqs = _uniq(rng, _uuid, 9)
    slow = reqs[0]
    queues = _uniq(rng, lambda r: token(r, 12), 3)
    dlq = f"arn:aws:sqs:eu-central-1:{acct}:naracki-prod-OrdersDLQ-{queues[0]}"
    tickets = _uniq(rng, lambda r: str(r.randint(200, 999)), 4)
    stream = f"2024/06/11/[$LATEST]{hexits(rng, 32)}"

    def tail_out() -> str:
        lines = []
        order = reqs[1:7]
        order.insert(rng.randint(1, 5), slow)
        for i, r in enumerate(order):
            t = f"2024-06-11T0{7 + i // 3}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)}000+00:00 {stream}"
            lines.append(f"{t} START RequestId: {r} Version: $LATEST")
            if r == slow:
                lines.append(
                    f"{t} {_stamp(rng, '2024-06-11', 7 + i // 3)}\t{r}\tINFO\tquerying restoran availability restoranId=rst_{rng.randint(100, 999)}"
                )
                lines.append(
                    f"{t} {_stamp(rng, '2024-06-11', 7 + i // 3)} {r} Task timed out after 6.01 seconds"
                )
                lines.append(f"{t} END RequestId: {r}")
                lines.append(
                    f"{t} REPORT RequestId: {r}\tDuration: 6008.41 ms\tBilled Duration: 6000 ms\tMemory Size: 512 MB\tMax Memory Used: 188 MB\tStatus: timeout"
                )
            else:
                if rng.random() < 0.4:
                    lines.append(
                        f'{t} {_stamp(rng, "2024-06-11", 7 + i // 3)}\t{r}\tERROR\tInvoke Error \t{{"errorType":"ConditionalCheckFailedException","errorMessage":"The conditional request failed"}}'
                    )
                lines.append(f"{t} END RequestId: {r}")
                lines.append(
                    f"{t} REPORT RequestId: {r}\tDuration: {rng.randint(180, 3900)}.{rng.randint(10, 99)} ms\tBilled Duration: {rng.randint(200, 3900)} ms\tMemory Size: 512 MB\tMax Memory Used: {rng.randint(150, 210)} MB"
                )
        return "\n".join(lines)

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Здраво! Од синоќа API-то за нарачки (SAM стекот naracki-prod, eu-central-1) фрла 502 на POST /orders, а CreateOrderFn има timeouts. Профилот е naracki-prod во ~/.aws/config, репото е ~/proekti/naracki-api. Погледни што се случува, те молам.",
                    "Добро утро. Ресторанските партнери се жалат дека нарачките не минуваат — POST /orders враќа 502. Стекот е naracki-prod во eu-central-1, профил naracki-prod. Прво најди ја причината, потоа ќе средуваме други работи.",
                )
            )
        )
        b.tool(
            "Прво ги гледам ресурсите на стекот.",
            "bash",
            {
                "command": f"aws cloudformation describe-stack-resources --stack-name naracki-prod {prof} --query 'StackResources[].[LogicalResourceId,ResourceType,ResourceStatus]' --output table"
            },
            "-------------------------------------------------------------------------\n|                        DescribeStackResources                          |\n+-----------------------+-----------------------------+------------------+\n"
            + "\n".join(
                f"|  {a:<21}|  {t:<27}|  {s:<16}|"
                for a, t, s in (
                    ("CreateOrderFn", "AWS::Lambda::Function", "UPDATE_COMPLETE"),
                    ("GetOrderFn", "AWS::Lambda::Function", "UPDATE_COMPLETE"),
                    ("OrdersApi", "AWS::Serverless::Api", "UPDATE_COMPLETE"),
                    ("OrdersQueue", "AWS::SQS::Queue", "CREATE_COMPLETE"),
                    ("OrdersDLQ", "AWS::SQS::Queue", "CREATE_COMPLETE"),
                    ("OrdersTable", "AWS::DynamoDB::Table", "UPDATE_COMPLETE"),
                    ("NotifyFn", "AWS::Lambda::Function", "UPDATE_COMPLETE"),
                )
            )
            + "\n+-----------------------+-----------------------------+------------------+",
        )
        b.assistant(
            "Стекот е во ред (сите ресурси UPDATE_COMPLETE / CREATE_COMPLETE). Проблемот е во извршувањето, не во deploy-от. Ги гледам логовите на CreateOrderFn."
        )

    # ------ noise
    def metrics() -> None:
        b.user(
            rng.choice(
                (
                    "Колку грешки имаме во последните 6 часа?",
                    "Покажи ми ги метриките на CreateOrderFn.",
                )
            )
        )
        rows = "\n".join(
            f"{rng.randint(0, 40)}\t2024-06-11T0{h}:00:00+00:00\tCount" for h in range(1, 7)
        )
        b.tool(
            "Ги вадам Errors од CloudWatch.",
            "bash",
            {
                "command": f"aws cloudwatch get-metric-statistics --namespace AWS/Lambda --metric-name Errors --dimensions Name=FunctionName,Value={fn} --start-time 2024-06-11T00:00:00Z --end-time 2024-06-11T07:00:00Z --period 3600 --statistics Sum {prof} --query 'Datapoints[].[Sum,Timestamp,Unit]' --output text"
            },
            rows,
        )
        b.assistant(
            "Грешките почнуваат околу 02:00 UTC, кога ресторанскиот API почна бавно да одговара; пред тоа речиси нула."
        )

    def code() -> None:
        b.user("Покажи ми го handler-от.")
        src = "const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');\nconst { DynamoDBDocumentClient, PutCommand } = require('@aws-sdk/lib-dynamodb');\nconst restorani = require('./lib/restorani');\n\nconst ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}));\n\nexports.handler = async (event) => {\n  const narachka = JSON.parse(event.body);\n  const dostapen = await restorani.proveri(narachka.restoranId); // без timeout!\n  if (!dostapen) return { statusCode: 409, body: 'restoran zatvoren' };\n  await ddb.send(new PutCommand({\n    TableName: process.env.ORDERS_TABLE,\n    Item: { ...narachka, status: 'NOVA', kreirana: Date.now() },\n    ConditionExpression: 'attribute_not_exists(pk)',\n  }));\n  return { statusCode: 201, body: JSON.stringify({ id: narachka.pk }) };\n};"
        b.tool(
            "Го читам src/createOrder/index.js.",
            "bash",
            {"command": "cat -n src/createOrder/index.js"},
            "\n".join(f"{i + 1:>6}\t{x}" for i, x in enumerate(src.splitlines())),
        )
        b.assistant(
            "`restorani.proveri` нема свој timeout, па кога ресторанскиот API виси, функцијата чека до 6 секунди и пропаѓа; API Gateway тогаш враќа 502. Ќе додадам AbortController со 2 s и одговор 503."
        )

    def build() -> None:
        b.user(rng.choice(("Направи build и пушти ги тестовите.", "Дали sam build поминува?")))
        b.tool(
            "sam build.",
            "bash",
            {"command": "sam build --cached --parallel"},
            "Starting Build use cache\nStarting Build inside a container\nBuilding codeuri: /home/ana/proekti/naracki-api/src/createOrder runtime: nodejs16.x metadata: {} architecture: arm64 functions: CreateOrderFn\nRunning NodejsNpmBuilder:NpmPack\nRunning NodejsNpmBuilder:CopyNpmrcAndLockfile\nRunning NodejsNpmBuilder:CopySource\nRunning NodejsNpmBuilder:NpmInstall\nValid cache found, copying previously built resources for following functions (GetOrderFn, NotifyFn)\n\nBuild Succeeded\n\nBuilt Artifacts  : .aws-sam/build\nBuilt Template   : .aws-sam/build/template.yaml",
        )
        b.tool(
            "Тестови.",
            "bash",
            {"command": "npm test -- --silent"},
            f"PASS  test/createOrder.test.js\nPASS  test/getOrder.test.js\nPASS  test/notify.test.js\n\nTest Suites: 3 passed, 3 total\nTests:       {rng.randint(20, 40)} passed, {rng.randint(20, 40)} total\nTime:        {rng.randint(2, 8)}.{rng.randint(100, 999)} s",
        )
        b.assistant("Build и тестовите поминуваат. Runtime е уште nodejs16.x.")

    chunks += [metrics, code, build]

    # ------ identifiers
    named = rng.random() < 0.5

    def logs() -> None:
        b.user(
            rng.choice(
                ("Што велат логовите?", "Погледни ги логовите на CreateOrderFn од последниот час.")
            )
        )
        b.tool(
            "Ги читам логовите.",
            "bash",
            {"command": f"aws logs tail {group} --since 1h {prof}"},
            tail_out(),
        )
        if named:
            b.assistant(
                f"Едно повикување, RequestId {slow}, заврши со timeout по 6 секунди додека чекаше на ресторанскиот API; другите паѓаат на ConditionalCheckFailedException (дупликат нарачки при retry)."
            )
        else:
            b.assistant(
                "Едно од повикувањата заврши со „Task timed out after 6.01 seconds“ (Status: timeout во REPORT линијата) додека чекаше на ресторанскиот API; другите паѓаат на ConditionalCheckFailedException — дупликат нарачки при повторен обид."
            )

    probes.append(
        Probe(
            "identifier",
            "What is the RequestId of the CreateOrderFn invocation that timed out in the logs the agent read?",
            slow,
            ((slow,),),
        )
    )

    def queue() -> None:
        b.user(
            rng.choice(
                (
                    "Каде завршуваат нарачките што не успеале? Имаме ли DLQ?",
                    "Провери дали CreateOrderFn има dead-letter queue.",
                )
            )
        )
        b.tool(
            "Ја гледам конфигурацијата.",
            "bash",
            {
                "command": f"aws lambda get-function-configuration --function-name {fn} {prof} --query '{{Timeout:Timeout,Memory:MemorySize,Runtime:Runtime,DLQ:DeadLetterConfig.TargetArn}}'"
            },
            json.dumps(
                {"Timeout": 6, "Memory": 512, "Runtime": "nodejs16.x", "DLQ": dlq}, indent=4
            ),
        )
        b.tool(
            "И сите редици на стекот.",
            "bash",
            {
                "command": f"aws sqs list-queues --queue-name-prefix naracki-prod {prof} --output text"
            },
            "\n".join(
                f"QUEUEURLS\thttps://sqs.eu-central-1.amazonaws.com/{acct}/naracki-prod-{n}-{q}"
                for n, q in (
                    ("OrdersQueue", queues[1]),
                    ("OrdersDLQ", queues[0]),
                    ("NotifyQueue", queues[2]),
                )
            ),
        )
        b.assistant(
            rng.choice(
                (
                    f"Да, DLQ е {dlq}; во неа има неколку стотини пораки од ноќеска.",
                    "Да, има DLQ (ARN-от е погоре во DeadLetterConfig). OrdersQueue и NotifyQueue се обични редици.",
                )
            )
        )

    probes.append(
        Probe("identifier", "What is the ARN of CreateOrderFn's dead-letter queue?", dlq, ((dlq,),))
    )
    told = rng.random() < 0.5

    def ticket() -> None:
        if told:
            b.user(
                f"Ова води се под тикетот DOST-{tickets[0]}, стави го во commit пораката. DOST-{tickets[1]} е стариот за SMS, не тој."
            )
            b.tool(
                "Креирам гранка.",
                "bash",
                {"command": f"git switch -c bugfix/DOST-{tickets[0]}-restoran-timeout"},
                f"Switched to a new branch 'bugfix/DOST-{tickets[0]}-restoran-timeout'",
            )
            b.assistant("Гранката е креирана; commit-ите ќе го носат тикетот во пораката.")
        else:
            b.user("На која гранка сум? Сакам тикетот да биде во commit пораката.")
            b.tool(
                "Проверувам.",
                "bash",
                {"command": "git branch --show-current && git log --oneline -3"},
                f"bugfix/DOST-{tickets[0]}-restoran-timeout\n{hexits(rng, 7)} DOST-{tickets[1]}: sms retry backoff\n{hexits(rng, 7)} DOST-{tickets[2]}: order status enum\n{hexits(rng, 7)} chore: bump aws-sdk",
            )
            b.assistant(
                f"Си на bugfix/DOST-{tickets[0]}-restoran-timeout, значи тикетот е DOST-{tickets[0]}; претходните commit-и се за други тикети."
            )

    probes.append(
        Probe(
            "identifier",
            "What is the ticket key for the restaurant-timeout fix?",
            f"DOST-{tickets[0]}",
            ((f"DOST-{tickets[0]}",),),
        )
    )
    chunks += [logs, queue, ticket]

    # ------ artifacts
    table = rng.choice(("OrdersLegacy", "naracki-orders-v1", "CartsOld"))
    rule = rng.choice(("nightly-report", "sync-restorani", "reminder-sms"))
    bucket = f"naracki-exports-{token(rng, 6, string.ascii_lowercase + string.digits)}"
    param = rng.choice(("/naracki/prod/restoran-api-key", "/naracki/prod/sms-gateway-token"))
    arts = [
        _Art(
            (table,),
            ("DELETING", "deleted", "избриш"),
            "Which old DynamoDB table was removed, and what happened to it?",
            f"The table {table} was deleted.",
            f"Табелата {table} не се користи од миграцијата. Ослободи се од неа, backup веќе имаме.",
            "Ја бришам табелата.",
            f"aws dynamodb delete-table --table-name {table} {prof} --query 'TableDescription.[TableName,TableStatus]' --output text",
            f"{table}\tDELETING",
            "DELETING",
            f"Табелата {table} ја избришав (статус DELETING, ќе исчезне за минута); backup-от од вчера останува.",
            "Готово, за минута ќе исчезне; backup-от од вчера останува.",
            quiet_cmd=f"aws dynamodb delete-table --table-name {table} {prof} --query 'TableDescription.TableStatus' --output text",
        ),
        _Art(
            (rule,),
            ("DISABLED", "оневозможи", "исклуч", "деактивира"),
            "Which EventBridge rule was switched off during the incident, and what state is it in?",
            f"The EventBridge rule {rule} was disabled.",
            f"Правилото {rule} во EventBridge дополнително ја оптоварува табелата. Запри го додека не се смири.",
            "Го запирам правилото и проверувам.",
            f"aws events disable-rule --name {rule} {prof} && aws events describe-rule --name {rule} {prof} --query '[Name,State]' --output text",
            f"{rule}\tDISABLED",
            "ok",
            f"Правилото {rule} е исклучено (DISABLED); ќе го вклучиме кога ќе се смири.",
            "Готово; ќе го вклучиме кога ќе се смири.",
            quiet_cmd=f"aws events disable-rule --name {rule} {prof} && echo ok",
        ),
        _Art(
            (bucket,),
            ("remove_bucket", "removed", "избриш", "отстран"),
            "Which S3 bucket was removed, and what happened to it?",
            f"The bucket {bucket} was removed (with its old CSV exports).",
            f"Бакетот {bucket} со старите CSV извештаи повеќе не ни треба. Расчисти го целосно.",
            "Го празнам и бришам бакетот.",
            f"aws s3 rb s3://{bucket} --force {prof}",
            "\n".join(
                f"delete: s3://{bucket}/izvestai/2024-0{rng.randint(1, 5)}-{rng.randint(10, 28)}.csv"
                for _ in range(4)
            )
            + f"\nremove_bucket: {bucket}",
            "ok",
            f"Бакетот {bucket} е избришан заедно со старите CSV извештаи.",
            "Готово, старите CSV извештаи се отстранети заедно со него.",
            quiet_cmd=f"aws s3 rb s3://{bucket} --force {prof} > /dev/null && echo ok",
        ),
        _Art(
            (param,),
            ("overwrit", "updated", "ажурира", "промен", "замен"),
            "Which SSM parameter was updated with the new key from the restaurant partner, and what happened to it?",
            f"The SSM parameter {param} was overwritten with the new value.",
            "Партнерот ни прати нов клуч за нивниот API. Стави го во Parameter Store наместо стариот.",
            "Ја запишувам новата вредност.",
            f"aws ssm put-parameter --name {param} --type SecureString --value file:///tmp/kluc.txt --overwrite {prof}",
            json.dumps({"Version": rng.randint(3, 9), "Tier": "Standard"}, indent=4),
            json.dumps({"Version": rng.randint(3, 9), "Tier": "Standard"}, indent=4),
            f"Параметарот {param} е ажуриран со новиот клуч (нова верзија); функциите ќе го земат при следен cold start.",
            "",
            modes=("prose",),
        ),
    ]
    for art in rng.sample(arts, 2):
        chunks.append(_art_chunk(rng, b, art, probes))

    # ------ decision
    tmpl = "Globals:\n  Function:\n    Runtime: nodejs16.x\n    Architectures: [arm64]\n    MemorySize: 512\n    Timeout: 6\n    Tracing: PassThrough"

    def diff(key: str, old: str, new: str) -> str:
        return f"--- a/template.yaml\n+++ b/template.yaml\n@@ -12,7 +12,7 @@ Globals:\n     MemorySize: 512\n-    {key}: {old}\n+    {key}: {new}\n     Tracing: PassThrough"

    timeout = _Topic(
        "What Lambda timeout was decided for CreateOrderFn?",
        lambda v: f"{v} seconds",
        lambda v: (
            (f"{v} s", f"{v} секунд", f"Timeout: {v}", f"{v} seconds", f"{v}s", f"timeout {v}"),
            ("timeout", "тајмаут"),
        ),
        ("10", "15", "20"),
        "Дали 6 секунди timeout е премалку за CreateOrderFn? Што предлагаш?",
        (
            "Гледам што има во template.yaml.",
            "sed -n 1,20p template.yaml | grep -A8 '^Globals'",
            tmpl,
        ),
        lambda v: f"Timeout на CreateOrderFn нека биде {v} секунди, не повеќе.",
        lambda o: f"Крени го timeout на CreateOrderFn на {o} секунди.",
        lambda v, o: (
            f"Се предомислив за timeout-от: не {o}, туку {v} секунди — API Gateway и онака сече на 29."
        ),
        lambda v: (
            f"Предлагам timeout од {v} секунди за CreateOrderFn, со посебен timeout од 2 s за ресторанскиот повик. Може?"
        ),
        ("Може, направи го.", "Да, важи."),
        lambda v, o: f"{o} е премногу, стави timeout {v} секунди.",
        lambda v: (
            f"Марко од платформа вели timeout-от на CreateOrderFn да биде {v} секунди, така е и кај другите сервиси. Направи така."
        ),
        lambda a, c: f"Сега е 6 секунди. Колкав timeout сакаш — {a} или {c} секунди?",
        lambda v: f"Timeout {v} секунди.",
        lambda v: (
            "Менувам template.yaml.",
            f"sed -i 's/    Timeout: 6/    Timeout: {v}/' template.yaml && git diff template.yaml",
            diff("Timeout", "6", v),
        ),
        lambda v: (
            f"Timeout на CreateOrderFn е сега {v} секунди во template.yaml; ќе влезе со следниот sam deploy."
        ),
        (),
    )
    concurrency = _Topic(
        "What reserved concurrency was decided for CreateOrderFn?",
        lambda v: f"{v} (reserved concurrency)",
        lambda v: ((v,), ("concurrency", "паралел", "конкурент")),
        ("20", "50", "100"),
        "Кога ресторанскиот API виси, CreateOrderFn ги јаде сите извршувања во сметката. Можеме ли да ја ограничиме?",
        (
            "Гледам лимити на сметката.",
            f"aws lambda get-account-settings {prof} --query 'AccountLimit.[ConcurrentExecutions,UnreservedConcurrentExecutions]' --output text",
            "1000\t1000",
        ),
        lambda v: f"Reserved concurrency за CreateOrderFn нека биде {v}.",
        lambda o: f"Стави reserved concurrency {o} на CreateOrderFn.",
        lambda v, o: f"Поправка за concurrency: не {o}, туку {v} — во петок навечер имаме шпицеви.",
        lambda v: (
            f"Предлагам reserved concurrency {v} за CreateOrderFn, за да не ги изгладни другите функции. Се согласуваш?"
        ),
        ("Се согласувам.", "Да, стави."),
        lambda v, o: f"{o} е малку, нека биде concurrency {v}.",
        lambda v: (
            f"Ивана од SRE рече reserved concurrency на CreateOrderFn да биде {v}. Стави го тоа."
        ),
        lambda a, c: f"Колкав reserved concurrency — {a} или {c}?",
        lambda v: f"Concurrency {v}.",
        lambda v: (
            "Менувам template.yaml.",
            f"yq -i '.Resources.CreateOrderFn.Properties.ReservedConcurrentExecutions = {v}' template.yaml && git diff --stat",
            " template.yaml | 1 +\n 1 file changed, 1 insertion(+)",
        ),
        lambda v: (
            f"CreateOrderFn има reserved concurrency {v} во template.yaml; ќе влезе со следниот sam deploy."
        ),
        (),
    )
    _decision(rng, b, (timeout, concurrency), probes, chunks, pairs)

    # ------ next step
    d, m = _date(rng)
    when = f"{d} {_MK_MONTHS[m - 1]}"
    variant = rng.randrange(3)
    if variant == 0:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        f"Уште нешто: до {when} мора да ги префрлиме сите функции на Node.js 20, AWS го гаси nodejs16.x. Не денес, само запиши.",
                        f"Успат — AWS праќа мејлови за nodejs16.x; сите функции треба да се на Node.js 20 најдоцна до {when}. Засега ништо не менувај.",
                    )
                )
            )
            b.tool(
                "Гледам кои функции се на стар runtime.",
                "bash",
                {
                    "command": f"aws lambda list-functions {prof} --query \"Functions[?Runtime=='nodejs16.x'].FunctionName\" --output text"
                },
                "\t".join(
                    (
                        fn,
                        f"naracki-prod-GetOrderFn-{token(rng, 12)}",
                        f"naracki-prod-NotifyFn-{token(rng, 12)}",
                    )
                ),
            )
            b.assistant(
                "Запишано. Три функции се на nodejs16.x, сите во истиот стек, па е доволна една промена во Globals."
            )

        probes.append(
            Probe(
                "next_step",
                "What migration must be done, and by when?",
                f"Move all functions to Node.js 20 by {_EN_MONTHS[m - 1]} {d}.",
                (("Node.js 20", "nodejs20", "Node 20"), _date_needles(d, m, when)),
            )
        )
    elif variant == 1:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        "Супер. Кога DLQ ќе се испразни, исклучи го CloudWatch алармот за неа — не пред тоа. А сега погледни зошто GetOrderFn има толку долг cold start.",
                        "Сега GetOrderFn: cold start-от е над секунда, види зошто. И уште нешто — алармот за DLQ исклучи го дури кога DLQ ќе се испразни.",
                    )
                )
            )
            b.tool(
                "Гледам Init Duration.",
                "bash",
                {
                    "command": f"aws logs filter-log-events --log-group-name /aws/lambda/naracki-prod-GetOrderFn-{token(rng, 12)} --filter-pattern 'Init Duration' --max-items 4 {prof} --query 'events[].message' --output text"
                },
                "\n".join(
                    f"REPORT RequestId: {_uuid(rng)}\tDuration: {rng.randint(20, 90)}.{rng.randint(10, 99)} ms\tBilled Duration: {rng.randint(20, 90)} ms\tMemory Size: 256 MB\tMax Memory Used: 98 MB\tInit Duration: {rng.randint(900, 1400)}.{rng.randint(10, 99)} ms"
                    for _ in range(4)
                ),
            )
            b.assistant(
                "Init трае ~1.1 s затоа што целиот aws-sdk v2 се вчитува; со модуларниот v3 клиент ќе падне под 300 ms."
            )

        probes.append(
            Probe(
                "next_step",
                "What should be done about the DLQ alarm, and when?",
                "Disable the CloudWatch alarm for the DLQ once the DLQ is empty (not before).",
                (("аларм", "alarm"), ("DLQ",)),
            )
        )
    else:

        def nxt() -> None:
            b.user("Можеме ли следниот пат побрзо да видиме каде виси повикот?")
            b.tool(
                "Проверувам tracing.",
                "bash",
                {
                    "command": f"aws lambda get-function-configuration --function-name {fn} {prof} --query 'TracingConfig.Mode' --output text"
                },
                "PassThrough",
            )
            b.assistant(
                rng.choice(
                    (
                        "Tracing е исклучен (PassThrough). По следниот deploy ќе додадам X-Ray трасирање на CreateOrderFn, со посебен subsegment за ресторанскиот повик.",
                        "Засега не, tracing е PassThrough. Со следниот deploy ќе го вклучам X-Ray трасирањето на CreateOrderFn.",
                    )
                )
            )

        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to add, and when?",
                "X-Ray tracing on CreateOrderFn, with the next deploy.",
                (("X-Ray",), ("deploy", "деплој")),
            )
        )
    chunks.append(nxt)

    # ------ filler: other work on the same API
    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user(
                r.choice(
                    (
                        "Провери ги usage плановите на API Gateway.",
                        "Колку повици имаат партнерите овој месец?",
                    )
                )
            )
            b.tool(
                "Usage.",
                "bash",
                {
                    "command": f"aws apigateway get-usage --usage-plan-id {token(r, 6, string.ascii_lowercase + string.digits)} --start-date 2024-06-01 --end-date 2024-06-30 {prof} --query 'items' --output json | jq 'map_values(map(.[0]) | add)'"
                },
                json.dumps(
                    {
                        token(r, 10, string.ascii_lowercase + string.digits): r.randint(1000, 90000)
                        for _ in range(3)
                    },
                    indent=2,
                ),
            )
            b.assistant(
                "Партнерите се далеку под квотата; најактивниот има околу половина од месечниот лимит."
            )
        elif pick == 1:
            b.user(r.choice(("Пушти sam validate.", "Дали template-от е валиден?")))
            b.tool(
                "Валидирам.",
                "bash",
                {"command": "sam validate --lint"},
                "/home/ana/proekti/naracki-api/template.yaml is a valid SAM Template",
            )
            b.assistant("Template-от е валиден, без предупредувања од cfn-lint.")
        elif pick == 2:
            b.user(
                r.choice(("Колку нè чини Lambda овој месец?", "Провери ги трошоците за Lambda."))
            )
            b.tool(
                "Cost Explorer.",
                "bash",
                {
                    "command": f'aws ce get-cost-and-usage --time-period Start=2024-06-01,End=2024-06-11 --granularity MONTHLY --metrics UnblendedCost --filter \'{{"Dimensions":{{"Key":"SERVICE","Values":["AWS Lambda"]}}}}\' {prof} --query \'ResultsByTime[0].Total.UnblendedCost\''
                },
                json.dumps(
                    {"Amount": f"{r.randint(20, 140)}.{r.randint(10, 99)}", "Unit": "USD"}, indent=4
                ),
            )
            b.assistant("Трошокот за Lambda е мал и во рамки на буџетот.")
        else:
            b.user(
                r.choice(
                    (
                        "Покажи ги најбавните повици на GetOrderFn вчера.",
                        "Пушти Logs Insights за p95 на GetOrderFn.",
                    )
                )
            )
            b.tool(
                "Logs Insights.",
                "bash",
                {
                    "command": "aws logs start-query --log-group-name /aws/lambda/naracki-prod-GetOrderFn --start-time 1718000000 --end-time 1718086400 --query-string 'filter @type = \"REPORT\" | stats pct(@duration, 95) as p95, avg(@duration) as avg by bin(6h)' --profile naracki-prod --region eu-central-1 --output text"
                },
                _uuid(r),
            )
            b.assistant(f"p95 на GetOrderFn е околу {r.randint(80, 300)} ms, без скокови.")

    return _kind(rng, b, segments, intro, chunks, pairs, filler, probes)


# --------------------------------------------------------------------------------------
# Marathi: a HashiCorp Vault cluster (raft, database secrets, PKI, AppRole) for payments

_MR_MONTHS = (
    "जानेवारी",
    "फेब्रुवारी",
    "मार्च",
    "एप्रिल",
    "मे",
    "जून",
    "जुलै",
    "ऑगस्ट",
    "सप्टेंबर",
    "ऑक्टोबर",
    "नोव्हेंबर",
    "डिसेंबर",
)


def _kv(rows: list[tuple[str, str]]) -> str:
    """A table as the vault CLI prints it."""
    width = max(len(k) for k, _ in rows) + 4
    return f"{'Key':<{width}}Value\n{'---':<{width}}-----\n" + "\n".join(
        f"{k:<{width}}{v}" for k, v in rows
    )


def _mr_vault(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    chunks: list[Chunk] = []
    pairs: list[tuple[Chunk, Chunk]] = []
    leases = _uniq(rng, lambda r: token(r, 24, _B62), 7)
    lease = f"database/creds/payments-ro/{leases[0]}"
    serials = _uniq(rng, lambda r: ":".join(hexits(r, 2) for _ in range(20)), 5)
    serial = serials[0]
    accs = _uniq(rng, lambda r: token(r, 24, _B62), 6)
    ci_acc = accs[0]
    peers = [f"vault-{i}" for i in (1, 2, 3)]

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "नमस्कार! आज सकाळपासून आपल्या Vault क्लस्टरवर (vault.paisasetu.internal, तीन raft नोड्स) payments सेवेला डेटाबेस क्रेडेन्शियल्स मिळताना कधी 'permission denied' तर कधी timeout येतोय. VAULT_ADDR आणि टोकन तुझ्या शेलमध्ये सेट आहेत. काय चाललंय ते बघ, प्लीज.",
                    "सुप्रभात. payments-api चे पॉड्स Vault कडून Postgres क्रेडेन्शियल्स घेताना अडकतायत. क्लस्टर vault.paisasetu.internal आहे, शेलमध्ये admin टोकन आहे. आधी कारण शोध, मग बाकीची साफसफाई करू.",
                )
            )
        )
        b.tool(
            "आधी क्लस्टरची स्थिती बघतो.",
            "bash",
            {"command": "vault status"},
            _kv(
                [
                    ("Seal Type", "shamir"),
                    ("Initialized", "true"),
                    ("Sealed", "false"),
                    ("Total Shares", "5"),
                    ("Threshold", "3"),
                    ("Version", "1.15.4"),
                    ("Build Date", "2023-12-04T17:45:28Z"),
                    ("Storage Type", "raft"),
                    ("Cluster Name", f"vault-cluster-{hexits(rng, 8)}"),
                    ("Cluster ID", _uuid(rng)),
                    ("HA Enabled", "true"),
                    ("HA Cluster", "https://vault-1.paisasetu.internal:8201"),
                    ("HA Mode", "active"),
                    ("Active Since", f"2024-06-{rng.randint(1, 10):02d}T22:41:07.11Z"),
                    ("Raft Committed Index", str(rng.randint(8000000, 9000000))),
                    ("Raft Applied Index", str(rng.randint(8000000, 9000000))),
                ]
            ),
        )
        b.assistant(
            "क्लस्टर unsealed आहे, vault-1 active आहे. सील किंवा HA चा प्रश्न दिसत नाही; आता सर्व्हरचे लॉग्स आणि database secrets engine बघतो."
        )

    # ------ noise
    def journal() -> None:
        b.user(rng.choice(("लॉग्समध्ये काय दिसतंय?", "vault सर्व्हिसचे लॉग्स बघ.")))
        lines = []
        for _ in range(rng.randint(12, 18)):
            t = f"Jun 11 0{rng.randint(6, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}"
            kind = rng.random()
            if kind < 0.45:
                lines.append(
                    f'{t} vault-1 vault[{rng.randint(900, 999)}]: {_stamp(rng, "2024-06-11", 6)} [ERROR] secrets.database.database_{hexits(rng, 8)}: error creating database object: error="pq: too many connections for role \\"vault_admin\\""'
                )
            elif kind < 0.7:
                lines.append(
                    f"{t} vault-1 vault[{rng.randint(900, 999)}]: {_stamp(rng, '2024-06-11', 6)} [WARN]  core: lease revocation timed out: lease_id=database/creds/reporting-ro/{token(rng, 24, _B62)}"
                )
            else:
                lines.append(
                    f"{t} vault-1 vault[{rng.randint(900, 999)}]: {_stamp(rng, '2024-06-11', 6)} [INFO]  expiration: revoked lease: lease_id=database/creds/payments-ro/{token(rng, 24, _B62)}"
                )
        lines.sort()
        b.tool(
            "journalctl.",
            "bash",
            {
                "command": "ssh vault-1.paisasetu.internal 'journalctl -u vault --since \"2 hours ago\" --no-pager | tail -n 18'"
            },
            "\n".join(lines),
        )
        b.assistant(
            "मूळ कारण: Postgres मध्ये vault_admin रोलची कनेक्शन मर्यादा संपली आहे ('too many connections'). क्रेडेन्शियल्स २४ तासांसाठी दिले जातात आणि जुने लीज वेळेत रद्द होत नाहीत, त्यामुळे युजर्स साचतात."
        )

    def peers_chunk() -> None:
        b.user("raft peers ठीक आहेत का?")
        rows = "\n".join(
            f"{p:<10}{p}.paisasetu.internal:8201    {'leader' if i == 0 else 'follower'}    true"
            for i, p in enumerate(peers)
        )
        b.tool(
            "peers बघतो.",
            "bash",
            {"command": "vault operator raft list-peers"},
            "Node      Address                           State       Voter\n----      -------                           -----       -----\n"
            + rows,
        )
        b.assistant("तिन्ही नोड्स voter आहेत, vault-1 leader. raft मध्ये काही अडचण नाही.")

    def dbconfig() -> None:
        b.user(rng.choice(("database कनेक्शनची कॉन्फिगरेशन दाखव.", "payments-pg कनेक्शन कसं सेट आहे?")))
        b.tool(
            "कॉन्फिगरेशन वाचतो.",
            "bash",
            {"command": "vault read database/config/payments-pg"},
            _kv(
                [
                    ("allowed_roles", "[payments-ro payments-rw reporting-ro]"),
                    (
                        "connection_details",
                        "map[backup_dsn: connection_url:postgresql://{{username}}:{{password}}@pg-payments.paisasetu.internal:5432/payments max_connection_lifetime:0s max_idle_connections:0 max_open_connections:4 username:vault_admin]",
                    ),
                    ("password_policy", "n/a"),
                    ("plugin_name", "postgresql-database-plugin"),
                    ("plugin_version", "n/a"),
                    ("root_credentials_rotate_statements", "[]"),
                    ("verify_connection", "true"),
                ]
            ),
        )
        b.assistant(
            "max_open_connections फक्त 4 आहे आणि Postgres मध्ये vault_admin साठी CONNECTION LIMIT 20 आहे; साचलेल्या युजर्समुळे ती मर्यादा भरते."
        )

    chunks += [journal, peers_chunk, dbconfig]

    # ------ identifiers
    def creds() -> None:
        b.user(
            rng.choice(
                (
                    "payments-ro मधून क्रेडेन्शियल्स मिळतात का, एकदा स्वतः चाचणी कर.",
                    "एक चाचणी क्रेडेन्शियल काढून बघ की रोल चालतोय का.",
                )
            )
        )
        b.tool(
            "लीज केलेले युजर्स मोजतो.",
            "bash",
            {"command": "vault list sys/leases/lookup/database/creds/payments-ro/ | head -8"},
            "Keys\n----\n" + "\n".join(leases[1:7]),
        )
        b.tool(
            "चाचणी क्रेडेन्शियल.",
            "bash",
            {"command": "vault read database/creds/payments-ro"},
            _kv(
                [
                    ("lease_id", lease),
                    ("lease_duration", "24h"),
                    ("lease_renewable", "true"),
                    ("password", "<redacted>"),
                    (
                        "username",
                        f"v-token-payments-ro-{token(rng, 20, _B62)}-{rng.randint(1718000000, 1718999999)}",
                    ),
                ]
            ),
        )
        if rng.random() < 0.5:
            b.assistant(
                f"रोल चालतो. चाचणीसाठी काढलेल्या क्रेडेन्शियलचा लीज {lease} आहे — काम झालं की तो मी रद्द करेन. यादीतले इतर लीज payments पॉड्सचे आहेत."
            )
        else:
            b.assistant(
                "रोल चालतो; चाचणी क्रेडेन्शियलचा lease_id वर आउटपुटमध्ये आहे, काम झालं की तो रद्द करेन. यादीतले इतर लीज payments पॉड्सचे आहेत."
            )

    probes.append(
        Probe(
            "identifier",
            "What is the lease ID of the test database credentials the agent generated from payments-ro?",
            lease,
            ((lease,),),
        )
    )

    def cert() -> None:
        b.user(
            rng.choice(
                (
                    "payments-api चं TLS प्रमाणपत्र उद्या संपतंय. नवीन काढ.",
                    "payments-api.paisasetu.internal साठी नवीन प्रमाणपत्र हवं आहे, जुनं संपतंय.",
                )
            )
        )
        b.tool(
            "सध्याची प्रमाणपत्रं बघतो.",
            "bash",
            {"command": "vault list pki_int/certs | tail -n 4"},
            "Keys\n----\n" + "\n".join(s.replace(":", "-") for s in serials[1:5]),
        )
        b.tool(
            "नवीन प्रमाणपत्र काढतो.",
            "bash",
            {
                "command": "vault write -format=table pki_int/issue/paisasetu-internal common_name=payments-api.paisasetu.internal ttl=720h | grep -v -- '-----'"
            },
            _kv(
                [
                    ("ca_chain", "[<2 certificates>]"),
                    ("certificate", "<PEM, 1 certificate>"),
                    ("expiration", str(rng.randint(1720000000, 1729999999))),
                    ("issuing_ca", "<PEM>"),
                    ("private_key", "<redacted>"),
                    ("private_key_type", "rsa"),
                    ("serial_number", serial),
                ]
            ),
        )
        b.assistant(
            rng.choice(
                (
                    f"नवीन प्रमाणपत्र काढलं, serial {serial}; ते Kubernetes secret मध्ये टाकलं की जुनं revoke करू.",
                    "नवीन प्रमाणपत्र काढलं (serial_number वर आउटपुटमध्ये). यादीतली बाकीची प्रमाणपत्रं जुनी आहेत; नवीन तैनात झालं की जुनं revoke करू.",
                )
            )
        )

    probes.append(
        Probe(
            "identifier",
            "What is the serial number of the new payments-api certificate issued from pki_int?",
            serial,
            ((serial,),),
        )
    )
    given = rng.random() < 0.5

    def token_chunk() -> None:
        if given:
            b.user(
                f"सुरक्षा स्कॅनमध्ये एक CI टोकन सापडलं ज्याला default पेक्षा खूप जास्त अधिकार आहेत, accessor {ci_acc}. ते कोणाचं आहे ते बघ. ({accs[1]} हा माझा स्वतःचा आहे, तो सोड.)"
            )
        else:
            b.user("Jenkins चं टोकन कोणतं आहे ते शोध; त्याला जास्त अधिकार असल्याचा संशय आहे.")
            b.tool(
                "accessors ची यादी.",
                "bash",
                {"command": "vault list auth/token/accessors | head -6"},
                "Keys\n----\n" + "\n".join(accs[:5]),
            )
        b.tool(
            "टोकन तपासतो.",
            "bash",
            {"command": f"vault token lookup -accessor {ci_acc}"},
            _kv(
                [
                    ("accessor", ci_acc),
                    ("creation_time", str(rng.randint(1710000000, 1717999999))),
                    ("display_name", "approle-jenkins"),
                    ("entity_id", _uuid(rng)),
                    ("expire_time", "2024-07-01T09:12:44Z"),
                    ("num_uses", "0"),
                    ("orphan", "true"),
                    ("path", "auth/approle/login"),
                    ("policies", "[ci-admin default]"),
                    ("renewable", "true"),
                    ("ttl", "455h12m3s"),
                    ("type", "service"),
                ]
            ),
        )
        b.assistant(
            "हे Jenkins चं AppRole टोकन आहे आणि त्याला ci-admin पॉलिसी जोडलेली आहे — त्याला फक्त deploy अधिकार हवेत."
            if given
            else f"Jenkins चं टोकन हे आहे: accessor {ci_acc}, display_name approle-jenkins, आणि त्याला ci-admin पॉलिसी आहे — गरजेपेक्षा खूप जास्त."
        )

    probes.append(
        Probe(
            "identifier",
            "What is the accessor of the Jenkins CI token with the overly broad ci-admin policy?",
            ci_acc,
            ((ci_acc,),),
        )
    )
    chunks += [creds, cert, token_chunk]

    # ------ artifacts
    pol = rng.choice(("ci-deploy", "payments-app", "reporting-ro"))
    eng = rng.choice(("kv-legacy", "secret-old", "transit-test"))
    role = rng.choice(("jenkins-old", "airflow-etl", "grafana-reader"))
    audit = rng.choice(("file_audit", "audit_local"))
    arts = [
        _Art(
            (pol,),
            ("Uploaded", "updated", "बदल", "अपडेट"),
            "Which Vault policy was rewritten to remove the wildcard path, and what happened to it?",
            f"The policy {pol} was updated (uploaded again without the secret/* wildcard).",
            f"{pol} पॉलिसीमध्ये secret/* असा wildcard आहे. तो काढून फक्त गरजेचे पाथ ठेव.",
            "सुधारित HCL अपलोड करतो.",
            f"vault policy write {pol} policies/{pol}.hcl",
            f"Success! Uploaded policy: {pol}",
            "OK",
            f"{pol} पॉलिसी अपडेट केली: secret/* काढला, फक्त तीन पाथ उरले.",
            "झालं; secret/* काढला, फक्त तीन पाथ उरले.",
            quiet_cmd=f"vault policy write {pol} policies/{pol}.hcl >/dev/null && echo OK",
        ),
        _Art(
            (f"{eng}/", eng),
            ("Disabled", "बंद", "निष्क्रिय"),
            "Which unused secrets engine was switched off, and what happened to it?",
            f"The secrets engine {eng}/ was disabled.",
            f"{eng}/ हे secrets engine कोणी वापरत नाही, मागच्या वर्षीच्या प्रयोगातलं आहे. ते काढून टाक.",
            "engine बंद करतो.",
            f"vault secrets disable {eng}/",
            f"Success! Disabled the secrets engine (if it existed) at: {eng}/",
            "OK",
            f"{eng}/ secrets engine बंद केलं; त्यातला डेटा आता उपलब्ध नाही.",
            "झालं; त्यातला डेटा आता उपलब्ध नाही.",
            quiet_cmd=f"vault secrets disable {eng}/ >/dev/null && echo OK",
        ),
        _Art(
            (f"auth/approle/role/{role}", role),
            ("deleted", "हटव", "काढून टाकल"),
            "Which old AppRole role was removed, and what happened to it?",
            f"The AppRole role {role} was deleted.",
            f"AppRole मधला {role} रोल आता कोणी वापरत नाही, त्याचे secret_id अजून वैध आहेत. साफ कर.",
            "रोल हटवतो.",
            f"vault delete auth/approle/role/{role}",
            f"Success! Data deleted (if it existed) at: auth/approle/role/{role}",
            "OK",
            f"AppRole रोल {role} हटवला; त्याचे सगळे secret_id आता अवैध आहेत.",
            "झालं; त्याचे सगळे secret_id आता अवैध आहेत.",
            quiet_cmd=f"vault delete auth/approle/role/{role} >/dev/null && echo OK",
        ),
        _Art(
            (audit,),
            ("Enabled", "सुरू", "चालू", "सक्षम"),
            "Which audit device was turned on, and what happened to it?",
            f"The file audit device {audit}/ was enabled (writing to /var/log/vault/audit.log).",
            "ऑडिटरला सगळ्या विनंत्यांचा लॉग हवा आहे, आणि आत्ता एकही audit device नाही.",
            "file audit device लावतो.",
            f"vault audit enable -path={audit} file file_path=/var/log/vault/audit.log",
            f"Success! Enabled the file audit device at: {audit}/",
            "OK",
            f"{audit}/ हा file audit device सुरू केला, लॉग /var/log/vault/audit.log मध्ये जातो.",
            "झालं, लॉग /var/log/vault/audit.log मध्ये जातो.",
            quiet_cmd=f"vault audit enable -path={audit} file file_path=/var/log/vault/audit.log >/dev/null && echo OK",
        ),
    ]
    for art in rng.sample(arts, 2):
        chunks.append(_art_chunk(rng, b, art, probes))

    # ------ decision
    why = {
        "1h": ("कारण पॉड्स दर तासाला रीस्टार्ट होतात", "the pods restart every hour"),
        "4h": ("कारण एका शिफ्टमध्ये एकदाच रिन्यू व्हावं", "so credentials renew once per shift"),
        "8h": ("कारण बॅच जॉब्स आठ तास चालतात", "the batch jobs run for eight hours"),
    }
    role_look = _kv(
        [
            (
                "creation_statements",
                "[CREATE ROLE \"{{name}}\" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO \"{{name}}\";]",
            ),
            ("db_name", "payments-pg"),
            ("default_ttl", "24h"),
            ("max_ttl", "72h"),
            ("renew_statements", "[]"),
            ("revocation_statements", "[]"),
        ]
    )
    ttl = _Topic(
        "What default TTL was decided for the payments-ro database credentials?",
        lambda v: f"{v} ({why[v][1]})",
        lambda v: ((v,), ("TTL",)),
        ("1h", "4h", "8h"),
        "payments सेवेचे युजर्स Postgres मध्ये साचतायत. payments-ro रोलचा TTL बघ आणि काय करायचं ते सांग.",
        ("रोल वाचतो.", "vault read database/roles/payments-ro", role_look),
        lambda v: f"payments-ro रोलचा default TTL {v} कर, {why[v][0]}.",
        lambda o: f"payments-ro चा default TTL {o} ठेव.",
        lambda v, o: f"TTL बद्दल दुरुस्ती: {o} नाही, {v} — {why[v][0]}. आधी माझी चूक झाली.",
        lambda v: f"मी सुचवतो की payments-ro चा default TTL {v} ठेवूया, {why[v][0]}. चालेल का?",
        ("हो, कर.", "चालेल, पुढे जा."),
        lambda v, o: f"{o} नको, TTL {v} ठेव, {why[v][0]}.",
        lambda v: (
            f"सुरक्षा टीममधल्या प्रिया म्हणाल्या की डेटाबेस क्रेडेन्शियल्सचा TTL {v} असायला हवा, {why[v][0]}. तसंच कर."
        ),
        lambda a, c: f"सध्या default TTL 24h आहे. कोणता TTL ठेवू — {a} की {c}?",
        lambda v: f"TTL {v}, {why[v][0]}.",
        lambda v: (
            "रोल बदलतो.",
            f"vault write database/roles/payments-ro db_name=payments-pg default_ttl={v} max_ttl=24h creation_statements=@roles/payments-ro.sql",
            "Success! Data written to: database/roles/payments-ro",
        ),
        lambda v: f"payments-ro चा default TTL आता {v} आहे; नवीन क्रेडेन्शियल्सना तो लागू होईल.",
        (),
    )
    pki_look = _kv(
        [
            ("allow_subdomains", "true"),
            ("allowed_domains", "[paisasetu.internal]"),
            ("key_bits", "2048"),
            ("key_type", "rsa"),
            ("max_ttl", "8760h"),
            ("ttl", "8760h"),
        ]
    )
    validity = _Topic(
        "What validity (max TTL) was decided for internal certificates from pki_int?",
        lambda v: f"{v} days ({int(v) * 24}h)",
        lambda v: (
            (f"{v} दिवस", f"{v} days", f"{int(v) * 24}h", f"{v}-day"),
            ("वैधता", "validity", "प्रमाणपत्र", "certificate", "max_ttl", "pki"),
        ),
        ("30", "90", "180"),
        "अंतर्गत प्रमाणपत्रं एक वर्षाची आहेत, ऑडिटरला ते आवडलं नाही. pki_int रोल बघ.",
        ("रोल वाचतो.", "vault read pki_int/roles/paisasetu-internal", pki_look),
        lambda v: f"अंतर्गत प्रमाणपत्रांची वैधता {v} दिवस ठेव, ऑडिटरची हीच मागणी आहे.",
        lambda o: f"प्रमाणपत्रांची वैधता {o} दिवस कर.",
        lambda v, o: f"प्रमाणपत्रांच्या वैधतेबद्दल दुरुस्ती: {o} नाही, {v} दिवस — ऑडिटरने नंतर कळवलं.",
        lambda v: (
            f"मी सुचवतो की प्रमाणपत्रांची वैधता {v} दिवस ठेवूया; cert-manager आपोआप नूतनीकरण करतो. चालेल?"
        ),
        ("हो, चालेल.", "ठीक आहे, कर."),
        lambda v, o: f"{o} दिवस नको, प्रमाणपत्रांची वैधता {v} दिवस ठेव.",
        lambda v: (
            f"ऑडिट टीमचे राहुल म्हणाले की अंतर्गत प्रमाणपत्रांची वैधता {v} दिवसांपेक्षा जास्त नसावी. तसं सेट कर."
        ),
        lambda a, c: f"सध्या max_ttl 8760h आहे. प्रमाणपत्रांची वैधता किती ठेवू — {a} की {c} दिवस?",
        lambda v: f"प्रमाणपत्रांची वैधता {v} दिवस.",
        lambda v: (
            "रोल बदलतो.",
            f"vault write pki_int/roles/paisasetu-internal allowed_domains=paisasetu.internal allow_subdomains=true max_ttl={int(v) * 24}h",
            "Success! Data written to: pki_int/roles/paisasetu-internal",
        ),
        lambda v: f"pki_int रोलची max_ttl आता {int(v) * 24}h, म्हणजे प्रमाणपत्रांची वैधता {v} दिवस.",
        (),
    )
    _decision(rng, b, (ttl, validity), probes, chunks, pairs)

    # ------ next step
    d, m = _date(rng)
    when = f"{d} {_MR_MONTHS[m - 1]}"
    variant = rng.randrange(3)
    if variant == 0:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        f"अजून एक गोष्ट: {when} पर्यंत Vault 1.15 वरून 1.16 वर अपग्रेड करायचं आहे, 1.15 चा सपोर्ट संपतोय. आज नाही, फक्त नोंद करून ठेव.",
                        f"लक्षात ठेव — क्लस्टर 1.16 वर अपग्रेड करण्याची डेडलाइन {when} आहे. आत्ता काही बदलू नकोस.",
                    )
                )
            )
            b.tool(
                "आवृत्त्या तपासतो.",
                "bash",
                {
                    "command": "for n in 1 2 3; do curl -s https://vault-$n.paisasetu.internal:8200/v1/sys/health | jq -r '\"\\(.cluster_name) \\(.version) standby=\\(.standby)\"'; done"
                },
                "\n".join(
                    f"vault-cluster {v} standby={s}"
                    for v, s in (("1.15.4", "false"), ("1.15.4", "true"), ("1.15.2", "true"))
                ),
            )
            b.assistant(
                "नोंद केली. तिन्ही नोड्स 1.15.x वर आहेत (vault-3 अजून 1.15.2 वर), अपग्रेड standby नोड्सपासून सुरू करता येईल."
            )

        probes.append(
            Probe(
                "next_step",
                "What upgrade is due, and by when?",
                f"Upgrade Vault from 1.15 to 1.16 by {_EN_MONTHS[m - 1]} {d}.",
                (("अपग्रेड", "upgrade", "1.16"), _date_needles(d, m, when)),
            )
        )
    elif variant == 1:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        "छान. आता Grafana डॅशबोर्डसाठी Vault मेट्रिक्स मिळतायत का ते बघ. आणि हो, Jenkins नवीन AppRole वर गेल्यावर त्याचं जुनं टोकन revoke कर, त्याआधी नाही.",
                        "Jenkins नवीन AppRole वर गेल्यावर जुनं टोकन revoke कर — त्याआधी अजिबात नाही, नाहीतर डिप्लॉय अडतील. आत्ता मेट्रिक्स endpoint चालतोय का ते बघ.",
                    )
                )
            )
            b.tool(
                "मेट्रिक्स बघतो.",
                "bash",
                {
                    "command": 'curl -s -H "X-Vault-Token: $VAULT_TOKEN" "$VAULT_ADDR/v1/sys/metrics?format=prometheus" | grep -E \'^vault_core_handle_request|^vault_expire_num_leases\' | head -5'
                },
                f'vault_core_handle_request{{quantile="0.5"}} {rng.randint(1, 9)}.{rng.randint(100, 999)}\nvault_core_handle_request{{quantile="0.9"}} {rng.randint(10, 40)}.{rng.randint(100, 999)}\nvault_core_handle_request_sum {rng.randint(100000, 999999)}\nvault_core_handle_request_count {rng.randint(100000, 999999)}\nvault_expire_num_leases {rng.randint(2000, 9000)}',
            )
            b.assistant(
                "मेट्रिक्स मिळतायत; vault_expire_num_leases जास्त आहे, TTL कमी केल्यावर तो खाली यायला हवा."
            )

        probes.append(
            Probe(
                "next_step",
                "What should be done with Jenkins' old token, and when?",
                "Revoke the old Jenkins token once Jenkins has moved to the new AppRole (not before).",
                (("revoke", "रद्द"), ("Jenkins",)),
            )
        )
    else:

        def nxt() -> None:
            b.user("आपल्याकडे raft चे बॅकअप्स आहेत का?")
            b.tool(
                "बॅकअप्स बघतो.",
                "bash",
                {"command": "ls -lh /var/backups/vault/ | tail -n 4"},
                "total 0",
            )
            b.assistant(
                rng.choice(
                    (
                        "नाहीत, फोल्डर रिकामा आहे. मी raft snapshot साठी cron लावतो; तो लागल्यावर मी एका चाचणी क्लस्टरवर restore चाचणी करेन.",
                        "एकही नाही. आधी raft snapshot चा रोजचा cron लावू; cron लागला की मी स्वतः restore ची चाचणी करून बघेन.",
                    )
                )
            )

        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to do, and after what?",
                "Test a restore from a raft snapshot once the snapshot cron job is in place.",
                (("restore",), ("snapshot", "स्नॅपशॉट", "cron")),
            )
        )
    chunks.append(nxt)

    # ------ filler: other work on the same Vault
    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user(
                r.choice(
                    ("orders ची transit की फिरवायची वेळ झाली आहे का?", "transit की ची आवृत्ती बघ.")
                )
            )
            b.tool(
                "की वाचतो.",
                "bash",
                {"command": "vault read -field=latest_version transit/keys/orders"},
                str(r.randint(2, 9)),
            )
            b.assistant("transit की orders अलीकडेच फिरवली गेली आहे, आत्ता काही करायची गरज नाही.")
        elif pick == 1:
            b.user(r.choice(("autopilot ची स्थिती दाखव.", "क्लस्टर autopilot नुसार निरोगी आहे का?")))
            b.tool(
                "autopilot.",
                "bash",
                {"command": "vault operator raft autopilot state | head -8"},
                f"Healthy:                      true\nFailure Tolerance:            1\nLeader:                       vault-1\nVoters:\n   vault-1\n   vault-2\n   vault-3\nOptimistic Failure Tolerance: 1\nLast Index:                   {r.randint(8000000, 9000000)}",
            )
            b.assistant("autopilot नुसार क्लस्टर निरोगी आहे, एक नोड गेला तरी चालेल.")
        elif pick == 2:
            b.user(r.choice(("माझ्या टोकनचा TTL किती उरलाय?", "माझं टोकन कधी संपतंय?")))
            b.tool(
                "टोकन बघतो.",
                "bash",
                {
                    "command": "vault token lookup -format=json | jq -r '.data.ttl, .data.display_name'"
                },
                f"{r.randint(1000, 30000)}\noidc-{r.choice(('amit', 'sneha', 'rohan'))}",
            )
            b.assistant("तुझ्या टोकनला अजून काही तास आहेत.")
        else:
            b.user(r.choice(("KV मध्ये किती सिक्रेट्स आहेत?", "secret/ मधल्या मुख्य फोल्डर्सची यादी दे.")))
            b.tool(
                "यादी.",
                "bash",
                {"command": "vault kv list -mount=secret /"},
                "Keys\n----\n"
                + "\n".join(
                    r.sample(
                        [
                            "analytics/",
                            "ledger/",
                            "mobile/",
                            "notifications/",
                            "onboarding/",
                            "web/",
                        ],
                        4,
                    )
                ),
            )
            b.assistant("secret/ मध्ये चार मुख्य फोल्डर्स आहेत, प्रत्येक टीमचा एक.")

    return _kind(rng, b, segments, intro, chunks, pairs, filler, probes)


# --------------------------------------------------------------------------------------
# Albanian: a WooCommerce bookshop run with wp-cli on a VPS (nginx, php-fpm)

_SQ_MONTHS = (
    "janar",
    "shkurt",
    "mars",
    "prill",
    "maj",
    "qershor",
    "korrik",
    "gusht",
    "shtator",
    "tetor",
    "nëntor",
    "dhjetor",
)
_WP = "sudo -u www-data wp --path=/var/www/dyqani"


def _sq_wordpress(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    chunks: list[Chunk] = []
    pairs: list[tuple[Chunk, Chunk]] = []
    orders = _uniq(rng, lambda r: str(r.randint(61000, 69999)), 7)
    double = orders[0]
    vers = _uniq(rng, lambda r: f"7.{r.randint(0, 9)}.{r.randint(0, 9)}", 2)
    old_v, new_v = sorted(vers)
    ips = _uniq(
        rng,
        lambda r: (
            f"{r.choice((185, 45, 91, 193))}.{r.randint(10, 250)}.{r.randint(10, 250)}.{r.randint(10, 250)}"
        ),
        6,
    )
    bad_ip = ips[0]
    pay = "woocommerce-payments"

    def plugins_out() -> str:
        rows = [
            ("woocommerce", "active", "8.9.3", "none"),
            (pay, "active", new_v, "none"),
            ("query-monitor", "active", "3.16.3", "none"),
            ("jetpack", "active", "13.5", "13.5.1"),
            ("wordfence", "active", "7.11.6", "none"),
            ("yoast-seo", "active", "22.9", "none"),
            ("woocommerce-subscriptions", "active", "6.4.0", "6.4.1"),
            ("mailpoet", "inactive", "4.54.0", "none"),
            ("akismet", "active", "5.3.2", "none"),
        ]
        out = "+---------------------------+----------+---------+----------------+\n| name                      | status   | version | update_version |\n+---------------------------+----------+---------+----------------+\n"
        out += "\n".join(f"| {n:<25} | {s:<8} | {v:<7} | {u:<14} |" for n, s, v, u in rows)
        return out + "\n+---------------------------+----------+---------+----------------+"

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Përshëndetje! Që nga përditësimi i djeshëm i plugin-eve, dyqani-librave.al hapet shumë ngadalë dhe disa klientë thonë se u janë tërhequr paratë dy herë. Ke SSH te serveri (ubuntu@dyqani-vps), WordPress është në /var/www/dyqani, wp-cli është i instaluar. Shiko çfarë po ndodh, të lutem.",
                    "Mirëmëngjes. Dyqani online (dyqani-librave.al, WooCommerce) ka dy probleme që nga dje: faqet ngarkohen me 8–10 sekonda dhe disa porosi janë paguar dy herë. Serveri është dyqani-vps, WordPress në /var/www/dyqani. Fillo me diagnozën; gjatë rrugës do të të kërkoj edhe disa pastrime.",
                )
            )
        )
        b.tool(
            "Fillimisht shoh plugin-et.",
            "bash",
            {"command": f"{_WP} plugin list --fields=name,status,version,update_version"},
            plugins_out(),
        )
        b.assistant(
            f"{pay} u përditësua dje në {new_v}; të tjerët duken normalë (jetpack dhe woocommerce-subscriptions kanë përditësime në pritje, s'i prek). Tani shoh regjistrat."
        )

    # ------ noise
    def php_log() -> None:
        b.user(rng.choice(("Çfarë thotë log-u i PHP-së?", "Shiko gabimet e php-fpm.")))
        lines = [
            f'[11-Jun-2024 0{rng.randint(6, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)} UTC] PHP Warning:  Undefined array key "payment_intent" in /var/www/dyqani/wp-content/plugins/{pay}/includes/class-wc-payment-gateway-wcpay.php on line {rng.randint(1200, 1900)}'
            for _ in range(4)
        ] + [
            f"[11-Jun-2024 0{rng.randint(6, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)} UTC] PHP Warning:  Cannot modify header information - headers already sent in /var/www/dyqani/wp-includes/pluggable.php on line 1435"
            for _ in range(2)
        ]
        lines.sort()
        b.tool(
            "Lexoj log-un.",
            "bash",
            {"command": "sudo tail -n 6 /var/log/php8.1-fpm-dyqani.error.log"},
            "\n".join(lines),
        )
        b.assistant(
            "Gabimet vijnë nga gateway-i i pagesave: mungon çelësi payment_intent, kështu që kur klienti rifreskon faqen, krijohet pagesë e re."
        )

    def slow() -> None:
        b.user("Pse hapet kaq ngadalë?")
        b.tool(
            "Mat kohën dhe shoh autoload-in.",
            "bash",
            {
                "command": f"curl -s -o /dev/null -w 'ttfb=%{{time_starttransfer}}\\n' https://dyqani-librave.al/ && {_WP} db query \"SELECT SUM(LENGTH(option_value)) AS autoload_bytes FROM wp_options WHERE autoload='yes'\""
            },
            f"ttfb={rng.randint(6, 9)}.{rng.randint(100, 999)}\n+----------------+\n| autoload_bytes |\n+----------------+\n| {rng.randint(4100000, 6900000)} |\n+----------------+",
        )
        b.assistant(
            "TTFB është 6–9 sekonda; opsionet autoload kalojnë 4 MB (normalisht nën 1 MB), kryesisht transient-e të vjetra. Nuk ka cache faqesh fare."
        )

    def cron() -> None:
        b.user(rng.choice(("A po ngecin detyrat e cron-it?", "Shiko listën e cron-it.")))
        hooks = [
            "woocommerce_cleanup_sessions",
            "wp_version_check",
            "action_scheduler_run_queue",
            "wcpay_sync_disputes",
            "jetpack_sync_cron",
            "wp_scheduled_delete",
            "woocommerce_scheduled_sales",
        ]
        rows = "\n".join(
            f"| {h:<30} | 2024-06-11 0{rng.randint(6, 9)}:{rng.randint(10, 59)}:00 | {rng.choice(('now', '2 minutes', '14 minutes'))} | {rng.choice(('1 minute', '1 hour', '12 hours', '1 day'))} |"
            for h in hooks
        )
        b.tool(
            "Lista e cron-it.",
            "bash",
            {
                "command": f"{_WP} cron event list --fields=hook,next_run_gmt,next_run_relative,recurrence"
            },
            "+--------------------------------+---------------------+-------------+------------+\n| hook                           | next_run_gmt        | next_run_rel | recurrence |\n+--------------------------------+---------------------+-------------+------------+\n"
            + rows,
        )
        b.assistant(
            "Disa ngjarje janë me vonesë ('now'), sepse WP-Cron varet nga vizitat; do të ishte mirë një cron i vërtetë sistemi."
        )

    chunks += [php_log, slow, cron]

    # ------ identifiers
    named = rng.random() < 0.5

    def double_chunk() -> None:
        if named:
            b.user(
                f"Klientja që na shkroi ka porosinë {double}. Kontrollo nëse është tërhequr dy herë."
            )
        else:
            b.user(
                rng.choice(
                    ("Gjej porositë që janë paguar dy herë sot.", "Cilat porosi kanë dy pagesa?")
                )
            )
        rows = []
        for o in orders[:6]:
            charges = 2 if o == double else 1
            rows.append(
                f"| {o} | wc-{rng.choice(('processing', 'completed', 'on-hold')):<10} | {rng.randint(12, 89)}.{rng.randint(0, 99):02d} | {charges} |"
            )
        rng.shuffle(rows)
        b.tool(
            "Pyes databazën.",
            "bash",
            {
                "command": f"{_WP} db query \"SELECT o.id, o.status, o.total_amount, COUNT(m.meta_id) AS charges FROM wp_wc_orders o JOIN wp_wc_orders_meta m ON m.order_id=o.id AND m.meta_key='_charge_id' WHERE o.date_created_gmt > '2024-06-10' GROUP BY o.id ORDER BY o.id DESC LIMIT 6\""
            },
            "+-------+----------------+--------------+---------+\n| id    | status         | total_amount | charges |\n+-------+----------------+--------------+---------+\n"
            + "\n".join(rows)
            + "\n+-------+----------------+--------------+---------+",
        )
        b.assistant(
            f"Po, porosia {double} ka dy tërheqje (charges = 2); të tjerat kanë vetëm një."
            if not named or rng.random() < 0.5
            else "Po, ajo porosi ka dy tërheqje (kolona charges = 2); të gjitha të tjerat kanë vetëm një."
        )

    probes.append(
        Probe(
            "identifier",
            "What is the ID of the order that was charged twice?",
            double,
            ((double,),),
        )
    )

    def version() -> None:
        b.user(
            rng.choice(
                (
                    f"Nga cili version u përditësua {pay}? Mund të na duhet të kthehemi mbrapa.",
                    "Në çfarë versioni ishte plugin-i i pagesave para përditësimit të djeshëm?",
                )
            )
        )
        lines = [
            f"2024-06-10 21:{rng.randint(10, 59)}:0{i} updated {p} from {a} to {c}"
            for i, (p, a, c) in enumerate(
                (
                    ("akismet", "5.3.1", "5.3.2"),
                    (pay, old_v, new_v),
                    ("yoast-seo", "22.8", "22.9"),
                    ("wordfence", "7.11.5", "7.11.6"),
                )
            )
        ]
        rng.shuffle(lines)
        b.tool(
            "Shoh log-un e përditësimeve.",
            "bash",
            {"command": "sudo tail -n 4 /var/www/dyqani/wp-content/uploads/auto-updates.log"},
            "\n".join(lines),
        )
        b.assistant(
            rng.choice(
                (
                    f"{pay} u përditësua nga {old_v} në {new_v} dje në mbrëmje; pikërisht atëherë filluan tërheqjet e dyfishta.",
                    f"Para përditësimit ishte {old_v}; tani është {new_v}. Nëse kthehemi mbrapa, ky është versioni.",
                )
            )
        )

    probes.append(
        Probe(
            "identifier",
            f"Which version of {pay} was installed before yesterday's update?",
            old_v,
            ((old_v,),),
        )
    )

    def flood() -> None:
        b.user(
            rng.choice(
                (
                    "Dikush po e bombardon serverin? CPU është 100%.",
                    "Shiko access log-un e nginx-it, diçka s'shkon.",
                )
            )
        )
        lines = []
        for _ in range(rng.randint(14, 20)):
            ip = bad_ip if rng.random() < 0.55 else rng.choice(ips[1:])
            path = (
                "/xmlrpc.php"
                if ip == bad_ip
                else rng.choice(
                    (
                        "/produkt/kadare-prilli-i-thyer/",
                        "/shporta/",
                        "/wp-admin/admin-ajax.php",
                        "/kategoria/letersi/",
                    )
                )
            )
            verb = "POST" if ip == bad_ip or "ajax" in path else "GET"
            lines.append(
                f'{ip} - - [11/Jun/2024:0{rng.randint(6, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)} +0200] "{verb} {path} HTTP/1.1" {rng.choice((200, 200, 403)) if ip == bad_ip else 200} {rng.randint(300, 9000)} "-" "{"Mozilla/5.0 (compatible)" if ip == bad_ip else "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"}"'
            )
        lines.sort(key=lambda x: x.split("[")[1])
        b.tool(
            "Lexoj access log-un.",
            "bash",
            {"command": "sudo tail -n 20 /var/log/nginx/dyqani.access.log"},
            "\n".join(lines),
        )
        b.tool(
            "Numëroj sipas IP-së.",
            "bash",
            {
                "command": "sudo awk '{print $1}' /var/log/nginx/dyqani.access.log | sort | uniq -c | sort -rn | head -4"
            },
            f"{rng.randint(20000, 40000):>7} {bad_ip}\n"
            + "\n".join(
                f"{n:>7} {ip}"
                for n, ip in zip(
                    sorted((rng.randint(100, 900) for _ in range(3)), reverse=True),
                    ips[1:4],
                    strict=True,
                )
            ),
        )
        b.assistant(
            rng.choice(
                (
                    f"Po: {bad_ip} po bën mijëra POST në /xmlrpc.php (brute force). E bllokova në nginx dhe xmlrpc e çaktivizova.",
                    "Po, një IP e vetme po bën dhjetëra mijëra POST në /xmlrpc.php — është e para në numërim. E bllokova në nginx.",
                )
            )
        )

    probes.append(
        Probe("identifier", "What IP address was flooding /xmlrpc.php?", bad_ip, ((bad_ip,),))
    )
    chunks += [double_chunk, version, flood]

    # ------ artifacts
    plug = rng.choice(("query-monitor", "jetpack", "mailpoet-premium"))
    hook = rng.choice(("dyqani_sync_stoku", "dyqani_newsletter_send", "dyqani_feed_google"))
    opt = rng.choice(("dyqani_html_cache", "dyqani_import_log", "dyqani_banner_json"))
    login = rng.choice(("redaktor_vjeter", "praktikanti2022", "agjencia_seo"))
    arts = [
        _Art(
            (plug,),
            ("deactivated", "çaktivizova", "çaktivizuar", "fika"),
            "Which plugin was switched off to speed the site up, and what happened to it?",
            f"The plugin {plug} was deactivated.",
            f"{plug} nuk na duhet në prodhim dhe ha kohë në çdo kërkesë. Hiqe nga puna, por mos e fshi.",
            "E heq nga puna.",
            f"{_WP} plugin deactivate {plug}",
            f"Plugin '{plug}' deactivated.\nSuccess: Deactivated 1 of 1 plugins.",
            "Success: Deactivated 1 of 1 plugins.",
            f"Plugin-in {plug} e çaktivizova (skedarët mbeten, s'e fshiva).",
            "U bë; skedarët mbeten, s'e fshiva.",
        ),
        _Art(
            (hook,),
            ("Deleted", "fshiva", "fshirë", "hoqa"),
            "Which custom cron event was removed, and what happened to it?",
            f"The cron event {hook} was deleted.",
            f"Ngjarja e cron-it {hook} ekzekutohet çdo minutë dhe s'ka më nevojë. Hiqe.",
            "E heq nga cron-i.",
            f"{_WP} cron event delete {hook}",
            f"Success: Deleted the cron event '{hook}'.",
            "Success: Deleted a total of 1 cron event.",
            f"Ngjarjen {hook} e fshiva nga cron-i; s'ka më ekzekutime çdo minutë.",
            "U bë; s'ka më ekzekutime çdo minutë.",
        ),
        _Art(
            (opt,),
            ("Deleted", "fshiva", "fshirë", "hoqa"),
            "Which large autoloaded option was removed, and what happened to it?",
            f"The option {opt} was deleted (it was ~3 MB of autoloaded data).",
            f"Opsioni {opt} zë rreth 3 MB në autoload dhe nuk përdoret më. Pastroje.",
            "E heq opsionin.",
            f"{_WP} option delete {opt}",
            f"Success: Deleted '{opt}' option.",
            "ok",
            f"Opsionin {opt} e fshiva; autoload-i ra me rreth 3 MB.",
            "U bë; autoload-i ra me rreth 3 MB.",
            quiet_cmd=f"{_WP} option delete {opt} >/dev/null && echo ok",
        ),
        _Art(
            (login,),
            ("Removed", "deleted", "fshiva", "hoqa"),
            "Which old WordPress user account was removed, and what happened to it?",
            f"The user {login} was deleted, with their posts reassigned to user 3.",
            f"Llogaria {login} ka ende të drejta administratori dhe askush s'e përdor. Hiqe, por artikujt kaloji te Erta (ID 3).",
            "Heq llogarinë dhe ia kaloj përmbajtjen Ertës.",
            f"{_WP} user delete {login} --reassign=3 --yes",
            f"Success: Removed user {rng.randint(12, 40)} from https://dyqani-librave.al.",
            f"Success: Removed user {rng.randint(12, 40)} from https://dyqani-librave.al.",
            f"Llogarinë {login} e fshiva; artikujt e saj tani janë të Ertës.",
            "",
            modes=("prose",),
        ),
    ]
    for art in rng.sample(arts, 2):
        chunks.append(_art_chunk(rng, b, art, probes))

    # ------ decision
    cache = _Topic(
        "Which page-cache plugin was chosen for the shop?",
        lambda v: v,
        lambda v: ((v,), ("cache", "kesh")),
        ("LiteSpeed Cache", "WP Super Cache", "W3 Total Cache"),
        "Nuk kemi cache faqesh fare. Çfarë të vëmë?",
        (
            "Shoh çfarë mbështet serveri.",
            "nginx -V 2>&1 | tr ' ' '\\n' | grep -E 'cache|lua' ; php -m | grep -iE 'redis|apcu|opcache'",
            "--with-http_realip_module\nZend OPcache\napcu\nredis",
        ),
        lambda v: f"Për cache-in e faqeve do të përdorim {v}, mos provo të tjerë.",
        lambda o: f"Instalo {o} për cache-in e faqeve.",
        lambda v, o: (
            f"Ndryshim për cache-in: jo {o}, por {v} — {o} ka pasur konflikte me shportën e WooCommerce."
        ),
        lambda v: (
            f"Propozoj {v} për cache-in e faqeve, me përjashtim të /shporta/ dhe /arka/. Dakord?"
        ),
        ("Dakord, vazhdo.", "Po, instaloje."),
        lambda v, o: f"Jo {o}; për cache-in vër {v}, e njohim më mirë.",
        lambda v: (
            f"Ardiani nga hostingu thotë se për cache-in duhet {v}, të tjerët s'i mbështesin. Vëre atë."
        ),
        lambda a, c: f"Serveri ka OPcache dhe Redis. Për cache-in e faqeve: {a} apo {c}?",
        lambda v: f"Cache-i: {v}.",
        lambda v: (
            "E instaloj dhe e aktivizoj.",
            f"{_WP} plugin install '{v.lower().replace(' ', '-')}' --activate",
            f"Installing {v} ...\nDownloading installation package from https://downloads.wordpress.org/plugin/{v.lower().replace(' ', '-')}.zip...\nUnpacking the package...\nInstalling the plugin...\nPlugin installed successfully.\nActivating '{v.lower().replace(' ', '-')}'...\nPlugin '{v.lower().replace(' ', '-')}' activated.\nSuccess: Installed 1 of 1 plugins.",
        ),
        lambda v: (
            f"{v} është instaluar dhe aktiv si cache faqesh; /shporta/ dhe /arka/ janë përjashtuar."
        ),
        (),
    )
    php = _Topic(
        "Which PHP version was decided for the site?",
        lambda v: f"PHP {v}",
        lambda v: ((v,), ("PHP",)),
        ("8.1", "8.2", "8.3"),
        "Serveri ka tre versione PHP të instaluara. Me cilin duhet të punojë dyqani?",
        (
            "Shoh versionet.",
            "ls /etc/php/ && php -v | head -1",
            "7.4\n8.1\n8.2\n8.3\nPHP 7.4.33 (cli) (built: Feb 14 2024 12:31:09) ( NTS )",
        ),
        lambda v: f"Dyqani të kalojë në PHP {v}; WooCommerce e rekomandon.",
        lambda o: f"Kaloje dyqanin në PHP {o}.",
        lambda v, o: (
            f"Korrigjim për PHP: jo {o}, por {v} — një nga plugin-et ende s'e mbështet {o}."
        ),
        lambda v: f"Propozoj PHP {v}: është i mbështetur nga të gjithë plugin-et tanë. Ta bëj?",
        ("Po, bëje.", "Dakord."),
        lambda v, o: f"Jo {o}, PHP {v} është më i sigurt për ne.",
        lambda v: (
            f"Blerina nga zhvillimi thotë që duhet PHP {v}, këtë kanë testuar edhe ata. Kaloje në të."
        ),
        lambda a, c: f"Tani është 7.4 (pa mbështetje). Cilin PHP do: {a} apo {c}?",
        lambda v: f"PHP {v}.",
        lambda v: (
            "Ndërroj pool-in e php-fpm.",
            f"sudo sed -i 's#php[0-9.]*-fpm.sock#php{v}-fpm.sock#' /etc/nginx/sites-enabled/dyqani && sudo nginx -t && sudo systemctl reload nginx && php{v} -v | head -1",
            f"nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful\nPHP {v}.{rng.randint(4, 20)} (cli) (built: Jun  6 2024 16:52:38) (NTS)",
        ),
        lambda v: f"Dyqani tani punon me PHP {v} (php{v}-fpm), faqja kryesore hapet pa gabime.",
        (),
    )
    _decision(rng, b, (cache, php), probes, chunks, pairs)

    # ------ next step
    d, m = _date(rng)
    when = f"{d} {_SQ_MONTHS[m - 1]}"
    variant = rng.randrange(3)
    if variant == 0:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        f"Edhe diçka: deri më {when} duhet të rinovojmë licencën e WooCommerce Subscriptions, përndryshe ndalen përditësimet. Sot jo, vetëm mbaje shënim.",
                        f"Mos harro: licenca e WooCommerce Subscriptions skadon dhe duhet rinovuar deri më {when}. Për momentin mos ndrysho asgjë.",
                    )
                )
            )
            b.tool(
                "Shoh gjendjen e abonimeve.",
                "bash",
                {
                    "command": f"{_WP} db query \"SELECT status, COUNT(*) FROM wp_wc_orders WHERE type='shop_subscription' GROUP BY status\""
                },
                f"+-----------+----------+\n| status    | COUNT(*) |\n+-----------+----------+\n| wc-active | {rng.randint(100, 400)} |\n| wc-on-hold | {rng.randint(5, 30)} |\n| wc-cancelled | {rng.randint(20, 90)} |\n+-----------+----------+",
            )
            b.assistant(
                "E shënova. Kemi disa qindra abonime aktive, kështu që ndërprerja e përditësimeve do të ishte e rrezikshme."
            )

        probes.append(
            Probe(
                "next_step",
                "What must be renewed, and by when?",
                f"The WooCommerce Subscriptions license, by {_EN_MONTHS[m - 1]} {d}.",
                (("licenc", "license"), _date_needles(d, m, when)),
            )
        )
    elif variant == 1:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        "Faleminderit. Tani shiko pse imazhet e produkteve s'kanë miniatura. Dhe pasi banka të konfirmojë tërheqjen e dyfishtë, bëj rimbursimin e porosisë nga paneli — jo më parë.",
                        "Pasi banka të konfirmojë tërheqjen e dyfishtë, rimburso porosinë — jo më parë, se mund të rimbursojmë dy herë. Tani për tani shiko miniaturat e imazheve.",
                    )
                )
            )
            b.tool(
                "Kontrolloj madhësitë e imazheve.",
                "bash",
                {"command": f"{_WP} media image-size --fields=name,width,height,crop"},
                "+-----------------------+-------+--------+------+\n| name                  | width | height | crop |\n+-----------------------+-------+--------+------+\n| full                  |       |        | N/A  |\n| woocommerce_single    | 600   | 0      | soft |\n| woocommerce_thumbnail | 300   | 300    | hard |\n| large                 | 1024  | 1024   | soft |\n| medium                | 300   | 300    | soft |\n| thumbnail             | 150   | 150    | hard |\n+-----------------------+-------+--------+------+",
            )
            b.assistant(
                "Madhësitë janë të regjistruara; miniaturat mungojnë sepse imazhet u ngarkuan me import pa u rigjeneruar. Do t'i rigjeneroj natën."
            )

        probes.append(
            Probe(
                "next_step",
                "What should be done about the double-charged order, and when?",
                "Refund it from the dashboard once the bank confirms the double charge (not before).",
                (("rimburs", "refund"), ("konfirm", "confirm")),
            )
        )
    else:
        hour = rng.choice(("23:00", "22:30", "00:30"))

        def nxt() -> None:
            b.user("A mund ta bësh databazën më të shpejtë?")
            b.tool(
                "Shoh tabelat më të mëdha.",
                "bash",
                {"command": f"{_WP} db size --tables --size_format=mb | sort -k2 -rn | head -4"},
                "\n".join(
                    f"{t}\t{rng.randint(40, 900)}"
                    for t in (
                        "wp_postmeta",
                        "wp_options",
                        "wp_wc_orders_meta",
                        "wp_actionscheduler_actions",
                    )
                ),
            )
            b.assistant(
                rng.choice(
                    (
                        f"Po. Sonte pas orës {hour}, kur trafiku bie, do ta optimizoj tabelën wp_postmeta (OPTIMIZE TABLE e bllokon për disa minuta).",
                        f"Tabela wp_postmeta është më e madhja. Do ta optimizoj sonte pas {hour}, kur ka pak trafik, sepse gjatë ditës do ta bllokonte.",
                    )
                )
            )

        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to do, and when?",
                f"Optimize the wp_postmeta table tonight after {hour}, when traffic is low.",
                (("wp_postmeta",), (hour,)),
            )
        )
    chunks.append(nxt)

    # ------ filler: other work on the same shop
    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user(r.choice(("Sa produkte janë në draft?", "Numëro produktet e pabotuara.")))
            b.tool(
                "Numëroj.",
                "bash",
                {
                    "command": f"{_WP} post list --post_type=product --post_status=draft --format=count"
                },
                str(r.randint(3, 90)),
            )
            b.assistant("Këto janë kryesisht libra të rinj pa kopertinë; i la ekipi i përmbajtjes.")
        elif pick == 1:
            b.user(
                r.choice(
                    (
                        "Kontrollo që s'kemi më lidhje http://.",
                        "A ka ende URL me http në përmbajtje?",
                    )
                )
            )
            b.tool(
                "Provë pa ndryshuar.",
                "bash",
                {
                    "command": f"{_WP} search-replace 'http://dyqani-librave.al' 'https://dyqani-librave.al' --dry-run --report-changed-only"
                },
                f"+------------------+--------------+--------------+------+\n| Table            | Column       | Replacements | Type |\n+------------------+--------------+--------------+------+\n| wp_posts         | post_content | {r.randint(1, 40)} | SQL  |\n| wp_options       | option_value | {r.randint(0, 3)} | PHP  |\n+------------------+--------------+--------------+------+\nSuccess: {r.randint(2, 43)} replacements to be made.",
            )
            b.assistant(
                "Ka ende disa lidhje http në përmbajtje; s'ndryshova gjë, ishte vetëm provë."
            )
        elif pick == 2:
            b.user(r.choice(("Sa komente spam kemi?", "Pastro spam-in e komenteve?")))
            b.tool(
                "Numëroj spam-in.",
                "bash",
                {"command": f"{_WP} comment list --status=spam --format=count"},
                str(r.randint(100, 3000)),
            )
            b.assistant(
                "Komentet spam janë në karantinë; Akismet po i kap, s'ka nevojë për veprim."
            )
        else:
            b.user(
                r.choice(
                    (
                        "Rifresko rregullat e permalink-eve.",
                        "Faqet e kategorive japin 404, rregulloje.",
                    )
                )
            )
            b.tool(
                "Rifreskoj.",
                "bash",
                {
                    "command": f"{_WP} rewrite flush --hard && curl -s -o /dev/null -w '%{{http_code}}\\n' https://dyqani-librave.al/kategoria/{r.choice(('poezi', 'histori', 'femije'))}/"
                },
                "Success: Rewrite rules flushed.\n200",
            )
            b.assistant("Rregullat u rifreskuan dhe faqja e kategorisë kthen 200.")

    return _kind(rng, b, segments, intro, chunks, pairs, filler, probes)


# --------------------------------------------------------------------------------------
# Azerbaijani: a RabbitMQ 3.12 cluster for a logistics company (rabbitmqctl, rabbitmqadmin)

_AZ_MONTHS = (
    "yanvar",
    "fevral",
    "mart",
    "aprel",
    "may",
    "iyun",
    "iyul",
    "avqust",
    "sentyabr",
    "oktyabr",
    "noyabr",
    "dekabr",
)
_VH = "-p /logistika"


def _az_rabbit(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    chunks: list[Chunk] = []
    pairs: list[tuple[Chunk, Chunk]] = []
    site = token(rng, 4, string.ascii_lowercase + string.digits)
    nodes = [f"rabbit@rmq-{site}-{i}" for i in (1, 2, 3)]
    alarmed = rng.randrange(3)
    tags = _uniq(rng, lambda r: "amq.ctag-" + token(r, 22, _B62 + "-_"), 5)
    hog = rng.randrange(5)
    mids = _uniq(rng, _uuid, 5)
    poison = rng.randrange(5)
    backlog = rng.randint(300000, 480000)

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    f"Salam! Səhərdən RabbitMQ klasterimizdə (3 node, vhost /logistika) shipments.created növbəsində {backlog // 1000} mindən çox mesaj yığılıb və node-lardan birində yaddaş alarmı var. rabbitmqctl və rabbitmqadmin bastion-da quraşdırılıb (ssh ops@rmq-bastion). Bax görək nə baş verir.",
                    f"Sabahınız xeyir. Göndərişlər gecikir: shipments.created növbəsi {backlog // 1000} minə çatıb, publisher-lər bloklanır. Klaster üç node-dur, vhost /logistika. Əvvəlcə səbəbi tap, sonra bir neçə təmizlik işi də var.",
                )
            )
        )
        alarm_lines = f"Memory alarm on node {nodes[alarmed]}"
        out = (
            f"Cluster status of node {nodes[0]} ...\nBasics\n\nCluster name: rabbit@rmq-{site}-1.logistika.local\nTotal CPU cores available cluster-wide: 24\n\nDisk Nodes\n\n"
            + "\n".join(nodes)
            + "\n\nRunning Nodes\n\n"
            + "\n".join(nodes)
            + "\n\nVersions\n\n"
            + "\n".join(f"{n}: RabbitMQ 3.12.13 on Erlang 26.2.3" for n in nodes)
            + "\n\nCPU Cores\n\n"
            + "\n".join(f"Node: {n}, available CPU cores: 8" for n in nodes)
            + "\n\nMaintenance status\n\n"
            + "\n".join(f"Node: {n}, status: not under maintenance" for n in nodes)
            + f"\n\nAlarms\n\n{alarm_lines}\n\nNetwork Partitions\n\n(none)\n\nListeners\n\n"
            + "\n".join(
                f"Node: {n}, interface: [::], port: 5672, protocol: amqp, purpose: AMQP 0-9-1 and AMQP 1.0"
                for n in nodes
            )
            + "\n\nFeature flags\n\nFlag: classic_mirrored_queue_version, state: enabled\nFlag: quorum_queue, state: enabled\nFlag: stream_queue, state: enabled"
        )
        b.tool(
            "Əvvəlcə klasterin vəziyyətinə baxıram.",
            "bash",
            {"command": "rabbitmq-diagnostics cluster_status"},
            out,
        )
        b.assistant(
            "Üç node da işləyir, şəbəkə bölünməsi yoxdur. Alarms bölməsində bir node-da yaddaş alarmı var — buna görə publisher-lər bloklanır. İndi növbələrə baxıram."
            if rng.random() < 0.5
            else f"Klaster bütövdür, amma {nodes[alarmed]} üzərində yaddaş alarmı var; bu, publisher-ləri bloklayır. İndi növbələrə baxıram."
        )

    probes.append(
        Probe(
            "identifier",
            "Which RabbitMQ node had the memory alarm?",
            nodes[alarmed],
            ((nodes[alarmed],),),
        )
    )

    # ------ noise
    def queues() -> None:
        b.user(rng.choice(("Hansı növbələr dolub?", "Növbələrin siyahısını göstər.")))
        names = [
            "shipments.created",
            "shipments.updated",
            "tracking.events",
            "invoices.issue",
            "sms.outbound",
            "couriers.assign",
            "warehouse.scan",
        ]
        rows = "\n".join(
            f"{n:<20} {'quorum' if i % 2 else 'classic':<8} {backlog if i == 0 else rng.randint(0, 4000):>8} {rng.randint(0, 90000) if i == 0 else rng.randint(0, 300):>22} {rng.randint(0, 6):>9} {rng.randint(1, 90) * 1048576:>12}"
            for i, n in enumerate(names)
        )
        b.tool(
            "Növbələr.",
            "bash",
            {
                "command": f"rabbitmqctl list_queues {_VH} name type messages_ready messages_unacknowledged consumers memory --formatter pretty_table --quiet | head -12"
            },
            "name                 type     messages messages_unacknowledged consumers       memory\n"
            + rows,
        )
        b.assistant(
            "shipments.created-də yüz minlərlə mesaj hazırdır, on minlərlə də təsdiqlənməmiş (unacked) mesaj var. Digər növbələr normaldır."
        )

    def memory() -> None:
        b.user("Yaddaşı nə yeyir?")
        rows = "\n".join(
            f"{k}: {v:.4f} gb ({p:.2f}%)"
            for k, v, p in (
                ("queue_procs", rng.uniform(2.1, 3.9), rng.uniform(40, 60)),
                ("binary", rng.uniform(0.8, 1.9), rng.uniform(15, 25)),
                ("allocated_unused", rng.uniform(0.3, 0.9), rng.uniform(5, 10)),
                ("connection_readers", rng.uniform(0.05, 0.2), rng.uniform(1, 3)),
                ("mnesia", rng.uniform(0.01, 0.05), rng.uniform(0.1, 0.5)),
            )
        )
        b.tool(
            "Yaddaş bölgüsü.",
            "bash",
            {
                "command": f"rabbitmq-diagnostics memory_breakdown -n {nodes[alarmed]} --unit gb | head -6"
            },
            f"Reporting memory breakdown on node {nodes[alarmed]}...\n" + rows,
        )
        b.assistant(
            "Yaddaşın çoxu növbə proseslərindədir (classic növbədə yaddaşda saxlanan mesajlar) və binary-lərdədir; unacked mesajlar boşaldılmayınca alarm qalacaq."
        )

    def conns() -> None:
        b.user(rng.choice(("Hansı tətbiqlər qoşulub?", "Bağlantıları göstər.")))
        rows = "\n".join(
            f"{u:<16} {c:<26} {rng.randint(1, 12):>8} {s}"
            for u, c, s in (
                ("shipments-svc", "shipments-api-7f9c", "running"),
                ("shipments-svc", "shipments-worker-2", "blocked"),
                ("tracking-svc", "tracking-ingest", "blocked"),
                ("billing-svc", "invoices-worker", "running"),
                ("courier-app", "courier-gateway", "blocking"),
            )
        )
        b.tool(
            "Bağlantılar.",
            "bash",
            {
                "command": f"rabbitmqctl list_connections {_VH} user client_properties.connection_name channels state --quiet"
            },
            "user             connection_name            channels state\n" + rows,
        )
        b.assistant(
            "Publisher-lərin bağlantıları 'blocked' vəziyyətindədir — yaddaş alarmının nəticəsi. Consumer-lər işləyir."
        )

    chunks += [queues, memory, conns]

    # ------ identifiers
    def consumers() -> None:
        b.user(
            rng.choice(
                (
                    "Kim shipments.created-dən oxuyur və niyə bu qədər unacked var?",
                    "Consumer-ləri göstər, unacked haradan gəlir?",
                )
            )
        )
        rows = []
        for i, t in enumerate(tags):
            pf = 0 if i == hog else rng.choice((10, 20, 50))
            rows.append(
                f"shipments.created <rabbit@rmq-{site}-{rng.randint(1, 3)}.{rng.randint(1000, 9999)}.{rng.randint(100, 999)}.0> {t} true {pf:>14} true  {'' if pf else 'shipments-worker-legacy'}"
            )
        b.tool(
            "Consumer-lər.",
            "bash",
            {
                "command": f"rabbitmqctl list_consumers {_VH} queue_name channel_pid consumer_tag ack_required prefetch_count active --quiet | grep shipments.created"
            },
            "\n".join(rows),
        )
        b.assistant(
            rng.choice(
                (
                    f"Problem {tags[hog]} consumer-indədir: prefetch_count 0 (limitsiz), yəni bütün mesajları özünə götürür və yavaş təsdiqləyir. Digər consumer-lərin prefetch-i normaldır.",
                    "Bir consumer-in prefetch_count-u 0-dır (limitsiz): o, on minlərlə mesajı özünə çəkir və yavaş təsdiqləyir. Onun tag-i siyahıda prefetch 0 olan sətirdədir; digərlərində prefetch normaldır.",
                )
            )
        )

    probes.append(
        Probe(
            "identifier",
            "What is the consumer tag of the consumer with unlimited prefetch (prefetch_count 0) on shipments.created?",
            tags[hog],
            ((tags[hog],),),
        )
    )

    def poison_chunk() -> None:
        b.user(
            rng.choice(
                (
                    "Bəzi mesajlar təkrar-təkrar qayıdır, baxa bilərsən?",
                    "Worker-lərin loqunda eyni mesaj dönə-dönə emal olunur. Tap onu.",
                )
            )
        )
        rows = []
        for i, mid in enumerate(mids):
            red = "True" if i == poison else "False"
            death = (
                f"'x-death': [{{'count': {rng.randint(40, 90)}, 'reason': 'rejected', 'queue': 'shipments.created'}}]"
                if i == poison
                else "'x-retry': 0"
            )
            rows.append(
                f"| shipments.created | {rng.randint(200, 900):>13} | {red:<11} | {{'message_id': '{mid}', 'headers': {{{death}}}, 'content_type': 'application/json'}} |"
            )
        b.tool(
            "Bir neçə mesaja baxıram (geri qaytarmaqla).",
            "bash",
            {
                "command": "rabbitmqadmin --vhost=/logistika get queue=shipments.created count=5 ackmode=ack_requeue_true"
            },
            "+-------------------+---------------+-------------+------------+\n| routing_key       | payload_bytes | redelivered | properties |\n+-------------------+---------------+-------------+------------+\n"
            + "\n".join(rows)
            + "\n+-------------------+---------------+-------------+------------+",
        )
        b.assistant(
            rng.choice(
                (
                    f"Zəhərli mesaj budur: message_id {mids[poison]} — onlarla dəfə rədd edilib (x-death count) və hər dəfə növbəyə qayıdır. Worker onu parse edə bilmir.",
                    "Beş mesajdan biri redelivered=True və x-death sayğacı ilə onlarla dəfə rədd edilib — zəhərli mesaj odur (message_id cədvəldədir). Worker onu parse edə bilmir.",
                )
            )
        )

    probes.append(
        Probe(
            "identifier",
            "What is the message_id of the poison message that keeps being redelivered on shipments.created?",
            mids[poison],
            ((mids[poison],),),
        )
    )
    chunks += [consumers, poison_chunk]

    # ------ artifacts
    purged = rng.choice(("shipments.retry", "invoices.retry", "tracking.debug"))
    pol = rng.choice(("ha-all", "ha-two", "lazy-queues"))
    dropped = rng.choice(("invoices.dead", "sms.legacy", "tracking.v1"))
    exch = rng.choice(("events.fanout", "shipments.broadcast"))
    user = rng.choice(("legacy_consumer", "test_publisher", "erp_old"))
    arts = [
        _Art(
            (purged,),
            ("Purg", "təmizlə", "boşalt"),
            "Which queue was emptied of its stale messages, and what happened to it?",
            f"The queue {purged} was purged (all its messages dropped).",
            f"{purged} növbəsində həftələrlə qalmış köhnə mesajlar var, heç birinə ehtiyac yoxdur. Yaddaşı azaltmaq üçün onlardan qurtar, növbənin özü qalsın.",
            "Növbəni boşaldıram.",
            f"rabbitmqctl purge_queue {_VH} {purged}",
            f"Purging queue '{purged}' in vhost '/logistika' ...",
            "done",
            f"{purged} növbəsini təmizlədim, mesajlar silindi, növbə özü yerindədir.",
            "Hazırdır, növbə özü yerindədir.",
            quiet_cmd=f"rabbitmqctl purge_queue {_VH} {purged} --quiet && echo done",
        ),
        _Art(
            (pol,),
            ("Clearing", "cleared", "ləğv", "sildim", "silindi"),
            "Which old policy was removed from the vhost, and what happened to it?",
            f"The policy {pol} was cleared from /logistika.",
            f"{pol} siyasəti köhnə classic mirroring-dəndir və 3.13-də işləməyəcək. Onu vhost-dan götür.",
            "Siyasəti götürürəm.",
            f"rabbitmqctl clear_policy {_VH} {pol}",
            f'Clearing policy "{pol}" on vhost "/logistika" ...',
            "done",
            f"{pol} siyasətini ləğv etdim; mirroring artıq tətbiq olunmur.",
            "Hazırdır; mirroring artıq tətbiq olunmur.",
            quiet_cmd=f"rabbitmqctl clear_policy {_VH} {pol} --quiet && echo done",
        ),
        _Art(
            (dropped,),
            ("Deleting", "deleted", "sildim", "silindi"),
            "Which unused queue was removed entirely, and what happened to it?",
            f"The queue {dropped} was deleted.",
            f"{dropped} növbəsi köhnə sistemdən qalıb, heç kim oxumur. Ondan tamamilə qurtar.",
            "Növbəni götürürəm.",
            f"rabbitmqctl delete_queue {_VH} {dropped}",
            f"Deleting queue '{dropped}' on vhost '/logistika' ...\nQueue was successfully deleted with {rng.randint(0, 90)} ready messages",
            "done",
            f"{dropped} növbəsini sildim; ona bağlı binding-lər də getdi.",
            "Hazırdır; ona bağlı binding-lər də getdi.",
            quiet_cmd=f"rabbitmqctl delete_queue {_VH} {dropped} --quiet && echo done",
        ),
        _Art(
            (exch,),
            ("declared", "created", "yaratdım", "yaradıldı"),
            "Which new exchange was set up for broadcasting shipment events, and what happened to it?",
            f"The fanout exchange {exch} was created (declared, durable).",
            "Analitika komandası da göndəriş hadisələrini almaq istəyir. Onlar üçün ayrıca fanout exchange lazımdır.",
            "Exchange-i elan edirəm.",
            f"rabbitmqadmin --vhost=/logistika declare exchange name={exch} type=fanout durable=true",
            "exchange declared",
            "exchange declared",
            f"{exch} adlı fanout exchange-i yaratdım (durable); analitika ona öz növbəsini bağlaya bilər.",
            "",
            modes=("prose", "both"),
        ),
        _Art(
            (user,),
            ("Deleting", "deleted", "sildim", "silindi"),
            "Which old RabbitMQ user account was removed, and what happened to it?",
            f"The user {user} was deleted.",
            f"{user} istifadəçisi hələ də administrator teqi ilə durur, halbuki heç kim istifadə etmir. Götür onu.",
            "İstifadəçini götürürəm.",
            f"rabbitmqctl delete_user {user}",
            f'Deleting user "{user}" ...',
            "done",
            f"{user} istifadəçisini sildim; onun açıq bağlantısı yox idi.",
            "Hazırdır; onun açıq bağlantısı yox idi.",
            quiet_cmd=f"rabbitmqctl delete_user {user} --quiet && echo done",
        ),
    ]
    for art in rng.sample(arts, 2):
        chunks.append(_art_chunk(rng, b, art, probes))

    # ------ decision
    qwhy = {
        "quorum": ("çünki node itəndə mesaj itirməməliyik", "messages must survive losing a node"),
        "classic": (
            "çünki bu növbələr müvəqqətidir və sürət vacibdir",
            "these queues are transient and speed matters",
        ),
        "stream": (
            "çünki hadisələri bir neçə oxucu təkrar oxumalıdır",
            "several readers must replay the events",
        ),
    }
    qtype = _Topic(
        "Which queue type was decided for the new shipments queues?",
        lambda v: f"{v} ({qwhy[v][1]})",
        lambda v: ((v,), ("növ", "type")),
        ("quorum", "classic", "stream"),
        "Yeni shipments növbələrini hansı növdə yaradaq? İndi qarışıqdır.",
        (
            "Mövcud növbələrin növlərinə baxıram.",
            f"rabbitmqctl list_queues {_VH} name type durable --quiet | grep shipments",
            "shipments.created classic true\nshipments.updated quorum true\nshipments.retry classic true",
        ),
        lambda v: f"Yeni shipments növbələri {v} növündə olsun, {qwhy[v][0]}.",
        lambda o: f"Yeni növbələri {o} növündə yarat.",
        lambda v, o: f"Növ barədə düzəliş: {o} yox, {v} — {qwhy[v][0]}. Əvvəl səhv demişdim.",
        lambda v: (
            f"Təklif edirəm ki, yeni shipments növbələri {v} növündə olsun, {qwhy[v][0]}. Razısan?"
        ),
        ("Razıyam, et.", "Hə, elə et."),
        lambda v, o: f"{o} yox, növbə növü {v} olsun, {qwhy[v][0]}.",
        lambda v: (
            f"Elvin arxitektura komandasından deyir ki, yeni növbələr {v} növündə olmalıdır, {qwhy[v][0]}. Elə də et."
        ),
        lambda a, c: (
            f"Hazırda classic və quorum qarışıqdır. Yeni növbələr üçün hansı növ — {a}, yoxsa {c}?"
        ),
        lambda v: f"Növ {v}, {qwhy[v][0]}.",
        lambda v: (
            "Defolt növü vhost səviyyəsində təyin edirəm.",
            f"rabbitmqctl update_vhost_metadata /logistika --default-queue-type {v} && rabbitmqctl list_vhosts name default_queue_type --quiet",
            f'Updating metadata of vhost "/logistika" ...\n/\tclassic\n/logistika\t{v}',
        ),
        lambda v: (
            f"/logistika üçün defolt növbə növü indi {v}-dır; yeni shipments növbələri bu növdə yaradılacaq."
        ),
        (),
    )
    prefetch = _Topic(
        "What prefetch count was decided for the shipments workers?",
        lambda v: f"prefetch {v}",
        lambda v: ((v,), ("prefetch",)),
        ("10", "25", "50"),
        "Worker-lərin prefetch-i hamısında fərqlidir. Nə qədər olmalıdır?",
        (
            "Worker konfiqurasiyasına baxıram.",
            "grep -rn prefetch deploy/workers/*.yaml",
            'deploy/workers/shipments.yaml:14:    RABBIT_PREFETCH: "0"\ndeploy/workers/tracking.yaml:12:    RABBIT_PREFETCH: "20"\ndeploy/workers/invoices.yaml:12:    RABBIT_PREFETCH: "100"',
        ),
        lambda v: f"Bütün shipments worker-lərində prefetch {v} olsun.",
        lambda o: f"shipments worker-lərinə prefetch {o} qoy.",
        lambda v, o: (
            f"Prefetch barədə fikrimi dəyişdim: {o} yox, {v} — emal bir mesaja 200 ms çəkir."
        ),
        lambda v: (
            f"Təklifim prefetch {v}-dir: bir mesajın emalı ~200 ms çəkir, bu, worker-i məşğul saxlayır. Razısan?"
        ),
        ("Razıyam.", "Yaxşı, qoy."),
        lambda v, o: f"{o} çoxdur, prefetch {v} qoy.",
        lambda v: (
            f"Nigar deyir ki, onların testində ən yaxşı nəticə prefetch {v} ilə olub. Onu qoy."
        ),
        lambda a, c: f"shipments worker-ində prefetch 0-dır (limitsiz). Nə qoyaq — {a}, yoxsa {c}?",
        lambda v: f"Prefetch {v}.",
        lambda v: (
            "Konfiqurasiyanı dəyişirəm.",
            f'sed -i \'s/RABBIT_PREFETCH: "0"/RABBIT_PREFETCH: "{v}"/\' deploy/workers/shipments.yaml && git diff --stat',
            " deploy/workers/shipments.yaml | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)",
        ),
        lambda v: (
            f"shipments worker-lərinin prefetch-i indi {v}-dir; növbəti deploy-da tətbiq olunacaq."
        ),
        (),
    )
    _decision(rng, b, (qtype, prefetch), probes, chunks, pairs)

    # ------ next step
    d, m = _date(rng)
    when = f"{d} {_AZ_MONTHS[m - 1]}"
    variant = rng.randrange(3)
    if variant == 0:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        f"Bir şey də: {when} tarixinədək RabbitMQ-nu 3.13-ə yüksəltməliyik, 3.12-nin dəstəyi bitir. Bu gün yox, sadəcə qeyd et.",
                        f"Yadda saxla: 3.13-ə keçid üçün son tarix {when}-dir. Hələlik heç nəyi dəyişmə.",
                    )
                )
            )
            b.tool(
                "Feature flag-lara baxıram.",
                "bash",
                {"command": "rabbitmqctl list_feature_flags name state --quiet | grep -v enabled"},
                "",
            )
            b.assistant(
                "Qeyd etdim. Bütün feature flag-lar aktivdir, yəni 3.13-ə keçidə texniki maneə yoxdur."
            )

        probes.append(
            Probe(
                "next_step",
                "What upgrade is due, and by when?",
                f"Upgrade RabbitMQ to 3.13 by {_EN_MONTHS[m - 1]} {d}.",
                (("3.13",), _date_needles(d, m, when)),
            )
        )
    elif variant == 1:

        def nxt() -> None:
            b.user(
                rng.choice(
                    (
                        "Sağ ol. İndi bax, niyə tracking-ingest bağlantısı hər 10 dəqiqədən bir qopur. Həm də rmq-03-də disk dəyişdiriləndən sonra quorum liderlərini yenidən balansla (rebalance), əvvəl yox.",
                        "rmq-03-də disk dəyişdiriləndən sonra quorum liderlərini yenidən balansla — ondan əvvəl lazım deyil. Hələlik tracking-ingest-in qopmasına bax.",
                    )
                )
            )
            b.tool(
                "Loqa baxıram.",
                "bash",
                {"command": "grep -h 'tracking-ingest' /var/log/rabbitmq/rabbit@*.log | tail -n 3"},
                "\n".join(
                    f"2024-06-11 0{rng.randint(6, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100000, 999999)}+04:00 [error] <0.{rng.randint(1000, 9999)}.0> closing AMQP connection (10.20.{rng.randint(1, 9)}.{rng.randint(10, 99)}:{rng.randint(40000, 60000)} -> 10.20.0.11:5672 - tracking-ingest): missed heartbeats from client, timeout: 60s"
                    for _ in range(3)
                ),
            )
            b.assistant(
                "Bağlantı heartbeat itkisinə görə bağlanır: müştəri 60 saniyə ərzində heartbeat göndərmir. Çox güman ki, worker blok olunmuş thread-də heartbeat-i göndərə bilmir."
            )

        probes.append(
            Probe(
                "next_step",
                "What should be done once the disk on rmq-03 has been replaced?",
                "Rebalance the quorum queue leaders (only after the disk replacement).",
                (("rebalanc", "balansla"), ("disk",)),
            )
        )
    else:

        def nxt() -> None:
            b.user("Növbəti dəfə bunu əvvəlcədən necə görək?")
            b.tool(
                "Prometheus plugin-ə baxıram.",
                "bash",
                {"command": "rabbitmq-plugins list -e | grep prometheus"},
                "[E*] rabbitmq_prometheus               3.12.13",
            )
            b.assistant(
                rng.choice(
                    (
                        "Prometheus plugin aktivdir, metriklər var. Sabah səhər növbə uzunluğu (rabbitmq_queue_messages_ready) üçün Grafana alertini əlavə edəcəyəm: 50 mindən çox olsa xəbər gəlsin.",
                        "Metriklər artıq toplanır. Mən sabah Grafana-da növbə uzunluğu üçün alert quracağam, hədd 50 min mesaj.",
                    )
                )
            )

        probes.append(
            Probe(
                "next_step",
                "What did the agent promise to add, and when?",
                "A Grafana alert on queue length (over 50k ready messages), tomorrow.",
                (("alert",), ("sabah", "tomorrow")),
            )
        )
    chunks.append(nxt)

    # ------ filler: other work on the same broker
    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user(r.choice(("Hansı plugin-lər aktivdir?", "Aktiv plugin-lərin siyahısı.")))
            b.tool(
                "Plugin-lər.",
                "bash",
                {"command": "rabbitmq-plugins list -e --minimal"},
                "\n".join(
                    r.sample(
                        [
                            "rabbitmq_management",
                            "rabbitmq_prometheus",
                            "rabbitmq_shovel",
                            "rabbitmq_federation",
                            "rabbitmq_web_stomp",
                            "rabbitmq_management_agent",
                        ],
                        4,
                    )
                ),
            )
            b.assistant(
                "Aktiv plugin-lər standartdır; istifadə olunmayan birini sonra söndürmək olar."
            )
        elif pick == 1:
            b.user(r.choice(("Vhost-ların siyahısını göstər.", "Neçə vhost var?")))
            b.tool(
                "Vhost-lar.",
                "bash",
                {"command": "rabbitmqctl list_vhosts name tracing --quiet"},
                "/\tfalse\n/logistika\tfalse\n/analitika\tfalse\n/test\tfalse",
            )
            b.assistant("Dörd vhost var; /test-də heç bir növbə olmadığı üçün onu təmizləmək olar.")
        elif pick == 2:
            b.user(r.choice(("Port-lar əlçatandır?", "Şəbəkə yoxlaması et.")))
            b.tool(
                "Yoxlayıram.",
                "bash",
                {"command": "rabbitmq-diagnostics check_port_connectivity --quiet && echo OK"},
                "OK",
            )
            b.assistant("Bütün listener port-ları əlçatandır.")
        else:
            b.user(
                r.choice(
                    (
                        "tracking.events növbəsinin binding-lərini göstər.",
                        "tracking.events hansı exchange-ə bağlıdır?",
                    )
                )
            )
            b.tool(
                "Binding-lər.",
                "bash",
                {
                    "command": "rabbitmqctl list_bindings -p /logistika source_name destination_name routing_key --quiet | grep tracking.events"
                },
                "\ttracking.events\ttracking.events\ntracking\ttracking.events\ttracking.#",
            )
            b.assistant(
                f"tracking.events tracking exchange-inə tracking.# açarı ilə bağlıdır; {r.choice(('hər şey qaydasındadır', 'artıq binding yoxdur'))}."
            )

    return _kind(rng, b, segments, intro, chunks, pairs, filler, probes)


_TEMPLATES: dict[str, Template] = {
    "vercel_checkout_sl": _sl_vercel,
    "elastic_watermark_lv": _lv_elastic,
    "sam_orders_mk": _mk_sam,
    "vault_leases_mr": _mr_vault,
    "wpcli_shop_sq": _sq_wordpress,
    "rabbitmq_backlog_az": _az_rabbit,
}
HELDOUT15_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout15(kind: str, seed: int, segments: int = 3) -> Session:
    """The fifteenth held-out set's session of ``kind`` for ``seed`` (see the module
    docstring): the same seed always gives the same session."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout15:", label="heldout15"
    )

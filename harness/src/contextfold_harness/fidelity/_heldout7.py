"""The seventh held-out session set: six kinds written blind to the compaction code.

Written by someone who saw neither the summarizer, nor the fact ledger, nor any of the
other session sets; only the probe and builder API of :mod:`._build`. Four of the six
kinds are not in English:

``skolval_sv``
    Swedish: a municipality's school-placement service (Django) for the preschool
    class, sibling priority, distances and the placement run.
``aquafarm_vi``
    Vietnamese: telemetry of a shrimp farm's ponds (Go, LoRaWAN sensors, TimescaleDB)
    and its dissolved-oxygen alerts.
``pazaryeri_tr``
    Turkish: a home-textile seller's product, price and stock sync to a marketplace
    API (TypeScript worker, batch requests).
``cafe_coop_es``
    Spanish (Colombia): a coffee cooperative's lot traceability and the EU
    deforestation (EUDR) due-diligence export (Python, PostGIS).
``seismic_net``
    English: a regional seismic network's ingest, station metadata and event
    publishing (SeedLink, miniSEED, ObsPy).
``observatory``
    English: the queue scheduler of a small robotic telescope (observing blocks,
    constraints, FITS frames).

Each session plants three identifiers, two artifact states, one decision (a user's
correction of an earlier instruction, or the agent's proposal the user approved) and
one open next step (a deadline, a condition or the agent's own commitment) in the
opening, among tool calls, logs and chatter; the filler segments are unrelated work in
the same project and never repeat a planted identifier or artifact name.
"""

from __future__ import annotations

import json
import random
import re
import string
from collections.abc import Callable, Sequence

from contextfold.blocks import TextBlock, ToolUseBlock
from contextfold.messages import Message
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

__all__ = ["HELDOUT7_KINDS", "generate_heldout7"]


# ------------------------------------------------------------------ shared pieces


class _Talk:
    """A :class:`Builder` that keeps the history valid whatever order the pieces come in.

    The agent's words wait until the next tool call (they become its text) or the next
    user message; two agent texts in a row are joined.
    """

    def __init__(self, b: Builder) -> None:
        self.b = b
        self.rng = b.rng
        self._pending: list[str] = []

    def _last_agent_text(self) -> str | None:
        if not self.b.messages:
            return None
        last = self.b.messages[-1]
        if last.role != "assistant" or any(isinstance(x, ToolUseBlock) for x in last.content):
            return None
        self.b.messages.pop()
        return "\n\n".join(x.text for x in last.content if isinstance(x, TextBlock))

    def say(self, text: str) -> None:
        """The agent says ``text`` (written with its next tool call or reply)."""
        self._pending.append(text)

    def flush(self) -> None:
        if not self._pending:
            return
        earlier = self._last_agent_text()
        texts = [earlier, *self._pending] if earlier else self._pending
        self._pending = []
        self.b.assistant("\n\n".join(texts))

    def user(self, text: str) -> None:
        self.flush()
        self.b.user(text)

    def tool(self, text: str, name: str, args: dict[str, object], output: str) -> None:
        earlier = self._last_agent_text()
        texts = [t for t in (earlier, *self._pending, text) if t]
        self._pending = []
        self.b.tool("\n\n".join(texts), name, args, output)

    def close(self, text: str) -> None:
        """The agent's last words of a turn, written now."""
        self.say(text)
        self.flush()

    def take(self) -> list[Message]:
        self.flush()
        return self.b.take()


def _j(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2)


def _distinct(rng: random.Random, n: int, make: Callable[[random.Random], str]) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        value = make(rng)
        if value not in out:
            out.append(value)
    return out


def _alts(words: str) -> tuple[str, ...]:
    """A needle group: the ``|``-separated alternatives of ``words``."""
    return tuple(words.split("|"))


def _uuid(rng: random.Random) -> str:
    h = hexits(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def _retime(rng: random.Random, lines: Sequence[str]) -> str:
    """``lines`` joined, the clocks they start with rewritten to run forward."""
    now = rng.randint(0, 20 * 3600)
    out = []
    for line in lines:
        if re.match(r"\d\d:\d\d:\d\d", line):
            h, m, sec = now // 3600 % 24, now // 60 % 60, now % 60
            line = f"{h:02d}:{m:02d}:{sec:02d}{line[8:]}"
            now += rng.randint(1, 240)
        out.append(line)
    return "\n".join(out)


def _clock(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


def _sprinkler(rng: random.Random, noise: Sequence[Callable[[], None]]) -> Callable[[int], None]:
    """Writes ``k`` noise pieces at a time, each piece once before any repeats."""
    queue: list[Callable[[], None]] = []

    def sprinkle(k: int) -> None:
        for _ in range(k):
            if not queue:
                queue.extend(rng.sample(list(noise), len(noise)))
            queue.pop()()

    return sprinkle


def _pytest(rng: random.Random, path: str, passed: int, failed: Sequence[tuple[str, str]]) -> str:
    """pytest's short output for ``path``: ``failed`` is (test name, reason) pairs."""
    marks = ["."] * passed + ["F"] * len(failed)
    rng.shuffle(marks)
    lines = [f"{path} {''.join(marks)}", ""]
    for name, reason in failed:
        lines += [f"____ {name} ____", f"E   {reason}", ""]
    lines += ["short test summary info"]
    lines += [f"FAILED {path}::{name} - {reason}" for name, reason in failed]
    took = rng.uniform(0.8, 14.0)
    if failed:
        lines.append(f"==== {len(failed)} failed, {passed} passed in {took:.2f}s ====")
    else:
        lines.append(f"==== {passed} passed in {took:.2f}s ====")
    return "\n".join(lines)


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


def _date_needles(year: int, month: int, day: int, *local: str) -> tuple[str, ...]:
    """The ways a summary could write the date (besides the session's own words)."""
    en = _EN_MONTHS[month - 1]
    return tuple(
        dict.fromkeys(
            (
                *local,
                f"{year}-{month:02d}-{day:02d}",
                f"{day} {en}",
                f"{en} {day}",
                f"{en[:3]} {day}",
                f"{day} {en[:3]}",
                f"{day}/{month}",
                f"{day:02d}/{month:02d}",
                f"{day}.{month}.",
                f"{day:02d}.{month:02d}.",
            )
        )
    )


# ------------------------------------------------------------------ skolval_sv

_SV_MONTHS = (
    "januari",
    "februari",
    "mars",
    "april",
    "maj",
    "juni",
    "juli",
    "augusti",
    "september",
    "oktober",
    "november",
    "december",
)
_SV_SCHOOLS = (
    "Björkhagaskolan",
    "Ekbackens skola",
    "Sjöviksskolan",
    "Tallåsens skola",
    "Lindängsskolan",
    "Kvarnbyskolan",
    "Hagalundsskolan",
    "Stensötets skola",
)
_SV_LOG_EVENTS = (
    "laddar sökande från vy placering_sokande_v",
    "geokodar adress (cache träff)",
    "beräknar avstånd skola->hem",
    "sorterar kö enligt urvalsgrunder",
    "skriver utkast till placering_resultat",
    "hoppar över sökande med skyddad identitet (hanteras manuellt)",
    "kontrollerar kapacitet per skolenhet",
)


def _sv_log(rng: random.Random) -> str:
    level = rng.choice(("INFO", "INFO", "INFO", "DEBUG", "WARNING"))
    return f"{_clock(rng)} {level:<7} placering.motor  {rng.choice(_SV_LOG_EVENTS)}"


def _skolval(rng: random.Random, b: Builder, segments: int) -> Parts:
    t = _Talk(b)
    year = rng.choice((2025, 2026))
    who = rng.choice(("Karin", "Johan", "Elin", "Mats", "Sara", "Anders"))
    schools = rng.sample(_SV_SCHOOLS, 5)
    hot = schools[0]
    codes = _distinct(rng, 5, lambda r: str(r.randint(3, 9)) + token(r, 7, string.digits))
    month = rng.randint(2, 3)
    run_id = f"plk-{year}{month:02d}{rng.randint(10, 27)}-{hexits(rng, 6)}"
    decoy_run = f"plk-{year}{month:02d}{rng.randint(1, 9):02d}-{hexits(rng, 6)}"
    commits = _distinct(rng, 6, lambda r: hexits(r, 12))
    diarie = f"BUN {year - 1}/{rng.randint(120, 2400):04d}"
    sentry = f"SKOLVAL-{token(rng, 3, 'ABCDEFGHJKMNPQRSTVWXYZ')}{rng.randint(1, 9)}"
    capacity = rng.randint(44, 66)
    applicants = capacity + rng.randint(9, 31)
    unplaced = rng.randint(4, 19)
    dec = rng.choice(("gang", "syskon", "lott"))
    nxt = rng.choice(("deadline", "villkor", "lista"))
    probes: list[Probe] = []

    def noise_git() -> None:
        subjects = (
            "Ny adressimport från folkbokföringsfilen",
            "Visa skolans profil i e-tjänsten",
            "Fix: sortering av önskemål",
            "Översättningar för admin",
            "Bumpa Django till 5.1.4",
            "Lägg till kapacitet per läsår",
        )
        lines = [f"{c[:9]} {s}" for c, s in zip(commits[1:], rng.sample(subjects, 5), strict=True)]
        t.tool(
            "Jag tittar på de senaste ändringarna.",
            "bash",
            {"command": "git log --oneline -5"},
            "\n".join(lines),
        )

    caps = [rng.randint(40, 70) for _ in schools[1:]]
    other_rows = [
        f" {s:<18}| {c} | {cap - rng.randint(2, 20):>8} | {cap:>9}"
        for s, c, cap in zip(schools[1:], codes[1:], caps, strict=True)
    ]

    def noise_counts() -> None:
        t.tool(
            "Skolor som har plats kvar, för att se vart barn kan flyttas:",
            "sql",
            {
                "query": "select skola, skolenhetskod, count(*) sokande, kapacitet ... "
                "having count(*) < kapacitet"
            },
            " skola             | skolenhetskod | sokande | kapacitet\n"
            + "\n".join(other_rows)
            + f"\n({len(other_rows)} rader)",
        )

    def noise_log() -> None:
        lines = [f"{_clock(rng)} INFO    placering.motor  start run_id={decoy_run} (torrkörning)"]
        lines += [_sv_log(rng) for _ in range(rng.randint(5, 9))]
        lines.append(f"{_clock(rng)} INFO    placering.motor  klar run_id={decoy_run}")
        t.tool(
            "Och en äldre torrkörning som gick igenom, som jämförelse:",
            "bash",
            {"command": "tail -n 12 logs/placering-torr.log"},
            _retime(rng, lines),
        )

    def noise_chat() -> None:
        said, reply = rng.choice(
            (
                (
                    "hinner du kolla varför CI tar 14 min nu? äh strunta i det, ta det sen",
                    "Okej, jag lämnar CI så länge.",
                ),
                (
                    "obs: logga inga personnummer, inte ens i debug. det var en grej i höstas",
                    "Okej. Jag loggar bara sökande-id (internt löpnummer), aldrig personnummer.",
                ),
                ("jag sitter i möte till 11, kör på så länge", "Noterat, jag fortsätter."),
                (
                    "Lena på GIS undrar om vi fortfarande använder adresspunkterna från 2023, "
                    "vet du?",
                    "Det ser ut som att adresspunkterna laddas från 2024 års leverans, jag "
                    "dubbelkollar när jag är klar med det här.",
                ),
            )
        )
        t.user(said)
        t.say(reply)

    def noise_ruff() -> None:
        t.tool(
            "Lint innan jag går vidare.",
            "bash",
            {"command": "ruff check skolval/ && python manage.py check"},
            "All checks passed!\nSystem check identified no issues (0 silenced).",
        )

    noise = [noise_git, noise_counts, noise_log, noise_chat, noise_ruff]

    sprinkle = _sprinkler(rng, noise)

    # --- identifiers
    def id_commit() -> None:
        t.tool(
            "Jag bisectar mellan senaste gröna körningen och HEAD.",
            "bash",
            {"command": "git bisect run pytest -q tests/placering/test_motor.py -x"},
            f"running pytest -q tests/placering/test_motor.py -x\n...\n{commits[0]} is the first "
            "bad commit\ncommit "
            f"{commits[0]}\nAuthor: extern-konsult <dev@leverantor.se>\n\n"
            "    Ny adressimport: byt kolumnnamn till gatuadress\n\n skolval/import/adress.py | "
            "14 +++++++-------",
        )
        t.say(
            f"Felet kom in med {commits[0]} (ny adressimport): kolumnen heter nu `gatuadress` "
            "men placeringsmotorn läser fortfarande `adress`."
        )
        probes.append(
            Probe(
                "identifier",
                "Which commit introduced the bug that broke the placement run?",
                commits[0],
                ((commits[0],),),
            )
        )

    def id_run() -> None:
        lines = [
            f"{_clock(rng)} INFO    placering.motor  start run_id={run_id} "
            f"läsår {year}/{year - 1999}"
        ]
        lines += [_sv_log(rng) for _ in range(rng.randint(3, 6))]
        lines += [
            f"{_clock(rng)} ERROR   placering.motor  run_id={run_id} avbruten",
            "Traceback (most recent call last):",
            '  File "skolval/placering/motor.py", line 212, in las_sokande',
            "    adr = rad['adress']",
            "KeyError: 'adress'",
        ]
        t.tool(
            "Loggen från gårdagens testkörning:",
            "bash",
            {"command": "grep -n -A4 'run_id' logs/placering-test.log | tail -n 14"},
            _retime(rng, lines),
        )
        t.say(f"Körningen som dog är {run_id}; den avbröts på KeyError 'adress' i las_sokande.")
        probes.append(
            Probe(
                "identifier",
                "What is the id of the test placement run that crashed?",
                run_id,
                ((run_id,),),
            )
        )

    def id_diarie() -> None:
        t.user(
            f"syskonförturen är beslutad av nämnden, diarienummer {diarie}. skriv det i "
            "docstringen så nästa person hittar beslutet"
        )
        t.say(f"Absolut, jag hänvisar till {diarie} i modulens docstring.")
        probes.append(
            Probe(
                "identifier",
                "Under which diary number (diarienummer) is the board's sibling-priority "
                "decision filed?",
                diarie,
                ((diarie,),),
            )
        )

    def id_skola() -> None:
        rows = list(other_rows)
        rows.insert(rng.randint(0, 3), f" {hot:<18}| {codes[0]} | {applicants:>8} | {capacity:>9}")
        t.tool(
            "Jag kollar trycket per skolenhet.",
            "sql",
            {"query": "select skola, skolenhetskod, count(*) ... group by 1, 2"},
            " skola             | skolenhetskod | sokande | kapacitet\n" + "\n".join(rows),
        )
        t.user(
            f"ja {hot} är den vi får klagomål på varje år. kolla särskilt den "
            f"({codes[0]}) när du testar förturen"
        )
        t.say(f"Jag lägger till ett testfall för {hot}, skolenhetskod {codes[0]}.")
        probes.append(
            Probe(
                "identifier",
                f"What is the school unit code (skolenhetskod) of {hot}, the oversubscribed "
                "school the user asked to check?",
                codes[0],
                ((codes[0],),),
            )
        )

    def id_sentry() -> None:
        t.tool(
            "Samma fel syns i Sentry, jag hämtar ärendet.",
            "http_request",
            {"method": "GET", "url": "https://sentry.kommun.local/api/0/issues/?query=KeyError"},
            _j(
                [
                    {
                        "shortId": sentry,
                        "title": "KeyError: 'adress'",
                        "culprit": "skolval.placering.motor in las_sokande",
                        "count": str(rng.randint(3, 40)),
                        "status": "unresolved",
                    }
                ]
            ),
        )
        t.say(f"Sentry-ärendet är {sentry}; jag stänger det när fixen är ute.")
        probes.append(
            Probe(
                "identifier",
                "Which Sentry issue tracks the KeyError in the placement engine?",
                sentry,
                ((sentry,),),
            )
        )

    # --- artifacts
    def art_migration() -> None:
        t.tool(
            "Ny migrering för syskonkopplingen:",
            "write_file",
            {"path": "skolval/placering/migrations/0031_syskonforetrade.py"},
            "wrote 38 lines",
        )
        t.tool(
            "Kör den lokalt (bara min dev-databas).",
            "bash",
            {"command": "python manage.py migrate placering"},
            "Operations to perform:\n  Apply all migrations: placering\nRunning migrations:\n"
            "  Applying placering.0031_syskonforetrade... OK",
        )
        t.say(
            "Migreringen 0031_syskonforetrade är skapad och körd lokalt; den är inte körd "
            "i test eller prod än."
        )
        probes.append(
            Probe(
                "artifact",
                "What happened to the migration 0031_syskonforetrade?",
                "It was created and applied locally only (not in test or production).",
                (
                    ("0031_syskonforetrade",),
                    _alts("skapad|created|new|ny |added|wrote|lokalt|locally"),
                ),
            )
        )

    def art_avstand() -> None:
        t.tool(
            "Läser avståndsmodulen.",
            "read_file",
            {"path": "skolval/placering/avstand.py"},
            "def avstand_m(hem: Punkt, skola: Punkt) -> float:\n    return haversine(hem, skola)\n",
        )
        t.tool(
            "Byter kolumnnamn och lägger till cache per adresspunkt.",
            "edit_file",
            {
                "path": "skolval/placering/avstand.py",
                "old": "rad['adress']",
                "new": "rad['gatuadress']",
            },
            "edited skolval/placering/avstand.py (+11 -4)",
        )
        t.say("avstand.py är ändrad: läser `gatuadress` och cachar avstånd per adresspunkt.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of skolval/placering/avstand.py?",
                "Modified: reads gatuadress and caches distances per address point.",
                (
                    ("avstand.py",),
                    _alts("ändrad|ändrat|ändrade|modified|changed|updated|edited|uppdater"),
                ),
            )
        )

    def art_testfail() -> None:
        t.tool(
            "Kör syskontesterna.",
            "bash",
            {"command": "pytest -q tests/placering/test_syskon.py"},
            _pytest(
                rng,
                "tests/placering/test_syskon.py",
                rng.randint(6, 11),
                [
                    ("test_syskon_samma_skola_ger_fortur", "AssertionError: assert 2 == 1"),
                    ("test_syskon_slutar_vt", "KeyError: 'syskon_id'"),
                ],
            ),
        )
        t.say("Två tester i test_syskon.py failar, fixturen saknar syskonkopplingar.")
        t.user("låt dem vara röda, Johan fixar fixturen i morgon")
        t.say("Okej, jag låter dem vara röda.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of tests/placering/test_syskon.py?",
                "Two tests fail (the fixture lacks sibling links); left failing for Johan to fix.",
                (
                    ("test_syskon.py",),
                    _alts("fail|röd|röda|misslyck|fallerar|faller"),
                ),
            )
        )

    def art_export() -> None:
        name = f"placeringsforslag_F{year}_v2.csv"
        t.tool(
            "Exporterar förslaget så att antagningen kan titta.",
            "bash",
            {"command": f"python manage.py exportera_forslag --ut export/{name}"},
            f"exporterade {applicants * 9 + rng.randint(0, 80)} rader till export/{name}",
        )
        t.say(f"Exportfilen export/{name} är skapad, men inte skickad till någon än.")
        probes.append(
            Probe(
                "artifact",
                f"What happened to the export file {name}?",
                "It was generated (exported) but not sent to anyone yet.",
                (
                    (name,),
                    _alts("exporter|exported|skapad|created|generer|generated"),
                ),
            )
        )

    # --- the decision
    intro_extra = ""
    if dec == "gang":
        intro_extra = " kör fågelvägen för avstånden så länge, det går snabbast att få igång"

    def decision_a() -> None:
        if dec == "syskon":
            t.say(
                "En fråga om syskonförturen: ska den gälla även när syskonet går i åk 6 nu och "
                "alltså slutar på skolan till hösten? Mitt förslag: förtur bara om syskonet "
                "fortfarande går kvar på skolan nästa läsår. Ska jag köra på det?"
            )
            t.user("ja gör så")
        elif dec == "lott":
            t.tool(
                "Vid exakt lika avstånd sorterar jag på ansökningsdatum, tidigast först.",
                "edit_file",
                {
                    "path": "skolval/placering/urval.py",
                    "new": "key=lambda s: (s.avstand_m, s.inkom)",
                },
                "edited skolval/placering/urval.py (+3 -1)",
            )

    def decision_b() -> None:
        if dec == "gang":
            t.user(
                "btw angående avstånden – pratade med Lena på GIS och beslutet säger faktiskt "
                "gångavstånd längs vägnätet, inte fågelvägen. så byt till det innan vi kör "
                "nåt skarpt"
            )
            t.say("Uppfattat: gångavstånd via vägnätet ersätter fågelvägen.")
            probes.append(
                Probe(
                    "decision",
                    "How must home-to-school distance be measured?",
                    "As walking distance along the road network, not straight-line (fågelvägen).",
                    (
                        _alts(
                            "gångavstånd|walking distance|walking route|gångväg|road network|vägnät"
                        ),
                    ),
                )
            )
        elif dec == "syskon":
            probes.append(
                Probe(
                    "decision",
                    "When does sibling priority apply?",
                    "Only if the sibling still attends the school next school year (the agent's "
                    "proposal, approved by the user).",
                    (
                        ("syskon", "sibling"),
                        _alts(
                            "nästa läsår|next school year|next year|kvar|still|remain|"
                            "åk 6|grade 6|year 6"
                        ),
                    ),
                )
            )
        else:
            t.user(
                "nej inte ansökningsdatum, vid lika avstånd ska det lottas, står i "
                "riktlinjerna. seeda lotten med nåt reproducerbart så vi kan visa hur det gick till"
            )
            t.say("Okej, jag byter till lottning med reproducerbart seed vid lika avstånd.")
            probes.append(
                Probe(
                    "decision",
                    "How are ties at exactly equal distance broken?",
                    "By lottery (with a reproducible seed), not by application date.",
                    (
                        _alts("lott|lottery|random draw|draw lots"),
                        _alts("lika|tie|equal|samma"),
                    ),
                )
            )

    # --- the next step
    day = rng.randint(10, 27)
    bmonth = month + 1

    def next_step() -> None:
        if nxt == "deadline":
            t.user(
                f"beskeden ska ut till vårdnadshavarna senast {day} {_SV_MONTHS[bmonth - 1]}, så "
                "den skarpa körningen måste vara klar dagen innan"
            )
            t.close(f"Noterat, skarp körning senast dagen före {day} {_SV_MONTHS[bmonth - 1]}.")
            probes.append(
                Probe(
                    "next_step",
                    "What is the deadline still ahead?",
                    f"Placement letters must go out to guardians by {day} "
                    f"{_EN_MONTHS[bmonth - 1]}; the production run must be done the day before.",
                    (
                        _date_needles(year, bmonth, day, f"{day} {_SV_MONTHS[bmonth - 1]}"),
                        _alts(
                            "besked|vårdnadshavar|guardian|parent|letter|notif|skarp|production|run"
                        ),
                    ),
                )
            )
        elif nxt == "villkor":
            t.user(
                "om rektorsgruppen säger ok på torsdag kör du den skarpa placeringen på fredag "
                "morgon. säger de nej väntar vi"
            )
            t.close("Då väntar jag på rektorsgruppens besked innan skarp körning.")
            probes.append(
                Probe(
                    "next_step",
                    "What should happen after the principals' meeting?",
                    "If the principals approve on Thursday, run the production placement on "
                    "Friday morning; otherwise wait.",
                    (
                        _alts("rektor|principal|headteacher"),
                        _alts("skarp|production|live|real|final|fredag|friday"),
                    ),
                )
            )
        else:
            t.say(
                f"Nästa steg från min sida: jag tar fram en lista över barnen som hamnar utan "
                f"placering (just nu {unplaced} st) och mejlar den till antagningen i dag."
            )
            t.user("toppen, tack")
            t.close("Jag återkommer med listan.")
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent commit to do next?",
                    f"Produce a list of the children left without a placement ({unplaced}) and "
                    "email it to the admissions office today.",
                    (
                        _alts(
                            "utan placering|oplacerade|unplaced|without a placement|"
                            "without placement|no placement"
                        ),
                        _alts("lista|list|antagning|admission|mejl|mail"),
                    ),
                )
            )

    ids = {
        "commit": id_commit,
        "run": id_run,
        "diarie": id_diarie,
        "skola": id_skola,
        "sentry": id_sentry,
    }
    arts = {
        "migration": art_migration,
        "avstand": art_avstand,
        "testfail": art_testfail,
        "export": art_export,
    }
    id_steps = [ids[k] for k in rng.sample(sorted(ids), 3)]
    art_steps = [arts[k] for k in rng.sample(sorted(arts), 2)]

    t.user(
        f"Hej! Vi måste få placeringen för förskoleklass {year} klar. Repot ligger i "
        "~/src/skolval. Testkörningen i går kväll dog, börja med att kolla varför – sen ska "
        f"syskonförturen in.{intro_extra}\n/{who}"
    )
    t.say("Jag börjar med loggar och git-historik.")
    sprinkle(1)
    id_steps[0]()
    sprinkle(1)
    art_steps[0]()
    decision_a()
    id_steps[1]()
    sprinkle(1)
    art_steps[1]()
    decision_b()
    sprinkle(1)
    id_steps[2]()
    sprinkle(1)
    next_step()
    opening = t.take()
    return opening, segments_of(rng, b, segments, lambda r: _skolval_filler(t, r)), probes


def _skolval_filler(t: _Talk, rng: random.Random) -> None:
    task = rng.randrange(5)
    pr = rng.randint(300, 900)
    if task == 0:
        t.user("kan du fixa datumformatet på fritidsansökan? det står 2025-3-4 ibland")
        t.tool(
            "Jag tittar på vyn.",
            "read_file",
            {"path": "skolval/fritids/views.py"},
            "    datum = f'{d.year}-{d.month}-{d.day}'\n",
        )
        t.tool(
            "Byter till isoformat.",
            "edit_file",
            {"path": "skolval/fritids/views.py", "new": "datum = d.isoformat()"},
            "edited skolval/fritids/views.py (+1 -1)",
        )
        t.close(f"Fixat i fritids/views.py, PR !{pr}.")
    elif task == 1:
        t.user("vilka översättningar saknas i admin? bara engelska behövs")
        t.tool(
            "Jag kör makemessages och räknar tomma strängar.",
            "bash",
            {
                "command": "python manage.py makemessages -l en && "
                "grep -c 'msgstr \"\"' locale/en/LC_MESSAGES/django.po"
            },
            str(rng.randint(8, 40)),
        )
        t.close("Det saknas några strängar i admin, mest i rapportvyerna. Jag fyller i dem.")
    elif task == 2:
        t.user("dependabot vill bumpa psycopg, är det lugnt?")
        t.tool(
            "Jag kör hela testsviten med nya versionen.",
            "bash",
            {"command": "pip install -U 'psycopg[binary]' && pytest -q tests/fritids tests/admin"},
            _pytest(rng, "tests/fritids/test_ansokan.py", rng.randint(20, 60), []),
        )
        t.close(f"Gröna tester, jag godkänner PR !{pr}.")
    elif task == 3:
        t.user("när går nattliga exporten till ekonomisystemet egentligen?")
        t.tool(
            "Jag kollar cron.",
            "bash",
            {"command": "crontab -l | grep export"},
            f"{rng.randint(0, 59)} 2 * * * /opt/skolval/bin/nattlig_export.sh",
        )
        t.close("Den går kl. 02 varje natt.")
    else:
        t.user("någon skrev i supporten att inloggningen med BankID hänger. kan du se nåt?")
        lines = [
            f"{_clock(rng)} WARNING auth.bankid  collect timeout orderRef=*** efter "
            f"{rng.randint(20, 30)}s"
            for _ in range(rng.randint(2, 5))
        ]
        t.tool(
            "Jag tittar i auth-loggen.",
            "bash",
            {"command": "grep -i timeout logs/auth.log | tail -n 5"},
            _retime(rng, lines),
        )
        t.close("Några timeouts mot BankID i morse, det verkar vara på leverantörens sida.")


# ------------------------------------------------------------------ aquafarm_vi


def _vi_uplink(rng: random.Random, dev: str) -> str:
    return (
        f"{_clock(rng)} level=info msg=uplink dev={dev} fport=2 "
        f"do={rng.uniform(4.6, 7.4):.2f} temp={rng.uniform(27.5, 31.5):.1f} "
        f"sal={rng.uniform(8.0, 18.0):.1f} rssi=-{rng.randint(70, 118)}"
    )


def _aquafarm(rng: random.Random, b: Builder, segments: int) -> Parts:
    t = _Talk(b)
    year = rng.choice((2025, 2026))
    who = rng.choice(("chị Hạnh", "anh Tuấn", "anh Phúc", "chị Lan"))
    me = "chị" if who.startswith("chị") else "anh"
    pond = f"{rng.choice('ABC')}{rng.randint(1, 14):02d}"
    others = [f"{rng.choice('ABC')}{n:02d}" for n in rng.sample(range(15, 30), 4)]
    devs = _distinct(rng, 6, lambda r: "a84041" + hexits(r, 10))
    deveui = devs[0]
    month = rng.randint(4, 9)
    night = rng.randint(3, 26)
    alerts = [
        f"CB-{p}-{year}{month:02d}{night:02d}-{h:02d}{rng.randint(0, 59):02d}"
        for p, h in zip([pond, *others[:2]], rng.sample((0, 1, 2, 3, 4, 23), 3), strict=True)
    ]
    alert = alerts[0]
    fw = f"2.3.{rng.randint(1, 6)}-rc{rng.randint(1, 9)}+g{hexits(rng, 7)}"
    app = _uuid(rng)
    chunk_nums = _distinct(rng, 4, lambda r: str(r.randint(100, 999)))
    chunks = [f"_hyper_{rng.randint(2, 5)}_{n}_chunk" for n in chunk_nums]
    chunk = chunks[0]
    mig = f"{rng.randint(5, 19):04d}_do_median_window.sql"
    old_cfg = f"do_{pond.lower()}_cu.yaml"
    dec = rng.choice(("nguong", "sms", "quat"))
    nxt = rng.choice(("deadline", "dieukien", "backfill"))
    probes: list[Probe] = []

    def noise_journal() -> None:
        lines = [_vi_uplink(rng, rng.choice(devs[1:])) for _ in range(rng.randint(5, 9))]
        lines.insert(2, f'{_clock(rng)} level=warn msg="gateway reconnect" gw=gw-kho-02')
        t.tool(
            "Em xem log của dịch vụ ingest.",
            "bash",
            {"command": "journalctl -u tom-ingest --since '-6h' | tail -n 10"},
            _retime(rng, lines),
        )

    def noise_avg() -> None:
        rows = [
            f" {p}  | {rng.uniform(4.8, 6.9):.2f} | {rng.uniform(7.6, 8.4):.2f} | "
            f"{rng.uniform(28.0, 31.0):.1f}"
            for p in others
        ]
        t.tool(
            "Trung bình 24 giờ qua theo ao:",
            "sql",
            {"query": "select ao, avg(do), avg(ph), avg(nhiet_do) from do_readings ..."},
            " ao  | do   | ph   | nhiet_do\n" + "\n".join(rows),
        )

    def noise_build() -> None:
        t.tool(
            "Build và vet trước đã.",
            "bash",
            {"command": "go build ./... && go vet ./... && echo OK"},
            "OK",
        )

    def noise_chat() -> None:
        t.user(
            rng.choice(
                (
                    "điện khu B chập chờn từ chiều, chắc vài gateway mất kết nối, "
                    "em đừng để ý mấy cái đó",
                    "nhớ đừng restart con gateway ở nhà kho nha, nó hay không lên lại",
                    "Zalo OA báo token sắp hết hạn, để tuần sau tính",
                    f"{me} đang ngoài ao, có gì em nhắn Zalo nha",
                )
            )
        )
        t.say(rng.choice(("Dạ em biết rồi ạ.", "Dạ, em để ý ạ.", "Dạ vâng ạ.")))

    def noise_grafana() -> None:
        t.tool(
            "Em kiểm tra panel DO trên Grafana.",
            "http_request",
            {"method": "GET", "url": "http://grafana.trai.local/api/dashboards/uid/ao-nuoi"},
            _j(
                {
                    "dashboard": {
                        "title": "Ao nuôi - Vĩnh Châu",
                        "panels": rng.randint(8, 16),
                        "refresh": "30s",
                    },
                    "meta": {"version": rng.randint(20, 90)},
                }
            ),
        )

    noise = [noise_journal, noise_avg, noise_build, noise_chat, noise_grafana]

    sprinkle = _sprinkler(rng, noise)

    def id_deveui() -> None:
        rows = [
            {
                "devEui": d,
                "name": f"DO-{pond}-{i + 1}",
                "lastSeenAt": f"{year}-{month:02d}-{night:02d}T{_clock(rng)}Z",
            }
            for i, d in enumerate(rng.sample([deveui, devs[1]], 2))
        ]
        t.tool(
            f"Em lấy danh sách cảm biến của ao {pond} trên ChirpStack.",
            "http_request",
            {"method": "GET", "url": f"http://chirpstack.trai.local/api/devices?search=DO-{pond}"},
            _j({"totalCount": 2, "result": rows}),
        )
        name = next(r["name"] for r in rows if r["devEui"] == deveui)
        t.say(
            f"Con cảm biến lỗi là {name}, DevEUI {deveui}: cứ khoảng 10 phút nó gửi "
            "0.00 mg/L xen giữa các giá trị bình thường."
        )
        probes.append(
            Probe(
                "identifier",
                f"What is the DevEUI of the faulty DO sensor in pond {pond}?",
                deveui,
                ((deveui,),),
            )
        )

    def id_alert() -> None:
        rows = [f" {a} | {rng.choice(('gui_zalo', 'da_xac_nhan'))}" for a in alerts]
        rng.shuffle(rows)
        t.tool(
            "Các cảnh báo đêm qua:",
            "sql",
            {
                "query": "select ma_canh_bao, trang_thai from canh_bao "
                "where tao_luc > now() - interval '1 day'"
            },
            " ma_canh_bao          | trang_thai\n" + "\n".join(rows),
        )
        t.user(
            f"cái {alert} lúc {alert[-4:-2]}h{alert[-2:]} là cái làm cả trại dậy đó, em ghi "
            "chú là báo động giả nha"
        )
        t.say(f"Dạ, em đánh dấu {alert} là báo động giả.")
        probes.append(
            Probe(
                "identifier",
                "Which alert woke the whole farm and is to be marked as a false alarm?",
                alert,
                ((alert,),),
            )
        )

    def id_fw() -> None:
        t.tool(
            "Em xem trạng thái thiết bị.",
            "http_request",
            {"method": "GET", "url": f"http://chirpstack.trai.local/api/devices/{deveui}/status"},
            _j({"battery": rng.randint(60, 98), "firmware": fw, "margin": rng.randint(3, 12)}),
        )
        t.say(f"Con này chạy firmware {fw} (bản rc), mấy con khác đều chạy 2.2.9 bản ổn định.")
        probes.append(
            Probe(
                "identifier",
                "Which firmware version does the faulty sensor run?",
                fw,
                ((fw,),),
            )
        )

    def id_app() -> None:
        t.user(
            f"application id của trại Vĩnh Châu trên ChirpStack là {app} nha, đừng đụng vào "
            "app của trại Bạc Liêu"
        )
        t.say(f"Dạ, em chỉ làm trên application {app}.")
        probes.append(
            Probe(
                "identifier",
                "What is the ChirpStack application id of the Vinh Chau farm?",
                app,
                ((app,),),
            )
        )

    def id_chunk() -> None:
        counts = [f" {c} | {0 if c != chunk else rng.randint(40, 160)}" for c in chunks]
        rng.shuffle(counts)
        t.tool(
            "Em đếm các bản ghi do = 0 theo chunk.",
            "sql",
            {
                "query": "select tableoid::regclass, count(*) from do_readings "
                "where do = 0 group by 1"
            },
            " chunk                  | count\n" + "\n".join(counts),
        )
        t.say(f"Các bản ghi 0.00 nằm hết trong chunk {chunk}.")
        probes.append(
            Probe(
                "identifier",
                "Which TimescaleDB chunk holds the bogus zero DO readings?",
                chunk,
                ((chunk,),),
            )
        )

    def art_threshold() -> None:
        t.tool(
            "Em đọc logic cảnh báo.",
            "read_file",
            {"path": "internal/alert/threshold.go"},
            "func Check(r Reading, lim float64) bool {\n\treturn r.DO < lim\n}\n",
        )
        t.tool(
            "Sửa: chỉ cảnh báo khi trung vị 5 lần đo liên tiếp dưới ngưỡng.",
            "edit_file",
            {"path": "internal/alert/threshold.go", "new": "return median(last5) < lim"},
            "edited internal/alert/threshold.go (+18 -2)",
        )
        t.say("Đã sửa threshold.go: cảnh báo chỉ bắn khi trung vị 5 lần đo dưới ngưỡng.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of internal/alert/threshold.go?",
                "Modified: alerts fire only when the median of 5 readings is under the limit.",
                (
                    ("threshold.go",),
                    _alts("sửa|modified|changed|updated|edited|chỉnh|cập nhật|đổi"),
                ),
            )
        )

    def art_migration() -> None:
        t.tool(
            "Tạo migration cho cửa sổ trung vị.",
            "write_file",
            {"path": f"migrations/{mig}"},
            "wrote 22 lines",
        )
        t.say(f"Em đã tạo migrations/{mig}, chỉ chạy thử ở máy dev, chưa chạy trên prod.")
        probes.append(
            Probe(
                "artifact",
                f"What is the state of the migration {mig}?",
                "Created; run only on the dev machine, not yet on production.",
                (
                    (mig,),
                    _alts("tạo|created|new|mới|thêm|added|wrote|viết"),
                ),
            )
        )

    def art_testfail() -> None:
        t.tool(
            "Chạy test của bộ giải mã.",
            "bash",
            {"command": "go test ./internal/ingest/..."},
            "--- FAIL: TestDecodeDraginoLDO (0.00s)\n"
            f"    decoder_test.go:{rng.randint(60, 99)}: do = 0, want 6.12\n"
            "--- FAIL: TestDecodeBatteryLow (0.00s)\n"
            f"    decoder_test.go:{rng.randint(100, 160)}: battery = 255, want 87\n"
            "FAIL\nFAIL\tgithub.com/tomvc/tom-telemetry/internal/ingest\t0.014s",
        )
        t.say(
            "2 test trong decoder_test.go đang fail; em chưa sửa vì cần payload mẫu của "
            "firmware mới."
        )
        probes.append(
            Probe(
                "artifact",
                "What is the state of internal/ingest/decoder_test.go?",
                "Two tests fail; not fixed yet (needs sample payloads of the new firmware).",
                (
                    ("decoder_test.go",),
                    _alts("fail|lỗi|thất bại|không qua|đỏ|hỏng"),
                ),
            )
        )

    def art_deleted() -> None:
        t.tool(
            "Xóa file cấu hình của cảm biến cũ đã tháo.",
            "bash",
            {"command": f"git rm deploy/devices/{old_cfg}"},
            f"rm 'deploy/devices/{old_cfg}'",
        )
        t.say(f"Đã xóa deploy/devices/{old_cfg} (cảm biến cũ đã tháo khỏi ao).")
        probes.append(
            Probe(
                "artifact",
                f"What happened to deploy/devices/{old_cfg}?",
                "It was deleted (the old sensor was removed from the pond).",
                ((old_cfg,), _alts("xóa|xoá|deleted|removed|gỡ|git rm")),
            )
        )

    extra = " Ngưỡng cảnh báo DO cứ để 4 mg/L như cũ." if dec == "nguong" else ""

    def decision_a() -> None:
        if dec == "sms":
            t.say(
                f"Em đề xuất: nếu gửi Zalo thất bại 2 lần liên tiếp thì gửi SMS qua eSMS cho tổ "
                f"trưởng ca đêm. {me.capitalize()} thấy sao ạ?"
            )
            t.user("ok em làm vậy đi")

    def decision_b() -> None:
        if dec == "nguong":
            t.user(
                "à mà khoan, ban đêm (22h tới 6h) để ngưỡng 4,5 mg/L nha em, ban ngày giữ 4. "
                f"hồi nãy {me} nói nhầm"
            )
            t.say("Dạ, ban đêm ngưỡng 4,5 mg/L, ban ngày 4 mg/L.")
            probes.append(
                Probe(
                    "decision",
                    "What DO alert threshold applies at night?",
                    "4.5 mg/L at night (22:00-06:00), 4 mg/L by day; a correction of the "
                    "earlier 4 mg/L.",
                    (
                        ("4,5", "4.5"),
                        _alts("ngưỡng|threshold|đêm|night|mg/l|limit|cảnh báo|alert"),
                    ),
                )
            )
        elif dec == "sms":
            probes.append(
                Probe(
                    "decision",
                    "What happens when sending the Zalo alert fails?",
                    "After 2 failed Zalo sends, an SMS goes (via eSMS) to the night-shift lead.",
                    (("sms",), ("zalo",)),
                )
            )
        else:
            t.say(
                "Em hỏi thêm: có nên cho server tự bật quạt nước khi DO xuống thấp không ạ? "
                "Relay ở tủ điện khu A có API."
            )
            t.user(
                "không nha em. không tự bật quạt từ server, chỉ cảnh báo thôi, để anh em ngoài "
                "ao bật tay. lỡ máy phát có vấn đề là cháy tủ"
            )
            t.say("Dạ, server chỉ gửi cảnh báo, không tự bật quạt nước.")
            probes.append(
                Probe(
                    "decision",
                    "May the server switch the aerators on automatically?",
                    "No: the server only alerts; workers switch aerators on by hand.",
                    (
                        _alts("quạt|aerator|sục khí"),
                        _alts(
                            "không tự|not auto|no auto|never auto|manual|bật tay|by hand|"
                            "thủ công|alert only|only alert|chỉ cảnh báo|not be switched|"
                            "not switch|not turn|must not|don't"
                        ),
                    ),
                )
            )

    dday = rng.randint(2, 27)
    dmonth = month + 1

    def next_step() -> None:
        if nxt == "deadline":
            t.user(
                f"ngày {dday}/{dmonth} phải triển khai bản sửa lên trại Vĩnh Châu nha em, "
                "trước đợt thả giống mới"
            )
            t.close(f"Dạ, em sẽ chuẩn bị để triển khai trước {dday}/{dmonth}.")
            probes.append(
                Probe(
                    "next_step",
                    "What deadline is ahead?",
                    f"Deploy the fix to the Vinh Chau farm by {dday}/{dmonth}, before "
                    "the next stocking.",
                    (
                        _date_needles(year, dmonth, dday, f"{dday} tháng {dmonth}"),
                        _alts("triển khai|deploy|roll|release|vĩnh châu|trại|farm"),
                    ),
                )
            )
        elif nxt == "dieukien":
            t.user(
                f"khi nào lắp cảm biến mới ở ao {pond}, nếu nó báo đúng 2 đêm liên tiếp thì em "
                "gỡ bộ lọc trung vị tạm thời ra cho ao đó"
            )
            t.close("Dạ, em đợi 2 đêm số liệu của cảm biến mới rồi mới gỡ bộ lọc.")
            probes.append(
                Probe(
                    "next_step",
                    "What is to be done once the new sensor is installed?",
                    f"If the new sensor in pond {pond} reads correctly two nights in a row, "
                    "remove the temporary median filter for that pond.",
                    ((pond,), _alts("lọc|filter|median|trung vị")),
                )
            )
        else:
            t.say(
                "Bước tiếp theo: em sẽ viết script bù dữ liệu DO bị thiếu từ 02:00 đến 04:30 "
                f"đêm qua từ bộ đệm của gateway, gửi {me} xem trước khi chạy."
            )
            t.user("ok em")
            t.close("Dạ, em làm ngay ạ.")
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent commit to do next?",
                    "Write a script to backfill the DO data missing from 02:00 to 04:30 from "
                    "the gateway buffer, and show it before running it.",
                    (_alts("bù|backfill|fill"), _alts("do|oxy|oxygen|dữ liệu|data")),
                )
            )

    ids = {"deveui": id_deveui, "alert": id_alert, "fw": id_fw, "app": id_app, "chunk": id_chunk}
    arts = {
        "threshold": art_threshold,
        "migration": art_migration,
        "testfail": art_testfail,
        "deleted": art_deleted,
    }
    id_steps = [ids[k] for k in rng.sample(sorted(ids), 3)]
    art_steps = [arts[k] for k in rng.sample(sorted(arts), 2)]
    t.user(
        f"Chào em. Đêm qua ao {pond} báo oxy tụt 3 lần, 2h sáng anh em phải ra đo tay mà máy "
        "cầm tay vẫn thấy bình thường. Em xem giúp repo tom-telemetry nha, chắc lỗi cảm biến "
        f"hoặc lỗi giải mã.{extra}\n- {who}"
    )
    t.say("Dạ, em xem log của dịch vụ ingest trước ạ.")
    sprinkle(1)
    id_steps[0]()
    decision_a()
    sprinkle(1)
    art_steps[0]()
    id_steps[1]()
    decision_b()
    sprinkle(2)
    art_steps[1]()
    id_steps[2]()
    sprinkle(1)
    next_step()
    opening = t.take()
    return opening, segments_of(rng, b, segments, lambda r: _aquafarm_filler(t, r)), probes


def _aquafarm_filler(t: _Talk, rng: random.Random) -> None:
    task = rng.randrange(5)
    if task == 0:
        t.user("em thêm biểu đồ pH 7 ngày vào dashboard khu D giúp chị")
        t.tool(
            "Em thêm panel pH.",
            "http_request",
            {"method": "POST", "url": "http://grafana.trai.local/api/dashboards/db"},
            _j({"status": "success", "version": rng.randint(91, 140)}),
        )
        t.close("Dạ, đã thêm biểu đồ pH 7 ngày cho khu D.")
    elif task == 1:
        t.user("cập nhật thư viện Go giúp anh, lâu rồi chưa làm")
        t.tool(
            "Em cập nhật và chạy test toàn bộ.",
            "bash",
            {"command": "go get -u ./... && go test ./internal/zalo/... ./internal/report/..."},
            f"ok  \tgithub.com/tomvc/tom-telemetry/internal/zalo\t0.{rng.randint(10, 99)}s\n"
            f"ok  \tgithub.com/tomvc/tom-telemetry/internal/report\t0.{rng.randint(10, 99)}s",
        )
        t.close("Dạ, đã cập nhật, test của zalo và report đều qua.")
    elif task == 2:
        t.user("ổ đĩa server database còn bao nhiêu vậy em?")
        t.tool(
            "Em kiểm tra dung lượng.",
            "bash",
            {"command": "df -h /var/lib/postgresql"},
            f"Filesystem  Size  Used Avail Use% Mounted on\n/dev/sdb1   500G  "
            f"{rng.randint(180, 350)}G  {rng.randint(120, 300)}G  {rng.randint(40, 70)}% "
            "/var/lib/postgresql",
        )
        t.close("Dạ, vẫn còn dư, chưa cần mở rộng.")
    elif task == 3:
        t.user("sửa câu chữ tin nhắn cảnh báo cho dễ hiểu hơn, công nhân đọc không hiểu chữ 'DO'")
        t.tool(
            "Em sửa mẫu tin nhắn.",
            "edit_file",
            {"path": "internal/zalo/templates/canh_bao.tmpl", "new": "Oxy trong ao {{.Ao}} thấp"},
            "edited internal/zalo/templates/canh_bao.tmpl (+2 -2)",
        )
        t.close("Dạ, giờ tin nhắn ghi 'Oxy trong ao ... thấp' thay vì 'DO thấp'.")
    else:
        t.user("báo cáo tuần cho giám đốc xuất ra chưa em?")
        t.tool(
            "Em chạy báo cáo tuần.",
            "bash",
            {"command": "go run ./cmd/report --tuan"},
            f"bao_cao_tuan_{rng.randint(10, 52)}.pdf: {rng.randint(4, 12)} trang",
        )
        t.close("Dạ, báo cáo tuần đã xuất xong.")


# ------------------------------------------------------------------ pazaryeri_tr

_TR_MONTHS = (
    "Ocak",
    "Şubat",
    "Mart",
    "Nisan",
    "Mayıs",
    "Haziran",
    "Temmuz",
    "Ağustos",
    "Eylül",
    "Ekim",
    "Kasım",
    "Aralık",
)


def _ean13(rng: random.Random) -> str:
    body = "869" + token(rng, 9, string.digits)
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(body))
    return body + str((10 - total % 10) % 10)


def _tr_log(rng: random.Random, ms: int) -> str:
    msg = rng.choice(
        (
            "batch gönderildi",
            "ürün kuyruğa alındı",
            "rate limit beklemesi",
            "stok okundu (depo API)",
            "fiyat hesaplandı",
        )
    )
    line = {"level": rng.choice((30, 30, 40)), "time": ms, "msg": msg, "n": rng.randint(1, 400)}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"))


def _pazaryeri(rng: random.Random, b: Builder, segments: int) -> Parts:
    t = _Talk(b)
    year = rng.choice((2025, 2026))
    who = rng.choice(("Selin", "Emre", "Burak", "Zeynep", "Gökhan"))
    batch = _uuid(rng)
    barcodes = _distinct(rng, 5, _ean13)
    barkod = barcodes[0]
    order = str(rng.randint(10**10, 10**11 - 1))
    base_ms = rng.randint(1_700_000_000_000, 1_800_000_000_000)
    stream = f"{base_ms}-{rng.randint(0, 3)}"
    decoy_stream = f"{base_ms + rng.randint(5_000, 90_000)}-0"
    lines_ = ("NEV", "PIK", "YTK", "HVL", "CRS")
    stoks = _distinct(
        rng,
        4,
        lambda r: (
            f"PMK-{r.choice(lines_)}-{r.choice((90, 120, 160, 180, 200))}-"
            f"{token(r, 3, 'ABCDEFGHKLMNPRSTVYZ')}"
        ),
    )
    stok = stoks[0]
    buffer = rng.choice((2, 3))
    limit = rng.choice((40, 50, 60))
    failed = rng.randint(12, 48)
    dec = rng.choice(("tampon", "yuvarla", "limit"))
    nxt = rng.choice(("deadline", "cron", "csv"))
    probes: list[Probe] = []

    def noise_logs() -> None:
        t.tool(
            "Worker loglarına bakıyorum.",
            "bash",
            {"command": "kubectl logs deploy/sync-worker --since=12h | tail -n 8"},
            "\n".join(_tr_log(rng, base_ms - 3_600_000 + i * 41_337) for i in range(8)),
        )

    def noise_jest() -> None:
        t.tool(
            "Diğer modüllerin testleri:",
            "bash",
            {"command": "npx jest test/orders test/mappers --silent"},
            f"Test Suites: {rng.randint(4, 9)} passed\nTests:       {rng.randint(30, 90)} "
            f"passed\nTime:        {rng.uniform(2, 9):.3f} s",
        )

    def noise_chat() -> None:
        t.user(
            rng.choice(
                (
                    "Emre bu hafta izinde, depo tarafıyla ilgili soruları bana sor",
                    "ürün açıklamalarındaki HTML'i de temizlemek lazım ama sonra, şimdi değil",
                    "API anahtarı .env'de, sakın loga basma",
                    "toplantıya giriyorum, 1 saat yokum, devam et",
                )
            )
        )
        t.say(rng.choice(("Tamam.", "Anlaşıldı, devam ediyorum.", "Not aldım.")))

    def noise_lint() -> None:
        t.tool(
            "Lint ve tip kontrolü:",
            "bash",
            {"command": "npm run lint && npx tsc --noEmit"},
            "> pazaryeri-sync@2.7.0 lint\n> eslint src test\n\n(no output)",
        )

    def noise_redis() -> None:
        t.tool(
            "Kuyruğun uzunluğu:",
            "bash",
            {"command": "redis-cli XLEN sync:urunler && redis-cli XINFO GROUPS sync:urunler"},
            f"(integer) {rng.randint(40, 900)}\n1) name workers consumers 3 pending "
            f"{rng.randint(1, 9)} last-delivered-id {decoy_stream}",
        )

    noise = [noise_logs, noise_jest, noise_chat, noise_lint, noise_redis]

    sprinkle = _sprinkler(rng, noise)

    def id_batch() -> None:
        t.tool(
            "Dünkü fiyat/stok isteğinin sonucunu sorguluyorum.",
            "http_request",
            {
                "method": "GET",
                "url": "https://api.pazaryeri.example/sapigw/suppliers/"
                f"{rng.randint(100000, 999999)}/products/batch-requests/{batch}",
            },
            _j(
                {
                    "batchRequestId": batch,
                    "status": "COMPLETED",
                    "itemCount": failed + 600,
                    "failedItemCount": failed,
                }
            ),
        )
        t.say(f"Dünkü güncellemenin batchRequestId'si {batch}; {failed} kalem hatalı dönmüş.")
        probes.append(
            Probe(
                "identifier",
                "What is the batchRequestId of yesterday's price/stock update?",
                batch,
                ((batch,),),
            )
        )

    def id_barkod() -> None:
        items = [
            {"barcode": c, "status": "FAILED", "failureReasons": [r]}
            for c, r in zip(
                rng.sample(barcodes, 4),
                (
                    "Ürün bulunamadı",
                    "Fiyat üst limiti aşıldı",
                    "Stok negatif olamaz",
                    "Ürün bulunamadı",
                ),
                strict=True,
            )
        ]
        if barkod not in {i["barcode"] for i in items}:
            items[0]["barcode"] = barkod
        t.tool(
            "Hatalı kalemlerden bir örnek:",
            "http_request",
            {
                "method": "GET",
                "url": "https://api.pazaryeri.example/.../items?status=FAILED&size=4",
            },
            _j({"items": items}),
        )
        t.user(f"{barkod} zaten pasife aldığımız ürün, onu senkron listesinden çıkar")
        t.say(f"Tamam, {barkod} senkron listesinden çıkarıyorum.")
        probes.append(
            Probe(
                "identifier",
                "Which barcode belongs to the deactivated product to drop from the sync list?",
                barkod,
                ((barkod,),),
            )
        )

    def id_order() -> None:
        t.user(
            f"bu arada dünkü iade: {order} numaralı siparişin iadesi stoğa iki kere eklenmiş, "
            "ona da bakar mısın"
        )
        t.tool(
            "Sipariş olaylarına bakıyorum.",
            "bash",
            {"command": f"grep {order} logs/iade-*.log"},
            _retime(
                rng,
                [
                    f"{_clock(rng)} iade stoğa eklendi siparis={order} adet=1",
                    f"{_clock(rng)} iade stoğa eklendi siparis={order} adet=1 (retry)",
                ],
            ),
        )
        t.say(f"{order} için retry aynı iadeyi ikinci kez işlemiş; idempotency anahtarı yok.")
        probes.append(
            Probe(
                "identifier",
                "Which order's return was added to stock twice?",
                order,
                ((order,),),
            )
        )

    def id_stream() -> None:
        t.tool(
            "Bekleyen mesajlar:",
            "bash",
            {"command": "redis-cli XPENDING sync:urunler workers - + 5"},
            f'1) 1) "{stream}"\n   2) "worker-2"\n   3) (integer) {rng.randint(2, 4) * 10**6}'
            "\n   4) (integer) 7",
        )
        t.say(f"Takılı kalan mesaj {stream}, worker-2'de 7 kez denenmiş ve hâlâ bekliyor.")
        probes.append(
            Probe(
                "identifier",
                "What is the id of the Redis stream entry stuck in worker-2?",
                stream,
                ((stream,),),
            )
        )

    def id_stok() -> None:
        rows = [
            f" {s} | {rng.randint(300, 2000)},{rng.choice(('90', '00', '50'))}" for s in stoks[1:]
        ]
        rows.insert(rng.randint(0, 3), f" {stok} | 49.900,00")
        t.tool(
            "Pazaryerindeki fiyatlarla karşılaştırıyorum.",
            "sql",
            {
                "query": "select stok_kodu, pazaryeri_fiyat from fiyat_karsilastirma "
                "order by fark desc limit 4"
            },
            " stok_kodu          | pazaryeri_fiyat\n" + "\n".join(rows),
        )
        t.say(f"{stok} 4.990,00 TL yerine 49.900,00 TL gitmiş: kuruş/lira karışıklığı.")
        probes.append(
            Probe(
                "identifier",
                "Which stock code was listed at ten times its price?",
                stok,
                ((stok,),),
            )
        )

    def art_price() -> None:
        t.tool(
            "Fiyat dönüşümü:",
            "read_file",
            {"path": "src/sync/priceSync.ts"},
            "const listPrice = row.fiyatKurus / 10; // TODO\n",
        )
        t.tool(
            "Kuruştan liraya dönüşümü düzeltiyorum.",
            "edit_file",
            {"path": "src/sync/priceSync.ts", "new": "const listPrice = row.fiyatKurus / 100;"},
            "edited src/sync/priceSync.ts (+6 -3)",
        )
        t.say("priceSync.ts düzeltildi: kuruş artık 100'e bölünüyor.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of src/sync/priceSync.ts?",
                "Modified: the kuruş-to-lira conversion now divides by 100.",
                (
                    ("priceSync.ts",),
                    _alts("düzelt|değiştir|güncelle|modified|changed|updated|edited|fixed"),
                ),
            )
        )

    def art_mapping() -> None:
        t.tool(
            "Kategori eşleştirmesini ayrı dosyaya alıyorum.",
            "write_file",
            {"path": "src/mappers/kategoriEslestirme.json"},
            f"wrote {rng.randint(40, 120)} lines",
        )
        t.say("Yeni dosya: src/mappers/kategoriEslestirme.json (nevresim, pike, havlu...).")
        probes.append(
            Probe(
                "artifact",
                "What happened to src/mappers/kategoriEslestirme.json?",
                "It was created (the category mapping moved into it).",
                (
                    ("kategoriEslestirme.json",),
                    _alts("yeni|oluştur|created|new|added|ekle|wrote"),
                ),
            )
        )

    def art_testfail() -> None:
        t.tool(
            "Stok testleri:",
            "bash",
            {"command": "npx jest test/stockSync.spec.ts"},
            "FAIL test/stockSync.spec.ts\n  ● stockSync › negatif stok 0'a çekilir\n"
            "    expect(received).toBe(expected)\n    Expected: 0\n    Received: -2\n"
            "  ● stockSync › depo API zaman aşımında eski stok korunur\n"
            f"Tests:       2 failed, {rng.randint(9, 18)} passed",
        )
        t.say("stockSync.spec.ts'te 2 test başarısız; fixture'lar eski stok formatında.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of test/stockSync.spec.ts?",
                "Two tests fail (the fixtures use the old stock format).",
                (
                    ("stockSync.spec.ts",),
                    _alts("fail|başarısız|kırmızı|patlı|geçmiyor|hata"),
                ),
            )
        )

    def art_deleted() -> None:
        t.tool(
            "Artık kullanılmayan eski import betiğini siliyorum.",
            "bash",
            {"command": "git rm scripts/eskiFiyatImport.ts"},
            "rm 'scripts/eskiFiyatImport.ts'",
        )
        t.say("scripts/eskiFiyatImport.ts silindi.")
        probes.append(
            Probe(
                "artifact",
                "What happened to scripts/eskiFiyatImport.ts?",
                "It was deleted.",
                (
                    ("eskiFiyatImport",),
                    _alts("silin|sildi|kaldır|deleted|removed|git rm"),
                ),
            )
        )

    extra = " Stokları da depodaki sayıyla birebir gönder bu arada." if dec == "tampon" else ""

    def decision_a() -> None:
        if dec == "yuvarla":
            t.say(
                "Bir öneri: indirimli fiyatları ,90 ile bitecek şekilde aşağı yuvarlayalım "
                "(ör. 412,37 → 409,90). Kampanya fiyatlarında hep böyle kullanıyorsunuz gibi. "
                "Yapayım mı?"
            )
            t.user("olur öyle yap")
        elif dec == "limit":
            t.tool(
                "Hızlandırmak için istek limitini yükseltiyorum.",
                "edit_file",
                {"path": ".env.production", "new": "RATE_LIMIT_PER_MIN=120"},
                "edited .env.production (+1 -1)",
            )

    def decision_b() -> None:
        if dec == "tampon":
            t.user(
                f"yok yok birebir olmaz, her üründe {buffer} adet güvenlik stoğu düş. depo "
                "sayımı hep şaşıyor, geçen hafta 11 siparişi iptal etmek zorunda kaldık"
            )
            t.say(f"Anlaşıldı: gönderilen stok = depo stoğu - {buffer} (en az 0).")
            probes.append(
                Probe(
                    "decision",
                    "How much stock is sent to the marketplace?",
                    f"The warehouse count minus a {buffer}-unit safety stock per product "
                    "(never below 0), not the exact count.",
                    (
                        (
                            f"{buffer} adet",
                            f"{buffer} unit",
                            f"{buffer} pcs",
                            f"- {buffer}",
                            f"-{buffer}",
                            f"minus {buffer}",
                            f"{buffer} fewer",
                            f"{buffer} less",
                        ),
                        _alts("stok|stock|güvenlik|safety|buffer"),
                    ),
                )
            )
        elif dec == "yuvarla":
            probes.append(
                Probe(
                    "decision",
                    "How are discounted prices rounded?",
                    "Down to end in ,90 (e.g. 412,37 -> 409,90): the agent's proposal, approved.",
                    ((",90", ".90"), ("yuvarla", "round")),
                )
            )
        else:
            t.user(
                f"120 çok fazla, dakikada en fazla {limit} istek olsun. geçen ay limit aşınca "
                "hesabı 1 saat kilitlediler"
            )
            t.say(f"Tamam, RATE_LIMIT_PER_MIN={limit} yapıyorum.")
            probes.append(
                Probe(
                    "decision",
                    "What request rate limit applies to the marketplace API?",
                    f"At most {limit} requests per minute (not 120).",
                    (
                        (
                            f"dakikada {limit}",
                            f"dakikada en fazla {limit}",
                            f"{limit} istek",
                            f"{limit} request",
                            f"{limit} req",
                            f"{limit}/min",
                            f"{limit}/dk",
                            f"{limit} per min",
                            f"{limit} calls",
                            f"_min={limit}",
                        ),
                    ),
                )
            )

    month = rng.randint(1, 12)
    day = rng.randint(3, 27)

    def next_step() -> None:
        ay = _TR_MONTHS[month - 1]
        if nxt == "deadline":
            t.user(
                f"kampanya {day} {ay} gece 00:00'da başlıyor, indirimli fiyatlar ondan önce "
                "yüklenmiş olmalı. yetişir mi?"
            )
            t.close(f"Yetişir, indirimli fiyatlar kampanyadan önce ({day} {ay}) yüklenmiş olur.")
            probes.append(
                Probe(
                    "next_step",
                    "What deadline is ahead?",
                    f"The campaign starts at 00:00 on {day} {_EN_MONTHS[month - 1]}; the "
                    "discounted prices must be uploaded before then.",
                    (
                        _date_needles(year, month, day, f"{day} {ay}"),
                        _alts("kampanya|campaign|fiyat|price|indirim|discount"),
                    ),
                )
            )
        elif nxt == "cron":
            t.user(
                "yeni batch'i gönder; sonuç tamamen SUCCESS dönerse canlıdaki cron'u aç, "
                "FAILED olan varsa açma bana yaz"
            )
            t.close("Tamam, batch sonucuna göre cron'u açacağım ya da sana yazacağım.")
            probes.append(
                Probe(
                    "next_step",
                    "What is to be done with the production cron?",
                    "Turn it on only if the new batch comes back entirely SUCCESS; if any "
                    "item FAILED, leave it off and tell the user.",
                    (("cron",), _alts("success|başarılı|aç|enable|turn on|activate")),
                )
            )
        else:
            t.say(
                f"Sonraki adım: hatalı dönen {failed} barkodu bir CSV'ye döküp sana Slack'ten "
                "atacağım, depo ekibi düzeltsin."
            )
            t.user("süper")
            t.close("Hazırlıyorum.")
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent commit to do next?",
                    f"Dump the {failed} failed barcodes into a CSV and send it over Slack for "
                    "the warehouse team.",
                    (("csv",), _alts("barkod|barcode|hatalı|failed|error")),
                )
            )

    ids = {
        "batch": id_batch,
        "barkod": id_barkod,
        "order": id_order,
        "stream": id_stream,
        "stok": id_stok,
    }
    arts = {
        "price": art_price,
        "mapping": art_mapping,
        "testfail": art_testfail,
        "deleted": art_deleted,
    }
    id_steps = [ids[k] for k in rng.sample(sorted(ids), 3)]
    art_steps = [arts[k] for k in rng.sample(sorted(arts), 2)]
    t.user(
        "Selam, dünkü fiyat/stok senkronu yarıda kalmış, pazaryerinde bazı ürünler yanlış "
        "fiyattan görünüyor. Repo pazaryeri-sync, bir bakar mısın? Öncelik fiyatlar."
        f"{extra}\n{who}"
    )
    t.say("Bakıyorum; önce worker loglarına ve Redis kuyruğuna bakacağım.")
    sprinkle(1)
    decision_a()
    id_steps[0]()
    sprinkle(1)
    art_steps[0]()
    id_steps[1]()
    sprinkle(1)
    decision_b()
    art_steps[1]()
    sprinkle(1)
    id_steps[2]()
    sprinkle(1)
    next_step()
    opening = t.take()
    return opening, segments_of(rng, b, segments, lambda r: _pazaryeri_filler(t, r)), probes


def _pazaryeri_filler(t: _Talk, rng: random.Random) -> None:
    task = rng.randrange(5)
    if task == 0:
        t.user("ürün açıklamalarındaki <br> etiketlerini temizleyen bir fonksiyon yazar mısın")
        t.tool(
            "Yardımcı fonksiyonu ekliyorum.",
            "edit_file",
            {"path": "src/util/html.ts", "new": "export const temizle = (s: string) => ..."},
            "edited src/util/html.ts (+14 -0)",
        )
        t.close("src/util/html.ts içine temizle() eklendi.")
    elif task == 1:
        t.user("kargo firması entegrasyonunda timeout kaç saniye?")
        t.tool(
            "Ayarlara bakıyorum.",
            "bash",
            {"command": "grep -n TIMEOUT src/kargo/*.ts"},
            f"src/kargo/client.ts:12:const KARGO_TIMEOUT_MS = {rng.choice((5, 8, 10, 15))}000;",
        )
        t.close("Kargo istemcisinde timeout tanımlı, client.ts içinde.")
    elif task == 2:
        t.user("node 22'ye geçsek bir şey kırılır mı?")
        t.tool(
            "Node 22 ile testleri çalıştırıyorum.",
            "bash",
            {"command": "npx -p node@22 node --version && npx jest test/orders --silent"},
            f"v22.{rng.randint(1, 12)}.0\nTests:       {rng.randint(20, 50)} passed",
        )
        t.close("Sipariş testleri Node 22'de geçiyor; Dockerfile'ı da güncelleyebilirim.")
    elif task == 3:
        t.user("dünkü sipariş sayısı kaç?")
        t.tool(
            "Sayıyorum.",
            "sql",
            {"query": "select count(*) from siparisler where tarih = current_date - 1"},
            f" count\n-------\n {rng.randint(80, 700)}",
        )
        t.close("Dünkü sipariş sayısı sorgu sonucunda.")
    else:
        t.user("README'ye kurulum adımlarını Türkçe ekleyelim")
        t.tool(
            "README'yi güncelliyorum.",
            "edit_file",
            {"path": "README.md", "new": "## Kurulum\n\n1. npm ci\n2. .env dosyasını doldur"},
            "edited README.md (+12 -0)",
        )
        t.close("README'ye Türkçe kurulum bölümü eklendi.")


# ------------------------------------------------------------------ cafe_coop_es

_ES_MONTHS = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)
_ES_MUNICIPIOS = (
    ("PIT", "Pitalito"),
    ("ACE", "Acevedo"),
    ("LPL", "La Plata"),
    ("GAR", "Garzón"),
    ("SAG", "San Agustín"),
)


def _nit(rng: random.Random) -> str:
    n = rng.randint(800_000_000, 901_999_999)
    s = f"{n:,}".replace(",", ".")
    return f"{s}-{rng.randint(0, 9)}"


def _cafe(rng: random.Random, b: Builder, segments: int) -> Parts:
    t = _Talk(b)
    year = rng.choice((2025, 2026))
    yy = year % 100
    who = rng.choice(("Diana", "Andrés", "Camila", "Julián", "Marcela"))
    lotes = _distinct(rng, 5, lambda r: f"LT-HU-{yy}-{r.randint(1, 999):04d}")
    lote = lotes[0]
    ref = f"{yy}CO{token(rng, 8)}"
    verif = token(rng, 8)
    muni_code, muni = rng.choice(_ES_MUNICIPIOS)
    fincas = _distinct(rng, 5, lambda r: f"F-{muni_code}-{r.randint(1, 1999):04d}")
    finca = fincas[0]
    radicado = f"{year}EE{rng.randint(1, 9_999_999):07d}"
    nit, coop_nit = _distinct(rng, 2, _nit)
    overlaps = rng.randint(6, 23)
    lots_in_container = rng.randint(4, 12)
    dec = rng.choice(("corte", "hectareas", "decimales"))
    nxt = rng.choice(("embarque", "hamburgo", "revision"))
    probes: list[Probe] = []

    def noise_etl() -> None:
        lines = [
            f"{_clock(rng)} INFO validando finca {f} área {rng.uniform(0.4, 9.5):.2f} ha "
            f"vértices {rng.randint(4, 60)}"
            for f in rng.sample(fincas[1:], 3)
        ]
        lines.append(f"{_clock(rng)} WARNING anillo no cerrado, se cierra automáticamente")
        t.tool(
            "Miro el log del script de validación.",
            "bash",
            {"command": "tail -n 4 logs/validar_poligonos.log"},
            _retime(rng, lines),
        )

    def noise_count() -> None:
        rows = [f" {m:<12}| {rng.randint(40, 400)}" for _, m in _ES_MUNICIPIOS]
        t.tool(
            "Fincas por municipio:",
            "sql",
            {"query": "select municipio, count(*) from fincas group by 1"},
            " municipio   | count\n" + "\n".join(rows),
        )

    def noise_chat() -> None:
        t.user(
            rng.choice(
                (
                    "ojo, no subas las cédulas de los productores a ningún lado",
                    "el internet en la bodega está malísimo hoy, si me demoro es por eso",
                    "don Hernando llamó otra vez por el pago jaja, nada que ver contigo",
                    "sigue no más, estoy en reunión con el gerente",
                )
            )
        )
        t.say(rng.choice(("Listo.", "Entendido, sigo.", "De una.")))

    def noise_ogr() -> None:
        t.tool(
            "Resumen de la capa de fincas:",
            "bash",
            {"command": "ogrinfo -so data/fincas.gpkg fincas"},
            f"Layer name: fincas\nGeometry: Multi Polygon\nFeature Count: {rng.randint(900, 2400)}"
            '\nLayer SRS WKT: GEOGCRS["WGS 84" ...]',
        )

    def noise_tests() -> None:
        t.tool(
            "Corro el resto de las pruebas.",
            "bash",
            {"command": "pytest -q tests/test_pagos.py tests/test_catacion.py"},
            _pytest(rng, "tests/test_pagos.py", rng.randint(10, 30), []),
        )

    noise = [noise_etl, noise_count, noise_chat, noise_ogr, noise_tests]

    sprinkle = _sprinkler(rng, noise)

    def id_lote() -> None:
        rows = [f" {x} | {'t' if x == lote else 'f'} | {rng.randint(40, 275)}" for x in lotes]
        rng.shuffle(rows)
        t.tool(
            "Cruzo los lotes con la capa de pérdida de cobertura.",
            "sql",
            {"query": "select lote, alerta_deforestacion, sacos from v_lotes_mitaca"},
            " lote           | alerta | sacos\n" + "\n".join(rows),
        )
        t.say(
            f"El único lote con alerta es {lote}: una de sus fincas cae sobre una pérdida de "
            "cobertura posterior a la fecha de corte."
        )
        probes.append(
            Probe(
                "identifier",
                "Which lot raised the deforestation alert?",
                lote,
                ((lote,),),
            )
        )

    def id_dds() -> None:
        t.tool(
            "Envío una DDS de prueba al ambiente de aceptación de TRACES.",
            "http_request",
            {"method": "POST", "url": "https://acceptance.eudr.example/tracesnt/ws/dds/submit"},
            _j({"referenceNumber": ref, "verificationNumber": verif, "status": "SUBMITTED"}),
        )
        t.say(f"Quedó radicada en aceptación con número de referencia {ref}.")
        probes.append(
            Probe(
                "identifier",
                "What reference number did the test DDS get in the TRACES acceptance environment?",
                ref,
                ((ref,),),
            )
        )

    def id_finca() -> None:
        t.user(
            f"la finca {finca} de don Hernando tiene el polígono mal, se mete al parque natural. "
            "ya le pedí al técnico que vuelva a tomar los puntos, mientras tanto sácala del lote"
        )
        t.say(f"Listo, excluyo {finca} hasta que llegue el nuevo levantamiento.")
        probes.append(
            Probe(
                "identifier",
                "Which farm has the wrong polygon (it overlaps the natural park)?",
                finca,
                ((finca,),),
            )
        )

    def id_radicado() -> None:
        t.user(
            f"y el radicado del certificado de origen que pidió el comprador es {radicado}, "
            "ponlo en el campo de observaciones de la DDS"
        )
        t.say(f"Hecho, el radicado {radicado} va en observaciones.")
        probes.append(
            Probe(
                "identifier",
                "What is the filing number (radicado) of the certificate of origin?",
                radicado,
                ((radicado,),),
            )
        )

    def id_nit() -> None:
        t.tool(
            "Reviso la configuración del operador en la DDS.",
            "read_file",
            {"path": "config/eudr.toml"},
            f'[operador]\nnombre = "Cooperativa Cafetera del Sur"\nnit = "{coop_nit}"\n',
        )
        t.user(f"ojo, el NIT que va en la DDS es el del exportador, {nit}, no el de la cooperativa")
        t.say(f"Corregido: en la DDS va el NIT del exportador, {nit}.")
        probes.append(
            Probe(
                "identifier",
                "Which NIT (the exporter's) goes in the DDS?",
                nit,
                ((nit,),),
            )
        )

    def art_poligonos() -> None:
        t.tool(
            "El error viene de anillos sin cerrar y orientación invertida.",
            "edit_file",
            {"path": "etl/poligonos.py", "new": "geom = orient(close_ring(geom), sign=1.0)"},
            "edited etl/poligonos.py (+9 -2)",
        )
        t.say("Modifiqué etl/poligonos.py: cierra los anillos y corrige la orientación.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of etl/poligonos.py?",
                "Modified: it closes the rings and fixes their orientation.",
                (
                    ("poligonos.py",),
                    _alts(
                        "modific|cambi|corregi|actualiz|arregl|modified|changed|updated|edited|fixed"
                    ),
                ),
            )
        )

    def art_vista() -> None:
        t.tool(
            "Creo una vista con los lotes listos para exportar.",
            "write_file",
            {"path": "sql/vista_lotes_exportables.sql"},
            "wrote 31 lines",
        )
        t.say("Nueva vista en sql/vista_lotes_exportables.sql (aún sin aplicar en producción).")
        probes.append(
            Probe(
                "artifact",
                "What happened to sql/vista_lotes_exportables.sql?",
                "It was created (not yet applied in production).",
                (
                    ("vista_lotes_exportables",),
                    _alts("cread|creé|nueva|nuevo|created|new|added|agregu"),
                ),
            )
        )

    def art_testfail() -> None:
        t.tool(
            "Corro las pruebas de deforestación.",
            "bash",
            {"command": "pytest -q tests/test_deforestacion.py"},
            _pytest(
                rng,
                "tests/test_deforestacion.py",
                rng.randint(5, 12),
                [
                    ("test_lote_sin_alerta", "assert True is False"),
                    ("test_finca_en_borde", "TopologyException: side location conflict"),
                ],
            ),
        )
        t.say(
            "Fallan 2 pruebas en test_deforestacion.py; las dejo así mientras reviso la geometría."
        )
        probes.append(
            Probe(
                "artifact",
                "What is the state of tests/test_deforestacion.py?",
                "Two tests fail; left failing while the geometry is reviewed.",
                (
                    ("test_deforestacion.py",),
                    _alts("fall|fail|rojo|no pasa|error"),
                ),
            )
        )

    def art_deleted() -> None:
        t.tool(
            "Borro la copia vieja de los polígonos, ya está en el bucket.",
            "bash",
            {"command": "git rm data/fincas_2023_backup.geojson"},
            "rm 'data/fincas_2023_backup.geojson'",
        )
        t.say("Eliminé data/fincas_2023_backup.geojson del repo.")
        probes.append(
            Probe(
                "artifact",
                "What happened to data/fincas_2023_backup.geojson?",
                "It was deleted from the repository (a copy is in the bucket).",
                (
                    ("fincas_2023_backup",),
                    _alts("borr|elimin|deleted|removed|git rm"),
                ),
            )
        )

    extra = (
        " Para el chequeo de deforestación usa como fecha de corte el 31 de diciembre de 2021."
        if dec == "corte"
        else ""
    )

    def decision_a() -> None:
        if dec == "hectareas":
            t.say(
                "Propuesta para la geolocalización: fincas de más de 4 ha con polígono "
                "obligatorio; de 4 ha o menos basta un punto GPS, como permite el reglamento. "
                "¿Le doy así?"
            )
            t.user("dale, así")
        elif dec == "decimales":
            t.tool(
                "Exporto las coordenadas redondeadas.",
                "edit_file",
                {"path": "etl/exportar_dds.py", "new": "round(lon, 5), round(lat, 5)"},
                "edited etl/exportar_dds.py (+2 -2)",
            )

    def decision_b() -> None:
        if dec == "corte":
            t.user(
                "ay no perdón, la fecha de corte del reglamento es el 31 de diciembre de 2020, "
                "no 2021. corrígelo"
            )
            t.say("Corregido: fecha de corte 31 de diciembre de 2020.")
            probes.append(
                Probe(
                    "decision",
                    "What deforestation cutoff date applies?",
                    "31 December 2020 (the user corrected the earlier 2021).",
                    (("2020",), _alts("corte|cutoff|cut-off|deforest")),
                )
            )
        elif dec == "hectareas":
            probes.append(
                Probe(
                    "decision",
                    "What geolocation is required per farm?",
                    "A polygon for farms over 4 ha; a GPS point is enough at 4 ha or less "
                    "(the agent's proposal, approved).",
                    (
                        _alts("4 ha|4ha|4 hectáreas|4 hectares|cuatro hectáreas"),
                        _alts("polígono|poligono|polygon|punto|point"),
                    ),
                )
            )
        else:
            t.user(
                "las coordenadas exportalas con 5 dec- no, mejor con 6 decimales, que el "
                "validador de TRACES se queja"
            )
            t.say("Cambio a 6 decimales.")
            probes.append(
                Probe(
                    "decision",
                    "With what precision are coordinates exported?",
                    "6 decimal places (not 5).",
                    (
                        _alts("6 decimal|seis decimal|six decimal|6 dec|round(lon, 6)"),
                        _alts("coord|decimal|lat|precis"),
                    ),
                )
            )

    month = rng.randint(1, 12)
    day = rng.randint(2, 27)

    def next_step() -> None:
        mes = _ES_MONTHS[month - 1]
        if nxt == "embarque":
            t.user(
                f"el contenedor sale de Buenaventura el {day} de {mes}; las DDS tienen que "
                "estar radicadas antes, si no el comprador no lo recibe"
            )
            t.close(f"Entendido, las DDS quedan radicadas antes del {day} de {mes}.")
            probes.append(
                Probe(
                    "next_step",
                    "What deadline is ahead?",
                    f"The container leaves Buenaventura on {day} {_EN_MONTHS[month - 1]}; the "
                    "DDS must be submitted before.",
                    (
                        _date_needles(year, month, day, f"{day} de {mes}"),
                        _alts(
                            "dds|declaraci|due diligence|radic|submit|buenaventura|"
                            "contenedor|container|ship"
                        ),
                    ),
                )
            )
        elif nxt == "hamburgo":
            t.user(
                "si el comprador de Hamburgo confirma el contrato esta semana, generas las DDS "
                f"de los {lots_in_container} lotes del contenedor. si no, esperamos"
            )
            t.close("Listo, quedo pendiente de la confirmación del comprador.")
            probes.append(
                Probe(
                    "next_step",
                    "What is pending on the Hamburg buyer?",
                    f"If the Hamburg buyer confirms the contract this week, generate the DDS for "
                    f"the {lots_in_container} lots of the container; otherwise wait.",
                    (
                        _alts("hamburgo|hamburg|comprador|buyer"),
                        _alts("dds|declaraci|due diligence"),
                    ),
                )
            )
        else:
            t.say(
                f"Próximo paso: voy a revisar las {overlaps} fincas cuyos polígonos se cruzan "
                "con los de los vecinos y te mando la lista mañana."
            )
            t.user("perfecto, gracias")
            t.close("Con gusto.")
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent commit to do next?",
                    f"Review the {overlaps} farms whose polygons overlap their neighbours' and "
                    "send the list tomorrow.",
                    (
                        ("finca", "farm"),
                        _alts("cruz|overlap|superpon|solap|intersect"),
                    ),
                )
            )

    ids = {
        "lote": id_lote,
        "dds": id_dds,
        "finca": id_finca,
        "radicado": id_radicado,
        "nit": id_nit,
    }
    arts = {
        "poligonos": art_poligonos,
        "vista": art_vista,
        "testfail": art_testfail,
        "deleted": art_deleted,
    }
    id_steps = [ids[k] for k in rng.sample(sorted(ids), 3)]
    art_steps = [arts[k] for k in rng.sample(sorted(arts), 2)]
    t.user(
        "Hola! Necesito que me ayudes con la exportación de las declaraciones de debida "
        "diligencia (EUDR) de los lotes de mitaca. El repo es trazabilidad-cafe. El script de "
        f"validación de polígonos se está cayendo con algunas fincas de {muni}.{extra}\n{who}"
    )
    t.say("Listo, empiezo por el log del script de validación.")
    sprinkle(1)
    id_steps[0]()
    art_steps[0]()
    sprinkle(1)
    decision_a()
    id_steps[1]()
    sprinkle(1)
    art_steps[1]()
    decision_b()
    id_steps[2]()
    sprinkle(2)
    next_step()
    opening = t.take()
    return opening, segments_of(rng, b, segments, lambda r: _cafe_filler(t, r)), probes


def _cafe_filler(t: _Talk, rng: random.Random) -> None:
    task = rng.randrange(5)
    if task == 0:
        t.user("¿cuántos kilos de pergamino entraron ayer a la bodega?")
        t.tool(
            "Consulto las recepciones.",
            "sql",
            {"query": "select sum(kg) from recepciones where fecha = current_date - 1"},
            f" sum\n------\n {rng.randint(1500, 9000)}",
        )
        t.close("Ese es el total de pergamino recibido ayer.")
    elif task == 1:
        t.user("el reporte de pagos a productores salió con las tildes dañadas, ¿lo arreglas?")
        t.tool(
            "Fuerzo UTF-8 en el CSV.",
            "edit_file",
            {"path": "reportes/pagos.py", "new": "open(ruta, 'w', encoding='utf-8-sig')"},
            "edited reportes/pagos.py (+1 -1)",
        )
        t.close("Listo, el CSV de pagos sale en UTF-8 con BOM para Excel.")
    elif task == 2:
        t.user("actualiza las dependencias, dependabot tiene como 6 PR abiertos")
        t.tool(
            "Actualizo y corro las pruebas de pagos.",
            "bash",
            {"command": "uv lock --upgrade && pytest -q tests/test_pagos.py"},
            _pytest(rng, "tests/test_pagos.py", rng.randint(10, 30), []),
        )
        t.close("Dependencias al día, pruebas en verde.")
    elif task == 3:
        t.user("¿qué puntaje de taza sacó el último café especial?")
        t.tool(
            "Miro la última catación.",
            "sql",
            {"query": "select puntaje from catacion order by fecha desc limit 1"},
            f" puntaje\n---------\n {rng.uniform(83, 88):.2f}",
        )
        t.close("Ese fue el puntaje SCA de la última catación.")
    else:
        t.user("agrega un campo de teléfono al formulario de productores")
        t.tool(
            "Agrego la migración y el campo.",
            "bash",
            {"command": "alembic revision -m 'telefono productor' --autogenerate"},
            f"Generating migrations/versions/{hexits(rng, 12)}_telefono_productor.py ...  done",
        )
        t.close("Campo de teléfono agregado al formulario y a la tabla.")


# ------------------------------------------------------------------ seismic_net

_SEIS_FILLER_STATIONS = ("HLBR", "MRKT", "CDVL", "PNRG", "SQWA", "TULL")


def _station(rng: random.Random) -> str:
    while True:
        code = rng.choice("BCDFGHKLMNPRSTVW") + token(rng, 3, "ABCDEFGHKLMNOPRSTUVWY")
        if code not in _SEIS_FILLER_STATIONS:
            return code


def _seismic(rng: random.Random, b: Builder, segments: int) -> Parts:
    t = _Talk(b)
    year = rng.choice((2025, 2026))
    who = rng.choice(("Dana", "Marcus", "Ines", "Tom", "Keiko"))
    net = rng.choice(("XR", "ZQ", "YB", "UQ"))
    stations = _distinct(rng, 5, _station)
    sta = stations[0]
    loc = rng.choice(("00", "10"))
    cha = rng.choice(("HHZ", "HHN", "HHE", "EHZ"))
    chan = f"{net}.{sta}.{loc}.{cha}"
    events = _distinct(
        rng, 5, lambda r: f"{net.lower()}{year}{token(r, 4, string.ascii_lowercase)}"
    )
    event = events[0]
    serial = f"CNT-{rng.randint(1000, 99999):05d}"
    shas = _distinct(rng, 5, lambda r: hexits(r, 12))
    ticket = f"NOC-{rng.randint(1000, 9999)}"
    gaps = rng.randint(14, 80)
    dec = rng.choice(("magnitude", "bandpass", "sds"))
    nxt = rng.choice(("report", "modem", "rerun"))
    probes: list[Probe] = []

    def noise_streams() -> None:
        rows = [
            f"{net} {s:<5} {loc} HH{c}  D  {year}/{rng.randint(100, 200)} "
            f"{_clock(rng)}  latency {rng.uniform(0.8, 4.0):.1f}s"
            for s in stations[1:]
            for c in rng.sample("ZNE", 1)
        ]
        t.tool(
            "Checking what the SeedLink server is serving right now.",
            "bash",
            {"command": "slinktool -Q localhost:18000 | head -n 6"},
            "\n".join(rows),
        )

    def noise_events() -> None:
        rows = [
            f"{e}|{year}-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{_clock(rng)}|"
            f"{rng.uniform(35.0, 37.0):.3f}|{-rng.uniform(96.0, 99.0):.3f}|"
            f"{rng.uniform(1.2, 3.4):.1f}|earthquake"
            for e in events[1:]
        ]
        t.tool(
            "Recent events from our FDSN service:",
            "http_request",
            {"method": "GET", "url": "http://fdsn.local/fdsnws/event/1/query?format=text&limit=4"},
            "#EventID|Time|Latitude|Longitude|Magnitude|Type\n" + "\n".join(rows),
        )

    def noise_chat() -> None:
        t.user(
            rng.choice(
                (
                    "fyi the vault at HLBR flooded again, ignore anything from it this week",
                    "don't restart ringserver during business hours, the EEW folks will scream",
                    "I'm on a call for 30 min, keep going",
                    "the coffee machine on 3 is fixed. unrelated, just happy",
                )
            )
        )
        t.say(rng.choice(("Noted.", "Got it, carrying on.", "OK.")))

    def noise_disk() -> None:
        t.tool(
            "Archive disk, since gaps sometimes come from a full volume:",
            "bash",
            {"command": "df -h /data/archive && systemctl is-active seedlink ringserver"},
            f"/dev/md0  40T  {rng.randint(18, 33)}T  {rng.randint(7, 20)}T  "
            f"{rng.randint(50, 82)}% /data/archive\nactive\nactive",
        )

    def noise_tests() -> None:
        t.tool(
            "Running the rest of the QC suite.",
            "bash",
            {"command": "pytest -q tests/test_ppsd.py tests/test_inventory.py"},
            _pytest(rng, "tests/test_ppsd.py", rng.randint(8, 25), []),
        )

    noise = [noise_streams, noise_events, noise_chat, noise_disk, noise_tests]

    sprinkle = _sprinkler(rng, noise)

    def id_channel() -> None:
        rows = [
            f"{net}.{s}.{loc}.{cha}: {rng.randint(0, 2)} gaps, {rng.randint(0, 40)}s missing"
            for s in stations[1:]
        ]
        rows.insert(
            rng.randint(0, 3),
            f"{chan}: {gaps} gaps, {rng.randint(1, 3)}h{rng.randint(10, 59)}m missing",
        )
        t.tool(
            "Gap summary for the last 72 h:",
            "bash",
            {"command": "python qc/gaps.py --days 3 --net " + net},
            "\n".join(rows),
        )
        t.say(f"The stream that's dropping packets is {chan}, {gaps} gaps since the weekend.")
        probes.append(
            Probe(
                "identifier",
                "Which channel (full SEED id) is dropping packets?",
                chan,
                ((chan,),),
            )
        )

    def id_event() -> None:
        t.user(
            f"{event} is the quarry blast at the Hanson pit, not an earthquake. mark it as "
            "'quarry blast' and pull it from the public feed"
        )
        t.say(f"Will do: {event} gets event type 'quarry blast' and comes off the feed.")
        probes.append(
            Probe(
                "identifier",
                "Which event is actually a quarry blast?",
                event,
                ((event,),),
            )
        )

    def id_serial() -> None:
        t.tool(
            f"State of health from the digitizer at {sta}:",
            "http_request",
            {"method": "GET", "url": f"http://{sta.lower()}.tele.local/api/soh"},
            _j(
                {
                    "station": sta,
                    "digitizer": {"model": "Centaur", "serial": serial},
                    "gps": {"locked": True},
                    "temp_c": round(rng.uniform(8, 31), 1),
                }
            ),
        )
        t.say(f"That digitizer is serial {serial}, the unit that came back from repair.")
        probes.append(
            Probe(
                "identifier",
                f"What is the serial number of the digitizer at {sta}?",
                serial,
                ((serial,),),
            )
        )

    def id_commit() -> None:
        subjects = ("Add PNRG epoch", "Fix CDVL azimuth", "Bump obspy", "Rename loc codes")
        lines = [f"{s} {m}" for s, m in zip(shas[1:], subjects, strict=True)]
        lines.insert(rng.randint(0, 3), f"{shas[0]} Update {sta} response after sensor swap")
        t.tool(
            "Looking at the metadata repo history.",
            "bash",
            {"command": "git -C metadata log --format='%h %s' --abbrev=12 -5"},
            "\n".join(lines),
        )
        t.say(f"The response change for the sensor swap at {sta} is {shas[0]}.")
        probes.append(
            Probe(
                "identifier",
                f"Which metadata commit updated {sta}'s response after the sensor swap?",
                shas[0],
                ((shas[0],),),
            )
        )

    def id_ticket() -> None:
        t.user(f"the telemetry vendor's ticket for that modem is {ticket}, reference it in the log")
        t.say(f"OK, I'll reference {ticket}.")
        probes.append(
            Probe(
                "identifier",
                "What is the telemetry vendor's ticket for the modem?",
                ticket,
                ((ticket,),),
            )
        )

    def art_xml() -> None:
        t.tool(
            "The sensitivity in the StationXML is still the old sensor's.",
            "edit_file",
            {"path": f"metadata/stations/{sta}.xml", "new": "<Value>1.5e9</Value>"},
            f"edited metadata/stations/{sta}.xml (+4 -4)",
        )
        t.say(f"Updated metadata/stations/{sta}.xml with the new sensor's gain.")
        probes.append(
            Probe(
                "artifact",
                f"What is the state of metadata/stations/{sta}.xml?",
                "Modified: it has the new sensor's gain.",
                (
                    (f"{sta}.xml",),
                    _alts("updated|modified|changed|edited|fixed|corrected"),
                ),
            )
        )

    def art_gapreport() -> None:
        t.tool(
            "Writing a gap report script for the quarterly numbers.",
            "write_file",
            {"path": "qc/gap_report.py"},
            "wrote 74 lines",
        )
        t.say("Created qc/gap_report.py (gap counts and completeness per channel).")
        probes.append(
            Probe(
                "artifact",
                "What happened to qc/gap_report.py?",
                "It was created (gap counts and completeness per channel).",
                (("gap_report.py",), _alts("created|new|added|wrote|written")),
            )
        )

    def art_testfail() -> None:
        t.tool(
            "Picker tests:",
            "bash",
            {"command": "pytest -q tests/test_picker.py"},
            _pytest(
                rng,
                "tests/test_picker.py",
                rng.randint(6, 14),
                [
                    ("test_pick_emergent_onset", "assert 3.42 == approx(3.1 ± 0.05)"),
                    ("test_no_pick_on_spike", "AssertionError: expected no pick"),
                ],
            ),
        )
        t.say("Two picker tests fail; I'm leaving them until the filter question is settled.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of tests/test_picker.py?",
                "Two tests fail, left until the filter question is settled.",
                (("test_picker.py",), _alts("fail|red|broken")),
            )
        )

    def art_deleted() -> None:
        conf = f"{sta.lower()}_legacy.conf"
        t.tool(
            "Removing the legacy stream config that duplicates the station.",
            "bash",
            {"command": f"git rm seedlink/streams.d/{conf}"},
            f"rm 'seedlink/streams.d/{conf}'",
        )
        t.say(f"Deleted seedlink/streams.d/{conf}; it was requesting the same streams twice.")
        probes.append(
            Probe(
                "artifact",
                f"What happened to seedlink/streams.d/{conf}?",
                "It was deleted (it requested the same streams twice).",
                ((conf,), _alts("deleted|removed|git rm|dropped")),
            )
        )

    extra = (
        " For now auto-publish anything M2.5 and up, same as before." if dec == "magnitude" else ""
    )

    def decision_a() -> None:
        if dec == "bandpass":
            t.say(
                "On the picker: I'd switch its pre-filter to a 1-20 Hz bandpass (it's 2-15 now); "
                "the emergent onsets at the far stations get lost below 2 Hz. Want me to go ahead?"
            )
            t.user("yes, do that")

    def decision_b() -> None:
        if dec == "magnitude":
            t.user(
                "actually make the auto-publish cutoff 3.0, the 2.5s during blasting hours "
                "flooded the feed last week. anything below 3.0 goes to analyst review first"
            )
            t.say("Done in config: auto-publish at M3.0 and up, below that analyst review.")
            probes.append(
                Probe(
                    "decision",
                    "What is the magnitude cutoff for auto-publishing to the public feed?",
                    "M3.0 and up (the user raised it from 2.5); smaller events go to analyst "
                    "review first.",
                    (
                        _alts("3.0|3,0|m3|m 3|magnitude 3"),
                        _alts("publish|public|feed|auto"),
                    ),
                )
            )
        elif dec == "bandpass":
            probes.append(
                Probe(
                    "decision",
                    "What pre-filter does the picker use?",
                    "A 1-20 Hz bandpass (was 2-15): the agent's proposal, approved.",
                    (
                        _alts("1-20|1–20|1 to 20|1 and 20|1 - 20"),
                        _alts("hz|bandpass|band-pass|filter|picker"),
                    ),
                )
            )
        else:
            t.say(
                "While I'm in the archive: we could move it to the BUD layout, which the "
                "ringserver can write directly. Shall I?"
            )
            t.user(
                "no, keep the archive in SDS layout. everyone downstream reads SDS and I don't "
                "want to rewrite their scripts"
            )
            t.say("OK, the archive stays SDS.")
            probes.append(
                Probe(
                    "decision",
                    "Which layout does the waveform archive keep?",
                    "SDS (the agent's suggestion of BUD was rejected).",
                    (("sds",), _alts("archive|layout|keep|stay")),
                )
            )

    month = rng.randint(1, 12)
    day = rng.randint(2, 28)

    def next_step() -> None:
        en = _EN_MONTHS[month - 1]
        if nxt == "report":
            t.user(
                f"reminder: the quarterly report to the state survey is due {en} {day}, it "
                "needs the gap stats per station"
            )
            t.close(f"Noted: quarterly report due {en} {day}, with per-station gap stats.")
            probes.append(
                Probe(
                    "next_step",
                    "What deadline is ahead?",
                    f"The quarterly report to the state survey is due {en} {day}, with the "
                    "per-station gap statistics.",
                    (
                        _date_needles(year, month, day),
                        _alts("report|quarterly|survey|gap"),
                    ),
                )
            )
        elif nxt == "modem":
            t.user(
                f"they swap the modem at {sta} on Thursday. if it still shows gaps after that, "
                "open a ticket with the telemetry vendor"
            )
            t.close("Will check the gaps after Thursday's swap and open a ticket if needed.")
            probes.append(
                Probe(
                    "next_step",
                    "What is to be done after the modem swap?",
                    f"If {sta} still shows gaps after Thursday's modem swap, open a ticket with "
                    "the telemetry vendor.",
                    ((sta,), _alts("ticket|vendor|telemetry")),
                )
            )
        else:
            t.say(
                "Next from me: I'll rerun the magnitudes of last night's events with the "
                "corrected gain and post the new values in #seis-ops."
            )
            t.user("great")
            t.close("On it.")
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent commit to do next?",
                    "Rerun the magnitudes of last night's events with the corrected gain and "
                    "post the new values in #seis-ops.",
                    (
                        _alts("rerun|re-run|recompute|recalculat|redo"),
                        ("magnitude", "gain"),
                    ),
                )
            )

    ids = {
        "channel": id_channel,
        "event": id_event,
        "serial": id_serial,
        "commit": id_commit,
        "ticket": id_ticket,
    }
    arts = {
        "xml": art_xml,
        "gapreport": art_gapreport,
        "testfail": art_testfail,
        "deleted": art_deleted,
    }
    id_steps = [ids[k] for k in rng.sample(sorted(ids), 3)]
    art_steps = [arts[k] for k in rng.sample(sorted(arts), 2)]
    t.user(
        f"Morning. Two things for the network today: {sta} has been dropping packets since the "
        "weekend, and the auto-publish to the public feed needs a look, we had a pile of junk "
        f"events.{extra} Repo is seisops (ObsPy scripts + SeedLink configs).\n- {who}"
    )
    t.say("Starting with the SeedLink side.")
    sprinkle(1)
    id_steps[0]()
    sprinkle(1)
    art_steps[0]()
    decision_a()
    id_steps[1]()
    sprinkle(1)
    decision_b()
    art_steps[1]()
    id_steps[2]()
    sprinkle(1)
    next_step()
    opening = t.take()
    return opening, segments_of(rng, b, segments, lambda r: _seismic_filler(t, r)), probes


def _seismic_filler(t: _Talk, rng: random.Random) -> None:
    task = rng.randrange(5)
    sta = rng.choice(_SEIS_FILLER_STATIONS)
    if task == 0:
        t.user(f"can you make a PPSD plot for {sta} for last month? for the site report")
        t.tool(
            "Computing the PPSD.",
            "bash",
            {"command": f"python qc/ppsd.py --station {sta} --days 30"},
            f"processed {rng.randint(600, 720)} hours, wrote plots/{sta}_ppsd.png",
        )
        t.close(f"PPSD plot for {sta} is in plots/.")
    elif task == 1:
        t.user("bump obspy, there's a new release")
        t.tool(
            "Upgrading and running the inventory tests.",
            "bash",
            {"command": "pip install -U obspy && pytest -q tests/test_inventory.py"},
            _pytest(rng, "tests/test_inventory.py", rng.randint(8, 20), []),
        )
        t.close("ObsPy upgraded, inventory tests pass.")
    elif task == 2:
        t.user("what's the data completeness for the strong-motion network this month?")
        t.tool(
            "Checking completeness.",
            "bash",
            {"command": "python qc/completeness.py --net SM --month current"},
            f"SM completeness: {rng.uniform(93, 99.9):.1f}%",
        )
        t.close("Strong-motion completeness is in the output above.")
    elif task == 3:
        t.user(f"someone asked for the coordinates of {sta}, what do we have?")
        t.tool(
            "Reading the inventory.",
            "bash",
            {
                "command": 'python -c "from obspy import read_inventory as r; '
                f"print(r('metadata/{sta}.xml')[0][0])\""
            },
            f"Station {sta}\n\tLatitude: {rng.uniform(34, 37):.4f}, Longitude: "
            f"{-rng.uniform(95, 99):.4f}, Elevation: {rng.randint(200, 600)} m",
        )
        t.close(f"Those are {sta}'s coordinates from the inventory.")
    else:
        t.user("the README still says python 3.9, fix that")
        t.tool(
            "Updating the README.",
            "edit_file",
            {"path": "README.md", "new": "Requires Python 3.11+"},
            "edited README.md (+1 -1)",
        )
        t.close("README now says Python 3.11+.")


# ------------------------------------------------------------------ observatory


def _airmass(rng: random.Random) -> str:
    """An unremarkable airmass for the log (never 1.6x, the limit a user may set)."""
    return f"{rng.choice((1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.7, 1.8)) + rng.randint(0, 94) / 1000:.2f}"


def _observatory(rng: random.Random, b: Builder, segments: int) -> Parts:
    t = _Talk(b)
    year = rng.choice((2025, 2026))
    who = rng.choice(("Priya", "Jonas", "Aiko", "Rafael", "Helen"))
    sem = f"{year}{rng.choice('AB')}"
    props = _distinct(rng, 4, lambda r: f"R2M-{sem}-Q-{r.randint(1, 199):03d}")
    prop = props[0]
    obs = _distinct(rng, 5, lambda r: f"OB-{r.randint(1_000_000, 9_999_999)}")
    ob = obs[0]
    tns = f"AT {year}{token(rng, 3, string.ascii_lowercase)}"
    gaia = str(rng.randint(10**18, 7 * 10**18))
    month = rng.randint(1, 12)
    day = rng.randint(1, 28)
    superevent = f"S{year % 100}{month:02d}{day:02d}{token(rng, 2, string.ascii_lowercase)}"
    dec = rng.choice(("airmass", "moon", "too"))
    nxt = rng.choice(("phase2", "seeing", "zeropoint"))
    probes: list[Probe] = []

    def noise_log() -> None:
        lines = [
            f"{_clock(rng)} INFO  scheduler  {o} ({p}) score={rng.uniform(0.1, 0.9):.3f} "
            f"airmass={_airmass(rng)}"
            for o, p in zip(obs[1:], rng.choices(props[1:], k=4), strict=True)
        ]
        t.tool(
            "Scheduler decisions from last night:",
            "bash",
            {"command": "grep 'scheduler' logs/night.log | tail -n 4"},
            _retime(rng, lines),
        )

    def noise_weather() -> None:
        t.tool(
            "Weather station:",
            "http_request",
            {"method": "GET", "url": "http://wx.robo2m.local/api/current"},
            _j(
                {
                    "seeing_arcsec": round(rng.uniform(0.8, 2.6), 2),
                    "humidity": rng.randint(20, 85),
                    "wind_ms": round(rng.uniform(0, 14), 1),
                    "dome": rng.choice(("open", "closed")),
                }
            ),
        )

    def noise_chat() -> None:
        t.user(
            rng.choice(
                (
                    "the dome camera is flaky again, ignore those warnings",
                    "please don't push to main after 17:00 UTC, the telescope pulls at 18:00",
                    "the exoplanet PI emailed again, I'll deal with him",
                    "back in 20 min, keep going",
                )
            )
        )
        t.say(rng.choice(("Noted.", "OK, continuing.", "Sure.")))

    def noise_git() -> None:
        t.tool(
            "Where the repo stands:",
            "bash",
            {"command": "git status --short && git log --oneline -3"},
            f" M scheduler/score.py\n{hexits(rng, 7)} Weight by remaining time\n"
            f"{hexits(rng, 7)} Log rejected blocks\n{hexits(rng, 7)} Bump astropy",
        )

    def noise_tests() -> None:
        t.tool(
            "Running the constraint tests that don't touch the moon.",
            "bash",
            {"command": "pytest -q tests/test_twilight.py tests/test_score.py"},
            _pytest(rng, "tests/test_twilight.py", rng.randint(8, 24), []),
        )

    noise = [noise_log, noise_weather, noise_chat, noise_git, noise_tests]

    sprinkle = _sprinkler(rng, noise)

    def id_prop() -> None:
        t.user(
            f"the programme that keeps getting starved is {prop}, the transient monitoring "
            "one. its PI is not happy"
        )
        t.say(f"I'll trace why {prop} loses out in the scoring.")
        probes.append(
            Probe(
                "identifier",
                "Which programme keeps getting starved by the scheduler?",
                prop,
                ((prop,),),
            )
        )

    def id_ob() -> None:
        t.tool(
            "Finding the spectroscopy block that went in low.",
            "bash",
            {"command": "grep -n 'airmass=2' logs/night.log"},
            f"{_clock(rng)} INFO  scheduler  {ob} ({props[1]}) score=0.912 airmass=2.31 "
            "instrument=spec",
        )
        t.say(f"The block that went in at airmass 2.31 is {ob}.")
        probes.append(
            Probe(
                "identifier",
                "Which observing block was scheduled at airmass 2.31?",
                ob,
                ((ob,),),
            )
        )

    def id_tns() -> None:
        t.user(f"also add {tns} to the monitoring list, the PI emailed about it this morning")
        t.say(f"Adding {tns} to the monitoring list.")
        probes.append(
            Probe(
                "identifier",
                "Which transient is to be added to the monitoring list?",
                tns,
                ((tns,),),
            )
        )

    def id_gaia() -> None:
        t.tool(
            "Picking a guide star for that field.",
            "bash",
            {"command": "python tools/guide_star.py --field current --mag-max 13"},
            f"Gaia DR3 {gaia}  G={rng.uniform(10.5, 12.9):.2f}  sep={rng.uniform(2, 6):.1f}'",
        )
        t.say(f"Guide star: Gaia DR3 {gaia}.")
        probes.append(
            Probe(
                "identifier",
                "Which Gaia DR3 source is the guide star?",
                gaia,
                ((gaia,),),
            )
        )

    def id_super() -> None:
        t.tool(
            "The ToO that interrupted the night came in over the alert stream:",
            "bash",
            {"command": "kcat -C -t igwn.gwalert -o -1 -e | jq '{superevent_id, alert_type}'"},
            _j({"superevent_id": superevent, "alert_type": "PRELIMINARY"}),
        )
        t.say(f"The ToO trigger came from superevent {superevent}.")
        probes.append(
            Probe(
                "identifier",
                "Which gravitational-wave superevent triggered last night's ToO?",
                superevent,
                ((superevent,),),
            )
        )

    def art_airmass() -> None:
        t.tool(
            "The limit was read per block, but the check ran against the start time only.",
            "edit_file",
            {"path": "scheduler/airmass.py", "new": "return max(airmass(t) for t in span)"},
            "edited scheduler/airmass.py (+12 -3)",
        )
        t.say("scheduler/airmass.py now checks the airmass over the whole block, not the start.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of scheduler/airmass.py?",
                "Modified: the airmass is checked over the whole block, not only at its start.",
                (
                    ("airmass.py",),
                    _alts("modified|changed|updated|edited|fixed|now checks"),
                ),
            )
        )

    def art_filter() -> None:
        t.tool(
            "Adding the z filter definition.",
            "write_file",
            {"path": "config/filters/sloan_z.yaml"},
            "wrote 18 lines",
        )
        t.say("Created config/filters/sloan_z.yaml.")
        probes.append(
            Probe(
                "artifact",
                "What happened to config/filters/sloan_z.yaml?",
                "It was created.",
                (("sloan_z.yaml",), _alts("created|new|added|wrote")),
            )
        )

    def art_testfail() -> None:
        t.tool(
            "Moon constraint tests:",
            "bash",
            {"command": "pytest -q tests/test_moon_constraint.py"},
            _pytest(
                rng,
                "tests/test_moon_constraint.py",
                rng.randint(4, 10),
                [("test_full_moon_blocks_g", "assert 41.2 >= 45")],
            ),
        )
        t.say("One test in test_moon_constraint.py fails; it encodes the old separations.")
        probes.append(
            Probe(
                "artifact",
                "What is the state of tests/test_moon_constraint.py?",
                "One test fails (it encodes the old separations).",
                (("test_moon_constraint.py",), _alts("fail|red|broken")),
            )
        )

    def art_deleted() -> None:
        t.tool(
            "The old priority module is dead code since the scoring rewrite.",
            "bash",
            {"command": "git rm scheduler/legacy_priority.py"},
            "rm 'scheduler/legacy_priority.py'",
        )
        t.say("Deleted scheduler/legacy_priority.py.")
        probes.append(
            Probe(
                "artifact",
                "What happened to scheduler/legacy_priority.py?",
                "It was deleted (dead code since the scoring rewrite).",
                (("legacy_priority.py",), _alts("deleted|removed|git rm|dropped")),
            )
        )

    extra = (
        " Keep the global airmass limit at 2.0 for everything for now." if dec == "airmass" else ""
    )

    def decision_a() -> None:
        if dec == "moon":
            t.say(
                "Proposal for the moon constraint: separation of at least 30° for z-band and "
                "45° for g and r; today it's a flat 45°, which blocks z all week around full "
                "moon. OK?"
            )
            t.user("sounds right, go ahead")

    def decision_b() -> None:
        if dec == "airmass":
            t.user(
                "hm, actually for the spectrograph programmes cap it at 1.6 - slit losses are "
                "awful above that. imaging can stay at 2.0"
            )
            t.say("Got it: spectroscopy airmass limit 1.6, imaging 2.0.")
            probes.append(
                Probe(
                    "decision",
                    "What airmass limit applies to spectroscopy?",
                    "1.6 for the spectrograph programmes (imaging stays at 2.0).",
                    (("1.6", "1,6"), ("airmass",)),
                )
            )
        elif dec == "moon":
            probes.append(
                Probe(
                    "decision",
                    "What moon separation is required in z-band?",
                    "At least 30° for z-band (45° for g and r): the agent's proposal, approved.",
                    (
                        _alts("30°|30 deg|30deg|≥30|≥ 30|>= 30|30 degree"),
                        ("moon",),
                    ),
                )
            )
        else:
            t.say(
                "Question before I touch the interrupt logic: should a ToO trigger preempt "
                "everything, the twilight calibrations included?"
            )
            t.user(
                "ToO triggers preempt everything except the standard-star sequence at "
                "twilight. that one always runs"
            )
            t.say("Understood: ToOs preempt all blocks except the twilight standard stars.")
            probes.append(
                Probe(
                    "decision",
                    "What may a ToO trigger not preempt?",
                    "The standard-star sequence at twilight; it preempts everything else.",
                    (
                        ("standard",),
                        _alts("too|target of opportunity|preempt|interrupt|override"),
                    ),
                )
            )

    dmonth = rng.randint(1, 12)
    dday = rng.randint(1, 28)

    def next_step() -> None:
        en = _EN_MONTHS[dmonth - 1]
        if nxt == "phase2":
            t.user(
                f"Phase 2 closes {dday} {en}. the scheduler has to accept the new OB template "
                "before that or the PIs can't submit"
            )
            t.close(f"Noted: the new OB template has to be accepted before {dday} {en}.")
            probes.append(
                Probe(
                    "next_step",
                    "What deadline is ahead?",
                    f"Phase 2 closes {dday} {en}; the scheduler must accept the new OB template "
                    "before then.",
                    (
                        _date_needles(year, dmonth, dday),
                        _alts("phase 2|phase ii|phase-2|template"),
                    ),
                )
            )
        elif nxt == "seeing":
            t.user(
                "if the seeing tonight is worse than 2 arcsec, swap the spectroscopy block for "
                "the photometric backup"
            )
            t.close("I'll watch the seeing and swap to the backup if it goes above 2\".")
            probes.append(
                Probe(
                    "next_step",
                    "What is to be done tonight if the seeing is bad?",
                    "If the seeing is worse than 2 arcsec, swap the spectroscopy block for the "
                    "photometric backup.",
                    (("seeing",), _alts("backup|swap|replace")),
                )
            )
        else:
            t.say(
                "Next from me: I'll reduce last night's z-band frames and post the zero-points "
                "to the night log."
            )
            t.user("perfect, thanks")
            t.close("Will do.")
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent commit to do next?",
                    "Reduce last night's z-band frames and post the zero-points to the night log.",
                    (
                        _alts("zero-point|zero point|zeropoint|zp"),
                        _alts("z-band|z band|night log|reduc"),
                    ),
                )
            )

    ids = {"prop": id_prop, "ob": id_ob, "tns": id_tns, "gaia": id_gaia, "super": id_super}
    arts = {
        "airmass": art_airmass,
        "filter": art_filter,
        "testfail": art_testfail,
        "deleted": art_deleted,
    }
    id_steps = [ids[k] for k in rng.sample(sorted(ids), 3)]
    art_steps = [arts[k] for k in rng.sample(sorted(arts), 2)]
    t.user(
        "Hi - the queue scheduler keeps starving some programmes, and last night it put a "
        "spectroscopy block in at airmass 2.3. Can you dig in? Repo is robo2m-scheduler."
        f"{extra}\n{who}"
    )
    t.say("Looking at last night's scheduler log first.")
    sprinkle(1)
    id_steps[0]()
    decision_a()
    sprinkle(1)
    art_steps[0]()
    id_steps[1]()
    sprinkle(1)
    art_steps[1]()
    decision_b()
    sprinkle(1)
    id_steps[2]()
    sprinkle(1)
    next_step()
    opening = t.take()
    return opening, segments_of(rng, b, segments, lambda r: _observatory_filler(t, r)), probes


def _observatory_filler(t: _Talk, rng: random.Random) -> None:
    task = rng.randrange(5)
    if task == 0:
        t.user("can you make the night summary email include the dome open fraction?")
        t.tool(
            "Adding the field.",
            "edit_file",
            {"path": "reports/night_summary.py", "new": "dome_open = open_s / night_s"},
            "edited reports/night_summary.py (+7 -1)",
        )
        t.close("The night summary now includes the dome-open fraction.")
    elif task == 1:
        t.user("bump astropy, the IERS warning is annoying")
        t.tool(
            "Upgrading and running the twilight tests.",
            "bash",
            {"command": "pip install -U astropy && pytest -q tests/test_twilight.py"},
            _pytest(rng, "tests/test_twilight.py", rng.randint(8, 20), []),
        )
        t.close("Astropy upgraded; the twilight tests pass.")
    elif task == 2:
        t.user("how many hours did we lose to weather last month?")
        t.tool(
            "Summing closed-dome time.",
            "sql",
            {
                "query": "select sum(closed_h) from nights "
                "where month = date_trunc('month', now()) - interval '1 month'"
            },
            f" sum\n-----\n {rng.uniform(20, 140):.1f}",
        )
        t.close("That's last month's weather loss in hours.")
    elif task == 3:
        t.user("the flat-field lamp log is spamming, turn it down to warnings")
        t.tool(
            "Lowering the log level.",
            "edit_file",
            {"path": "config/logging.yaml", "new": "calib.lamps: WARNING"},
            "edited config/logging.yaml (+1 -1)",
        )
        t.close("The lamp logger now only logs warnings.")
    else:
        t.user("what's the current focus offset for the imager?")
        t.tool(
            "Reading the focus model.",
            "bash",
            {"command": "python tools/focus.py --show"},
            f"imager focus offset: {rng.uniform(-40, 40):.1f} um at {rng.uniform(2, 15):.1f} C",
        )
        t.close("That's the imager's current focus offset.")


# ------------------------------------------------------------------ the set

_TEMPLATES: dict[str, Template] = {
    "skolval_sv": _skolval,
    "aquafarm_vi": _aquafarm,
    "pazaryeri_tr": _pazaryeri,
    "cafe_coop_es": _cafe,
    "seismic_net": _seismic,
    "observatory": _observatory,
}

HELDOUT7_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout7(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The seventh held-out set's session of ``kind`` for ``seed`` (deterministic)."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout7:", label="heldout7"
    )

"""The thirteenth held-out set: six kinds written blind to the compaction code, the fact
ledger and the other sets.

``jedrilica_unity_hr``
    a Split studio's Unity/C# regatta game (git bisect, Unity batchmode tests, jira-cli),
    in Croatian;
``sandelis_amtool_lt``
    a Kaunas warehouse's Prometheus/Alertmanager on Kubernetes (amtool, promtool,
    kubectl, pd), in Lithuanian;
``sagardotegi_psql_eu``
    a cider house's reservation database on Postgres (psql, pg_dump, pg_restore), in
    Basque;
``batik_shopify_ms``
    a Kelantan batik shop's Shopify theme and Admin API (shopify CLI, GraphQL), in Malay;
``paat_maven_bn``
    a jute exporter's Spring Boot shipment service (Maven, Surefire, Flyway, Nexus), in
    Bengali;
``saun_pulumi_et``
    a sauna rental platform's Azure infrastructure in Pulumi TypeScript (pulumi, az), in
    Estonian.

Each opening plants three identifiers of different types, two artifacts (told by the
tool's output, by the agent's words or by both, as the seed says), one decision (dictated,
corrected later, an approved or modified proposal, relayed from a colleague, or the
answer to the agent's question) and one open next step (the user's, with a deadline or a
condition, sometimes in passing, or the agent's promise), among decoys, in a seeded
order.
"""

# Tool outputs and prose are kept as the tools and people write them, long lines included.
# ruff: noqa: E501

from __future__ import annotations

import random
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
    noise_lines,
    segments_of,
    token,
)

__all__ = ["HELDOUT13_KINDS", "generate_heldout13"]

_Block = Callable[[], None]
_Line = Callable[[random.Random], str]


@dataclass(frozen=True)
class _Call:
    """One tool call: the agent's words before it, the tool, its input, its output."""

    text: str
    tool: str
    args: dict[str, object]
    output: str


@dataclass(frozen=True)
class _Art:
    """An artifact and what happened to it, told loudly (by a tool) or quietly."""

    name: str
    words: tuple[str, ...]
    asks: tuple[str, ...]
    loud: _Call
    quiet: _Call
    said: tuple[str, ...]
    question: str
    answer: str


@dataclass(frozen=True)
class _Choice:
    """A decision: its values (aliases, first shown), the words of its topic, phrasings."""

    values: tuple[tuple[str, ...], ...]
    topic: tuple[str, ...]
    question: str
    prompt: tuple[str, ...]
    dictate: tuple[str, ...]
    early: tuple[str, ...]
    override: tuple[str, ...]
    propose: tuple[str, ...]
    yes: tuple[str, ...]
    modify: tuple[str, ...]
    relay: tuple[str, ...]
    ask: tuple[str, ...]
    reply: tuple[str, ...]
    ack: tuple[str, ...]


@dataclass(frozen=True)
class _Todo:
    key: tuple[str, ...]
    verbs: tuple[str, ...]
    task: str
    task_en: str


@dataclass(frozen=True)
class _Steps:
    todos: tuple[_Todo, ...]
    whens: tuple[tuple[str, str], ...]
    mine: tuple[str, ...]
    theirs: tuple[str, ...]
    prompts: tuple[str, ...]
    acks: tuple[str, ...]
    passing: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Fill:
    asks: tuple[str, ...]
    text: str
    tool: str
    args: Callable[[random.Random], dict[str, object]]
    line: _Line
    replies: tuple[str, ...]


_PENDING = ("pending", "todo", "to do", "next step", "remind", "deadline", "promise")


def _identifier(question: str, value: str) -> Probe:
    return Probe("identifier", question, value, ((value,),))


def _artifact(
    rng: random.Random, b: Builder, art: _Art, neutral: tuple[str, ...]
) -> tuple[_Block, Probe]:
    mode = rng.choice(("tool", "words", "both"))

    def write() -> None:
        b.user(rng.choice(art.asks))
        call = art.quiet if mode == "words" else art.loud
        b.tool(call.text, call.tool, call.args, call.output)
        b.assistant(rng.choice(neutral) if mode == "tool" else rng.choice(art.said))

    return write, Probe("artifact", art.question, art.answer, ((art.name,), art.words))


_HOW = {
    "dictated": "the user dictated it",
    "corrected": "the user first asked for {r}, then corrected it to {v}",
    "approved": "the agent proposed it and the user approved with a short yes",
    "modified": "the agent proposed {r}; the user changed it to {v}",
    "relayed": "relayed by the user from a colleague",
    "answered": "the user's answer to the agent's question ({v} or {r})",
}

_ASKED = {
    "dictated": "{q}",
    "corrected": "{q} (the user changed an earlier instruction)",
    "approved": "{q} (the agent suggested something)",
    "modified": "{q} (the user amended the agent's proposal)",
    "relayed": "{q} (a colleague's view was passed on)",
    "answered": "{q} (the agent asked the user)",
}


def _decision(rng: random.Random, b: Builder, c: _Choice) -> tuple[_Block, _Block | None, Probe]:
    vi, ri = rng.sample(range(len(c.values)), 2)
    v, r = c.values[vi][0], c.values[ri][0]
    mode = rng.choice(tuple(_HOW))

    def f(options: tuple[str, ...], value: str = v, other: str = r) -> str:
        return rng.choice(options).format(v=value, r=other)

    later: _Block | None = None
    if mode == "dictated":

        def first() -> None:
            b.user(f(c.dictate))
            b.assistant(f(c.ack))

    elif mode == "corrected":

        def first() -> None:
            b.user(f(c.early, r, v))
            b.assistant(f(c.ack, r, v))

        def later() -> None:
            b.user(f(c.override))
            b.assistant(f(c.ack))

    elif mode == "approved":

        def first() -> None:
            b.user(f(c.prompt))
            b.assistant(f(c.propose))
            b.user(f(c.yes))
            b.assistant(f(c.ack))

    elif mode == "modified":

        def first() -> None:
            b.user(f(c.prompt))
            b.assistant(f(c.propose, r, v))
            b.user(f(c.modify))
            b.assistant(f(c.ack))

    elif mode == "relayed":

        def first() -> None:
            b.user(f(c.relay))
            b.assistant(f(c.ack))

    else:

        def first() -> None:
            b.user(f(c.prompt))
            a, z = (v, r) if rng.random() < 0.5 else (r, v)
            b.assistant(f(c.ask, a, z))
            b.user(f(c.reply))
            b.assistant(f(c.ack))

    question = _ASKED[mode].format(q=c.question)
    answer = f"{v} ({_HOW[mode].format(v=v, r=r)})"
    return first, later, Probe("decision", question, answer, (c.values[vi], c.topic))


def _next_step(rng: random.Random, b: Builder, s: _Steps) -> tuple[_Block, Probe]:
    todo = rng.choice(s.todos)
    when, when_en = rng.choice(s.whens)
    mode = rng.choice(("user", "agent", "passing"))

    def line(options: tuple[str, ...]) -> str:
        return rng.choice(options).format(task=todo.task, when=when)

    def write() -> None:
        if mode == "agent":
            b.user(rng.choice(s.prompts))
            b.assistant(line(s.mine))
            return
        said = line(s.theirs)
        if mode == "passing":
            before, after = rng.choice(s.passing)
            said = f"{before} {said} {after}"
        b.user(said)
        b.assistant(rng.choice(s.acks))

    owner = "the agent promised it" if mode == "agent" else "the user's (or the team's) step"
    question = f"What is still to be done about: {todo.task_en}?"
    answer = f"{todo.task_en}, {when_en} ({owner})"
    return write, Probe("next_step", question, answer, (todo.key, (*todo.verbs, *_PENDING)))


def _filler(b: Builder, fills: tuple[_Fill, ...]) -> Callable[[random.Random], None]:
    def write(rng: random.Random) -> None:
        fill = rng.choice(fills)
        b.user(rng.choice(fill.asks))
        b.tool(fill.text, fill.tool, fill.args(rng), noise_lines(rng, rng.randint(4, 9), fill.line))
        b.assistant(rng.choice(fill.replies))

    return write


def _assemble(
    rng: random.Random,
    first: _Block,
    middle: list[_Block],
    later: list[tuple[_Block, _Block | None]],
) -> None:
    order = list(middle)
    rng.shuffle(order)
    for anchor, block in later:
        if block is not None:
            order.insert(rng.randint(order.index(anchor) + 1, len(order)), block)
    first()
    for block in order:
        block()


def _cmd(command: str) -> dict[str, object]:
    return {"command": command}


def _hhmmss(rng: random.Random) -> str:
    return f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


# --- jedrilica_unity_hr: a Split studio's Unity regatta game, in Croatian -------------

_HR_NEUTRAL = (
    "U redu, to je to. Idemo dalje.",
    "Gotovo, izlaz je gore.",
    "Ok. Nastavljam s ostatkom.",
    "Vidi izlaz iznad — nastavljam.",
)

_HR_ARTS = (
    _Art(
        "WindGustSampler.cs",
        ("modif", "edit", "chang", "updat", "izmijen", "promijen", "ažurira", "preprav"),
        (
            "Popravi uzorkovanje udara vjetra — neka se šum računa po fiksnom koraku, ne po frameu.",
            "Ajde popravi sampler udara vjetra, Perlin mora ići iz `Time.fixedTime`.",
        ),
        _Call(
            "Mijenjam sampler i gledam status.",
            "bash",
            _cmd("git status"),
            "On branch bugfix/wind-jitter\nChanges not staged for commit:\n"
            '  (use "git add <file>..." to update what will be committed)\n'
            '  (use "git restore <file>..." to discard changes in working directory)\n'
            "\tmodified:   Assets/Scripts/Weather/WindGustSampler.cs\n\n"
            'no changes added to commit (use "git add" and/or "git commit -a")',
        ),
        _Call(
            "Mijenjam uzorkovanje.",
            "str_replace",
            {
                "path": "Assets/Scripts/Weather/WindGustSampler.cs",
                "old_str": "float n = Mathf.PerlinNoise(Time.time * freq, seed);",
                "new_str": "float n = Mathf.PerlinNoise(Time.fixedTime * freq, seed);",
            },
            "OK",
        ),
        (
            "Izmijenio sam `WindGustSampler.cs`: šum se sada uzorkuje u `FixedUpdate` s "
            "korakom 0.02 s, a ne po frameu.",
            "Gotovo. **WindGustSampler.cs** — promijenjen: Perlin se računa iz "
            "`Time.fixedTime`, a između koraka se interpolira.",
            "| Datoteka | Stanje |\n|---|---|\n| `WindGustSampler.cs` | izmijenjen (+11 −7) |",
            "U datoteci `WindGustSampler.cs`, onoj istoj koju je Marko dirao u lošem commitu, "
            "uzorkovanje sam premjestio u FixedUpdate; izmijenjena je samo ta jedna metoda.",
        ),
        "What happened to WindGustSampler.cs?",
        "it was modified (noise sampled per fixed step instead of per frame)",
    ),
    _Art(
        "HarborLegacy.prefab",
        ("delet", "remov", "obrisa", "izbrisa", "uklonj", "brisan", "maknu"),
        (
            "Stari prefab luke više ne koristimo, makni ga skupa s .meta datotekom.",
            "HarborLegacy prefab je mrtav, obriši ga.",
        ),
        _Call(
            "Brišem prefab i provjeravam.",
            "bash",
            _cmd(
                "git rm -q Assets/Prefabs/HarborLegacy.prefab "
                "Assets/Prefabs/HarborLegacy.prefab.meta && git status"
            ),
            "On branch bugfix/wind-jitter\nChanges to be committed:\n"
            '  (use "git restore --staged <file>..." to unstage)\n'
            "\tdeleted:    Assets/Prefabs/HarborLegacy.prefab\n"
            "\tdeleted:    Assets/Prefabs/HarborLegacy.prefab.meta",
        ),
        _Call(
            "Mičem ga.",
            "bash",
            _cmd("rm Assets/Prefabs/HarborLegacy.prefab Assets/Prefabs/HarborLegacy.prefab.meta"),
            "(no output, exit code 0)",
        ),
        (
            "Obrisao sam `HarborLegacy.prefab` (i njegov `.meta`).",
            "**HarborLegacy.prefab** je uklonjen; nijedna scena ga više nije referencirala.",
            "Prefab `HarborLegacy.prefab`, na koji se pozivala samo stara scena `Luka_old`, sada "
            "je izbrisan iz repozitorija.",
        ),
        "What happened to HarborLegacy.prefab?",
        "it was deleted (with its .meta file)",
    ),
    _Art(
        "RegattaTimerTests",
        ("fail", "pada", "padaj", "pao", "ne prolaz", "neuspje", "crven", "puca"),
        ("Pokreni EditMode testove.", "Vrti testove, da vidimo je li sve zeleno."),
        _Call(
            "Pokrećem EditMode testove u batchmodeu.",
            "bash",
            _cmd(
                "Unity -batchmode -nographics -projectPath . -runTests -testPlatform EditMode "
                "-testResults /tmp/editmode.xml; grep 'result=\"Failed\"' /tmp/editmode.xml"
            ),
            '<test-run id="2" testcasecount="148" result="Failed(Child)" total="148" '
            'passed="146" failed="2" inconclusive="0" skipped="0" asserts="0">\n'
            '<test-case id="1042" name="Countdown_StartsAtFiveMinutes" '
            'fullname="Jedrilica.Tests.RegattaTimerTests.Countdown_StartsAtFiveMinutes" '
            'result="Failed" duration="0.0132">\n'
            '<test-case id="1047" name="Countdown_PausesOnProtest" '
            'fullname="Jedrilica.Tests.RegattaTimerTests.Countdown_PausesOnProtest" '
            'result="Failed" duration="0.0091">',
        ),
        _Call(
            "Pokrećem EditMode testove.",
            "bash",
            _cmd(
                "Unity -batchmode -nographics -projectPath . -runTests -testPlatform EditMode "
                "-testResults /tmp/editmode.xml -logFile - | tail -n 3"
            ),
            "Saving results to: /tmp/editmode.xml\nTest run completed. Exiting with code 2 "
            "(Failed). One or more tests failed.\nExiting without the bug reporter.",
        ),
        (
            "Dva testa u `RegattaTimerTests` padaju: `Countdown_StartsAtFiveMinutes` i "
            "`Countdown_PausesOnProtest` — oba očekuju stari korak vremena.",
            "Nije sve zeleno: **RegattaTimerTests** — 2 testa ne prolaze (odbrojavanje).",
            "- `RegattaTimerTests`: 2/14 crveno, ostalih 146 testova prolazi",
        ),
        "What is the state of the RegattaTimerTests suite?",
        "two tests fail (countdown tests)",
    ),
    _Art(
        "RegattaHud.uxml",
        ("creat", "new", "added", "stvor", "kreira", "napravi", "dodan", "dodao", "novi"),
        (
            "Treba nam novi HUD za regatu u UI Toolkitu: odbrojavanje i strelica vjetra.",
            "Složi UXML za regatni HUD, samo kostur.",
        ),
        _Call(
            "Pišem UXML.",
            "write_file",
            {
                "path": "Assets/UI/RegattaHud.uxml",
                "content": '<ui:UXML xmlns:ui="UnityEngine.UIElements">…',
            },
            "Created Assets/UI/RegattaHud.uxml (42 lines)",
        ),
        _Call(
            "Pišem UXML.",
            "write_file",
            {
                "path": "Assets/UI/RegattaHud.uxml",
                "content": '<ui:UXML xmlns:ui="UnityEngine.UIElements">…',
            },
            "ok: 42 lines, 1.7 KiB",
        ),
        (
            "Napravio sam novi `RegattaHud.uxml` s odbrojavanjem i strelicom vjetra.",
            "Dodan je `RegattaHud.uxml` (UI Toolkit); još nije spojen na scenu.",
            "UXML za regatni HUD — `RegattaHud.uxml`, u `Assets/UI/`, s dva labela i "
            "VisualElementom za strelicu — kreiran je, USS dolazi poslije.",
        ),
        "What happened to RegattaHud.uxml?",
        "it was created (new UI Toolkit HUD, not yet wired to a scene)",
    ),
    _Art(
        "SailTrim.controller",
        ("renam", "preimenova", "moved", "premješt", "novo ime"),
        (
            "Stari animator za jedra preimenuj u SailTrimLegacy, novi će zauzeti ime.",
            "SailTrim animator controller neka dobije sufiks Legacy.",
        ),
        _Call(
            "Preimenujem kroz git da se sačuva povijest.",
            "bash",
            _cmd(
                "git mv Assets/Animations/SailTrim.controller "
                "Assets/Animations/SailTrimLegacy.controller && git status --short"
            ),
            "R  Assets/Animations/SailTrim.controller -> Assets/Animations/SailTrimLegacy.controller\n"
            "R  Assets/Animations/SailTrim.controller.meta -> "
            "Assets/Animations/SailTrimLegacy.controller.meta\n\n"
            "renamed: Assets/Animations/SailTrim.controller -> "
            "Assets/Animations/SailTrimLegacy.controller",
        ),
        _Call(
            "Radim git mv.",
            "bash",
            _cmd(
                "git mv Assets/Animations/SailTrim.controller "
                "Assets/Animations/SailTrimLegacy.controller"
            ),
            "(no output, exit code 0)",
        ),
        (
            "Preimenovao sam `SailTrim.controller` u `SailTrimLegacy.controller` (i .meta).",
            "`SailTrim.controller` → `SailTrimLegacy.controller`: preimenovano, GUID ostaje isti.",
            "Animator `SailTrim.controller` — onaj koji koristi stara jedrilica klase Optimist "
            "— sada ima novo ime, `SailTrimLegacy.controller`.",
        ),
        "What happened to SailTrim.controller?",
        "it was renamed to SailTrimLegacy.controller",
    ),
)

_HR_CHOICE = _Choice(
    values=(("ASTC 6x6", "ASTC6x6", "6x6"), ("ASTC 8x8", "ASTC8x8", "8x8"), ("ETC2",)),
    topic=("compress", "kompres", "textur", "tekstur"),
    question="Which texture compression format is to be used for the Android build?",
    prompt=(
        "Koju kompresiju tekstura da stavimo za Android build?",
        "Što predlažeš za kompresiju tekstura na Androidu?",
    ),
    dictate=(
        "Za Android build kompresija tekstura neka bude {v}, ne {r} — stariji mobiteli "
        "inače ostanu bez memorije.",
        "Kompresija tekstura za Android: {v}. To je odlučeno, nemoj eksperimentirati.",
    ),
    early=("Za Android stavi kompresiju tekstura na {v}.",),
    override=(
        "Ipak ne {r}. Predomislio sam se — kompresija tekstura ide na {v}.",
        "Ispravak onog od prije: zaboravi {r}, za teksture na Androidu koristimo {v}.",
    ),
    propose=(
        "Predlažem kompresiju tekstura {v} za Android — dobar omjer kvalitete i veličine "
        "AAB-a. Može?",
        "Za teksture bih išao na {v}; tako smo ispod 150 MB. Slažeš se?",
    ),
    yes=("Da, može.", "Može.", "Ok, idemo tako."),
    modify=(
        "Ne {r}; kompresija tekstura neka bude {v}.",
        "Blizu, ali umjesto {r} stavi {v}.",
    ),
    relay=(
        "Ivana iz QA-a javlja da na testnim mobitelima {r} izgleda loše — za kompresiju "
        "tekstura idemo s {v}.",
        "Razgovarao sam s Tomislavom (tech art): kompresija tekstura {v}, {r} otpada.",
    ),
    ask=(
        "Koju kompresiju tekstura želiš za Android: {v} ili {r}?",
        "Pitanje prije builda: teksture u {v} ili {r}?",
    ),
    reply=("{v}.", "{v}, naravno.", "Neka bude {v}."),
    ack=(
        "Dogovoreno: kompresija tekstura za Android je {v}.",
        "U redu — kompresiju tekstura postavljam na {v} u Player Settings.",
    ),
)

_HR_STEPS = _Steps(
    todos=(
        _Todo(
            ("play console", "internal test", "interno test", "internu test"),
            ("upload", "učita", "postav", "objav", "poslat", "pošalj"),
            "učitati AAB na Play Console, na interno testiranje",
            "upload the AAB to Play Console internal testing",
        ),
        _Todo(
            ("develop",),
            ("merge", "spoj", "spaja"),
            "spojiti granu bugfix/wind-jitter u develop",
            "merge the bugfix/wind-jitter branch into develop",
        ),
        _Todo(
            ("release notes", "bilješke", "changelog"),
            ("writ", "napisa", "piš", "sastav", "draft"),
            "napisati release notes za 2.7.1 (changelog za trgovine)",
            "write the 2.7.1 release notes for the stores",
        ),
    ),
    whens=(
        ("do četvrtka u 10", "by Thursday 10:00"),
        ("čim Ivana odobri PR", "as soon as Ivana approves the PR"),
        ("prije sastanka u petak", "before Friday's meeting"),
        ("nakon što EditMode testovi budu zeleni", "once the EditMode tests are green"),
    ),
    mine=(
        "Kad ovo završimo, ja ću {when} {task} — to preuzimam.",
        "Otvoreno ostaje jedno: {when} ću {task}. Javit ću kad bude gotovo.",
        "Još nije gotovo: **{task}** — napravit ću to {when}.",
    ),
    theirs=(
        "Ne zaboravi: {when} treba {task}.",
        "Podsjeti me da {when} moramo {task}.",
        "Ja ću {when} {task}, ti samo pripremi build.",
    ),
    prompts=("Što nam još ostaje?", "Ima li još nešto otvoreno?"),
    acks=("Zapisano.", "Važi, imam to na popisu.", "Ok, zabilježio sam."),
    passing=(
        (
            "Super, hvala na bisectu. Usput, Marko je javio da mu Unity Hub opet traži licencu.",
            "Nego, koliki je sad AAB?",
        ),
        ("Dobro izgleda.", "I da, sutra radim od doma pa se čujemo na Slacku."),
    ),
)


def _hr_fills() -> tuple[_Fill, ...]:
    return (
        _Fill(
            (
                "Zašto shader za more baca warning u konzoli?",
                "Pogledaj warninge iz OceanSurface shadera.",
            ),
            "Tražim u Editor.logu.",
            "bash",
            lambda r: _cmd(
                f"grep -n 'OceanSurface' ~/Library/Logs/Unity/Editor.log | tail -n {r.randint(5, 9)}"
            ),
            lambda r: (
                f"{r.randint(1000, 9999)}:Shader warning in 'Jedrilica/OceanSurface': "
                f"floating point division by zero at line {r.randint(40, 220)} (on d3d11)"
            ),
            (
                "Warning je bezopasan: dijeljenje s nulom u grani koja se ne izvršava. Stavit ću "
                "`max(eps, x)` kad budemo dirali shader.",
                "To je stari warning iz OceanSurface, nema veze s vjetrom.",
            ),
        ),
        _Fill(
            (
                "Koliko traje import na čistom checkoutu?",
                "Provjeri koliko dugo Unity reimporta assete.",
            ),
            "Gledam AssetDatabase statistiku.",
            "bash",
            lambda r: _cmd("grep 'Asset Pipeline Refresh' Editor.log | tail"),
            lambda r: (
                f"Asset Pipeline Refresh (id={hexits(r, 32)}): Total: {r.randint(1, 90)}.{r.randint(100, 999)} "
                f"seconds - Initiated by RefreshV2(NoUpdateAssetOptions)"
            ),
            ("Refresh je uglavnom ispod minute; spori su samo oni nakon promjene platforme.",),
        ),
        _Fill(
            (
                "Pogledaj profiler za scenu Split_Riva.",
                "Koliko GC alokacija imamo po frameu u Split_Riva?",
            ),
            "Izvlačim profiler capture u tekst.",
            "bash",
            lambda r: _cmd("python tools/profiler_dump.py captures/split_riva.data --top 8"),
            lambda r: (
                f"{r.choice(['Camera.Render', 'PlayerLoop', 'Physics.Simulate', 'UIToolkit.Update', 'Animator.Update'])}"
                f"  {r.randint(1, 30)}.{r.randint(0, 99):02d} ms  GC {r.randint(0, 4096)} B  calls {r.randint(1, 400)}"
            ),
            ("Najviše vremena ide na render kamere; GC je nizak, ništa hitno.",),
        ),
        _Fill(
            (
                "Dodaj talijanske stringove za izbornik.",
                "Provjeri lokalizacijske tablice za talijanski.",
            ),
            "Gledam string tablicu.",
            "bash",
            lambda r: _cmd("python tools/loc_check.py Assets/Localization/Menu_it.asset"),
            lambda r: (
                f"key=menu.{r.choice(['start', 'options', 'credits', 'quit', 'shop'])}.{token(r, 4).lower()} "
                f"status={r.choice(['ok', 'missing', 'ok', 'too_long'])}"
            ),
            ("Nekoliko ključeva fali; dodao sam ih kao TODO u tablicu, prijevod šalje agencija.",),
        ),
    )


def _jedrilica(rng: random.Random, b: Builder, segments: int) -> Parts:
    sha_full = hexits(rng, 40)
    sha = sha_full[:7]
    others = [hexits(rng, 7) for _ in range(4)]
    guid, decoy_guid = hexits(rng, 32), hexits(rng, 32)
    number = rng.randint(1000, 9899)
    ticket, old_ticket = f"JDR-{number}", f"JDR-{number - rng.randint(20, 300)}"
    probes = [
        _identifier(
            "Which commit did git bisect find as the first bad one (the wind jitter)?", sha
        ),
        _identifier("What is the asset GUID of the RaceBuoy prefab?", guid),
        _identifier("Which Jira ticket is the wind jitter work tracked under?", ticket),
    ]

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Bok! Radimo na Jedrilici (Unity 2022.3 LTS, C#). Od 2.7.0 vjetar na regati "
                    "trza — jedrilice mijenjaju smjer svakih par frameova. Nađi uzrok i "
                    "pripremi Android build za internu grupu. Repo je u ~/dev/jedrilica.",
                    "Imamo regresiju u Jedrilici: od zadnjeg izdanja smjer vjetra skače, "
                    "osobito na slabijim mobitelima. Unity 2022.3, sve je u ~/dev/jedrilica. "
                    "Pogledaj i reci što misliš.",
                )
            )
        )
        log = "\n".join(
            [
                f"{others[0]} (HEAD -> bugfix/wind-jitter, origin/develop) Bump version to 2.7.0",
                f"{others[1]} Merge branch 'feature/regatta-hud-v2' into develop",
                f"{sha} Smooth wind gusts with Perlin noise per frame",
                f"{others[2]} Tune buoy drag coefficients",
                f"{others[3]} (tag: v2.6.0) Release 2.6.0",
            ]
        )
        b.tool("Prvo zadnji commitovi.", "bash", _cmd("git log --oneline -5"), log)
        b.assistant(
            "Između v2.6.0 i HEAD su četiri commita; dva diraju fiziku. Bisectom ćemo brzo suziti."
        )

    def bisect() -> None:
        b.user(
            rng.choice(
                (
                    "Probaj `git bisect` između v2.6.0 i HEAD; test koji puca je "
                    "`WindDirection_IsStable`.",
                    "Možeš li bisectom naći koji je commit uveo trzanje? Dobra verzija je v2.6.0.",
                )
            )
        )
        out = (
            "running  './tools/editmode-test.sh' 'WindDirection_IsStable'\n"
            "Bisecting: 1 revision left to test after this (roughly 1 step)\n"
            f"[{others[2]}{hexits(rng, 33)}] Tune buoy drag coefficients\n"
            "running  './tools/editmode-test.sh' 'WindDirection_IsStable'\n"
            f"{sha_full} is the first bad commit\ncommit {sha_full}\n"
            "Author: Marko Perić <marko@jedrilica.hr>\n"
            f"Date:   Tue Mar 4 16:22:{rng.randint(10, 59)} 2025 +0100\n\n"
            "    Smooth wind gusts with Perlin noise per frame\n\n"
            " Assets/Scripts/Weather/WindGustSampler.cs | 23 ++++++++++++++---------\n"
            " 1 file changed, 14 insertions(+), 9 deletions(-)\nbisect found first bad commit"
        )
        b.tool(
            "Pokrećem bisect.",
            "bash",
            _cmd(
                "git bisect start HEAD v2.6.0 && git bisect run ./tools/editmode-test.sh WindDirection_IsStable"
            ),
            out,
        )
        b.assistant(
            rng.choice(
                (
                    f"Bisect je gotov: prvi loš commit je `{sha}` — Markov „Smooth wind gusts "
                    "with Perlin noise per frame”. Šum se uzorkuje u `Update()`, pa ovisi o "
                    "frameratu.",
                    f"Krivac je **{sha}**. Perlin se računa iz `Time.time` u `Update()`, zato "
                    "na 30 fps skače.",
                    "Bisect je završio (vidi gore). Uzrok je jasan: šum se računa po frameu, a "
                    "ne po fiksnom koraku.",
                )
            )
        )

    def guid_block() -> None:
        b.user(
            rng.choice(
                (
                    "Trebat će mi GUID prefaba bove za Addressables mapu.",
                    "Daj mi GUID od RaceBuoy prefaba, Tomislav ga treba za label.",
                )
            )
        )
        out = (
            "==> Assets/Prefabs/Race/StartLine.prefab.meta <==\nfileFormatVersion: 2\n"
            f"guid: {decoy_guid}\nPrefabImporter:\n\n"
            "==> Assets/Prefabs/Race/RaceBuoy.prefab.meta <==\nfileFormatVersion: 2\n"
            f"guid: {guid}\nPrefabImporter:"
        )
        b.tool(
            "Čitam .meta datoteke.",
            "bash",
            _cmd(
                "head -n 3 Assets/Prefabs/Race/StartLine.prefab.meta Assets/Prefabs/Race/RaceBuoy.prefab.meta"
            ),
            out,
        )
        b.assistant(
            rng.choice(
                (
                    f"GUID od `RaceBuoy.prefab` je `{guid}` (onaj prvi je startna linija, ne "
                    "treba nam).",
                    f"Bova: `{guid}`. StartLine ima `{decoy_guid}`, to ignoriraj.",
                    "Oba GUID-a su gore; za bovu je onaj drugi, iz `RaceBuoy.prefab.meta`.",
                )
            )
        )

    def ticket_block() -> None:
        if rng.random() < 0.5:
            b.user(
                f"Sve ovo vodimo pod {ticket}. {old_ticket} je stari ticket za bove, zatvoren je."
            )
            out = (
                f"🐞 Bug  🚧 In Progress  ⌛ Tue, 04 Mar 25  👷 Marko Perić  🔑️ {ticket}  "
                "💭 3 comments  🧵 0 linked\n# Vjetar trza tijekom regate nakon 2.7.0\n"
                "⏱️  Tue, 04 Mar 25  🔎 High  🚀 None  📦 Android, iOS  🏷️  regression\n\n"
                "------------------------ Description ------------------------\n\n"
                "Na Galaxy A12 smjer vjetra se mijenja svakih 3-4 framea. Na iPhoneu 13 rjeđe."
            )
            b.tool("Otvaram ticket.", "jira", {"args": ["issue", "view", ticket, "--plain"]}, out)
            b.assistant("Opis odgovara onome što vidimo; prioritet High.")
        else:
            b.user("Koji je ticket za ovo? Nisam siguran je li onaj stari.")
            out = (
                "TYPE\tKEY\tSUMMARY\tSTATUS\tASSIGNEE\n"
                f"Bug\t{ticket}\tVjetar trza tijekom regate nakon 2.7.0\tIn Progress\tMarko Perić\n"
                f"Bug\t{old_ticket}\tBove tonu na visokim valovima\tDone\tIvana Kovač"
            )
            b.tool(
                "Tražim u Jiri.",
                "jira",
                {"args": ["issue", "list", "-q", "project = JDR AND text ~ vjetar", "--plain"]},
                out,
            )
            b.assistant(
                rng.choice(
                    (
                        f"Ticket je **{ticket}** (In Progress); {old_ticket} je riješen i nema "
                        "veze s ovim.",
                        f"Ovo je {ticket}. Stari {old_ticket} je zatvoren.",
                    )
                )
            )

    def read_block() -> None:
        b.user("Baci oko i na WeatherSystem, možda je tamo nešto.")
        code = (
            "    void FixedUpdate()\n    {\n        var gust = sampler.Sample(transform.position);\n"
            "        windDirection = Vector3.Slerp(windDirection, gust.direction, blend);\n"
            "        windSpeed = Mathf.Lerp(windSpeed, gust.speed, blend);\n    }"
        )
        b.tool(
            "Čitam.", "bash", _cmd("sed -n 40,46p Assets/Scripts/Weather/WeatherSystem.cs"), code
        )
        b.assistant(
            "`WeatherSystem.cs` samo čita iz samplera i interpolira — tu nema ništa za mijenjati."
        )

    def log_block() -> None:
        lines = "\n".join(
            f"03-0{rng.randint(4, 9)} {_hhmmss(rng)}.{rng.randint(100, 999)} {rng.randint(9000, 9999)} "
            f"{rng.randint(9000, 9999)} I Unity   : [Wind] dir={rng.randint(0, 359)} speed={rng.randint(3, 18)}.{rng.randint(0, 9)}"
            for _ in range(6)
        )
        b.user(f"Evo logcata s Galaxy A12:\n```\n{lines}\n```")
        b.assistant(
            "Smjer skače i do stotinu stupnjeva između susjednih linija — to je uzorkovanje, "
            "ne fizika jedrilice."
        )

    art_blocks = []
    for art in rng.sample(_HR_ARTS, 2):
        block, probe = _artifact(rng, b, art, _HR_NEUTRAL)
        art_blocks.append(block)
        probes.append(probe)
    decide, correction, decision = _decision(rng, b, _HR_CHOICE)
    step, next_step = _next_step(rng, b, _HR_STEPS)
    probes += [decision, next_step]
    middle = [bisect, guid_block, ticket_block, read_block, log_block, *art_blocks, decide, step]
    _assemble(rng, intro, middle, [(decide, correction)])
    opening = b.take()
    return opening, segments_of(rng, b, segments, _filler(b, _hr_fills())), probes


# --- sandelis_amtool_lt: a Kaunas warehouse's Prometheus/Alertmanager, in Lithuanian ---

_LT_NEUTRAL = (
    "Gerai, tiek. Einam toliau.",
    "Padaryta, išvestis viršuje.",
    "Ok. Tęsiu su likusiais.",
)


def _git_status(branch: str, section: str, state: str, path: str) -> str:
    hint = (
        '  (use "git restore --staged <file>..." to unstage)'
        if section == "Changes to be committed:"
        else '  (use "git add <file>..." to update what will be committed)'
    )
    return f"On branch {branch}\n{section}\n{hint}\n\t{state}   {path}\n"


_LT_ARTS = (
    _Art(
        "conveyor_rules.yml",
        ("modif", "edit", "chang", "updat", "pakeist", "pakeič", "atnaujin", "redag"),
        (
            "ConveyorScannerDown taisyklėje `for:` padidink iki 5m, dabar per jautru.",
            "Pataisyk konvejerio taisykles: skeneris gali būti offline 5 minutes be alerto.",
        ),
        _Call(
            "Keičiu ir žiūriu statusą.",
            "bash",
            _cmd("git status"),
            _git_status(
                "fix/scanner-noise",
                "Changes not staged for commit:",
                "modified:",
                "rules/conveyor_rules.yml",
            ),
        ),
        _Call(
            "Keičiu `for:`.",
            "str_replace",
            {"path": "rules/conveyor_rules.yml", "old_str": "for: 1m", "new_str": "for: 5m"},
            "OK",
        ),
        (
            "Pakeičiau `conveyor_rules.yml`: `ConveyorScannerDown` dabar `for: 5m` vietoj 1m.",
            "**conveyor_rules.yml** — atnaujintas: pakeistas `for` ir pridėta `line` etiketė "
            "į anotaciją.",
            "| Failas | Būsena |\n|---|---|\n| `conveyor_rules.yml` | pakeistas (+3 −1) |",
        ),
        "What happened to conveyor_rules.yml?",
        "it was modified (ConveyorScannerDown for: 5m)",
    ),
    _Art(
        "blackbox-exporter",
        ("scal", "replica", "replik", "padidin", "išplėt"),
        (
            "Blackbox exporteris nespėja probuoti visų skenerių, pakelk replikų skaičių iki 3.",
            "Padaryk blackbox-exporter 3 replikas.",
        ),
        _Call(
            "Skaluoju.",
            "bash",
            _cmd("kubectl -n monitoring scale deployment blackbox-exporter --replicas=3"),
            "deployment.apps/blackbox-exporter scaled",
        ),
        _Call(
            "Pakeičiau replicas ir tikrinu.",
            "bash",
            _cmd("kubectl -n monitoring get deploy blackbox-exporter"),
            "NAME                READY   UP-TO-DATE   AVAILABLE   AGE\n"
            "blackbox-exporter   3/3     3            3           41d",
        ),
        (
            "`blackbox-exporter` padidinau iki 3 replikų, visos Ready.",
            "**blackbox-exporter**: išplėstas iki 3 replikų (buvo 1).",
            "Deploymentas `blackbox-exporter`, kuris probuoja visus 140 skenerių, dabar turi 3 "
            "replikas — padidinau.",
        ),
        "What happened to the blackbox-exporter deployment?",
        "it was scaled to 3 replicas",
    ),
    _Art(
        "old_wms_rules.yml",
        ("delet", "remov", "ištrin", "ištryn", "pašalin", "panaikin"),
        (
            "Senos WMS taisyklės nebereikalingos, WMS jau migravo. Ištrink tą failą.",
            "old_wms_rules.yml lauk iš repo.",
        ),
        _Call(
            "Trinu per git.",
            "bash",
            _cmd("git rm -q rules/old_wms_rules.yml && git status"),
            _git_status(
                "fix/scanner-noise",
                "Changes to be committed:",
                "deleted:",
                "rules/old_wms_rules.yml",
            ),
        ),
        _Call("Trinu.", "bash", _cmd("rm rules/old_wms_rules.yml"), "(no output, exit code 0)"),
        (
            "Ištryniau `old_wms_rules.yml`, niekas jo nebeimportavo.",
            "**old_wms_rules.yml** pašalintas iš repo.",
            "Failas `old_wms_rules.yml`, kurį dar nurodė senas kustomization, dabar panaikintas.",
        ),
        "What happened to old_wms_rules.yml?",
        "it was deleted",
    ),
    _Art(
        "am-webhook-bridge",
        ("rolled back", "rollback", "roll back", "revert", "atšauk", "grąžin", "atstat"),
        (
            "Naujas am-webhook-bridge image'as lūžta ant Teams formato, grąžink ankstesnę versiją.",
            "Padaryk am-webhook-bridge rollback'ą.",
        ),
        _Call(
            "Atšaukiu rolloutą.",
            "bash",
            _cmd("kubectl -n monitoring rollout undo deployment/am-webhook-bridge"),
            "deployment.apps/am-webhook-bridge rolled back",
        ),
        _Call(
            "Tikrinu rolloutą.",
            "bash",
            _cmd(
                "kubectl -n monitoring rollout undo deployment/am-webhook-bridge -o name && "
                "kubectl -n monitoring rollout status deployment/am-webhook-bridge"
            ),
            'deployment.apps/am-webhook-bridge\nWaiting for deployment "am-webhook-bridge" '
            "rollout to finish: 1 old replicas are pending termination...\n"
            'deployment "am-webhook-bridge" successfully rolled out',
        ),
        (
            "`am-webhook-bridge` grąžinau į ankstesnę reviziją (v0.9.4).",
            "**am-webhook-bridge**: rollback atliktas, Teams žinutės vėl eina.",
            "Bridge'as `am-webhook-bridge`, per kurį Alertmanager siunčia į Teams, atstatytas "
            "į seną reviziją.",
        ),
        "What happened to the am-webhook-bridge deployment?",
        "it was rolled back to the previous revision",
    ),
    _Art(
        "scanner-probes",
        ("creat", "new", "added", "sukur", "nauj", "pridė"),
        (
            "Reikia Probe resurso skenerių HTTP health endpointams.",
            "Sukurk Probe CR skeneriams.",
        ),
        _Call(
            "Taikau manifestą.",
            "bash",
            _cmd("kubectl apply -f probes/scanner-probes.yaml"),
            "probe.monitoring.coreos.com/scanner-probes created",
        ),
        _Call(
            "Taikau manifestą.",
            "bash",
            _cmd("kubectl apply -f probes/ -o name"),
            "probe.monitoring.coreos.com/scanner-probes",
        ),
        (
            "Sukūriau naują Probe `scanner-probes` (140 targetų, modulis http_2xx).",
            "**scanner-probes** pridėtas; Prometheus jį pasiims per ~1 min.",
            "Probe resursas `scanner-probes`, su visais trijų linijų skeneriais, yra naujas — "
            "sukurtas monitoring namespace'e.",
        ),
        "What happened to the scanner-probes Probe resource?",
        "it was created",
    ),
)

_LT_CHOICE = _Choice(
    values=(("4h",), ("12h",), ("30m",)),
    topic=("repeat_interval", "repeat", "kartot", "kartoj", "interval"),
    question="What repeat_interval was settled for the critical alert route?",
    prompt=(
        "Kokį repeat_interval dėti kritiniams sandėlio alertams?",
        "Ką siūlai dėl repeat_interval kritiniam maršrutui?",
    ),
    dictate=(
        "Kritiniam maršrutui repeat_interval turi būti {v}, ne {r} — naktinė pamaina kitaip "
        "gauna per daug pranešimų.",
        "repeat_interval kritiniams: {v}. Taip nusprendėme, nekeisk.",
    ),
    early=("Kritiniam maršrutui nustatyk repeat_interval {v}.",),
    override=(
        "Vis dėlto ne {r}. Persigalvojau — repeat_interval bus {v}.",
        "Pataisymas: pamiršk {r}, kritiniams alertams repeat_interval {v}.",
    ),
    propose=(
        "Siūlau kritiniam maršrutui repeat_interval {v} — pakankamai dažnai, bet be "
        "triukšmo. Tinka?",
        "Dėčiau repeat_interval {v}; taip PagerDuty negaus dublikatų. Gerai?",
    ),
    yes=("Taip, tinka.", "Gerai.", "Ok, darom."),
    modify=("Ne {r}; repeat_interval tegul būna {v}.", "Beveik, bet vietoj {r} dėk {v}."),
    relay=(
        "Rūta iš naktinės pamainos sako, kad {r} netinka — repeat_interval darom {v}.",
        "Kalbėjau su Tomu (SRE): repeat_interval {v}, {r} atmetam.",
    ),
    ask=(
        "Kokį repeat_interval nori kritiniams: {v} ar {r}?",
        "Prieš pushinant: repeat_interval {v} ar {r}?",
    ),
    reply=("{v}.", "{v}, žinoma.", "Tegul būna {v}."),
    ack=(
        "Susitarta: kritinio maršruto repeat_interval yra {v}.",
        "Gerai — alertmanager.yml nustatau `repeat_interval: {v}`.",
    ),
)

_LT_STEPS = _Steps(
    todos=(
        _Todo(
            ("3 linij", "line 3"),
            ("expire", "nuimt", "panaikin", "išjung", "remov"),
            "nuimti 3 linijos priežiūros silence'ą",
            "expire the line 3 maintenance silence",
        ),
        _Todo(
            ("grafana", "dashboard", "skydel"),
            ("updat", "atnaujin", "pataisy", "fix"),
            "atnaujinti Grafana skydelį „Konvejeriai“",
            "update the Grafana dashboard 'Konvejeriai'",
        ),
        _Todo(
            ("pagerduty",),
            ("test", "patikrin", "išband"),
            "išbandyti PagerDuty maršrutą su `amtool config routes test`",
            "test the PagerDuty route with amtool config routes test",
        ),
    ),
    whens=(
        ("iki ketvirtadienio 9 val.", "by Thursday 09:00"),
        ("kai Rūta patvirtins PR", "once Rūta approves the PR"),
        ("prieš penktadienio naktinę pamainą", "before Friday's night shift"),
        ("kai baigsis priežiūros langas", "when the maintenance window ends"),
    ),
    mine=(
        "Kai baigsime, {when} pats turėsiu {task} — tai mano darbas.",
        "Lieka viena atvira užduotis: {when} aš turiu {task}. Pranešiu, kai bus padaryta.",
        "Dar nepadaryta: **{task}** — padarysiu {when}.",
    ),
    theirs=(
        "Nepamiršk: {when} reikia {task}.",
        "Primink man, kad {when} turime {task}.",
        "Aš pats {when} turiu {task}, tu tik paruošk konfigą.",
    ),
    prompts=("Kas dar liko?", "Ar dar kas nors atvira?"),
    acks=("Užsirašiau.", "Gerai, turiu sąraše.", "Ok, pažymėjau."),
    passing=(
        ("Ačiū. Beje, Jonas sakė, kad VPN vėl lūžinėja.", "O kiek dabar alertų firing?"),
        ("Atrodo gerai.", "Ir taip, rytoj dirbu iš namų, rašyk Slacke."),
    ),
)


def _lt_fills() -> tuple[_Fill, ...]:
    return (
        _Fill(
            ("Kiek skenerių šiuo metu nepasiekiami?", "Patikrink skenerių up metriką."),
            "Klausiu Prometheus.",
            "bash",
            lambda r: _cmd("promtool query instant http://prometheus:9090 'probe_success == 0'"),
            lambda r: (
                f'probe_success{{instance="scanner-{r.randint(100, 399)}.kaunas2.lan", '
                f'job="scanners"}} => 0 @[{r.randint(1741600000, 1741699999)}.{r.randint(100, 999)}]'
            ),
            (
                "Keli skeneriai nepasiekiami, bet visi iš tos pačios zonos — greičiausiai "
                "Wi-Fi prieigos taškas.",
                "Nepasiekiami tik keli; tai ne Prometheus problema.",
            ),
        ),
        _Fill(
            ("Ar Prometheus podai sveiki?", "Pažiūrėk monitoring namespace'o podus."),
            "Žiūriu podus.",
            "bash",
            lambda r: _cmd("kubectl -n monitoring get pods"),
            lambda r: (
                f"{r.choice(['prometheus-k8s', 'kube-state-metrics', 'node-exporter', 'grafana'])}"
                f"-{hexits(r, 5)}   {r.choice(['1/1', '2/2', '3/3'])}   Running   {r.randint(0, 3)}   "
                f"{r.randint(1, 60)}d"
            ),
            ("Visi podai Running, restartų beveik nėra.",),
        ),
        _Fill(
            ("Kas vakar naktį firing buvo?", "Parodyk Alertmanager logą už naktį."),
            "Skaitau logą.",
            "bash",
            lambda r: _cmd("kubectl -n monitoring logs alertmanager-main-0 --since=12h | tail"),
            lambda r: (
                f"ts=2025-03-{r.randint(10, 12)}T0{r.randint(0, 5)}:{r.randint(10, 59)}:"
                f"{r.randint(10, 59)}.{r.randint(100, 999)}Z caller=dispatch.go:{r.randint(150, 360)} "
                f'level={r.choice(["debug", "info", "warn"])} component=dispatcher msg="Notify success" '
                f"receiver={r.choice(['teams-ops', 'email-sandelis', 'null'])} attempts={r.randint(1, 3)}"
            ),
            ("Naktį daugiausia buvo NodeDiskPressure; pranešimai išsiųsti be klaidų.",),
        ),
    )


def _sandelis(rng: random.Random, b: Builder, segments: int) -> Parts:
    silence = (
        f"{hexits(rng, 8)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 12)}"
    )
    old_silences = [
        f"{hexits(rng, 8)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 12)}"
        for _ in range(2)
    ]
    fingerprint, decoy_fp = hexits(rng, 16), hexits(rng, 16)
    incident, decoy_incident = token(rng, 14), token(rng, 14)
    probes = [
        _identifier("What is the ID of the line 3 maintenance silence?", silence),
        _identifier("What is the fingerprint of the alert firing on line 2?", fingerprint),
        _identifier("What is the ID of the open PagerDuty incident about the scanners?", incident),
    ]

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Labas! Kauno sandėlyje (kube-prometheus-stack, namespace monitoring) naktį "
                    "konvejerio skeneriai spamino alertais, pamaina gavo 200 pranešimų. Reikia "
                    "sutvarkyti taisykles ir routingą. Repo: ~/ops/sandelis-monitoring.",
                    "Sveikas. Konvejerių monitoringas per triukšmingas — ConveyorScannerDown "
                    "šaudo kas minutę. Prometheus Operator, Alertmanager 0.27. Pažiūrėk.",
                )
            )
        )
        out = (
            "NAME                          AGE\nsandelis-conveyor             212d\n"
            "sandelis-wms                  380d\nkube-prometheus-rules         412d\n"
            "node-exporter-rules           412d"
        )
        b.tool(
            "Pirmiausia taisyklių objektai.",
            "bash",
            _cmd("kubectl -n monitoring get prometheusrules"),
            out,
        )
        b.assistant(
            "Taisyklės sugrupuotos į du PrometheusRule objektus; skeneriai — `sandelis-conveyor`."
        )

    def silence_block() -> None:
        b.user(
            rng.choice(
                (
                    "3 linijoje šiandien priežiūra iki 14:00, uždėk silence'ą ConveyorScannerDown.",
                    "Trečia linija stovi dėl priežiūros — nutildyk jos skenerių alertus 4 valandoms.",
                )
            )
        )
        table = (
            "ID                                    Matchers                                  "
            "Ends At                  Created By  Comment\n"
            f'{old_silences[0]}  alertname="NodeDiskPressure" node="wk-07"      '
            "2025-03-11 18:00:00 UTC  jonas       disko keitimas\n"
            f'{old_silences[1]}  alertname="WMSQueueLag"                       '
            "2025-03-12 06:00:00 UTC  ruta        WMS migracija"
        )
        b.tool("Pirma esami silence'ai.", "bash", _cmd("amtool silence query"), table)
        b.tool(
            "Dedu naują.",
            "bash",
            _cmd(
                'amtool silence add alertname=ConveyorScannerDown line="3" --duration=4h '
                '--comment="3 linijos priežiūra"'
            ),
            silence,
        )
        b.assistant(
            rng.choice(
                (
                    f"Silence sukurtas: `{silence}`, galioja 4 val. Kiti du (`NodeDiskPressure`, "
                    "`WMSQueueLag`) nesusiję.",
                    f"Nutildyta. ID `{silence}`; baigsis 14:00.",
                    "Silence'as uždėtas (ID — paskutinė išvestis).",
                )
            )
        )

    def fingerprint_block() -> None:
        b.user(
            "Kuris alertas dabar firing ant 2 linijos? Reikia fingerprint'o incidentų ataskaitai."
        )
        out = (
            '[{"annotations":{"summary":"Scanner unreachable"},"endsAt":"2025-03-11T09:14:00Z",'
            f'"fingerprint":"{decoy_fp}","receivers":[{{"name":"teams-ops"}}],"startsAt":'
            '"2025-03-11T07:02:11Z","status":{"state":"suppressed","silencedBy":[],"inhibitedBy":[]},'
            '"labels":{"alertname":"ConveyorScannerDown","line":"5","severity":"warning"}},'
            '{"annotations":{"summary":"Scanner unreachable"},"endsAt":"2025-03-11T09:14:00Z",'
            f'"fingerprint":"{fingerprint}","receivers":[{{"name":"pagerduty-critical"}}],"startsAt":'
            '"2025-03-11T06:12:44Z","status":{"state":"active","silencedBy":[],"inhibitedBy":[]},'
            '"labels":{"alertname":"ConveyorScannerDown","line":"2","severity":"critical"}}]'
        )
        b.tool(
            "Klausiu Alertmanager.",
            "bash",
            _cmd("amtool alert query alertname=ConveyorScannerDown -o json"),
            out,
        )
        b.assistant(
            rng.choice(
                (
                    f"2 linijos alerto fingerprint'as: `{fingerprint}` (active, critical). Tas su "
                    "line=5 yra suppressed.",
                    f"Tau reikia `{fingerprint}` — kitas alertas yra 5 linijos.",
                )
            )
        )

    def incident_block() -> None:
        b.user("Ar PagerDuty incidentas jau atidarytas?")
        out = (
            " Incident #  Status     Urgency  Title                                      "
            "Created               ID\n"
            f" {rng.randint(4000, 4999)}        triggered  high     [FIRING:1] ConveyorScannerDown "
            f"line 2     2025-03-11T06:12:49Z  {incident}\n"
            f" {rng.randint(3000, 3999)}        resolved   low      [FIRING:1] WMSQueueLag                 "
            f"2025-03-09T22:40:03Z  {decoy_incident}"
        )
        b.tool(
            "Žiūriu.", "pd", {"args": ["incident", "list", "--statuses", "triggered,resolved"]}, out
        )
        b.assistant(
            rng.choice(
                (
                    f"Taip — `{incident}` (triggered, high). WMSQueueLag incidentas jau resolved.",
                    f"Atidarytas incidentas **{incident}**, dar niekas neacknowledgino.",
                    "Taip, vienas triggered (žr. lentelę), kitas — senas ir resolved.",
                )
            )
        )

    def read_block() -> None:
        b.user("Parodyk, kaip dabar atrodo routingas.")
        cfg = (
            "route:\n  receiver: teams-ops\n  group_by: [alertname, line]\n  group_wait: 30s\n"
            '  routes:\n    - matchers: [severity="critical"]\n      receiver: pagerduty-critical\n'
            '    - matchers: [team="wms"]\n      receiver: email-sandelis'
        )
        b.tool("Skaitau.", "bash", _cmd("sed -n 1,12p alertmanager/alertmanager.yml"), cfg)
        b.assistant(
            "Kritiniai eina į PagerDuty, visa kita — į Teams. Grupavimas pagal `line` geras."
        )

    def log_block() -> None:
        lines = "\n".join(
            f"ts=2025-03-11T0{rng.randint(1, 5)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z "
            "caller=notify.go:848 level=warn component=dispatcher receiver=teams-ops "
            f'integration=webhook[0] msg="Notify attempt failed, will retry later" attempts={rng.randint(1, 6)}'
            for _ in range(5)
        )
        b.user(f"Dar radau tokį logą:\n```\n{lines}\n```")
        b.assistant(
            "Teams webhookas kartais atmeta žinutes — tai atskira problema nuo taisyklių triukšmo."
        )

    art_blocks = []
    for art in rng.sample(_LT_ARTS, 2):
        block, probe = _artifact(rng, b, art, _LT_NEUTRAL)
        art_blocks.append(block)
        probes.append(probe)
    decide, correction, decision = _decision(rng, b, _LT_CHOICE)
    step, next_step = _next_step(rng, b, _LT_STEPS)
    probes += [decision, next_step]
    middle = [
        silence_block,
        fingerprint_block,
        incident_block,
        read_block,
        log_block,
        *art_blocks,
        decide,
        step,
    ]
    _assemble(rng, intro, middle, [(decide, correction)])
    opening = b.take()
    return opening, segments_of(rng, b, segments, _filler(b, _lt_fills())), probes


# --- sagardotegi_psql_eu: a cider house's reservations on Postgres, in Basque ----------

_EU_NEUTRAL = ("Ongi, hori da. Jarraitzen dut.", "Eginda, irteera goian dago.", "Ados. Hurrengora.")

_PSQL = "psql -h db.sagardotegia.eus -U admin -d sagardotegia"


def _eu_sql(
    sql: str,
    tag: str,
    migration: str,
    said: tuple[str, ...],
    art: tuple[str, ...],
    words: tuple[str, ...],
    asks: tuple[str, ...],
    answer: str,
) -> _Art:
    name = art[0]
    return _Art(
        name,
        words,
        asks,
        _Call(
            "Exekutatzen dut (-e, kontsulta ikusteko).",
            "bash",
            _cmd(f'{_PSQL} -e -c "{sql}"'),
            f"{sql}\n{tag}",
        ),
        _Call(
            "Migrazioa exekutatzen dut.",
            "bash",
            _cmd(f"{_PSQL} -v ON_ERROR_STOP=1 -f {migration}"),
            tag,
        ),
        said,
        f"What happened to {art[1]}?",
        answer,
    )


_EU_ARTS = (
    _eu_sql(
        "CREATE INDEX CONCURRENTLY idx_erreserbak_data ON erreserbak (data, txanda);",
        "CREATE INDEX",
        "migrations/042_indizeak.sql",
        (
            "`idx_erreserbak_data` indizea sortu dut; larunbateko kontsulta 2,3 s-tik 40 ms-ra.",
            "**idx_erreserbak_data** — berria, sortuta (CONCURRENTLY, blokeorik gabe).",
            "Data eta txandaren gaineko indizea, `idx_erreserbak_data` izenekoa, sortuta dago orain.",
        ),
        ("idx_erreserbak_data", "the index idx_erreserbak_data"),
        ("creat", "sortu", "sortut", "sortzen", "berri", "new"),
        (
            "Erreserben kontsulta motela da, jarri indize bat datarentzat.",
            "Sortu indizea data eta txandarako.",
        ),
        "it was created (CONCURRENTLY)",
    ),
    _eu_sql(
        "DROP TABLE mahaiak_zaharrak;",
        "DROP TABLE",
        "migrations/043_garbiketa.sql",
        (
            "`mahaiak_zaharrak` taula ezabatu dut; babeskopian badago.",
            "**mahaiak_zaharrak**: kenduta (DROP TABLE).",
            "2019ko mahai-banaketa zuen taula, `mahaiak_zaharrak`, ezabatuta dago jada.",
        ),
        ("mahaiak_zaharrak", "the table mahaiak_zaharrak"),
        ("drop", "delet", "remov", "ezabat", "kendu", "borrat"),
        ("mahaiak_zaharrak taula ez da erabiltzen, kendu.", "Ezabatu mahai zaharren taula."),
        "it was dropped",
    ),
    _eu_sql(
        "ALTER TABLE bezero_fitxak ADD COLUMN hizkuntza text NOT NULL DEFAULT 'eu';",
        "ALTER TABLE",
        "migrations/044_hizkuntza.sql",
        (
            "`bezero_fitxak` taula aldatu dut: `hizkuntza` zutabea gehitu da ('eu' lehenetsita).",
            "**bezero_fitxak** — aldatuta, zutabe berria: `hizkuntza`.",
            "Bezeroen fitxen taulari, `bezero_fitxak`-i, hizkuntza zutabea gehitu diot.",
        ),
        ("bezero_fitxak", "the table bezero_fitxak"),
        ("alter", "modif", "add column", "added", "aldatu", "gehitu", "zutabe"),
        (
            "Bezeroen hizkuntza gorde behar dugu, eu/es/fr.",
            "Gehitu hizkuntza zutabe bat bezeroen fitxetan.",
        ),
        "it was altered: a hizkuntza column was added",
    ),
    _eu_sql(
        "TRUNCATE kupoi_zaharrak;",
        "TRUNCATE TABLE",
        "migrations/045_kupoiak.sql",
        (
            "`kupoi_zaharrak` hustu dut (TRUNCATE); egitura mantentzen da.",
            "**kupoi_zaharrak**: hustuta, 0 errenkada.",
            "Iazko deskontu-kupoiak zituen `kupoi_zaharrak` taula orain hutsik dago, garbituta.",
        ),
        ("kupoi_zaharrak", "the table kupoi_zaharrak"),
        ("truncat", "empt", "hustu", "garbitu", "hutsik"),
        ("Iazko kupoiak hustu, baina taula utzi.", "Garbitu kupoi zaharren taula."),
        "it was truncated (emptied, structure kept)",
    ),
    _eu_sql(
        "ALTER VIEW eguneko_menua RENAME TO eguneko_menua_2024;",
        "ALTER VIEW",
        "migrations/046_menua.sql",
        (
            "`eguneko_menua` bista berrizendatu dut: orain `eguneko_menua_2024` da.",
            "**eguneko_menua** → `eguneko_menua_2024` (izena aldatuta).",
            "Eguneko menuaren bista, `eguneko_menua`, beste izen batekin geratu da: izena aldatu diot.",
        ),
        ("eguneko_menua", "the view eguneko_menua"),
        ("renam", "berrizendat", "izena aldatu", "izenez aldatu", "izena aldatuta"),
        ("Menu-bista zaharrari 2024 atzizkia jarri.", "Berrizendatu eguneko menuaren bista."),
        "it was renamed to eguneko_menua_2024",
    ),
)

_EU_CHOICE = _Choice(
    values=(("-Fc", "custom"), ("-Fd", "directory", "direktorio"), ("-Fp", "plain")),
    topic=("pg_dump", "backup", "babeskop", "dump", "formatu"),
    question="Which pg_dump format was settled for the nightly backups?",
    prompt=(
        "Zein formatu erabiliko dugu gaueko pg_dump-erako?",
        "Zer proposatzen duzu babeskopien formaturako?",
    ),
    dictate=(
        "Gaueko pg_dump {v} formatuan egin behar da, ez {r} — taula bakarrak berreskuratu "
        "behar ditugu.",
        "Babeskopien formatua: {v}. Hori erabakita dago, ez aldatu.",
    ),
    early=("Gaueko pg_dump {v} formatuan jarri.",),
    override=(
        "Azkenean ez {r}. Iritziz aldatu dut — pg_dump {v} formatuan.",
        "Zuzenketa: ahaztu {r}, babeskopiak {v} formatuan egingo ditugu.",
    ),
    propose=(
        "pg_dump {v} formatuan egitea proposatzen dut: konprimatuta eta taulaka "
        "berreskuragarria. Ados?",
        "Babeskopientzat {v} erabiliko nuke; tamainaz erdia da. Ondo?",
    ),
    yes=("Bai, ados.", "Ados.", "Ongi, horrela."),
    modify=("Ez {r}; pg_dump {v} formatuan.", "Ia, baina {r} ordez jarri {v}."),
    relay=(
        "Mirenek (sistemak) dio {r} motela dela berreskuratzeko — pg_dump-erako {v} erabiliko dugu.",
        "Ibonekin hitz egin dut: babeskopiak {v} formatuan, {r} baztertuta.",
    ),
    ask=(
        "Zein formatu nahi duzu pg_dump-erako: {v} ala {r}?",
        "Cron-a aldatu aurretik: babeskopia {v} ala {r}?",
    ),
    reply=("{v}.", "{v}, noski.", "{v} izan dadila."),
    ack=(
        "Adostuta: gaueko pg_dump {v} formatuan egingo da.",
        "Ongi — cron-eko pg_dump komandoan {v} jartzen dut (babeskopia berria bihar gauean).",
    ),
)

_EU_STEPS = _Steps(
    todos=(
        _Todo(
            ("vacuum",),
            ("run", "exec", "abiarazi", "exekuta", "pasa"),
            "erreserbak taulan VACUUM ANALYZE exekutatu",
            "run VACUUM ANALYZE on the erreserbak table",
        ),
        _Todo(
            ("staging",),
            ("restor", "berreskur", "leheneratu", "proba", "test"),
            "atzoko dump-a staging zerbitzarian berreskuratzen probatu",
            "test-restore yesterday's dump on the staging server",
        ),
        _Todo(
            ("pasahitz", "password"),
            ("rotat", "aldatu", "berritu"),
            "app_sagardoa rolaren pasahitza aldatu",
            "rotate the app_sagardoa role's password",
        ),
    ),
    whens=(
        ("osteguneko 10:00ak baino lehen", "before Thursday 10:00"),
        ("Mirenek PR-a onartu bezain laster", "as soon as Miren approves the PR"),
        ("ostiraleko bileraren aurretik", "before Friday's meeting"),
        ("txotx denboraldia hasi aurretik", "before the txotx season starts"),
    ),
    mine=(
        "Hau bukatzen dugunean, {when} nik {task} egingo dut — nire gain.",
        "Zabalik geratzen da: {when} nik {task} behar dut. Abisatuko dizut.",
        "Oraindik egiteko: **{task}** — {when} egingo dut.",
    ),
    theirs=(
        "Ez ahaztu: {when} {task} behar da.",
        "Gogorarazi iezadazu {when} {task} behar dugula.",
        "Nik neuk {when} {task} behar dut; zuk prestatu scripta bakarrik.",
    ),
    prompts=("Zer geratzen zaigu?", "Zerbait zabalik oraindik?"),
    acks=("Apuntatuta.", "Ados, zerrendan daukat.", "Ongi, idatzita."),
    passing=(
        (
            "Eskerrik asko. Bide batez, Ibonek dio VPN-a berriro erortzen dela.",
            "Bestela, zenbat erreserba ditugu larunbaterako?",
        ),
        ("Itxura ona du.", "Eta bai, bihar etxetik lan egiten dut, Slack-en idatzi."),
    ),
)


def _eu_fills() -> tuple[_Fill, ...]:
    return (
        _Fill(
            ("Zein kontsulta dira motelenak?", "Begiratu pg_stat_statements."),
            "pg_stat_statements kontsultatzen dut.",
            "bash",
            lambda r: _cmd(
                f'{_PSQL} -c "SELECT calls, mean_exec_time, query FROM pg_stat_statements ORDER BY 2 DESC LIMIT 8"'
            ),
            lambda r: (
                f" {r.randint(10, 90000):>6} | {r.randint(1, 900)}.{r.randint(100, 999)} | "
                f"SELECT * FROM {r.choice(['menuak', 'langileak', 'txandak', 'sagardo_upelak'])} WHERE id = $1"
            ),
            (
                "Ez dago ezer larririk; upelen kontsulta da motelena, baina gutxitan exekutatzen da.",
            ),
        ),
        _Fill(
            ("Nola dago erreplika?", "Begiratu erreplikazioaren atzerapena."),
            "pg_stat_replication begiratzen dut.",
            "bash",
            lambda r: _cmd(
                f'{_PSQL} -c "SELECT client_addr, state, replay_lag FROM pg_stat_replication"'
            ),
            lambda r: (
                f" 10.20.{r.randint(0, 9)}.{r.randint(2, 250)} | streaming | 00:00:0{r.randint(0, 9)}.{r.randint(100, 999)}"
            ),
            ("Erreplika streaming egoeran dago, atzerapena segundo batetik behera.",),
        ),
        _Fill(
            ("Zenbat leku hartzen dute taulek?", "Taulen tamainak ikusi nahi ditut."),
            "Tamainak kalkulatzen ditut.",
            "bash",
            lambda r: _cmd(f'{_PSQL} -c "\\dt+"'),
            lambda r: (
                f" public | {r.choice(['menuak', 'txandak', 'langileak', 'sagardo_upelak', 'fakturak'])} "
                f"| table | admin | permanent | heap | {r.randint(8, 900)} {r.choice(['kB', 'MB'])} |"
            ),
            ("Fakturak eta txandak dira handienak; oraindik ez dago kezkatzeko arrazoirik.",),
        ),
    )


def _sagardotegi(rng: random.Random, b: Builder, segments: int) -> Parts:
    lsn = f"{rng.randint(1, 9)}/{hexits(rng, 8).upper()}"
    slot_lsn = f"{rng.randint(1, 9)}/{hexits(rng, 8).upper()}"
    code = f"SGD-{token(rng, 6)}"
    decoy_codes = [f"SGD-{token(rng, 6)}" for _ in range(3)]
    payment = "pi_" + token(
        rng, 24, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    )
    decoy_payment = "pi_" + token(
        rng, 24, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    )
    probes = [
        _identifier(
            "Which WAL LSN was noted before the migration (for point-in-time recovery)?", lsn
        ),
        _identifier("What is the booking code of the Goikoetxea family's reservation?", code),
        _identifier(
            "What is the Stripe payment intent of the Goikoetxea reservation's deposit?", payment
        ),
    ]

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Kaixo! Astigarragako sagardotegiaren erreserba-datubasea (Postgres 16) "
                    "prestatu behar dugu txotx denboraldirako: migrazio batzuk, garbiketa eta "
                    "babeskopiak. Konexioa: db.sagardotegia.eus, admin erabiltzailea.",
                    "Egun on. Txotx denboraldia hurbil dago eta erreserben datubasea motel dabil. "
                    "Postgres 16 da, psql bidez sartzen gara. Lagunduko didazu?",
                )
            )
        )
        b.tool(
            "Lehenik bertsioa eta konexioa.",
            "bash",
            _cmd(f'{_PSQL} -c "SELECT version();"'),
            "                                                 version\n"
            "-----------------------------------------------------------------------------------------\n"
            " PostgreSQL 16.4 (Debian 16.4-1.pgdg120+2) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit\n(1 row)",
        )
        b.assistant("Konektatuta: PostgreSQL 16.4. Hasi gaitezen.")

    def lsn_block() -> None:
        b.user("Migrazioen aurretik, apuntatu WAL posizioa, PITR behar badugu ere.")
        b.tool(
            "WAL posizioa eta erreplikazio-slota begiratzen ditut.",
            "bash",
            _cmd(
                f'{_PSQL} -c "SELECT pg_current_wal_lsn();" -c "SELECT slot_name, restart_lsn FROM pg_replication_slots;"'
            ),
            f" pg_current_wal_lsn\n--------------------\n {lsn}\n(1 row)\n\n"
            f"  slot_name   | restart_lsn\n--------------+-------------\n replika_1    | {slot_lsn}\n(1 row)",
        )
        b.assistant(
            rng.choice(
                (
                    f"Apuntatuta: uneko WAL LSN-a `{lsn}` da (slotarena, `{slot_lsn}`, ez da hori).",
                    f"LSN: **{lsn}**. Hortik berreskura dezakegu behar izanez gero.",
                    "WAL posizioa goian dago; slotaren restart_lsn-a ez nahastu.",
                )
            )
        )

    def booking_block() -> None:
        b.user("Goikoetxea familiak deitu du, larunbaterako erreserba dutela dio. Aurkitu.")
        rows = [
            (decoy_codes[0], "Etxeberria", "2025-03-15", "13:30", 8),
            (code, "Goikoetxea", "2025-03-15", "21:00", 12),
            (decoy_codes[1], "Goikoetxea Arana", "2025-03-22", "14:00", 4),
        ]
        rng.shuffle(rows)
        body = "\n".join(f" {c} | {n:<16} | {d} | {h} | {p:>9}" for c, n, d, h, p in rows)
        b.tool(
            "Bilatzen dut.",
            "bash",
            _cmd(
                f"{_PSQL} -c \"SELECT kodea, izena, data, ordua, pertsonak FROM erreserbak WHERE izena ILIKE '%etxe%' AND data >= '2025-03-15';\""
            ),
            f"   kodea    |      izena       |    data    | ordua | pertsonak\n"
            f"------------+------------------+------------+-------+-----------\n{body}\n(3 rows)",
        )
        b.assistant(
            rng.choice(
                (
                    f"Aurkituta: **{code}**, larunbata 21:00, 12 pertsona. Goikoetxea Arana beste "
                    "familia bat da (22an).",
                    f"Erreserba `{code}` da — 15ean, 21:00etan, 12 lagun.",
                    "Larunbateko Goikoetxea erreserba lerro horretan dago (21:00, 12 pertsona).",
                )
            )
        )

    def payment_block() -> None:
        b.user("Aurrerapena ordainduta dago? Stripe-ko IDa behar dut itzulketa egiteko.")
        b.tool(
            "Ordainketak begiratzen ditut.",
            "bash",
            _cmd(
                f"{_PSQL} -x -c \"SELECT * FROM ordainketak WHERE erreserba_kodea IN ('{code}', '{decoy_codes[2]}');\""
            ),
            f"-[ RECORD 1 ]---+-----------------------------\nerreserba_kodea | {decoy_codes[2]}\n"
            f"stripe_id       | {decoy_payment}\nzenbatekoa      | 40.00\negoera          | refunded\n"
            f"-[ RECORD 2 ]---+-----------------------------\nerreserba_kodea | {code}\n"
            f"stripe_id       | {payment}\nzenbatekoa      | 120.00\negoera          | succeeded",
        )
        b.assistant(
            rng.choice(
                (
                    f"Bai, 120 € ordainduta. Stripe IDa: `{payment}`.",
                    f"Aurrerapena `{payment}` da (succeeded); bestea, itzulita, ez da haiena.",
                    "Ordainduta dago (2. erregistroa, succeeded).",
                )
            )
        )

    def read_block() -> None:
        b.user("Erakutsi erreserbak taularen egitura.")
        b.tool(
            "\\d erabiltzen dut.",
            "bash",
            _cmd(f'{_PSQL} -c "\\d erreserbak"'),
            '                Table "public.erreserbak"\n  Column   |  Type   | Nullable | Default\n'
            "-----------+---------+----------+---------\n kodea     | text    | not null |\n"
            " izena     | text    | not null |\n data      | date    | not null |\n"
            " ordua     | time    | not null |\n txanda    | integer |          |\n"
            ' pertsonak | integer | not null |\nIndexes:\n    "erreserbak_pkey" PRIMARY KEY, btree (kodea)',
        )
        b.assistant("Gako nagusia bakarrik dago; data ez dago indexatuta, horregatik motela.")

    def log_block() -> None:
        lines = "\n".join(
            f"2025-03-1{rng.randint(0, 2)} {_hhmmss(rng)}.{rng.randint(100, 999)} CET [{rng.randint(1000, 9999)}] "
            f"LOG:  duration: {rng.randint(1500, 4000)}.{rng.randint(100, 999)} ms  statement: SELECT * FROM "
            "erreserbak WHERE data = '2025-03-15'"
            for _ in range(4)
        )
        b.user(f"Hau ikusi dut logean:\n```\n{lines}\n```")
        b.assistant(
            "Data bidezko bilaketek 1,5–4 s hartzen dute: seq scan osoa. Indize batek konponduko luke."
        )

    art_blocks = []
    for art in rng.sample(_EU_ARTS, 2):
        block, probe = _artifact(rng, b, art, _EU_NEUTRAL)
        art_blocks.append(block)
        probes.append(probe)
    decide, correction, decision = _decision(rng, b, _EU_CHOICE)
    step, next_step = _next_step(rng, b, _EU_STEPS)
    probes += [decision, next_step]
    middle = [
        lsn_block,
        booking_block,
        payment_block,
        read_block,
        log_block,
        *art_blocks,
        decide,
        step,
    ]
    _assemble(rng, intro, middle, [(decide, correction)])
    opening = b.take()
    return opening, segments_of(rng, b, segments, _filler(b, _eu_fills())), probes


# --- batik_shopify_ms: a Kelantan batik shop's Shopify theme, in Malay ----------------

_MS_NEUTRAL = (
    "OK, itu sahaja. Teruskan.",
    "Siap, output ada di atas.",
    "Baik. Saya sambung yang lain.",
)


def _ms_git(
    state: str,
    path: str,
    said: tuple[str, ...],
    words: tuple[str, ...],
    asks: tuple[str, ...],
    quiet: _Call,
    answer: str,
) -> _Art:
    staged = state in ("deleted:", "new file:", "renamed:")
    section = "Changes to be committed:" if staged else "Changes not staged for commit:"
    name = path.split(" ")[0].split("/")[-1]
    return _Art(
        name,
        words,
        asks,
        _Call(
            "Semak status git.",
            "bash",
            _cmd("git add -A && git status" if staged else "git status"),
            _git_status("raya-2025", section, state, path),
        ),
        quiet,
        said,
        f"What happened to {name}?",
        answer,
    )


_MS_ARTS = (
    _ms_git(
        "modified:",
        "sections/hero-batik.liquid",
        (
            "Saya dah ubah `hero-batik.liquid`: banner kini guna `image_url` dengan `srcset`.",
            "**hero-batik.liquid** — dikemas kini, gambar hero lebih ringan (WebP).",
            "| Fail | Status |\n|---|---|\n| `hero-batik.liquid` | diubah (+9 −4) |",
        ),
        ("modif", "edit", "chang", "updat", "ubah", "kemas kini", "dikemaskini", "suntin"),
        ("Banner hero terlalu berat, betulkan section tu.", "Tukar gambar hero kepada srcset."),
        _Call(
            "Edit section.",
            "str_replace",
            {
                "path": "sections/hero-batik.liquid",
                "old_str": "img_url: 'master'",
                "new_str": "image_url: width: 1600",
            },
            "OK",
        ),
        "it was modified (responsive srcset images)",
    ),
    _ms_git(
        "deleted:",
        "snippets/harga-lama.liquid",
        (
            "Saya dah padam `harga-lama.liquid`; tiada template yang render lagi.",
            "**harga-lama.liquid** dibuang dari tema.",
            "Snippet `harga-lama.liquid`, yang dulu tunjuk harga sebelum diskaun, kini sudah dihapus.",
        ),
        ("delet", "remov", "padam", "buang", "hapus"),
        ("Snippet harga lama tu dah tak guna, buang.", "Padam harga-lama.liquid."),
        _Call(
            "Buang fail.", "bash", _cmd("rm snippets/harga-lama.liquid"), "(no output, exit code 0)"
        ),
        "it was deleted",
    ),
    _ms_git(
        "new file:",
        "assets/batik-zoom.js",
        (
            "Saya cipta `batik-zoom.js` baru untuk zoom corak kain pada halaman produk.",
            "**batik-zoom.js** — fail baru, ditambah dalam `assets/`.",
            "Skrip zoom, `batik-zoom.js`, yang dimuat dengan `defer` dari theme.liquid, sudah dibuat.",
        ),
        ("creat", "new", "added", "cipta", "baru", "tambah", "dibuat"),
        (
            "Pelanggan nak zoom corak batik. Buat skrip kecil.",
            "Tambah fungsi zoom untuk gambar produk.",
        ),
        _Call(
            "Tulis skrip.",
            "write_file",
            {
                "path": "assets/batik-zoom.js",
                "content": "document.querySelectorAll('[data-zoom]')…",
            },
            "ok: 64 lines",
        ),
        "it was created (zoom script for product images)",
    ),
    _ms_git(
        "renamed:",
        "sections/ulasan-pelanggan.liquid -> sections/testimoni.liquid",
        (
            "Saya namakan semula `ulasan-pelanggan.liquid` kepada `testimoni.liquid`.",
            "**ulasan-pelanggan.liquid** → `testimoni.liquid` (tukar nama, JSON template dikemas).",
            "Section ulasan, `ulasan-pelanggan.liquid`, kini bernama `testimoni.liquid` — tukar nama sahaja.",
        ),
        ("renam", "namakan semula", "tukar nama", "bernama", "moved", "pindah"),
        ("Tukar nama section ulasan kepada testimoni.", "Rename section ulasan pelanggan."),
        _Call(
            "git mv.",
            "bash",
            _cmd("git mv sections/ulasan-pelanggan.liquid sections/testimoni.liquid"),
            "(no output, exit code 0)",
        ),
        "it was renamed to testimoni.liquid",
    ),
    _Art(
        "kain-sutera-terengganu",
        ("archiv", "arkib"),
        (
            "Kain sutera Terengganu dah habis stok, arkibkan produk tu.",
            "Arkibkan produk sutera Terengganu.",
        ),
        _Call(
            "Hantar mutation.",
            "shopify_graphql",
            {
                "query": 'mutation { productUpdate(input: {id: "gid://shopify/Product/8123456789012", status: ARCHIVED}) { product { handle status } userErrors { message } } }'
            },
            '{"data":{"productUpdate":{"product":{"handle":"kain-sutera-terengganu","status":"ARCHIVED"},'
            '"userErrors":[]}},"extensions":{"cost":{"requestedQueryCost":10,"actualQueryCost":10}}}',
        ),
        _Call(
            "Hantar mutation.",
            "shopify_graphql",
            {
                "query": 'mutation { productUpdate(input: {id: "gid://shopify/Product/8123456789012", status: ARCHIVED}) { product { id } userErrors { message } } }'
            },
            '{"data":{"productUpdate":{"product":{"id":"gid://shopify/Product/8123456789012"},'
            '"userErrors":[]}}}',
        ),
        (
            "Produk `kain-sutera-terengganu` dah diarkib; tak muncul lagi di kedai.",
            "**kain-sutera-terengganu**: status ARCHIVED.",
            "Kain sutera dari Terengganu (`kain-sutera-terengganu`), yang habis stok minggu lepas, sudah saya arkibkan.",
        ),
        "What happened to the product kain-sutera-terengganu?",
        "it was archived",
    ),
)

_MS_CHOICE = _Choice(
    values=(("RM150", "RM 150"), ("RM200", "RM 200"), ("RM120", "RM 120")),
    topic=("penghantaran", "shipping", "pos percuma", "free ship", "threshold"),
    question="What order threshold was settled for free shipping?",
    prompt=(
        "Berapa had minimum untuk penghantaran percuma?",
        "Apa cadangan awak untuk had penghantaran percuma?",
    ),
    dictate=(
        "Penghantaran percuma untuk pesanan {v} ke atas, bukan {r} — margin kain sutera nipis.",
        "Had penghantaran percuma: {v}. Itu muktamad, jangan ubah.",
    ),
    early=("Letak had penghantaran percuma {v}.",),
    override=(
        "Tak jadi {r}. Saya ubah fikiran — penghantaran percuma mulai {v}.",
        "Pembetulan: lupakan {r}, had penghantaran percuma ialah {v}.",
    ),
    propose=(
        "Saya cadangkan penghantaran percuma untuk pesanan {v} ke atas — purata troli "
        "sekarang sekitar RM140. Boleh?",
        "Untuk penghantaran percuma saya pilih had {v}; kos J&T masih tertanggung. Setuju?",
    ),
    yes=("Ya, boleh.", "Boleh.", "OK, jalan."),
    modify=("Bukan {r}; had penghantaran percuma {v}.", "Hampir, tapi ganti {r} dengan {v}."),
    relay=(
        "Kak Ros dari kewangan kata {r} tak sesuai — penghantaran percuma kita buat {v}.",
        "Saya dah cakap dengan Faiz (pemasaran): had penghantaran percuma {v}, {r} ditolak.",
    ),
    ask=(
        "Had penghantaran percuma nak {v} atau {r}?",
        "Sebelum saya push: penghantaran percuma mulai {v} atau {r}?",
    ),
    reply=("{v}.", "{v}, mestilah.", "{v} lah."),
    ack=(
        "Baik: had penghantaran percuma ialah {v}.",
        "OK — saya set penghantaran percuma mulai {v} dalam tetapan kedai.",
    ),
)

_MS_STEPS = _Steps(
    todos=(
        _Todo(
            ("preview", "pratonton"),
            ("send", "hantar", "kongsi", "share"),
            "hantar pautan preview tema kepada Kak Ros",
            "send the theme preview link to Kak Ros",
        ),
        _Todo(
            ("metafield",),
            ("migrat", "pindah", "import", "isi"),
            "pindahkan metafield saiz kain ke produk baru",
            "migrate the fabric-size metafields to the new products",
        ),
        _Todo(
            ("merchant center", "google merchant", "feed"),
            ("sync", "segerak", "kemas kini", "update"),
            "segerakkan feed Google Merchant Center",
            "sync the Google Merchant Center feed",
        ),
    ),
    whens=(
        ("sebelum Khamis jam 10 pagi", "before Thursday 10 am"),
        ("lepas Kak Ros luluskan", "after Kak Ros approves"),
        ("sebelum jualan Raya bermula", "before the Raya sale starts"),
        ("esok pagi", "tomorrow morning"),
    ),
    mine=(
        "Lepas siap ni, saya akan {task} {when} — saya uruskan.",
        "Satu lagi belum selesai: {when} saya akan {task}. Nanti saya maklumkan.",
        "Belum siap: **{task}** — saya buat {when}.",
    ),
    theirs=(
        "Jangan lupa: {when} kena {task}.",
        "Ingatkan saya {when} kita perlu {task}.",
        "Saya sendiri akan {task} {when}, awak cuma sediakan tema.",
    ),
    prompts=("Apa lagi yang tinggal?", "Ada apa-apa lagi yang belum selesai?"),
    acks=("Dah catat.", "Baik, ada dalam senarai.", "OK, noted."),
    passing=(
        (
            "Terima kasih. By the way, Faiz kata internet kat kedai lambat lagi.",
            "Lagi satu, berapa pesanan hari ni?",
        ),
        ("Nampak okey.", "Esok saya cuti separuh hari, mesej je kat WhatsApp."),
    ),
)


def _ms_fills() -> tuple[_Fill, ...]:
    return (
        _Fill(
            ("Jalankan theme check.", "Ada amaran dalam tema tak?"),
            "Jalankan theme check.",
            "bash",
            lambda r: _cmd("shopify theme check --fail-level error"),
            lambda r: (
                f"{r.choice(['sections/footer.liquid', 'snippets/kad-produk.liquid', 'layout/theme.liquid', 'sections/koleksi-utama.liquid'])}:"
                f"{r.randint(3, 220)} [{r.choice(['warning', 'suggestion'])}] "
                f"{r.choice(['ImgWidthAndHeight', 'RemoteAsset', 'UnusedAssign', 'TranslationKeyExists'])}"
            ),
            ("Hanya amaran kecil, tiada ralat. Boleh dibaiki kemudian.",),
        ),
        _Fill(
            ("Berapa pesanan belum dipenuhi?", "Senaraikan pesanan yang belum dihantar."),
            "Tanya Admin API.",
            "shopify_graphql",
            lambda r: {
                "query": '{ orders(first: 8, query: "fulfillment_status:unfulfilled") { nodes { name totalPriceSet { shopMoney { amount } } } } }'
            },
            lambda r: (
                f'{{"name":"#{r.randint(2000, 2999)}","totalPriceSet":{{"shopMoney":{{"amount":"{r.randint(40, 600)}.00"}}}}}}'
            ),
            ("Beberapa pesanan menunggu; kebanyakannya dari Lembah Klang.",),
        ),
        _Fill(
            ("Kenapa halaman koleksi lambat?", "Semak Lighthouse untuk koleksi."),
            "Jalankan Lighthouse.",
            "bash",
            lambda r: _cmd(
                "npx lighthouse https://batik-kelantan.myshopify.com/collections/all --quiet --output=csv"
            ),
            lambda r: (
                f'"{r.choice(["largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index"])}",'
                f'"{r.randint(0, 100) / 100}","{r.randint(1, 9)}.{r.randint(0, 9)} s"'
            ),
            ("LCP tinggi sebab gambar koleksi belum lazy-load; saya catat untuk sprint depan.",),
        ),
    )


def _batik(rng: random.Random, b: Builder, segments: int) -> Parts:
    theme = str(rng.randint(140_000_000_000, 149_999_999_999))
    live_theme = str(rng.randint(130_000_000_000, 139_999_999_999))
    order = f"gid://shopify/Order/{rng.randint(5_000_000_000_000, 5_999_999_999_999)}"
    other_order = f"gid://shopify/Order/{rng.randint(5_000_000_000_000, 5_999_999_999_999)}"
    code = f"RAYA-{token(rng, 6)}"
    probes = [
        _identifier("What is the ID of the unpublished 'Raya 2025' theme?", theme),
        _identifier("What is the GID of Puan Zainab's order with the wrong sarong size?", order),
        _identifier("Which discount code was created for the Raya sale?", code),
    ]

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Assalamualaikum! Kedai batik kami di Kota Bharu guna Shopify (tema Dawn yang "
                    "diubah suai). Kita nak siapkan tema Raya 2025 dan beberapa urusan kedai. "
                    "Repo tema ada di ~/kedai/tema-batik.",
                    "Hai. Jualan Raya dah dekat, tema baru belum siap. Shopify CLI dah login ke "
                    "batik-kelantan.myshopify.com. Boleh tolong?",
                )
            )
        )
        b.tool(
            "Semak versi CLI.",
            "bash",
            _cmd("shopify version"),
            "Current Shopify CLI version: 3.69.3",
        )
        b.assistant("CLI 3.69 — OK. Mula dengan senarai tema.")

    def theme_block() -> None:
        b.user("Tema Raya yang mana satu? Ada beberapa salinan.")
        out = (
            "  name                       role           id\n"
            "  ─────────────────────────────────────────────────────────\n"
            f"  Dawn – Batik Kelantan      [live]         #{live_theme}\n"
            f"  Raya 2025                  [unpublished]  #{theme}\n"
            f"  Raya 2025 (salinan lama)   [unpublished]  #{int(theme) - rng.randint(1000, 90000)}"
        )
        b.tool("Senarai tema.", "bash", _cmd("shopify theme list --store batik-kelantan"), out)
        b.assistant(
            rng.choice(
                (
                    f"Tema Raya yang betul ialah **#{theme}**; yang 'salinan lama' boleh diabaikan.",
                    f"Kita guna `{theme}` (Raya 2025, unpublished).",
                    "Yang kedua dalam senarai ialah tema Raya kita; salinan lama tak perlu.",
                )
            )
        )

    def order_block() -> None:
        b.user("Puan Zainab dapat saiz sarung salah. Cari pesanan dia.")
        out = (
            '{"data":{"orders":{"nodes":['
            f'{{"id":"{other_order}","name":"#{rng.randint(2000, 2999)}","customer":{{"displayName":"Zainab Yusof"}},'
            '"displayFulfillmentStatus":"UNFULFILLED","createdAt":"2025-03-10T02:11:09Z"},'
            f'{{"id":"{order}","name":"#{rng.randint(2000, 2999)}","customer":{{"displayName":"Zainab Ismail"}},'
            '"displayFulfillmentStatus":"FULFILLED","createdAt":"2025-03-04T08:45:51Z",'
            '"note":"Sarung saiz L, tapi dapat M"}]}}}'
        )
        b.tool(
            "Cari dalam Admin API.",
            "shopify_graphql",
            {
                "query": '{ orders(first: 5, query: "customer:Zainab") { nodes { id name customer { displayName } displayFulfillmentStatus createdAt note } } }'
            },
            out,
        )
        b.assistant(
            rng.choice(
                (
                    f"Jumpa: `{order}` (Zainab Ismail, sudah dihantar, nota pasal saiz). Zainab "
                    "Yusof pelanggan lain.",
                    f"Pesanan Puan Zainab ialah **{order}**.",
                    "Pesanan kedua dalam jawapan tu yang betul — ada nota 'dapat M'.",
                )
            )
        )

    def code_block() -> None:
        b.user("Buat kod diskaun 15% untuk jualan Raya, satu kali guna setiap pelanggan.")
        out = (
            '{"data":{"discountCodeBasicCreate":{"codeDiscountNode":{"id":"gid://shopify/'
            f'DiscountCodeNode/{rng.randint(1_000_000_000_000, 1_999_999_999_999)}","codeDiscount":'
            f'{{"title":"Raya 15%","codes":{{"nodes":[{{"code":"{code}"}}]}},"startsAt":'
            '"2025-03-20T00:00:00+08:00","appliesOncePerCustomer":true}},"userErrors":[]}}}'
        )
        b.tool(
            "Cipta diskaun.",
            "shopify_graphql",
            {
                "query": 'mutation { discountCodeBasicCreate(basicCodeDiscount: {title: "Raya 15%", appliesOncePerCustomer: true, customerGets: {value: {percentage: 0.15}, items: {all: true}}}) { codeDiscountNode { id codeDiscount { ... on DiscountCodeBasic { title codes(first: 1) { nodes { code } } startsAt appliesOncePerCustomer } } } userErrors { field message } } }'
            },
            out,
        )
        b.assistant(
            rng.choice(
                (
                    f"Kod diskaun: `{code}` (15%, sekali setiap pelanggan, mula 20 Mac).",
                    f"Siap — **{code}**.",
                    "Diskaun dah dicipta, kod ada dalam respons di atas.",
                )
            )
        )

    def read_block() -> None:
        b.user("Tengok settings_data untuk warna tema.")
        b.tool(
            "Baca config.",
            "bash",
            _cmd(
                "jq '.current.colors_solid_button_labels, .current.colors_accent_1' config/settings_data.json"
            ),
            '"#FFFFFF"\n"#8B1E3F"',
        )
        b.assistant("Warna aksen maroon `#8B1E3F`, label butang putih — sesuai untuk tema Raya.")

    def log_block() -> None:
        lines = "\n".join(
            f"{_hhmmss(rng)} │ {rng.choice(['GET', 'GET', 'POST'])} {rng.choice(['/', '/products/batik-tulis', '/cart/add.js', '/collections/sarung'])} "
            f"{rng.choice([200, 200, 304, 422])} {rng.randint(40, 900)}ms"
            for _ in range(5)
        )
        b.user(f"Ni log dari `shopify theme dev` tadi:\n```\n{lines}\n```")
        b.assistant(
            "Ada 422 pada `/cart/add.js` — biasanya variant tiada stok. Bukan masalah tema."
        )

    art_blocks = []
    for art in rng.sample(_MS_ARTS, 2):
        block, probe = _artifact(rng, b, art, _MS_NEUTRAL)
        art_blocks.append(block)
        probes.append(probe)
    decide, correction, decision = _decision(rng, b, _MS_CHOICE)
    step, next_step = _next_step(rng, b, _MS_STEPS)
    probes += [decision, next_step]
    middle = [
        theme_block,
        order_block,
        code_block,
        read_block,
        log_block,
        *art_blocks,
        decide,
        step,
    ]
    _assemble(rng, intro, middle, [(decide, correction)])
    opening = b.take()
    return opening, segments_of(rng, b, segments, _filler(b, _ms_fills())), probes


# --- paat_maven_bn: a jute exporter's Spring Boot shipment service, in Bengali -----------

_BN_NEUTRAL = ("ঠিক আছে, এটুকুই। এগোচ্ছি।", "হয়ে গেছে, আউটপুট উপরে।", "ওকে। বাকিগুলো ধরছি।")


def _bn_git(
    state: str,
    path: str,
    said: tuple[str, ...],
    words: tuple[str, ...],
    asks: tuple[str, ...],
    quiet: _Call,
    answer: str,
) -> _Art:
    staged = state in ("deleted:", "new file:")
    section = "Changes to be committed:" if staged else "Changes not staged for commit:"
    name = path.split("/")[-1]
    return _Art(
        name,
        words,
        asks,
        _Call(
            "git status দেখছি।",
            "bash",
            _cmd("git add -A && git status" if staged else "git status"),
            _git_status("feature/hs-code", section, state, path),
        ),
        quiet,
        said,
        f"What happened to {name}?",
        answer,
    )


_BN_ARTS = (
    _Art(
        "ShipmentServiceTest",
        ("fail", "ফেল", "ব্যর্থ", "পাস করছে না", "পাস হচ্ছে না"),
        ("টেস্টগুলো চালাও তো।", "mvn test চালিয়ে দেখো সব সবুজ কিনা।"),
        _Call(
            "Surefire চালাচ্ছি।",
            "bash",
            _cmd("./mvnw -q test"),
            "[ERROR] Tests run: 12, Failures: 2, Errors: 0, Skipped: 0, Time elapsed: 1.84 s "
            "<<< FAILURE! -- in com.paatex.shipment.service.ShipmentServiceTest\n"
            "[ERROR] com.paatex.shipment.service.ShipmentServiceTest.calculatesFreightForHessianBales"
            " -- Time elapsed: 0.031 s <<< FAILURE!\norg.opentest4j.AssertionFailedError: "
            "expected: <1840.50> but was: <1790.50>\n[ERROR] Tests run: 87, Failures: 2, Errors: 0, "
            "Skipped: 0\n[ERROR] BUILD FAILURE",
        ),
        _Call(
            "Surefire চালাচ্ছি।",
            "bash",
            _cmd("./mvnw -q test 2>&1 | tail -n 4"),
            "[INFO] Results:\n[INFO]\n[ERROR] Tests run: 87, Failures: 2, Errors: 0, Skipped: 0\n"
            "[INFO] BUILD FAILURE",
        ),
        (
            "`ShipmentServiceTest`-এ ২টা টেস্ট ফেল করছে — ফ্রেইট হিসাবে ৫০ টাকার গরমিল।",
            "সব সবুজ নয়: **ShipmentServiceTest** — ২টা টেস্ট পাস করছে না (হেসিয়ান বেল)।",
            "- `ShipmentServiceTest`: ১২টার মধ্যে ২টা ব্যর্থ, বাকি ৮৫টা টেস্ট পাস",
        ),
        "What is the state of ShipmentServiceTest?",
        "two tests fail (freight calculation)",
    ),
    _bn_git(
        "new file:",
        "src/main/resources/db/migration/V7__add_hs_code.sql",
        (
            "নতুন Flyway মাইগ্রেশন `V7__add_hs_code.sql` তৈরি করেছি — shipments টেবিলে hs_code কলাম।",
            "**V7__add_hs_code.sql** — নতুন ফাইল, যোগ করা হয়েছে।",
            "HS কোডের জন্য মাইগ্রেশন, `V7__add_hs_code.sql`, যেটা V6-এর পরে চলবে, তৈরি হয়ে গেছে।",
        ),
        ("creat", "new", "added", "তৈরি", "নতুন", "যোগ"),
        ("শিপমেন্টে HS কোড রাখতে হবে, মাইগ্রেশন লেখো।", "hs_code কলামের জন্য Flyway মাইগ্রেশন বানাও।"),
        _Call(
            "মাইগ্রেশন লিখছি।",
            "write_file",
            {
                "path": "src/main/resources/db/migration/V7__add_hs_code.sql",
                "content": "ALTER TABLE shipments ADD COLUMN hs_code varchar(10);",
            },
            "ok: 1 line",
        ),
        "it was created (Flyway migration adding hs_code)",
    ),
    _bn_git(
        "modified:",
        "src/main/resources/application-prod.yml",
        (
            "`application-prod.yml` পরিবর্তন করেছি: Hikari pool 10 থেকে 25।",
            "**application-prod.yml** — আপডেট: `maximum-pool-size: 25`।",
            "| ফাইল | অবস্থা |\n|---|---|\n| `application-prod.yml` | পরিবর্তিত (+2 −1) |",
        ),
        ("modif", "chang", "edit", "updat", "পরিবর্তন", "পরিবর্তি", "বদল", "আপডেট", "এডিট"),
        ("প্রোডে কানেকশন পুল ছোট, বাড়াও।", "প্রোড কনফিগে Hikari pool 25 করো।"),
        _Call(
            "কনফিগ বদলাচ্ছি।",
            "str_replace",
            {
                "path": "src/main/resources/application-prod.yml",
                "old_str": "maximum-pool-size: 10",
                "new_str": "maximum-pool-size: 25",
            },
            "OK",
        ),
        "it was modified (Hikari pool size 25)",
    ),
    _bn_git(
        "deleted:",
        "src/main/java/com/paatex/shipment/web/LegacyInvoiceController.java",
        (
            "`LegacyInvoiceController.java` মুছে দিয়েছি; /v0/invoice কেউ আর কল করে না।",
            "**LegacyInvoiceController.java** বাদ দেওয়া হয়েছে।",
            "পুরনো ইনভয়েস এন্ডপয়েন্টের ক্লাস, `LegacyInvoiceController.java`, রিপো থেকে সরিয়ে ফেলেছি।",
        ),
        ("delet", "remov", "মুছ", "বাদ", "সরিয়ে", "ডিলিট"),
        ("পুরনো ইনভয়েস কন্ট্রোলার আর লাগবে না, ফেলে দাও।", "LegacyInvoiceController মুছে দাও।"),
        _Call(
            "মুছছি।",
            "bash",
            _cmd("rm src/main/java/com/paatex/shipment/web/LegacyInvoiceController.java"),
            "(no output, exit code 0)",
        ),
        "it was deleted",
    ),
    _Art(
        "paatex-shipment-1.8.2.jar",
        ("upload", "deploy", "publish", "আপলোড", "ডিপ্লয়", "প্রকাশ"),
        ("1.8.2 রিলিজটা Nexus-এ তুলে দাও।", "mvn deploy করো, ভার্সন 1.8.2।"),
        _Call(
            "deploy চালাচ্ছি।",
            "bash",
            _cmd("./mvnw -DskipTests deploy 2>&1 | grep -E 'Uploaded|BUILD'"),
            "Uploaded to nexus-releases: https://nexus.paatex.com.bd/repository/maven-releases/com/"
            "paatex/paatex-shipment/1.8.2/paatex-shipment-1.8.2.pom (9.1 kB at 31 kB/s)\n"
            "Uploaded to nexus-releases: https://nexus.paatex.com.bd/repository/maven-releases/com/"
            "paatex/paatex-shipment/1.8.2/paatex-shipment-1.8.2.jar (48 MB at 12 MB/s)\n[INFO] BUILD SUCCESS",
        ),
        _Call(
            "deploy চালাচ্ছি।",
            "bash",
            _cmd("./mvnw -q -DskipTests deploy && echo done"),
            "done",
        ),
        (
            "`paatex-shipment-1.8.2.jar` Nexus-এ আপলোড হয়ে গেছে (maven-releases)।",
            "**paatex-shipment-1.8.2.jar** — ডিপ্লয় সম্পন্ন।",
            "রিলিজ আর্টিফ্যাক্ট `paatex-shipment-1.8.2.jar`, ৪৮ MB, এখন maven-releases রিপোতে প্রকাশিত।",
        ),
        "What happened to paatex-shipment-1.8.2.jar?",
        "it was deployed (uploaded) to Nexus maven-releases",
    ),
)

_BN_CHOICE = _Choice(
    values=(("3.3.5",), ("3.2.11",), ("3.4.1",)),
    topic=("spring boot", "spring-boot", "স্প্রিং", "upgrade", "আপগ্রেড"),
    question="Which Spring Boot version was settled for the upgrade?",
    prompt=("Spring Boot কোন ভার্সনে আপগ্রেড করব?", "Spring Boot আপগ্রেডের জন্য তোমার প্রস্তাব কী?"),
    dictate=(
        "Spring Boot {v}-তে আপগ্রেড করো, {r} না — আমাদের Nexus-এ শুধু ওটার BOM আছে।",
        "Spring Boot ভার্সন: {v}। এটাই সিদ্ধান্ত, অন্য কিছু চেষ্টা কোরো না।",
    ),
    early=("Spring Boot {v}-তে আপগ্রেড করে দাও।",),
    override=(
        "না, {r} না। মত বদলেছি — Spring Boot {v}-তে যাব।",
        "সংশোধন: {r} বাদ দাও, Spring Boot আপগ্রেড হবে {v}-তে।",
    ),
    propose=(
        "আমি Spring Boot {v}-তে আপগ্রেডের প্রস্তাব দিচ্ছি — সাপোর্ট লম্বা, ডিপেন্ডেন্সি কনফ্লিক্ট কম। চলবে?",
        "Spring Boot {v} নিলে ভালো হয়; Hibernate মাইগ্রেশন সহজ। ঠিক আছে?",
    ),
    yes=("হ্যাঁ, চলবে।", "ঠিক আছে।", "ওকে, করো।"),
    modify=("{r} না; Spring Boot {v} নাও।", "প্রায় ঠিক, তবে {r}-এর বদলে {v}।"),
    relay=(
        "রহিম ভাই (DevOps) বলছেন {r}-এ প্রোডে সমস্যা হয়েছিল — Spring Boot {v}-তেই আপগ্রেড করব।",
        "তানিয়ার সাথে কথা হলো: Spring Boot {v}, {r} বাতিল।",
    ),
    ask=("Spring Boot কোনটায় আপগ্রেড করব: {v} নাকি {r}?", "PR খোলার আগে: Spring Boot {v} না {r}?"),
    reply=("{v}।", "{v}, অবশ্যই।", "{v}-ই হোক।"),
    ack=(
        "ঠিক হলো: Spring Boot আপগ্রেড হবে {v}-তে।",
        "আচ্ছা — pom.xml-এ spring-boot-starter-parent {v} সেট করছি।",
    ),
)

_BN_STEPS = _Steps(
    todos=(
        _Todo(
            ("release note", "রিলিজ নোট"),
            ("send", "পাঠা", "share", "লিখ", "write"),
            "রহিম ভাইকে রিলিজ নোট পাঠানো",
            "send the release notes to Rahim bhai",
        ),
        _Todo(
            ("staging", "স্টেজিং"),
            ("smoke", "test", "টেস্ট", "পরীক্ষা", "চালা"),
            "স্টেজিং-এ স্মোক টেস্ট চালানো",
            "run the smoke test on staging",
        ),
        _Todo(
            ("v1.8.2",),
            ("tag", "ট্যাগ"),
            "git-এ v1.8.2 ট্যাগ দেওয়া",
            "tag v1.8.2 in git",
        ),
    ),
    whens=(
        ("বৃহস্পতিবার সকাল ১০টার মধ্যে", "by Thursday 10 am"),
        ("তানিয়া PR অ্যাপ্রুভ করলেই", "as soon as Tania approves the PR"),
        ("শুক্রবারের মিটিংয়ের আগে", "before Friday's meeting"),
        ("চট্টগ্রামের জাহাজ ছাড়ার আগে", "before the Chattogram vessel sails"),
    ),
    mine=(
        "এটা শেষ হলে {when} {task} আমি করব — এটা আমার দায়িত্ব।",
        "একটা কাজ বাকি: {when} {task} — আমি করে জানাব।",
        "এখনও হয়নি: **{task}** — {when} করে দেব।",
    ),
    theirs=(
        "ভুলো না: {when} {task} লাগবে।",
        "আমাকে মনে করিয়ে দিও যে {when} {task} বাকি।",
        "{when} {task} আমি নিজেই করব, তুমি শুধু বিল্ড রেডি রাখো।",
    ),
    prompts=("আর কী বাকি আছে?", "আর কিছু খোলা আছে?"),
    acks=("নোট করলাম।", "ঠিক আছে, লিস্টে রাখলাম।", "ওকে, লিখে রাখলাম।"),
    passing=(
        ("ধন্যবাদ। ও হ্যাঁ, রহিম ভাই বলছিলেন অফিসের ইন্টারনেট আবার স্লো।", "আচ্ছা, আজ কয়টা শিপমেন্ট বুক হলো?"),
        ("ভালো দেখাচ্ছে।", "আর কাল আমি বাসা থেকে কাজ করব, Slack-এ লিখো।"),
    ),
)


def _bn_fills() -> tuple[_Fill, ...]:
    return (
        _Fill(
            ("ডিপেন্ডেন্সি আপডেট কী কী আছে?", "কোন লাইব্রেরিগুলো পুরনো দেখো।"),
            "versions plugin চালাচ্ছি।",
            "bash",
            lambda r: _cmd("./mvnw -q versions:display-dependency-updates"),
            lambda r: (
                f"[INFO]   {r.choice(['org.postgresql:postgresql', 'org.mapstruct:mapstruct', 'com.github.ben-manes.caffeine:caffeine', 'org.apache.poi:poi-ooxml'])} "
                f"... {r.randint(1, 5)}.{r.randint(0, 9)}.{r.randint(0, 20)} -> {r.randint(1, 6)}.{r.randint(0, 9)}.{r.randint(0, 20)}"
            ),
            ("কয়েকটা মাইনর আপডেট আছে, জরুরি কিছু না।",),
        ),
        _Fill(
            ("অ্যাকচুয়েটর হেলথ দেখো।", "সার্ভিস ঠিক চলছে কিনা চেক করো।"),
            "health endpoint দেখছি।",
            "bash",
            lambda r: _cmd(
                "curl -s localhost:8080/actuator/health | jq -c '.components | to_entries[]'"
            ),
            lambda r: (
                f'{{"key":"{r.choice(["db", "diskSpace", "ping", "rabbit", "redis"])}","value":{{"status":"UP"}}}}'
            ),
            ("সব কম্পোনেন্ট UP।",),
        ),
        _Fill(
            ("আজকের এরর লগ দেখাও।", "লগে কোনো এক্সেপশন আছে?"),
            "লগ দেখছি।",
            "bash",
            lambda r: _cmd(
                "kubectl logs deploy/paatex-shipment --since=6h | grep -E 'WARN|ERROR' | tail"
            ),
            lambda r: (
                f"2025-03-11T{_hhmmss(r)}.{r.randint(100, 999)}+06:00  {r.choice(['WARN', 'WARN', 'ERROR'])} 1 --- "
                f"[paatex-shipment] [nio-8080-exec-{r.randint(1, 9)}] c.p.s.{r.choice(['client.CustomsClient', 'web.RateController', 'job.ExchangeRateJob'])} : "
                f"{r.choice(['Retrying request', 'Slow response from upstream', 'Rate cache miss'])}"
            ),
            ("কাস্টমস API মাঝে মাঝে ধীর; বাকি সব স্বাভাবিক।",),
        ),
    )


def _paat(rng: random.Random, b: Builder, segments: int) -> Parts:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    container = rng.choice(("MSCU", "MAEU", "CMAU", "HLXU")) + token(rng, 7, "0123456789")
    other_container = rng.choice(("ONEU", "EGLV", "OOLU")) + token(rng, 7, "0123456789")
    lc = f"SBL/LC/{rng.randint(1000, 9999)}/25/{token(rng, 2, letters)}{rng.randint(100, 999)}"
    other_lc = (
        f"SBL/LC/{rng.randint(1000, 9999)}/24/{token(rng, 2, letters)}{rng.randint(100, 999)}"
    )
    trace = hexits(rng, 32)
    probes = [
        _identifier("What is the container number of the hessian shipment to Hamburg?", container),
        _identifier("What is the letter of credit number for the Hamburg order?", lc),
        _identifier("What is the trace ID of the failed /api/shipments request?", trace),
    ]

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "আসসালামু আলাইকুম! আমাদের পাট রপ্তানির শিপমেন্ট সার্ভিস (Spring Boot, Maven, "
                    "Java 21) নিয়ে কাজ আছে: HS কোড যোগ, কিছু বাগ, আর রিলিজ। রিপো ~/work/paatex-shipment।",
                    "হ্যালো। হামবুর্গের চালানটা আটকে আছে, সার্ভিসে 500 আসছে। Spring Boot প্রজেক্ট, "
                    "Maven দিয়ে বিল্ড। একটু দেখবে?",
                )
            )
        )
        b.tool(
            "প্রথমে বিল্ড টুল দেখি।",
            "bash",
            _cmd("./mvnw -v | head -n 3"),
            "Apache Maven 3.9.9 (8e8579a9e76f7d015ee5ec7bfcdc97d260186937)\n"
            "Maven home: /home/dev/.m2/wrapper/dists/apache-maven-3.9.9\n"
            "Java version: 21.0.5, vendor: Eclipse Adoptium, runtime: /opt/java/temurin-21",
        )
        b.assistant("Maven 3.9.9, Java 21 — ঠিক আছে। শুরু করছি।")

    def trace_block() -> None:
        b.user("গতকাল /api/shipments-এ 500 এসেছিল, লগটা দেখো।")
        out = (
            f"2025-03-10T16:42:{rng.randint(10, 59)}.118+06:00 ERROR 1 --- [paatex-shipment] "
            f"[nio-8080-exec-3] [{trace}-{hexits(rng, 16)}] c.p.s.web.ShipmentController      : "
            "POST /api/shipments failed\njava.lang.IllegalStateException: LC amount exceeds "
            "tolerance (5%)\n\tat com.paatex.shipment.service.LcValidator.check(LcValidator.java:48)\n"
            f"2025-03-10T16:43:{rng.randint(10, 59)}.907+06:00  WARN 1 --- [paatex-shipment] "
            f"[nio-8080-exec-5] [{hexits(rng, 32)}-{hexits(rng, 16)}] c.p.s.client.CustomsClient        : "
            "Retrying request to customs API (attempt 2)"
        )
        b.tool(
            "লগ খুঁজছি।",
            "bash",
            _cmd(
                "kubectl logs deploy/paatex-shipment --since=24h | grep -B1 -A2 'shipments failed'"
            ),
            out,
        )
        b.assistant(
            rng.choice(
                (
                    f"traceId `{trace}` — LC-র অ্যামাউন্ট ৫% টলারেন্সের বাইরে, তাই 500। পরের WARN-টা আলাদা ব্যাপার।",
                    f"ব্যর্থ রিকোয়েস্টের ট্রেস: **{trace}**। কারণ LcValidator।",
                    "প্রথম লাইনটাই আমাদের এরর (ট্রেস আইডি সেখানে); কারণ LC টলারেন্স।",
                )
            )
        )

    def shipment_block() -> None:
        b.user("হামবুর্গের হেসিয়ান চালানটা কোন কনটেইনারে আর কোন LC-তে?")
        out = (
            '[{"id":4412,"buyer":"Hanse Jute GmbH","port":"DEHAM","container":"'
            f'{container}","lcNumber":"{lc}","bales":320,"status":"ON_HOLD"}},'
            '{"id":4398,"buyer":"Rotterdam Fibres BV","port":"NLRTM","container":"'
            f'{other_container}","lcNumber":"{other_lc}","bales":180,"status":"SHIPPED"}}]'
        )
        b.tool(
            "API থেকে দেখছি।",
            "bash",
            _cmd("curl -s 'localhost:8080/api/shipments?status=ON_HOLD,SHIPPED&since=2025-03-01'"),
            out,
        )
        b.assistant(
            rng.choice(
                (
                    f"হামবুর্গ: কনটেইনার `{container}`, LC `{lc}`, ৩২০ বেল, ON_HOLD। রটারডামেরটা আলাদা।",
                    f"কনটেইনার **{container}**; LC নম্বর **{lc}**।",
                    "প্রথম এন্ট্রিটাই হামবুর্গের (DEHAM, ON_HOLD) — কনটেইনার আর LC সেখানে আছে।",
                )
            )
        )

    def read_block() -> None:
        b.user("LcValidator ক্লাসটা একবার দেখো।")
        b.tool(
            "পড়ছি।",
            "bash",
            _cmd("sed -n 40,50p src/main/java/com/paatex/shipment/service/LcValidator.java"),
            "    public void check(Shipment s, LetterOfCredit lc) {\n"
            "        BigDecimal diff = s.invoiceTotal().subtract(lc.amount()).abs();\n"
            "        if (diff.compareTo(lc.amount().multiply(TOLERANCE)) > 0) {\n"
            '            throw new IllegalStateException("LC amount exceeds tolerance (5%)");\n        }\n    }',
        )
        b.assistant("টলারেন্স ৫% হার্ডকোডেড; UCP 600 অনুযায়ী এটা ঠিক আছে, তাই এখানে কিছু বদলাব না।")

    def chat_block() -> None:
        b.user(
            "রহিম ভাই বললেন ক্রেতা ইনভয়েসে ভাড়া আলাদা করে চেয়েছে, তাই অ্যামাউন্ট বেড়ে গেছে। "
            "এটা কোডের বাগ না মনে হয়?"
        )
        b.assistant(
            "হ্যাঁ, এটা ডেটার সমস্যা: ইনভয়েসে ফ্রেইট যোগ হওয়ায় LC-র চেয়ে বেশি। ব্যাংক থেকে LC "
            "সংশোধন লাগবে, কোডে নয়।"
        )

    art_blocks = []
    for art in rng.sample(_BN_ARTS, 2):
        block, probe = _artifact(rng, b, art, _BN_NEUTRAL)
        art_blocks.append(block)
        probes.append(probe)
    decide, correction, decision = _decision(rng, b, _BN_CHOICE)
    step, next_step = _next_step(rng, b, _BN_STEPS)
    probes += [decision, next_step]
    middle = [trace_block, shipment_block, read_block, chat_block, *art_blocks, decide, step]
    _assemble(rng, intro, middle, [(decide, correction)])
    opening = b.take()
    return opening, segments_of(rng, b, segments, _filler(b, _bn_fills())), probes


# --- saun_pulumi_et: a sauna rental platform's Azure in Pulumi, in Estonian -------------

_ET_NEUTRAL = (
    "Olgu, see on tehtud. Liigun edasi.",
    "Valmis, väljund on üleval.",
    "Ok. Jätkan ülejäänuga.",
)


def _pulumi_up(
    rng: random.Random, sign: str, kind: str, name: str, status: str, info: str, summary: str
) -> str:
    return (
        "Updating (prod)\n\nView in Browser (Ctrl+O): https://app.pulumi.com/saunarent/infra/prod/"
        f"updates/{rng.randint(100, 400)}\n\n"
        "     Type                                      Name                  Status              Info\n"
        "     pulumi:pulumi:Stack                       infra-prod\n"
        f" {sign:<3} └─ {kind:<40} {name:<21} {status:<19} {info}\n\n"
        f"Resources:\n    {summary}\n    28 unchanged\n\nDuration: {rng.randint(8, 160)}s"
    )


def _et_art(
    sign: str,
    kind: str,
    name: str,
    status: str,
    info: str,
    summary: str,
    words: tuple[str, ...],
    asks: tuple[str, ...],
    said: tuple[str, ...],
    answer: str,
) -> _Art:
    rng = random.Random(name)
    return _Art(
        name,
        words,
        asks,
        _Call(
            "Käivitan pulumi up.",
            "bash",
            _cmd("pulumi up --yes --stack prod"),
            _pulumi_up(rng, sign, kind, name, status, info, summary),
        ),
        _Call(
            "Käivitan pulumi up.",
            "bash",
            _cmd("pulumi up --yes --stack prod --suppress-progress --suppress-outputs | tail -n 6"),
            f"Resources:\n    {summary}\n    28 unchanged\n\nDuration: {rng.randint(8, 160)}s",
        ),
        said,
        f"What happened to the Azure resource {name}?",
        answer,
    )


_ET_ARTS = (
    _et_art(
        "-",
        "azure-native:cache:Redis",
        "saunarent-cache-old",
        "deleted (34s)",
        "",
        "- 1 deleted",
        ("delet", "remov", "kustut", "eemald"),
        (
            "Vana Redis pole enam kasutusel, eemalda see koodist ja käivita up.",
            "Kustuta vana cache ära.",
        ),
        (
            "`saunarent-cache-old` on kustutatud; keegi sellega enam ei ühendunud.",
            "**saunarent-cache-old** — eemaldatud (Redis, Basic C1).",
            "Vana Redis, `saunarent-cache-old`, mille eest maksime 40 € kuus, on nüüd kustutatud.",
        ),
        "it was deleted",
    ),
    _et_art(
        "+",
        "azure-native:storage:BlobContainer",
        "broneeringud-arhiiv",
        "created (1s)",
        "",
        "+ 1 created",
        ("creat", "new", "added", "loodud", "loodi", "lõin", "lisat", "uus"),
        (
            "Vanad broneeringud tuleb arhiveerida, tee neile blob container.",
            "Lisa arhiivi container.",
        ),
        (
            "Lõin uue blob containeri `broneeringud-arhiiv` (Cool tier).",
            "**broneeringud-arhiiv** — loodud, privaatne ligipääs.",
            "Arhiivi jaoks mõeldud container `broneeringud-arhiiv`, stsaunarentprod kontos, on nüüd loodud.",
        ),
        "it was created (Cool tier)",
    ),
    _et_art(
        "~",
        "azure-native:web:WebApp",
        "kalender-func",
        "updated (12s)",
        "[diff: ~siteConfig]",
        "~ 1 updated",
        ("updat", "modif", "chang", "uuend", "muudet", "muutsin"),
        (
            "Kalendri funktsioon vajab Node 20, muuda runtime'i.",
            "Uuenda kalendri function app Node 20 peale.",
        ),
        (
            "Muutsin `kalender-func` seadeid: `linuxFxVersion` on nüüd `NODE|20`.",
            "**kalender-func** — uuendatud (siteConfig, Node 20).",
            "| Ressurss | Olek |\n|---|---|\n| `kalender-func` | muudetud (~siteConfig) |",
        ),
        "it was updated (runtime Node 20)",
    ),
    _et_art(
        "=",
        "azure-native:servicebus:Queue",
        "makse-sb-queue",
        "imported (0.8s)",
        "",
        "= 1 imported",
        ("import", "impordi"),
        (
            "Maksete järjekord loodi käsitsi portaalis, impordi see Pulumisse.",
            "Too makse queue Pulumi haldusse.",
        ),
        (
            "`makse-sb-queue` on nüüd Pulumisse imporditud; diffi pole.",
            "**makse-sb-queue** — imporditud, `protect: true`.",
            "Portaalis käsitsi tehtud järjekord `makse-sb-queue` on stacki imporditud, ilma muudatusteta.",
        ),
        "it was imported into the Pulumi stack",
    ),
    _et_art(
        "+-",
        "azure-native:sql:Database",
        "saunarent-sql",
        "replaced (2m31s)",
        "[diff: ~sku]",
        "+-1 replaced",
        ("replac", "asenda", "recreat", "uuesti loo"),
        (
            "SQL andmebaas peab minema Serverless SKU peale.",
            "Vaheta andmebaasi SKU serverless'iks.",
        ),
        (
            "`saunarent-sql` asendati uuega (SKU muutus sundis replace'i); andmed taastasin bacpacist.",
            "**saunarent-sql** — asendatud (GP_S_Gen5_2).",
            "Andmebaas `saunarent-sql`, mille SKU muutus, loodi uuesti — Pulumi tegi replace'i.",
        ),
        "it was replaced (recreated with a serverless SKU)",
    ),
)

_ET_CHOICE = _Choice(
    values=(
        ("swedencentral", "Sweden Central"),
        ("northeurope", "North Europe"),
        ("westeurope", "West Europe"),
    ),
    topic=("region", "regioon", "piirkond", "location", "asukoh"),
    question="Which Azure region was settled for the new resources?",
    prompt=(
        "Millisesse regiooni uued ressursid panna?",
        "Mida soovitad uute ressursside regiooniks?",
    ),
    dictate=(
        "Uued ressursid lähevad regiooni {v}, mitte {r} — andmed peavad jääma lähedale.",
        "Regioon: {v}. See on otsustatud, ära katseta.",
    ),
    early=("Pane uute ressursside regiooniks {v}.",),
    override=(
        "Siiski mitte {r}. Mõtlesin ümber — regioon on {v}.",
        "Parandus: unusta {r}, uued ressursid lähevad regiooni {v}.",
    ),
    propose=(
        "Soovitan regiooniks {v} — latentsus Tallinnast on väike ja hinnad mõistlikud. Sobib?",
        "Paneksin ressursid regiooni {v}; seal on Flexible Server saadaval. Kas nõus?",
    ),
    yes=("Jah, sobib.", "Sobib.", "Olgu, teeme nii."),
    modify=("Mitte {r}; regioon olgu {v}.", "Peaaegu, aga {r} asemel pane {v}."),
    relay=(
        "Kadri (arhitekt) ütleb, et {r} on meile liiga kallis — regiooniks võtame {v}.",
        "Rääkisin Margusega (turve): regioon {v}, {r} on välistatud.",
    ),
    ask=("Millist regiooni tahad: {v} või {r}?", "Enne pulumi up'i: regioon {v} või {r}?"),
    reply=("{v}.", "{v}, muidugi.", "Olgu {v}."),
    ack=(
        "Kokku lepitud: uute ressursside regioon on {v}.",
        "Hästi — panen `azure-native:location` väärtuseks {v} (pulumi config set).",
    ),
)

_ET_STEPS = _Steps(
    todos=(
        _Todo(
            ("dns",),
            ("check", "verify", "kontrolli", "vaheta", "switch", "suuna"),
            "DNS-kirje broneeri.saunarent.ee suunata uuele Front Doorile",
            "point the broneeri.saunarent.ee DNS record at the new Front Door",
        ),
        _Todo(
            ("saladus", "secret"),
            ("rotat", "vaheta", "roteeri", "uuenda"),
            "Key Vaulti saladus `stripe-webhook` ära vahetada",
            "rotate the stripe-webhook secret in Key Vault",
        ),
        _Todo(
            ("eelarve", "budget"),
            ("set", "seadista", "lisa", "add", "alert", "häire"),
            "seadistada kulueelarve häire 400 € peale",
            "set up a 400 EUR cost budget alert",
        ),
    ),
    whens=(
        ("neljapäeva kella kümneks", "by Thursday 10:00"),
        ("kui Kadri PR-i kinnitab", "once Kadri approves the PR"),
        ("enne reedest koosolekut", "before Friday's meeting"),
        ("enne jaanipäeva broneeringute tormi", "before the Midsummer booking rush"),
    ),
    mine=(
        "Luban {when} {task} — see jääb minu teha.",
        "Üks asi on veel lahtine: {when} pean ma {task}. Annan teada, kui tehtud.",
        "Veel tegemata: **{task}** — teen selle {when}.",
    ),
    theirs=(
        "Ära unusta: {when} tuleb {task}.",
        "Tuleta mulle meelde, et {when} peame {task}.",
        "Ma ise pean {when} {task}, sina valmista ainult stack ette.",
    ),
    prompts=("Mis veel jäänud on?", "Kas midagi on veel lahtist?"),
    acks=("Kirjas.", "Olgu, on nimekirjas.", "Ok, märkisin üles."),
    passing=(
        (
            "Aitäh. Muide, Kadri ütles, et kontori VPN jälle hangub.",
            "Kui palju broneeringuid tänaseks on?",
        ),
        ("Tundub hea.", "Ja homme olen kodukontoris, kirjuta Slacki."),
    ),
)


def _et_fills() -> tuple[_Fill, ...]:
    return (
        _Fill(
            (
                "Kas preview näitab mingit drifti?",
                "Tee refresh ja vaata, kas midagi on käsitsi muudetud.",
            ),
            "Käivitan pulumi preview.",
            "bash",
            lambda r: _cmd("pulumi preview --stack prod --diff | grep -E '^ *[~+-]' | head"),
            lambda r: (
                f"    ~ {r.choice(['tags', 'appSettings', 'minTlsVersion', 'httpsOnly'])}: "
                f'"{token(r, 5).lower()}" => "{token(r, 5).lower()}"'
            ),
            ("Väike triiv siltides, keegi muutis portaalis; järgmine up parandab.",),
        ),
        _Fill(
            ("Palju me sel kuul Azure'ile maksame?", "Vaata kulud ressursigruppide kaupa."),
            "Küsin Cost Managementist.",
            "bash",
            lambda r: _cmd(
                "az costmanagement query --type ActualCost --timeframe MonthToDate --dataset-grouping name=ResourceGroup type=Dimension -o tsv"
            ),
            lambda r: (
                f"{r.randint(1, 300)}.{r.randint(10, 99)}\trg-{r.choice(['saunarent-dev', 'saunarent-shared', 'saunarent-logs', 'networking'])}\tEUR"
            ),
            ("Kulud on ootuspärased; logid on suurim kuluartikkel.",),
        ),
        _Fill(
            ("Kas funktsioonid logivad vigu?", "Vaata Application Insightsist erindeid."),
            "Päring App Insightsi.",
            "bash",
            lambda r: _cmd(
                "az monitor app-insights query --app saunarent-ai --analytics-query 'exceptions | take 8' -o tsv"
            ),
            lambda r: (
                f"2025-03-11T{_hhmmss(r)}Z\t{r.choice(['System.TimeoutException', 'Azure.RequestFailedException', 'HttpRequestException'])}\t"
                f"{r.choice(['broneering-api', 'teavitus-func', 'makse-webhook'])}"
            ),
            ("Üksikud timeoutid, muster puudub. Jälgin edasi.",),
        ),
    )


def _saun(rng: random.Random, b: Builder, segments: int) -> Parts:
    def uuid() -> str:
        return (
            f"{hexits(rng, 8)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 12)}"
        )

    subscription, dev_subscription, tenant = uuid(), uuid(), uuid()
    host = f"func-saunarent-{hexits(rng, 6)}.azurewebsites.net"
    number = rng.randint(100, 899)
    ticket, old_ticket = f"SAUN-{number}", f"SAUN-{number + rng.randint(3, 90)}"
    probes = [
        _identifier(
            "What is the Azure subscription ID of the production subscription?", subscription
        ),
        _identifier("What is the hostname of the booking API function app (stack output)?", host),
        _identifier("Which Jira ticket tracks the infrastructure clean-up?", ticket),
    ]

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Tere! Saunarendi platvormi taristu on Pulumis (TypeScript, Azure Native). "
                    "Vaja on koristada vanad ressursid ja valmistada ette suvehooaeg. Repo: ~/git/saunarent-infra.",
                    "Tšau. Meie Azure'i arve kasvab ja stackis on palju vana kraami. Pulumi "
                    "TypeScript, stack prod. Aitad?",
                )
            )
        )
        b.tool(
            "Vaatan stacki.",
            "bash",
            _cmd("pulumi stack ls"),
            "NAME   LAST UPDATE   RESOURCE COUNT  URL\n"
            "dev    3 days ago    24              https://app.pulumi.com/saunarent/infra/dev\n"
            "prod*  2 weeks ago   30              https://app.pulumi.com/saunarent/infra/prod",
        )
        b.assistant("Aktiivne stack on `prod` (30 ressurssi). Alustan.")

    def account_block() -> None:
        b.user(
            "Kontrolli, et oleme õiges subscriptionis — eelmine kord deployisime kogemata dev'i."
        )
        out = (
            "Name              CloudName    SubscriptionId                        TenantId"
            "                              State    IsDefault\n"
            "----------------  -----------  ------------------------------------  "
            "------------------------------------  -------  -----------\n"
            f"Saunarent-Dev     AzureCloud   {dev_subscription}  {tenant}  Enabled  False\n"
            f"Saunarent-Prod    AzureCloud   {subscription}  {tenant}  Enabled  True"
        )
        b.tool("Vaatan kontosid.", "bash", _cmd("az account list -o table"), out)
        b.assistant(
            rng.choice(
                (
                    f"Vaikimisi on Saunarent-Prod: `{subscription}`. Dev on `{dev_subscription}`, "
                    "seda me ei puutu.",
                    f"Õige: prod subscription **{subscription}** on default.",
                    "Oleme Saunarent-Prod all (IsDefault True), kõik korras.",
                )
            )
        )

    def output_block() -> None:
        b.user("Mis on broneerimise API aadress? Frontendi tiim küsib.")
        out = (
            "Current stack outputs (4):\n    OUTPUT             VALUE\n"
            f"    apiHostname        {host}\n"
            f"    cdnEndpoint        saunarent-{hexits(rng, 6)}.azureedge.net\n"
            f"    resourceGroupName  rg-saunarent-prod{hexits(rng, 6)}\n"
            f"    storageAccount     stsaunarentprod{hexits(rng, 4)}"
        )
        b.tool("Stacki väljundid.", "bash", _cmd("pulumi stack output --stack prod"), out)
        b.assistant(
            rng.choice(
                (
                    f"API: `https://{host}` (apiHostname). CDN on eraldi.",
                    f"Frontendile: **{host}**.",
                    "apiHostname on esimene väljund tabelis.",
                )
            )
        )

    def ticket_block() -> None:
        b.user(f"Kõik see käib {ticket} alla. {old_ticket} on suvehinnakirja jaoks, ära sega.")
        out = (
            f"{ticket}  Taristu koristus: vanad ressursid ja kulud   In Progress   Kadri Tamm\n"
            f"{old_ticket}  Suvehinnakiri 2025                           To Do         Mart Kask"
        )
        b.tool(
            "Vaatan Jirat.",
            "jira",
            {
                "args": [
                    "issue",
                    "list",
                    "-q",
                    "project = SAUN AND status != Done",
                    "--plain",
                    "--no-headers",
                ]
            },
            out,
        )
        b.assistant(
            rng.choice(
                (
                    f"Selge: töö läheb **{ticket}** alla (In Progress).",
                    f"{ticket} on meie oma; {old_ticket} jätan rahule.",
                )
            )
        )

    def read_block() -> None:
        b.user("Näita, kuidas Function App on index.ts-is defineeritud.")
        b.tool(
            "Loen.",
            "bash",
            _cmd("sed -n 88,97p index.ts"),
            'const api = new web.WebApp("broneering-api", {\n    resourceGroupName: rg.name,\n'
            '    kind: "functionapp,linux",\n    serverFarmId: plan.id,\n    siteConfig: {\n'
            '        linuxFxVersion: "NODE|20",\n        appSettings: apiSettings,\n    },\n'
            "    httpsOnly: true,\n});",
        )
        b.assistant("Definitsioon on korras, Node 20 ja httpsOnly. Siin muuta pole vaja.")

    def chat_block() -> None:
        b.user("Mart küsis, kas saame jaanipäeva nädalavahetusel 5× liiklust vastu võtta.")
        b.assistant(
            "Consumption plaan skaleerub ise; pudelikael on pigem SQL. Vaatame seda eraldi, kui "
            "koristus on tehtud."
        )

    art_blocks = []
    for art in rng.sample(_ET_ARTS, 2):
        block, probe = _artifact(rng, b, art, _ET_NEUTRAL)
        art_blocks.append(block)
        probes.append(probe)
    decide, correction, decision = _decision(rng, b, _ET_CHOICE)
    step, next_step = _next_step(rng, b, _ET_STEPS)
    probes += [decision, next_step]
    middle = [
        account_block,
        output_block,
        ticket_block,
        read_block,
        chat_block,
        *art_blocks,
        decide,
        step,
    ]
    _assemble(rng, intro, middle, [(decide, correction)])
    opening = b.take()
    return opening, segments_of(rng, b, segments, _filler(b, _et_fills())), probes


_TEMPLATES: dict[str, Template] = {
    "jedrilica_unity_hr": _jedrilica,
    "sandelis_amtool_lt": _sandelis,
    "sagardotegi_psql_eu": _sagardotegi,
    "batik_shopify_ms": _batik,
    "paat_maven_bn": _paat,
    "saun_pulumi_et": _saun,
}

HELDOUT13_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout13(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The thirteenth held-out set's session of ``kind`` for ``seed`` (see the module
    docstring for the kinds)."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout13:", label="heldout13"
    )

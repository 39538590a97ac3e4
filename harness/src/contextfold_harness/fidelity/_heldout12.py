"""The twelfth held-out set: six kinds written blind to the compaction code, the fact
ledger and the other sets.

``pekara_ktor_sr``
    a bakery chain's order API in Kotlin (Ktor, Gradle, Flyway), the user and the agent
    writing Serbian in Cyrillic;
``hitaveita_nomad_is``
    a geothermal district-heating utility's services on Nomad and Consul, in Icelandic;
``hawker_airflow_sg``
    a hawker-centre delivery start-up's Airflow DAGs, the users writing Singlish (English
    mixed with Malay and Hokkien words);
``cooperativa_sfdx_ca``
    a wine cooperative's Salesforce org (Apex, sfdx/sf CLI), in Catalan;
``qvevri_clickhouse_ka``
    a Georgian wine exporter's ClickHouse analytics, in Georgian;
``malligai_swiftui_ta``
    a jasmine flower wholesaler's iOS app (SwiftUI, xcodebuild, fastlane), in Tamil.

Each opening plants, in a seeded order among reads, test runs and logs with decoys,
three identifiers of different types, two artifacts whose state is told by the tool's
output, by the agent's words in the session's language, or both, one decision (dictated,
corrected later, proposed and approved or changed, relayed from a colleague, or the
answer to the agent's question) and one open next step. The filler segments work on
other files and never repeat a planted identifier or artifact name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    history_text,
    noise_lines,
    segments_of,
    token,
)

__all__ = ["HELDOUT12_KINDS", "generate_heldout12"]

Block = Callable[[], None]
"""A run of messages written to the builder: a user turn, tool calls, the agent's reply."""

Planted = tuple[list[Block], Probe]
"""A probe and the blocks that plant it (two blocks: kept in order, apart)."""

_MODES = ("tool", "words", "both")


def _ident(question: str, answer: str, value: str) -> Probe:
    return Probe("identifier", question, answer, ((value,),))


@dataclass(frozen=True, slots=True)
class _Art:
    """An artifact and the ways its state can be told."""

    names: tuple[str, ...]  # the basename or resource name first, then a stem
    states: tuple[str, ...]  # state words, English and the session's language
    answer: str
    ask: tuple[str, ...]  # what the user asks
    call: str  # the agent's words before the tool call
    tool: str
    args: dict[str, object]
    shown: str  # the tool's output telling the state
    plain: str  # the tool's output not telling it
    said: tuple[str, ...]  # the agent telling the state in the session's language
    quiet: tuple[str, ...]  # the agent's reply not telling it


def _plant_art(rng: random.Random, b: Builder, art: _Art) -> Planted:
    mode = rng.choice(_MODES)

    def block() -> None:
        b.user(rng.choice(art.ask))
        b.tool(art.call, art.tool, art.args, art.plain if mode == "words" else art.shown)
        b.assistant(rng.choice(art.quiet if mode == "tool" else art.said))

    probe = Probe(
        "artifact",
        f"What happened to {art.names[0]}?",
        art.answer,
        (art.names, art.states),
    )
    return [block], probe


def _turn(
    rng: random.Random,
    b: Builder,
    asks: Sequence[str],
    call: str,
    tool: str,
    args: dict[str, object],
    output: str,
    says: Sequence[str],
) -> Block:
    """A user's ask, one tool call, the agent's reply (each phrasing picked by seed)."""

    def block() -> None:
        b.user(rng.choice(asks))
        b.tool(call, tool, args, output)
        b.assistant(rng.choice(says))

    return block


def _say(rng: random.Random, b: Builder, asks: Sequence[str], replies: Sequence[str]) -> Block:
    """A user's message and the agent's reply."""

    def block() -> None:
        b.user(rng.choice(asks))
        b.assistant(rng.choice(replies))

    return block


def _ask(
    rng: random.Random,
    b: Builder,
    opener: Sequence[str],
    question: Sequence[str],
    answers: Sequence[str],
    reply: Sequence[str],
) -> Block:
    """The user opens, the agent asks or proposes, the user answers, the agent goes on."""

    def block() -> None:
        b.user(rng.choice(opener))
        b.assistant(rng.choice(question))
        b.user(rng.choice(answers))
        b.assistant(rng.choice(reply))

    return block


def _assemble(
    rng: random.Random,
    b: Builder,
    segments: int,
    *,
    intro: Block,
    planted: Sequence[Planted],
    noise: Sequence[Block],
    outro: Block,
    filler: Callable[[random.Random], None],
) -> Parts:
    """The opening: ``intro``, the planted and noise blocks in a seeded order (a pair's
    second block some blocks after its first), ``outro``; then the filler segments,
    written again until they repeat no planted identifier or artifact name."""
    singles: list[Block] = [*noise]
    pairs: list[list[Block]] = []
    for blocks, _ in planted:
        if len(blocks) == 1:
            singles.append(blocks[0])
        else:
            pairs.append(blocks)
    rng.shuffle(singles)
    order = singles
    for first, second in pairs:
        i = rng.randint(0, max(0, len(order) // 2 - 1))
        order.insert(i, first)
        j = rng.randint(min(i + 3, len(order)), len(order))
        order.insert(j, second)
    intro()
    for block in order:
        block()
    outro()
    opening = b.take()
    probes = [probe for _, probe in planted]
    guarded = [
        name.lower()
        for p in probes
        if p.kind in ("identifier", "artifact")
        for name in p.needles[0]
    ]
    for _ in range(50):
        filler_segments = segments_of(rng, b, segments, filler)
        text = history_text([m for s in filler_segments for m in s]).lower()
        if not any(name in text for name in guarded):
            return opening, filler_segments, probes
    raise RuntimeError("the filler kept repeating a planted name")  # pragma: no cover


def _stamp(rng: random.Random, day: int = 14) -> str:
    hour, minute, second = rng.randint(8, 18), rng.randint(0, 59), rng.randint(0, 59)
    return f"2024-05-{day:02d} {hour:02d}:{minute:02d}:{second:02d}"


# ---------------------------------------------------------------------------------------
# pekara_ktor_sr: Serbian (Cyrillic), Kotlin Ktor + Gradle
# ---------------------------------------------------------------------------------------

_ZK = "src/main/kotlin/rs/zlatniklas"


def _ktor_log(rng: random.Random) -> str:
    level = rng.choice(("INFO ", "INFO ", "DEBUG", "WARN "))
    route = rng.choice(
        ("GET - /api/v1/stores", "GET - /api/v1/products", "POST - /api/v1/cart", "GET - /health")
    )
    status = rng.choice(("200 OK", "200 OK", "201 Created", "304 Not Modified"))
    return (
        f"{_stamp(rng)}.{rng.randint(100, 999)} [eventLoopGroupProxy-4-{rng.randint(1, 8)}] "
        f"{level} Application - [{hexits(rng, 8)}] {status}: {route} in {rng.randint(2, 90)}ms"
    )


def _pekara(rng: random.Random, b: Builder, segments: int) -> Parts:
    planted: list[Planted] = []

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Ћао! Радимо на API-ју за поруџбине пекаре „Златни клас“ (Ktor 2.3, "
                    "Kotlin 1.9, Gradle, Postgres + Flyway). Данас: обрачун попуста и "
                    "слотови за доставу. Репо је у ~/zk-orders.",
                    "Добро јутро. Настављамо са zk-orders — то је Ktor сервис за поруџбине "
                    "наших 14 продавница. Има неколико ствари око попуста и доставе.",
                    "Здраво, треба ми помоћ око бекенда за пекару (Kotlin/Ktor, гради се "
                    "Gradle-ом). Прво да видимо шта је стање на main грани.",
                )
            )
        )

    # --- identifiers -----------------------------------------------------------------
    def commit() -> Probe:
        shas = [hexits(rng, 7) for _ in range(6)]
        bad = rng.randrange(1, 5)
        msgs = [
            "Merge pull request #212 from feature/delivery-slots",
            "Bump ktor to 2.3.11",
            "Weekend discount applies per line instead of per order",
            "Add store hours endpoint",
            "Refactor PriceCalculator rounding",
            "Fix typo in README",
        ]
        msgs[bad], msgs[2] = msgs[2], msgs[bad]
        log = "\n".join(
            f"{sha}{' (HEAD -> main, origin/main)' if i == 0 else ''} {msg}"
            for i, (sha, msg) in enumerate(zip(shas, msgs, strict=True))
        )
        sha = shas[bad]

        def block() -> None:
            b.user(
                rng.choice(
                    (
                        "Од прошле недеље викенд попуст рачуна погрешно. Нађи комит који "
                        "је то покварио.",
                        "Купци се жале да је попуст викендом чудан. Када је то ушло?",
                        "Погледај историју PriceCalculator-а, нешто је пукло са попустом.",
                    )
                )
            )
            b.tool(
                "Гледам историју фајла.",
                "bash",
                {"command": f"git log --oneline -6 -- {_ZK}/pricing/PriceCalculator.kt"},
                log,
            )
            b.tool(
                "Да видим тај комит.",
                "bash",
                {"command": f"git show --stat {sha}"},
                f"commit {sha}{hexits(rng, 33)}\nAuthor: Nikola Petrović "
                f"<nikola@zlatniklas.rs>\nDate:   Thu May 9 16:42:11 2024 +0200\n\n"
                f"    Weekend discount applies per line instead of per order\n\n "
                f"{_ZK}/pricing/PriceCalculator.kt | 18 +++++++++---------\n"
                " 1 file changed, 9 insertions(+), 9 deletions(-)",
            )
            b.assistant(
                rng.choice(
                    (
                        f"Регресија је ушла у комиту {sha}: попуст се од тада примењује по "
                        "ставци, а не на целу поруџбину.",
                        f"Кривац је {sha} („Weekend discount applies per line…“), Никола "
                        "га је мерџовао 9. маја.",
                        f"Нашао сам: комит {sha} мења обрачун попуста на ниво ставке — "
                        "одатле потиче грешка.",
                    )
                )
            )

        planted.append(
            (
                [block],
                _ident(
                    "Which commit introduced the weekend-discount regression?",
                    f"commit {sha}",
                    sha,
                ),
            )
        )
        return planted[-1][1]

    def request_id() -> Probe:
        rid = f"req-{hexits(rng, 10)}"
        decoy = f"req-{hexits(rng, 10)}"
        lines = [_ktor_log(rng) for _ in range(3)]
        lines.append(
            f"{_stamp(rng)}.{rng.randint(100, 999)} [eventLoopGroupProxy-4-3] ERROR "
            f"Application - [{rid}] 500 Internal Server Error: POST - /api/v1/orders\n"
            'org.postgresql.util.PSQLException: ERROR: null value in column "slot_id" '
            'of relation "orders" violates not-null constraint'
        )
        lines.append(
            f"{_stamp(rng)}.{rng.randint(100, 999)} [eventLoopGroupProxy-4-5] WARN  "
            f"Application - [{decoy}] 429 Too Many Requests: POST - /api/v1/cart"
        )
        lines += [_ktor_log(rng) for _ in range(2)]

        def block() -> None:
            b.user(
                rng.choice(
                    (
                        "Јутрос је једна поруџбина пукла са 500. Погледај логове.",
                        "Продавница у Земуну каже да им поруџбина није прошла око 9. Има ли "
                        "шта у логу?",
                        "Провери лог продукције, неко је добио грешку при поручивању.",
                    )
                )
            )
            b.tool(
                "Тражим грешке у логу.",
                "bash",
                {"command": "kubectl logs deploy/zk-orders --since=3h | grep -v /health"},
                "\n".join(lines),
            )
            b.assistant(
                rng.choice(
                    (
                        f"Захтев {rid} је пао са 500 — slot_id је био null при упису "
                        f"поруџбине. {decoy} је само rate limit, то је у реду.",
                        f"Грешка је код захтева {rid}: Postgres одбија поруџбину без slot_id.",
                        f"Једини прави проблем је {rid} (POST /api/v1/orders, null у "
                        "slot_id); 429 поред њега није битан.",
                    )
                )
            )

        planted.append(
            (
                [block],
                _ident(
                    "What was the request id of the order that failed with a 500?",
                    rid,
                    rid,
                ),
            )
        )
        return planted[-1][1]

    def ticket() -> Probe:
        num = rng.randint(1200, 1899)
        key = f"ZK-{num}"
        other = f"ZK-{num - rng.randint(3, 9)}"

        def block() -> None:
            b.user(
                rng.choice(
                    (
                        f"Све ово иде под тикет {key} у Jira. ({other} је стари, већ "
                        "затворен, не мешај их.)",
                        f"Комитове означавај са {key}, то је наш тикет за доставу. Не {other}.",
                        f"Тикет је {key} — молим те да га ставиш у наслов PR-а.",
                    )
                )
            )
            b.tool(
                "Проверавам тикет.",
                "jira",
                {"action": "get", "key": key},
                f'{{"key": "{key}", "fields": {{"summary": "Слотови за доставу и викенд '
                f'попуст", "status": {{"name": "In Progress"}}, "assignee": '
                f'{{"displayName": "Mira Jovanović"}}, "priority": {{"name": "High"}}}}}}',
            )
            b.assistant(
                rng.choice(
                    (
                        f"Важи, {key} је „In Progress“ код Мире. Користићу га у комитовима.",
                        f"У реду, све иде под {key}.",
                        f"Видим {key} (приоритет High). Стављам га у наслов PR-а.",
                    )
                )
            )

        planted.append(
            (
                [block],
                _ident("Which Jira ticket does this work go under?", key, key),
            )
        )
        return planted[-1][1]

    def amount() -> Probe:
        total = f"{rng.randint(2100, 8900)}.{rng.choice(('50', '20', '80', '40'))}"
        right = f"{float(total) * 0.85:.2f}"
        order_no = rng.randint(40000, 49999)

        def block() -> None:
            b.user(
                rng.choice(
                    (
                        f"Поруџбина #{order_no} има погрешан износ. Колико је наплаћено?",
                        f"Провери #{order_no}, купац тврди да није добио попуст.",
                        f"Погледај износ за поруџбину {order_no} преко API-ја.",
                    )
                )
            )
            b.tool(
                "Питам API.",
                "bash",
                {"command": f"curl -s localhost:8080/api/v1/orders/{order_no} | jq ."},
                f'{{\n  "id": {order_no},\n  "store": "ZEMUN-02",\n  "items": 14,\n  '
                f'"discount": "0.00",\n  "total": "{total}",\n  "currency": "RSD",\n  '
                f'"status": "PAID"\n}}',
            )
            b.assistant(
                rng.choice(
                    (
                        f"Наплаћено је {total} RSD без попуста; са 15% требало је {right} RSD.",
                        f"Износ је {total} RSD, попуст 0 — дакле баш та грешка.",
                        f"Купац је платио {total} RSD. Исправно би било {right} RSD.",
                    )
                )
            )

        planted.append(
            (
                [block],
                _ident(
                    f"How much was order #{order_no} charged?",
                    f"{total} RSD",
                    total,
                ),
            )
        )
        return planted[-1][1]

    for make in rng.sample((commit, request_id, ticket, amount), 3):
        make()

    # --- artifacts -------------------------------------------------------------------
    routes = _Art(
        names=("OrderRoutes.kt", "OrderRoutes"),
        states=("modif", "chang", "updat", "edit", "измен", "измењ", "промен", "препра"),
        answer="OrderRoutes.kt was modified (slot validation added to the POST route)",
        ask=(
            "Додај проверу да slot_id не сме бити празан у рути за поруџбине.",
            "Рута за поруџбине мора да одбије захтев без слота, 400 а не 500.",
            "Среди POST /orders да враћа 400 кад нема слота.",
        ),
        call="Мењам руту и гледам git status.",
        tool="bash",
        args={"command": "git diff --stat && git status"},
        shown=(
            f" M {_ZK}/orders/OrderRoutes.kt\nOn branch feature/slot-check\nChanges not "
            'staged for commit:\n  (use "git add <file>..." to update what will be '
            f"committed)\n\tmodified:   {_ZK}/orders/OrderRoutes.kt"
        ),
        plain=f" {_ZK}/orders/OrderRoutes.kt | 12 ++++++++----\n 1 file changed, 8 "
        "insertions(+), 4 deletions(-)",
        said=(
            "OrderRoutes.kt сам изменио: POST сада враћа 400 ако нема slot_id.",
            "Изменио сам OrderRoutes.kt — провера слота је пре уписа у базу.",
            "У фајлу OrderRoutes.kt, после дуже расправе са собом око тога где провера "
            "треба да стоји, на крају сам само руту преправио.",
        ),
        quiet=("Ево стања.", "Готово, погледај излаз.", "То је то за руту."),
    )
    coupon = _Art(
        names=("LegacyCouponService.kt", "LegacyCouponService"),
        states=("delet", "remov", "обриса", "избриса", "уклоњ"),
        answer="LegacyCouponService.kt was deleted",
        ask=(
            "Стари сервис за купоне нико не користи, обриши га.",
            "Избаци LegacyCouponService, више нам не треба.",
            "Очисти стари код за купоне.",
        ),
        call="Бришем фајл и проверавам статус.",
        tool="bash",
        args={"command": f"git rm {_ZK}/coupons/LegacyCouponService.kt && git status"},
        shown=(
            f"rm '{_ZK}/coupons/LegacyCouponService.kt'\nOn branch main\nChanges to be "
            f"committed:\n\tdeleted:    {_ZK}/coupons/LegacyCouponService.kt"
        ),
        plain=f"rm '{_ZK}/coupons/LegacyCouponService.kt'",
        said=(
            "LegacyCouponService.kt је обрисан, компајлер се не буни.",
            "Обрисао сам LegacyCouponService.kt; ниједна рута га није звала.",
            "Што се тиче LegacyCouponService.kt, који је висио још од 2021: уклоњен је.",
        ),
        quiet=("Урађено.", "То је то.", "Ево излаза."),
    )
    migration = _Art(
        names=("V14__delivery_slot.sql", "V14__delivery_slot"),
        states=("creat", "new file", "added", "adds", "направ", "креира", "нова", "нови"),
        answer="the Flyway migration V14__delivery_slot.sql was created",
        ask=(
            "Треба нам колона за слот доставе у табели orders. Направи миграцију.",
            "Додај Flyway миграцију за slot_id.",
            "Миграција за слотове — ти је напиши.",
        ),
        call="Пишем миграцију.",
        tool="bash",
        args={"command": "git add -A && git status"},
        shown=(
            "On branch feature/slot-check\nChanges to be committed:\n\tnew file:   "
            "src/main/resources/db/migration/V14__delivery_slot.sql"
        ),
        plain='On branch feature/slot-check\nChanges to be committed:\n  (use "git '
        'restore --staged <file>..." to unstage)',
        said=(
            "Направио сам нову миграцију V14__delivery_slot.sql (ALTER TABLE orders ADD "
            "COLUMN slot_id).",
            "V14__delivery_slot.sql је креирана и чека да је Flyway покрене.",
            "Миграција V14__delivery_slot.sql, са индексом на slot_id, је нова у репоу.",
        ),
        quiet=("Ево стања.", "У реду.", "Спремно."),
    )
    price_test = _Art(
        names=("PriceCalculatorTest", "PriceCalculatorTest.kt"),
        states=("fail", "пада", "пао", "пала", "не пролаз", "неуспе", "црвен"),
        answer="PriceCalculatorTest is failing (weekend discount cases)",
        ask=(
            "Пусти тестове за обрачун цена.",
            "Покрени ./gradlew test да видимо где смо.",
            "Да ли тестови пролазе?",
        ),
        call="Покрећем тестове.",
        tool="bash",
        args={"command": "./gradlew test"},
        shown=(
            "> Task :compileKotlin UP-TO-DATE\n> Task :test\n\nPriceCalculatorTest > "
            "appliesWeekendDiscount() FAILED\n    org.opentest4j.AssertionFailedError: "
            "expected: <3723.43> but was: <4380.50>\n\nPriceCalculatorTest > "
            "discountIsPerOrder() FAILED\n    org.opentest4j.AssertionFailedError\n\n"
            "14 tests completed, 2 failed\n\nFAILURE: Build failed with an exception."
        ),
        plain=(
            "> Task :compileKotlin UP-TO-DATE\n> Task :test\n\n14 tests completed, 2 "
            "failed\n\n> Task :test FAILED\n\nFAILURE: Build failed with an exception.\n\n"
            "* What went wrong:\nExecution failed for task ':test'.\n> There were failing "
            "tests. See the report at: file:///home/mira/zk-orders/build/reports/tests/"
            "test/index.html"
        ),
        said=(
            "PriceCalculatorTest пада у два случаја, оба око викенд попуста.",
            "Два теста у PriceCalculatorTest не пролазе — очекују попуст на целу поруџбину.",
            "PriceCalculatorTest, и то appliesWeekendDiscount и discountIsPerOrder, је црвен.",
        ),
        quiet=("Ево резултата.", "Погледај излаз.", "Ово је стање."),
    )
    for art in rng.sample((routes, coupon, migration, price_test), 2):
        planted.append(_plant_art(rng, b, art))

    # --- the decision ----------------------------------------------------------------
    def discount() -> Planted:
        pct = rng.choice((10, 12, 15, 18))

        def block() -> None:
            b.user(
                rng.choice(
                    (
                        f"Викенд попуст остаје {pct}% на целу поруџбину, не по ставци. То "
                        "није за преговоре.",
                        f"Одлука: попуст викендом је {pct}% и рачуна се на укупан износ.",
                        f"Попуст за суботу и недељу — {pct}%, на целу корпу. Тако пиши.",
                    )
                )
            )
            b.assistant(f"Јасно, {pct}% на целу поруџбину.")

        return [block], Probe(
            "decision",
            "What weekend discount did the user fix, and on what is it applied?",
            f"{pct}% on the whole order (not per line)",
            ((f"{pct}%", f"{pct} %"), ("попуст", "discount")),
        )

    def cache_ttl() -> Planted:
        first = rng.choice((10, 20, 30))
        final = rng.choice((3, 4, 6))

        def early() -> None:
            b.user(f"Кеш цена нека траје {first} минута, да не тучемо базу.")
            b.assistant(f"Важи, TTL кеша цена {first} минута.")

        def later() -> None:
            b.user(
                rng.choice(
                    (
                        f"Не, ипак кеш цена {final} минута — Мира каже да се цене мењају "
                        "током дана.",
                        f"Предомислио сам се: кеш цена на {final} мин, не {first}.",
                        f"Исправка: TTL за кеш цена је {final} минута, заборави оно од раније.",
                    )
                )
            )
            b.assistant(f"У реду, мењам на {final} минута.")

        return [early, later], Probe(
            "decision",
            "How long should the price cache live (the user's final word)?",
            f"{final} minutes (corrected from {first})",
            ((f"{final} мин", f"{final} min", f"{final}min"), ("кеш", "cache", "ttl")),
        )

    def rate_limit() -> Planted:
        n = rng.choice((30, 60, 90, 120))

        def block() -> None:
            b.user("Шта мислиш о заштити од дуплих поруџбина?")
            b.assistant(
                f"Предлажем rate limit од {n} захтева у минути по IP-у на POST "
                "/api/v1/orders, преко Ktor RateLimit плагина."
            )
            b.user(rng.choice(("може", "да, пусти", "ок, важи")))
            b.assistant("Добро, уводим га.")

        return [block], Probe(
            "decision",
            "What rate limit was agreed for POST /api/v1/orders?",
            f"{n} requests per minute per IP (agent proposed, user approved)",
            ((str(n),), ("rate limit", "ограничењ", "лимит")),
        )

    def cutoff() -> Planted:
        hour = rng.choice(("13:00", "14:00", "15:30"))

        def block() -> None:
            b.user(
                rng.choice(
                    (
                        f"Јелена из логистике каже: рок за поруџбине за сутрашњу доставу "
                        f"је {hour}.",
                        f"Порука од Јелене: после {hour} поруџбине иду на прекосутра "
                        "(рок за сутра).",
                        f"Јелена је потврдила рок за поруџбине: {hour} за доставу сутра.",
                    )
                )
            )
            b.assistant(f"Уписујем рок {hour} у SlotPolicy.")

        return [block], Probe(
            "decision",
            "What is the cutoff for next-day delivery orders, per Jelena?",
            f"{hour}",
            ((hour,), ("рок", "cutoff", "deadline", "поруџбин", "order")),
        )

    def test_db() -> Planted:
        def block() -> None:
            b.user("Треба ли нам нека база за интеграционе тестове?")
            b.assistant(
                "Коју базу да користим у тестовима — H2 у меморији или "
                "Testcontainers са Postgres-ом?"
            )
            b.user(
                rng.choice(
                    (
                        "Testcontainers са Postgres-ом, H2 нам је већ једном сакрио баг.",
                        "Postgres преко Testcontainers, никако H2.",
                        "Узми Testcontainers (Postgres 15), као на продукцији.",
                    )
                )
            )
            b.assistant("Важи, додајем testcontainers зависност.")

        return [block], Probe(
            "decision",
            "Which database do the integration tests use?",
            "Postgres via Testcontainers (not H2)",
            (("testcontainers",), ("postgres",)),
        )

    planted.append(rng.choice((discount, cache_ttl, rate_limit, cutoff, test_db))())

    # --- the next step ---------------------------------------------------------------
    def deploy_friday() -> Planted:
        def block() -> None:
            b.user(
                rng.choice(
                    (
                        "Деплој на продукцију мора бити готов до петка у 10h, тада креће "
                        "викенд акција.",
                        "Рок: у петак ујутру деплој на продукцију, најкасније до 10.",
                        "Не заборави — продукцијски деплој до петка, пре викенд акције.",
                    )
                )
            )
            b.assistant("Разумем, продукција до петка.")

        return [block], Probe(
            "next_step",
            "What is still pending and by when?",
            "the production deploy, by Friday 10:00",
            (("петк", "friday", "petk"), ("деплој", "deploy", "продукц", "prod")),
        )

    def merge_after_review() -> Planted:
        def block() -> None:
            b.user(
                rng.choice(
                    (
                        "PR мерџуј тек кад Марко одобри ревију.",
                        "Чекамо Марков approve, па онда мерџ.",
                        "Кад Марко прегледа и одобри, ти спој у main.",
                    )
                )
            )
            b.assistant("Важи, мерџ тек после Марковог одобрења.")

        return [block], Probe(
            "next_step",
            "When should the PR be merged?",
            "only after Marko approves the review",
            (("марк", "marko"), ("мерџ", "merge", "спој", "одобр", "approv")),
        )

    def agent_migration() -> Planted:
        def block() -> None:
            b.user("Када можеш да пустиш миграцију на staging?")
            b.assistant(
                rng.choice(
                    (
                        "Сутра ујутру пуштам миграцију на staging и јављам ти резултат.",
                        "Обећавам: миграцију на staging пуштам сутра пре подне.",
                        "Миграцију ћу покренути на staging сутра, прво то.",
                    )
                )
            )

        return [block], Probe(
            "next_step",
            "What did the agent promise to do next?",
            "run the migration on staging tomorrow morning",
            (("staging",), ("миграц", "migrat")),
        )

    def remind_prices() -> Planted:
        def block() -> None:
            b.user(
                rng.choice(
                    (
                        "Подсети ме да јавим Јелени нове цене хлеба пре затварања.",
                        "Кад завршимо, подсети ме: Јелени треба послати нове цене.",
                        "Ја треба да пошаљем Јелени ценовник — подсети ме касније.",
                    )
                )
            )
            b.assistant("Подсетићу те за ценовник за Јелену.")

        return [block], Probe(
            "next_step",
            "What did the user ask to be reminded of?",
            "to send Jelena the new bread prices",
            (("јелен", "jelena"), ("цен", "price")),
        )

    planted.append(
        rng.choice((deploy_friday, merge_after_review, agent_migration, remind_prices))()
    )

    # --- noise -----------------------------------------------------------------------
    def read_gradle() -> None:
        b.user(rng.choice(("Која је верзија Ktor-а?", "Покажи build фајл.")))
        b.tool(
            "Читам build.gradle.kts.",
            "read_file",
            {"path": "build.gradle.kts"},
            'plugins {\n    kotlin("jvm") version "1.9.24"\n    id("io.ktor.plugin") '
            'version "2.3.11"\n    id("org.flywaydb.flyway") version "10.13.0"\n}\n\n'
            'dependencies {\n    implementation("io.ktor:ktor-server-netty")\n    '
            'implementation("org.postgresql:postgresql:42.7.3")\n    testImplementation('
            '"io.ktor:ktor-server-test-host")\n}',
        )
        b.assistant("Ktor 2.3.11, Kotlin 1.9.24, Flyway 10.13.")

    def health() -> None:
        b.user(rng.choice(("Да ли је staging жив?", "Провери health на staging-у.")))
        b.tool(
            "Питам health.",
            "bash",
            {"command": "curl -si https://staging.zlatniklas.rs/health"},
            "HTTP/2 200 \ncontent-type: application/json\n\n"
            f'{{"status":"UP","db":"UP","version":"3.{rng.randint(10, 19)}.0"}}',
        )
        b.assistant("Staging је горе, база такође.")

    def docker_ps() -> None:
        b.user("Шта ради локално?")
        b.tool(
            "Гледам контејнере.",
            "bash",
            {"command": "docker compose ps"},
            "NAME               IMAGE          COMMAND                  SERVICE   STATUS\n"
            'zk-orders-db-1     postgres:15    "docker-entrypoint.s…"   db        Up 3 hours\n'
            'zk-orders-redis-1  redis:7        "docker-entrypoint.s…"   redis     Up 3 hours',
        )
        b.assistant("Postgres и Redis раде локално.")

    def read_conf() -> None:
        b.user("Где је подешен порт?")
        b.tool(
            "Читам конфигурацију.",
            "read_file",
            {"path": "src/main/resources/application.conf"},
            "ktor {\n    deployment {\n        port = 8080\n        port = ${?PORT}\n    }\n"
            "    application {\n        modules = [ rs.zlatniklas.ApplicationKt.module ]\n"
            "    }\n}",
        )
        b.assistant("Порт је 8080, може се прегазити са PORT.")

    noise = rng.sample((read_gradle, health, docker_ps, read_conf), rng.randint(2, 4))

    def outro() -> None:
        b.user(rng.choice(("Добро, идемо даље.", "Хвала, настави.", "Ок.")))
        b.assistant(rng.choice(("Настављам.", "Идем даље.", "Важи.")))

    # --- filler ----------------------------------------------------------------------
    files = ("CustomerRoutes.kt", "InvoiceRenderer.kt", "StoreHours.kt", "FlourStockJob.kt")

    def filler(r: random.Random) -> None:
        name = r.choice(files)
        b.user(
            r.choice(
                (
                    f"Погледај {name}, треба ми кратко објашњење.",
                    f"Има ли нешто чудно у {name}?",
                    "Шта каже лог последњих сат времена?",
                )
            )
        )
        if r.random() < 0.5:
            b.tool(
                "Читам фајл.",
                "read_file",
                {"path": f"{_ZK}/misc/{name}"},
                noise_lines(
                    r,
                    r.randint(4, 8),
                    lambda q: (
                        f"    val {q.choice(('store', 'hours', 'invoice', 'flour'))}"
                        f"{q.randint(1, 99)} = {q.randint(0, 500)}"
                    ),
                ),
            )
        else:
            b.tool(
                "Гледам лог.",
                "bash",
                {"command": "kubectl logs deploy/zk-orders --since=1h | tail -n 6"},
                noise_lines(r, 6, _ktor_log),
            )
        b.assistant(
            r.choice(
                (
                    "Ништа неуобичајено, само рутински позиви.",
                    "Изгледа уредно.",
                    f"У реду је; {name} не треба дирати.",
                )
            )
        )

    return _assemble(
        rng, b, segments, intro=intro, planted=planted, noise=noise, outro=outro, filler=filler
    )


# ---------------------------------------------------------------------------------------
# hitaveita_nomad_is: Icelandic, Nomad + Consul
# ---------------------------------------------------------------------------------------


def _nomad_ts(rng: random.Random) -> str:
    return f"2024-05-14T{rng.randint(6, 16):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"


def _nomad_log(rng: random.Random) -> str:
    return (
        f"{_nomad_ts(rng)} [INFO]  client.alloc_runner.task_runner: Task event: "
        f"alloc_id={hexits(rng, 8)}-{hexits(rng, 4)} task="
        f"{rng.choice(('grafana-agent', 'weather-sync', 'vector'))} "
        f"type={rng.choice(('Started', 'Received', 'Task Setup', 'Driver'))}"
    )


def _hitaveita(rng: random.Random, b: Builder, segments: int) -> Parts:
    planted: list[Planted] = []

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Góðan daginn. Við erum að taka til í Nomad-klasanum hjá Hitaveitunni "
                    "(Nomad 1.7, Consul 1.17). Þjónusturnar lesa af hitamælum og rennslismælum "
                    "og búa til reikninga.",
                    "Hæ, getur þú hjálpað mér með Nomad og Consul hjá Hitaveitu Norðurlands? "
                    "Ýmislegt sem þarf að laga í dag.",
                    "Sæl/l. Verkefni dagsins: störfin í Nomad fyrir mælagögn og reikninga. "
                    "Repóið er hitaveita-infra á GitLab.",
                )
            )
        )

    def alloc() -> Probe:
        bad, good, old = hexits(rng, 8), hexits(rng, 8), hexits(rng, 8)
        node1, node2 = hexits(rng, 8), hexits(rng, 8)
        out = (
            "ID            = pump-telemetry\nName          = pump-telemetry\nType          = "
            "service\nStatus        = running\n\nAllocations\nID        Node ID   Task Group  "
            "Version  Desired  Status    Created    Modified\n"
            f"{good}  {node1}  telemetry   14       run      running   2h10m ago  2h8m ago\n"
            f"{bad}  {node2}  telemetry   14       stop     failed    5h1m ago   2h10m ago\n"
            f"{old}  {node1}  telemetry   13       stop     complete  3d ago     3d ago"
        )
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "Dælugögnin duttu út í nótt. Hvað gerðist?",
                            "Af hverju vantar dælumælingar frá því í nótt?",
                            "Athugaðu pump-telemetry, eitthvað fór úrskeiðis.",
                        ),
                        "Skoða stöðuna á starfinu.",
                        "bash",
                        {"command": "nomad job status pump-telemetry"},
                        out,
                        (
                            f"Úthlutunin {bad} féll í nótt (OOM á node {node2}); {good} tók "
                            "við og keyrir.",
                            f"Það var úthlutun {bad} sem dó — Nomad setti upp nýja, {good}, "
                            "sem er í lagi.",
                            f"Vandinn er í {bad}: hún var drepin vegna minnis. Hin keyrir.",
                        ),
                    )
                ],
                _ident(
                    "Which Nomad allocation of pump-telemetry failed overnight?",
                    f"allocation {bad}",
                    bad,
                ),
            )
        )
        return planted[-1][1]

    def image() -> Probe:
        ver = f"3.{rng.randint(2, 8)}.{rng.randint(10, 29)}"
        prev = f"3.{rng.randint(0, 1)}.{rng.randint(2, 9)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "Hvaða útgáfa af flow-calc er í keyrslu?",
                            "Er flow-calc á nýjustu myndinni?",
                            "Athugaðu hvaða image flow-calc notar.",
                        ),
                        "Les úr job-skilgreiningunni.",
                        "bash",
                        {
                            "command": "nomad job inspect flow-calc | jq -r "
                            "'.Job.TaskGroups[0].Tasks[0].Config.image, .Job.Version'"
                        },
                        f"registry.hitaveita.is/flow-calc:{ver}\n7",
                        (
                            f"flow-calc keyrir útgáfu {ver} (job version 7); {prev} var "
                            "fjarlægð úr registry í apríl.",
                            f"Myndin er flow-calc:{ver}, sem er sú nýjasta.",
                            f"Útgáfan er {ver}. Ekkert að uppfæra þar.",
                        ),
                    )
                ],
                _ident("Which flow-calc image version is running?", ver, ver),
            )
        )
        return planted[-1][1]

    def tariff() -> Probe:
        price = f"{rng.randint(140, 199)},{rng.randint(10, 95)}"
        old = f"{rng.randint(120, 139)},{rng.randint(10, 95)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "Hvaða gjaldskrá notar reikningakeyrslan núna?",
                            "Er verðið á rúmmetra rétt í Consul?",
                            "Kíktu á taxtann í Consul KV.",
                        ),
                        "Sæki gildið úr Consul.",
                        "bash",
                        {"command": "consul kv get -detailed hitaveita/billing/tariff_kr_m3"},
                        f"CreateIndex      48211\nFlags            0\nKey              "
                        f"hitaveita/billing/tariff_kr_m3\nLockIndex        0\nModifyIndex      "
                        f"91377\nSession          -\nValue            {price}",
                        (
                            f"Taxtinn er {price} kr./m³ — gamla gildið {old} gilti fram að 1. maí.",
                            f"Í Consul stendur {price} kr. á rúmmetra.",
                            f"Gjaldskráin er {price} kr./m³, rétt samkvæmt nýju verðskránni.",
                        ),
                    )
                ],
                _ident("What hot-water tariff is set in Consul?", f"{price} kr./m³", price),
            )
        )
        return planted[-1][1]

    def work_order() -> Probe:
        key = f"VB-2024-{rng.randint(300, 999):04d}"
        other = f"VB-2024-{rng.randint(100, 299):04d}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            f"Skráðu allt undir verkbeiðni {key}. {other} er lokuð.",
                            f"Verkbeiðnin er {key} — ekki rugla henni við {other}.",
                            f"Þetta fer á {key} í YouTrack.",
                        ),
                        "Fletti verkbeiðninni upp.",
                        "youtrack",
                        {"action": "get_issue", "id": key},
                        f'{{"idReadable": "{key}", "summary": "Nomad: tiltekt og mælagögn", '
                        '"customFields": [{"name": "State", "value": {"name": "In Progress"}},'
                        ' {"name": "Assignee", "value": {"name": "Sigrún Þórsdóttir"}}]}',
                        (
                            f"{key} er „In Progress“ hjá Sigrúnu. Ég merki breytingarnar með "
                            "henni.",
                            f"Í lagi, allt fer undir {key}.",
                            f"Sé {key}. Set hana í commit-skilaboðin.",
                        ),
                    )
                ],
                _ident("Which work order does this go under?", key, key),
            )
        )
        return planted[-1][1]

    for make in rng.sample((alloc, image, tariff, work_order), 3):
        make()

    table_rows = (
        "ID               Type     Priority  Status          Submit Date\n"
        "{rows}\npump-telemetry   service  50        running         2024-05-02T13:17:09Z"
    )
    stopped = _Art(
        names=("billing-export",),
        states=("stop", "dead", "halt", "stöðv", "slökk", "stopp"),
        answer="the Nomad job billing-export was stopped",
        ask=(
            "Stöðvaðu billing-export, hann sendir tvöfalda reikninga.",
            "billing-export þarf að stoppa strax.",
            "Slökktu á reikningaútflutningnum þar til við finnum villuna.",
        ),
        call="Stöðva starfið.",
        tool="bash",
        args={"command": "nomad job stop billing-export && nomad job status"},
        shown=(
            f'==> {_nomad_ts(rng)}: Monitoring evaluation "{hexits(rng, 8)}"\n'
            '    Evaluation triggered by job "billing-export"\n    Evaluation status '
            'changed: "pending" -> "complete"\n'
            + table_rows.format(
                rows="billing-export   batch    50        dead (stopped)  2024-05-14T09:41:22Z"
            )
        ),
        plain=(
            f'==> {_nomad_ts(rng)}: Monitoring evaluation "{hexits(rng, 8)}"\n'
            '    Evaluation triggered by job "billing-export"\n    Evaluation status '
            'changed: "pending" -> "complete"\n==> Evaluation finished with status "complete"'
        ),
        said=(
            "billing-export er stöðvaður; engir reikningar fara út á meðan.",
            "Ég stöðvaði billing-export.",
            "Starfið billing-export, sem sendi reikningana tvisvar í gærkvöldi, er nú stöðvað.",
        ),
        quiet=("Búið.", "Sjá úttak.", "Svona er staðan."),
    )
    deployed = _Art(
        names=("meter-ingest",),
        states=("deploy", "running", "releas", "í loftið", "í loftinu", "keyr", "gefin út"),
        answer="meter-ingest was deployed (version 12, running)",
        ask=(
            "Settu nýju útgáfuna af meter-ingest í loftið.",
            "Keyrðu meter-ingest.nomad.hcl, breytingin er samþykkt.",
            "Deployaðu mælainntökuna.",
        ),
        call="Keyri nomad job run.",
        tool="bash",
        args={"command": "nomad job run jobs/meter-ingest.nomad.hcl && nomad job status"},
        shown=(
            f'  ✓ Deployment "{hexits(rng, 8)}" successful\n\n'
            + table_rows.format(
                rows="meter-ingest     service  50        running         2024-05-14T10:02:51Z"
            )
        ),
        plain=(
            f'==> Monitoring deployment "{hexits(rng, 8)}"\n    ID          = '
            f"{hexits(rng, 8)}\n    Job ID      = meter-ingest\n    Job Version = 12\n"
            "    Status      = successful\n    Description = Deployment completed "
            "successfully"
        ),
        said=(
            "meter-ingest er komið í loftið, útgáfa 12, öll tilvik heilbrigð.",
            "Nýja meter-ingest keyrir núna (job version 12).",
            "Hvað varðar meter-ingest, sem við höfum beðið eftir síðan í mars: deployað og keyrir.",
        ),
        quiet=("Þetta gekk.", "Sjá úttak.", "Komið."),
    )
    critical = _Art(
        names=("sensor-gateway",),
        states=(
            "critical",
            "fail",
            "unhealthy",
            "down",
            "503",
            "bilað",
            "bilun",
            "óheil",
            "niðri",
            "fell",
        ),
        answer="the Consul health check of sensor-gateway is critical (503)",
        ask=(
            "Er sensor-gateway heilbrigður í Consul?",
            "Hvernig standa health checks?",
            "Athugaðu sensor-gateway í Consul.",
        ),
        call="Spyr Consul um health checks.",
        tool="bash",
        args={"command": "curl -s localhost:8500/v1/health/checks/sensor-gateway"},
        shown=(
            "sensor-gateway\tcritical\tHTTP GET http://10.0.4.17:9102/health: 503 Service "
            "Unavailable Output: upstream modbus timeout"
        ),
        plain=(
            '[\n  {\n    "Node": "hv-nomad-03",\n    "CheckID": "service:sensor-gateway-9102",'
            '\n    "Name": "Service \'sensor-gateway\' check",\n    "Status": "critical",\n'
            '    "Output": "HTTP GET http://10.0.4.17:9102/health: 503 Service Unavailable"\n'
            "  }\n]"
        ),
        said=(
            "sensor-gateway er óheilbrigður í Consul — health check skilar 503.",
            "Health check á sensor-gateway er critical; modbus-tengingin svarar ekki.",
            "sensor-gateway, sem tekur við öllum mælum á Akureyri, er niðri samkvæmt Consul.",
        ),
        quiet=("Hér er svarið.", "Sjá úttak.", "Svona lítur þetta út."),
    )
    removed = _Art(
        names=("legacy-sms.nomad.hcl", "legacy-sms"),
        states=("delet", "remov", "eytt", "eydd", "fjarlæg", "hent"),
        answer="jobs/legacy-sms.nomad.hcl was deleted from the repo",
        ask=(
            "Hentu gömlu SMS-skilgreiningunni úr repóinu.",
            "legacy-sms er ekki notað lengur, eyddu skránni.",
            "Taktu til í jobs/ möppunni.",
        ),
        call="Fjarlægi skrána.",
        tool="bash",
        args={"command": "git rm jobs/legacy-sms.nomad.hcl && git status"},
        shown=(
            "rm 'jobs/legacy-sms.nomad.hcl'\nOn branch cleanup\nChanges to be committed:\n"
            "\tdeleted:    jobs/legacy-sms.nomad.hcl"
        ),
        plain="rm 'jobs/legacy-sms.nomad.hcl'",
        said=(
            "legacy-sms.nomad.hcl er eytt úr repóinu.",
            "Ég eyddi legacy-sms.nomad.hcl; ekkert vísaði í hana.",
            "Skráin legacy-sms.nomad.hcl, sem var frá 2021, hefur verið fjarlægð.",
        ),
        quiet=("Búið.", "Komið.", "Sjá úttak."),
    )
    for art in rng.sample((stopped, deployed, critical, removed), 2):
        planted.append(_plant_art(rng, b, art))

    def datacenter() -> Planted:
        dc = rng.choice(("reykjanes-1", "akureyri-2", "hellisheidi-1"))
        return [
            _say(
                rng,
                b,
                (
                    f"Öll ný störf fara í datacenter {dc}, ekkert annað.",
                    f'Ákveðið: datacenters = ["{dc}"] í öllum job-skrám.',
                    f"Notaðu bara gagnaverið {dc} fyrir þetta.",
                ),
                (f"Skil þig, {dc}.", "Í lagi."),
            )
        ], Probe(
            "decision",
            "Which datacenter must the jobs run in?",
            dc,
            ((dc,), ("datacenter", "gagnaver", "dc")),
        )

    def count() -> Planted:
        first = rng.choice((1, 2))
        final = rng.choice((3, 4, 5))
        early = _say(
            rng,
            b,
            (f"pump-telemetry má vera með count = {first}.",),
            (f"Í lagi, count = {first}.",),
        )
        later = _say(
            rng,
            b,
            (
                f"Nei, breyttu því: pump-telemetry á að vera með {final} eintök, ekki {first}.",
                f"Leiðrétting: count = {final} fyrir pump-telemetry, Sigrún vill redundancy.",
                f"Gleymdu {first}; pump-telemetry fær {final} eintök.",
            ),
            (f"Breyti í {final}.",),
        )
        return [early, later], Probe(
            "decision",
            "How many instances should pump-telemetry run (final word)?",
            f"{final} (corrected from {first})",
            (
                (
                    f"count = {final}",
                    f"count={final}",
                    f"{final} eint",
                    f"{final} inst",
                    f"{final} repl",
                    f"{final} alloc",
                    f"{final} copies",
                    f"to {final}",
                ),
                ("pump-telemetry", "telemetry", "count"),
            ),
        )

    def memory() -> Planted:
        mb = rng.choice((512, 768, 1024))
        return [
            _ask(
                rng,
                b,
                ("Hvað gerum við í minnismálum fyrir pump-telemetry?",),
                ("Ég legg til memory = 256 MB fyrir telemetry-taskinn.",),
                (
                    f"Nei, það dugar ekki — settu {mb} MB minni.",
                    f"Of lítið. Gerðu það {mb} MB minni.",
                    f"Breyttu í {mb} MB, 256 er það sem drap hana.",
                ),
                (f"Set memory = {mb}.",),
            )
        ], Probe(
            "decision",
            "What memory limit did the user choose for the telemetry task?",
            f"{mb} MB (the agent had proposed 256)",
            ((str(mb),), ("memory", "minni", "mb")),
        )

    def window() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Guðrún í rekstri segir að viðhaldsgluggi sé á þriðjudögum kl. 02–04.",
                    "Skilaboð frá Guðrúnu: viðhald bara í glugganum þriðjudaga 02–04.",
                    "Guðrún vill að við endurræsum bara í viðhaldsglugga, þriðjudaga 2–4 að nóttu.",
                ),
                ("Skráð, þriðjudagar 02–04.",),
            )
        ], Probe(
            "decision",
            "When is the maintenance window, per Guðrún?",
            "Tuesdays 02:00–04:00",
            (("þriðjud", "tuesday"), ("viðhald", "maintenance", "glugg", "window")),
        )

    def connect() -> Planted:
        return [
            _ask(
                rng,
                b,
                ("Hvernig eiga þjónusturnar að tala saman?",),
                ("Á ég að nota Consul Connect (mTLS) eða venjulegt HTTP innan klasans?",),
                (
                    "Consul Connect, alltaf mTLS.",
                    "Connect. Ekkert ódulkóðað.",
                    "Consul Connect með mTLS, Sigrún krefst þess.",
                ),
                ("Set upp sidecar fyrir Connect.",),
            )
        ], Probe(
            "decision",
            "How do the services talk to each other?",
            "through Consul Connect (mTLS)",
            (("connect",), ("mtls", "consul")),
        )

    planted.append(rng.choice((datacenter, count, memory, window, connect))())

    def month_end() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Reikningakeyrslan þarf að vera komin aftur í gang fyrir mánaðamót.",
                    "Fyrir mánaðamót verða reikningarnir að fara út, það er hámark.",
                    "Frestur: mánaðamót. Þá þurfa reikningar að vera farnir.",
                ),
                ("Skilið, reikningar fyrir mánaðamót.",),
            )
        ], Probe(
            "next_step",
            "What must be done by when?",
            "the billing run must be back before month-end",
            (
                ("mánaðamót", "month-end", "end of month", "end of the month"),
                ("reikning", "invoice", "billing"),
            ),
        )

    def consul_upgrade() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Þegar Jón er búinn að uppfæra Consul í 1.18, þá uppfærum við Nomad-clientana.",
                    "Nomad-clientarnir bíða þar til Consul er kominn í 1.18 (Jón sér um það).",
                    "Fyrst Consul 1.18 hjá Jóni, svo uppfærsla á Nomad.",
                ),
                ("Í lagi, Nomad eftir Consul 1.18.",),
            )
        ], Probe(
            "next_step",
            "What waits on what?",
            "upgrading the Nomad clients, once Jón has Consul on 1.18",
            (("1.18",), ("nomad", "uppfær", "upgrad")),
        )

    def acl() -> Planted:
        return [
            _say(
                rng,
                b,
                ("Hver skoðar ACL-tokenin?", "Tokenin renna út bráðum, er það ekki?"),
                (
                    "Ég skoða ACL-tokenin í fyrramálið og endurnýja þau sem renna út.",
                    "Ég tek ACL-tokenin á morgun, fyrst af öllu.",
                    "Lofa: ACL-tokenin verða yfirfarin í fyrramálið.",
                ),
            )
        ], Probe(
            "next_step",
            "What did the agent promise?",
            "to review the ACL tokens tomorrow morning",
            (("acl",), ("fyrramál", "tomorrow", "morgun")),
        )

    def report() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Minntu mig á að senda Orkustofnun skýrsluna á föstudag.",
                    "Ég þarf að senda skýrslu til Orkustofnunar, minntu mig á það.",
                    "Áminning fyrir mig: Orkustofnun, ársfjórðungsskýrslan.",
                ),
                ("Ég minni þig á skýrsluna.",),
            )
        ], Probe(
            "next_step",
            "What should the user be reminded of?",
            "to send the report to Orkustofnun",
            (("orkustofnun",), ("skýrsl", "report")),
        )

    planted.append(rng.choice((month_end, consul_upgrade, acl, report))())

    nodes = _turn(
        rng,
        b,
        ("Hvernig standa nóðurnar?", "Eru allar Nomad-nóður uppi?"),
        "Skoða nóður.",
        "bash",
        {"command": "nomad node status"},
        "ID        Node Pool  DC           Name          Class   Drain  Eligibility  Status\n"
        + "\n".join(
            f"{hexits(rng, 8)}  default    {dc}  hv-nomad-0{i}   <none>  false  eligible     ready"
            for i, dc in ((1, "reykjanes-1"), (2, "reykjanes-1"), (3, "akureyri-2 "))
        ),
        ("Allar þrjár nóðurnar eru ready.", "Allt uppi."),
    )
    members = _turn(
        rng,
        b,
        ("Consul-klasinn, allt í lagi?",),
        "Skoða meðlimi.",
        "bash",
        {"command": "consul members"},
        "Node          Address           Status  Type    Build   Protocol  DC           "
        "Partition  Segment\nhv-consul-01  10.0.1.11:8301    alive   server  1.17.3  2         "
        "reykjanes-1  default    <all>\nhv-consul-02  10.0.1.12:8301    alive   server  1.17.3  "
        "2         reykjanes-1  default    <all>",
        ("Consul-þjónarnir eru lifandi.",),
    )
    read_hcl = _turn(
        rng,
        b,
        ("Sýndu mér telemetry-skilgreininguna.",),
        "Les skrána.",
        "read_file",
        {"path": "jobs/pump-telemetry.nomad.hcl"},
        'job "pump-telemetry" {\n  datacenters = ["reykjanes-1"]\n  type = "service"\n\n'
        '  group "telemetry" {\n    count = 2\n    task "collector" {\n      driver = "docker"'
        "\n      resources {\n        cpu    = 300\n        memory = 256\n      }\n    }\n  }\n}",
        ("Hér er hún; memory = 256 núna.",),
    )
    noise = rng.sample((nodes, members, read_hcl), rng.randint(2, 3))

    def outro() -> None:
        b.user(rng.choice(("Takk, höldum áfram.", "Gott, næst.", "Flott.")))
        b.assistant(rng.choice(("Held áfram.", "Í lagi.", "Gott.")))

    jobs = ("grafana-agent", "weather-sync", "vector-logs", "backup-restic")

    def filler(r: random.Random) -> None:
        job = r.choice(jobs)
        b.user(
            r.choice(
                (
                    f"Hvernig stendur {job}?",
                    f"Kíktu á loggana hjá {job}.",
                    "Eitthvað nýtt í Nomad-loggunum?",
                )
            )
        )
        b.tool(
            "Skoða.",
            "bash",
            {"command": f"nomad alloc logs -job {job} -tail -n 6"},
            noise_lines(r, 6, _nomad_log),
        )
        b.assistant(r.choice(("Ekkert óvenjulegt.", f"{job} lítur vel út.", "Allt rólegt.")))

    return _assemble(
        rng, b, segments, intro=intro, planted=planted, noise=noise, outro=outro, filler=filler
    )


# ---------------------------------------------------------------------------------------
# hawker_airflow_sg: Singlish, Airflow
# ---------------------------------------------------------------------------------------


def _airflow_log(rng: random.Random) -> str:
    task = rng.choice(("extract_menus", "sync_riders", "refresh_zones", "score_stalls"))
    return (
        f"[{_stamp(rng).replace(' ', 'T')}.{rng.randint(100, 999)}+0800] "
        f"{{taskinstance.py:{rng.choice((1159, 1382, 2617))}}} INFO - "
        f"{rng.choice(('Marking task as SUCCESS.', 'Starting attempt 1 of 3', 'Executing'))}"
        f" dag_id=makan_ops, task_id={task}"
    )


def _hawker(rng: random.Random, b: Builder, segments: int) -> Parts:
    planted: list[Planted] = []

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Eh morning! Our Airflow for Makan Runner (hawker delivery) quite jialat "
                    "this week lah. Composer 2, Airflow 2.7, DAGs in the makan-dags repo. Can "
                    "help or not?",
                    "Hi hi, need your help with the Airflow DAGs for Makan Runner. A few "
                    "things kena broken since Friday, sian.",
                    "Ok today we settle the Airflow stuff for the hawker delivery app, the "
                    "payouts and orders ETL. Repo is makan-dags.",
                )
            )
        )

    def run_id() -> Probe:
        t = f"2024-05-14T0{rng.randint(1, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}"
        rid = f"manual__{t}.{rng.randint(100000, 999999)}+00:00"
        ok1 = f"scheduled__2024-05-1{rng.randint(1, 3)}T18:00:00+00:00"
        out = (
            "dag_id            | run_id                                    | state   | "
            "execution_date            | start_date\n"
            "==================+===========================================+=========+"
            "===========================+===========================\n"
            f"hawker_orders_etl | {rid} | failed  | {t}+00:00 | {t}+00:00\n"
            f"hawker_orders_etl | {ok1}  | success | {ok1[11:]} | {ok1[11:]}"
        )
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "The manual run I trigger this morning failed leh. Which one?",
                            "Can check the orders ETL runs? One of them red.",
                            "Which hawker_orders_etl run kena failed ah?",
                        ),
                        "Listing the runs.",
                        "bash",
                        {"command": "airflow dags list-runs -d hawker_orders_etl"},
                        out,
                        (
                            f"The failed one is run_id {rid}; the scheduled one before it is fine.",
                            f"It's {rid} — your manual trigger. Scheduled run ok.",
                            f"Failed run: {rid}. Only that one, the rest green.",
                        ),
                    )
                ],
                _ident("What is the run_id of the failed hawker_orders_etl run?", rid, rid),
            )
        )
        return planted[-1][1]

    def refund() -> Probe:
        amt = f"{rng.randint(1, 9)},{rng.randint(100, 999)}.{rng.randint(10, 99)}"
        other = f"{rng.randint(100, 999)}.{rng.randint(10, 99)}"
        out = (
            "+------------+----------+-------------+\n| batch_date | refunds  | total_sgd   |\n"
            "+------------+----------+-------------+\n"
            f"| 2024-05-13 |      {rng.randint(40, 99)} | {amt:>11} |\n"
            f"| 2024-05-12 |      {rng.randint(10, 39)} | {other:>11} |\n"
            "+------------+----------+-------------+"
        )
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "Finance say yesterday refunds very high. How much ah?",
                            "Check the refund total for 13 May can?",
                            "Wei Ling asking how much we refunded yesterday.",
                        ),
                        "Querying BigQuery.",
                        "bash",
                        {
                            "command": "bq query --use_legacy_sql=false 'SELECT batch_date, "
                            "COUNT(*) refunds, SUM(amount) total_sgd FROM ops.refunds GROUP "
                            "BY 1 ORDER BY 1 DESC LIMIT 2'"
                        },
                        out,
                        (
                            f"Refunds on 13 May: S$ {amt}, way above the {other} the day before.",
                            f"Total S$ {amt} lah, quite a lot.",
                            f"S$ {amt} refunded on the 13th.",
                        ),
                    )
                ],
                _ident("How much was refunded on 13 May?", f"S$ {amt}", amt),
            )
        )
        return planted[-1][1]

    def ticket() -> Probe:
        key = f"DATA-{rng.randint(400, 899)}"
        other = f"DATA-{rng.randint(100, 399)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            f"Put everything under {key} ok, not {other} — that one "
                            "closed already.",
                            f"Jira ticket is {key}. Don't anyhow use {other}.",
                            f"Use {key} for the PR title hor.",
                        ),
                        "Checking the ticket.",
                        "jira",
                        {"action": "get", "key": key},
                        f'{{"key": "{key}", "fields": {{"summary": "Airflow: payouts + '
                        'orders ETL fixes", "status": {"name": "In Progress"}, "assignee":'
                        ' {"displayName": "Ah Seng Tan"}}}',
                        (
                            f"{key} is In Progress under Ah Seng. Will tag commits with it.",
                            f"Ok, {key} it is.",
                            f"Got it, {key} in the PR title.",
                        ),
                    )
                ],
                _ident("Which Jira ticket does the work go under?", key, key),
            )
        )
        return planted[-1][1]

    def digest() -> Probe:
        dg = hexits(rng, 12)
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "Which image the KubernetesPodOperator using now?",
                            "The scorer pod running which image digest?",
                            "Check the stall-scorer image can?",
                        ),
                        "Checking Artifact Registry.",
                        "bash",
                        {
                            "command": "gcloud artifacts docker images list "
                            "asia-southeast1-docker.pkg.dev/makan/ml/stall-scorer --limit 2"
                        },
                        "IMAGE                                                         "
                        "DIGEST                                                                   "
                        "CREATE_TIME\nasia-southeast1-docker.pkg.dev/makan/ml/stall-scorer  "
                        f"sha256:{dg}{hexits(rng, 52)}  2024-05-13T22:10:41\n"
                        "asia-southeast1-docker.pkg.dev/makan/ml/stall-scorer  "
                        f"sha256:{hexits(rng, 64)}  2024-05-02T09:03:17",
                        (
                            f"Latest stall-scorer image is sha256:{dg}…, built last night.",
                            f"The pod uses digest sha256:{dg}.",
                            f"Image digest sha256:{dg} (13 May build).",
                        ),
                    )
                ],
                _ident("Which stall-scorer image digest is in use?", f"sha256:{dg}…", dg),
            )
        )
        return planted[-1][1]

    for make in rng.sample((run_id, refund, ticket, digest), 3):
        make()

    paused = _Art(
        names=("hawker_payouts_daily",),
        states=("paus", "suspend", "stop", "hold", "tahan", "off"),
        answer="the DAG hawker_payouts_daily was paused",
        ask=(
            "Payouts DAG pay twice to some stalls! Pause it first lah.",
            "Quick quick, stop hawker_payouts_daily before next run.",
            "Can hold the payouts DAG until we fix?",
        ),
        call="Pausing the DAG.",
        tool="bash",
        args={"command": "airflow dags pause hawker_payouts_daily"},
        shown="Dag: hawker_payouts_daily, paused: True",
        plain=(
            '{\n  "dag_id": "hawker_payouts_daily",\n  "fileloc": "/home/airflow/gcs/dags/'
            'payouts.py",\n  "is_active": true,\n  "is_paused": true,\n  "owners": '
            '["data-eng"]\n}'
        ),
        said=(
            "hawker_payouts_daily paused already, no more payouts until we unpause.",
            "Done, I paused hawker_payouts_daily.",
            "The payouts DAG, hawker_payouts_daily, the one that paid double to Bedok "
            "stalls, is now on hold (paused).",
        ),
        quiet=("Ok done.", "See output.", "Settled."),
    )
    failed = _Art(
        names=("load_orders_to_bq",),
        states=("fail", "error", "gagal", "kena", "red"),
        answer="the task load_orders_to_bq failed",
        ask=(
            "Which task in the orders ETL fail?",
            "Check the task states for the orders ETL.",
            "See which step die.",
        ),
        call="Checking task states.",
        tool="bash",
        args={"command": "airflow tasks states-for-dag-run hawker_orders_etl <latest>"},
        shown=(
            "dag_id            | task_id           | state   | try_number\n"
            "==================+===================+=========+===========\n"
            "hawker_orders_etl | extract_orders    | success | 1\n"
            "hawker_orders_etl | load_orders_to_bq | failed  | 3\n"
            "hawker_orders_etl | notify_ops        | upstream_failed | 0"
        ),
        plain=(
            "google.api_core.exceptions.BadRequest: 400 Provided Schema does not match "
            "Table makan.ops.orders. Field rider_tip has changed type from NUMERIC to FLOAT"
        ),
        said=(
            "load_orders_to_bq failed three tries — schema mismatch on rider_tip.",
            "The one that fail is load_orders_to_bq; BigQuery reject the schema.",
            "load_orders_to_bq, after 3 retries and one schema error, kena failed.",
        ),
        quiet=("Here.", "See the table.", "This one."),
    )
    deleted = _Art(
        names=("promo_voucher_sync.py", "promo_voucher_sync"),
        states=("delet", "remov", "padam", "buang", "hapus"),
        answer="dags/promo_voucher_sync.py was deleted",
        ask=(
            "The promo voucher DAG not used since CNY, delete it.",
            "Buang the old promo_voucher_sync DAG.",
            "Clean up the voucher DAG file pls.",
        ),
        call="Removing the file.",
        tool="bash",
        args={"command": "git rm dags/promo_voucher_sync.py && git status"},
        shown=(
            "rm 'dags/promo_voucher_sync.py'\nOn branch DATA-cleanup\nChanges to be "
            "committed:\n\tdeleted:    dags/promo_voucher_sync.py"
        ),
        plain="rm 'dags/promo_voucher_sync.py'",
        said=(
            "promo_voucher_sync.py deleted from dags/.",
            "Ok, I removed promo_voucher_sync.py; nothing imports it.",
            "promo_voucher_sync.py, the CNY one, is gone — deleted in this branch.",
        ),
        quiet=("Done.", "Ok.", "See output."),
    )
    created = _Art(
        names=("grab_export.py", "grab_export"),
        states=("creat", "new file", "added", "baru", "wrote", "write"),
        answer="plugins/operators/grab_export.py was created",
        ask=(
            "Need one operator to export orders to GrabFood format.",
            "Write a custom operator for the Grab export.",
            "Can make a new operator file for Grab?",
        ),
        call="Writing the operator.",
        tool="bash",
        args={"command": "git add plugins/operators && git status --short"},
        shown="A  plugins/operators/grab_export.py\n?? .env.local\n# new file: "
        "plugins/operators/grab_export.py",
        plain="M  plugins/operators/__init__.py",
        said=(
            "Created plugins/operators/grab_export.py with a GrabExportOperator.",
            "New file grab_export.py added under plugins/operators.",
            "grab_export.py, with the operator and two hooks, is a new file in the repo.",
        ),
        quiet=("Ok.", "Done.", "See status."),
    )
    for art in rng.sample((paused, failed, deleted, created), 2):
        planted.append(_plant_art(rng, b, art))

    def timezone() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "All DAGs must use timezone Asia/Singapore ok, no more UTC confusion.",
                    "Rule: start_date with pendulum tz Asia/Singapore, every DAG.",
                    "Timezone for everything is Asia/Singapore, confirm plus chop.",
                ),
                ("Ok, Asia/Singapore everywhere.",),
            )
        ], Probe(
            "decision",
            "Which timezone must the DAGs use?",
            "Asia/Singapore",
            (("asia/singapore",), ("timezone", "tz", "zone")),
        )

    def retries() -> Planted:
        first, final = rng.choice((5, 6, 8)), rng.choice((1, 2, 3))
        early = _say(rng, b, (f"Set default retries={first} for all tasks.",), ("Ok.",))
        later = _say(
            rng,
            b,
            (
                f"Actually no lah, retries={final} enough. {first} too many, spam the alerts.",
                f"Change of plan: default retries {final}, not {first}.",
                f"Ah Seng say retries = {final} only. Use that.",
            ),
            (f"Changing to {final}.",),
        )
        return [early, later], Probe(
            "decision",
            "What default retries did the user settle on?",
            f"{final} (corrected from {first})",
            (
                (
                    f"retries={final}",
                    f"retries = {final}",
                    f"{final} retr",
                    f"retries {final}",
                    f"retries: {final}",
                    f"retries to {final}",
                    f"retries of {final}",
                ),
                ("retr",),
            ),
        )

    def pool() -> Planted:
        n = rng.choice((4, 6, 8))
        return [
            _ask(
                rng,
                b,
                ("BigQuery quota keep hitting, how?",),
                (f"I propose a pool bq_pool with {n} slots for all BigQuery tasks.",),
                ("ok can", "yup go", "shiok, do it"),
                ("Creating the pool.",),
            )
        ], Probe(
            "decision",
            "What pool was agreed for the BigQuery tasks?",
            f"bq_pool with {n} slots",
            (("bq_pool",), (str(n),)),
        )

    def cutoff() -> Planted:
        t = rng.choice(("11pm", "10pm", "9pm"))
        return [
            _say(
                rng,
                b,
                (
                    f"Wei Ling from finance say payout cutoff is {t}, after that next day.",
                    f"Finance (Wei Ling) confirm: payouts cutoff {t} SGT.",
                    f"Msg from Wei Ling — cutoff for payouts {t}.",
                ),
                (f"Noted, cutoff {t}.",),
            )
        ], Probe(
            "decision",
            "What is the payout cutoff, per Wei Ling?",
            t,
            ((t,), ("cutoff", "payout")),
        )

    def dataset() -> Planted:
        return [
            _ask(
                rng,
                b,
                ("Load the new tables where?",),
                ("Which BigQuery dataset: makan_prod or makan_analytics?",),
                (
                    "makan_analytics lah, prod only for the app.",
                    "Use makan_analytics dataset.",
                    "makan_analytics. Don't touch makan_prod.",
                ),
                ("Ok, makan_analytics.",),
            )
        ], Probe(
            "decision",
            "Which dataset do the new tables go to?",
            "makan_analytics (not makan_prod)",
            (("makan_analytics",), ("dataset", "bq", "bigquery", "load", "use", "lah", "ok")),
        )

    planted.append(rng.choice((timezone, retries, pool, cutoff, dataset))())

    def backfill() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "The May backfill must finish before Monday 9am, boss wants the report.",
                    "Backfill for May — by Monday morning latest.",
                    "Deadline Monday for the backfill ya.",
                ),
                ("Ok, backfill by Monday.",),
            )
        ], Probe(
            "next_step",
            "What is pending and by when?",
            "the May backfill, by Monday 9am",
            (("backfill",), ("monday", "isnin", "mon ")),
        )

    def approve() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Once Ah Seng approve the PR then we unpause, not before.",
                    "Wait for Ah Seng review first, then can merge.",
                    "After Ah Seng approve only merge hor.",
                ),
                ("Ok, waiting for Ah Seng.",),
            )
        ], Probe(
            "next_step",
            "What waits on what?",
            "merge/unpause once Ah Seng approves the PR",
            (("ah seng", "seng"), ("approv", "unpause", "merge", "review")),
        )

    def sla() -> Planted:
        return [
            _say(
                rng,
                b,
                ("Who going to look at the SLA miss emails?",),
                (
                    "I'll check the SLA miss emails tomorrow morning and tune the sla= values.",
                    "Tomorrow I go through the SLA misses, promise.",
                    "Leave the SLA misses to me, will do tomorrow.",
                ),
            )
        ], Probe(
            "next_step",
            "What did the agent promise?",
            "to check the SLA miss emails tomorrow",
            (("sla",), ("tomorrow", "tmr", "esok")),
        )

    def twilio() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Remind me to top up the Twilio credits later, the rider SMS almost finish.",
                    "Later remind me ah — Twilio top up.",
                    "Must remember top up Twilio credit, remind me.",
                ),
                ("Will remind you about Twilio.",),
            )
        ], Probe(
            "next_step",
            "What should the user be reminded of?",
            "to top up the Twilio credits",
            (("twilio",), ("top up", "topup", "top-up", "credit")),
        )

    planted.append(rng.choice((backfill, approve, sla, twilio))())

    dags_list = _turn(
        rng,
        b,
        ("List all the DAGs first.", "What DAGs we have?"),
        "Listing.",
        "bash",
        {"command": "airflow dags list -o plain | head"},
        "dag_id                 fileloc                           owners    is_paused\n"
        "makan_ops              /home/airflow/gcs/dags/ops.py     data-eng  False\n"
        "rider_bonus_weekly     /home/airflow/gcs/dags/bonus.py   data-eng  False\n"
        "stall_scores           /home/airflow/gcs/dags/scores.py  ml        False",
        ("These are the active ones.",),
    )
    import_errors = _turn(
        rng,
        b,
        ("Got import errors or not?",),
        "Checking.",
        "bash",
        {"command": "airflow dags list-import-errors"},
        "No data found",
        ("No import errors.",),
    )
    read_dag = _turn(
        rng,
        b,
        ("Show me the bonus DAG code.",),
        "Reading.",
        "read_file",
        {"path": "dags/bonus.py"},
        'with DAG(\n    dag_id="rider_bonus_weekly",\n    schedule="0 3 * * MON",\n'
        '    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),\n    catchup=False,\n'
        ') as dag:\n    compute = PythonOperator(task_id="compute", python_callable=run)',
        ("Runs Monday 3am, still UTC.",),
    )
    noise = rng.sample((dags_list, import_errors, read_dag), rng.randint(2, 3))

    def outro() -> None:
        b.user(rng.choice(("Ok shiok, next.", "Thanks ah. Carry on.", "Can, continue.")))
        b.assistant(rng.choice(("Continuing.", "Ok.", "On it.")))

    def filler(r: random.Random) -> None:
        dag = r.choice(("makan_ops", "rider_bonus_weekly", "stall_scores", "zone_heatmap"))
        b.user(r.choice((f"How's {dag} ah?", f"Check the logs for {dag}.", "Any issue today?")))
        b.tool(
            "Looking.",
            "bash",
            {
                "command": f"gcloud composer environments run makan-prod --location "
                f"asia-southeast1 tasks list -- {dag}"
            },
            noise_lines(r, 5, _airflow_log),
        )
        b.assistant(r.choice(("All green.", f"{dag} steady.", "Nothing special lah.")))

    return _assemble(
        rng, b, segments, intro=intro, planted=planted, noise=noise, outro=outro, filler=filler
    )


# ---------------------------------------------------------------------------------------
# cooperativa_sfdx_ca: Catalan, Salesforce (Apex, sf CLI)
# ---------------------------------------------------------------------------------------


def _sf_log(rng: random.Random) -> str:
    return (
        f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}."
        f"{rng.randint(0, 9)} ({rng.randint(1000000, 9999999)})|"
        f"{rng.choice(('SOQL_EXECUTE_BEGIN', 'DML_BEGIN', 'USER_DEBUG', 'CODE_UNIT_STARTED'))}"
        f"|[{rng.randint(1, 200)}]|{rng.choice(('Contact', 'Parcela__c', 'Entrega__c'))}"
    )


def _cooperativa(rng: random.Random, b: Builder, segments: int) -> Parts:
    planted: list[Planted] = []
    cls = "force-app/main/default/classes"

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "Bon dia! Treballem amb l'org de Salesforce del Celler Cooperatiu: socis, "
                    "entregues de raïm i liquidacions. Projecte sfdx, sf CLI v2.",
                    "Hola, avui toca posar ordre a l'Apex de la cooperativa abans de la "
                    "verema. El repo és celler-sf.",
                    "Bones. Necessito ajuda amb el projecte Salesforce de la cooperativa "
                    "(liquidacions als socis).",
                )
            )
        )

    def record_id() -> Probe:
        rid = f"a0B{token(rng, 2)}00000{token(rng, 7)}"
        other = f"a0B{token(rng, 2)}00000{token(rng, 7)}"
        out = (
            " ID                  NAME              SOCI__C        ESTAT__C\n"
            " ─────────────────── ───────────────── ────────────── ──────────\n"
            f" {rid}  LIQ-2024-0311     Cal Pauet      Error\n"
            f" {other}  LIQ-2024-0312     Mas d'en Gil   Pagada\n"
            "Total number of records retrieved: 2."
        )
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "Hi ha una liquidació que ha quedat en error. Troba-la.",
                            "Quina liquidació ha fallat aquesta nit?",
                            "La Montse diu que una liquidació no s'ha pagat. Quina?",
                        ),
                        "Consulto les liquidacions.",
                        "bash",
                        {
                            "command": 'sf data query -q "SELECT Id, Name, Soci__c, Estat__c '
                            'FROM Liquidacio__c WHERE CreatedDate = TODAY" -o cellers-prod'
                        },
                        out,
                        (
                            f"La que ha fallat és {rid} (LIQ-2024-0311, Cal Pauet).",
                            f"És el registre {rid}; l'altra està pagada.",
                            f"Liquidació en error: {rid}.",
                        ),
                    )
                ],
                _ident("What is the record id of the failed liquidation?", rid, rid),
            )
        )
        return planted[-1][1]

    def deploy_id() -> Probe:
        did = f"0Af{token(rng, 2)}00000{token(rng, 7)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "Com ha anat el desplegament d'ahir a la tarda?",
                            "Busca l'últim deploy a UAT.",
                            "Quin és l'ID del darrer desplegament?",
                        ),
                        "Miro l'informe.",
                        "bash",
                        {"command": "sf project deploy report --use-most-recent -o cellers-uat"},
                        f"Status: Succeeded\nDeploy ID: {did}\nTarget Org: uat@celler.cat\n"
                        "Elapsed Time: 1m 12.41s\n\nDeployed Source\n===============\n"
                        " State    Name           Type      Path\n ──────── ────────────── "
                        f"───────── ─────────────\n Unchanged SociTrigger   ApexTrigger {cls}/"
                        "../triggers/SociTrigger.trigger",
                        (
                            f"El desplegament {did} va acabar bé a UAT.",
                            f"Deploy ID {did}: Succeeded en 1m 12s.",
                            f"L'últim és {did}, correcte.",
                        ),
                    )
                ],
                _ident("What was the last deploy id on UAT?", did, did),
            )
        )
        return planted[-1][1]

    def amount() -> Probe:
        amt = f"{rng.randint(10, 48)}.{rng.randint(100, 999)},{rng.randint(10, 99)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "Quant cobra Cal Pauet aquesta liquidació?",
                            "Calcula l'import de la liquidació de Cal Pauet.",
                            "Quin import li surt a Cal Pauet?",
                        ),
                        "Executo l'Apex anònim.",
                        "bash",
                        {"command": "sf apex run -f scripts/import_cal_pauet.apex -o cellers-uat"},
                        "Compiled successfully.\nExecuted successfully.\n\n"
                        f"{rng.randint(10, 18)}:{rng.randint(10, 59)}:01.3 (4412021)|USER_DEBUG|"
                        f"[7]|DEBUG|Import liquidacio: {amt} EUR (kg: {rng.randint(9000, 30000)})",
                        (
                            f"A Cal Pauet li surten {amt} € aquesta campanya.",
                            f"L'import és de {amt} €.",
                            f"Cal Pauet cobra {amt} euros.",
                        ),
                    )
                ],
                _ident("How much is Cal Pauet's liquidation?", f"{amt} €", amt),
            )
        )
        return planted[-1][1]

    def case() -> Probe:
        num = f"000{rng.randint(10000, 99999)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            f"Apunta-ho al cas {num} del suport de Salesforce.",
                            f"Hem obert el cas {num} amb Salesforce per això.",
                            f"El número de cas a Salesforce és {num}.",
                        ),
                        "Obro el cas.",
                        "bash",
                        {"command": f"sf data get record -s Case -w \"CaseNumber='{num}'\""},
                        f"CaseNumber: {num}\nSubject: Límit d'API en liquidacions massives\n"
                        "Status: Working\nPriority: High",
                        (
                            f"Cas {num}: Working, prioritat alta.",
                            f"D'acord, el cas {num} està obert.",
                            f"Tinc el cas {num} anotat.",
                        ),
                    )
                ],
                _ident("Which Salesforce support case is open?", num, num),
            )
        )
        return planted[-1][1]

    for make in rng.sample((record_id, deploy_id, amount, case), 3):
        make()

    table = (
        "Deployed Source\n===============\n State    Name                   Type        Path\n"
        " ──────── ────────────────────── ─────────── ──────────────────────────────\n{row}"
    )
    service = _Art(
        names=("LiquidacioRaimService",),
        states=("deploy", "chang", "desplega", "pujat", "publica", "canvi"),
        answer="LiquidacioRaimService was deployed (changed) to the org",
        ask=(
            "Desplega el servei de liquidacions amb l'arrodoniment nou.",
            "Puja LiquidacioRaimService a UAT.",
            "Ja pots fer el deploy de la classe de liquidacions.",
        ),
        call="Desplego.",
        tool="bash",
        args={
            "command": f"sf project deploy start -d {cls}/LiquidacioRaimService.cls -o cellers-uat"
        },
        shown="Status: Succeeded\n"
        + table.format(
            row=f" Changed  LiquidacioRaimService  ApexClass   {cls}/LiquidacioRaimService.cls"
        ),
        plain="Status: Succeeded\nDeploy ID: 0Af7Q00000ZqTr1SAF\nElapsed Time: 48.02s",
        said=(
            "LiquidacioRaimService desplegat a UAT, sense errors.",
            "He desplegat LiquidacioRaimService amb l'arrodoniment a dos decimals.",
            "La classe LiquidacioRaimService, després de dos intents per un test lent, "
            "ja està pujada a UAT.",
        ),
        quiet=("Fet.", "Aquí ho tens.", "Mira la sortida."),
    )
    flow = _Art(
        names=("Avis_Verema_Flow",),
        states=("deactiv", "disabl", "inactive", "obsolete", "desactiv", "aturat", "apagat"),
        answer="the flow Avis_Verema_Flow was deactivated",
        ask=(
            "El flux d'avisos de verema envia SMS duplicats, desactiva'l.",
            "Apaga l'Avis_Verema_Flow fins que ho arreglem.",
            "Atura els avisos de verema.",
        ),
        call="Desactivo el flux i comprovo.",
        tool="bash",
        args={
            "command": 'sf data query --use-tooling-api -q "SELECT Definition.DeveloperName, '
            "VersionNumber, Status FROM Flow WHERE Definition.DeveloperName = "
            "'Avis_Verema_Flow'\""
        },
        shown=(
            " DEFINITION.DEVELOPERNAME VERSIONNUMBER STATUS\n ──────────────────────── "
            "───────────── ────────\n Avis_Verema_Flow         7             Obsolete\n"
            "Total number of records retrieved: 1."
        ),
        plain="Successfully updated record: 3007Q000000bZx1QAE.",
        said=(
            "Avis_Verema_Flow queda desactivat; no s'enviaran més SMS.",
            "He desactivat l'Avis_Verema_Flow (versió 7).",
            "L'Avis_Verema_Flow, el que enviava els SMS dos cops als socis de Falset, "
            "està desactivat.",
        ),
        quiet=("Fet.", "Vegeu la sortida.", "Aquí està."),
    )
    test = _Art(
        names=("QuotaSociTest",),
        states=("fail", "falla", "fallen", "fallat", "error", "suspès", "no passa"),
        answer="the Apex test class QuotaSociTest is failing",
        ask=(
            "Passa els tests d'Apex.",
            "Com estan els tests locals?",
            "Executa RunLocalTests a UAT.",
        ),
        call="Executo els tests.",
        tool="bash",
        args={"command": "sf apex run test -l RunLocalTests -w 10 -r human -o cellers-uat"},
        shown=(
            "=== Test Summary\nNAME                 VALUE\nOutcome              Failed\n"
            "Tests Ran            38\nPass Rate            95%\n\n=== Test Results\n"
            "TEST NAME                               OUTCOME  MESSAGE\n"
            "QuotaSociTest.testQuotaAnual            Fail     System.AssertException: "
            "Assertion Failed: Expected: 120.00, Actual: 118.80\n"
            "QuotaSociTest.testQuotaNouSoci          Fail     System.NullPointerException"
        ),
        plain=(
            "=== Test Summary\nNAME                 VALUE\nOutcome              Failed\n"
            "Tests Ran            38\nPass Rate            95%\nTest Run Id          "
            "7077Q00000Hk2bX"
        ),
        said=(
            "QuotaSociTest falla en dos mètodes: testQuotaAnual i testQuotaNouSoci.",
            "Els tests de QuotaSociTest no passen, la resta sí.",
            "QuotaSociTest, que és el de les quotes anuals, està fallant.",
        ),
        quiet=("Aquí tens el resum.", "Resultat dels tests.", "Mira-ho."),
    )
    field = _Art(
        names=("Hectarees__c",),
        states=("delet", "remov", "esborr", "elimin", "suprim", "destruct"),
        answer="the custom field Soci__c.Hectarees__c was deleted",
        ask=(
            "El camp Hectarees__c està duplicat, esborra'l.",
            "Elimina Hectarees__c, ara fem servir Superficie__c.",
            "Neteja el camp vell d'hectàrees.",
        ),
        call="Desplego el destructiveChanges.",
        tool="bash",
        args={
            "command": "sf project deploy start --post-destructive-changes "
            "manifest/destructiveChanges.xml -o cellers-uat"
        },
        shown="Status: Succeeded\n"
        + table.format(
            row=" Deleted  Soci__c.Hectarees__c   CustomField force-app/main/default/objects/"
            "Soci__c/fields/Hectarees__c.field-meta.xml"
        ),
        plain="Status: Succeeded\nDeploy ID: 0Af7Q00000ZqTs4SAF\nComponents: 1/1",
        said=(
            "Hectarees__c esborrat de Soci__c.",
            "He eliminat el camp Hectarees__c; cap informe el feia servir.",
            "El camp Hectarees__c, duplicat des de la migració de 2022, s'ha suprimit.",
        ),
        quiet=("Fet.", "D'acord.", "Sortida aquí."),
    )
    for art in rng.sample((service, flow, test, field), 2):
        planted.append(_plant_art(rng, b, art))

    def api() -> Planted:
        v = rng.choice(("60.0", "61.0", "59.0"))
        return [
            _say(
                rng,
                b,
                (
                    f"Tot el projecte a sourceApiVersion {v}, sense excepcions.",
                    f"Decidit: API {v} a sfdx-project.json i a totes les classes.",
                    f"Fem servir la versió d'API {v}.",
                ),
                (f"Entesos, {v}.",),
            )
        ], Probe(
            "decision",
            "Which API version is the project on?",
            v,
            ((v,), ("api", "sourceapiversion")),
        )

    def coverage() -> Planted:
        first, final = rng.choice((75, 80)), rng.choice((85, 90))
        early = _say(rng, b, (f"Amb un {first}% de cobertura n'hi ha prou.",), ("D'acord.",))
        later = _say(
            rng,
            b,
            (
                f"No, canvi de plans: volem {final}% de cobertura, no {first}.",
                f"Corregeixo: cobertura mínima {final}%, ho diu l'auditor.",
                f"Oblida el {first}%. La cobertura ha de ser {final}%.",
            ),
            (f"Apuntat, {final}%.",),
        )
        return [early, later], Probe(
            "decision",
            "What test coverage is required (final word)?",
            f"{final}% (corrected from {first}%)",
            ((f"{final}%", f"{final} %"), ("cobert", "coverage")),
        )

    def batch() -> Planted:
        n = rng.choice((100, 200, 500))
        return [
            _ask(
                rng,
                b,
                ("Les liquidacions massives peten per límits de CPU.",),
                (f"Proposo executar el batch amb una mida de lot de {n} registres.",),
                ("sí", "endavant", "d'acord, fes-ho"),
                ("Ho canvio.",),
            )
        ], Probe(
            "decision",
            "What batch size was agreed for the mass liquidations?",
            f"{n} records per batch",
            ((str(n),), ("batch", "lot")),
        )

    def payday() -> Planted:
        d = rng.choice((25, 20, 28))
        return [
            _say(
                rng,
                b,
                (
                    f"La Montse de comptabilitat diu que les liquidacions es paguen el dia {d}.",
                    f"Missatge de la Montse: pagament de liquidacions, dia {d} de cada mes.",
                    f"Segons la Montse, el dia {d} és quan es paguen les liquidacions.",
                ),
                (f"Apuntat, dia {d}.",),
            )
        ], Probe(
            "decision",
            "On which day are liquidations paid, per Montse?",
            f"day {d} of each month",
            ((f"dia {d}", f"{d}th", f"day {d}", f"el {d}"), ("liquidac", "pag", "pay")),
        )

    def sandbox() -> Planted:
        return [
            _ask(
                rng,
                b,
                ("On provem els canvis?",),
                ("A quin sandbox desplego: cellers-uat o cellers-partial?",),
                (
                    "cellers-uat, el partial està trencat.",
                    "A cellers-uat.",
                    "cellers-uat; el partial no el toquis.",
                ),
                ("Fet, cellers-uat.",),
            )
        ], Probe(
            "decision",
            "Which sandbox is used for the changes?",
            "cellers-uat",
            (("cellers-uat",), ("sandbox", "org", "desplega", "deploy", "uat")),
        )

    planted.append(rng.choice((api, coverage, batch, payday, sandbox))())

    def harvest() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Abans de la verema (1 de setembre) tot ha d'estar en producció.",
                    "Termini: producció abans de l'1 de setembre.",
                    "Ha de ser a producció per la verema, 1 de setembre.",
                ),
                ("Entesos, producció abans de setembre.",),
            )
        ], Probe(
            "next_step",
            "What is pending and by when?",
            "everything in production before the harvest (1 September)",
            (("setembre", "september", "verema", "harvest"), ("producci", "prod")),
        )

    def jordi() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Quan el Jordi validi les dades al sandbox, fem el desplegament.",
                    "Esperem la validació del Jordi abans del deploy.",
                    "Sense el vistiplau del Jordi no es desplega.",
                ),
                ("D'acord, esperem el Jordi.",),
            )
        ], Probe(
            "next_step",
            "What waits on what?",
            "the deploy waits on Jordi validating the data",
            (("jordi",), ("valid", "desplega", "deploy", "vistiplau")),
        )

    def package() -> Planted:
        return [
            _say(
                rng,
                b,
                ("Qui prepara el paquet per a producció?",),
                (
                    "Demà al matí preparo el paquet de canvis per a producció.",
                    "Me n'encarrego jo: demà tindràs el paquet.",
                    "Demà et passo el paquet (package.xml) per producció.",
                ),
            )
        ], Probe(
            "next_step",
            "What did the agent promise?",
            "to prepare the production change package tomorrow morning",
            (("demà", "tomorrow", "dema"), ("paquet", "package")),
        )

    def aeat() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Recorda'm d'enviar el certificat de retencions a l'Agència Tributària.",
                    "Recorda-m'ho: certificat per a l'Agència Tributària.",
                    "No em deixis oblidar el certificat de l'Agència Tributària.",
                ),
                ("Te'l recordaré.",),
            )
        ], Probe(
            "next_step",
            "What should the user be reminded of?",
            "to send the withholding certificate to the tax agency",
            (("agència", "tributària", "aeat", "tax agency"), ("certificat", "certificate")),
        )

    planted.append(rng.choice((harvest, jordi, package, aeat))())

    org = _turn(
        rng,
        b,
        ("Quines orgs tinc connectades?",),
        "Llisto les orgs.",
        "bash",
        {"command": "sf org list"},
        "Type     Alias            Username              Org ID              Status\n"
        "──────── ──────────────── ───────────────────── ─────────────────── ─────────\n"
        "🌳       cellers-prod     admin@celler.cat      00D7Q000000aBcDUAU  Connected\n"
        "🏖        cellers-uat      uat@celler.cat        00D7Q000000aBcEUAU  Connected\n"
        "🏖        cellers-partial  partial@celler.cat    00D7Q000000aBcFUAU  Connected",
        ("Tres orgs connectades.",),
    )
    read_trigger = _turn(
        rng,
        b,
        ("Ensenya'm el trigger de socis.",),
        "Llegeixo.",
        "read_file",
        {"path": "force-app/main/default/triggers/SociTrigger.trigger"},
        "trigger SociTrigger on Soci__c (before insert, before update) {\n"
        "    SociHandler.normalitzaNif(Trigger.new);\n}",
        ("Només normalitza el NIF.",),
    )
    limits = _turn(
        rng,
        b,
        ("Com anem de límits d'API?",),
        "Consulto.",
        "bash",
        {"command": "sf org list limits -o cellers-prod | grep -i api"},
        "DailyApiRequests                     100000   87412\n"
        "DailyBulkV2QueryJobs                 10000    9998",
        ("Ens queden uns 87.000 crides avui.",),
    )
    noise = rng.sample((org, read_trigger, limits), rng.randint(2, 3))

    def outro() -> None:
        b.user(rng.choice(("Perfecte, seguim.", "Gràcies. Continua.", "Som-hi.")))
        b.assistant(rng.choice(("Continuo.", "D'acord.", "Som-hi.")))

    def filler(r: random.Random) -> None:
        cl = r.choice(("EntregaHandler", "ParcelaSelector", "SociHandler", "InformeCollita"))
        b.user(r.choice((f"Revisa {cl}.", f"Què fa {cl}?", "Hi ha res al log de depuració?")))
        b.tool(
            "Miro el log.",
            "bash",
            {"command": "sf apex tail log -o cellers-uat | head -n 6"},
            noise_lines(r, 6, _sf_log),
        )
        b.assistant(r.choice(("Tot normal.", f"{cl} funciona bé.", "Res d'especial.")))

    return _assemble(
        rng, b, segments, intro=intro, planted=planted, noise=noise, outro=outro, filler=filler
    )


# ---------------------------------------------------------------------------------------
# qvevri_clickhouse_ka: Georgian, ClickHouse
# ---------------------------------------------------------------------------------------


def _ch_log(rng: random.Random) -> str:
    return (
        f"{_stamp(rng).replace('-', '.')}.{rng.randint(100000, 999999)} "
        f"[ {rng.randint(100, 999)} ] "
        f"{{{hexits(rng, 8)}-{hexits(rng, 4)}}} <{rng.choice(('Debug', 'Information', 'Trace'))}> "
        f"{rng.choice(('executeQuery', 'MergeTreeDataMergerMutator', 'MemoryTracker'))}: "
        f"{rng.choice(('Read 1204 rows', 'Merged 6 parts', 'Peak memory usage: 12.4 MiB'))}"
    )


def _qvevri(rng: random.Random, b: Builder, segments: int) -> Parts:
    planted: list[Planted] = []
    client = "clickhouse-client --host ch-1.qvevri.ge --database qvevri --query"

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "გამარჯობა! ვმუშაობთ Qvevri Trade-ის ანალიტიკაზე ClickHouse-ში (23.8): "
                    "ღვინის ექსპორტი, გადაზიდვები, ინვოისები.",
                    "დილა მშვიდობისა. დღეს ClickHouse-ის ცხრილები უნდა დავალაგოთ ექსპორტის "
                    "რეპორტებისთვის.",
                    "სალამი, დამეხმარე ClickHouse-ში — ღვინის ექსპორტის მონაცემები გვაქვს.",
                )
            )
        )

    def query_id() -> Probe:
        qid = "-".join((hexits(rng, 8), hexits(rng, 4), "4" + hexits(rng, 3), "a" + hexits(rng, 3)))
        qid += "-" + hexits(rng, 12)
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "ქვეყნების რეპორტი ძალიან ნელია. რომელი query?",
                            "ვინ ჭამს მეხსიერებას ClickHouse-ში?",
                            "ნახე query_log, რა იყო ყველაზე მძიმე.",
                        ),
                        "ვამოწმებ query_log-ს.",
                        "bash",
                        {
                            "command": f'{client} "SELECT query_id, query_duration_ms, '
                            "formatReadableSize(memory_usage) FROM system.query_log WHERE "
                            "type='QueryFinish' ORDER BY memory_usage DESC LIMIT 2\""
                        },
                        f"{qid}\t48211\t9.71 GiB\n"
                        f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-b{hexits(rng, 3)}"
                        f"-{hexits(rng, 12)}\t1204\t311.40 MiB",
                        (
                            f"ყველაზე მძიმე query არის {qid} — 48 წამი და 9.7 GiB.",
                            f"პრობლემური query_id: {qid}.",
                            f"მეხსიერებას {qid} ჭამს, დანარჩენი ნორმალურია.",
                        ),
                    )
                ],
                _ident("What is the query_id of the heaviest query?", qid, qid),
            )
        )
        return planted[-1][1]

    def part() -> Probe:
        name = f"202405_{rng.randint(1, 40)}_{rng.randint(41, 99)}_{rng.randint(2, 5)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "shipments-ში რომელი part არის გაფუჭებული?",
                            "ლოგში წერია broken part. რომელი?",
                            "შეამოწმე shipments-ის ნაწილები.",
                        ),
                        "ვნახავ system.parts-ს.",
                        "bash",
                        {
                            "command": f'{client} "SELECT name, rows, active FROM '
                            "system.detached_parts WHERE table='shipments' FORMAT PrettyCompact\""
                        },
                        "┌─name──────────────┬─rows─┬─reason─┐\n"
                        f"│ {name:<17} │ {rng.randint(1000, 9999)} │ broken │\n"
                        "└───────────────────┴──────┴────────┘",
                        (
                            f"გაფუჭებული part არის {name}, ის detached-ში დევს.",
                            f"Broken part: {name}.",
                            f"ClickHouse-მა {name} გადაიტანა detached-ში.",
                        ),
                    )
                ],
                _ident("Which shipments part is broken?", name, name),
            )
        )
        return planted[-1][1]

    def amount() -> Probe:
        amt = f"{rng.randint(10, 99)}{rng.randint(100, 999)}.{rng.randint(10, 99)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "რამდენია პოლონეთის მაისის ექსპორტი დოლარში?",
                            "დაითვალე მაისის ექსპორტი პოლონეთში.",
                            "პოლონეთი, მაისი — ჯამი?",
                        ),
                        "ვითვლი.",
                        "bash",
                        {
                            "command": f'{client} "SELECT sum(amount_usd) FROM shipments '
                            "WHERE country='PL' AND toYYYYMM(shipped_at)=202405\""
                        },
                        amt,
                        (
                            f"მაისში პოლონეთში ექსპორტი: {amt} USD.",
                            f"ჯამი {amt} დოლარია.",
                            f"პოლონეთი, მაისი: {amt} USD.",
                        ),
                    )
                ],
                _ident(
                    "What is the May export total to Poland?",
                    f"{amt} USD",
                    amt,
                ),
            )
        )
        return planted[-1][1]

    def invoice() -> Probe:
        inv = f"QT-INV-{rng.randint(1000, 9999)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            f"ინვოისი {inv} ორჯერ ჩანს რეპორტში.",
                            f"{inv} დუბლირებულია, ნახე.",
                            f"რატომ არის {inv} ორჯერ?",
                        ),
                        "ვეძებ დუბლიკატებს.",
                        "bash",
                        {
                            "command": f'{client} "SELECT invoice_no, count() FROM invoices '
                            'GROUP BY invoice_no HAVING count() > 1"'
                        },
                        f"{inv}\t2",
                        (
                            f"{inv} მართლა ორჯერაა ჩაწერილი — ეს ერთადერთი დუბლიკატია.",
                            f"მხოლოდ {inv} არის დუბლირებული.",
                            f"დუბლიკატი: {inv}, ორი ჩანაწერი.",
                        ),
                    )
                ],
                _ident("Which invoice is duplicated?", inv, inv),
            )
        )
        return planted[-1][1]

    for make in rng.sample((query_id, part, amount, invoice), 3):
        make()

    dropped = _Art(
        names=("exports_raw_old",),
        states=("drop", "delet", "remov", "წაიშ", "წავშ", "წაშლ", "ამოვიღ"),
        answer="the table exports_raw_old was dropped",
        ask=(
            "exports_raw_old აღარ გვჭირდება, წაშალე.",
            "ძველი exports ცხრილი წაშალე, ადგილი გვჭირდება.",
            "მოაშორე exports_raw_old.",
        ),
        call="ვშლი ცხრილს.",
        tool="bash",
        args={
            "command": f'{client} "DROP TABLE exports_raw_old" && {client} "SELECT '
            "query_kind, query FROM system.query_log WHERE query_kind='Drop' ORDER BY "
            'event_time DESC LIMIT 1"'
        },
        shown="Drop\tDROP TABLE exports_raw_old",
        plain="Ok.\n\n0 rows in set. Elapsed: 0.004 sec.",
        said=(
            "exports_raw_old წაიშალა, 41 GiB გათავისუფლდა.",
            "ცხრილი exports_raw_old წავშალე.",
            "exports_raw_old, რომელიც 2022 წლიდან არავის გამოუყენებია, წაშლილია.",
        ),
        quiet=("მზადაა.", "ნახე შედეგი.", "აი."),
    )
    mview = _Art(
        names=("mv_daily_sales",),
        states=("creat", "new", "შევქმენ", "შეიქმნა", "ახალი", "დავამატ"),
        answer="the materialized view mv_daily_sales was created",
        ask=(
            "დღიური გაყიდვებისთვის materialized view გვინდა.",
            "შექმენი mv_daily_sales.",
            "დღიური ჯამები ავტომატურად რომ ითვლებოდეს, გააკეთე რამე.",
        ),
        call="ვუშვებ მიგრაციას.",
        tool="bash",
        args={"command": "clickhouse-migrations migrate --migrations-home db/migrations"},
        shown=(
            "Applying 0007_mv_daily_sales.sql\nCREATE MATERIALIZED VIEW qvevri.mv_daily_sales "
            "TO qvevri.daily_sales AS SELECT ...\nMigration complete: 1 applied"
        ),
        plain="Applying 0007 ... done\nMigration complete: 1 applied",
        said=(
            "შევქმენი mv_daily_sales, ის daily_sales-ში წერს.",
            "mv_daily_sales შეიქმნა და უკვე ავსებს მონაცემებს.",
            "ახალი materialized view mv_daily_sales, SummingMergeTree-ზე, მზადაა.",
        ),
        quiet=("მზადაა.", "აი შედეგი.", "კარგი."),
    )
    altered = _Art(
        names=("excise_rate",),
        states=("modif", "chang", "alter", "შევცვალ", "შეიცვალ", "გადავაკეთ"),
        answer="the column excise_rate in shipments was modified to Decimal(12, 4)",
        ask=(
            "აქციზის განაკვეთი Float-შია, დამრგვალება ირღვევა. გაასწორე.",
            "excise_rate Decimal უნდა იყოს.",
            "შეცვალე excise_rate-ის ტიპი.",
        ),
        call="ვუშვებ ALTER-ს და ვამოწმებ mutation-ს.",
        tool="bash",
        args={
            "command": f'{client} "SELECT table, mutation_id, command, is_done FROM '
            'system.mutations ORDER BY create_time DESC LIMIT 1"'
        },
        shown=f"shipments\tmutation_{rng.randint(10, 99)}.txt\tMODIFY COLUMN excise_rate "
        "Decimal(12, 4)\t1",
        plain="Ok.\n\n0 rows in set. Elapsed: 2.118 sec.",
        said=(
            "excise_rate-ის ტიპი შევცვალე Decimal(12, 4)-ზე.",
            "excise_rate შეიცვალა — ახლა Decimal(12, 4).",
            "shipments-ის სვეტი excise_rate, რომელსაც დამრგვალება ჰქონდა, გადავაკეთე Decimal-ზე.",
        ),
        quiet=("მზადაა.", "ნახე.", "კარგი."),
    )
    detached = _Art(
        names=("orders_by_country",),
        states=("detach", "მოხსნ", "მოვხსენ", "გამოვყავ", "გავთიშ", "გაითიშ"),
        answer="partition 202403 of orders_by_country was detached",
        ask=(
            "მარტის მონაცემები orders_by_country-ში არასწორია. მოხსენი პარტიცია.",
            "202403 პარტიცია გამოიყვანე orders_by_country-დან.",
            "მარტი გათიშე, მერე თავიდან ჩავტვირთავთ.",
        ),
        call="ვხსნი პარტიციას.",
        tool="bash",
        args={
            "command": f'{client} "ALTER TABLE orders_by_country DETACH PARTITION 202403" '
            f'&& {client} "SELECT table, partition_id, reason FROM system.detached_parts"'
        },
        shown="orders_by_country\t202403\t\\N (detached by user)",
        plain="Ok.\n\n0 rows in set. Elapsed: 0.031 sec.",
        said=(
            "orders_by_country-დან 202403 პარტიცია მოვხსენი (DETACH).",
            "მარტის პარტიცია orders_by_country-ში გაითიშა, detached-ში დევს.",
            "orders_by_country, მარტის ნაწილი — detach-ით მოხსნილია.",
        ),
        quiet=("მზადაა.", "აი.", "ნახე შედეგი."),
    )
    for art in rng.sample((dropped, mview, altered, detached), 2):
        planted.append(_plant_art(rng, b, art))

    def currency() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "ყველა თანხას ლარში (GEL) ვინახავთ, არა დოლარში.",
                    "გადაწყვეტილება: თანხები GEL-ში, კონვერტაცია რეპორტში.",
                    "ვალუტა — მხოლოდ ლარი (GEL) ცხრილებში.",
                ),
                ("გასაგებია, GEL.",),
            )
        ], Probe(
            "decision",
            "In which currency are amounts stored?",
            "GEL (lari), not USD",
            (("gel", "ლარ"), ("თანხ", "amount", "currenc", "ვალუტ", "store", "ვინახ")),
        )

    def ttl() -> Planted:
        first, final = rng.choice((60, 90)), rng.choice((180, 365))
        early = _say(rng, b, (f"raw events-ს TTL {first} დღე ჰქონდეს.",), ("კარგი.",))
        later = _say(
            rng,
            b,
            (
                f"არა, TTL {final} დღე, არა {first} — აუდიტორს სჭირდება.",
                f"შესწორება: raw events TTL = {final} დღე.",
                f"დაივიწყე {first}; TTL იყოს {final} დღე.",
            ),
            (f"ვცვლი {final} დღეზე.",),
        )
        return [early, later], Probe(
            "decision",
            "What TTL do raw events get (final word)?",
            f"{final} days (corrected from {first})",
            ((str(final),), ("ttl", "დღე", "day")),
        )

    def order_by() -> Planted:
        return [
            _ask(
                rng,
                b,
                ("shipments ნელია ქვეყნის ფილტრით.",),
                ("გთავაზობ ORDER BY (country, shipped_at) shipments-ისთვის.",),
                ("კი", "წადი", "კარგი, გააკეთე"),
                ("ვაკეთებ.",),
            )
        ], Probe(
            "decision",
            "What sort key was agreed for shipments?",
            "ORDER BY (country, shipped_at)",
            (("country, shipped_at", "country,shipped_at"), ("order by", "sort", "ორდერ")),
        )

    def nino() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "ნინომ თქვა, რომ რეპორტი ყოველ ორშაბათს 09:00-ზე უნდა მივიდეს.",
                    "ნინოს სიტყვით: ორშაბათს, 09:00 — რეპორტის დრო.",
                    "ნინოსგან: რეპორტი ორშაბათობით 09:00-ზე.",
                ),
                ("ჩავწერე: ორშაბათი, 09:00.",),
            )
        ], Probe(
            "decision",
            "When must the report arrive, per Nino?",
            "every Monday at 09:00",
            (("ორშაბათ", "monday"), ("09:00", "9:00", "9am")),
        )

    def engine() -> Planted:
        return [
            _ask(
                rng,
                b,
                ("ინვოისებში დუბლიკატები გვაქვს.",),
                ("რომელი ძრავა: ReplacingMergeTree თუ AggregatingMergeTree?",),
                (
                    "ReplacingMergeTree, version სვეტით.",
                    "ReplacingMergeTree გამოიყენე.",
                    "ReplacingMergeTree — ეს ცხრილი ვერსიით.",
                ),
                ("კარგი.",),
            )
        ], Probe(
            "decision",
            "Which engine for invoices?",
            "ReplacingMergeTree (with a version column)",
            (("replacingmergetree",), ("engine", "ძრავ", "version", "გამო", "ცხრილ")),
        )

    planted.append(rng.choice((currency, ttl, order_by, nino, engine))())

    def friday() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "კვარტლის რეპორტი პარასკევამდე უნდა იყოს მზად.",
                    "პარასკევამდე — კვარტლის ანგარიში.",
                    "ვადა პარასკევია რეპორტისთვის.",
                ),
                ("გასაგებია, პარასკევამდე.",),
            )
        ], Probe(
            "next_step",
            "What is pending and by when?",
            "the quarterly report, by Friday",
            (("პარასკევ", "friday"), ("რეპორტ", "report", "ანგარიშ")),
        )

    def backup() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "როცა გიორგი backup-ს დაადასტურებს, მერე წაშალე ძველი პარტიციები.",
                    "ჯერ გიორგის backup, მერე ძველი მონაცემები.",
                    "ძველ პარტიციებს ნუ შეეხები, სანამ გიორგი backup-ს არ დაადასტურებს.",
                ),
                ("კარგი, ველოდები გიორგის.",),
            )
        ], Probe(
            "next_step",
            "What waits on what?",
            "removing old partitions waits on Giorgi confirming the backup",
            (("გიორგ", "giorgi"), ("backup", "ბექაპ", "სარეზერვო")),
        )

    def replica() -> Planted:
        return [
            _say(
                rng,
                b,
                ("რეპლიკა ჩამორჩება?",),
                (
                    "ხვალ დილით გადავამოწმებ replica lag-ს.",
                    "replica lag-ს ხვალ ვნახავ, პირველ რიგში.",
                    "გპირდები, ხვალ replica lag-ს შევამოწმებ.",
                ),
            )
        ], Probe(
            "next_step",
            "What did the agent promise?",
            "to check replica lag tomorrow morning",
            (("replica", "რეპლიკ"), ("ხვალ", "tomorrow")),
        )

    def customs() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "შემახსენე, რომ საბაჟოს ინვოისები გავუგზავნო.",
                    "საბაჟოს ინვოისები — შემახსენე მერე.",
                    "არ დამავიწყდეს ინვოისები საბაჟოსთვის, შემახსენე.",
                ),
                ("შეგახსენებ.",),
            )
        ], Probe(
            "next_step",
            "What should the user be reminded of?",
            "to send the invoices to customs",
            (("საბაჟო", "customs"), ("ინვოის", "invoice")),
        )

    planted.append(rng.choice((friday, backup, replica, customs))())

    tables = _turn(
        rng,
        b,
        ("რა ცხრილები გვაქვს?",),
        "ვნახავ.",
        "bash",
        {"command": f'{client} "SHOW TABLES"'},
        "daily_sales\ninvoices\nshipments\nwineries\nexchange_rates",
        ("ძირითადი ცხრილები ეს არის.",),
    )
    disks = _turn(
        rng,
        b,
        ("დისკზე ადგილი რამდენია?",),
        "ვამოწმებ.",
        "bash",
        {"command": f'{client} "SELECT name, formatReadableSize(free_space) FROM system.disks"'},
        f"default\t{rng.randint(40, 90)}.{rng.randint(1, 9)} GiB\ncold\t1.{rng.randint(1, 9)} TiB",
        ("ადგილი საკმარისია.",),
    )
    create = _turn(
        rng,
        b,
        ("wineries-ის სქემა მაჩვენე.",),
        "ვკითხულობ.",
        "bash",
        {"command": f'{client} "SHOW CREATE TABLE wineries"'},
        "CREATE TABLE qvevri.wineries\n(\n    `id` UInt32,\n    `name` String,\n    "
        "`region` LowCardinality(String)\n)\nENGINE = MergeTree\nORDER BY id",
        ("მარტივი MergeTree.",),
    )
    noise = rng.sample((tables, disks, create), rng.randint(2, 3))

    def outro() -> None:
        b.user(rng.choice(("მადლობა, გავაგრძელოთ.", "კარგი, შემდეგი.", "ოკ.")))
        b.assistant(rng.choice(("ვაგრძელებ.", "კარგი.", "მივდივარ.")))

    def filler(r: random.Random) -> None:
        t = r.choice(("wineries", "exchange_rates", "daily_sales", "regions"))
        b.user(r.choice((f"{t} რა მდგომარეობაშია?", "სერვერის ლოგში რამე?", f"ნახე {t}.")))
        b.tool(
            "ვამოწმებ.",
            "bash",
            {"command": "tail -n 5 /var/log/clickhouse-server/clickhouse-server.log"},
            noise_lines(r, 5, _ch_log),
        )
        b.assistant(r.choice(("ყველაფერი რიგზეა.", f"{t} კარგადაა.", "არაფერი განსაკუთრებული.")))

    return _assemble(
        rng, b, segments, intro=intro, planted=planted, noise=noise, outro=outro, filler=filler
    )


# ---------------------------------------------------------------------------------------
# malligai_swiftui_ta: Tamil, SwiftUI + xcodebuild
# ---------------------------------------------------------------------------------------


def _xc_log(rng: random.Random) -> str:
    return (
        f"Test Case '-[MalligaiTests.{rng.choice(('MandiPriceTests', 'CartTests', 'ZoneTests'))}"
        f" test{rng.choice(('Parse', 'Totals', 'Empty', 'Sorts'))}{rng.randint(1, 9)}]' passed "
        f"(0.{rng.randint(1, 99):03d} seconds)."
    )


def _malligai(rng: random.Random, b: Builder, segments: int) -> Parts:
    planted: list[Planted] = []
    xcb = "xcodebuild -scheme Malligai -destination 'platform=iOS Simulator,name=iPhone 15'"

    def intro() -> None:
        b.user(
            rng.choice(
                (
                    "வணக்கம்! மல்லிகை மண்டி iOS app-ல (SwiftUI, Xcode 15) வேலை செய்யணும். "
                    "மொத்த விலை, ஆர்டர், UPI payment எல்லாம் இருக்கு.",
                    "காலை வணக்கம். இன்னைக்கு Malligai app-ல சில bugs சரி பண்ணணும், "
                    "TestFlight build-உம் போடணும்.",
                    "ஹலோ, எங்க பூ வியாபார app-க்கு (SwiftUI) உதவி வேணும்.",
                )
            )
        )

    def incident() -> Probe:
        uid = "-".join(token(rng, n, "0123456789ABCDEF") for n in (8, 4, 4, 4, 12))
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "நேத்து ராத்திரி app crash ஆச்சு. crash log பாரு.",
                            "ஒரு வியாபாரிக்கு app மூடிடுச்சு, ஏன்?",
                            "Crash report வந்திருக்கு, என்னன்னு பாரு.",
                        ),
                        "Crash log படிக்கிறேன்.",
                        "read_file",
                        {"path": "crashes/Malligai-2024-05-13-2211.ips"},
                        f"Incident Identifier: {uid}\nHardware Model:      iPhone14,5\n"
                        "Process:             Malligai [4127]\nVersion:             1.8.0 (212)\n"
                        "Exception Type:  EXC_BREAKPOINT (SIGTRAP)\nThread 0 Crashed:\n"
                        "0   Malligai   0x0000000100f2a1c4 CartViewModel.total.getter + 212",
                        (
                            f"Crash {uid}: CartViewModel.total-ல force unwrap.",
                            f"Incident {uid} — cart total கணக்கில் nil வந்திருக்கு.",
                            f"இது {uid} crash, 1.8.0 (212) build-ல.",
                        ),
                    )
                ],
                _ident("What is the incident identifier of last night's crash?", uid, uid),
            )
        )
        return planted[-1][1]

    def version() -> Probe:
        ver = f"1.{rng.randint(9, 14)}.{rng.randint(1, 9)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "அடுத்த version number என்ன வைக்கணும்?",
                            "Marketing version-ஐ ஏத்து.",
                            "புது version set பண்ணு.",
                        ),
                        "agvtool மூலம் மாத்துறேன்.",
                        "bash",
                        {"command": f"agvtool new-marketing-version {ver}"},
                        "Setting CFBundleShortVersionString of project Malligai to:\n"
                        f"    {ver}.\n\n"
                        'Updated CFBundleShortVersionString of target "Malligai" to '
                        f'{ver} in "Malligai/Info.plist"',
                        (
                            f"Version இப்போ {ver}.",
                            f"Marketing version {ver} ஆக மாத்திட்டேன்.",
                            f"அடுத்த release {ver}.",
                        ),
                    )
                ],
                _ident("What is the new marketing version?", ver, ver),
            )
        )
        return planted[-1][1]

    def amount() -> Probe:
        amt = f"{rng.randint(11, 99)},{rng.randint(100, 999)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            "மதுரை கடையோட இன்னைக்கு ஆர்டர் மொத்தம் எவ்வளவு?",
                            "API-ல இன்னைக்கு மதுரை total பாரு.",
                            "மதுரை ஆர்டர் தொகை சொல்லு.",
                        ),
                        "API-யை கேட்கிறேன்.",
                        "bash",
                        {"command": "curl -s https://api.malligai.in/v2/shops/MDU-07/today | jq ."},
                        f'{{\n  "shop": "MDU-07",\n  "orders": {rng.randint(20, 90)},\n  '
                        f'"total_display": "₹{amt}",\n  "kg": {rng.randint(40, 300)}\n}}',
                        (
                            f"மதுரை இன்னைக்கு மொத்தம் ₹{amt}.",
                            f"மொத்த ஆர்டர் தொகை ₹{amt}.",
                            f"₹{amt} — மதுரை கடை இன்று.",
                        ),
                    )
                ],
                _ident("What is the Madurai shop's order total today?", f"₹{amt}", amt),
            )
        )
        return planted[-1][1]

    def issue() -> Probe:
        key = f"MAL-{rng.randint(100, 699)}"
        planted.append(
            (
                [
                    _turn(
                        rng,
                        b,
                        (
                            f"இந்த வேலை எல்லாம் {key} ticket-ல போடு.",
                            f"Linear-ல {key} தான் நம்ம ticket.",
                            f"{key}-க்கு கீழ commit பண்ணு.",
                        ),
                        "Ticket பார்க்கிறேன்.",
                        "linear",
                        {"action": "get_issue", "id": key},
                        f'{{"identifier": "{key}", "title": "Cart total crash + UPI intent", '
                        '"state": {"name": "In Progress"}, "assignee": {"name": "Priya R"}}',
                        (
                            f"{key} In Progress, Priya கிட்ட இருக்கு.",
                            f"சரி, எல்லாம் {key}-ல.",
                            f"{key} commit message-ல போடுறேன்.",
                        ),
                    )
                ],
                _ident("Which Linear issue does the work go under?", key, key),
            )
        )
        return planted[-1][1]

    for make in rng.sample((incident, version, amount, issue), 3):
        make()

    view = _Art(
        names=("OrderListView.swift", "OrderListView"),
        states=("modif", "chang", "updat", "edit", "மாற்ற", "மாத்த", "திருத்த"),
        answer="OrderListView.swift was modified",
        ask=(
            "ஆர்டர் லிஸ்ட்ல கிலோ விலையும் காட்டணும்.",
            "OrderListView-ல per-kg விலை சேர்த்துடு.",
            "ஆர்டர் screen-ல விலை column வேணும்.",
        ),
        call="மாற்றி git status பார்க்கிறேன்.",
        tool="bash",
        args={"command": "git status"},
        shown="On branch feature/kg-price\nChanges not staged for commit:\n\tmodified:   "
        "Malligai/Views/OrderListView.swift",
        plain="On branch feature/kg-price\nYour branch is up to date with "
        "'origin/feature/kg-price'.",
        said=(
            "OrderListView.swift-ஐ மாற்றினேன், இப்போ per-kg விலை தெரியும்.",
            "OrderListView.swift திருத்தப்பட்டது — விலை column சேர்த்தேன்.",
            "OrderListView.swift, அதாவது ஆர்டர் பட்டியல் screen, இப்போ மாற்றப்பட்டிருக்கு.",
        ),
        quiet=("சரி.", "பாருங்க.", "முடிஞ்சது."),
    )
    tests = _Art(
        names=("PaymentSheetTests",),
        states=("fail", "தோல்வி", "ஃபெயில்", "தோற்", "error"),
        answer="PaymentSheetTests is failing (UPI intent URL)",
        ask=("Tests ஓட்டு.", "எல்லா unit test-உம் pass ஆகுதா?", "xcodebuild test போடு."),
        call="Tests ஓட்டுறேன்.",
        tool="bash",
        args={"command": f"{xcb} test | xcpretty"},
        shown=(
            "Test Case '-[MalligaiTests.PaymentSheetTests testUPIIntentURL]' failed (0.012 "
            "seconds).\nTest Suite 'PaymentSheetTests' failed at 2024-05-14 11:02:41.117.\n"
            "\t Executed 41 tests, with 1 failure (0 unexpected) in 2.481 seconds\n"
            "** TEST FAILED **"
        ),
        plain=(
            'Testing failed:\n\tXCTAssertEqual failed: ("upi://pay?pa=malligai@okaxis") is '
            'not equal to ("upi://pay?pa=malligai@okaxis&cu=INR")\n** TEST FAILED **'
        ),
        said=(
            "PaymentSheetTests fail ஆகுது — UPI URL-ல cu=INR இல்ல.",
            "PaymentSheetTests-ல ஒரு test தோல்வி.",
            "PaymentSheetTests, அதாவது UPI intent test, இன்னும் தோல்வியில தான்.",
        ),
        quiet=("Output பாருங்க.", "இதோ.", "இது தான் நிலை."),
    )
    legacy = _Art(
        names=("LegacyCartStore.swift", "LegacyCartStore"),
        states=("delet", "remov", "நீக்க", "அழிக்க", "அழித்"),
        answer="LegacyCartStore.swift was deleted",
        ask=(
            "பழைய LegacyCartStore-ஐ நீக்கிடு.",
            "Core Data cart store இனி வேண்டாம், எடுத்துடு.",
            "பழைய cart code-ஐ சுத்தம் பண்ணு.",
        ),
        call="நீக்குறேன்.",
        tool="bash",
        args={"command": "git rm Malligai/Store/LegacyCartStore.swift && git status"},
        shown="rm 'Malligai/Store/LegacyCartStore.swift'\nChanges to be committed:\n\t"
        "deleted:    Malligai/Store/LegacyCartStore.swift",
        plain="rm 'Malligai/Store/LegacyCartStore.swift'",
        said=(
            "LegacyCartStore.swift நீக்கப்பட்டது.",
            "LegacyCartStore.swift-ஐ நீக்கிட்டேன், யாரும் use பண்ணல.",
            "LegacyCartStore.swift, Core Data காலத்து code, இப்போ அழிக்கப்பட்டது.",
        ),
        quiet=("சரி.", "முடிஞ்சது.", "இதோ."),
    )
    strings = _Art(
        names=("ta.lproj",),
        states=("creat", "new file", "added", "உருவாக்க", "புதிய", "சேர்த்"),
        answer="the Tamil localization ta.lproj/Localizable.strings was created",
        ask=(
            "App-க்கு தமிழ் localization வேணும்.",
            "தமிழ் strings file சேர்த்துடு.",
            "ta localization ஆரம்பி.",
        ),
        call="Strings file உருவாக்கி add பண்றேன்.",
        tool="bash",
        args={"command": "git add Malligai/ta.lproj && git status --short"},
        shown="A  Malligai/ta.lproj/Localizable.strings   # new file",
        plain="M  Malligai.xcodeproj/project.pbxproj",
        said=(
            "ta.lproj/Localizable.strings உருவாக்கினேன், 84 strings.",
            "புதிய ta.lproj folder சேர்த்தேன்.",
            "ta.lproj-ல, எல்லா screen-களுக்கான தமிழ் வாக்கியங்களோட, Localizable.strings உருவாக்கப்பட்டது.",
        ),
        quiet=("சரி.", "முடிஞ்சது.", "பாருங்க."),
    )
    for art in rng.sample((view, tests, legacy, strings), 2):
        planted.append(_plant_art(rng, b, art))

    def target() -> Planted:
        v = rng.choice(("16", "17"))
        return [
            _say(
                rng,
                b,
                (
                    f"Minimum deployment target iOS {v}.0 தான்; பழைய iOS ஆதரவு வேண்டாம்.",
                    f"முடிவு: iOS {v} minimum.",
                    f"iOS {v}-க்கு கீழ support இல்ல, minimum target அது தான்.",
                ),
                (f"சரி, iOS {v}.",),
            )
        ], Probe(
            "decision",
            "What is the minimum deployment target?",
            f"iOS {v}.0",
            ((f"ios {v}",), ("minimum", "target", "குறைந்தபட்ச")),
        )

    def default_payment() -> Planted:
        early = _say(rng, b, ("UPI-ஐ default payment method ஆக வை.",), ("சரி.",))
        later = _say(
            rng,
            b,
            (
                "இல்லை, மாத்து: default-ஆ cash on delivery, UPI இரண்டாவது.",
                "திருத்தம் — cash on delivery தான் default, மண்டி வியாபாரிகள் அதை விரும்புறாங்க.",
                "UPI default வேண்டாம்; default cash on delivery.",
            ),
            ("மாத்துறேன்.",),
        )
        return [early, later], Probe(
            "decision",
            "What is the default payment method (final word)?",
            "cash on delivery (corrected from UPI)",
            (("cash on delivery", "cash-on-delivery"), ("default", "இயல்பு")),
        )

    def polling() -> Planted:
        n = rng.choice((60, 90, 120))
        return [
            _ask(
                rng,
                b,
                ("மண்டி விலை எவ்வளவு அடிக்கடி refresh ஆகணும்?",),
                ("ஒவ்வொரு 30 விநாடிக்கும் விலை poll பண்ணலாம்னு நினைக்கிறேன்.",),
                (
                    f"ரொம்ப அதிகம், {n} விநாடி போதும் poll-க்கு.",
                    f"{n} விநாடிக்கு ஒரு முறை poll பண்ணு.",
                    f"Poll {n} விநாடி வை.",
                ),
                (f"சரி, {n} விநாடி.",),
            )
        ], Probe(
            "decision",
            "How often are mandi prices polled?",
            f"every {n} seconds (agent proposed 30)",
            ((f"{n} விநாடி", f"{n}s", f"{n} s", f"{n} sec"), ("poll", "விலை", "price", "refresh")),
        )

    def privacy() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Karthik சொன்னார்: review-க்கு submit பண்ணும் முன் privacy manifest சேர்க்கணும்.",
                    "Karthik-ஓட message: PrivacyInfo.xcprivacy (privacy manifest) இல்லாம "
                    "submit கூடாது.",
                    "Karthik சொல்றார் privacy manifest கட்டாயம் review-க்கு முன்.",
                ),
                ("சரி, privacy manifest சேர்க்கிறேன்.",),
            )
        ], Probe(
            "decision",
            "What did Karthik require before App Store submission?",
            "a privacy manifest (PrivacyInfo.xcprivacy)",
            (("privacy manifest", "privacyinfo"), ("karthik", "கார்த்திக்", "submit", "review", "சேர்")),
        )

    def font() -> Planted:
        return [
            _ask(
                rng,
                b,
                ("தமிழ் text சரியா தெரியல.",),
                ("தமிழுக்கு எந்த font: system font-ஆ அல்லது Noto Sans Tamil-ஆ?",),
                (
                    "Noto Sans Tamil தான், system font-ல ligatures சரியா வரல.",
                    "Noto Sans Tamil font use பண்ணு.",
                    "Noto Sans Tamil font. System வேண்டாம்.",
                ),
                ("சரி.",),
            )
        ], Probe(
            "decision",
            "Which font is used for Tamil text?",
            "Noto Sans Tamil",
            (("noto sans tamil",), ("font", "எழுத்துரு", "use", "தான்")),
        )

    planted.append(rng.choice((target, default_payment, polling, privacy, font))())

    def pongal() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "பொங்கலுக்கு முன்னாடி (ஜனவரி 10) App Store-ல release ஆகணும்.",
                    "Release deadline: பொங்கல், ஜனவரி 10.",
                    "ஜனவரி 10-க்குள் release பண்ணிடணும்.",
                ),
                ("சரி, ஜனவரி 10-க்குள் release.",),
            )
        ], Probe(
            "next_step",
            "What is pending and by when?",
            "the App Store release, before Pongal (10 January)",
            (("ஜனவரி", "january", "pongal", "பொங்கல்"), ("release", "வெளியீ", "app store")),
        )

    def priya() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "Priya QA sign-off கொடுத்தால் மட்டும் TestFlight-க்கு upload பண்ணு.",
                    "TestFlight upload Priya-வோட sign-off-க்கு அப்புறம் தான்.",
                    "Priya ok சொன்னதும் TestFlight-ல போடு.",
                ),
                ("சரி, Priya-வுக்காக காத்திருக்கேன்.",),
            )
        ], Probe(
            "next_step",
            "What waits on what?",
            "the TestFlight upload waits on Priya's QA sign-off",
            (("priya", "பிரியா"), ("testflight", "upload", "பதிவேற்")),
        )

    def crashes() -> Planted:
        return [
            _say(
                rng,
                b,
                ("மீதி crash-களை யார் பார்ப்பாங்க?",),
                (
                    "நாளை காலை மீதி crash logs-ஐ பார்க்கிறேன்.",
                    "நாளைக்கு முதல் வேலையா crash logs பார்ப்பேன்.",
                    "Crash logs நாளை நான் பார்த்துக்குறேன், promise.",
                ),
            )
        ], Probe(
            "next_step",
            "What did the agent promise?",
            "to go through the remaining crash logs tomorrow",
            (("crash", "கிராஷ்"), ("நாளை", "tomorrow")),
        )

    def gst() -> Planted:
        return [
            _say(
                rng,
                b,
                (
                    "GST invoice PDF பற்றி அப்புறம் நினைவூட்டு.",
                    "எனக்கு நினைவூட்டு: GST invoice PDF format மாத்தணும்.",
                    "மறக்காம நினைவூட்டு — GST invoice.",
                ),
                ("நினைவூட்டுறேன்.",),
            )
        ], Probe(
            "next_step",
            "What should the user be reminded of?",
            "the GST invoice PDF",
            (("gst",), ("invoice", "விலைப்பட்டியல்", "பில்")),
        )

    planted.append(rng.choice((pongal, priya, crashes, gst))())

    build = _turn(
        rng,
        b,
        ("Build ஆகுதா பாரு.", "Debug build போடு."),
        "Build பண்றேன்.",
        "bash",
        {"command": f"{xcb} build | tail -n 3"},
        "CompileSwift normal arm64 Malligai/Views/ShopListView.swift\n"
        "Ld /Users/dev/Library/Developer/Xcode/DerivedData/Malligai/Build/Products/Debug-"
        "iphonesimulator/Malligai.app/Malligai normal\n** BUILD SUCCEEDED **",
        ("Build சரியா ஆகுது.",),
    )
    sims = _turn(
        rng,
        b,
        ("எந்த simulator-கள் இருக்கு?",),
        "பார்க்கிறேன்.",
        "bash",
        {"command": "xcrun simctl list devices booted"},
        "== Devices ==\n-- iOS 17.4 --\n    iPhone 15 (5B1C7F2A-0D3E-4B8A-9C61-2F7E8D9A0B13) "
        "(Booted)",
        ("iPhone 15 simulator ஓடிக்கிட்டு இருக்கு.",),
    )
    read_pkg = _turn(
        rng,
        b,
        ("என்ன packages use பண்றோம்?",),
        "Package.resolved படிக்கிறேன்.",
        "read_file",
        {"path": "Malligai.xcworkspace/xcshareddata/swiftpm/Package.resolved"},
        '{\n  "pins" : [\n    {\n      "identity" : "alamofire",\n      "state" : {\n        '
        '"version" : "5.9.1"\n      }\n    },\n    {\n      "identity" : "kingfisher",\n'
        '      "state" : {\n        "version" : "7.11.0"\n      }\n    }\n  ]\n}',
        ("Alamofire, Kingfisher மட்டும்.",),
    )
    noise = rng.sample((build, sims, read_pkg), rng.randint(2, 3))

    def outro() -> None:
        b.user(rng.choice(("நன்றி, தொடரலாம்.", "சரி, அடுத்தது.", "ஓகே.")))
        b.assistant(rng.choice(("தொடர்கிறேன்.", "சரி.", "அடுத்தது பார்க்கலாம்.")))

    def filler(r: random.Random) -> None:
        f = r.choice(("ShopListView", "MandiPriceTests", "ZoneMapView", "SettingsView"))
        b.user(r.choice((f"{f} பாரு.", "Tests இப்போ எப்படி?", f"{f}-ல ஏதாவது பிரச்சனையா?")))
        b.tool(
            "பார்க்கிறேன்.",
            "bash",
            {"command": f"{xcb} test -only-testing:MalligaiTests | xcpretty | tail -n 5"},
            noise_lines(r, 5, _xc_log),
        )
        b.assistant(r.choice(("எல்லாம் சரி.", f"{f} நல்லா இருக்கு.", "பிரச்சனை இல்ல.")))

    return _assemble(
        rng, b, segments, intro=intro, planted=planted, noise=noise, outro=outro, filler=filler
    )


# ---------------------------------------------------------------------------------------

_TEMPLATES: dict[str, Template] = {
    "pekara_ktor_sr": _pekara,
    "hitaveita_nomad_is": _hitaveita,
    "hawker_airflow_sg": _hawker,
    "cooperativa_sfdx_ca": _cooperativa,
    "qvevri_clickhouse_ka": _qvevri,
    "malligai_swiftui_ta": _malligai,
}

HELDOUT12_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout12(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The twelfth held-out set's session of ``kind`` for ``seed`` (see the module
    docstring)."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout12:", label="heldout12"
    )

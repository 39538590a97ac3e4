"""The sixth held-out session set: six kinds written blind.

Written without seeing the compaction code (the summarizer, the fact ledger and its
rules) or any of the earlier session sets; only the building blocks of :mod:`._build`.
Each kind is a realistic agent transcript in its own domain and, for four of them, its
own language:

``nfe_ptbr``
    a Brazilian web shop's NF-e (electronic invoice) emission failing at the SEFAZ, in
    Brazilian Portuguese;
``gtfs_ja``
    a regional railway's GTFS-JP timetable feed rebuilt for a timetable change, in
    Japanese;
``pvfarm_pl``
    a solar farm tripping on grid overvoltage and its export limit, in Polish;
``chai_fr``
    a wine cooperative's excise documents (DAE on GAMMA), in French;
``fab_ko``
    a semiconductor fab's yield excursion (wafer maps, equipment history, SPC), in
    Korean;
``ils_migration``
    a public library's catalogue migration into Koha (MARC, holdings, barcodes), in
    English.

Every session plants seven probes in its opening (the part the first compaction
summarizes): three identifiers, two artifact states, one decision that a later user
correction overrides, and the pending next step. The filler after it is unrelated work
in the same setting and never repeats a planted identifier or artifact name.
"""

from __future__ import annotations

import json
import random
import string

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

__all__ = ["HELDOUT6_KINDS", "generate_heldout6"]

_DIGITS = string.digits
_UPPER = string.ascii_uppercase


def _num(rng: random.Random, n: int) -> str:
    """``n`` digits, the first not a zero."""
    return str(rng.randint(1, 9)) + token(rng, n - 1, _DIGITS)


def _js(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


class _Deck:
    """The filler's scenes in a shuffled order, each once before any repeats."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.left: list[int] = []

    def draw(self, rng: random.Random) -> int:
        if not self.left:
            self.left = list(range(self.size))
            rng.shuffle(self.left)
        return self.left.pop()


# --------------------------------------------------------------------------- nfe_ptbr

_UF_CODES = {"SP": "35", "MG": "31", "PR": "41", "RS": "43", "SC": "42", "BA": "29", "PE": "26"}
_LOJAS = ("Casa Ipê", "Loja Jabuti", "Empório Araucária", "Bazar Tucano", "Mercado Sabiá")
_CIDADES = ("Campinas", "Uberlândia", "Joinville", "Londrina", "Feira de Santana", "Caruaru")


def _mod11(body: str) -> int:
    total = sum(int(d) * (2 + i % 8) for i, d in enumerate(reversed(body)))
    rest = total % 11
    return 0 if rest < 2 else 11 - rest


def _nfe_ptbr(rng: random.Random, b: Builder, segments: int) -> Parts:
    uf = rng.choice(tuple(_UF_CODES))
    loja = rng.choice(_LOJAS)
    ticket = f"FIS-{rng.randint(1200, 4999)}"
    cnpj = _num(rng, 8) + "0001" + token(rng, 2, _DIGITS)
    emitter = rng.choice(("nfe_emissor.py", "emissao_nfe.py", "nfe_autorizador.py"))
    test_file = rng.choice(("test_contingencia.py", "test_numeracao.py", "test_reemissao.py"))
    old_serie, new_serie = rng.choice(((1, 3), (1, 4), (2, 5), (1, 7), (2, 9)))
    pedido = _num(rng, 6)
    numero = rng.randint(20_000, 99_999)
    aamm = rng.choice(("2409", "2410", "2411", "2501", "2502"))
    body = f"{_UF_CODES[uf]}{aamm}{cnpj}55{old_serie:03d}{numero:09d}1{token(rng, 8, _DIGITS)}"
    chave = body + str(_mod11(body))
    nprot = f"1{_UF_CODES[uf]}{aamm[:2]}{token(rng, 10, _DIGITS)}"
    commit = hexits(rng, 9)
    dia = f"{rng.randint(3, 27):02d}/{aamm[2:]}"
    branch = f"fix/{ticket.lower()}-timeout-sefaz"

    opener = rng.choice(
        (
            f"Oi! Desde ontem à noite a emissão de NF-e da {loja} ({uf}) tá voltando com "
            f"rejeição da SEFAZ em vários pedidos. Abri o chamado {ticket}. Consegue olhar "
            f"o log do worker e o `src/fiscal/{emitter}`?",
            f"Bom dia. Chamado {ticket}: a SEFAZ-{uf} começou a rejeitar NF-e da {loja} de "
            f"madrugada. Dá uma olhada no nfe-worker e no `src/fiscal/{emitter}` pra mim?",
            f"Preciso de ajuda urgente com o {ticket} — notas da {loja} sendo rejeitadas "
            f"na SEFAZ-{uf}. Começa pelos logs do worker, depois vê o "
            f"`src/fiscal/{emitter}`.",
        )
    )
    b.user(opener)

    motivos = (
        ("204", "Rejeição: Duplicidade de NF-e"),
        ("225", "Rejeição: Falha no Schema XML da NF-e"),
        ("778", "Rejeição: Informado NCM inexistente"),
        ("629", "Rejeição: Valor do Produto difere do produto Valor Unitário x Quantidade"),
        ("217", "Rejeição: NF-e não consta na base de dados da SEFAZ"),
    )

    def log_line(r: random.Random) -> str:
        cstat, motivo = r.choice(motivos)
        hora = f"{r.randint(0, 5):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}"
        return (
            f"20{aamm[:2]}-{aamm[2:]}-{dia[:2]}T{hora}.{r.randint(100, 999)}Z WARN nfe-worker "
            f"pedido={_num(r, 6)} serie={old_serie} nNF={r.randint(20_000, 99_999)} "
            f'cStat={cstat} xMotivo="{motivo}"'
        )

    other_key = f"{_UF_CODES[uf]}{aamm}{cnpj}55{old_serie:03d}{rng.randint(20_000, 99_999):09d}"
    other_key += "1" + token(rng, 8, _DIGITS)
    other_key += str(_mod11(other_key))
    lines = [log_line(rng) for _ in range(rng.randint(14, 20))]
    lines.insert(
        rng.randint(3, 8),
        f"20{aamm[:2]}-{aamm[2:]}-{dia[:2]}T03:{rng.randint(10, 59)}:07.412Z WARN nfe-worker "
        f'pedido={pedido} serie={old_serie} nNF={numero + 1} cStat=539 xMotivo="Rejeição: '
        f'Duplicidade de NF-e, com diferença na Chave de Acesso [chNFe: {chave}]"',
    )
    lines.insert(
        rng.randint(10, 13),
        f"20{aamm[:2]}-{aamm[2:]}-{dia[:2]}T04:{rng.randint(10, 59)}:51.003Z WARN nfe-worker "
        f"pedido={_num(rng, 6)} serie={old_serie} nNF={rng.randint(20_000, 99_999)} "
        f'cStat=539 xMotivo="Rejeição: Duplicidade de NF-e, com diferença na Chave de '
        f'Acesso [chNFe: {other_key}]"',
    )
    lines.insert(
        rng.randint(1, 4),
        f"20{aamm[:2]}-{aamm[2:]}-{dia[:2]}T03:{rng.randint(0, 9):02d}:44.910Z ERROR "
        f"nfe-worker pedido={pedido} SefazTimeout: NFeAutorizacao4 sem resposta em 15s "
        f"(tentativa 1/3)",
    )
    lines.sort()
    b.tool(
        "Vou puxar as rejeições das últimas 12 horas do worker.",
        "bash",
        {
            "command": "kubectl -n fiscal logs deploy/nfe-worker --since=12h | grep -E "
            "'cStat=|SefazTimeout' | tail -n 40"
        },
        "\n".join(lines),
    )
    note = (
        f"A maioria é ruído de sempre (NCM, schema), mas o pedido {pedido} é o padrão do "
        f"problema: timeout na primeira tentativa, o worker gerou outro número e a SEFAZ "
        f"respondeu 539 — a nota original já tinha sido autorizada. Vou consultar a chave "
        f"que veio no retorno."
    )
    dh = f"20{aamm[:2]}-{aamm[2:]}-{dia[:2]}T03:0{rng.randint(0, 9)}:{rng.randint(10, 59)}-03:00"
    b.tool(
        note + " " + "Consulta do protocolo pela chave.",
        "http_get",
        {"url": f"https://nfe-gw.interno/api/v1/nfe/{chave}/consulta"},
        _js(
            {
                "versao": "4.00",
                "tpAmb": 1,
                "cStat": "100",
                "xMotivo": "Autorizado o uso da NF-e",
                "cUF": _UF_CODES[uf],
                "chNFe": chave,
                "protNFe": {"nProt": nprot, "dhRecbto": dh, "digVal": token(rng, 28)},
                "emit": {"CNPJ": cnpj, "serie": old_serie, "nNF": numero},
            }
        ),
    )
    b.tool(
        f"Confirmado: a NF-e do pedido {pedido} está autorizada desde {dh[11:16]} "
        f"(protocolo {nprot}), mas no nosso banco ficou como rejeitada e o cliente pode "
        f"ter recebido e-mail de erro. Agora o código do emissor."
        " "
        "Lendo o emissor.",
        "read_file",
        {"path": f"src/fiscal/{emitter}"},
        "\n".join(
            (
                "from fiscal.sefaz import SefazClient, SefazTimeout",
                "from fiscal.numeracao import proximo_numero",
                "",
                f"SERIE_PADRAO = {old_serie}",
                "",
                "def emitir(pedido, tentativas=3):",
                "    for tentativa in range(1, tentativas + 1):",
                "        numero = proximo_numero(serie=SERIE_PADRAO)",
                "        xml = montar_xml(pedido, serie=SERIE_PADRAO, numero=numero)",
                "        try:",
                "            retorno = sefaz.autorizar(xml, timeout=15)",
                "        except SefazTimeout:",
                '            log.error("SefazTimeout: %s (tentativa %d/%d)", ...)',
                "            continue",
                '        if retorno.cStat != "100":',
                "            marcar_rejeitada(pedido, retorno)",
                "        return retorno",
            )
        ),
    )
    b.assistant(
        "Achei: a cada timeout ele pede um número novo sem consultar se a tentativa "
        "anterior foi autorizada. Vou fazer consultar a chave antes de renumerar."
    )
    b.user(
        rng.choice(
            (
                f"Beleza. E as que foram rejeitadas de verdade, reemite na série {old_serie} "
                f"mesmo, igual ao resto.",
                f"Ok. Pra reemissão das rejeitadas usa a série {old_serie}, a de sempre.",
            )
        )
    )
    b.tool(
        "Alterando o emissor: consulta pela chave após timeout.",
        "edit_file",
        {
            "path": f"src/fiscal/{emitter}",
            "old": "            continue",
            "new": "            autorizada = sefaz.consultar(chave_de(xml))\n"
            '            if autorizada and autorizada.cStat == "100":\n'
            "                return autorizada\n            continue",
        },
        f"Edited src/fiscal/{emitter}: 1 hunk (+4 -1)",
    )
    b.user(
        rng.choice(
            (
                f"Opa, corrige uma coisa: não usa a série {old_serie} pra reemissão. A "
                f"contabilidade reservou a série {new_serie} pra isso, então reemite tudo "
                f"na série {new_serie}.",
                f"Na verdade, usa a série {new_serie} em vez da {old_serie} nas reemissões "
                f"— acabei de falar com o fiscal.",
                f"Esquece a série {old_serie}. Reemissão vai na série {new_serie}, "
                f"combinado com a contabilidade agora de manhã.",
            )
        )
    )
    b.tool(
        "Config da reemissão.",
        "edit_file",
        {
            "path": "config/fiscal.toml",
            "old": f"serie_reemissao = {old_serie}",
            "new": f"serie_reemissao = {new_serie}",
        },
        "Edited config/fiscal.toml: 1 hunk (+1 -1)",
    )
    first = rng.randint(4, 20)
    dots = "." * first + "F" + "." * rng.randint(5, 15) + "F" + "." * rng.randint(5, 15)
    b.tool(
        "Rodando os testes do módulo fiscal.",
        "bash",
        {"command": "pytest tests/fiscal -q"},
        "\n".join(
            (
                dots,
                "=================================== FAILURES ===================================",
                "____________________ test_reemite_com_serie_configurada ____________________",
                f"    assert nota.serie == {old_serie}",
                f"E   assert {new_serie} == {old_serie}",
                f"tests/fiscal/{test_file}:58: AssertionError",
                "=========================== short test summary info ============================",
                f"FAILED tests/fiscal/{test_file}::test_reemite_com_serie_configurada",
                f"FAILED tests/fiscal/{test_file}::test_timeout_nao_renumera",
                f"2 failed, {dots.count('.')} passed in {rng.randint(2, 6)}.{rng.randint(10, 99)}s",
            )
        ),
    )
    b.tool(
        f"Dois testes de tests/fiscal/{test_file} ficaram vermelhos: um fixa a série antiga "
        f"no assert e o outro usa um mock da SEFAZ sem o método consultar. Não mexi neles "
        f"ainda; vou commitar a correção do emissor separada."
        " "
        "Commit na branch da correção.",
        "bash",
        {
            "command": f'git checkout -b {branch} && git commit -am "fiscal: consulta a '
            f'chave antes de renumerar após timeout ({ticket})"'
        },
        f"Switched to a new branch '{branch}'\n[{branch} {commit}] fiscal: consulta a chave "
        f"antes de renumerar após timeout ({ticket})\n 2 files changed, 5 insertions(+), "
        f"2 deletions(-)",
    )
    b.assistant(f"Commitado em {branch}.")
    b.user(
        rng.choice(
            (
                f"Show. Quando subir pra produção, roda o reprocessamento da fila "
                f"nfe-rejeitadas só com os pedidos de {dia} e me manda quantos ainda voltarem "
                f"com erro.",
                f"Valeu. Depois do deploy, reprocessa os pedidos rejeitados do dia {dia} (só "
                f"desse dia) e me passa a lista dos que falharem de novo.",
            )
        )
    )
    b.assistant("Combinado, faço isso assim que o deploy estiver em produção.")
    opening = b.take()

    deck = _Deck(4)

    def filler(r: random.Random) -> None:
        scene = deck.draw(r)
        if scene == 0:
            cidade = r.choice(_CIDADES)
            b.user(
                f"Outra coisa: o frete pra {cidade} tá saindo {r.randint(8, 30)}% mais caro "
                f"que a tabela da transportadora. Olha o cálculo?"
            )
            b.tool(
                "Lendo a tabela de faixas.",
                "read_file",
                {"path": "src/frete/tabela_faixas.py"},
                noise_lines(
                    r,
                    r.randint(8, 14),
                    lambda q: (
                        f"    ({q.randint(0, 30)}_000, {q.randint(31, 90)}_000): "
                        f"Decimal('{q.randint(9, 80)}.{q.randint(10, 99)}'),  # faixa "
                        f"{q.randint(1, 12)}"
                    ),
                ),
            )
            b.assistant(
                f"As faixas acima de {r.randint(5, 20)} kg estão somando o adicional de "
                f"GRIS duas vezes pra {cidade}. Ajusto se quiser."
            )
        elif scene == 1:
            b.user("Roda o lint no pacote de catálogo, por favor.")
            b.tool(
                "ruff no catálogo.",
                "bash",
                {"command": "ruff check src/catalogo"},
                noise_lines(
                    r,
                    r.randint(4, 9),
                    lambda q: (
                        f"src/catalogo/{q.choice(('variantes', 'precos', 'busca'))}.py:"
                        f"{q.randint(3, 400)}:{q.randint(1, 60)}: "
                        f"{q.choice(('F401', 'E501', 'B006', 'UP035'))} "
                        f"{q.choice(('unused import', 'line too long', 'mutable default'))}"
                    ),
                )
                + f"\nFound {r.randint(4, 9)} errors.",
            )
            b.assistant("São só avisos de estilo, nenhum bug. Deixo pro PR de limpeza.")
        elif scene == 2:
            hora = r.randint(7, 16)
            b.user(f"Quantos pedidos entraram desde as {hora}h?")
            b.tool(
                "Painel de pedidos.",
                "http_get",
                {"url": f"https://painel.interno/api/pedidos/resumo?desde={hora:02d}:00"},
                _js(
                    {
                        "total": r.randint(300, 2400),
                        "por_status": {
                            "pago": r.randint(200, 1800),
                            "aguardando_pagamento": r.randint(20, 300),
                            "cancelado": r.randint(0, 40),
                        },
                        "ticket_medio": f"R$ {r.randint(80, 400)},{r.randint(10, 99)}",
                    }
                ),
            )
            b.assistant("Movimento normal pro horário, sem pico de cancelamento.")
        else:
            prazo = r.randint(3, 12)
            b.user(
                f"Troca o texto do e-mail de pedido enviado pra falar em até {prazo} dias úteis."
            )
            b.tool(
                "Editando o template.",
                "edit_file",
                {
                    "path": "templates/email/pedido_enviado.html",
                    "old": "chega em breve",
                    "new": f"chega em até {prazo} dias úteis",
                },
                "Edited templates/email/pedido_enviado.html: 1 hunk (+1 -1)",
            )
            b.assistant("Pronto, texto trocado no template.")

    probes = [
        Probe(
            "identifier",
            f"Qual é a chave de acesso da NF-e já autorizada do pedido {pedido}?",
            chave,
            ((chave,),),
        ),
        Probe(
            "identifier",
            f"Qual é o protocolo de autorização (nProt) da NF-e do pedido {pedido}?",
            nprot,
            ((nprot,),),
        ),
        Probe("identifier", "Qual o hash do commit da correção do timeout?", commit, ((commit,),)),
        Probe(
            "artifact",
            f"O que foi feito em src/fiscal/{emitter}?",
            "Foi alterado: após um timeout consulta a chave na SEFAZ antes de pedir novo número.",
            (
                (emitter,),
                (
                    "alter",
                    "edit",
                    "modific",
                    "mud",
                    "corrig",
                    "atualiz",
                    "changed",
                    "updated",
                    "fixed",
                ),
            ),
        ),
        Probe(
            "artifact",
            f"Em que estado ficaram os testes de tests/fiscal/{test_file}?",
            "Falhando: 2 testes quebraram (série antiga no assert, mock sem consultar).",
            ((test_file,), ("falh", "fail", "quebr", "broke", "vermelh")),
        ),
        Probe(
            "decision",
            "Em que série as notas rejeitadas devem ser reemitidas?",
            f"Na série {new_serie} (o usuário corrigiu: não na série {old_serie}).",
            (
                (f"série {new_serie}", f"serie {new_serie}", f"series {new_serie}"),
                ("reemi", "reemit", "reenvi", "reissu", "re-issu", "re-emi", "rejeit", "reject"),
            ),
        ),
        Probe(
            "next_step",
            "O que falta fazer depois do deploy?",
            f"Reprocessar só os pedidos rejeitados de {dia} e informar os que falharem de novo.",
            (("reprocess", "re-run", "rerun", "reenvi", "resend", "re-send"), (dia,)),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# ---------------------------------------------------------------------------- gtfs_ja

_OPERATORS_JA = ("みなと臨海鉄道", "さくら電鉄", "しおかぜ交通", "北峰電気鉄道", "あおば高原鉄道")
_STATIONS_JA = (
    ("港町", "Minatomachi"),
    ("汐見台", "Shiomidai"),
    ("中央公園", "Chuo-koen"),
    ("北浜", "Kitahama"),
    ("桜ヶ丘", "Sakuragaoka"),
    ("大橋", "Ohashi"),
    ("新田", "Nitta"),
    ("緑町", "Midoricho"),
    ("旭台", "Asahidai"),
)
_PARTNERS_JA = (
    ("ジョルダン", "ジョルダン"),
    ("ナビタイムジャパン", "ナビタイム"),
    ("ヴァル研究所（駅すぱあと）", "ヴァル研究所"),
)


def _gtfs_ja(rng: random.Random, b: Builder, segments: int) -> Parts:
    operator = rng.choice(_OPERATORS_JA)
    ticket = f"DIA-{rng.randint(300, 999)}"
    year, month, day = rng.choice(((2025, 3, 15), (2025, 3, 8), (2024, 10, 19), (2025, 10, 4)))
    ymd = f"{year}{month:02d}{day:02d}"
    rev = rng.randint(3, 8)
    first_version = f"{ymd}-r{rev - 1}-{hexits(rng, 6)}"
    feed_version = f"{ymd}-r{rev}-{hexits(rng, 6)}"
    numbers = rng.sample(range(1200, 2900), 6)
    train = f"{numbers[0]}M"
    others = [f"{n}M" for n in numbers[1:]]
    override = rng.choice((f"rinji_{month:02d}{day:02d}.csv", f"kaisei_{ymd}_extra.csv"))
    zipname = f"feed_{ymd}.zip"
    old, new = rng.choice(
        (("04:00", "03:30"), ("03:00", "02:30"), ("04:00", "03:00"), ("05:00", "04:30"))
    )
    hour, minute = int(new[:2]), new[3:]
    new_ja = f"{hour}時半" if minute == "30" else f"{hour}時"
    commit = hexits(rng, 8)
    partner, partner_short = rng.choice(_PARTNERS_JA)
    (sta, sta_id), (stb, stb_id), (stc, _) = rng.sample(_STATIONS_JA, 3)

    b.user(
        rng.choice(
            (
                f"{operator}の{month}月{day}日ダイヤ改正に向けて、GTFS-JPのフィードを作り直して"
                f"ください。チケットは{ticket}です。まず `python gtfs/build_feed.py` を回して、"
                f"バリデーターにかけてもらえますか。",
                f"お疲れさまです。{ticket}の件、{month}/{day}改正分のフィードをビルドして"
                f"GTFSバリデーターの結果を見てほしいです（{operator}）。",
            )
        )
    )
    b.tool(
        "フィードをビルドします。",
        "bash",
        {"command": f"python gtfs/build_feed.py --start {year}-{month:02d}-{day:02d} --out dist/"},
        "\n".join(
            (
                f"[build_feed] calendar start={year}-{month:02d}-{day:02d} end={year + 1}-03-31",
                f"[build_feed] agency: {operator}  routes: {rng.randint(6, 18)}  "
                f"trips: {rng.randint(1500, 3200):,}  stop_times: {rng.randint(30_000, 60_000):,}",
                f"[build_feed] applied overrides: gtfs/overrides/{override} "
                f"({rng.randint(20, 90)} rows)",
                f"[build_feed] feed_info.feed_version = {first_version}",
                f"[build_feed] wrote dist/{zipname} ({rng.randint(2, 6)}.{rng.randint(0, 9)} MB)",
            )
        ),
    )
    notices = [
        {
            "code": "stop_time_with_arrival_before_previous_departure_time",
            "severity": "ERROR",
            "totalNotices": 1,
            "sampleNotices": [
                {
                    "tripId": f"{train}_平日",
                    "stopSequence": 14,
                    "arrivalTime": "24:03:00",
                    "prevDepartureTime": "24:05:00",
                }
            ],
        },
        {
            "code": "fast_travel_between_consecutive_stops",
            "severity": "WARNING",
            "totalNotices": rng.randint(2, 9),
            "sampleNotices": [
                {"tripId": f"{t}_土休日", "speedKph": rng.randint(160, 240)} for t in others[:2]
            ],
        },
        {
            "code": "missing_recommended_field",
            "severity": "WARNING",
            "totalNotices": rng.randint(10, 40),
            "sampleNotices": [{"filename": "agency.txt", "fieldName": "agency_email"}],
        },
        {
            "code": "block_trips_with_overlapping_stop_times",
            "severity": "WARNING",
            "totalNotices": rng.randint(1, 4),
            "sampleNotices": [{"tripIdA": f"{others[2]}_平日", "tripIdB": f"{others[3]}_平日"}],
        },
    ]
    b.tool(
        "バリデーターにかけます。",
        "bash",
        {
            "command": f"java -jar gtfs-validator-5.0.1-cli.jar -i dist/{zipname} -o out/val && "
            "jq '.notices' out/val/report.json"
        },
        _js(notices),
    )
    note = (
        f"エラーは1件だけです: 列車{train}（平日）の停車順14で、到着が前の駅の発車より前に"
        f"なっています。警告は速度超過と推奨項目の欠落なので今回は対象外。臨時ダイヤの上書き"
        f"ファイルを見ます。"
    )

    def stop_time(r: random.Random) -> str:
        minutes = r.randint(5 * 60, 24 * 60 + 30)
        dwell = minutes + r.choice((0, 0, 1, 2))
        return (
            f"{r.choice(others)}_{r.choice(('平日', '土休日'))},"
            f"{r.choice(_STATIONS_JA)[1].lower()},{minutes // 60:02d}:{minutes % 60:02d}:00,"
            f"{dwell // 60:02d}:{dwell % 60:02d}:00"
        )

    rows = "\n".join(sorted(stop_time(rng) for _ in range(rng.randint(8, 14))))
    b.tool(
        note + " " + "上書きファイルを確認。",
        "read_file",
        {"path": f"gtfs/overrides/{override}"},
        "trip_id,stop_id,arrival_time,departure_time\n"
        + rows
        + f"\n{train}_平日,{sta_id.lower()},24:05:00,24:05:00"
        + f"\n{train}_平日,{stb_id.lower()},24:03:00,24:04:00",
    )
    b.user(
        rng.choice(
            (
                f"ついでに、運行日の切り替え時刻は{old}でお願いします。深夜の臨時は前日扱いで。",
                f"あと、service dayの切り替えは{old}にしておいてください。",
            )
        )
    )
    b.tool(
        f"切り替えを{old}に設定します。",
        "edit_file",
        {
            "path": "gtfs/config.yaml",
            "old": 'service_day_cutover: "00:00"',
            "new": f'service_day_cutover: "{old}"',
        },
        "Edited gtfs/config.yaml (1 line)",
    )
    b.tool(
        f"{train}の{stb}着を直します（前駅{sta}発の後に）。",
        "edit_file",
        {
            "path": f"gtfs/overrides/{override}",
            "old": "24:03:00,24:04:00",
            "new": "24:07:00,24:08:00",
        },
        f"Edited gtfs/overrides/{override} (1 line)",
    )
    b.user(
        rng.choice(
            (
                f"すみません、訂正です。切り替えは{old}じゃなくて{new}にしてください。"
                f"終電の延長運転があるので。",
                f"やっぱり運行日の切り替えは{new}で。営業部に確認したら{old}だと{stc}行きの"
                f"最終が翌日扱いになってしまうそうです。",
                f"{old}はやめて、切り替えを{new}にしましょう。旧システムと合わせたいので。",
            )
        )
    )
    b.tool(
        f"切り替えを{new}に変更。",
        "edit_file",
        {
            "path": "gtfs/config.yaml",
            "old": f'service_day_cutover: "{old}"',
            "new": f'service_day_cutover: "{new}"',
        },
        "Edited gtfs/config.yaml (1 line)",
    )
    warnings = rng.randint(5, 12)
    b.tool(
        "再ビルドして再検証します。",
        "bash",
        {
            "command": f"python gtfs/build_feed.py --start {year}-{month:02d}-{day:02d} "
            f"--out dist/ && java -jar gtfs-validator-5.0.1-cli.jar -i dist/{zipname} "
            "-o out/val --summary"
        },
        "\n".join(
            (
                f"[build_feed] applied overrides: gtfs/overrides/{override}",
                f"[build_feed] feed_info.feed_version = {feed_version}",
                f"[build_feed] wrote dist/{zipname}",
                f"validator 5.0.1: dist/{zipname}: errors=0 warnings={warnings} infos=3",
            )
        ),
    )
    b.tool(
        f"再検証で{zipname}はエラー0件で通りました（警告{warnings}件は既知のもの）。"
        f"feed_versionは{feed_version}です。"
        " "
        "コミットします。",
        "bash",
        {"command": f'git commit -am "{ticket}: {month}/{day}改正 臨時ダイヤ修正と運行日切替"'},
        f"[dia/{ticket.lower()} {commit}] {ticket}: {month}/{day}改正 臨時ダイヤ修正と運行日切替\n"
        f" 2 files changed, 2 insertions(+), 2 deletions(-)",
    )
    b.user(
        rng.choice(
            (
                f"ありがとうございます。改正日の前日までに、{partner}さんに新しいフィードの"
                f"URLを送っておいてください。",
                f"助かります。次は{partner}への連絡をお願いします、改正前日までに新フィードの"
                f"URLを共有する形で。",
            )
        )
    )
    b.assistant("承知しました。公開URLが決まり次第、送付文を用意します。")
    opening = b.take()

    deck = _Deck(4)

    def filler(r: random.Random) -> None:
        scene = deck.draw(r)
        kanji, romaji = r.choice(_STATIONS_JA)
        if scene == 0:
            b.user(f"{kanji}駅の英語表記、ローマ字が違うかもしれません。マスタを確認してください。")
            b.tool(
                "駅マスタを検索。",
                "bash",
                {"command": f"grep -n -i '{romaji}' gtfs/src/stops_master.csv"},
                "\n".join(
                    f"{line}:{romaji.lower()}_{platform},{kanji},{romaji},"
                    f"3{r.randint(4, 6)}.{r.randint(100000, 999999)},"
                    f"13{r.randint(8, 9)}.{r.randint(100000, 999999)}"
                    for platform, line in enumerate(
                        sorted(r.sample(range(2, 300), r.randint(1, 3))), start=1
                    )
                ),
            )
            b.assistant(f"表記は「{romaji}」で統一されていて、ヘボン式として問題ありません。")
        elif scene == 1:
            b.user("transfers.txtの件数を路線別に出してもらえますか。")
            b.tool(
                "集計します。",
                "bash",
                {"command": "python tools/count_transfers.py gtfs/src/transfers_master.csv"},
                noise_lines(
                    r,
                    r.randint(4, 8),
                    lambda q: (
                        f"route {q.choice('ABCDEFG')}{q.randint(1, 9)}: "
                        f"{q.randint(3, 120)} transfers (min_transfer_time avg "
                        f"{q.randint(60, 300)}s)"
                    ),
                ),
            )
            b.assistant("路線ごとの件数は上のとおりです。極端に少ない路線はありません。")
        elif scene == 2:
            b.user("小児運賃の端数処理が10円単位になっているか確認して。")
            b.tool(
                "運賃マスタを確認。",
                "read_file",
                {"path": "gtfs/src/fare_master.csv"},
                "fare_id,price,child_price\n"
                + noise_lines(
                    r,
                    r.randint(6, 12),
                    lambda q: (
                        f"F{q.randint(100, 999)},{q.randint(15, 90) * 10},{q.randint(8, 45) * 10}"
                    ),
                ),
            )
            b.assistant("小児運賃はすべて10円単位に切り上げられています。")
        else:
            run = r.randint(8_000_000_000, 9_999_999_999)
            b.user("CIのキャッシュが効いていないみたいです。ログを見てもらえますか。")
            b.tool(
                "CIログを確認。",
                "bash",
                {"command": f"gh run view {run} --log | grep -i cache"},
                noise_lines(
                    r,
                    r.randint(3, 7),
                    lambda q: (
                        f"build\tRestore cache\t{q.choice(('Cache not found', 'miss'))} "
                        f"for key: pip-{hexits(q, 12)}"
                    ),
                ),
            )
            b.assistant(
                "キャッシュキーに日付が入っていて毎日変わっています。requirementsのハッシュに"
                "変えれば効くはずです。"
            )

    probes = [
        Probe(
            "identifier",
            "最終的にビルドしたフィードのfeed_versionは？",
            feed_version,
            ((feed_version,),),
        ),
        Probe(
            "identifier",
            "バリデーターでエラーになった列車番号は？",
            train,
            ((train,),),
        ),
        Probe("identifier", "修正のコミットハッシュは？", commit, ((commit,),)),
        Probe(
            "artifact",
            f"gtfs/overrides/{override} はどうなった？",
            f"編集済み: {train}の到着・発車時刻を前駅の発車より後に直した。",
            (
                (override,),
                (
                    "編集",
                    "修正",
                    "更新",
                    "変更",
                    "直し",
                    "直した",
                    "edited",
                    "modified",
                    "updated",
                    "changed",
                    "fixed",
                ),
            ),
        ),
        Probe(
            "artifact",
            f"dist/{zipname} の検証結果は？",
            f"再検証でエラー0件、通過（警告{warnings}件）。",
            (
                (zipname,),
                (
                    "errors=0",
                    "エラー0",
                    "エラー 0",
                    "エラーなし",
                    "通過",
                    "通り",
                    "合格",
                    "pass",
                    "no errors",
                    "問題なし",
                ),
            ),
        ),
        Probe(
            "decision",
            "運行日の切り替え時刻は？",
            f"{new}（最初は{old}と言ったが訂正された）。",
            (
                (new, new_ja),
                (
                    "切り替",
                    "切替",
                    "運行日",
                    "service day",
                    "service_day",
                    "day boundary",
                    "cutover",
                    "rollover",
                ),
            ),
        ),
        Probe(
            "next_step",
            "次にやることは？",
            f"改正前日までに{partner}へ新しいフィードのURLを送る。",
            ((partner_short,), ("送", "連絡", "共有", "通知", "send", "notify", "share", "mail")),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# -------------------------------------------------------------------------- pvfarm_pl

_FARMS_PL = (
    "PV Zielona Dolina",
    "PV Kłodawa II",
    "Elektrownia PV Brzezie",
    "PV Stare Pole",
    "Farma PV Lipowiec",
)
_OSD_PL = (
    ("Tauron Dystrybucja", "Tauron", "tauron-dystrybucja.pl"),
    ("Enea Operator", "Enea", "operator.enea.pl"),
    ("Energa-Operator", "Energa", "energa-operator.pl"),
    ("PGE Dystrybucja", "PGE", "pgedystrybucja.pl"),
)


def _pvfarm_pl(rng: random.Random, b: Builder, segments: int) -> Parts:
    farm = rng.choice(_FARMS_PL)
    mwp = rng.choice((1.2, 1.5, 1.8, 2.0))
    site = f"site-{rng.randint(10, 99)}"
    ticket = f"SRV-{_num(rng, 5)}"
    ppe = "5905" + token(rng, 14, _DIGITS)
    spc = rng.randint(120, 180)
    fw = f"V300R001C00SPC{spc}"
    fw_latest = f"V300R001C00SPC{spc + rng.randint(3, 20)}"
    osd, osd_short, domain = rng.choice(_OSD_PL)
    year = rng.choice((2024, 2025))
    osd_ref = f"WP/{year}/{_num(rng, 6)}/{rng.choice(('OD', 'RD', 'ZR'))}"
    n_inv = round(mwp * 10)
    inv_push = f"INV-{rng.randint(10, n_inv):02d}"
    profile = rng.choice(("profil_sun2000.yaml", "grupa_a.yaml", "inwertery_sekcja1.yaml"))
    old = rng.choice((800, 850, 900, 950, 1000))
    new = old - rng.choice((80, 100, 130, 150, 180))
    date = f"{year}-0{rng.randint(5, 8)}-{rng.randint(10, 28)}"

    b.user(
        rng.choice(
            (
                f"Cześć, na {farm} ({mwp} MWp) od wczoraj falowniki wyłączają się koło "
                f"południa z błędem przepięcia AC. Zgłoszenie serwisowe {ticket}. Zajrzyj "
                f"do logów SCADA i do konfiguracji falowników, proszę.",
                f"Hej, {ticket}: {farm} znowu traci produkcję w szczycie, falowniki "
                f"rozłączają się na nadnapięciu. Przejrzyj logi ze SCADA i ustawienia.",
            )
        )
    )

    def event(r: random.Random) -> str:
        inv = f"INV-{r.randint(1, n_inv):02d}"
        u = f"{r.randint(253, 256)}.{r.randint(0, 9)}"
        t = f"{r.randint(11, 13)}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}"
        return r.choice(
            (
                f"{date} {t} {inv} ALARM 2032 Grid overvoltage U_L{r.randint(1, 3)}={u} V "
                f"(limit 253.0 V) -> TRIP",
                f"{date} {t} {inv} EVENT reconnect after {r.randint(60, 300)} s",
                f"{date} {t} PCC meter U_L1={r.randint(249, 254)}.{r.randint(0, 9)} V "
                f"P_export={r.randint(300, old - 20)}.{r.randint(1, 9)} kW "
                f"Q={r.randint(-40, 40)} kvar",
            )
        )

    b.tool(
        "Sprawdzam zdarzenia z bramki SCADA.",
        "bash",
        {
            "command": f"ssh scada-gw01 \"grep -E 'ALARM|EVENT|PCC' "
            f'/var/log/scada/events-{date}.log | tail -n 40"'
        },
        "\n".join(sorted(event(rng) for _ in range(rng.randint(18, 28)))),
    )
    b.tool(
        "Napięcie w punkcie przyłączenia dochodzi do 253-254 V i falowniki po kolei "
        "wypadają na progu 253 V. Nie widzę pracy z mocą bierną, więc pewnie Q(U) jest "
        "wyłączone. Sprawdzam metadane farmy i profil falowników."
        " "
        "Metadane farmy.",
        "http_get",
        {"url": f"https://scada.local/api/v2/site/{site}/meta"},
        _js(
            {
                "site_id": site,
                "nazwa": farm,
                "ppe": ppe,
                "osd": osd,
                "moc_zainstalowana_kwp": int(mwp * 1000),
                "moc_przylaczeniowa_kw": old,
                "inwertery": [
                    {"id": f"INV-{i:02d}", "model": "SUN2000-100KTL-M1", "fw": fw}
                    for i in range(1, n_inv + 1)
                ],
                "fw_latest_available": fw_latest,
            }
        ),
    )
    b.tool(
        "Profil falowników.",
        "read_file",
        {"path": f"config/falowniki/{profile}"},
        "\n".join(
            (
                "model: SUN2000-100KTL-M1",
                "grid_code: PL-NC-RfG-B",
                "ac_overvoltage_trip_v: 253.0",
                "ac_overvoltage_trip_delay_s: 3",
                "q_u_mode: off",
                "cos_phi_fixed: 1.0",
                "ramp_rate_pct_per_min: 10",
            )
        ),
    )
    b.assistant(
        f"Tak: q_u_mode: off. Wszystkie {n_inv} falowników ma firmware {fw} "
        f"(dostępny jest {fw_latest}, ale to osobny temat). Włączę krzywą Q(U)."
    )
    b.user(
        rng.choice(
            (
                f"Ok. I od razu ustaw w sterowniku parku limit eksportu na {old} kW, tak jak "
                f"w umowie.",
                f"Przy okazji: limit mocy oddawanej do sieci ustaw na {old} kW.",
            )
        )
    )
    b.tool(
        f"Limit eksportu {old} kW.",
        "edit_file",
        {
            "path": "config/park_controller.yaml",
            "old": "export_limit_kw: null",
            "new": f"export_limit_kw: {old}",
        },
        "Edited config/park_controller.yaml (+1 -1)",
    )
    b.tool(
        "Włączam Q(U).",
        "edit_file",
        {
            "path": f"config/falowniki/{profile}",
            "old": "q_u_mode: off",
            "new": "q_u_mode: curve\nq_u_points: [[0.92, 0.44], [0.97, 0.0], [1.03, 0.0], "
            "[1.08, -0.44]]",
        },
        f"Edited config/falowniki/{profile} (+2 -1)",
    )
    b.user(
        rng.choice(
            (
                f"Poprawka: w warunkach przyłączenia od {osd} jest {new} kW, nie {old}. "
                f"Zmień na {new} kW.",
                f"Sorry, pomyliłem się — limit eksportu ma być {new} kW, a nie {old} kW.",
                f"Jednak nie {old}. Dyspozytor {osd} potwierdził {new} kW na PCC, ustaw tyle.",
            )
        )
    )
    b.tool(
        f"Limit eksportu {new} kW.",
        "edit_file",
        {
            "path": "config/park_controller.yaml",
            "old": f"export_limit_kw: {old}",
            "new": f"export_limit_kw: {new}",
        },
        "Edited config/park_controller.yaml (+1 -1)",
    )

    def push(i: int) -> str:
        inv = f"INV-{i:02d}"
        if inv == inv_push:
            ip = f"10.20.{rng.randint(1, 9)}.{rng.randint(10, 250)}"
            return f"{inv}  TIMEOUT: brak ACK po 30 s (Modbus TCP {ip}:502), profil nie wgrany"
        return f"{inv}  OK  (ack {rng.randint(1, 4)}.{rng.randint(0, 9)} s)"

    b.tool(
        "Wgrywam konfigurację na falowniki i sterownik.",
        "bash",
        {"command": f"./tools/push_config.sh --site {site} --targets all"},
        "\n".join(push(i) for i in range(1, n_inv + 1))
        + f"\nPPC  OK  export_limit_kw={new}\nsummary: {n_inv - 1}/{n_inv} inverters updated",
    )
    b.tool(
        f"Sterownik przyjął {new} kW, profil poszedł na {n_inv - 1} z {n_inv} falowników; "
        f"{inv_push} nie odpowiedział (timeout Modbus), na nim zostaje stary profil."
        " "
        "Sprawdzam zgłoszenie u OSD dla tego PPE.",
        "http_get",
        {"url": f"https://portal.{domain}/api/zgloszenia?ppe={ppe}"},
        _js(
            {
                "numer": osd_ref,
                "ppe": ppe,
                "typ": "Zmiana parametrów pracy instalacji OZE",
                "status": "W trakcie weryfikacji",
                "data_zlozenia": f"{year}-0{rng.randint(1, 4)}-{rng.randint(10, 28)}",
            }
        ),
    )
    b.assistant(f"Zgłoszenie {osd_ref} jest w weryfikacji.")
    b.user(
        rng.choice(
            (
                f"Dzięki. Na jutro: wyślij do {osd} protokół z testu ograniczenia mocy, "
                f"z numerem zgłoszenia.",
                f"Super. Następny krok to protokół z testu ograniczenia dla {osd} — wyślij "
                f"go jutro rano.",
            )
        )
    )
    b.assistant("Jasne, przygotuję protokół i wyślę jutro.")
    opening = b.take()

    deck = _Deck(4)

    def filler(r: random.Random) -> None:
        scene = deck.draw(r)
        if scene == 0:
            b.user("Porównaj wczorajszą produkcję z prognozą, godzina po godzinie.")
            b.tool(
                "Produkcja vs prognoza.",
                "http_get",
                {"url": "https://scada.local/api/v2/energy/hourly?day=yesterday"},
                _js(
                    [
                        {
                            "h": h,
                            "prod_kwh": r.randint(0, 900),
                            "forecast_kwh": r.randint(0, 900),
                        }
                        for h in range(6, 6 + r.randint(8, 14))
                    ]
                ),
            )
            b.assistant(
                f"Odchylenie od prognozy w sumie ok. {r.randint(2, 14)}%, głównie rano "
                f"przez zachmurzenie."
            )
        elif scene == 1:
            b.user("Zaktualizuj numer do ochrony obiektu w dokumentacji.")
            phone = f"+48 {r.randint(500, 799)} {r.randint(100, 999)} {r.randint(100, 999)}"
            b.tool(
                "Edytuję kontakty.",
                "edit_file",
                {"path": "docs/kontakty.md", "old": "Ochrona: ", "new": f"Ochrona: {phone}"},
                "Edited docs/kontakty.md (+1 -1)",
            )
            b.assistant("Zaktualizowane.")
        elif scene == 2:
            cam = f"cam-brama-{r.randint(1, 3)}"
            b.user("Czy kamera przy bramie jest online?")
            b.tool(
                "Ping kamery.",
                "bash",
                {"command": f"ping -c 4 {cam}.lan"},
                noise_lines(
                    r,
                    4,
                    lambda q: (
                        f"64 bytes from {cam}.lan: icmp_seq={q.randint(1, 4)} ttl=64 "
                        f"time={q.randint(1, 40)}.{q.randint(0, 9)} ms"
                    ),
                )
                + "\n4 packets transmitted, 4 received, 0% packet loss",
            )
            b.assistant("Kamera odpowiada, bez strat pakietów.")
        else:
            b.user("Wygeneruj zestawienie miesięczne z licznika głównego.")
            b.tool(
                "Zestawienie miesięczne.",
                "bash",
                {"command": "python tools/monthly_meter.py --month last"},
                noise_lines(
                    r,
                    r.randint(5, 9),
                    lambda q: (
                        f"tydzień {q.randint(1, 5)}: energia oddana "
                        f"{q.randint(20, 80)}.{q.randint(0, 9)} MWh, pobrana "
                        f"{q.randint(0, 3)}.{q.randint(0, 9)} MWh"
                    ),
                ),
            )
            b.assistant("Zestawienie gotowe, bez braków w danych.")

    probes = [
        Probe("identifier", "Jaki jest numer PPE farmy?", ppe, ((ppe,),)),
        Probe(
            "identifier",
            "Jaka wersja firmware jest zainstalowana na falownikach?",
            fw,
            ((fw,),),
        ),
        Probe(
            "identifier",
            f"Jaki jest numer zgłoszenia u {osd}?",
            osd_ref,
            ((osd_ref,),),
        ),
        Probe(
            "artifact",
            f"Co zmieniono w config/falowniki/{profile}?",
            "Włączono krzywą Q(U) (q_u_mode: curve zamiast off).",
            (
                (profile,),
                (
                    "q(u)",
                    "curve",
                    "zmien",
                    "zmian",
                    "edyt",
                    "zaktualiz",
                    "włącz",
                    "wlacz",
                    "edited",
                    "modified",
                    "updated",
                    "changed",
                    "enabled",
                ),
            ),
        ),
        Probe(
            "artifact",
            f"Czy konfiguracja trafiła na {inv_push}?",
            f"Nie: timeout Modbus, brak ACK; na {inv_push} został stary profil.",
            (
                (inv_push,),
                (
                    "timeout",
                    "brak ack",
                    "nie odpowie",
                    "nie wgran",
                    "nie przyj",
                    "nie powiod",
                    "niepowodz",
                    "błąd",
                    "fail",
                    "no ack",
                    "stary profil",
                    "old profile",
                ),
            ),
        ),
        Probe(
            "decision",
            "Jaki limit eksportu ma być ustawiony w sterowniku parku?",
            f"{new} kW (poprawka użytkownika; wcześniej mówił {old} kW).",
            (
                (f"{new} kW", f"{new}kW", f"{new} kw"),
                ("eksport", "export", "limit", "oddaw", "ogranicz"),
            ),
        ),
        Probe(
            "next_step",
            "Co trzeba zrobić jutro?",
            f"Wysłać do {osd} protokół z testu ograniczenia mocy (z numerem zgłoszenia).",
            ((osd_short,), ("protok", "protocol", "raport", "report")),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# ---------------------------------------------------------------------------- chai_fr

_CAVES_FR = (
    "Cave coopérative de Saint-Aubin",
    "Les Vignerons du Ruisseau",
    "Cave de la Combe",
    "Union des Caves du Val d'Ardière",
)
_DESTS_FR = (
    ("Wijnhandel De Kelder BV", "De Kelder", "NL"),
    ("Vinothek Am Markt GmbH", "Am Markt", "DE"),
    ("Caviste du Sablon SPRL", "Sablon", "BE"),
    ("Enoteca Ponte Vecchio Srl", "Ponte Vecchio", "IT"),
)
_CONTAINERS_FR = (
    ("BIB de 3 L", "BIB 3L", "22042178", "22042238"),
    ("BIB de 5 L", "BIB 5L", "22042179", "22042279"),
    ("cubis de 10 L", "CUBI 10L", "22042198", "22042290"),
)
_CUVEES_FR = ("Clos des Pierres", "Vieilles Vignes", "Rosé de Saignée", "Cuvée des Amis")


def _spaced_nc(code: str) -> str:
    return f"{code[:4]} {code[4:6]} {code[6:]}"


def _chai_fr(rng: random.Random, b: Builder, segments: int) -> Parts:
    cave = rng.choice(_CAVES_FR)
    ticket = f"CAVE-{rng.randint(100, 899)}"
    year = rng.choice((2024, 2025))
    yy = str(year)[2:]
    week = f"{year}-W{rng.randint(36, 48)}"
    accise = f"FR0{_num(rng, 5)}E{token(rng, 4, _DIGITS)}"
    arc = f"{yy}FR{token(rng, 16, _UPPER + _DIGITS)}{rng.randint(0, 9)}"
    code = rng.choice(("CDR", "VDP", "IGPR", "BLR"))
    lot = f"L{yy}-{code}-{_num(rng, 3)}"
    draft = f"BR-{year}-{_num(rng, 4)}"
    dest, dest_short, country = rng.choice(_DESTS_FR)
    dest_accise = f"{country}0{_num(rng, 8)}"
    ville = rng.choice(("Mâcon", "Beaune", "Villefranche-sur-Saône", "Nîmes", "Libourne"))
    container, short, wrong, right = rng.choice(_CONTAINERS_FR)
    script = rng.choice(("gamma_export.py", "dae_export.py", "export_emcs.py"))
    plate = f"{token(rng, 2, _UPPER)}-{_num(rng, 3)}-{token(rng, 2, _UPPER)}"
    first = rng.choice(_CUVEES_FR)

    b.user(
        rng.choice(
            (
                f"Bonjour ! Pour la {cave}, il y a deux DAE de la semaine {week} qui coincent "
                f"sur GAMMA. Ticket {ticket}. Tu peux regarder `scripts/{script}` et relancer "
                f"l'export à blanc ?",
                f"Salut, {ticket} : l'export GAMMA de la semaine {week} ne passe pas "
                f"({cave}). Regarde `scripts/{script}` stp, et fais un dry-run.",
            )
        )
    )

    def warn(r: random.Random) -> str:
        return r.choice(
            (
                f"[valid] DAE 1 ligne {r.randint(1, 7)} : W-0310 TAV {r.randint(11, 14)},"
                f"{r.randint(0, 9)} % vol arrondi au dixième",
                f"[valid] DAE 2 ligne {r.randint(1, 4)} : W-0122 poids brut estimé "
                f"({r.randint(300, 2400)} kg)",
                f"[valid] DAE {r.randint(1, 2)} : I-0001 appellation contrôlée vérifiée",
            )
        )

    b.tool(
        "Export à blanc.",
        "bash",
        {"command": f"python scripts/{script} --semaine {week} --dry-run"},
        "\n".join(
            (
                f"[gamma-export] expéditeur : {cave} — entrepositaire agréé, accise {accise}",
                f"[gamma-export] semaine {week} : 2 DAE, {rng.randint(5, 9)} lignes",
                f"[valid] DAE 1 (camion {plate}) ligne 3 : E-1042 code NC manquant pour le "
                f"contenant '{short}'",
                noise_lines(rng, rng.randint(4, 8), warn),
                f"[valid] DAE 2 (brouillon {draft}) : en-tête OK",
                "[gamma-export] dry-run : 1 erreur bloquante",
            )
        ),
    )
    note = (
        f"Une seule erreur bloquante : la ligne 3 du DAE 1 (camion {plate}) n'a pas de code "
        f"NC pour le contenant {short}. Je regarde le registre pour voir quel lot c'est."
    )

    def stock(r: random.Random) -> str:
        return (
            f"L{yy}-{r.choice(('CDR', 'VDP', 'IGPR', 'BLR'))}-{_num(r, 3)};{r.choice(_CUVEES_FR)};"
            f"{r.choice(('bouteille 75cl', 'magnum 150cl', 'vrac'))};"
            f"{r.randint(2, 120)},{r.randint(0, 99):02d};{r.randint(11, 14)},{r.randint(0, 9)}"
        )

    rows = [row for row in (stock(rng) for _ in range(rng.randint(8, 14))) if lot not in row]
    rows.insert(
        rng.randint(2, 6),
        f"{lot};{first};{short};{rng.randint(4, 30)},{rng.randint(0, 99):02d};"
        f"{rng.randint(12, 13)},{rng.randint(0, 9)}",
    )
    b.tool(
        note + " " + "Registre des stocks.",
        "read_file",
        {"path": f"data/registre/stock_{year}.csv"},
        "lot;cuvée;contenant;volume_hl;tav\n" + "\n".join(rows),
    )
    b.assistant(f"La ligne en erreur, c'est le lot {lot} ({first}, en {short}).")
    b.user(
        rng.choice(
            (
                f"Pour les {container}, mets le code NC {_spaced_nc(wrong)}, c'est ce qu'on a "
                f"toujours déclaré.",
                f"Mets {wrong} comme code NC pour les {container}.",
            )
        )
    )
    b.tool(
        "J'ajoute le code dans la table de correspondance.",
        "edit_file",
        {
            "path": f"scripts/{script}",
            "old": "NC_PAR_CONTENANT = {",
            "new": f'NC_PAR_CONTENANT = {{\n    "{short}": "{wrong}",',
        },
        f"Edited scripts/{script}: 1 hunk (+1)",
    )
    b.user(
        rng.choice(
            (
                f"Ah non pardon, je me suis trompée : pour les {container} c'est le "
                f"{_spaced_nc(right)}, pas {_spaced_nc(wrong)} — le transitaire vient de me le "
                f"confirmer.",
                f"En fait, utilise {_spaced_nc(right)} au lieu de {_spaced_nc(wrong)} pour les "
                f"{container}.",
                f"Oublie le {wrong}. Les {container} se déclarent en {right}, j'ai vérifié "
                f"dans la nomenclature.",
            )
        )
    )
    b.tool(
        "Je corrige le code.",
        "edit_file",
        {
            "path": f"scripts/{script}",
            "old": f'"{short}": "{wrong}",',
            "new": f'"{short}": "{right}",',
        },
        f"Edited scripts/{script}: 1 hunk (+1 -1)",
    )
    b.tool(
        "Envoi réel.",
        "bash",
        {"command": f"python scripts/{script} --semaine {week} --envoyer"},
        "\n".join(
            (
                f"[gamma-export] DAE 1/2 (camion {plate}) → accepté, ARC {arc}",
                f"[gamma-export] DAE 2/2 brouillon {draft} → REJETÉ : E-2210 destinataire "
                f"{dest} : numéro d'accise {dest_accise} inactif",
                "[gamma-export] 1 envoyé, 1 rejeté",
            )
        ),
    )
    b.tool(
        "Je vérifie le DAE accepté dans GAMMA.",
        "http_get",
        {"url": f"https://gamma.internal/api/dae/{arc}"},
        _js(
            {
                "arc": arc,
                "statut": "Accepté",
                "date_validation": f"{year}-{rng.randint(9, 11):02d}-{rng.randint(10, 28)}",
                "expediteur": {"nom": cave, "accise": accise},
                "transport": {"mode": "route", "immatriculation": plate},
                "lignes": [
                    {
                        "n": 3,
                        "lot": lot,
                        "nc": right,
                        "contenant": short,
                        "volume_l": rng.randint(300, 2400),
                    },
                    {
                        "n": 1,
                        "lot": f"L{yy}-VDP-{_num(rng, 3)}",
                        "nc": "22042109",
                        "contenant": "bouteille 75cl",
                        "volume_l": rng.randint(300, 2400),
                    },
                ],
            }
        ),
    )
    b.assistant(
        f"Le camion {plate} est parti avec son ARC. Le brouillon {draft} pour {dest} est "
        f"rejeté : leur numéro d'accise est inactif, on ne peut rien y faire de notre côté."
    )
    b.user(
        rng.choice(
            (
                f"Merci. Lundi, il faudra appeler le bureau de douane de {ville} pour faire "
                f"réactiver {dest} dans SEED, puis renvoyer le brouillon.",
                f"Ok. La suite : contacter la douane de {ville} pour que {dest_short} soit "
                f"réactivé, et renvoyer le DAE ensuite.",
            )
        )
    )
    b.assistant("Noté, je m'en occupe lundi.")
    opening = b.take()

    deck = _Deck(4)

    def filler(r: random.Random) -> None:
        scene = deck.draw(r)
        cuvee = r.choice(_CUVEES_FR)
        if scene == 0:
            b.user(f"Tu peux vérifier le stock de la cuvée {cuvee} ?")
            b.tool(
                "Requête stock.",
                "sql",
                {
                    "query": f"SELECT contenant, SUM(volume_hl) FROM stock WHERE cuvee = '{cuvee}' "
                    "GROUP BY contenant"
                },
                noise_lines(
                    r,
                    r.randint(2, 4),
                    lambda q: (
                        f"{q.choice(('bouteille 75cl', 'magnum 150cl', 'vrac'))} | "
                        f"{q.randint(2, 300)},{q.randint(0, 99):02d}"
                    ),
                ),
            )
            b.assistant("Voilà les volumes par contenant, rien d'anormal.")
        elif scene == 1:
            pays = r.choice(("Japon", "Canada", "Suisse", "Norvège"))
            prix = f"{r.randint(5, 30)},{r.randint(0, 99):02d}"
            b.user(f"Mets à jour le tarif export pour le {pays} : {prix} € HT la bouteille.")
            b.tool(
                "Tarifs export.",
                "edit_file",
                {"path": "data/tarifs/export.csv", "old": f"{pays};", "new": f"{pays};{prix};"},
                "Edited data/tarifs/export.csv: 1 hunk (+1 -1)",
            )
            b.assistant("Tarif mis à jour.")
        elif scene == 2:
            b.user("La sauvegarde de la base a échoué cette nuit, tu peux la relancer ?")
            b.tool(
                "Sauvegarde.",
                "bash",
                {
                    "command": "sudo systemctl start backup-db.service && journalctl -u "
                    "backup-db -n 6 --no-pager"
                },
                noise_lines(
                    r,
                    r.randint(3, 6),
                    lambda q: (
                        f"backup-db[{q.randint(1000, 9999)}]: dumped table "
                        f"{q.choice(('stock', 'clients', 'tarifs', 'mouvements'))} "
                        f"({q.randint(1, 900)} kB)"
                    ),
                )
                + "\nbackup-db: Finished, archive uploaded.",
            )
            b.assistant("Sauvegarde relancée et terminée.")
        else:
            b.user("Combien de bouteilles on a tirées cette semaine ?")
            b.tool(
                "Mises en bouteille.",
                "http_get",
                {"url": "https://chai.internal/api/tirage?semaine=courante"},
                _js({c: r.randint(200, 6000) for c in _CUVEES_FR}),
            )
            b.assistant("Le détail par cuvée est ci-dessus.")

    probes = [
        Probe("identifier", "Quel est l'ARC du DAE accepté (camion) ?", arc, ((arc,),)),
        Probe(
            "identifier",
            "Quel est le numéro d'accise de la cave expéditrice ?",
            accise,
            ((accise,),),
        ),
        Probe("identifier", f"Quel lot figure sur la ligne {short} du DAE ?", lot, ((lot,),)),
        Probe(
            "artifact",
            f"Qu'est-ce qui a été changé dans scripts/{script} ?",
            f"La table NC_PAR_CONTENANT : ajout du code NC {right} pour {short}.",
            (
                (script,),
                (
                    "modifi",
                    "corrig",
                    "édit",
                    "edit",
                    "mis à jour",
                    "mise à jour",
                    "ajout",
                    "changed",
                    "updated",
                    "fixed",
                    "added",
                ),
            ),
        ),
        Probe(
            "artifact",
            f"Qu'est devenu le brouillon {draft} ?",
            f"Rejeté par GAMMA (E-2210) : le numéro d'accise du destinataire {dest} est inactif.",
            ((draft,), ("rejet", "refus", "reject", "declin", "inactif", "inactive")),
        ),
        Probe(
            "decision",
            f"Quel code NC pour les {container} ?",
            f"{right} (la première indication {wrong} a été corrigée).",
            ((right, _spaced_nc(right)), ("bib", "bag-in-box", "bag in box", "cubi")),
        ),
        Probe(
            "next_step",
            "Quelle est la prochaine étape ?",
            f"Appeler la douane de {ville} pour faire réactiver {dest}, puis renvoyer le "
            f"brouillon.",
            ((dest_short,), ("réactiv", "reactiv", "douane", "customs", "seed")),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# ----------------------------------------------------------------------------- fab_ko

_PRODUCTS_KO = ("LPDDR5X 16Gb", "DDR5 24Gb", "V-NAND 236단", "PMIC-A7")
_RECIPES_KO = ("SIN_LINER_480C", "OX_LINER_400C", "HTO_LINER_750C", "SIN_LINER_ALD_300C")
_ENGINEERS_KO = ("김도윤", "박서연", "이준호", "최지우", "정하늘")


def _fab_ko(rng: random.Random, b: Builder, segments: int) -> Parts:
    line = rng.choice(("M14", "P2", "S3", "FAB7"))
    product = rng.choice(_PRODUCTS_KO)
    lot = f"{rng.choice(_UPPER)}{rng.randint(1, 9)}{rng.choice(_UPPER)}{_num(rng, 3)}"
    lot += f".{rng.randint(1, 3)}"
    ticket = f"YLD-{_num(rng, 4)}"
    y0 = rng.randint(88, 95)
    y1 = rng.randint(55, 75)
    chamber = (
        f"{rng.choice(('ALD', 'PECVD', 'CVD'))}{rng.randint(1, 30):02d}-CH{rng.choice('ABCD')}"
    )
    others = [
        (
            str(rng.randint(low, low + 500)),
            name,
            f"{kind}{rng.randint(31, 60):02d}-CH{rng.choice('ABCD')}",
            f"{prefix}_v{rng.randint(2, 9)}.{rng.randint(0, 9)}",
        )
        for low, name, kind, prefix in (
            (1000, "STI ETCH", "ETCH", "STI_ETCH"),
            (2800, "CMP", "CMP", "CMP_OX"),
            (3400, "WELL IMPLANT", "IMP", "NWELL_IMP"),
        )
    ]
    rname = rng.choice(_RECIPES_KO)
    major, minor = rng.randint(4, 15), rng.randint(1, 9)
    recipe = f"{rname}_v{major}.{minor}"
    old_recipe = f"{rname}_v{major}.{minor - 1}"
    fa_no = f"FA-{rng.choice(('24', '25'))}-{_num(rng, 5)}"
    old, new = rng.choice((("3", "2.5"), ("3", "2"), ("4", "3"), ("3.5", "3")))
    spc_file = rng.choice(("spc_limits.yaml", "control_limits.yaml", "spc_rules.yaml"))
    hold_code = f"QH-{_num(rng, 4)}"
    engineer = rng.choice(_ENGINEERS_KO)
    step = rng.randint(1800, 2700)
    bad = sorted(rng.sample(range(1, 26), rng.randint(7, 11)))

    b.user(
        rng.choice(
            (
                f"안녕하세요. 어젯밤 {line} {product} 로트 {lot} EDS 수율이 {y1}%까지 떨어졌어요"
                f"(평소 {y0}% 정도). 이슈는 {ticket}입니다. 웨이퍼 맵이랑 설비 이력 같이 봐 "
                f"주세요.",
                f"{ticket} 건 부탁드려요. {line} 라인 {lot} 로트 수율이 {y1}%로 급락했습니다. "
                f"웨이퍼 맵 패턴이랑 공통 설비부터 확인해 주세요.",
            )
        )
    )
    table = "wafer_id | yield_pct | top_fail_bin\n" + "\n".join(
        f"W{w:02d} | {rng.randint(40, 70) if w in bad else rng.randint(86, 96)}."
        f"{rng.randint(0, 9)} | {'BIN12' if w in bad else rng.choice(('BIN3', 'BIN7', 'BIN9'))}"
        for w in range(1, 26)
    )
    b.tool(
        "웨이퍼별 수율 조회.",
        "sql",
        {
            "query": f"SELECT wafer_id, yield_pct, top_fail_bin FROM eds_summary WHERE lot_id = "
            f"'{lot}' ORDER BY wafer_id"
        },
        table,
    )
    b.tool(
        "웨이퍼 맵 패턴 분류.",
        "bash",
        {"command": f"python analysis/wafermap_cluster.py --lot {lot} --signature"},
        "\n".join(
            (
                f"signature: EDGE_RING (r > {rng.randint(138, 146)} mm) on {len(bad)}/25 "
                f"wafers: {' '.join(f'W{w:02d}' for w in bad)}",
                f"common path: step {step} LINER DEP, chamber {chamber} shared by "
                f"{len(bad)}/{len(bad)} (p=0.00{rng.randint(1, 9)})",
                *(
                    f"  step {o_step}: chamber {o_eqp} shared by "
                    f"{rng.randint(2, 5)}/{len(bad)} (p=0.{rng.randint(20, 90)})"
                    for o_step, _, o_eqp, _ in others
                ),
            )
        ),
    )
    history = [
        {"step": o_step, "name": o_name, "eqp": o_eqp, "recipe": o_recipe}
        for o_step, o_name, o_eqp, o_recipe in others
    ]
    history.insert(1, {"step": str(step), "name": "LINER DEP", "eqp": chamber, "recipe": recipe})
    b.tool(
        "MES 로트 이력.",
        "http_get",
        {"url": f"https://mes.fab.local/api/lots/{lot}/history?steps=all"},
        _js(
            {
                "lot_id": lot,
                "history": history,
                "recipe_change_log": [
                    {
                        "recipe": recipe,
                        "prev": old_recipe,
                        "changed_at": f"2025-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T"
                        f"{rng.randint(10, 23)}:00",
                        "by": "proc_eng",
                    }
                ],
            }
        ),
    )
    b.assistant(
        f"엣지 링 패턴 {len(bad)}장이 전부 {step} LINER DEP 스텝의 {chamber}를 거쳤고, "
        f"그 스텝 레시피가 {old_recipe}에서 {recipe}로 막 바뀐 상태입니다. 챔버 쪽이 "
        f"유력해 보여요."
    )
    b.user(
        rng.choice(
            (
                f"알겠습니다. SPC 관리 한계는 {old}시그마로 다시 잡아 주세요.",
                f"그럼 두께 SPC 관리한계를 {old}σ 기준으로 재계산해 주세요.",
            )
        )
    )
    b.tool(
        "SPC 설정 수정.",
        "edit_file",
        {
            "path": f"analysis/spc/{spc_file}",
            "old": "  THK_LINER: {}",
            "new": f"  THK_LINER: {{k_sigma: {old}}}",
        },
        f"Edited analysis/spc/{spc_file} (1 line)",
    )
    b.user(
        rng.choice(
            (
                f"아, 정정할게요. 한계선은 {old}시그마 말고 {new}시그마로 해 주세요. "
                f"고객사 요구사항이 바뀌었어요.",
                f"방금 품질팀이랑 얘기했는데, 관리 한계는 {new}σ로 가기로 했습니다. {old}σ는 "
                f"취소요.",
                f"{old}시그마는 너무 느슨해요. SPC는 {new}시그마로 바꿔 주세요.",
            )
        )
    )
    b.tool(
        "다시 수정.",
        "edit_file",
        {
            "path": f"analysis/spc/{spc_file}",
            "old": f"  THK_LINER: {{k_sigma: {old}}}",
            "new": f"  THK_LINER: {{k_sigma: {new}}}",
        },
        f"Edited analysis/spc/{spc_file} (1 line)",
    )
    mean = rng.randint(4200, 5200) / 10
    sd = rng.randint(20, 60) / 10
    k = float(new)
    b.tool(
        "관리 한계 재계산.",
        "bash",
        {"command": "python analysis/spc_recalc.py --param THK_LINER --window 30d"},
        "\n".join(
            (
                f"recalc THK_LINER window=30d n={rng.randint(600, 1400)} k={new}",
                f"mean={mean:.1f} Å  sd={sd:.1f} Å",
                f"UCL={mean + k * sd:.1f} Å  LCL={mean - k * sd:.1f} Å",
                f"points outside (last 7d): {rng.randint(3, 12)}",
            )
        ),
    )
    b.tool(
        "로트 홀드.",
        "bash",
        {"command": f"mes lot hold {lot} --reason 'yield excursion {ticket}'"},
        f"Lot {lot}: RUN -> HOLD (hold code {hold_code}, by agent-bot)",
    )
    b.tool(
        "FA 의뢰 등록.",
        "http_post",
        {
            "url": "https://mes.fab.local/api/fa/requests",
            "body": {
                "lot": lot,
                "wafers": [f"W{bad[0]:02d}", f"W{bad[-1]:02d}"],
                "analysis": "TEM cross-section, edge",
            },
        },
        _js({"fa_no": fa_no, "status": "접수", "eta_days": rng.randint(3, 7)}),
    )
    b.assistant(
        f"로트는 홀드했고, W{bad[0]:02d}·W{bad[-1]:02d} 두 장으로 FA 의뢰({fa_no}) 넣었습니다."
    )
    b.user(
        rng.choice(
            (
                f"고마워요. 내일 아침에 설비팀 {engineer} 책임님께 {chamber} 챔버 PM 요청하고, PM "
                f"끝나면 모니터 웨이퍼 3장으로 파티클 체크 돌려 주세요.",
                f"다음은 {chamber} 정비예요. 내일 {engineer} 책임님한테 PM 잡아 달라고 하고, "
                f"끝나면 파티클 모니터 웨이퍼 돌려서 결과 공유해 주세요.",
            )
        )
    )
    b.assistant("네, 내일 오전에 요청 넣고 결과 나오면 공유드릴게요.")
    opening = b.take()

    deck = _Deck(4)

    def filler(r: random.Random) -> None:
        scene = deck.draw(r)
        if scene == 0:
            b.user("다른 제품 CD 측정값 주간 평균 좀 뽑아 주세요.")
            b.tool(
                "CD 평균 조회.",
                "sql",
                {
                    "query": "SELECT week, AVG(cd_nm) FROM metrology_cd GROUP BY week "
                    "ORDER BY week DESC LIMIT 6"
                },
                noise_lines(
                    r,
                    6,
                    lambda q: (
                        f"2025-W{q.randint(10, 40)} | {q.randint(30, 60)}.{q.randint(0, 99):02d}"
                    ),
                ),
            )
            b.assistant("주간 평균은 안정적입니다. 추세 변화 없어요.")
        elif scene == 1:
            b.user("수율 대시보드 쿼리가 너무 느려요. 실행 계획 좀 봐 주세요.")
            b.tool(
                "실행 계획.",
                "sql",
                {
                    "query": "EXPLAIN ANALYZE SELECT * FROM eds_summary WHERE test_date > now() - "
                    "interval '7 days'"
                },
                noise_lines(
                    r,
                    r.randint(4, 7),
                    lambda q: (
                        f"{q.choice(('Seq Scan', 'Hash Join', 'Sort', 'Bitmap Heap Scan'))}"
                        f" (cost={q.randint(0, 900)}..{q.randint(1000, 90000)} rows="
                        f"{q.randint(100, 90000)}) (actual time={q.randint(1, 4000)} ms)"
                    ),
                ),
            )
            b.assistant("test_date에 인덱스가 없어서 풀 스캔이 돕니다. 인덱스 추가를 권합니다.")
        elif scene == 2:
            b.user("주간 보고서 템플릿에 수율 추이 그래프 하나 추가해 주세요.")
            b.tool(
                "템플릿 수정.",
                "edit_file",
                {
                    "path": "reports/weekly_template.md",
                    "old": "## 수율",
                    "new": "## 수율\n\n![주간 수율 추이](charts/yield_trend.png)",
                },
                "Edited reports/weekly_template.md (+2)",
            )
            b.assistant("추가했습니다.")
        else:
            tester = f"T{r.randint(10, 99)}"
            b.user(f"테스터 {tester} 가동률 확인 부탁해요.")
            b.tool(
                "가동률 조회.",
                "http_get",
                {"url": f"https://mes.fab.local/api/testers/{tester}/utilization?days=7"},
                _js(
                    {
                        "tester": tester,
                        "utilization_pct": r.randint(60, 98),
                        "down_hours": r.randint(0, 20),
                    }
                ),
            )
            b.assistant("가동률은 정상 범위입니다.")

    sigma = (f"{new}시그마", f"{new} 시그마", f"{new}σ", f"{new} σ", f"{new} sigma", f"{new}-sigma")
    probes = [
        Probe("identifier", "엣지 링 웨이퍼들이 공통으로 거친 챔버는?", chamber, ((chamber,),)),
        Probe("identifier", "문제 스텝에서 쓰인 현재 레시피 버전은?", recipe, ((recipe,),)),
        Probe("identifier", "등록한 FA 의뢰 번호는?", fa_no, ((fa_no,),)),
        Probe(
            "artifact",
            f"analysis/spc/{spc_file}는 어떻게 됐나?",
            f"수정됨: THK_LINER의 k_sigma를 {new}로 바꿈.",
            (
                (spc_file,),
                (
                    "수정",
                    "변경",
                    "편집",
                    "업데이트",
                    "바꿈",
                    "바꿨",
                    "바꾸",
                    "edited",
                    "modified",
                    "updated",
                    "changed",
                ),
            ),
        ),
        Probe(
            "artifact",
            f"로트 {lot}의 MES 상태는?",
            f"HOLD (hold code {hold_code}).",
            ((lot,), ("hold", "홀드", "보류")),
        ),
        Probe(
            "decision",
            "SPC 관리 한계는 몇 시그마로?",
            f"{new}시그마 (처음 {old}시그마라고 했다가 정정).",
            (sigma, ("spc", "한계", "control limit")),
        ),
        Probe(
            "next_step",
            "다음에 할 일은?",
            f"내일 {engineer} 책임님께 {chamber} 챔버 PM 요청, PM 후 모니터 웨이퍼로 파티클 체크.",
            (("파티클", "particle"), ("PM", "정비", "maintenance", "세정", "clean")),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# ---------------------------------------------------------------------- ils_migration

_LIBRARIES = (
    ("Millbrook Public Library", "millbrooklib"),
    ("Harlow County Libraries", "harlowlibraries"),
    ("Eastfield Regional Library", "eastfieldlib"),
    ("Riverside District Library", "riversidelibrary"),
)
_PEOPLE = ("Priya", "Tomasz", "Aoife", "Marcus", "Keiko")


def _ils_migration(rng: random.Random, b: Builder, segments: int) -> Parts:
    library, slug = rng.choice(_LIBRARIES)
    ticket = f"LIB-{rng.randint(1000, 4999)}"
    batch = rng.randint(300, 900)
    barcode = "3" + token(rng, 13, _DIGITS)
    oclc = str(rng.randint(10_000_000, 1_999_999_999))
    biblio = rng.randint(100_000, 250_000)
    merged = rng.randint(900, 2400)
    mr_url = (
        f"https://git.{slug}.org/library-systems/ils-migration/-/merge_requests/"
        f"{rng.randint(40, 400)}"
    )
    map_file = rng.choice(("marc_map.yaml", "holdings_map.yaml", "item_mapping.yaml"))
    test = rng.choice(("ItemBarcodes.t", "Holdings852.t", "BranchMapping.t"))
    loc = rng.choice(("ANX", "RMT", "STOR", "ANNEXB"))
    old_branch = rng.choice(("MAIN", "CENTRAL"))
    new_branch = rng.choice(("DEPOT", "OFFSITE", "STACKS2", "NORTHSIDE"))
    person = rng.choice(_PEOPLE)
    branch = f"fix/{ticket.lower()}-matcher"
    homebranch = rng.choice(("WEST", "ELM", "HARBOUR"))

    b.user(
        rng.choice(
            (
                f"Morning. The overnight load of the {library} records into Koha 23.11 "
                f"staging fell over (import batch {batch}). Ticket {ticket}. Can you go "
                f"through the import log and `migration/{map_file}`?",
                f"Hi — {ticket}. Staging import batch {batch} from the old Symphony export "
                f"died last night. Please look at the log and at our mapping in "
                f"`migration/{map_file}`.",
            )
        )
    )

    failed_at = rng.randint(40_000, 60_000)

    def logline(r: random.Random, n: int) -> str:
        return r.choice(
            (
                f"WARN record {n}: 020$a '978{_num(r, 9)}X' invalid ISBN checksum, moved to 020$z",
                f"WARN record {n}: 245 second indicator missing, defaulted to 0",
                f"WARN record {n}: 008/35-37 language code '{token(r, 3, 'abcdefghijklmnop')}' "
                f"unknown",
                f"INFO record {n}: matched on 035$a (OCoLC){r.randint(10_000, 9_999_999)} -> "
                f"biblionumber {r.randint(1000, 99_999)}",
            )
        )

    numbers = sorted(rng.sample(range(failed_at - 3_000, failed_at), rng.randint(16, 24)))
    lines = [logline(rng, n) for n in numbers]
    lines.append(
        f"ERROR record {failed_at}: DBD::mysql::st execute failed: Duplicate "
        f"entry '{barcode}' for key 'itembarcodeidx' at /usr/share/koha/lib/C4/Items.pm "
        f"line {rng.randint(200, 600)}."
    )
    lines.append(f"FATAL import batch {batch} aborted at record {failed_at:,}")
    b.tool(
        "Pulling the errors from the import log.",
        "bash",
        {
            "command": f"grep -E 'WARN|ERROR|FATAL|INFO' /var/log/koha/staging/"
            f"import_batch_{batch}.log | tail -n 30"
        },
        "\n".join(lines),
    )
    note = (
        f"The abort is a duplicate item barcode ({barcode}) hitting the unique index; the "
        f"rest is routine ISBN noise. A duplicate usually means two source items were merged "
        f"onto one bib, so let me look for over-merged records."
    )
    rows = [
        f"{rng.randint(1000, 99_999)} | (OCoLC){rng.randint(10_000, 9_999_999)} | "
        f"{rng.randint(3, 40)}"
        for _ in range(rng.randint(5, 7))
    ]
    b.tool(
        note + " " + "Bibs with the most items.",
        "sql",
        {
            "query": 'SELECT b.biblionumber, ExtractValue(m.metadata, \'//datafield[@tag="035"]'
            '/subfield[@code="a"]\') AS oclc, COUNT(i.itemnumber) AS items FROM biblio b JOIN '
            "biblio_metadata m USING (biblionumber) JOIN items i USING (biblionumber) GROUP BY "
            "b.biblionumber ORDER BY items DESC LIMIT 8"
        },
        "biblionumber | oclc | items\n"
        + f"{biblio} | (OCoLC){oclc} | {merged:,}\n"
        + "\n".join(rows),
    )
    b.tool(
        f"There it is: biblionumber {biblio} ((OCoLC){oclc}) has {merged:,} items. The "
        f"matcher falls back to 020$a and every record with an empty 020 was merged into "
        f"that one bib. Checking the mapping."
        " "
        "Reading the mapping.",
        "read_file",
        {"path": f"migration/{map_file}"},
        "\n".join(
            (
                "matchers:",
                "  - field: 035$a",
                "    normalize: oclc",
                "  - field: 020$a",
                "    normalize: isbn13",
                "    # falls through on empty subfield",
                "holdings:",
                "  source: 852",
                "  branch_from: $b",
                "  branch_map:",
                "    MAIN: MAIN",
                "    CHILD: MAIN",
                "    BKM: BOOKMOBILE",
                "  default_itype: BK",
            )
        ),
    )
    b.user(
        rng.choice(
            (
                f"OK. For holdings, just send everything with 852$b {loc} to {old_branch} for now.",
                f"While you're in there: map 852$b {loc} to {old_branch}.",
            )
        )
    )
    b.tool(
        "Adding the location.",
        "edit_file",
        {
            "path": f"migration/{map_file}",
            "old": "    BKM: BOOKMOBILE",
            "new": f"    BKM: BOOKMOBILE\n    {loc}: {old_branch}",
        },
        f"Edited migration/{map_file} (+1)",
    )
    b.user(
        rng.choice(
            (
                f"Scratch that — {loc} items should land in {new_branch}, not {old_branch}. "
                f"That stock moved in May.",
                f"Actually, use {new_branch} instead of {old_branch} for the {loc} items; "
                f"collections just told me.",
                f"Wait, no: {old_branch} is wrong for {loc}. Those go to {new_branch}.",
            )
        )
    )
    b.tool(
        "Fixing the branch.",
        "edit_file",
        {
            "path": f"migration/{map_file}",
            "old": f"    {loc}: {old_branch}",
            "new": f"    {loc}: {new_branch}",
        },
        f"Edited migration/{map_file} (+1 -1)",
    )
    b.tool(
        "And the empty-020 fallthrough in the matcher.",
        "edit_file",
        {
            "path": f"migration/{map_file}",
            "old": "    # falls through on empty subfield",
            "new": "    skip_if_empty: true",
        },
        f"Edited migration/{map_file} (+1 -1)",
    )
    others = [t for t in ("ItemBarcodes.t", "Holdings852.t", "BranchMapping.t") if t != test]
    b.tool(
        "Running the migration tests.",
        "bash",
        {"command": "prove -v t/db_dependent/Migration/"},
        "\n".join(
            (
                f"t/db_dependent/Migration/{others[0]} .. ok",
                f"t/db_dependent/Migration/{test} .. ",
                f"#   Failed test '852$b {loc} items get their homebranch'",
                f"#          got: '{new_branch}'",
                f"#     expected: '{old_branch}'",
                "#   Failed test 'matcher merges on empty 020'",
                f"t/db_dependent/Migration/{test} .. Failed 2/14 subtests",
                f"t/db_dependent/Migration/{others[1]} .. ok",
                "Result: FAIL",
            )
        ),
    )
    b.tool(
        f"{test} fails on two subtests, and both encode the old behaviour (the first "
        f"branch mapping and the empty-020 merge). I haven't updated the test yet."
        " "
        "Pushing and opening the MR.",
        "bash",
        {
            "command": f"git commit -am '{ticket}: skip empty 020 in matcher, map {loc}' && "
            f"git push -o merge_request.create -u origin {branch}"
        },
        "\n".join(
            (
                f"[{branch} {hexits(rng, 7)}] {ticket}: skip empty 020 in matcher, map {loc}",
                " 1 file changed, 2 insertions(+), 1 deletion(-)",
                "remote:",
                f"remote: View merge request for {branch}:",
                f"remote:   {mr_url}",
                "remote:",
                f" * [new branch]      {branch} -> {branch}",
            )
        ),
    )
    b.user(
        rng.choice(
            (
                f"Great. Once that MR is merged, re-run batch {batch} on staging only and send "
                f"{person} the before/after record counts. Don't touch production yet.",
                f"Next: after the merge, rerun the import of batch {batch} — staging only — "
                f"and give {person} the record-count diff.",
            )
        )
    )
    b.assistant("Will do once it's merged.")
    opening = b.take()

    deck = _Deck(4)

    def filler(r: random.Random) -> None:
        scene = deck.draw(r)
        if scene == 0:
            b.user("How many patrons have cards that expired this year?")
            b.tool(
                "Counting.",
                "sql",
                {
                    "query": "SELECT categorycode, COUNT(*) FROM borrowers WHERE dateexpiry "
                    "BETWEEN '2025-01-01' AND CURDATE() GROUP BY categorycode"
                },
                "\n".join(
                    f"{category} | {r.randint(10, 4000)}"
                    for category in ("ADULT", "CHILD", "SENIOR", "STAFF")
                ),
            )
            b.assistant("Nothing odd in the spread across categories.")
        elif scene == 1:
            b.user(f"The self-checkout at {homebranch.title()} keeps dropping. Check the logs?")
            b.tool(
                "SIP2 server log.",
                "bash",
                {"command": "journalctl -u koha-sip --since '2 hours ago' | tail -n 8"},
                noise_lines(
                    r,
                    r.randint(4, 8),
                    lambda q: (
                        f"koha-sip[{q.randint(1000, 9999)}]: {homebranch} term"
                        f"{q.randint(1, 4)}: "
                        f"{q.choice(('login ok', 'timeout, reconnect', '93 ok'))}"
                    ),
                ),
            )
            b.assistant("The terminal times out and reconnects; looks like network, not Koha.")
        elif scene == 2:
            b.user("There's a typo in the OPAC header, 'Libary'. Fix it?")
            b.tool(
                "Fixing.",
                "edit_file",
                {
                    "path": "koha-tmpl/opac-tmpl/custom/opacheader.html",
                    "old": "Libary",
                    "new": "Library",
                },
                "Edited koha-tmpl/opac-tmpl/custom/opacheader.html (+1 -1)",
            )
            b.assistant("Fixed.")
        else:
            b.user("How long is the holds queue right now?")
            b.tool(
                "Holds queue.",
                "http_get",
                {"url": "https://koha-staging.internal/api/v1/holds?_per_page=1"},
                _js(
                    {
                        "total": r.randint(200, 3000),
                        "waiting": r.randint(10, 300),
                        "in_transit": r.randint(0, 120),
                    }
                ),
            )
            b.assistant("About what we'd expect for the week.")

    probes = [
        Probe(
            "identifier",
            "Which item barcode caused the duplicate-key error that aborted the import?",
            barcode,
            ((barcode,),),
        ),
        Probe(
            "identifier",
            "What is the OCLC number of the over-merged bib record?",
            oclc,
            ((oclc,),),
        ),
        Probe("identifier", "What is the merge request URL for the fix?", mr_url, ((mr_url,),)),
        Probe(
            "artifact",
            f"What changed in migration/{map_file}?",
            f"Edited: 852$b {loc} mapped to {new_branch}; the 020$a matcher skips empty subfields.",
            ((map_file,), ("edit", "modif", "updat", "chang", "fixed", "added")),
        ),
        Probe(
            "artifact",
            f"What is the state of t/db_dependent/Migration/{test}?",
            "Failing: 2 of 14 subtests, both encoding the old behaviour; not updated yet.",
            ((test,), ("fail", "not ok", "broke")),
        ),
        Probe(
            "decision",
            f"Which branch should 852$b {loc} items be mapped to?",
            f"{new_branch} (the user corrected the earlier {old_branch}).",
            ((new_branch,), (loc,)),
        ),
        Probe(
            "next_step",
            "What is the next step once the MR is merged?",
            f"Re-run import batch {batch} on staging only and send {person} the before/after "
            f"record counts.",
            (
                ("staging",),
                (
                    "re-run",
                    "rerun",
                    "re-import",
                    "reimport",
                    "import again",
                    "run the import",
                    "re-running",
                    "rerunning",
                ),
            ),
        ),
    ]
    return opening, segments_of(rng, b, segments, filler), probes


# ---------------------------------------------------------------------------- registry

_TEMPLATES: dict[str, Template] = {
    "nfe_ptbr": _nfe_ptbr,
    "gtfs_ja": _gtfs_ja,
    "pvfarm_pl": _pvfarm_pl,
    "chai_fr": _chai_fr,
    "fab_ko": _fab_ko,
    "ils_migration": _ils_migration,
}

HELDOUT6_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout6(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The sixth held-out session of ``kind`` (one of :data:`HELDOUT6_KINDS`) for
    ``seed``: the same seed always gives the same session."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout6:", label="heldout6"
    )

"""Telling a refusal from a summary, in the common phrasings of many languages.

A *refusal* is a reply that declines the task: an apology in place of an answer
("I'm sorry, but…", "Lo siento…", "申し訳ありませんが…"), or a first-person decline
about the task itself ("I can't help with that", "Je ne peux pas vous aider",
"我无法提供帮助"). A sentence that merely starts with a negation ("Unable to reproduce
the bug was the user's first report", "I cannot reproduce the crash on macOS") is
not one: a decline must be first person (or a bare "Unable to help") and about
helping, answering, complying, summarizing and the like.

Only the *opening* of a reply is judged: its first sentence (plus the next one when
the first is a short interjection such as "Sure!" or a heading), at most
:data:`OPENING_CHARS` characters, from its first letter on (an emoji or a bracket
before it changes nothing). A summary that quotes a refusal later, or in
quotation marks, is a summary. The text is normalized first (:func:`normalize`) so
that typographic apostrophes, Markdown emphasis, full-width letters, invisible
characters and missing accents change nothing.

Languages: English, Spanish, French, German, Portuguese, Italian, Dutch, Russian,
Japanese, Chinese (simplified and traditional) and Korean, and the apologies that
open a refusal in Swahili, Vietnamese, Indonesian and Malay, Turkish, Polish,
Ukrainian, Czech, Swedish, Norwegian and Danish, Romanian, Hungarian, Finnish,
Tagalog, Zulu, Greek, Hebrew, Arabic, Persian, Hindi, Bengali, Tamil and Thai. This is
a heuristic for replies that carry no other signal; a short untagged reply must
also name something of the conversation it summarizes
(:mod:`~contextfold.compaction._verdict`, ``"unrelated"``).
"""

from __future__ import annotations

import re
import unicodedata

from contextfold.compaction._rules import SENTENCE

__all__ = ["OPENING_CHARS", "looks_like_refusal", "normalize", "opening"]

OPENING_CHARS = 200
"""How much of a reply's start is judged."""

_QUOTES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u02bc\u02b9\u0060\u00b4\uff07", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\u2039\u203a", '"'),
        "\u0451": "\u0435",  # ё → е
    }
)
_MARKUP = re.compile(r"</?[a-z][a-z0-9-]{0,20}(?:\s[^<>]{0,40})?>|[*_~`]+")
_LINE_MARKER = re.compile(r"(?m)^[ \t]*(?:#{1,6}|>+|[-+\u2022]|\d{1,3}[.)])[ \t]+")
_QUOTED = re.compile(r'"[^"\n]{0,300}"|\u300c[^\u300d]{0,300}\u300d|\u300e[^\u300f]{0,300}\u300f')
_CLAUSE = re.compile(
    r"\s*[,;\u3001\uff0c\uff1b\u2014\u2013]\s*|(?<=[.!?])\s+|\s+-\s+|\s+(?=(?:but|however|though|although|"
    r"pero|sin embargo|mais|cependant|aber|jedoch|mas|porem|ma|tuttavia|maar|но|однако)\b)"
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_END = r"\W*$"  # the clause ends here: "I can't." / "No puedo."
# What may stand before a sentence's first word and change nothing: an emoji, a
# bracket, a dash ("\u26a0\ufe0f I can't help", "(I can't help.)"); quotes are kept.
_LEADING = re.compile(r"^[^\w\"]+")


def normalize(text: str) -> str:
    """Fold ``text`` so that equivalent spellings compare equal.

    NFKC (full-width letters, ligatures), format characters (zero-width spaces, a
    byte-order mark) dropped, typographic apostrophes and quotes made ASCII, Markdown
    emphasis and inline tags removed along with heading, quote and list markers,
    Latin diacritics folded (``désolé`` → ``desole``; kana and hangul keep theirs),
    case folded, runs of spaces made one.
    """
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = _LINE_MARKER.sub("", _MARKUP.sub("", text)).translate(_QUOTES)
    folded: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch) and folded and folded[-1] < "\u0250":
            continue  # an accent on a Latin letter
        folded.append(ch)
    text = unicodedata.normalize("NFC", "".join(folded)).casefold()
    return re.sub(r"[ \t\u00a0]+", " ", text)


def opening(text: str) -> str:
    """The normalized start of ``text`` that :func:`looks_like_refusal` judges."""
    text = _LEADING.sub("", normalize(text[: OPENING_CHARS * 4]))
    if text[:1] == '"':
        close = text.find('"', 1)
        rest = text[close + 1 :] if close > 0 else ""
        # A reply (or its first line) wrapped in quotes is unwrapped; one that opens by
        # quoting someone ('"I can't help," the user was told…') is judged on what
        # follows the quote.
        quoting = close > 0 and rest.split("\n", 1)[0].strip(" .,!?")
        text = rest if quoting else text[1:]
    sentences = [s.strip() for s in SENTENCE.split(text.strip()) if s.strip()]
    if not sentences:
        return ""
    first = sentences[0]
    if len(sentences) > 1 and len(first.split()) <= 3 and not _CJK.search(first):
        first = f"{first} {sentences[1]}"  # "Sure! …", "Hmm. …", a heading, "Unfortunately, …"
    return first[:OPENING_CHARS]


def looks_like_refusal(text: str) -> bool:
    """Whether ``text`` opens by declining the task (see the module docstring)."""
    start = opening(text)
    if not start:
        return False
    for pattern, replacement in _CONTRACTIONS:
        start = pattern.sub(replacement, start)
    if _OPENERS.match(start):
        return True
    clauses = [c for c in _CLAUSE.split(start) if c]
    if any(_DECLINES.match(_LEADING.sub("", clause)) for clause in clauses):
        return True
    return bool(_CJK_DECLINES.search(_QUOTED.sub("", start)))


# English contractions spelled out, so one pattern covers "I'm"/"I am"/"Im", "can't"/"cannot".
_CONTRACTIONS = [
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\bi'm\b", "i am"),
        (r"\bim (?=sorry|unable|not|afraid|going|just|really|simply|so |very|truly)", "i am "),
        (r"\bi'd\b", "i would"),
        (r"\bi'll\b", "i will"),
        (r"\b(?:can't|cant|can not)\b", "cannot"),
        (r"\b(?:won't|wont)\b", "will not"),
        (r"\b(could|would|should|must|do|does|is|are)n't\b", r"\1 not"),
        (r"\b(that|this|it)'s\b", r"\1 is"),
    )
]


def _alt(*parts: str) -> str:
    return "(?:" + "|".join(parts) + ")"


_B = r"(?![\w'-])"  # a word ends here (also not "sorry-state", "can't-miss")
_W = r"(?:[\w'-]+ ){0,3}?"  # up to three words in between ("cannot in good conscience help")

# -- apologies and "as an AI" in place of an answer: only at the very start -------------
_OPENERS = re.compile(
    r"(?:(?:oh|well|hmm|ah|uh|okay|ok)\W+)?(?:"
    + _alt(
        # en
        r"i am (?:so |very |really |truly |terribly |deeply )?sorry",
        r"sorry",
        r"(?:i (?:must |have to )?|we )apologi[sz]e",
        r"(?:my |our )?(?:sincere |deepest )?apologies",
        r"(?:please )?forgive me",
        r"as an? (?:ai\b|artificial intelligence|(?:large )?language model|llm\b)",
        # es
        r"lo (?:siento|lamento)",
        r"(?:te |le |les )?pido (?:mis )?disculpas",
        r"mis disculpas",
        r"disculp(?:a|e|ame|eme)",
        r"perdon(?:a|e|ame)?",
        r"como (?:una? )?(?:ia|inteligencia artificial|modelo de lenguaje|asistente de ia)",
        # fr
        r"je suis (?:vraiment |tres |sincerement )?desolee?",
        r"desolee?",
        r"je m'excuse",
        r"excusez-moi",
        r"(?:toutes )?mes excuses",
        r"en tant qu'(?:ia|intelligence artificielle|assistant|modele)",
        r"en tant que (?:modele de langage|ia|assistant)",
        # de
        r"(?:es )?tut mir (?:sehr |wirklich |aufrichtig )?leid",
        r"entschuldig(?:ung|e|en sie)",
        r"ich entschuldige mich",
        r"verzeihung",
        r"(?:ich )?bedaure",
        r"als (?:ki|kunstliche intelligenz|sprachmodell|ki-modell|ki-assistent)",
        # pt
        r"(?:me )?desculp(?:e|a|a-me)",
        r"sinto muito",
        r"lamento",
        r"peco desculpas",
        r"perdao",
        r"como (?:uma? )?(?:ia|inteligencia artificial|modelo de linguagem|assistente de ia)",
        # it
        r"mi (?:dispiace|spiace)",
        r"spiacente",
        r"mi scuso",
        r"chiedo scusa",
        r"scus(?:a|ami|ate|i)",
        r"come (?:un'|una |un )?(?:ia|intelligenza artificiale|modello linguistico)",
        r"come (?:un )?modello di linguaggio",
        r"in quanto (?:ia|intelligenza artificiale|modello)",
        # nl
        r"het spijt me",
        r"(?:mijn )?excuses",
        r"als (?:ai|taalmodel|kunstmatige intelligentie)",
        # ru
        r"извините",
        r"простите",
        r"прошу прощения",
        r"мне (?:очень )?жаль",
        r"приношу (?:свои )?извинения",
        r"как (?:ии|искусственный интеллект|языковая модель)",
        # Apologies that open a refusal in more languages (without "unfortunately"
        # alone, which opens reports of failures as often as refusals).
        r"samahani",  # sw
        r"naomba radhi",
        r"xin loi",  # vi
        r"rat tiec",
        r"(?:mohon )?maaf",  # id, ms
        r"uzgunum",  # tr
        r"ozur dilerim",
        r"przepraszam",  # pl
        r"przykro mi",
        r"вибачте",  # uk
        r"мені шкода",
        r"перепрошую",
        r"omlouvam se",  # cs
        r"je mi lito",
        r"jag ar ledsen",  # sv
        r"ursakta",
        r"beklager",  # no, da
        r"(?:imi|ne) pare rau",  # ro
        r"sajnalom",  # hu
        r"elnezest",
        r"pahoittelen",  # fi
        r"anteeksi",
        r"paumanhin",  # tl
        r"ngiyaxolisa",  # zu
        r"λυπ[αά]μαι",  # el
        r"συγγν[ωώ]μη",
        r"מצטערת?",  # he
        r"סליחה",
        r"(?:عذرا|عذراً|آسفة?|أعتذر|اعتذر)",  # ar
        r"(?:متأسفم|متاسفم|ببخشید|پوزش می خواهم)",  # fa
        r"(?:क्षमा (?:करें|कीजिए)|माफ़? (?:करें|कीजिए)|मुझे (?:खेद|दुख) है)",  # hi
        r"দুঃখিত",  # bn
        r"மன்னிக்கவும்",  # ta
    )
    + _B
    + "|"
    # No word boundary in scripts written without spaces ("申し訳ございません", "죄송하지만").
    + _alt(
        # ja
        r"(?:大変|誠に|本当に)?(?:申し訳|すみません|すいません|ごめんなさい|恐れ入りますが)",
        r"(?:ai|人工知能|言語モデル)(?:として|なので|である私)",
        # zh
        r"(?:很|非常|十分|真的)?(?:抱歉|对不起|對不起|不好意思)",
        r"(?:作为|作為)(?:一个|一個|一名)?(?:ai|人工智能|人工智慧|语言模型|語言模型)",
        # ko
        r"(?:정말 |대단히 |너무 )?(?:죄송|미안)",
        r"(?:ai|인공지능|언어 모델)(?:로서|으로서)",
        # th
        r"(?:ขออภัย|ขอโทษ|เสียใจ)",
    )
    + ")"
)

# -- a first-person decline at the start of a clause -------------------------------------
_LEAD = (
    r"(?:(?:but|however|unfortunately|regrettably|sadly|so|therefore|honestly|still|then|"
    r"and|no|i am afraid|i regret that|pero|sin embargo|lamentablemente|"
    r"desafortunadamente|me temo que|mais|cependant|toutefois|malheureusement|helas|aber|"
    r"jedoch|leider|allerdings|bedauerlicherweise|doch|mas|porem|contudo|infelizmente|"
    r"lamentavelmente|ma|tuttavia|purtroppo|sfortunatamente|maar|helaas|echter|но|однако|"
    r"к сожалению|увы)\W+)*"
)
_EN_NEG = _alt(
    r"cannot",
    r"could not",
    r"will not",
    r"would not",
    r"should not",
    r"must not",
    r"am (?:not (?:able|going|allowed|permitted) to|unable to)",
    r"am unable",
    r"do not think i (?:can|should)",
    r"(?:do not|no longer) have the (?:ability|capacity) to",
    r"lack the ability to",
    r"am not capable of",
)
_EN_SELF = _alt(
    r"(?:must |have to |need to |will have to |am going to have to )?"
    r"(?:respectfully |politely )?(?:decline|refuse)",
    r"would (?:rather not|prefer not to)",
    r"am not (?:comfortable|in a position)",
    r"do not feel comfortable",
)
_EN_TASK = _alt(
    r"help",
    r"assist",
    r"comply",
    r"aid",
    r"do (?:that|this|it|so|what|as)",
    r"fulfil",
    r"provide",
    r"summari[sz]",
    r"create",
    r"write",
    r"continue",
    r"complete (?:this|that|your|the) (?:request|task)",
    r"generate",
    r"produce",
    r"engage",
    r"share",
    r"answer",
    r"respond",
    r"support",
    r"accommodate",
    r"participate",
    r"proceed",
    r"perform",
    r"carry out",
    r"give",
    r"offer",
    r"disclose",
    r"reveal",
    r"take (?:on|part)",
    r"honou?r",
    r"grant",
    r"go along",
    r"be of",
    r"facilitate",
    r"oblige",
    r"entertain",
    r"undertake",
    r"satisfy",
    r"fulfill",
    r"act on",
    r"(?:handle|process|accept|take on|work on) (?:this|that|your|such)",
    r"with (?:that|this|your|these|those|such)",
)
_CORE_TASK = _alt(
    rf"(?:help|assist)(?: you| with| on| in| here| further|{_END})",
    r"comply",
    r"fulfil",
    r"do (?:that|this|so)",
    r"provide (?:that|this|a summary|the summary|one)",
    r"summari[sz]e (?:this|that|the|it)",
    r"(?:continue|proceed) with (?:this|that)",
    r"complete (?:this|that|your) request",
    r"be of (?:help|assistance)",
    r"(?:answer|respond to) (?:that|this)",
    r"engage (?:in|with) (?:this|that)",
)
_ES_TASK = (
    r"(?:ayudar|asistir|cumplir|proporcionar|resumir|hacer(?:lo| eso| esto| lo que)|realizar|"
    r"continuar|generar|crear|escribir|atender|satisfacer|colaborar|procesar|completar|"
    r"ofrecer|responder|participar|brindar|dar|acceder a (?:tu|su|esa|esta)|llevar a cabo)"
)
_FR_TASK = (
    r"(?:aider|vous aider|t'aider|repondre|faire (?:cela|ca|ceci)|fournir|resumer|continuer|"
    r"accomplir|traiter|satisfaire|generer|creer|rediger|ecrire|participer|donner|"
    r"acceder a|accepter|effectuer|realiser|proceder|assister|apporter|produire)"
)
_DE_TASK = (
    r"(?:helfen|behilflich|erfullen|nachkommen|zusammenfassen|bearbeiten|erstellen|tun|"
    r"machen|ausfuhren|liefern|beantworten|unterstutzen|fortsetzen|durchfuhren|entsprechen|"
    r"geben|bereitstellen|anbieten|schreiben|verfassen|erledigen|weiterhelfen|"
    r"zusammenfassung|hilfe|unterstutzung|antwort)"
)
_PT_TASK = (
    r"(?:ajudar|ajuda-l|auxiliar|atender|cumprir|fornecer|resumir|fazer (?:isso|isto|o que)|faze-l|"
    r"realizar|continuar|gerar|criar|escrever|processar|completar|oferecer|responder|"
    r"colaborar|participar|prosseguir|dar|prestar|assistir|executar)"
)
_IT_TASK = (
    r"(?:aiutar|assister|fornire|far(?:lo|la|e questo|e cio|e quello)|soddisfare|riassumere|"
    r"continuare|"
    r"generare|creare|scrivere|completare|esaudire|rispondere|elaborare|procedere|eseguire|"
    r"dare|offrire|partecipare|accontentar|svolgere|produrre|redigere)"
)
_NL_TASK = (
    r"(?:helpen|voldoen|doen|samenvatten|assisteren|uitvoeren|leveren|beantwoorden|geven|"
    r"bieden|maken|schrijven)"
)
_RU_TASK = (
    r"(?:помо|выполн|предостав|сдела|состав|продолж|ответ|обобщ|созда|написа|обработ|"
    r"удовлетвор|резюмир|подготов|дать|участв|оказа)"
)
_DECLINES = re.compile(
    _LEAD
    + _alt(
        # en: "I can't help with that", "I'm unable to comply", "I won't.", "I must decline"
        rf"i (?:(?:really|just|simply|honestly|unfortunately|currently|still|therefore|"
        rf"definitely|certainly|politely) )?(?:{_EN_SELF}{_B}|{_EN_NEG} {_W}{_EN_TASK}|"
        rf"{_EN_NEG}{_END})",
        rf"(?:unable to|cannot|not able to) {_CORE_TASK}",
        r"(?:that|this|it) is not something i (?:can|am able to|will)",
        # es: "No puedo ayudarte con eso", "Me niego a…"
        rf"(?:yo )?no (?:te |le |les |os )?(?:puedo|podre|podria|voy a|estoy en condiciones de|"
        rf"soy capaz de|me es posible|me siento comod[oa])(?: {_W}{_ES_TASK}|{_END})",
        r"me niego",
        r"(?:debo|tengo que) (?:declinar|rechazar|negarme)",
        # fr: "Je ne peux pas vous aider", "Il m'est impossible de…"
        rf"je (?:ne |n')?{_W}pas (?:{_W}{_FR_TASK}|pouvoir{_END})",
        rf"je (?:ne |n')?(?:peux|pourrai|pourrais|vais) pas{_END}",
        r"je (?:refuse|dois (?:refuser|decliner))",
        r"il m'est impossible",
        r"je crains de ne (?:pas )?pouvoir",
        # de: "Ich kann Ihnen dabei leider nicht helfen", "Das kann ich nicht."
        rf"(?:ich (?:kann|konnte|darf|werde|mochte|will)|(?:\w+ )?(?:kann|konnte|darf|werde) ich)"
        rf"(?: [\w-]+){{0,5}}? (?:nicht|keine|keinen|kein)(?: [\w-]+){{0,3}}? {_DE_TASK}",
        r"(?:das|dies|dabei|hierbei|damit|hiermit) (?:kann|konnte|darf|werde) ich "
        rf"(?:\w+ )?nicht{_END}",
        r"ich (?:bin|sehe mich) (?:\w+ )?nicht in der lage",
        r"ich (?:muss|mochte) (?:[\w-]+ ){0,4}?ablehnen",
        # pt: "Não posso ajudar com isso", "Recuso-me a…"
        rf"(?:eu )?nao (?:lhe |te |o |a )?(?:posso|consigo|sou capaz de|vou|poderei|poderia|"
        rf"estou em condicoes de|tenho como|me e possivel)(?: {_W}{_PT_TASK}|{_END})",
        r"(?:me recuso|recuso-me|(?:devo|tenho que) recusar)",
        # it: "Non posso aiutarti", "Mi rifiuto di…"
        rf"(?:io )?non (?:ti |le |vi )?(?:posso|potro|potrei|sono in grado di|riesco a|"
        rf"mi e possibile|sono autorizzat[oa] a)(?: {_W}{_IT_TASK}|{_END})",
        r"(?:mi rifiuto|devo (?:rifiutare|declinare))",
        # nl: "Ik kan je daar niet mee helpen"
        rf"(?:ik (?:kan|mag|zal|wil)|(?:\w+ )?(?:kan|mag|zal) ik)(?: \w+){{0,4}}? niet"
        rf"(?: \w+){{0,2}}? {_NL_TASK}",
        # ru: "Я не могу помочь с этим", "Я вынужден отказать"
        rf"(?:я )?не (?:могу|смогу|буду|в состоянии|стану)(?: {_W}{_RU_TASK}|{_END})",
        r"я (?:вынужден[аы]? )?отказ(?:ать|ываюсь)",
    )
)

# -- CJK: no spaces to anchor on, so a decline anywhere in the opening (quotes removed) ----
_CJK_DECLINES = re.compile(
    _alt(
        # ja: "お手伝いできません", "ご要望にはお応えできかねます", "お断りします"
        r"(?:お手伝い|手伝|ご協力|お応え|お答え|ご依頼|ご要望|ご期待|ご希望|要約|まとめ)"
        r"[^。！？]{0,12}?(?:できません|出来ません|いたしかねます|致しかねます|しかねます|"
        r"できかねます|することはできません)",
        r"お断り(?:します|いたします|させていただきます|申し上げます)",
        r"応じ(?:られません|ることはできません|かねます)",
        # zh: "我无法帮助你", "我不能提供", "恕难从命"
        r"(?:我|本人|本助手|我们|我們)(?:真的|实在|實在|恐怕|目前|暂时|暫時|并|並)?"
        r"(?:无法|無法|不能够|不能夠|不能|没办法|沒辦法|没有办法|沒有辦法|不可以|不便|难以|難以)"
        r"(?:为你|為你|为您|為您|替你|替您|给你|給你|给您|給您)?"
        r"(?:帮|幫|协助|協助|提供|完成|满足|滿足|处理|處理|总结|總結|概括|回答|回应|回應|生成|"
        r"继续|繼續|执行|執行|参与|參與|遵从|遵從|照做|做到|这样做|這樣做|这么做|這麼做|答应|"
        r"答應|支持|配合|撰写|撰寫|编写|編寫)",
        r"(?:我|本人)(?:必须|必須|只能|不得不)?(?:拒绝|拒絕)",
        r"恕(?:难|難)从命|恕(?:难|難)從命|恕我(?:无法|無法|不能)",
        r"(?:无法|無法|不能)(?:满足|滿足|完成|处理|處理|提供|协助|協助)(?:您|你)的(?:请求|請求|要求)",
        # ko: "도와드릴 수 없습니다", "요약해 드릴 수 없습니다"
        r"(?:도와|도움을 드릴|요약|응할|협조|답변(?:을)? 드릴)[^.!?]{0,10}?"
        r"(?:수 없습니다|수 없어요|수가 없습니다|수 없음)",
    )
)

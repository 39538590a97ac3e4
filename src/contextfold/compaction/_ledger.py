"""The fact ledger: what a summary must keep, found without a model and checked.

A summary is written by a model, and models drop details. Before a summary is used,
:func:`build_ledger` lists the facts of the part it replaces, with the rules of
:mod:`._rules` (no model involved):

* **instructions**: the user's sentences that instruct or correct ("use Decimal for
  every amount", "Scratch that, ship it home");
* **decisions**: what the agent proposed or asked when the user's answer is a short
  yes ("yes, do that", "ja gör så", "好的"), and the agent's first words after the user
  corrected it or when it takes up what the user said ("Understood: ...", "Tamam, ...",
  or in any language a short reply right after the user's words that says again a value
  they gave); a question the agent asked with the user's short answer to it;
* **next steps**: the user's sentences that name what comes next or after a condition,
  the agent's newest commitment, and work the agent announced that the user welcomed
  (pending);
* **files and records**: every path a tool created, changed or deleted, with the
  outcome of the tests run since the change; every record a tool set a status on; test
  classes and cases a runner reports; schema migrations a tool applied; flags and
  settings a diff or a tool's JSON switches; a thing a tool's short line gives a new
  state; ``git status``'s uncommitted changes; and what the agent says it did to a
  thing it names, in its own words and any language (below what the tools say);
* **identifiers**: exact strings (ids, hashes, versions, URLs, error codes, names,
  figures) from the user's words, then the agent's, then tool outputs (their first
  line, error lines, and the id-like fields of JSON).

Then :func:`check` reads each fact against what the model sees after the compaction
(the summary, the user's words kept verbatim, the messages kept as they are): an
identifier must appear exactly; a file or record with its state words on one line; an
instruction or next step word for word (the user's words are not the model's to
paraphrase). Facts the summary left out are *restored*: rendered by code in a
``<ledger>`` section at the end of the summary, within ``fact_budget`` tokens, most
important first (:data:`TIERS`). The next compaction reads that section back, and
re-reads the facts the previous summary itself kept, so a fact survives any number of
compactions, until it ages out:

* a file or record's newer state replaces its older one (a later line wins);
* a deleted file keeps only "deleted" (one written again is not deleted);
* a state the ledger corrected wins over what the previous summary said;
* only the newest :data:`MAX_INSTRUCTIONS` instructions and :data:`MAX_NEXT_STEPS`
  next steps are carried;
* past the budget, the least important facts go first, and of equal ones the newest
  (once carried, the agent's and the tools' identifiers rank together, oldest first).

:class:`FactCoverage` counts found, kept, restored and dropped; every compaction event
carries it.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

from contextfold._masking import without_recallable
from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction._coverage import FactCoverage
from contextfold.compaction._rules import (
    ERROR_LINE,
    IDENTIFIER,
    PATH,
    SENTENCE,
    Entry,
    entries_from_messages,
    extract,
    line_ends,
    patched_files,
    shorten,
    tool_action,
)
from contextfold.compaction._weekdays import WEEKDAYS_LATIN, WEEKDAYS_OTHER
from contextfold.messages import Message
from contextfold.tokens import TokenCounter

__all__ = [
    "MAX_INSTRUCTIONS",
    "MAX_NEXT_STEPS",
    "MAX_REQUESTS",
    "TIERS",
    "Fact",
    "FactCoverage",
    "Ledger",
    "build_ledger",
    "split_ledger",
]

FactKind: TypeAlias = Literal["instruction", "next", "file", "record", "id", "decision", "pending"]

MAX_INSTRUCTIONS: Final = 12
MAX_NEXT_STEPS: Final = 5
MAX_DECISIONS: Final = 12
"""Decisions a previous summary stated that are carried (the newest)."""
MAX_TAKE_UPS: Final = 6
"""Take-ups and questions answered (decisions written "... \u2192 ...") that are kept."""
_TAKEN: Final = " \u2192 "
MAX_PENDING: Final = 5
"""Pending work a previous summary stated that is carried (the newest)."""
MAX_REQUESTS: Final = 6
"""Of the :data:`MAX_INSTRUCTIONS`, at most this many plain requests (no change of mind)."""
MAX_FACT_CHARS: Final = 300
_CONTEXT_CHARS: Final = 100

TIERS: Final[dict[str, int]] = {
    "instruction": 0,  # the user's instructions and corrections
    "user next": 0,  # what the user said comes next
    "changed": 1,  # files created, changed, deleted; records given a status
    "decision": 1,  # decisions and pending work a previous summary stated
    "user id": 2,  # identifiers the user wrote
    "agent next": 3,  # the agent's newest commitment
    "said": 5,  # what the agent says it did to a named thing, in its own words
    "agent id": 3,  # identifiers in the agent's text and tool arguments
    "summary id": 4,  # identifiers a previous summary kept
    "tool id": 4,  # identifiers in tool outputs
    "read": 5,  # files only read
}

_ID_SOURCES: Final = {
    TIERS["user id"]: "user",
    TIERS["agent id"]: "agent",
    TIERS["tool id"]: "tool",
}
_OPEN: Final = "<ledger>"
_CLOSE: Final = "</ledger>"
_HEADER: Final = (
    "Facts from the compacted part that the summary above leaves out, found and kept by "
    "contextfold (oldest first; where two disagree, the later line wins):"
)
_LINE = re.compile(
    r"^- (?:(?P<kind>file|record) `(?P<key>[^`\n]+)`: (?P<state>.+)"
    r"|id `(?P<id>[^`\n]+)`(?: \((?P<source>user|agent|tool)\))?(?:: (?P<context>.*))?"
    r"|(?P<said>instruction|next step) \((?P<who>user|agent)\): (?P<text>.+)"
    r"|(?P<noted>decision|pending): (?P<note>.+))$"
)
# Days, for the rules that put work on one: "tomorrow" in the languages the rules read,
# and the weekdays of the European ones (each rule adds the words only it reads).
_TOMORROW_WORDS = (
    r"tomorrow|morgen|mañana|demain|domani|amanhã|jutro|zítra|huomenna|holnap|"
    # more languages, as one word: South Slavic, Slovak, Slovenian, Catalan, Galician,
    # Basque, Lithuanian, Malay, Swahili, Albanian, Welsh, Irish, Afrikaans, Hausa, Zulu,
    # Uzbek, Belarusian, Kazakh, Mongolian, Icelandic ("í fyrramálið")
    r"sutra|сутра|утре|zajtra|jutri|demà|mañá|bihar|rytoj|esok|kesho|nesër|yfory|amárach|"
    r"môre|gobe|kusasa|ertaga|заўтра|ертең|маргааш|fyrramál\w*|á morgun"
)
_TOMORROW = _TOMORROW_WORDS + r"|tonight|imorgon|αύριο"
# "Tomorrow" in scripts whose letters a word boundary does not always find (Georgian,
# Armenian, Indic, Arabic, Hebrew, Thai, Khmer, Burmese): matched anywhere
_TOMORROW_SCRIPTS = r"ხვალ|վաղը|நாளை|రేపు|उद्या|भोलि|আগামীকাল|فردا|غدا|מחר|พรุ่งนี้|ថ្ងៃស្អែក|မနက်ဖြန်"
_WEEKDAYS = (
    r"monday|tuesday|wednesday|thursday|friday|montag|dienstag|mittwoch|donnerstag|"
    r"freitag|lunes|martes|miércoles|jueves|viernes|lundi|mardi|mercredi|jeudi|vendredi|"
    r"lunedì|martedì|mercoledì|giovedì|venerdì|segunda|terça|quarta|quinta|sexta|"
    r"poniedziałek|wtorek|środę|czwartek|piątek|maandag|dinsdag|woensdag|donderdag|"
    r"vrijdag|måndag|tisdag|onsdag|torsdag|fredag|pondělí"
)
# What comes next: named as such, or work the user puts after a condition ("When CI
# is green, ...", "Sobald ...", "Cuando ..."), in a few languages.
_NEXT = re.compile(
    r"\b(next step|next,|^next\b|^then\b|, once\b|after (?:that|this)|as soon as|"
    r"afterwards|todo|don'?t start|before (?:you|we) (?:start|move|begin)|"
    r"nächster schritt|danach|als nächstes|siguiente paso|después|luego|prochaine étape|"
    r"ensuite|prossimo passo|poi|dopo|próximo passo|depois|volgende stap|daarna)\b"
    r"|(?:^|[:;]\s*)(once|when(?:ever)?|after|as soon as|if|first|sobald|wenn|nachdem|"
    r"cuando|una vez|en cuanto|quand|dès que|lorsque|une fois|quando|appena|non appena|"
    r"assim que|zodra|als|wanneer|jeśli|jeżeli|gdy|kiedy|om|när|hvis|når|pokud|jestli|si|se|"
    r"až|jos|kun|ha(?!\s*[,!.…])|αν|όταν|μόλις)\b"
    # work put on a day: "Tomorrow, ...", "By Friday ...", "Lundi, il faudra ...", "Na jutro: ..."
    r"|^(?:(?:by|on|before|until|na|w|we|en|le|el|am|bis|entro|até|para|op|voor)\s+(?=\w+\b)"
    r"|(?=\w+\s*[,:])|(?=(?:" + _TOMORROW + r")\b))"
    r"(?:" + _TOMORROW + "|" + _WEEKDAYS + r"|środa|eod|end of (?:the )?day)\b"
    # and in Chinese, Japanese, Korean: tomorrow, "by (a day)", "next is"; a reminder
    r"|明日|までに|明天|之前|내일|까지|다음은|다음으로|"
    + _TOMORROW_SCRIPTS
    + r"|\b(?:remind me|don'?t forget|do not forget|remember to|"
    # the same in more languages
    r"no olvides|recuérdame|n'oublie pas|rappelle-moi|vergiss nicht|erinnere mich|"
    r"non dimenticare|ricordami|não esqueça|não te esqueças|lembra-me|vergeet niet|"
    r"herinner me|nie zapomnij|przypomnij mi|nezapomeň|připomeň mi|nezabudni|pripomeň mi|"
    r"glöm inte|påminn mig|glem ikke|husk|minn meg|mind mig|älä unohda|muistuta|unutma|"
    r"hatırlat|не забудь|напомни|нагадай|ne felejtsd|emlékeztess|jangan lupa|ingatkan|"
    r"đừng quên|nhắc tôi|ne zaboravi|podsjeti me|подсети ме|ne pozabi|opomni me|"
    r"nepamiršk|primink|neaizmirsti|atgādini|ära unusta|tuleta meelde|ez ahaztu|"
    r"gogoratu|usisahau|nikumbushe|huwag kalimutan|paalalahanan|ne oblidis|recorda'm)\b"
    r"|忘れずに|忘れないで|別忘了|别忘了|提醒我|잊지 마|ভুলো না|মনে করিয়ে|मत भूलना|याद दिला"
    # "tomorrow" anywhere in the user's sentence: work put on it ("Saya sendiri akan
    # segerakkan feed itu esok pagi, awak cuma sediakan tema.")
     + r"|\b(?:" + _TOMORROW_WORDS + r")\b"
    # "when / once / as soon as" opening a clause (after a comma and a short "and" too:
    # "Ā, un kad reindex beigsies, salīdzini ...") in languages whose word for it is no
    # common word of another: Slovenian, Latvian, the Slavic Cyrillic ones, Albanian,
    # Romanian, Lithuanian, Estonian, Irish, Galician, Croatian and Bosnian
    r"|(?:^|[:;,]\s*(?:\w{1,3}\s+)?)(?:takoj ko|ko bo|tiklīdz|kad|kada|čim|кога|штом|"
    r"откако|когато|щом|когда|как только|коли|як тільки|kur|sapo|pasi të|imediat ce|"
    r"după ce|kai tik|niipea kui|nuair a|cando|en canto|unha vez)\b"
    # "later" / "afterwards" / "remember" / "so that we don't forget" in more languages
    r"|\b(?:pozneje|kasneje|vēlāk|pēc tam|потоа|подоцна|pas kësaj|më vonë|sonra|"
    r"позже|потом|пізніше|mai târziu|da ne pozabiva|da ne pozabimo|ne pozabiva|"
    r"не заборавај|не заборави|не забравяй|mos harro|mos e harro|unutmayaq|unutmayın|"
    r"не забывай|не забудьте|nepamirškite|neaizmirstiet|ná déan dearmad)\b"
    # Indic clause-final "after / once": Marathi, Hindi, Nepali
    r"|लक्षात ठेव|याद रखना|झाल्यावर|गेल्यावर|लागला की|झाला की|के बाद|पछि",
    re.IGNORECASE,
)
# A deadline anywhere in the user's sentence: a "by" word, then a day within three
# words ("must go out at the latest on Tuesday", "nejpozději v úterý", "bis spätestens
# Freitag", "paling lambat hari Jumat").
_DEADLINE = re.compile(
    r"\b(?:by|no later than|at the latest|spätestens|bis|uiterlijk|nejpozději|najpóźniej|"
    r"au plus tard|a más tardar|al más tardar|entro|até|senast|viimeistään|legkésőbb|"
    r"paling lambat|sebelum|en geç|muộn nhất|не позднее|до)\b(?:\W+\w+){0,3}?\W+"
    r"(?:" + _TOMORROW_WORDS + "|" + _WEEKDAYS + r"|úterý|středa|středu|čtvrtek|pátek|besok|"
    r"senin|selasa|rabu|kamis|jumat|yarın|pazartesi|salı|çarşamba|perşembe|cuma|"
    r"maanantai|tiistai|keskiviikko|torstai|perjantai|hétfő|kedd|szerda|csütörtök|péntek|"
    r"завтра|понедельник|вторник|среду|четверг|пятницу)\b"
    # "by / until" and a date: "do 25. septembra", "līdz 3. martam", "deri më 15 shtator",
    # "до 8 септември", "by 12/05"; a deadline word and a date: "डेडलाइन 8 सप्टेंबर"
    r"|(?:\b(?:by|until|do|deri më|deri|līdz|kadar|qədər|до|rok|deadline|termiņš|afati?|"
    r"срок|son tarix|prazo|échéance|frist)\b|डेडलाइन|अंतिम तारीख)"
    r"(?:\W+[^\W\d]+){0,2}?\W+(?:\d{1,2}(?:\.|st|nd|rd|th)?\s*[^\s\d.,;:!?]{3,}|"
    r"\d{1,2}[./]\d{1,2}\b|\d{4}-\d{2}-\d{2})",
    re.IGNORECASE,
)


def _trie_pattern(words: Iterable[str]) -> str:
    """A pattern matching any of ``words``, written as a trie ("d(?:ienstag|onnerstag)"):
    an alternation of 1,800 names was tried name by name at every character of a text
    (70 ms on 15,000 characters); the trie tries one branch per first character. Where
    one name begins another, the longer is tried first."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def written(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + written(node[char]) for char in sorted(node) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" not in node:
            return body
        return f"(?:{body})?" if len(branches) == 1 else body + "?"

    return written(root)


# A weekday named anywhere in the user's sentence, in any language CLDR knows ("roimh Dé
# Céadaoin", "Пүрэв гарагт", "ថ្ងៃសុក្រនេះ"): work put on that day. A name of Latin
# letters stands as words of its own ("dydd sul", not "dydd sulwen"); one of another
# script may be part of a word. The Latin names are looked up by their first word, not
# tried at every character: one case-blind pattern of all 1,842 names took 6-8 ms on a
# sentence of 5,000 characters (0.1-0.4 ms now), up to a fifth of the ledger's time on
# long words. The others, all written with letters beyond ASCII, are sought only in a
# text that has such letters.
_LETTER_RUN = re.compile(r"[^\W\d_]+")
# Letters a case-blind pattern takes for one another (Python's IGNORECASE: ı and i, ſ
# and s, ς and σ, ϐ and β, the micro sign and μ...), each written as the first
_SAME_LETTER: Final = str.maketrans(
    {
        "ı": "i",
        "ſ": "s",
        "µ": "μ",
        "\u0345": "ι",
        "\u1fbe": "ι",
        "\u1fd3": "\u0390",
        "\u1fe3": "\u03b0",
        "ϐ": "β",
        "ϵ": "ε",
        "ϑ": "θ",
        "ϰ": "κ",
        "ϖ": "π",
        "ϱ": "ρ",
        "ς": "σ",
        "ϕ": "φ",
        "\u1e9b": "\u1e61",
        "\ufb05": "\ufb06",
    }
)


def _caseless(text: str) -> str:
    """``text`` in lower case as a case-blind pattern reads it: ``İ`` is ``i`` (not
    ``lower()``'s ``i`` and a combining dot, which is no letter and splits a word),
    and letters it takes for one another are one."""
    return text.replace("İ", "i").lower().replace("i\u0307", "i").translate(_SAME_LETTER)


def _by_first_word(names: Iterable[str]) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for name in map(_caseless, names):
        if (first := _LETTER_RUN.match(name)) is not None:
            table[first.group()] = (*table.get(first.group(), ()), name)
    return table


_WEEKDAYS_BY_WORD: Final = _by_first_word(WEEKDAYS_LATIN)
_OTHER_WEEKDAY = re.compile(
    r"(?<![^\W\d_])(?:"
    + _trie_pattern(_caseless(n) for n in WEEKDAYS_LATIN if not _LETTER_RUN.match(n))
    + r")(?![^\W\d_])|(?:"
    + _trie_pattern(map(_caseless, WEEKDAYS_OTHER))
    + ")"
)


def _names_weekday(text: str) -> bool:
    """Whether ``text`` names a weekday (above)."""
    text = _caseless(unicodedata.normalize("NFC", text))
    for word in _LETTER_RUN.finditer(text):
        for name in _WEEKDAYS_BY_WORD.get(word.group(), ()):
            end = word.start() + len(name)
            if text.startswith(name, word.start()) and not _LETTER_RUN.match(text, end):
                return True
    return not text.isascii() and _OTHER_WEEKDAY.search(text) is not None


# Instructions the English rules of ._rules miss: a sentence opening with a request, in
# English, German, Spanish, French, Italian, Portuguese and Dutch (a change of mind is
# one too: _instructs also asks _CHANGE and _CHANGE_MORE, below).
_INSTRUCTS = re.compile(
    r"^(let'?s not|let'?s|rather|from now on|make (?:it|sure)|switch|go with|stick with|stop|"
    r"skip|bitte|lieber|kein|verwende|nimm|por favor|usa|en (?:vez|lugar)|"
    r"corrección|n'utilise|utilise|meglio|melhor não|olvídalo|déjalo|laisse tomber|"
    r"lass (?:das|es)|toch niet|liever|niet|nee|na verdade)\b",
    re.IGNORECASE,
)
_AGENT_NEXT = re.compile(
    r"\b(I will|I'll|I am going to|next,? I|then I)\b"
    # the first person's future: Slovenian, Macedonian, Bulgarian, Serbo-Croatian,
    # Albanian, Azerbaijani, Latvian ("pārbaudīšu"), Marathi ("बघेन")
    r"|\b(?:bom|bova|bomo|ќе|ще|ću|ćemo|do të|do ta|do i)\b"
    r"|\b\w+(?:acağam|əcəyəm|acağıq|əcəyik|āšu|īšu|ēšu)\b|(?<!\w)\w+ेन(?=[\s.,!।]|$)"
    # or work the agent puts on a coming day, in any person ("die baue ich morgen früh
    # ein", "Pošlu ho zítra", "saya siapkan besok pagi", "明天发给你")
    r"|\b(" + _TOMORROW + r"|i morgen|besok|yarın|ngày mai|завтра)\b"
    r"|明日|明天|내일|" + _TOMORROW_SCRIPTS,
    re.IGNORECASE,
)
_STATE_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "created": ("created", "new file", "added", "written", "wrote"),
    "modified": ("modified", "edited", "changed", "updated", "patched"),
    "deleted": ("deleted", "removed"),
    "passed": ("pass",),
    "failed": ("fail",),
}
_ID_KEYS = re.compile(
    r"(^|_)(id|ids|sha|hash|commit|ref|tag|image|version|build|guid|code|error|url|uri|name|"
    r"key|number|no|nr|digest|uid|uuid|reference|referencia|référence|riferimento|numero|"
    r"número|nummer|receipt|recibo|ricevuta|reçu|quittung|beleg|kvitto|alias|aliases|md5|sha1|sha256|checksum|fingerprint|kennzeichen|"
    r"aktenzeichen|location)(_|$)",
    re.IGNORECASE,
)


def _id_key(key: object) -> bool:
    """Whether a field named ``key`` holds an id (``job_id``, ``databaseId``,
    ``Message-ID``, ``nrRecibo``...)."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(key))
    return bool(_ID_KEYS.search(re.sub(r"[-.\s]+", "_", snake)))


# A figure with its unit or currency, in either notation (1,234.5 or 1.234,5).
_FIGURE = re.compile(
    r"(?<![\w.,])(?:[$€£¥]\s?\d[\d,.]*\d|\d[\d,.]*\s?(?:%|ms|µs|ns|s|sec|min|h|KB|MB|GB|TB|"
    r"KiB|MiB|GiB|TiB|kB|kg|g|km|m|cm|mm|USD|EUR|GBP|CHF|JPY|req/s|rps|qps|€|\$|£))(?![\w/])"
)
# Ids the rules of ._rules do not know: UUIDs, IBANs, long numbers, prefixed tokens.
_MORE_IDS = re.compile(
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b"
    r"|(?<![\w.,])\d{8,}(?![\w]|[.,]\d)"
    r"|\b[A-Za-z]{2,}_(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{8,}\b"
    # an address or a register value (0x08018168), a content digest (sha256:...), a hash
    # longer than a git id, a lot or batch number (KB1037395), a slash-joined number
    # (RK/2024/0264)
    r"|\b0x[0-9A-Fa-f]{4,16}\b|\b(?:sha256|sha512|sha1|md5):[0-9a-f]{32,128}\b"
    r"|\b[0-9a-f]{41,128}\b|\b[A-Z]{1,4}\d{5,}\b|\b[A-Z]{1,5}/\d{2,4}/\d{1,6}\b"
    # a case or docket number (R.G. 2733/2023, expediente 1234/2024)
    r"|(?<![\w./-])\d{3,6}/(?:19|20)\d{2}(?![\w/])"
    # a number written in groups (tax ids such as 07.080.257/0001-61, receipts such as
    # 1.2.8711875067460316117): ten digits or more, so no date or version
    r"|(?<![\w./-])(?=(?:[./-]?\d){10})\d+(?:[./-]\d+){2,}(?![\w]|[./-]\d)"
    # (after the grouped number, which may be longer at the same place) an id of three
    # or more dash-joined parts (FOL-202411-0ZD7O, INC-2024-0042)
    r"|\b[A-Z0-9]{2,}(?:-[A-Z0-9]{2,}){2,}\b"
    # a MAC address or a key's fingerprint (3C:A6:2F:0B:91:7E, a4-19-0e-...)
    r"|(?<![\w:-])[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4,30}(?![\w:-])"
)


# A long random token of mixed case and digits (a snapshot's uuid, a consumer tag:
# Qm7Lx2VbT9aKcW4pZr8Ne1): an id on a tool's line that talks of no credential (in
# people's words such a token is as likely a password).
def _mixed_case(least: int, most: int | None = None) -> str:
    """A pattern for a token of letters and digits, ``least`` to ``most`` characters
    long, with a digit, a small and a capital letter among them."""
    ahead = "*" if most is None else f"{{0,{most - 1}}}"
    return (
        f"(?=[A-Za-z0-9]{ahead}[0-9])(?=[A-Za-z0-9]{ahead}[a-z])(?=[A-Za-z0-9]{ahead}[A-Z])"
        f"[A-Za-z0-9]{{{least},{'' if most is None else most}}}"
    )


_RANDOM_TOKEN = _mixed_case(16, 64)
_RANDOM_ID = re.compile(r"\b" + _RANDOM_TOKEN + r"\b")
# The run of hyphen- or dot-joined parts an id found inside it belongs to: it is the
# id whole ("worker-00417-qx2", not "worker-00417").
_JOINED_BEFORE = re.compile(r"(?:[A-Za-z0-9]{1,40}[-.]){1,6}\Z")
_JOINED_AFTER = re.compile(r"(?:[-.][A-Za-z0-9]{1,40}){1,6}")
_JOINED_REACH: Final = 120
# A value after its label on a line of a tool's output: "guid: 5f1c...", "BuildID=1405",
# "<nrRecibo>1.2.87</nrRecibo>", "Message-ID: <a.b@c>"; the label decides (see _id_key).
_LABELLED = re.compile(
    r"(?:^|[\s{,;(\[])(?P<key>[A-Za-z][\w.-]{0,40})\s*[:=]\s*[\"']?<?(?P<value>[^\s,;{}()\[\]<>\"']{3,120})"
    r"|<(?P<tag>[A-Za-z][\w.-]{0,40})>\s*(?P<text>[^<>\s]{3,120})\s*</(?P=tag)>"
)
_LABELLED_PER_OUTPUT: Final = 12
# A line telling where the tool put what it made: "saving checkpoint to s3://...",
# "uploaded to gs://...", "wrote report.pdf".
_PRODUCED = re.compile(
    r"\b(?:sav(?:e|ed|ing)|wr(?:ote|itten|iting)|upload(?:ed|ing)?|push(?:ed|ing)|"
    r"export(?:ed|ing)|stor(?:ed|ing)|publish(?:ed|ing)|creat(?:ed|ing)|generat(?:ed|ing)|"
    r"copied|moved)\b[^\n]*?\b(?:to|as|at|into|in)\s+[\"'<]?(?P<target>[a-z][\w+.-]*://[^\s\"'<>]+)",
    re.IGNORECASE,
)
# A state of a record that matters when it turns up in a row of a listing: it failed,
# was refused or cancelled (said in English, German, Spanish, French, Italian,
# Portuguese or Dutch). Routine states in a listing are bulk.
_EXCEPTIONAL = re.compile(
    r"(?<![\w-])(rejected|refused|declined|cancel+ed\+?|failed|error|aborted|timed? ?out|"
    r"abgelehnt|storniert|abgebrochen|fehlgeschlagen|rechazad[oa]|cancelad[oa]|fallid[oa]|"
    r"rejet[ée]e?|refus[ée]e?|annul[ée]e?|[ée]chou[ée]e?|rifiutat[oa]|respint[oa]|"
    r"annullat[oa]|fallit[oa]|rejeitad[oa]|recusad[oa]|falhou|afgewezen|geannuleerd|"
    r"mislukt|hylätty|hylätään|epäonnistui|απορρίφθηκε|απέτυχε|ακυρώθηκε|elutasítva|"
    r"elutasított|sikertelen|hibás|odrzucon[oya]|anulowan[oya]|nieudan[oya]|zamítnut[oa]?|"
    r"avvisad|misslyckades)(?![\w-])",
    re.IGNORECASE,
)
# The agent says where a record went: "HOLLOW-3559 moved to Ready for QA", "REQ-7 is
# now approved", "marked INC-2 as resolved".
_MOVED = re.compile(
    r"\b(?:moved to|set to|is now|now in|transitioned to|marked as|changed to|resolved as|"
    r"closed as|went to)\s+(?P<state>[^.;:,()\n]{2,40})",
    re.IGNORECASE,
)
# The header Codex puts on a command's output (captured from Codex CLI): no one's facts.
_EXEC_HEADER = re.compile(
    r"\A\s*(?:Chunk ID: \S+\n)?(?:(?:Exit code: -?\d+|Process exited with code -?\d+|"
    r"Wall time: [^\n]*|Original token count: \d+)\n){1,4}Output:\n?"
)
# A read that searches (a grep, a pattern): what it returns are findings, not bulk.
_SEARCHES = re.compile(r'"(?:grep|pattern|regex|query|search|match)"\s*:', re.IGNORECASE)
# Words that open a sentence without saying anything ("Hmm no, ...", "ok scratch that"),
# stripped before the sentence is read as an instruction or a change of mind.
_OPENER = re.compile(
    r"^(?:(?:hmm+|hm+|ok(?:ay|é|e|ej|ey|i)?|oh|ah|uh|um+|er+m?|well|so|right|alright|sorry|hey|"
    r"ja|jo|nee|nou|tja|also|na|bueno|vale|pues|bon|alors|eh|allora|ecco|beh|boh|bom|"
    r"olha|então|ehm|opa|eita)\b[\s,.!:;…—–-]*)+",
    re.IGNORECASE,
)
_STATUS_KEYS = re.compile(
    r"^(status|state|estado|estatus|statut|stato|zustand|situação|situacao|tila|állapot|"
    r"κατάσταση|stan|stav|tilstand|статус|durum|状态|状態|상태)$",
    re.IGNORECASE,
)
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"'<>()\[\]`]+")
# A host name, whole: three labels or more ("func-saunarent-9a5509.azurewebsites.net",
# "opcua30.leit.kw-mar.local"), not a file, a version or a fragment of it
_HOST = re.compile(
    r"(?<![\w.@/-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){2,}[A-Za-z]{2,24}"
    r"(?![\w@/-]|\.\w)"
)
_ERROR_LINES: Final = 8
_LATER_ERRORS: Final = 4  # a log's error lines read after its first error's
# A log's own word for an error: "[...: ERROR/ForkPoolWorker-1]", "level=error",
# '"@l": "Error"' (Serilog), '"severity": "ERROR"'
_LOG_ERROR = re.compile(
    r"(?<![=\w])(?:ERROR|FATAL|CRITICAL|SEVERE|PANIC)\b(?!=)"
    r"|(?i:\blevel=(?:error|fatal|crit)\b|\"(?:level|severity|@l|lvl)\"\s*:\s*\"(?:error|fatal|critical)\")"
)


_IDS_PER_LINE: Final = 12
_STATUS_SAID = re.compile(
    r"\b(status|state|estado|estatus|statut|stato|zustand|situação)\b\s*:?\s*"
    r"([^\W\d_][^.,;()\n]{1,39})",
    re.IGNORECASE,
)
_EDIT_BLOCK = re.compile(
    r"^([^\s`][^\n`]*\.[\w]+)[ \t]*\n```[^\n]*\n<<<<<<< SEARCH\n", re.MULTILINE
)
_INJECTED_NAME = r"([\w:-]*(?:reminder|context|instructions|environment|permissions)[\w:-]*)"
_OPENING = re.compile(r"<" + _INJECTED_NAME + r"\b[^<>]{0,500}>", re.IGNORECASE)
_CLOSING = re.compile(r"</" + _INJECTED_NAME + r">", re.IGNORECASE)

_TICKED = re.compile(r"`([^`\n]+)`")
_ASKED: Final = ("?", "\uff1f", "\u061f")
"""The marks a question ends with: Latin, full-width (Chinese, Japanese), Arabic script."""
_JA_ASKS = re.compile(r"(?:か|かな|ですか|ますか)[。．]?\s*$", re.MULTILINE)
"""A Japanese question written with a plain stop: "...ですか。"."""


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact: its ``kind``, its ``key`` (what identifies it: the id, the path, the
    user's sentence), the ``state`` of a file or record, the ``context`` an identifier
    was found in, and its ``tier`` (:data:`TIERS`, lower is kept first)."""

    kind: FactKind
    key: str
    tier: int
    state: str = ""
    context: str = ""
    who: Literal["user", "agent"] = "user"

    def render(self) -> str:
        if self.kind in ("file", "record"):
            return f"- {self.kind} `{self.key}`: {self.state}"
        if self.kind == "id":
            source = _ID_SOURCES.get(self.tier)
            label = f" ({source})" if source else ""
            return f"- id `{self.key}`{label}" + (f": {self.context}" if self.context else "")
        if self.kind in ("decision", "pending"):
            return f"- {self.kind}: {self.key}"
        said = "instruction" if self.kind == "instruction" else "next step"
        return f"- {said} ({self.who}): {self.key}"

    def kept_in(self, seen: Seen) -> bool:
        """Whether the model still reads this fact in ``seen``."""
        if self.kind == "id":
            return _names(seen.text, self.key)
        if self.kind in ("instruction", "next", "decision", "pending"):
            said = " ".join(self.key.removesuffix("...").split())
            if self.who == "user":  # word for word: the user's words are not the model's
                return said in seen.verbatim
            return said in seen.flat
        key = self.key.lower()
        groups = [_STATE_WORDS.get(word, (word,)) for word in _state_words(self.state)]
        return any(
            key in line
            and _names(line, key)
            and all(any(_affirms(line, w) for w in group) for group in groups)
            for line in seen.lines
        )


# A negation in the words right before a state word, in its clause: "no failures",
# "did not fail", "never passed", "0 failed", "without changes"
_NEGATED = re.compile(
    r"(?<![\w-])(?:no|not|never|none|nothing|zero|0|without|n't|cannot|nor)(?![\w-])"
    r"|n't(?![\w-])"
)
_NEGATION_REACH: Final = 24


def _affirms(line: str, word: str) -> bool:
    """Whether ``line`` (lower case) says ``word`` once without a negation before it in
    its clause ("all tests pass, no failures" affirms "pass", not "fail")."""
    at = line.find(word)
    while at >= 0:
        before = line[max(at - _NEGATION_REACH, 0) : at]
        cut = max(before.rfind(c) for c in ",;.:()")
        if not _NEGATED.search(before[cut + 1 :]):
            return True
        at = line.find(word, at + 1)
    return False


def _names(text: str, key: str) -> bool:
    """Whether ``text`` names ``key`` as a whole: ``A-1`` is not named by ``A-10``, nor
    ``src/pay.py`` by ``old/src/pay.py``."""
    start = text.find(key)
    while start >= 0:
        end = start + len(key)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in "_/-") and not (after.isalnum() or after in "_/"):
            return True
        start = text.find(key, start + 1)
    return False


class Seen:
    """What the model reads after a compaction, in the forms the checks need."""

    __slots__ = ("flat", "lines", "text", "verbatim")

    def __init__(self, summary: str, verbatim: str) -> None:
        self.text = f"{summary}\n{verbatim}"
        self.verbatim = " ".join(verbatim.split())
        self.flat = " ".join(self.text.split())
        self.lines = self.text.lower().splitlines()


def _state_words(state: str) -> list[str]:
    """The words that must accompany a file or record for its ``state`` to be kept."""
    lowered = state.lower()
    if lowered.startswith(_SAID):  # the agent's own words: naming the thing keeps it
        return []
    if lowered.startswith("status "):
        return [lowered.removeprefix("status ").split("(")[0].split(";")[0].strip()]
    if lowered.startswith(("moved to ", "bumped from ")):
        return [lowered.rsplit(" ", 1)[-1]]  # where it went, the version it is at
    words = [w for w in ("created", "modified", "deleted") if w in lowered]
    if "tests passed" in lowered:
        words.append("passed")
    elif "tests failed" in lowered:
        words.append("failed")
    return words


@dataclass(slots=True)
class Ledger:
    """The facts a compaction must account for, oldest first (see the module doc)."""

    facts: list[Fact] = field(default_factory=list)

    def restore(
        self, summary: str, verbatim: str, budget: int, counter: TokenCounter
    ) -> tuple[str, FactCoverage]:
        """The ``<ledger>`` section for the facts that the ``summary`` and the
        ``verbatim`` text around it (the user's quoted words, the messages kept as they
        are) leave out, within ``budget`` tokens, and the coverage. ``""`` when the
        budget is 0 or there is nothing to restore or carry. The user's instructions
        and next steps count as kept only word for word in ``verbatim``; records
        (tickets, refunds...) are listed even when the summary names them, so the next
        compaction knows their state.

        The section also lists the identifiers the summary kept (at most a third of
        the budget), so the next compaction checks them again. Past the budget, the
        least important facts are left out first, and of equal ones the newest: the
        oldest are the ones repeated summaries lose, the newest are still in the
        summary just written and the messages kept after it."""
        view = Seen(summary, verbatim)
        missing: list[Fact] = []
        kept_ids: list[Fact] = []
        shown: list[Fact] = []  # the candidates for the section: missing, and records
        for fact in self.facts:
            if not fact.kept_in(view):
                missing.append(fact)
                shown.append(fact)
            elif fact.kind == "id":
                kept_ids.append(fact)
            elif fact.kind == "record":
                shown.append(fact)
        used = counter(_OPEN + _HEADER + _CLOSE) + 4
        listed: list[Fact] = []
        for fact in sorted(kept_ids, key=lambda f: f.tier):
            cost = counter(fact.key) + 2
            if used + cost > budget // 3:
                break
            listed.append(fact)
            used += cost
        # Two passes: first no kind may take more than its share of what is left
        # (files and records, identifiers), so a long run of changes cannot crowd out
        # every identifier, nor ids every change; then what is left goes by rank.
        # The user's instructions and next steps are few (capped when built): no share.
        chosen: set[int] = set()
        order = sorted(range(len(shown)), key=lambda i: (_rank(shown[i]), _timing(shown[i]), i))
        costs = {i: counter(shown[i].render()) + 1 for i in order}
        left = max(budget - used, 0)
        shares = {
            "item": left * _ITEM_SHARE // 100,
            "user id": left * _USER_ID_SHARE // 100,
            "id": left * _ID_SHARE // 100,
            "noted": left * _NOTED_SHARE // 100,
            "said": left * _SAID_SHARE // 100,
        }
        taken = dict.fromkeys(shares, 0)
        for index in order:
            group = _share_group(shown[index])
            fits = group is None or taken[group] + costs[index] <= shares[group]
            if fits and used + costs[index] <= budget:
                chosen.add(index)
                used += costs[index]
                if group is not None:
                    taken[group] += costs[index]
        for index in order:
            if index not in chosen and used + costs[index] <= budget:
                chosen.add(index)
                used += costs[index]
        lost = {id(f) for f in missing}
        # An identifier with no room for the words around it still has room alone.
        for index in order:
            fact = shown[index]
            if index in chosen or fact.kind != "id" or not fact.context:
                continue
            bare = dataclasses.replace(fact, context="")
            cost = counter(bare.render()) + 1
            if used + cost <= budget:
                if id(fact) in lost:
                    lost.add(id(bare))
                shown[index] = bare
                chosen.add(index)
                used += cost
        rendered = [shown[i] for i in sorted(chosen)]
        section = render_section(rendered, listed) if budget else ""
        # The estimate above sums lines; a counter that counts the whole differently
        # decides: the least important facts go until the section fits.
        by_rank = sorted(rendered, key=lambda f: (_rank(f), -rendered.index(f)))
        while section and counter(section) > budget:
            if by_rank:
                rendered.remove(by_rank.pop())
            elif listed:
                listed.pop()
            else:
                section = ""
                break
            section = render_section(rendered, listed)
        restored = sum(1 for f in rendered if id(f) in lost) if section else 0
        coverage = FactCoverage(
            found=len(self.facts),
            kept=len(self.facts) - len(missing),
            restored=restored,
            dropped=len(missing) - restored,
            tokens=counter(section) if section else 0,
        )
        return section, coverage


_ITEM_SHARE: Final = 25  # percent of the section's room for files and records, at first
_USER_ID_SHARE: Final = 15  # percent for the user's identifiers (fresh or carried), at first
_ID_SHARE: Final = 30  # percent for the agent's and the tools' identifiers, at first
_NOTED_SHARE: Final = 10  # percent for decisions and pending work, at first
_SAID_SHARE: Final = 20  # percent for what the agent says it did to things, at first


def _rank(fact: Fact) -> int:
    """A fact's rank for the section's room: its tier, except that the agent's and the
    tools' identifiers rank together (with those carried from earlier summaries),
    oldest first, so the task's early ids are not pushed out by every later turn's.
    (A carried user's id keeps the agent's tier and its place above them.)"""
    if fact.kind == "id" and fact.tier == TIERS["agent id"] and fact.who == "agent":
        return TIERS["tool id"]
    return fact.tier


# how long something took: "1.284s", "119.76s", "2113 ms" (no amount, size or share)
_TIMING = re.compile(r"(?<![\d.,])\d+(?:[.,]\d+)?\s?(?:ms|µs|ns|s|sec|min)")


def _timing(fact: Fact) -> bool:
    """Whether ``fact`` is an agent's or a tool's figure for how long something took:
    of its rank, those come last (a run's time is seldom what a later turn needs)."""
    return (
        fact.kind == "id"
        and _rank(fact) == TIERS["tool id"]
        and _TIMING.fullmatch(fact.key) is not None
    )


def _share_group(fact: Fact) -> str | None:
    if fact.tier == TIERS["said"] and fact.state.startswith(_SAID):
        return "said"  # the agent's words: what room the facts found by rules leave
    if fact.kind in ("file", "record"):
        return "item"
    if fact.kind in ("decision", "pending"):
        return "noted"
    if fact.kind != "id":
        return None
    carried_users = fact.tier == TIERS["agent id"] and fact.who == "user"
    return "user id" if fact.tier <= TIERS["user id"] or carried_users else "id"


_SOURCES: Final = {TIERS["user id"]: "the user", TIERS["agent id"]: "the agent"}
_KEPT = re.compile(
    r"^- kept in the summary, from (the user|the agent|tools): (`[^`\n]+`(?:, `[^`\n]+`)*)$"
)


def render_section(facts: Sequence[Fact], kept: Sequence[Fact] = ()) -> str:
    """The ``<ledger>`` section: the ``facts`` restored, then the identifiers the
    summary ``kept`` by source (``""`` when both are empty)."""
    if not facts and not kept:
        return ""
    lines = [_OPEN, _HEADER, *(f.render() for f in facts)]
    by_source: dict[str, list[str]] = {}
    for fact in kept:
        by_source.setdefault(_SOURCES.get(fact.tier, "tools"), []).append(f"`{fact.key}`")
    for source in ("the user", "the agent", "tools"):
        if source in by_source:
            lines.append(f"- kept in the summary, from {source}: " + ", ".join(by_source[source]))
    lines.append(_CLOSE)
    return "\n".join(lines)


def split_ledger(summary: str) -> tuple[str, list[Fact]]:
    """``summary`` without the ``<ledger>`` section at its end, and that section's
    facts (``[]`` when it has none). Only a section whose every line reads back is a
    ledger: a summary that quotes the tag keeps it as text."""
    end = "\n" + _CLOSE
    if not summary.endswith(end):
        return summary, []
    start = summary.rfind("\n\n" + _OPEN + "\n")
    if start < 0:
        return summary, []
    body = summary[start + len(_OPEN) + 3 : len(summary) - len(end)].split("\n")
    if not body or body[0] != _HEADER:
        return summary, []
    facts: list[Fact] = []
    for line in body[1:]:
        kept = _KEPT.match(line)
        if kept is not None:
            tier = {"the user": TIERS["user id"], "the agent": TIERS["agent id"]}.get(
                kept.group(1), TIERS["tool id"]
            )
            who: Literal["user", "agent"] = "user" if kept.group(1) == "the user" else "agent"
            facts += [Fact("id", key, tier, who=who) for key in _TICKED.findall(kept.group(2))]
            continue
        fact = _parse_line(line)
        if fact is None:
            return summary, []
        facts.append(fact)
    return summary[:start], facts


def _parse_line(line: str) -> Fact | None:
    match = _LINE.match(line)
    if match is None:
        return None
    if match.group("kind"):
        kind: FactKind = "file" if match.group("kind") == "file" else "record"
        state = match.group("state")
        if state.startswith(_SAID):
            tier = TIERS["said"]
        else:
            tier = TIERS["changed"] if _state_words(state) else TIERS["read"]
        return Fact(kind, match.group("key"), tier, state=state)
    if match.group("id"):
        # Carried, the user's ids stay above the rest; the agent's and the tools' are
        # ranked together, oldest first: the task's ids outlive later noise.
        tier = TIERS["agent id"] if match["source"] == "user" else TIERS["summary id"]
        return Fact("id", match.group("id"), tier, context=match["context"] or "")
    if match.group("noted"):
        noted: FactKind = "decision" if match.group("noted") == "decision" else "pending"
        return Fact(noted, match.group("note"), TIERS["decision"], who="agent")
    who: Literal["user", "agent"] = "user" if match.group("who") == "user" else "agent"
    if match.group("said") == "instruction":
        return Fact("instruction", match.group("text"), TIERS["instruction"], who=who)
    return Fact("next", match.group("text"), TIERS[f"{who} next"], who=who)


def _context(line: str, key: str) -> str:
    """The words around ``key`` on ``line``, at most :data:`_CONTEXT_CHARS` long."""
    if len(line) > 4 * _CONTEXT_CHARS:  # only the neighbourhood is read, however long
        at = max(line.find(key), 0)
        line = line[max(0, at - 2 * _CONTEXT_CHARS) : at + 2 * _CONTEXT_CHARS]
    line = " ".join(line.split())
    if len(line) <= _CONTEXT_CHARS:
        return line
    at = max(line.find(key), 0)
    start = max(0, min(at - _CONTEXT_CHARS // 3, len(line) - _CONTEXT_CHARS))
    piece = line[start : start + _CONTEXT_CHARS].strip()
    return ("..." if start else "") + piece + ("..." if start + _CONTEXT_CHARS < len(line) else "")


# What a log line's clock and a message template say is no identifier, nor any piece of
# it: "2024-04-02T09:56:27.4558636Z", "10:24:37,742", "{RequestMethod}", "{Elapsed:0.0}"
_NOT_IDS = re.compile(
    r"(?<![\w.])\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|(?<![\w.:])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\w.])"
    r"|\{[A-Za-z_][A-Za-z_.]{0,60}(?::[^{}\n]{0,20})?\}"
)

_MOMENT = re.compile(
    r"(?<![\w.])\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
)


def _identifiers(text: str) -> list[str]:
    """The identifiers of ``text`` (URLs, DOIs, figures with units and the rules'
    identifiers), without those that are part of a longer one found there, nor a log
    line's time or a template's placeholder (:data:`_NOT_IDS`)."""
    spans: list[tuple[int, int, str]] = []
    spans += [(m.start(), m.end(), "") for m in _NOT_IDS.finditer(text)]
    for match in _DOI.finditer(text):
        token = match.group().rstrip(".,;:")
        spans.append((match.start(), match.start() + len(token), token))
    for match in itertools.islice(_HOST.finditer(text), _IDS_PER_LINE):
        if match.group()[0].isalpha() and not PATH.fullmatch(match.group()):
            spans.append((match.start(), match.end(), match.group()))
    for match in IDENTIFIER.finditer(text):
        group = next(i for i, g in enumerate(match.groups(), 1) if g)
        token = match.group(group)
        if "`" not in token and len(token) >= 3:
            spans.append((match.start(group), match.end(group), token))
    for match in _FIGURE.finditer(text):
        if any(c in match.group() for c in ".,$€£¥%") or " " in match.group():
            spans.append((match.start(), match.end(), match.group()))
    spans += [(m.start(), m.end(), m.group()) for m in _MORE_IDS.finditer(text)]
    spans = [_whole(text, *span) for span in spans]
    for match in PATH.finditer(text):
        if match.group().startswith(("http://", "https://")):  # files are file facts
            token = match.group().rstrip(".,:;")
            spans.append((match.start(), match.start() + len(token), token))
    # A token inside a longer one found at the same place is part of it (one sweep).
    spans.sort(key=lambda s: (s[0], -s[1]))
    kept: list[str] = []
    reach = -1
    for _start, end, token in spans:
        if end <= reach:
            continue
        reach = end
        if token:
            kept.append(token)
    return list(dict.fromkeys(kept))


def _whole(text: str, start: int, end: int, token: str) -> tuple[int, int, str]:
    """The span of ``token`` (at ``start``:``end`` of ``text``) grown to the hyphen- or
    dot-joined run of ASCII letters and digits it is part of (a sentence's full stop
    is no join: a part must follow it)."""
    if not token or not token.isascii() or not token.replace("-", "").replace(".", "").isalnum():
        return start, end, token
    joined_before = start > 1 and text[start - 1] in "-." and text[start - 2].isalnum()
    if joined_before:
        head = _JOINED_BEFORE.search(text, max(start - _JOINED_REACH, 0), start)
        if head is not None and (head.start() == 0 or not text[head.start() - 1].isalnum()):
            start = head.start()
    tail = _JOINED_AFTER.match(text, end)
    if tail is not None and not text[tail.end() : tail.end() + 1].isalnum():
        end = tail.end()
    return start, end, text[start:end]


_ASSIGNED_RANDOM = re.compile(r"=['\"]?(?=[A-Za-z0-9]{16,64}(?![\w-]))" + _RANDOM_TOKEN)


def _line_ids(line: str) -> list[str]:
    """The first :data:`_IDS_PER_LINE` identifiers of a tool's ``line``, those with the
    shape of an id on their own first (a trace id at the end of a long log line before
    the class names ahead of it), none of them a credential's value. A very long line
    is read at its two ends (:func:`~contextfold.compaction._rules.line_ends`)."""
    line = line_ends(line)
    if _SECRET_SHAPE.search(line):
        return []
    secret = [m.group(0) for m in _CREDENTIAL.finditer(line)]
    found = [t for t in _plain_ids(line) if not any(t in value for value in secret)]
    if not _talks_secret(line):
        for match in itertools.islice(_RANDOM_ID.finditer(line), _IDS_PER_LINE):
            token = _whole(line, match.start(), match.end(), match.group())[2]
            if token not in found and not any(token in value for value in secret):
                found.append(token)
    return sorted(found, key=lambda token: not _strong_id(token))[:_IDS_PER_LINE]


# A credential's value on a tool's line ("password=Hj3n...", "token: ...", "sk-..."):
# no identifier (the ledger copies no sentence that talks of one either)
_CREDENTIAL = re.compile(
    r"(?i:(?<![\w.-])[\w.-]{0,40}?(?:pass(?:words?|wd|phrase)?|pwd|secret|token|(?:api|access|private|"
    r"signing|secret)[_-]?key|credentials?|auth(?:ident|token)?))"
    r"\s*[=:]\s*\S+"
    # "config set npmAuthIdent admin:pw", "CONFIG SET requirepass pw"
    r"|(?i:config(?:ure)?\s+set\s+(?:[\w.-]+\s+)?[\w.-]*(?:pass|pwd|secret|token|auth|key|"
    r"ident)[\w.-]*)\s+\S+"
    # mysql's "-pS3cret" (a password glued to its flag), "--password S3cret"
    r"|(?<![\w-])-p(?=[^\s'\"]*[\d\W])[^\s'\"-][^\s'\"]{3,}|(?i:--password)\s+\S+"
    r"|\b(?:sk|pk|rk)[-_][A-Za-z0-9_-]{12,}|\bghp_\w{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abp]-\S+"
    r"|\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@]+:[^\s@/]+@"
    # a flag or a setting that passes one: "--client-secret X", "--pat X", "--bearer X",
    # "CONFIG SET requirepass X", "configure set aws_secret_access_key X", a JWT
    r"|(?i:--[\w-]{0,40}?(?:pass|pwd|secret|token|api-?key|bearer|cookie|signing-key|"
    r"private-key|auth)[\w-]{0,40}|--pat|requirepass|masterauth|"
    r"(?<!\w)\w{0,40}secret_access_key)[= ]\S+"
    r"|\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*|\bglpat-[\w-]{10,}"
)


def _masked(match: re.Match[str]) -> str:
    """A credential :data:`_CREDENTIAL` found, its value masked: ``PGPASSWORD=***``,
    ``postgresql://admin:***@``, ``-p***``."""
    text = match.group(0)
    if text.endswith("@"):  # a URL's user and password
        return text[: text.rindex(":") + 1] + "***@"
    for sign in ("=", ":", " "):
        if sign in text:
            return text[: text.index(sign) + 1] + "***"
    return text[:2] + "***" if text.startswith("-p") else "***"


_FILE = re.compile(r"(?<![\w.-])[\w.-]*\w\.[A-Za-z][A-Za-z0-9]{0,4}\Z")


def _named(text: str) -> list[str]:
    """What ``text`` names, in order: identifiers that are not figures, and file names
    (``report_v2.pdf``, ``./inbox/a.edi``) whole."""
    found = [(m.start(), m.group(0).rstrip(".,:;")) for m in PATH.finditer(text)]
    found = [(at, p) for at, p in found if not p.startswith("http")]
    for token in _plain_ids(text):
        if not _FIGURE.fullmatch(token):
            at = text.find(token)
            whole = re.match(r"[\w.-]*", text[at:])  # "a_b" of "a_b.edi": the file's name
            name = whole.group(0).rstrip(".-") if whole else token
            found.append((at, name if _FILE.match(name) else token))
    return [token for _, token in sorted(found)]


# A tool reporting a record's new state on a line of its own: "[edi] a.edi: rejected",
# "work order WO-1: completed (by shift B)" (the state one word, in any script, with
# perhaps a gloss in brackets; what follows it may only be a detail).
_REPORTED = re.compile(
    r"^\s*(?:\[[^\]\n]{1,20}\]\s*)?(?:[^\W\d_][\w-]*\s+){0,2}"
    r"(?P<name>[^\s:]{3,80}):\s+"
    r"(?P<state>[^\W\d_]{3,20}(?:\s*\([^\W\d_]{2,20}\))?)"
    r"(?:\s*$|\s*[.,;]|\s+-\s|\s+by\s|\s+\()"
)
# kubectl and the like: 'persistentvolumeclaim "data-x" deleted', "deployment.apps/web
# configured"
_KUBECTL = re.compile(
    r"^\s*[\w.-]+(?:\s+|/)(?P<name>\"[\w.:-]+\"|[\w.:-]+)\s+"
    r"(?P<state>deleted|created|configured|unchanged|patched|scaled|restarted|labeled|"
    r"annotated|exposed|rolled back|cordoned|drained|uncordoned|evicted|"
    r"uninstalled|installed|upgraded)\s*$"
)
# An XML element with an id and a state: <invoice id="X" status="paid"/>,
# <order><id>X</id>...<state>Y</state></order>
_XML_STATE = r"status|state|estado|statut|stato|zustand|tila|állapot|κατάσταση|stan"
_XML_RECORD = re.compile(
    r"<\w[\w:-]*\b[^<>]*?\b(?:id|number|no|ref)=\"(?P<id>[^\"<>\s]{3,60})\"[^<>]*?"
    rf"\b(?:{_XML_STATE})=\"(?P<state>[^\"<>]{{2,40}})\""
    rf"|<id>(?P<id2>[^<>\s]{{3,60}})</id>.{{0,300}}?<(?:{_XML_STATE})>(?P<state2>[^<>]{{2,40}})</",
    re.IGNORECASE,
)


# Where Chinese, Japanese or Korean text meets a Latin letter or a digit: the rules find
# ids at word boundaries, which "请关闭PROJ-1235，然后部署v2.3.1版本" or "注文ORD-58213は"
# does not have (CJK characters are word characters)
_CJK_EDGE = re.compile(
    r"(?<=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3])(?=[A-Za-z0-9])"
    r"|(?<=[A-Za-z0-9])(?=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3])"
)


def _plain_ids(text: str) -> Iterator[str]:
    """The identifiers of ``text`` that are not file paths (those are file facts); in
    CJK text, an id glued to the words around it is read as if set off by spaces."""
    if not text.isascii():
        text = _CJK_EDGE.sub(" ", text)
    paths = {p.rstrip(".,:;") for p in PATH.findall(text) if not p.startswith("http")}
    parts = "\x00".join(paths)
    for token in _identifiers(text):
        if token not in paths and (not paths or token not in parts):
            yield token


# A token in the agent's words that may be a name a tool gave: letters, digits and the
# marks names join their parts with, a digit among them, eight characters or more.
_SHOWN_TOKEN = re.compile(r"(?<![\w./:+-])[A-Za-z0-9][\w.:/+-]{6,126}[A-Za-z0-9](?![\w])")
_SHOWN_READ: Final = 1_000_000  # characters of a turn's tool outputs searched, at most
_SHOWN_LOOKUPS: Final = 100  # tokens searched for in one turn, at most
_SHOWN_PER_SENTENCE: Final = 3
# What a tool shows that names nothing: a time of day or a duration (12:00:01,
# 00:03:27.41), a size in pixels (1920x1080), a wildcard or loopback address and port.
_SHOWN_NOISE = re.compile(
    r"(?<![\w.:])\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d+)?|(?<![\w.])\d+x\d+"
    r"|(?<![\w.])(?:0\.0\.0\.0|127\.0\.0\.1|localhost)(?::\d+)?"
)


@dataclass(slots=True)
class _Shown:
    """The tools' outputs of one turn (the first :data:`_SHOWN_READ` characters), for
    the names the agent singles out of them."""

    outputs: list[str] = field(default_factory=list)
    room: int = _SHOWN_READ
    lookups: int = _SHOWN_LOOKUPS

    def add(self, output: str) -> None:
        if self.room > 0:
            self.outputs.append(output[: self.room])
            self.room -= len(self.outputs[-1])

    def singled_out(self, sentence: str) -> list[str]:
        """The tokens of the agent's ``sentence`` that a tool's output showed whole, on
        a line that talks of no credential: the agent singled them out of what the tool
        listed ("the part 202603_118_240_2 is broken", "restore 2025-11-02T03:00:11Z"),
        so they are identifiers whatever their shape. Not files (file facts), URLs or
        figures; none from a sentence that talks of a secret."""
        if _SECRET_TALK.search(sentence):
            return []
        text = _CJK_EDGE.sub(" ", sentence) if not sentence.isascii() else sentence
        found: list[str] = []
        for match in _SHOWN_TOKEN.finditer(text):
            token = match.group(0).rstrip(".:/-")
            if (
                len(token) < 8
                or not any(c.isdigit() for c in token)
                or "://" in token
                or PATH.fullmatch(token)
                or _FIGURE.fullmatch(token)
                or _SHOWN_NOISE.fullmatch(token)
            ):
                continue
            if self.lookups <= 0:
                break
            self.lookups -= 1
            if any(_shows(output, token) for output in reversed(self.outputs)):
                found.append(token)
                if len(found) == _SHOWN_PER_SENTENCE:
                    break
        return found


def _shows(output: str, token: str) -> bool:
    """Whether ``output`` holds ``token`` whole (not inside a longer name) on a line
    that talks of no credential."""
    at = output.find(token)
    walked = 0
    while at >= 0:
        end = at + len(token)
        before = output[at - 1] if at else " "
        after = output[end] if end < len(output) else " "
        if not (before.isalnum() or before in "_-./") and not (after.isalnum() or after in "_-"):
            start = output.rfind("\n", 0, at) + 1
            stop = output.find("\n", end)
            line = output[start : stop if stop >= 0 else len(output)]
            return not (
                _talks_secret(line) or _CREDENTIAL.search(line) or _under_secret(output, start)
            )
        at = output.find(token, end)
        if (walked := walked + 1) >= _SHOWN_WALK:
            break
    return False


_SHOWN_WALK: Final = 50  # places of a token in an output looked at, at most
_BLOCK_LINES: Final = 20


def _under_secret(output: str, start: int) -> bool:
    """Whether the line at ``start`` of ``output`` is in a block (no blank line between)
    under a line that talks of a credential ("Recovery codes:", "- name: DB_PW"), or the
    output is a private key or a Kubernetes Secret."""
    if "PRIVATE KEY-----" in output[:_PEM_HEAD] or _KIND_SECRET.search(output[:_SECRET_HEAD]):
        return True
    end = start
    for _ in range(_BLOCK_LINES):
        if end <= 0:
            break
        begin = output.rfind("\n", 0, end - 1) + 1
        line = output[begin : end - 1]
        if not line.strip():
            break
        if _talks_secret(line):
            return True
        end = begin
    return False


_PEM_HEAD: Final = 5_000  # characters of an output read for a private key's armour
_SECRET_HEAD: Final = 4_000  # and for a Kubernetes Secret's kind


_JSON_VALUES: Final = 10_000


def _json_objects(text: str) -> list[dict[Any, Any]]:
    """The objects of a JSON ``text`` (a tool's output or arguments), outermost first,
    each before the objects nested in it; ``[]`` when ``text`` is not JSON."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return []
    values: list[object] = []
    try:
        values.append(json.loads(stripped))
    except RecursionError:
        return []  # nested deeper than anyone writes facts
    except ValueError:
        # JSON Lines, or objects one after another (govulncheck -json, docker events)
        decoder, at = json.JSONDecoder(), 0
        while at < len(stripped) and len(values) < _JSON_VALUES:
            try:
                value, at = decoder.raw_decode(stripped, at)
            except (ValueError, RecursionError):
                return []
            values.append(value)
            while at < len(stripped) and stripped[at].isspace():
                at += 1
        if at < len(stripped):
            return []
    objects: list[dict[Any, Any]] = []
    stack: list[object] = list(reversed(values))
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            objects.append(item)
            stack.extend(v for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return objects


def _json_ids(objects: Iterable[dict[Any, Any]]) -> Iterator[tuple[str, str]]:
    """``(value, "key: value")`` for the id-like fields of JSON ``objects``."""
    for item in objects:
        for key, value in item.items():
            # a list of ids under an id-like key: "aliases": ["CVE-...", "GHSA-..."]
            children = (
                value[:_IDS_PER_LINE] if isinstance(value, list) and _id_key(key) else [value]
            )
            for child in children:
                if not isinstance(child, str | int) or isinstance(child, bool):
                    continue
                found = str(child)
                if (
                    _id_key(key)
                    and 3 <= len(found) <= 120
                    and "`" not in found
                    and not PATH.fullmatch(found)
                ) or (isinstance(child, str) and found.startswith(("http://", "https://"))):
                    yield found, f"{key}: {found}"


_COMMAND_KEYS: Final = frozenset({"command", "cmd", "script", "args", "argv", "query", "sql"})
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}.*)?$")


def _strong_id(token: str) -> bool:
    """Whether ``token`` has the shape of an id on its own (a digit, six characters or
    more, not a figure, a date or a file)."""
    return (
        len(token) >= 6
        and any(c.isdigit() for c in token)
        and not _FIGURE.fullmatch(token)
        and not _DATETIME.match(token)
        and not PATH.fullmatch(token)
    )


def _argument_ids(objects: Iterable[dict[Any, Any]]) -> Iterator[tuple[str, str]]:
    """``(value, "key: value")`` for what a tool call's arguments name by their shape
    alone: a value that is one id (``{"ipp": "9483403802"}``) and the ids a command
    line names (``addr2line -e app.elf 0x08018168``). The agent chose them."""
    for item in objects:
        for key, child in item.items():
            if _id_key(key) or not isinstance(child, str) or not 6 <= len(child) <= 2_000:
                continue  # an id-like key is read by _json_ids
            if str(key).lower() in _COMMAND_KEYS:
                # a credential the command passes (PGPASSWORD=..., a URL's password,
                # mysql -p...) is no id, and is not copied with the command's words
                child = _CREDENTIAL.sub(_masked, child)
                # a long random token assigned to a name is as likely a seed or a key
                child = _ASSIGNED_RANDOM.sub("=***", child)
                for token in itertools.islice(_plain_ids(child), _IDS_PER_LINE):
                    if _strong_id(token):
                        yield token, f"{key}: {shorten(child, _CONTEXT_CHARS)}"
            elif len(child) <= 120 and _identifiers(child) == [child] and _strong_id(child):
                yield child, f"{key}: {child}"


# A flag's switch: "enabled" (Unleash, Flagsmith ...), "on" (LaunchDarkly); not "active",
# which a listing of users or accounts has on every row.
_FLAG_KEYS = re.compile(r"^(enabled|is_?enabled|on)$", re.IGNORECASE)
_FLAGS_SHOWN: Final = 10
"""Flags one output reports, at most (a listing of every flag is bulk)."""


_OWN_ID: Final = frozenset({"id", "name", "key", "uuid", "number", "ref"})
"""Keys that make a nested JSON object a record of its own (a customer in an order)."""


def _status_of(item: dict[Any, Any]) -> str | None:
    return next(
        (v for k, v in item.items() if _STATUS_KEYS.match(str(k)) and isinstance(v, str)),
        None,
    )


def _keyed_records(objects: Iterable[dict[Any, Any]]) -> tuple[list[tuple[str, str]], set[int]]:
    """``(id, "STATUS; name")`` for the objects a JSON object holds under their ids
    (``{"02474dc1-...": {"name": "render_pdf", "state": "FAILURE"}}``, as Celery's
    Flower and many APIs list things), and the ``id()`` of every such object. Of more
    than :data:`_KEYED_SHOWN`, only those in a state fewer share (the one failure among
    successes); their own names are not their ids, so they are not read again."""
    found: list[tuple[str, str]] = []
    told: set[int] = set()
    for item in objects:
        keyed: list[tuple[str, dict[Any, Any], str]] = []
        for k, v in item.items():
            if isinstance(v, dict) and _strong_id(str(k)) and _ID_KEY_SHAPE.fullmatch(str(k)):
                status = _status_of(v)
                if status:
                    keyed.append((str(k), v, status))
        if not keyed:
            continue
        told.update(id(v) for _, v, _ in keyed)
        # the state most of them share, if most share one and it is no failure
        (common, count), *_ = Counter(status for _, _, status in keyed).most_common(1)
        usual = (
            common
            if len(keyed) > _KEYED_SHOWN and count > 1 and not _FAILED_STATE.search(common)
            else None
        )
        for key, value, status in keyed:
            if status == usual or len(found) >= _IDS_PER_LINE:
                continue
            name = next((str(v) for k, v in value.items() if str(k).lower() == "name"), "")
            state = f"{status}; {name}" if name and len(name) <= 80 else str(status)
            found.append((key, " ".join(state.split())))
    return found, told


_KEYED_SHOWN: Final = 3
_FAILED_STATE = re.compile(r"fail|error|abort|crash|dead|reject|timed?[ _-]?out", re.IGNORECASE)
_ID_KEY_SHAPE = re.compile(r"[\w.:@#/-]{6,120}")  # one token: an id, not a sentence


def _json_records(objects: Iterable[dict[Any, Any]]) -> Iterator[tuple[str, str]]:
    """``(id, status)`` for each of the JSON ``objects`` that has both an id-like field
    and a status (``status``, ``state``, ``estado``, ``statut`` ...), or a flag's switch
    (the first :data:`_FLAGS_SHOWN`)."""
    flags = 0
    told: set[int] = set()  # objects whose state is their named parent's
    for item in objects:
        if id(item) in told:
            continue
        status = _status_of(item)
        if status is None:
            # {"name": "sink-a", "connector": {"state": "PAUSED", "worker_id": ...}}:
            # the state of the thing the object names (not of the worker)
            nested = next(
                (
                    v
                    for v in item.values()
                    if isinstance(v, dict) and _status_of(v) and not _OWN_ID.intersection(v)
                ),
                None,
            )
            if nested is not None:
                status = _status_of(nested)
                # and its parts in the same state ("tasks": [{"state": "PAUSED"}])
                parts = [v for v in item.values() if isinstance(v, list)]
                told.update(
                    id(v)
                    for v in [nested, *(p for part in parts for p in part[:_IDS_PER_LINE])]
                    if isinstance(v, dict) and _status_of(v) == status
                )
        key = next(
            (
                str(v)
                for k, v in item.items()
                if _id_key(k)
                and isinstance(v, str | int)
                and not isinstance(v, bool)
                and 3 <= len(str(v)) <= 120
            ),
            None,
        )
        if status and key is None:  # {"mrn": "23NLUV...", "status": ...}: an id by shape
            key = next(
                (
                    v
                    for v in item.values()
                    if isinstance(v, str)
                    and v != status
                    and _identifiers(v) == [v]
                    and any(c.isdigit() for c in v)
                ),
                None,
            )
        if status is None and flags < _FLAGS_SHOWN:  # {"name": "skip-ghosts", "enabled": true}
            flag = next((v for k, v in item.items() if _FLAG_KEYS.match(str(k))), None)
            if isinstance(flag, bool):
                status = "enabled" if flag else "disabled"
                flags += 1
        if status and key and "`" not in key and len(status) <= 80:
            yield key, " ".join(status.split())


class _Builder:
    """Collects facts in order, a later fact about the same key replacing the earlier."""

    def __init__(self) -> None:
        self.facts: dict[tuple[str, str], Fact] = {}

    def add(self, fact: Fact) -> None:
        ticked = fact.kind in ("file", "record", "id")  # rendered between backticks
        if not fact.key or "\n" in fact.key or len(fact.key) > MAX_FACT_CHARS:
            return
        if ticked and "`" in fact.key:
            return
        # one line each: a state or a context holding a newline would write a line of
        # its own into the section (a fact no one found)
        fact = dataclasses.replace(
            fact, state=shorten(fact.state, 120), context=shorten(fact.context, _CONTEXT_CHARS + 6)
        )
        group = "item" if fact.kind in ("file", "record") else fact.kind
        if fact.kind == "next" and fact.who == "agent":
            group = "pending"  # what the agent said it does next, welcomed later: pending
        slot = (group, fact.key)
        known = self.facts.get(slot)
        late = fact.who == "agent" and fact.state.startswith(_SAID)
        if late and known is not None and known.state == fact.state:
            return  # the agent's report again, as the newest word: it already is
        # the agent's report of a deed that no tool named the thing after (a said
        # record with who "agent") outranks a mere read, and a state its deed undoes
        outranks = (
            late
            and known is not None
            and (known.state == "read" or _UNDOES.search(fact.state) is not None)
        )
        if known is not None and known.state.startswith(_SAID) and fact.state in _UNTOLD:
            return  # the agent's words of the thing say more than "patched"
        if fact.kind == "record" and getattr(known, "kind", None) == "file" and not outranks:
            return  # what the file rules found of a path is more than a sentence says
        if known is not None and known.kind in ("file", "record"):
            said = fact.state.startswith(_SAID)
            if said and not known.state.startswith(_SAID) and not outranks:
                return  # what a tool reported is more than the agent's words about it
            if said and _DEED.search(known.state) and not _DEED.search(fact.state):
                return  # a deed the agent told outlives its later mention of the thing
            if fact.state.endswith(_UNCOMMITTED) and known.kind == "file":
                return  # git status repeats what the file rules found, with less
        if fact.state.endswith(_COMMITTED) and not (known and known.state.endswith(_UNCOMMITTED)):
            return  # a clean tree ends what git status said, not what the file rules found
        old = self.facts.pop(slot, None)
        if old is not None and fact.kind == "id" and old.tier < fact.tier:
            fact = Fact("id", fact.key, old.tier, context=fact.context or old.context, who=old.who)
        self.facts[slot] = fact

    def ledger(self) -> Ledger:
        facts = list(self.facts.values())
        # an id the agent's words then name keeps its rank as a record ("billing_2023_q4")
        ranks = {f.key: f.tier for f in facts if f.kind == "id"}
        facts = [
            dataclasses.replace(f, tier=min(f.tier, ranks[f.key]))
            if f.kind == "record" and f.key in ranks and f.state.startswith(_SAID)
            else f
            for f in facts
        ]
        items = {f.key for f in facts if f.kind in ("file", "record")}
        facts = [f for f in facts if not (f.kind == "id" and f.key in items)]
        # A change of mind outlives later requests: plain requests are capped on their
        # own, so a run of "do X" messages cannot age the user's corrections out.
        requests = [f for f in facts if f.kind == "instruction" and not _changes_mind(f.key)]
        gone = {id(f) for f in requests[: max(len(requests) - MAX_REQUESTS, 0)]}
        facts = [f for f in facts if id(f) not in gone]
        facts = _newest(facts, "instruction", "user", MAX_INSTRUCTIONS)
        facts = _newest(facts, "next", "user", MAX_NEXT_STEPS)
        facts = _newest(facts, "next", "agent", 1)
        # what the agent took up, and questions answered, are capped on their own: a run
        # of chatty replies cannot age a correction's decision out
        facts = _newest(facts, "decision", "agent", MAX_TAKE_UPS, lambda f: _TAKEN in f.key)
        facts = _newest(facts, "decision", "agent", MAX_DECISIONS, lambda f: _TAKEN not in f.key)
        facts = _newest(facts, "pending", "agent", MAX_PENDING)
        # What a summary noted of the user's own words is carried by those words.
        said = [
            " ".join(f.key.split())
            for f in facts
            if f.kind in ("instruction", "next") and f.who == "user"
        ]
        return Ledger([f for f in facts if not _restates(f, said)])


def _restates(fact: Fact, said: Sequence[str]) -> bool:
    """Whether ``fact``, a summary's note, says what one of the ``said`` sentences does."""
    if fact.kind not in ("decision", "pending"):
        return False
    note = " ".join(fact.key.removesuffix("...").split())
    return any(note in sentence or sentence in note for sentence in said)


def _newest(
    facts: list[Fact],
    kind: FactKind,
    who: str,
    cap: int,
    where: Callable[[Fact], bool] = lambda _: True,
) -> list[Fact]:
    """``facts`` with only the newest ``cap`` of ``kind`` by ``who`` (those ``where``
    holds for) left of them."""
    of_kind = [i for i, f in enumerate(facts) if f.kind == kind and f.who == who and where(f)]
    gone = set(of_kind[: max(len(of_kind) - cap, 0)])
    return [f for i, f in enumerate(facts) if i not in gone]


def build_ledger(
    body: Sequence[Message],
    *,
    previous: str | None = None,
    carried: Iterable[Fact] = (),
    quoted: Sequence[str] = (),
) -> Ledger:
    """The facts of the summarized ``body``, after those ``carried`` from the previous
    ledger section, those the ``previous`` summary kept, and those of the user's words
    it ``quoted`` (see the module doc)."""
    builder = _Builder()
    if previous:  # what the summary said, unless the ledger checked and corrected it
        for fact in _summary_facts(without_recallable(previous)):
            builder.add(fact)
    for fact in carried:
        if fact.kind == "file" and "deleted" in fact.state.lower():
            # a deleted file keeps only that: its earlier states are superseded
            fact = Fact("file", fact.key, TIERS["changed"], state="deleted")
        builder.add(fact)
    entries = [Entry("user", "text", text) for text in quoted]
    entries += entries_from_messages([m for m in body if m.role != "system"])
    typed: set[str] = set()  # the credentials masked: no fact may hold one either
    for entry in entries:  # no rule reads a credential someone typed or said
        entry.text = _squeezed(entry.text)
        if entry.kind == "text":
            entry.text = _mask_credentials(entry.text, typed)
    for fact in _entry_facts(entries, typed):
        builder.add(fact)
    return builder.ledger()


# A run of one letter, digit or underscore longer than a fact may be ("uuuu…" filler, a
# padded field) is read cut to that length: every rule scanned each of its characters
# (a compaction of 30 messages of 5,000-character runs took 10 s, 0.9 s cut). A token
# holding one is still too long to be a fact's key; where a rule reads a fixed number
# of characters (a line's 400, a request's 20,000), the text after the run comes
# within its reach (tests/attack40).
_LONG_RUN = re.compile(rf"(\w)\1{{{MAX_FACT_CHARS + 1},}}")


def _squeezed(text: str) -> str:
    # Such a run needs a word as long: most texts have none, and finding the longest
    # word (6 ns a character) is cheaper than seeking a run (40 ns).
    if len(text) <= MAX_FACT_CHARS or max(map(len, text.split()), default=0) <= MAX_FACT_CHARS:
        return text
    return _LONG_RUN.sub(lambda run: run.group(1) * (MAX_FACT_CHARS + 1), text)


def _summary_facts(summary: str) -> Iterator[Fact]:
    """The states of the files a previous summary names, line by line, and the
    decisions and pending work it stated (its identifiers are carried by the ledger
    section's list of what the summary kept)."""
    noted: FactKind | None = None
    for line in summary.splitlines():
        lowered = line.lower()
        if _HEADING.match(line):
            noted = _noted_kind(lowered)
            continue
        if noted is not None:
            item = _ITEM.match(line)
            note = shorten(item.group(1).strip(), MAX_FACT_CHARS) if item else ""
            if note and note.rstrip(".").lower() not in _NOTHING:
                yield Fact(noted, note, TIERS["decision"], who="agent")
        ticked = [t for t in _TICKED.findall(line) if "/" in t and " " not in t]
        for path in dict.fromkeys([*PATH.findall(line), *ticked]):
            path = path.rstrip(".,:;")
            if path.startswith(("http://", "https://")):
                continue
            states = [s for s in ("created", "modified", "deleted") if _said(lowered, s)]
            if _said(lowered, "failed"):
                states.append("tests failed")
            elif _said(lowered, "passed"):
                states.append("tests passed")
            if "deleted" in states:  # its earlier states are superseded
                yield Fact("file", path, TIERS["changed"], state="deleted")
            elif states:
                yield Fact("file", path, TIERS["changed"], state=", ".join(states))


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,2}[.)])\s+(.+)$")
_NOTHING: Final = frozenset({"none", "n/a", "nothing", "-", "none yet", "nothing pending"})


def _noted_kind(heading: str) -> FactKind | None:
    """What the items under a summary's ``heading`` (lower case) are, when the ledger
    carries them: the user's instructions and corrections, decisions and constraints;
    commitments, pending work and the next step (the built-in prompt's sections, or a
    custom prompt's that say so)."""
    if any(word in heading for word in ("decision", "constraint", "instruction", "correction")):
        return "decision"
    if any(word in heading for word in ("pending", "next step", "to do", "commitment")):
        return "pending"
    return None


def _said(line: str, state: str) -> bool:
    return any(_affirms(line, word) for word in _STATE_WORDS[state])


def _entry_facts(entries: Sequence[Entry], typed: Iterable[str] = ()) -> Iterator[Fact]:
    facts = extract(entries)
    # The user's instructions and corrections, and what comes next.
    edited: list[str] = []
    corrected = False  # the user's last words changed their mind: the agent's answer says how
    said: list[str] = []  # the agent's words since the user's last ones, newest last
    offered: list[str] = []  # the same, a short code block after a colon kept in its line
    answering = False  # the user spoke last: the agent's next words answer them
    asking = False  # the user's last words ask something, a request too ("can you ...?")
    answers = False  # the user's words answer what the agent proposed or asked
    # the hyphenated names tools used ("kassa-staging"): in the agent's words, such a
    # name is a thing only when a tool named it too (not "follow-up", "read-only")
    hyphenated = {
        m.group(0).lower()
        for e in entries
        if e.kind != "text"
        for m in itertools.islice(_HYPHENATED.finditer(e.text), _HYPHENATED_PER_ENTRY)
    }
    # and the names with a slash they used, the tails of longer paths too: in the
    # agent's words, "releases/179" or "fix/login" is a thing when a tool named it
    hyphenated |= {
        tail.lower()
        for e in entries
        if e.kind != "text"
        for m in itertools.islice(_SLASHED.finditer(e.text), _HYPHENATED_PER_ENTRY)
        for tail in _tails(m.group(0))
    }
    late: dict[str, tuple[int, Fact]] = {}  # the agent's newest deed told of each name
    # the names the user's last request and the agent's commands since gave: said again
    # by the agent, the thing it acted on, whatever its shape (a host, a mailbox)
    shared: set[str] = set()
    shown = _Shown()  # the tools' outputs since the user's last words
    # the values the conversation gave as credentials (a password the user typed, one a
    # command passed): no fact these two rules make may hold one
    secrets: set[str] = set(typed)
    for index, entry in enumerate(entries):
        if entry.kind == "call":
            command = entry.text[:_SHARED_READ]
            secrets |= _secret_values(command)
            shared |= _shared_names(command) - {v.lower() for v in secrets}
        elif entry.kind != "text":
            shown.add(entry.text)
        if entry.kind != "text":
            continue
        who: Literal["user", "agent"] = "user" if entry.role == "user" else "agent"
        if who == "agent":
            edited += [m.group(1) for m in _EDIT_BLOCK.finditer(entry.text)]
        prose = _prose(entry.text)
        if not prose.strip():  # only context a client injected (a <system-reminder> block)
            continue
        sentences = [s.strip() for s in SENTENCE.split(prose) if s.strip()]
        if who == "user":
            # "no wait, first show me the config": the agent's answer is a report
            corrected = _changes_mind(prose) and not _SHOW_ME.search(prose)
            # "yes, do that": what was decided is what the agent proposed or asked
            # (read only now: most of the agent's words are never answered so); what it
            # announced and the user welcomed is work still to do
            proposal = None
            if said and not corrected and _approves(prose) and not _open_question(said[-1]):
                offers = [p for p in map(_proposal, reversed(offered)) if p is not None]
                # what the agent asked or proposed, before an aside it added after it
                proposal = next((p for p in offers if p[1]), offers[0] if offers else None)
            if proposal is not None:
                kind: FactKind = "decision" if proposal[1] else "pending"
                yield Fact(kind, proposal[0], TIERS["decision"], who="agent")
            # Any other answer to what the agent proposed or asked decides it: the
            # user's words are the instruction ("Bitte nicht! Fehlende Werte bleiben
            # Lücken", "Overslaan ja. Verwijderen nee: ...", "第一点同意。第二点...").
            asked = next(filter(None, map(_proposal, said[-1:])), None)
            answers = proposal is None and asked is not None and asked[1]
            if answers and asked is not None and _answers_question(said[-1], prose):
                answers = False  # the decision holds the user's words, and what they answer
                # "Which region: eu-central-1 or eu-west-3?" / "eu-west-3.": the answer
                # alone says nothing; with the question, it is what was decided
                reply = " ".join(prose.split())
                decided = shorten(f"{asked[0]} \u2192 {reply}", MAX_FACT_CHARS)
                yield Fact("decision", decided, TIERS["decision"], who="agent")
            # the agent's answer to a question takes nothing up ("Right, it failed because")
            answering = proposal is None and not _asks(prose)
            # "can you explain ...?" too, and Japanese "...ですか。"
            asking = any(mark in prose for mark in _ASKED) or _JA_ASKS.search(prose) is not None
            said = []
            offered = []
            request = prose[:_SHARED_READ]
            if _talks_secret(request):  # every value the message gives may be the secret
                secrets |= {n for _, n in _name_runs(request) if _valueish(n)}
                shared = set()
            else:
                shared = _shared_names(request) - {v.lower() for v in secrets}
            shown = _Shown()
        else:
            first = sentences[0] if sentences else ""
            if len(sentences) > 1 and answering and _acknowledges_only(first):
                first = f"{first} {sentences[1]}"  # "Understood. eu-west runs 5 replicas."
            # The first thing the agent says after a correction, or when it takes up
            # what the user asked ("Understood: walking distance replaces ..."), is the
            # decision as it understood it: it names what the user's words may only imply.
            # So is, in any language, a short reply right after the user's words that
            # says again what they gave ("Setez retention.ms la 14 zile."): _taken_up.
            head = _taken_up(entries, index, prose) if answering and not asking else None
            if head is not None and not corrected and not _acknowledges(first):
                # with the words it takes up: "Entesos, 61.0." says 61.0 of what only
                # after "Decidit: API 61.0 a sfdx-project.json ..."
                taken = shorten(_prose(entries[index - 1].text), _TAKEN_CHARS)
                first = f"{taken} \u2192 {' '.join(head.split())}"
            takes_up = corrected or (answering and (_acknowledges(first) or head is not None))
            if takes_up and _long_enough(first) and not first.endswith(_ASKED):
                yield Fact(
                    "decision", shorten(first, MAX_FACT_CHARS), TIERS["decision"], who="agent"
                )
            corrected = answering = False
            said.append(prose)
            offered.append(_prose(entry.text, fold=True) if "```" in entry.text else prose)
        instructed = planned = False
        # a date the sentence splitter cuts ("do 14. oktobra"): the message's own
        dated = who == "user" and _DEADLINE.search(" ".join(prose.split())) is not None
        before = ""  # the sentence before, for one that only points back ("Pošlu ho zítra.")
        said_here: list[list[Fact]] = []  # the agent's words about named things, by sentence
        for sentence in sentences:
            earlier, before = before, sentence
            source = "user id" if who == "user" else "agent id"
            ids = list(_plain_ids(sentence))
            holds_secret = who == "agent" and any(v in sentence for v in secrets)
            if who == "agent" and shown.outputs and not holds_secret:
                ids += [t for t in shown.singled_out(sentence) if t not in ids]
            for token in ids:  # a question or a short line names ids too
                yield Fact("id", token, TIERS[source], context=_context(sentence, token), who=who)
            if who == "user":  # a point in time the user gives is theirs (a log's is noise)
                for moment in _MOMENT.findall(sentence):
                    context = _context(sentence, moment)
                    yield Fact("id", moment, TIERS[source], context=context, who=who)
            # the agent's words about named things (_said_records: never a question)
            reads_said = (
                who == "agent" and len(said_here) < _SAID_SENTENCES_READ and not holds_secret
            )
            if not _long_enough(sentence) or sentence.endswith(_ASKED):
                # two words, one of them the thing the request or a command named: a
                # deed told in a language that puts it in one word ("fraud.scores.v1
                # ಅಳಿಸಲಾಗಿದೆ.", "rate_tiers.map isusiwe.")
                if reads_said and shared and len(sentence.split()) == 2:
                    said_of = [
                        f
                        for f in _said_records(sentence, hyphenated, shared)
                        if f.key.lower() in shared
                    ]
                    if said_of:
                        said_here.append(said_of)
                continue
            if who == "agent":
                yield from _moved_records(sentence)
                told = list(_stated_records(sentence))
                yield from told
                if not told and reads_said:
                    said_of = list(_said_records(sentence, hyphenated, shared))
                    if said_of:
                        said_here.append(said_of)
            clipped = shorten(sentence, MAX_FACT_CHARS)
            if (
                who == "user"
                and not planned
                and (
                    dated
                    or _NEXT.search(sentence)
                    or _DEADLINE.search(sentence)
                    or _names_weekday(sentence)
                )
            ):
                # the whole message, as for an instruction: a plan's condition and its
                # steps often sit in sentences of their own
                planned = True
                yield Fact("next", shorten(prose, MAX_FACT_CHARS), TIERS["user next"])
            elif who == "agent" and _AGENT_NEXT.search(sentence):
                if earlier and len(sentence.split()) < 8:  # "I'll send it tomorrow.": what?
                    clipped = shorten(f"{earlier} {sentence}", MAX_FACT_CHARS)
                yield Fact("next", clipped, TIERS["agent next"], who="agent")
            if (
                who == "user"
                and not instructed
                and (answers or _instructs(sentence, facts.instructions))
            ):
                # the whole message: a correction's reason and its new rule often sit in
                # sentences of their own ("Wait, I misread it. Include them.")
                instructed = True
                yield Fact("instruction", shorten(prose, MAX_FACT_CHARS), TIERS["instruction"])
        if (instructed or planned) and len(" ".join(prose.split())) <= MAX_FACT_CHARS:
            answering = False  # the user's words are a fact whole: the agent's take adds none
        # of the sentences about named things, those telling a deed first ("Finally I
        # deleted x.sql" after three "I read ..."), in their order
        deeds = {id(f) for f in said_here if _DEED.search(f[0].state)}
        chosen = sorted(said_here, key=lambda f: id(f) not in deeds)[:_SAID_PER_MESSAGE]
        for said_of in (f for f in said_here if any(f is c for c in chosen)):
            yield from said_of
            if id(said_of) in deeds:
                for fact in said_of:
                    late.pop(fact.key, None)
                    late[fact.key] = (index, fact)
        while len(late) > _LATE_DEEDS:
            del late[next(iter(late))]
    # Files and records, in the order they were last touched.
    for path in edited:  # edit blocks in the agent's text (aider's SEARCH/REPLACE)
        facts.act(path, "modified")
    for path, actions in facts.artifacts.items():
        changes = [
            a
            for a in actions
            if a in ("created", "modified", "deleted") or a.startswith("moved to ")
        ]
        if changes and (changes[-1] == "deleted" or changes[-1].startswith("moved to ")):
            changes = changes[-1:]  # gone from here: its earlier states are superseded
        elif "deleted" in changes:  # deleted, then written again
            changes = changes[changes.index("deleted") + 1 :]
        status = [a for a in actions if a.startswith("status ") or "(set by " in a]
        if changes:
            tested = facts.tests.get(path, "")
            state = ", ".join(changes)
            if tested.startswith("tests passed"):
                state += "; tests passed"
            elif tested.startswith("tests failed"):
                state += "; tests failed"
            elif "(tests passed before it)" in tested:
                state += "; tests passed before the last change"
            elif "(tests failed before it)" in tested:
                state += "; tests failed before the last change"
            yield Fact("file", path, TIERS["changed"], state=state)
        elif status:
            latest = status[-1].split(" (set by ")[0].removeprefix("status ")
            yield Fact("record", path, TIERS["changed"], state=shorten("status " + latest, 120))
        elif "read" in actions:
            yield Fact("file", path, TIERS["read"], state="read")
    # Identifiers in the id-like arguments of tool calls and in tool outputs (not in
    # what a tool only read: a file's or a page's content is bulk, not facts).
    # per call, by its id (or its place, where ids are unknown): whether it reads a file
    # (its output is content), and the commands and SQL it runs (what they change is
    # told once its output refuses nothing)
    calls: dict[str, tuple[bool, list[tuple[str, bool]]]] = {}
    names: dict[str, str] = {}  # what earlier answers named each id they listed
    failing: set[str] = set()  # tests a run reported failing, until one reports them passing
    uncommitted: dict[str, str] = {}  # what git status listed, until it reports a clean tree
    for at, entry in enumerate(entries):
        if entry.kind == "call":
            reads_file = (
                tool_action(entry.tool) == "read"
                and _names_file(entry.text)
                and not _SEARCHES.search(entry.text)  # a search's hits are findings
            )
            objects = _json_objects(entry.text)
            runs: list[tuple[str, bool]] = []
            for item in objects:  # an SQL statement, a patch bumping a dependency
                for key, value in item.items():
                    if isinstance(value, list) and all(isinstance(v, str) for v in value):
                        value = " ".join(value)  # ["bash", "-lc", "git switch -c x"]
                    if isinstance(value, str) and len(value) < 20_000:
                        yield from _sql_records(value)
                        yield from _changed_records(value)
                        sql = _runs_sql(entry.tool, key, value)
                        if sql or str(key).lower() not in _TEXT_KEYS:
                            runs.append((value, sql))
            calls[entry.ref or f"#{at}"] = (reads_file, runs)
            for value, context in [*_json_ids(objects), *_argument_ids(objects)]:
                context = f"{entry.tool} {context}"
                yield Fact("id", value, TIERS["agent id"], context=context, who="agent")
        elif entry.kind in ("result", "error"):
            ref = entry.ref if entry.ref in calls else next(iter(calls), None)
            reads, runs = calls.pop(ref) if ref is not None else (False, [])
            done = entry.kind == "result" and not _REFUSED.search(entry.text, 0, _REFUSAL_CHARS)
            if done:
                for value, sql in runs:
                    if sql:
                        key_sql = not _SQL_CLIENT.search(value)
                        yield from _schema_records(value, sql_argument=key_sql)
                    yield from _command_records(value, entry.text)
            yield from _output_facts(
                entry.text,
                reads=reads,
                failing=failing,
                uncommitted=uncommitted,
                committed=any(_GIT_COMMIT.search(value) for value, _ in runs),
            )
            # the settings a command set: after what its output said of the thing
            # ("deployment.apps/web scaled" -> web: replicas=2, what it is now)
            if done:
                for value, _sql in runs:
                    yield from _setting_records(value, names)
            if not reads and "{" in entry.text and len(entry.text) <= _NAMES_READ:
                _names_by_id(_json_objects(entry.text), names)
            # the words right after an output, pointing at rows of it ("the 27.1.8
            # image in the table above", "the line tagged pre-upgrade")
            # (the agent's "done." often comes first: every text up to the next call)
            after = list(
                itertools.takewhile(
                    lambda e: e.kind == "text", entries[at + 1 : at + 1 + _POINTING_REACH]
                )
            )
            if not reads and after:
                yield from _pointed_rows(entry.text, "\n".join(_prose(e.text) for e in after))
    # The agent's report of a deed, where no tool named the thing after it, is the
    # newest word on it ("I restored users_backup" after the tool's "dropped").
    for key, (index, fact) in late.items():
        if not any(e.kind != "text" and key in e.text for e in entries[index + 1 :]):
            yield dataclasses.replace(fact, who="agent")


_POINTING_REACH: Final = 3  # entries after an output where the words about it are read
_POINTED_ROWS: Final = 3  # rows of one output the words after it may point to
_POINTED_IDS: Final = 4  # ids taken from each of them
# A word that can point at one row: it holds a digit ("27.1.8", "R733867197") or joins
# words ("pre-upgrade", "nc_test"); a clock time ("created at 19:41"). Letters of scripts
# written without spaces run into a version ("表の10.2.6のイメージ"): a word with a digit
# is read in ASCII only.
_POINTER = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?|[A-Za-z0-9._-]+|[^\W\d_]+(?:[-_][^\W\d_]+)+")
_POINTER_WORDS: Final = 64  # distinct words after an output tried, at most
# A plain word points at a row when it is a whole word of that one row of a listing: a
# state the tool printed ("the member that is unstarted", "the UNSTABLE build", "the pod
# in CrashLoopBackOff"), read in ASCII, whatever language is around it.
_PLAIN_POINTER = re.compile(r"[A-Za-z]{3,}")
_CELL = re.compile(r"[A-Za-z]+")
# (the words of a sentence about a listing that a listing's row may hold too)
_NOT_POINTERS: Final = frozenset(
    {
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "not",
        "all",
        "one",
        "its",
        "but",
        "you",
        "are",
        "was",
        "has",
        "line",
        "row",
        "list",
        "table",
        "output",
        "above",
        "below",
    }
)


def _pointed_rows(output: str, words: str) -> Iterator[Fact]:
    """The ids of the rows of a tool's ``output`` that the ``words`` after it point to:
    a word of theirs found on one or two of its lines, not its first (a table's head),
    or a plain word that is a whole word of exactly one of them. Of a listing, those
    are the rows the conversation is about ("the 27.1.8 image is still there, in the
    table above": its image id is the one a rollback needs)."""
    lines = [line for line in output.splitlines() if line.strip()]
    if len(lines) < 3 or len(output) > _POINTED_OUTPUT_CHARS or _secret_columns(lines[0]):
        return  # (a listing whose head names a password or a secret column: none)
    taken: set[str] = set()
    pointers: dict[str, bool] = {}  # word -> plain (matched as a whole word, one row)
    for match in _POINTER.finditer(words):
        word = match.group(0).strip(".-_")
        pointing = any(c.isdigit() for c in word) or "-" in word or "_" in word
        if len(word) >= 3 and pointing and not (word.isdigit() and len(word) < 4):
            pointers.setdefault(word, False)
        elif _PLAIN_POINTER.fullmatch(word) and word.lower() not in _NOT_POINTERS:
            pointers.setdefault(word, True)
        if len(pointers) >= _POINTER_WORDS:
            break
    cells: dict[str, list[int]] | None = None  # a whole word -> the rows holding it
    for word, plain in sorted(pointers.items(), key=lambda item: item[1]):
        if len(taken) >= _POINTED_ROWS:
            break
        rows = []
        if plain:
            if cells is None:
                cells = {}
                for at, line in enumerate(itertools.islice(lines, 1, None), 1):
                    for cell in set(_CELL.findall(line)):
                        cells.setdefault(cell, []).append(at)
            hits = cells.get(word, ())
            if len(hits) == 1 and len(lines) >= 4:
                rows.append(lines[hits[0]])
        else:
            for line in itertools.islice(lines, 1, None):
                if word in line:
                    rows.append(line)
                    if len(rows) > 2:
                        break
        if not 1 <= len(rows) <= 2:
            continue
        for row in rows:
            if row in taken or len(taken) >= _POINTED_ROWS or _talks_secret(row):
                continue
            taken.add(row)
            named = [
                t
                for t in _line_ids(row)
                if t != word
                and _strong_id(t)
                and not (_KEYLIKE.fullmatch(t) and f"/{t}" not in row)
            ]
            # the conversation singled the row out: its ids rank with the agent's own,
            # above the tools' bulk
            for token in named[:_POINTED_IDS]:
                yield Fact("id", token, TIERS["agent id"], context=_context(row, token))


_POINTED_OUTPUT_CHARS: Final = 200_000
# A listing's head that names a column of credentials: "NAME SECRET STATE", "id user
# password role" (three columns or more, no sentence: "Success! Disabled the secrets
# engine at: kv/" is Vault's report, not a head).
_SECRET_COLUMN = re.compile(
    r"(?i)(?<![\w-])(?:secret|password|passwd|passphrase|token|api[_-]?key|private[_-]?key|"
    r"credential|secret[_-]?access[_-]?key)s?(?![\w-])"
)


def _secret_columns(head: str) -> bool:
    """Whether ``head``, an output's first line, is a listing's head naming a column of
    credentials (:data:`_SECRET_COLUMN`)."""
    if len(head.split()) < 3 or any(mark in head for mark in "!.:("):
        return False
    return _SECRET_COLUMN.search(head) is not None


# A random key, token or password in a pointed row (a KEY or value column): twelve
# letters and digits or more, upper and lower case and a digit, nothing joining them
# (:data:`_RANDOM_TOKEN`'s shape, from twelve characters: a password's length).
# Ids people point at join their parts (PROJ-123, a pod's name, a UUID) or are one case;
# one that ends a path (a Vault lease, database/creds/ro/k6y3KcUD...) is a name.
_KEYLIKE = re.compile(r"(?<![A-Za-z0-9])" + _mixed_case(12))


def _prose(text: str, *, fold: bool = False) -> str:
    """``text`` without what is not anyone's words: fenced code (a file's content, an
    edit) and the context a client injects (``<system-reminder>``,
    ``<environment_context>`` ...). Linear in ``text``: a fence or a tag never closed
    is left as it is. With ``fold``, a short block right after a line ending with a
    colon ("Here is the change I'd make:") is kept on that line, as what it shows."""
    kept: list[str] = []
    opened: int | None = None  # where in ``kept`` the open fence's lines start
    for line in text.split("\n"):
        if line.startswith("```"):
            if opened is None:
                opened = len(kept)
                kept.append(line)
            elif not line[3:].strip():  # a closing fence: the block goes
                shown = _folded(kept[opened + 1 :]) if fold and opened else None
                del kept[opened:]
                if shown is not None and kept[-1].rstrip().endswith((":", "\uff1a")):
                    kept[-1] = f"{kept[-1].rstrip()} {shown}"
                kept.append("")
                opened = None
            else:
                kept.append(line)
        else:
            kept.append(line)
    return _without_injected("\n".join(kept))


_FOLDED_LINES: Final = 6
_FOLDED_CHARS: Final = 160
_DIFF_HEADER = re.compile(r"(?:\+\+\+|---|@@|diff |index )")


def _folded(block: Sequence[str]) -> str | None:
    """A short code block on one line: a diff's changed lines, else its lines; ``None``
    when it is long or holds a credential."""
    lines = [line.strip() for line in block if line.strip()]
    if lines and all(line[:1] in "+- @" or _DIFF_HEADER.match(line) for line in lines):
        lines = [line for line in lines if line[:1] in "+-" and not _DIFF_HEADER.match(line)]
    shown = "; ".join(lines)
    if not lines or len(lines) > _FOLDED_LINES or len(shown) > _FOLDED_CHARS:
        return None
    bare = "\n".join(line.lstrip("+-") for line in lines)  # "-pool: 10" passes no "-p"
    if _CREDENTIAL.search(bare) or _SECRET_TALK.search(bare):
        return None
    return shown


def _without_injected(text: str) -> str:
    """``text`` without ``<...reminder|context|...>`` blocks, each opening matched with
    the first closing of its name after it (found once per name: linear)."""
    closes: dict[str, list[int]] = {}
    for match in _CLOSING.finditer(text):
        closes.setdefault(match.group(1).lower(), []).append(match.start())
    if not closes:
        return text
    parts: list[str] = []
    at = 0
    for match in _OPENING.finditer(text):
        if match.start() < at:
            continue
        ends = closes.get(match.group(1).lower(), [])
        i = bisect.bisect_left(ends, match.end())
        if i == len(ends):
            continue
        parts.append(text[at : match.start()])
        parts.append("\n")
        at = ends[i] + len(match.group(1)) + 3
    parts.append(text[at:])
    return "".join(parts)


def _names_file(arguments: str) -> bool:
    """Whether a tool call's ``arguments`` name a file (not a URL) other than a log: a
    file's content is bulk, a log (``.log``, ``.out``, ``.err``) is the record of what a
    run did, read like any tool's output."""
    return any(
        not p.startswith("http") and not p.endswith((".log", ".out", ".err"))
        for p in PATH.findall(arguments)
    )


# A change of mind, at the start of a sentence (after an opener) or anywhere in it.
_CHANGE = re.compile(
    r"^(actually|correction|scratch (?:that|this|what i said)|on second thought|change of plan|"
    r"wait|no|nope|ignore what i said|"
    r"never mind|forget|i meant|sorry,? i meant|eigentlich|doch|nein|warte|korrektur|"
    r"vergiss|en realidad|de hecho|espera|mejor|olvida|pensándolo|pensandolo|en fait|"
    r"non|attends|finalement|plutôt|oublie|réflexion faite|in realtà|anzi|aspetta|"
    r"ripensandoci|pensandoci|lascia|na verdade|não|pensando (?:bem|melhor)|"
    r"esquece|deixa|eigenlijk|nee|wacht|laat maar|bij nader inzien|vergeet|nie|czekaj|"
    r"poczekaj|jednak|nej|vänta|förresten|glöm|ne|počkej|oprava|ei|odota|moment|"
    r"muutos|korjaus|älä|διόρθωση|όχι|τελικά|μάλλον|αλλαγή|módosítás|javítás|mégse|mégis|"
    r"inkább|poprawka|korekta|zmiana|corrige|corrija|corrigindo|opravdu ne)\b"
    r"|\b(my bad|i was wrong|i misspoke|i stand corrected|let me correct myself|hold on|"
    r"decided|has decided|have decided|a tranché|a décidé|ont décidé|hat entschieden|"
    r"haben entschieden|ha decidido|han decidido|ha deciso|hanno deciso|heeft besloten|"
    r"hebben besloten|decidiu|decidiram|zdecydował[aoy]?|har beslutat|har bestemt|"
    r"instead|changed my mind|rather than|statt|stattdessen|anders überlegt|"
    r"doch nicht|en lugar de|en vez de|cambio de planes|au lieu de|à la place|"
    r"tout compte fait|invece|ho cambiato idea|em vez de|mudei de ideia|in plaats van|"
    r"zamiast|istället|i stället|rozmyslel[aiy]?|rozmysleli|místo toho|namiesto|"
    r"sen sijaan|αντί για|αντί|helyett)\b",
    re.IGNORECASE,
)


# The same in languages whose words \b does not separate (Japanese, Chinese, Korean) or
# whose markers the list above lacks (Arabic, Russian, Turkish, Hindi).
_CHANGE_MORE = re.compile(
    r"^(?:いや|いいえ|やっぱり|やはり|不对|不是|算了|还是|아니|아뇨|لا[،,]|нет\b|hayır|nahin|nahi\b)"
    r"|やっぱり|ではなく|じゃなくて|の代わりに|不要用|改成|改用|而不是|말고|대신|بدلا|بدلاً|"
    r"بل |вместо|передумал|лучше используй|yerine|vazgeç|aslında|ki jagah|"
    # announced decisions and cancellations: "...기로 했습니다", "...ことにしました", "决定"
    r"기로 했|기로 결정|취소|ことにし|に決め|取り消|キャンセル|决定|取消|改为",
    re.IGNORECASE,
)


# A short yes, at the start of the user's words: the agent's proposal is approved
# ("yes, do that", "ja gör så", "dale", "vas-y", "evet", "được", "はい", "好的", "네").
_APPROVES = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|ok|okay|k|agreed|approved|sounds (?:good|right|fine|great)|"
    r"looks (?:good|right|fine)|that works|go ahead|go for it|"
    r"do it|do that|please do|perfect|great|fine|lgtm|ship it|makes sense|works for me|"
    r"let'?s do (?:it|that)|ja|jo|jawohl|klar|passt|einverstanden|genau|gerne|mach das|"
    r"oui|ouais|d'accord|vas-y|allez-y|parfait|ça marche|entendu|volontiers|sí|si|dale|"
    r"vale|de acuerdo|hazlo|adelante|perfecto|claro|listo|sì|va bene|procedi|vai|"
    r"d'accordo|perfetto|certo|sim|pode|pode ser|beleza|combinado|fechado|prima|doe maar|"
    r"akkoord|top|is goed|japp|kör|gör så|absolut|låter bra|okej|visst|toppen|kør|"
    r"gør det|gjør det|tak|dobrze|zgoda|śmiało|jasne|pewnie|ano|dobře|souhlasím|jasně|"
    r"klidně|kyllä|joo|sopii|selvä|igen|oké|rendben|mehet|ναι|εντάξει|προχώρα|evet|"
    r"tamam|olur|aynen|uygun|có|được|đồng ý|ừ|vâng|ok em|làm đi|ya|iya|oke|boleh|setuju|"
    r"silakan|lanjut|da|de acord|sigur|да|давай|хорошо|согласен|так|добре|гаразд|згоден|"
    r"نعم|أجل|تمام|موافق|حسنا|हाँ|हां|ठीक है|haan|theek hai)(?![\w'-])"
    r"|^(?:はい|ええ|うん|お願いします|それで|そうして|了解|好的|好|可以|行|是的|同意|就这样|"
    r"没问题|네|예|응|좋아요|좋습니다|그렇게|진행)",
    re.IGNORECASE,
)
# What marks the sentence that proposes ("I'd switch ...", "Mitt förslag: ...") among
# the agent's words before the user's yes.
_PROPOSES = re.compile(
    r"\b(?:i['’]d(?! (?:seen|been|had|done|never|already|just|not|have|heard|thought))|"
    r"i would(?! have)|i suggest|i propose|i recommend|my (?:suggestion|proposal|"
    r"recommendation)|we should|how about|what about|shall i|should i|want me to|"
    r"ich würde|ich schlage|vorschlag|wir könnten|soll ich|je propose|je suggère|"
    r"je recommande|proposition|on pourrait|propongo|sugiero|recomiendo|propuesta|"
    r"podríamos|suggerisco|consiglio|proposta|potremmo|proponho|sugiro|recomendo|"
    r"poderíamos|ik stel voor|voorstel|zal ik|förslag|jag föreslår|ska jag|proponuję|"
    r"sugeruję|propozycja|navrhuji|návrh|ehdotan|javaslom|öneri|öneririm|önerim|đề xuất|"
    r"đề nghị|saran|usul|sebaiknya|предлагаю|"
    # offers in the conditional: "I could also ...", "könnte ich ...", "on pourrait ..."
    r"i could(?! not|n't)|we could(?! not|n't)|i can also|schlage ich|könnte ich|"
    r"könnten wir|würde ich|"
    r"je pourrais|nous pourrions|podría|potrei|poderia|ik zou|we zouden|ik kan ook|"
    r"saya bisa|bagaimana kalau|mohl bych|mohli bychom|mógłbym|moglibyśmy|jag kan också|"
    r"vi skulle kunna|могу также|"
    # "I propose / suggest" in more languages
    r"proposo|suggereixo|propoño|predlažem|предлажем|предлагам|navrhujem|predlagam|"
    r"siūlau|iesaku|soovitan|jeg foreslår|foreslår jeg|legg til|leg til|пропоную|"
    r"cadangkan|napendekeza|mungkahi ko)\b"
    r"|پیشنهاد|أقترح|אני מציע|אני מציעה|გთავაზობ|பரிந்துரை|सुझाव"
    r"|我可以|我们可以|要不"
    r"|提案|しましょうか|いかがでしょう|建议|要不要|제안|할까요|어떨까요",
    re.IGNORECASE,
)


# The agent taking up what the user said, at the start of its answer ("Understood:",
# "OK, ...", "Uppfattat:", "Dạ, ...", "Tamam, ...", "Anlaşıldı:", "了解しました"); not
# "Done", which reports what was asked before ("done with T-1000").
_ACKNOWLEDGES = re.compile(
    r"^(?:ok|okay|got it|understood|noted|will do|makes sense|on it|sounds good|"
    r"roger|agreed|verstanden|alles klar|in ordnung|notiert|geht klar|compris|entendu|"
    r"bien reçu|принято|"
    r"d'accord|noté|c'est noté|très bien|entendido|de acuerdo|vale|anotado|listo|"
    r"capito|va bene|d'accordo|perfetto|entendi|combinado|"
    r"begrepen|genoteerd|prima|duidelijk|okej|uppfattat|noterat|absolut|klart|forstået|"
    r"skjønner|zrozumiałem|zrozumiałam|jasne|dobrze|rozumiem|rozumím|jasně|dobře|selvä|"
    r"ymmärretty|rendben|értem|εντάξει|κατάλαβα|anlaşıldı|tamam|peki|anladım|olur|dạ|"
    r"vâng|được|đã rõ|baik|siap|oke|mengerti|понял|поняла|хорошо|ясно|зрозумів|добре|"
    r"حسنا|تمام|فهمت|ठीक है|समझ गया)(?![\w'])"
    r"|^(?:了解|承知|かしこまりました|わかりました|分かりました|好的|明白|收到|知道了|알겠습니다|"
    r"네[,.]|알겠어요|좋습니다)",
    re.IGNORECASE,
)


def _acknowledges(sentence: str) -> bool:
    """Whether the agent's first ``sentence`` takes up what the user said and says what
    it took up (three words after the acknowledgement, two with a figure, or six CJK
    characters)."""
    flat = " ".join(sentence.split())
    match = _ACKNOWLEDGES.search(flat)
    if not match:
        return False
    said = flat[match.end() :].lstrip(",.:;!—– ")
    # a value set in two words says something too ("Tamam, LIMIT=40 yapıyorum.")
    return _long_enough(said) or (len(said.split()) == 2 and any(c.isdigit() for c in said))


def _acknowledges_only(sentence: str) -> bool:
    """Whether ``sentence`` is an acknowledgement and nothing else ("Understood.",
    "承知しました。")."""
    match = _ACKNOWLEDGES.search(sentence)
    if match is None:
        return False
    rest = sentence[match.end() :].strip(" ,.!:;\u3002\uff01\u3001")
    return not rest or (len(rest) <= 4 and len(_CJK.findall(rest)) == len(rest))


def _asks(text: str) -> bool:
    """Whether a sentence of ``text`` asks something (a question that is not a request:
    "why did it fail?", not "can you draft it?")."""
    return any(
        q.endswith(_ASKED) and not _REQUEST_ASK.search(q)
        for q in (s.strip() for s in SENTENCE.split(text))
    )


# A request put as a question: "Can you ...?", "Kannst du ...?", "你帮我...？"
_REQUEST_ASK = re.compile(
    r"\b(?:can|could|would|will) you\b|\bplease\b|kannst du|könntest du|können sie|"
    r"pourriez|pourrais-tu|peux-tu|puedes|podrías|puede usted|puoi|potresti|podes|podia|"
    r"pode |kun je|kunt u|kan du|kan ni|możesz|mógłbyś|můžeš|mohl bys|bisa|tolong|"
    r"voisitko|tudnál|yapabilir|có thể|можешь|можете|"
    r"帮我|帮忙|能不能|可以.{0,20}吗|てもらえ|してくれ|いただけ|해 ?줄|주실|주세요|줄래",
    re.IGNORECASE,
)


def _approves(text: str) -> bool:
    """Whether the user's ``text`` is a short yes (twelve words at most, or 24 CJK
    characters) to what the agent just said: a yes word on its own (then punctuation or
    the end, or all of a reply of three words: "ja gör så"), no question back ("ok?"),
    and nothing after it that puts off or refuses ("yes, but not now", "да нет")."""
    flat = " ".join(text.split()).lstrip("*_-—–>:;,. ")
    words = len(flat.split())
    if words > 12 or len(_CJK.findall(flat)) > 24 or any(m in flat for m in _ASKED):
        return False
    match = _APPROVES.search(flat)
    if match is None:
        return False
    rest = flat[match.end() :]
    alone = not rest or rest[0] in ",.!;:\u2014\u2013\u3001\u3002\uff0c\uff01" or words <= 3
    if _scorns(rest):
        return False
    return (alone or _APPROVES_ANYHOW.match(flat) is not None) and _DEFERS.search(rest) is None


# A yes word said in scorn, by what follows it: "yeah right", "as if that would work"
_SCORN = re.compile(
    r"^[\s,.!]*right(?:[\s,.!]*$|[\s,.!]+(?:as if|like|sure)(?![\w-]))|(?<![\w-])as if(?![\w-])"
    r"|(?<![\w-])(?:als ob|comme si|como si|come se|alsof|som om|jakby|как будто)(?![\w-])",
    re.IGNORECASE,
)
# ... or by a breakage it reports right after it, of what is there or of everything:
# "great, it's broken again", "perfect, now it's broken everywhere", "super, jetzt ist
# alles kaputt", "genial, otra vez roto", "parfait, c'est encore cassé", "отлично,
# опять всё сломалось" (not "yes, fix the broken build": no subject opens it)
_BROKE_NOW = re.compile(
    r"^[\s,.!:;\u2014\u2013-]*(?:(?:now|and|it|it's|it’s|it is|that|that's|this|everything|"
    r"everything's|all|so|is|are|still|again|jetzt|und|es|das|ist|sind|alles|schon|wieder|"
    r"ahora|y|otra vez|de nuevo|está|todo|c'est|ça|et|tout|maintenant|encore|est|ora|e|"
    r"adesso|di nuovo|si|è|tutto|agora|de novo|tudo|nu|het|is|alles|weer|opnieuw|и|теперь|"
    r"опять|снова|всё|все|оно)\s+){0,5}"
    r"(?:broken|broke|crashed|crashing|failing|failed|fails|down again|red again|worse|"
    r"kaputt|abgestürzt|roto|rota|caído|cassée?|planté|rotto|rotta|quebrado|quebrada|"
    r"quebrou|stuk|kapot|сломал\w{0,3}|сломан\w{0,3}|упал\w{0,2})(?![\w-])",
    re.IGNORECASE,
)
_BROKE_CJK = re.compile(r"壊れ|坏了|又挂|挂了|망가|고장")


def _scorns(rest: str) -> bool:
    """Whether what follows a yes word (``rest``) makes it scorn, not approval: "right"
    or "as if" ("yeah right, as if that would work"), or the report of a breakage with
    nothing after it that still approves ("great, it's broken again"; not "yes, it's
    still failing, go ahead")."""
    if _SCORN.search(rest):
        return True
    broke = _BROKE_NOW.search(rest) or _BROKE_CJK.search(rest)
    return broke is not None and _APPROVES_ANYHOW.search(rest, broke.end()) is None


# Yes words that open no other sentence in any language the rules read ("ok em làm vậy
# đi"): they need no punctuation after them. "ya", "da", "si", "так", "có", "top" do.
_APPROVES_ANYHOW = re.compile(
    r"(?:ok|okay|oké|okej|oke|yes|yeah|yep|yup|sure|agreed|approved|go ahead|go for it|"
    r"do it|do that|please do|lgtm|ship it|einverstanden|d'accord|vas-y|de acuerdo|hazlo|"
    r"adelante|va bene|procedi|d'accordo|combinado|akkoord|doe maar|gör så|zgoda|"
    r"souhlasím|kyllä|rendben|mehet|evet|tamam|đồng ý|được|setuju|silakan|lanjut|"
    r"согласен|давай|гаразд|згоден|موافق)(?![\w'-])"
    r"|はい|好的|可以|네|좋아요|좋습니다",
    re.IGNORECASE,
)


# What puts off or refuses after a yes word: "but", "not", "later", "wait" ...
_DEFERS = re.compile(  # a word, not a name's start ("ei-prod-2", "no-east-1")
    r"(?<![\w-])(?:but|not|no(?! problem| worries| prob)|don'?t|do not|hold|later|wait|never|"
    r"nicht|nein|aber|später|warte|"
    r"pero|todavía|después|mais|pas|plus tard|però|ma|dopo|mas|não|depois|niet|nog "
    r"niet|later|men|inte|ej|senare|vänta|ale|nie|później|ale ne|ne|pozdě|ama|değil|"
    r"sonra|nhưng|không|chưa|tapi|jangan|nanti|нет|не|но|потом|ei|mutta|myöhemmin|nem|"
    r"később|αλλά|όχι|μετά)(?![\w-])"
    r"|でも|けど|やめ|待って|后|但|别|不|先别|아니|하지 마|나중|그런데|하지만",
    re.IGNORECASE,
)


def _proposal(text: str) -> tuple[str, bool] | None:
    """What the agent's ``text`` proposes, asks or announces, on one line, and whether
    it proposed or asked (a word says so, or it ends with a question); ``None`` when it
    says too little. From the sentence that proposes as much as a fact holds, else its
    last sentence (two when that one is short), without a closing bare question ("Want
    me to go ahead?", "Ska jag köra på det?") that says nothing itself."""
    sentences = [" ".join(s.split()) for s in SENTENCE.split(text)]
    sentences = [s for s in sentences if s and not _GENERIC_ASK.search(s)]
    asks = bool(sentences) and sentences[-1].endswith(_ASKED)
    while len(sentences) > 1 and _bare_ask(sentences[-1]):
        sentences.pop()
    if not sentences:
        return None
    marked = [i for i, s in enumerate(sentences) if _PROPOSES.search(s)]
    if marked:
        picked = sentences[marked[-1] :]
        while len(picked) > 1 and len(" ".join(picked)) > MAX_FACT_CHARS:
            picked.pop()
    else:  # the last two sentences: what is proposed, and what it is for or why
        picked = sentences[-2:]
        while len(picked) > 1 and len(" ".join(picked)) > MAX_FACT_CHARS:
            picked = picked[1:]
    said = " ".join(picked)
    if not _long_enough(said):
        return None
    if not (marked or asks or _AGENT_NEXT.search(said) or _NEXT.search(said) or _SOON.search(said)):
        return None  # a report ("Deployed build 4812."): no work announced, nothing asked
    return shorten(said, MAX_FACT_CHARS), bool(marked or asks)


# Work announced for now: "Next step: ...", "... today" (in the agent's words the user
# welcomed, not a report of what is done).
_SOON = re.compile(
    r"\b(?:today|later today|próximo paso|nästa steg|næste skridt|neste steg|następny krok|"
    r"další krok|seuraava vaihe|következő lépés|sonraki adım|bước tiếp theo|"
    r"langkah berikutnya|i dag|heute|hoy|aujourd'hui|oggi|hoje|vandaag|dzisiaj|dnes|"
    r"tänään|bugün|hôm nay|hari ini|сегодня)\b|下一步|今天|今日中|오늘|다음 단계",
    re.IGNORECASE,
)
# A question that asks about nothing said before it ("Anything else?").
_GENERIC_ASK = re.compile(
    r"^(?:anything|something) else\b|^what else\b|otra cosa|algo más|noch (?:etwas|was)\b|"
    r"autre chose|qualcos'altro|mais alguma|nog iets|något (?:annat|mer)|jeszcze coś|"
    r"ještě něco|başka bir|还有别的|还有什么|他に何か|ほかに何か|다른 건",
    re.IGNORECASE,
)


# A question a yes does not answer with a choice: one between options ("UTC or local
# time?", "...还是...？") or a question word's ("Which one do you prefer?", "Welche
# Region?"); not one that asks for a verdict ("What do you think?", "How about ...?")
_CHOICE = re.compile(
    r"(?<![\w-])(?:or|oder|ou|eller|lub|albo|nebo|или|atau)\s+(?!not\b|no\b|nicht\b|non\b|"
    r"so\b|two\b|more\b|less\b|later\b|newer\b|higher\b|above\b|anything\b|something\b|"
    r"pas\b|nein\b|nie\b|нет\b)|还是|或者|それとも|아니면",
    re.IGNORECASE,
)
_WH_ASK = re.compile(
    r"^(?:which|what|where|when|who|whom|whose|how (?:many|much|long|often|big)|welche[rsmn]?|"
    r"wo|wann|wer|wie viele|quel(?:le)?s?|lequel|laquelle|où|quand|cuál|cuáles|dónde|"
    r"cuándo|quién|quale|quali|dove|quando|qual|quais|onde|welke|waar|wanneer|vilken|"
    r"vilket|vilka|var|när|który|która|które|gdzie|kiedy|какой|какая|какие|где|когда)"
    r"(?![\w'-])|^(?:哪|どれ|どちら|どの|어느|어떤|무엇)",
    re.IGNORECASE,
)
_VERDICT_ASK = re.compile(
    r"\b(?:what (?:do|would) you (?:think|say)|how does (?:that|this) sound|what about|how about|"
    r"what if|why not|was (?:meinst|denkst|hältst) du|qu'en (?:penses|dites)|qué (?:te|le) "
    r"parece|que (?:acha|achas)|che ne (?:pensi|dici)|wat vind je|vad tycker)\b",
    re.IGNORECASE,
)
# A question of fact: an auxiliary opens it, and it names neither speaker nor a verdict
# ("Is the backup job still scheduled at 02:00?"; not "Is that OK?", "Does that work
# for you?", "Is it fine if I restart it?")
_FACT_ASK = re.compile(
    r"^(?:is|are|was|were|does|did|has|have|had|do|will|can it|could it|ist|sind|war|"
    r"waren|läuft|laufen|gibt es|est-ce que|est-ce qu'|y a-t-il|hay|sigue|siguen|está|"
    r"están)(?![\w'-])",
    re.IGNORECASE,
)
_ASKS_VERDICT = re.compile(
    r"(?<![\w'-])(?:i|me|my|we|us|our|let's|you|your|ok|okay|fine|alright|all right|good|"
    r"acceptable|allowed|safe|worth|better|agree|ich|mir|mich|wir|uns|du|dir|dich|ihr|euch|"
    r"je|j'|me|moi|nous|vous|tu|te|yo|nosotros|usted|tú|okay|in ordnung|d'accord|"
    r"de acuerdo|bien|gut|bon)(?![\w'-])",
    re.IGNORECASE,
)


def _open_question(text: str) -> bool:
    """Whether the agent's ``text`` ends with a question that a bare yes does not answer
    with a decision: a choice between options, a question word's question, or a
    question of fact. The yes then picks nothing it proposed."""
    sentences = [" ".join(s.split()) for s in SENTENCE.split(text)]
    sentences = [s for s in sentences if s]
    if not sentences or not sentences[-1].endswith(_ASKED):
        return False
    question = sentences[-1].lstrip("¿¡*_ ")
    if _VERDICT_ASK.search(question):
        return False
    if _CHOICE.search(question) or _WH_ASK.search(question):
        return True
    return (
        _PROPOSES.search(question) is None
        and _FACT_ASK.search(question) is not None
        and _ASKS_VERDICT.search(question) is None
    )


def _bare_ask(sentence: str) -> bool:
    return sentence.endswith(_ASKED) and (
        len(sentence.split()) < 7 and len(_CJK.findall(sentence)) < 12
    )


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]")


_SHORT_WORDS: Final = 20
# Talk of a credential: the ledger copies no sentence, take-up or answer that has one
# (the rules before the tenth round copied none; identifiers follow their own rules)
_SECRET_TALK = re.compile(
    r"\b(?:passwords?|passwd|passphrase|pwd|secrets?|tokens?|api[ _-]?keys?|private keys?|"
    r"credentials?|contraseñas?|mot de passe|passwort|senha|пароль|hasło|heslo|salasana|"
    r"wachtwoord|lösenord|adgangskode|passord|jelszó|şifre|parola)\b"
    r"|\b(?:sk|pk|rk)[-_][A-Za-z0-9_-]{12,}|\bghp_\w{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abp]-"
    r"|密码|パスワード|비밀번호|كلمة المرور|סיסמה|รหัสผ่าน",
    re.IGNORECASE,
)
_SHORT_CHARS: Final = 200
_TAKEN_CHARS: Final = 160
"""Of the user's words a take-up answers, at most this many characters with it."""
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_VALUE = re.compile(r"[\w./:@+-]+")  # then trimmed: "[...]*\w" backtracks over "-----"


def _values(text: str) -> set[str]:
    """The values ``text`` names, lower-cased: its tokens with a digit, an inner dot,
    underscore, hyphen or slash, or a capital letter after a sentence's first word."""
    found: set[str] = set()
    for sentence in SENTENCE.split(text[:4_000]):
        for position, match in enumerate(_VALUE.finditer(sentence)):
            token = match.group(0).strip("./:@+-")
            if not token:
                continue
            inner = any(c in token for c in "._-/:@+") and len(token) > 2
            capital = position > 0 and any(map(str.isupper, token))
            capital = capital or (len(token) > 1 and token.isupper())  # "UTC.", "SMS"
            if inner or capital or any(map(str.isdigit, token)):
                found.add(token.lower())
                # "10:40-ig", "prod-migreringen": the value in a word's inflection
                found.update(p.lower() for p in token.split("-") if len(p) > 1)
    return found


_WORD = re.compile(r"[^\W\d_]{5,}")
_STEM: Final = 5


def _stems(text: str) -> set[str]:
    """The first :data:`_STEM` letters of ``text``'s words of that many letters or more,
    lower-cased: a word's stem across its endings ("Марков" / "Марковог")."""
    return {m.group(0)[:_STEM].lower() for m in _WORD.finditer(text[:4_000])}


def _repeats(reply: str, said: str) -> bool:
    """Whether the agent's ``reply`` says again what the user ``said``: a value of theirs
    (a figure, a name, by its stem), or two of their words."""
    given = _values(said)
    again = _values(reply)
    if given & again:
        return True
    if {v[:_STEM] for v in given if v.isalpha()} & {v[:_STEM] for v in again if v.isalpha()}:
        return True
    return len(_stems(reply) & _stems(said)) >= 2


def _unknown_yes(text: str) -> bool:
    """Whether the user's ``text`` may be a yes the yes words do not know: three words at
    most, no refusal, not only a filler ("hmm")."""
    flat = " ".join(text.split()).strip(" .!,")
    if not flat or len(flat.split()) > 3 or _refuses(flat) or _DEFERS.search(flat):
        return False
    return bool(_OPENER.sub("", flat).strip(" .!,"))


# A reply that opens with a no: "no", "hayır, dokunma", "nee hoor", "לא", "ไม่"
_NO_FIRST = re.compile(
    # (a word, not a name's start: "non-prod", "nu-west", "No. 2"; no "hindi": a language)
    r"^\W*(?:no|nope|nah|nein|non|nee|nej|nei|nie|ne|não|όχι|hayır|нет|ні|niet|ei|nem|"
    r"không|tidak|enggak|hapana|не|nu|ez|ara)(?![\w-])(?!\.?\s*\d)"
    r"|^\W*(?:لا|نه|לא|ไม่|いいえ|不|아니|இல்லை|नहीं|না|نہیں|არა|ոչ|ਨਹੀਂ|ಇಲ್ಲ|లేదు)",
    re.IGNORECASE,
)


def _refuses(text: str) -> bool:
    """Whether the user's ``text`` opens with a no, ends with one, or puts off or refuses
    after a yes ("ja, aber nicht jetzt"; not "20, больше кластер не вытянет")."""
    flat = " ".join(text.split()).lstrip("*_-—–>:;,. ")
    first = _NO_FIRST.search(flat)
    if first is not None:
        word = first.group(0).strip(" *_-—–>:;,.")
        return not (word.isupper() and word.isascii() and word != "NO")  # "NE": a value
    if _BARE_NO.search(flat):
        return True
    yes = _APPROVES.match(flat) or _APPROVES_ANYHOW.match(flat)
    return yes is not None and _DEFERS.search(flat[yes.end() :]) is not None


def _answers_question(question: str, reply: str) -> bool:
    """Whether the user's ``reply`` answers the agent's ``question`` (what it said last,
    ending with a question): a short reply that names something ("eu-west-3", "UTC",
    "8") or words of the question, or a short yes the yes words do not know ("Sige.");
    to a proposal ("I'd switch to X. OK?") only that yes. Not "hmm", "I don't know.", a
    refusal (the user's instruction, then), nor talk of a credential."""
    if not question.rstrip().endswith(_ASKED) or not _short_answer(reply):
        return False
    if (_PROPOSES.search(question) is not None and not _unknown_yes(reply)) or _refuses(reply):
        return False
    if _approves(reply) and _open_question(question):
        return False  # "Is the job still scheduled?" / "yes": a fact, no decision
    flat = " ".join(reply.split()).lstrip("*_-—–>:;,. ")
    yes = _APPROVES.match(flat)
    if yes is not None and _scorns(flat[yes.end() :]):
        return False  # "yeah right.", "はい、また壊れた"
    if not (_values(reply) or _stems(reply) & _stems(question) or _unknown_yes(reply)):
        return False
    return _SECRET_TALK.search(reply) is None and _SECRET_TALK.search(question) is None


def _taken_up(entries: Sequence[Entry], index: int, prose: str) -> str | None:
    """The part of the agent's reply ``prose`` (``entries[index]``) that takes up the
    user's words right before it, ``None`` when it takes nothing up. That is the whole
    reply, or, when it goes on to call a tool, its own first paragraph ("Notert:
    migrering i prod før onsdag kl. 17:05.\n\nSer i loggene ..."): two sentences at most
    ("kl. 04:15" ends none), short, saying again what the user's words gave (a figure,
    a name: "Tesla", "UTC", "retention.ms"; not "Glad to hear it."), and no credential."""
    before = entries[index - 1] if index > 0 else None
    if before is None or before.role != "user" or before.kind != "text":
        return None  # a tool ran between: a report of work comes after the work
    if index + 1 == len(entries) or entries[index + 1].kind != "call":
        head = prose
    else:
        paragraphs = _PARAGRAPH.split(prose.strip(), maxsplit=1)
        head = paragraphs[0] if len(paragraphs) > 1 else ""
    if not _repeats(head, before.text):
        return None
    if _SECRET_TALK.search(prose) or _SECRET_TALK.search(before.text):
        return None
    if len(SENTENCE.split(head.strip())) > 2 or not _short_answer(head):
        return None
    if _PLEASANTRY.match(head) and all(v.isalpha() for v in _values(head)):
        return None  # "Nice to meet you, Maria.": a greeting that names only a name
    return head


# A greeting or a pleasantry opening the agent's reply, in English, German, Spanish,
# French, Italian, Portuguese, Dutch, Russian, Japanese, Chinese and Korean
_PLEASANTRY = re.compile(
    r"\W*(?:(?:it'?s )?(?:nice|pleased|glad|great|good|lovely) to (?:meet|see|hear from) you"
    r"|(?:hi|hello|hey|welcome|greetings|good (?:morning|afternoon|evening)"
    r"|hallo|willkommen|guten (?:morgen|tag|abend)|hola|bienvenid[oa]|buen[oa]s (?:días|tardes)"
    r"|bonjour|salut|bienvenue|ciao|benvenut[oa]|buongiorno|olá|oi|bem-vind[oa]|bom dia"
    r"|hoi|welkom|goedemorgen|привет|здравствуйте|добро пожаловать)(?![\w-])"
    r"|freut mich|schön, (?:dich|sie) kennenzulernen|encantad[oa]|mucho gusto|enchantée?"
    r"|ravie? de (?:vous|te) (?:rencontrer|connaître)|piacere|prazer|aangenaam"
    r"|приятно познакомиться|рада? знакомству"
    r"|はじめまして|よろしく|こんにちは|很高兴认识|你好|您好|반갑습니다|안녕하세요)",
    re.IGNORECASE,
)


def _short_answer(text: str) -> bool:
    """Whether ``text`` is a short reply that asks nothing back: :data:`_SHORT_WORDS`
    words (twice as many CJK characters) and :data:`_SHORT_CHARS` characters at most."""
    flat = " ".join(text.split())
    if not flat or len(flat) > _SHORT_CHARS or any(mark in flat for mark in _ASKED):
        return False
    return len(flat.split()) <= _SHORT_WORDS and len(_CJK.findall(flat)) <= 2 * _SHORT_WORDS


def _long_enough(sentence: str) -> bool:
    """Whether ``sentence`` says enough to be an instruction or a plan: three words, or
    in Chinese and Japanese, which do not space their words, six of their characters."""
    return len(sentence.split()) >= 3 or len(_CJK.findall(sentence)) >= 6


def _changes_mind(text: str) -> bool:
    """Whether the user's ``text`` changes an earlier instruction (in any sentence, or
    at the start of a clause after an aside: "Ach so, Korrektur: ...", "Sorry to go
    back and forth — actually, ...")."""
    first = _NO_FIRST.match(" ".join(text.split()))
    if first is not None and _values(text[first.end() :]):
        return True  # "Не, ипак кеш 3 минута", "இல்லை, மாத்து: default-ஆ cash on delivery"
    for sentence in SENTENCE.split(text):
        bare = _OPENER.sub("", " ".join(sentence.split()))
        if _CHANGE.search(bare) or _CHANGE_MORE.search(bare):
            return True
        clauses = _CLAUSE.split(bare)
        for before, clause in itertools.pairwise(clauses):
            match = _CHANGE.match(_OPENER.sub("", clause))
            # a clause opening with a long marker set off by punctuation ("Ach so,
            # Korrektur: ...", "... - actually, cap it"), or after a bare no ("5 dec- no,
            # mejor con 6"); not "Thanks, actually it worked", "..., no idea why"
            if not match or not match.group(1) or len(match.group(1)) < 5:
                continue
            after = clause[match.end() :]
            if after[:1] in (",", ":", ";", "\u2014", "\u2013") or not after.strip():
                return True
            if _BARE_NO.search(before):
                return True
    return False


# The user asking to be shown or told something: "show me", "zeig mir", "montre-moi",
# "muéstrame", "покажи", "見せて", "给我看", "보여 줘"
_SHOW_ME = re.compile(
    r"(?<![\w-])(?:show me|let me see|let me look|tell me|explain|walk me through|"
    r"zeig(?:e|en sie)? mir|erklär(?:e|en sie)?(?: mir)?|montre(?:z)?-moi|expliquez?(?:-moi)?|"
    r"dis-moi|muéstrame|enséñame|explícame|dime|mostrami|spiegami|dimmi|mostre-me|"
    r"me mostra|me mostre|me explica|laat (?:me|mij) .{0,40}zien|visa mig|förklara|"
    r"pokaż|wyjaśnij|ukaž|vysvětli|покажи(?:те)?|объясни(?:те)?|näytä|mutasd|göster)(?![\w-])"
    r"|見せて|教えて|説明して|给我看|让我看|显示一下|解释一下|보여|알려 ?줘|설명해",
    re.IGNORECASE,
)


_BARE_NO = re.compile(r"\b(?:no|nope|nein|non|nee|nej|nie|ne|não|όχι|hayır|нет)\s*$", re.IGNORECASE)


_CLAUSE = re.compile(r"\s*[,;:\u2014\u2013]\s*|\s+-\s+")


# A request in the languages that mark it at the end of the sentence (Japanese,
# Korean: "...してください", "...바꿔 주세요") or with a fixed word (Chinese "请").
_REQUEST_MORE = re.compile(r"ください|下さい|てほしい|주세요|해 ?줘|하세요|하십시오|^请")


def _instructs(sentence: str, instructions: Sequence[str]) -> bool:
    flat = " ".join(sentence.split())
    bare = _OPENER.sub("", flat)
    return (
        bool(_INSTRUCTS.search(flat))
        or bool(_REQUEST_MORE.search(flat))
        or (bare != flat and bool(_INSTRUCTS.search(bare)))
        or _changes_mind(flat)
        or any(flat in item for item in instructions)
    )


def _output_facts(
    text: str,
    *,
    reads: bool,
    failing: set[str] | None = None,
    uncommitted: dict[str, str] | None = None,
    committed: bool = False,
) -> Iterator[Fact]:
    text = _EXEC_HEADER.sub("", text, count=1)  # the client's wrapping, not the tool's
    lines = [ln for ln in text.splitlines() if ln.strip()]
    # An error's own lines and the details under it (a lock id, the failing test).
    # (a log's own error word only where no other error line is: "LOG_LEVEL=ERROR" in
    # a boot line must not move the window off the traceback)
    first_error = next((i for i, ln in enumerate(lines) if ERROR_LINE.search(ln)), None)
    if first_error is None:
        first_error = next((i for i, ln in enumerate(lines) if _LOG_ERROR.search(ln)), None)
    errors = [] if first_error is None else lines[first_error : first_error + _ERROR_LINES]
    if first_error is not None:  # a log's other errors: their own lines
        window = range(first_error, first_error + _ERROR_LINES)
        others = (ln for i, ln in enumerate(lines) if i not in window and _LOG_ERROR.search(ln))
        errors += itertools.islice(others, _LATER_ERRORS)
    # JSON (that parses: "[main 6ebdb31] Fix" is a line, not an array): its id-like
    # fields, below
    objects = _json_objects(text)
    structured = bool(objects) or text.lstrip().startswith(("{", "[{"))
    # Where a tool reports: its first and last lines, and the lines of an error.
    reported = lines[:1] + lines[-1:] + errors if len(lines) > 1 else lines[:1] + errors
    for line in errors if reads or structured else list(dict.fromkeys(reported)):
        # a line of thousands of ids (a hash list, a minified blob) is bulk: its first few
        for token in _line_ids(line):
            yield Fact("id", token, TIERS["tool id"], context=_context(line, token))
    if reads:
        return
    if not structured:
        yield from _labelled_facts(lines)
        yield from _test_results(lines, set() if failing is None else failing)
        yield from _done_lines(lines)
        if not (lines and _secret_columns(lines[0])):  # a listing of secrets: no records
            yield from _state_lines(lines)
        yield from _git_status(lines, {} if uncommitted is None else uncommitted)
        for line in lines:  # git status: "R  old -> new"
            renamed = _RENAMED.match(line)
            if renamed is not None:
                yield Fact("file", renamed[1], TIERS["changed"], state=f"moved to {renamed[2]}")
        if committed and _GIT_COMMITTED.search(text):  # what a commit did to files
            yield from _committed_files(text)
        if "rename from " in text:  # git diff, git show: "rename from a / rename to b"
            for path, action in patched_files(text):
                if action.startswith("moved to "):
                    yield Fact("file", path, TIERS["changed"], state=action)
    yield from _changed_records(text)
    yield from _migrations(text)
    head = lines[0] if lines else ""
    said = _STATUS_SAID.search(head)
    if said is not None and not structured:  # "Claim REC-1 filed. Status: IN REVIEW."
        named = [t for t in _plain_ids(head[: said.start()]) if not _FIGURE.fullmatch(t)]
        if named:
            # "status OPEN → ACCEPTED": where it went is its state
            moved = re.split(r"\s*(?:→|->|=>)\s*", said.group(2))[-1]
            state = " ".join(moved.split()).lower()
            # what the record is, as the line names it: "Claim REC-1 (broken blender)"
            about = shorten(head[: said.start()].strip(" :;,-"), _CONTEXT_CHARS)
            yield Fact("record", named[-1], TIERS["changed"], state=f"status {state}; {about}")
    keyed, told = _keyed_records(objects)
    for record, state in keyed:
        yield Fact("record", record, TIERS["changed"], state=f"status {state}")
    for record, state in _json_records([o for o in objects if id(o) not in told]):
        yield Fact("record", record, TIERS["changed"], state=f"status {state}")
    for value, context in _json_ids(objects):
        yield Fact("id", value, TIERS["tool id"], context=shorten(context, _CONTEXT_CHARS))


# A search's hit at a line's start: "src/pool.py:12:    # ...", "src\\pool.py:12:", grep -C's
# "pool.py-13-" (anchored: tried at every place of a long word, it took 13 µs a character)
_GREP_HIT = re.compile(r"\A(?=[^\s:]{0,300}[./\\])[\w./\\-]{1,300}?(?::\d+:|\.\w{1,8}-\d+-)")
# Source code around a state word: a comment ("// ...", "/* ...", or "# ..." in a search's
# hit), or a string passed to a call ("log('conn_pool created')")
_CODE_COMMENT = re.compile(r"\s*(?://|/\*|\*\s|<!--)")
_HIT_COMMENT = re.compile(r"\s*(?:#|--\s)")
_CALL_STRING = re.compile(r"\w\(\s*[bfru]?[\"'`]")


def _code_line(line: str, at: int) -> bool:
    """Whether the state word at ``at`` on a tool's ``line`` is in source code."""
    hit = _GREP_HIT.match(line)
    start = hit.end() if hit is not None else 0
    if start > at:
        return False
    if _CODE_COMMENT.match(line, start) or (hit is not None and _HIT_COMMENT.match(line, start)):
        return True
    return _CALL_STRING.search(line, start, at) is not None


def _labelled_facts(lines: Sequence[str]) -> Iterator[Fact]:
    """Facts anywhere in a tool's plain output (logs, YAML, XML, tables, headers): ids
    after an id-like label, where the tool put what it made, and records in a failed,
    refused or cancelled state."""
    labelled = 0
    for line in lines:
        if len(line) > 4_000:  # a minified blob: bulk
            continue
        for match in _LABELLED.finditer(line):
            key = match.group("key") or match.group("tag")
            value = (match.group("value") or match.group("text") or "").strip(".,:;'\"")
            if labelled >= _LABELLED_PER_OUTPUT or not _id_key(key) or len(value) < 3:
                continue
            code = value.isupper() and value.isalpha() and len(value) >= 8  # CBYMNSGQOZGW
            if not (code or any(c.isdigit() for c in value)) or PATH.fullmatch(value):
                continue  # a name or a word, not an id; a file is a file fact
            if value.startswith("/") and _id_key(key):  # Location: /api/v2/items/CMB-7X
                for token in _plain_ids(value):
                    labelled += 1
                    yield Fact("id", token, TIERS["tool id"], context=_context(line, token))
                continue
            labelled += 1
            yield Fact("id", value, TIERS["tool id"], context=_context(line, value))
        for match in _PRODUCED.finditer(line):
            target = match.group("target").rstrip(".,:;")
            yield Fact("id", target, TIERS["tool id"], context=_context(line, target))
        state = _EXCEPTIONAL.search(line)
        if state is not None and _code_line(line, state.start()):
            state = None  # "// retry when the upload failed", raise Error("sync failed")
        is_test = len(line) <= _TEST_LINE_CHARS and _TEST_LINE.match(line)
        if state is not None and not is_test:  # a test's line: see _test_results
            named = _named(line[: state.start()])
            if named:
                word = state.group(1).lower().rstrip("+")
                yield Fact("record", named[0], TIERS["changed"], state=f"status {word}")
        reported = _KUBECTL.match(line) or _REPORTED.match(line)
        if reported is not None and state is None:
            # "work order WO-1: completed (by shift B)", 'pvc "data-x" deleted'
            name = reported["name"].strip("\"'")
            word = " ".join(reported["state"].split())
            if reported.re is _KUBECTL or any(c.isdigit() for c in name) or _FILE.match(name):
                yield Fact("record", name, TIERS["changed"], state=f"status {word}")
        for record in _XML_RECORD.finditer(line):  # <invoice id="X" status="paid"/>
            yield Fact(
                "record",
                record["id"] or record["id2"],
                TIERS["changed"],
                state=f"status {record['state'] or record['state2']}",
            )


# A test runner's line about one test or suite: pytest, jest/vitest, go test, cargo test,
# ctest, NUnit-style listings.
_TEST_LINE = re.compile(
    r"^\s*(?P<a>\S+::\S+)\s+(?P<as>PASSED|FAILED|ERROR)\b"
    r"|^\s*(?P<bs>FAILED|ERROR)\s+(?P<b>\S+::\S+)"
    r"|^\s*(?P<cs>PASS|FAIL)\s+(?P<c>\S+\.(?:test|spec)\.[cm]?[jt]sx?)\b"
    r"|^\s*--- (?P<ds>PASS|FAIL): (?P<d>\S+)"
    r"|^\s*test (?P<e>\S+) \.\.\. (?P<es>ok|FAILED)\b"
    r"|^\s*\d+/\d+ Test\s+#\d+: (?P<f>\S+) \.+\s*(?P<fs>Passed|\*+Failed)"
    # dotnet test: "  Passed Shop.Tests.CartTests.EmptyCart [7 ms]"
    r"|^\s*(?P<gs>Passed|Failed)\s+(?P<g>[\w.]+\.\w+)(?:\([^()\n]{0,200}\))?\s+\[[<\d]"
    # Pest and PHPUnit's Collision printer: "PASS  Tests\Feature\CartTest"
    r"|^\s*(?P<hs>PASS|FAIL)\s+(?P<h>\w+(?:\\\w+)+)\s*$"
    # dbt: "07:50:35  3 of 3 FAIL 1 assert_refunds_match .......... [FAIL 1 in 2.63s]"
    r"|^\s*(?:[\d:]{5,12}\s+)?\d+ of \d+ (?P<is>PASS|FAIL)(?: \d+)? (?P<i>[\w.]+) \.\."
    # dart and flutter test: "00:07 +12 -1: test/widget/invoice_test.dart: shows VAT [E]"
    r"|^\s*\d+:\d+ \+\d+(?: ~\d+)?(?: -\d+)?: (?P<j>\S+\.dart): [^\n]*?(?P<js>\[E\]|$)"
    # go test's line per package: "FAIL\tgithub.com/acme/svc/internal/shipper\t0.503s"
    r"|^\s*(?P<ks>ok|FAIL)\s+(?P<k>[\w.-]+(?:/[\w.-]+)*)\s+"
    r"(?:\d[\d.]*m?s|\(cached\)|\[(?:build|setup) failed\])(?:\s+coverage:[^\n]*)?\s*$"
)
# Maven Surefire's line for each test class: "Tests run: 6, Failures: 0, Errors: 0,
# Skipped: 0, Time elapsed: 0.8 s - in com.acme.CartTest" (Surefire 3: "-- in", and
# "<<< FAILURE! -- in" for a class that failed).
_SUREFIRE = re.compile(
    r"^\[?\w*\]?\s*Tests run: \d+, Failures: (?P<failures>\d+), Errors: (?P<errors>\d+)"
    r".*?\s--? in (?P<name>[\w.$]+)"
)
_TEST_LINE_CHARS: Final = 400
_TEST_LINES_SHOWN: Final = 5  # a run listing more passes than this: only failures count
_TEST_FAILURES_SHOWN: Final = 12  # failures one run reports, at most (the first)
_RENAMED = re.compile(r"^\s*R[ M]?\s+(\S+) -> (\S+)\s*$")
# git commit's own first line, "[main 7d85b03] Delete maps/rate_tiers.map" (also
# "[main (root-commit) 1a2b3c4] ..."), and the summary of what the commit did to files:
# " create mode 100644 a.txt", " delete mode 100644 b.txt", " rename a => b (100%)" or
# " rename maps/{a.map => b.map} (97%)". Read only under a commit's line: a `git log`
# or `git show` of older commits tells history, not this session's deeds.
_GIT_COMMITTED = re.compile(r"^\[[^\]\s]{1,200}(?: \([\w -]{1,40}\))? [0-9a-f]{7,40}\] ", re.M)
_GIT_SUMMARY = re.compile(
    r"^ (create|delete) mode \d{6} (\S[^\n]{0,400}?)[ \t]*$"
    r"|^ rename (\S[^\n]{0,400}?) \(\d{1,3}%\)[ \t]*$",
    re.M,
)
# a command that commits: "git commit -am ...", "git -C repo commit", "git add -A && git commit"
_GIT_COMMIT = re.compile(r"\bgit\b[^\n|;&]{0,200}?\bcommit\b")
_GIT_BRACES = re.compile(r"\{([^{}]*) => ([^{}]*)\}")
_COMMITTED_FILES: Final = 50  # files one commit's summary gives, at most


def _committed_files(text: str) -> Iterator[Fact]:
    """The files a ``git commit``'s summary says it created, deleted or moved."""
    text = text.replace("\r\n", "\n")
    for match in itertools.islice(_GIT_SUMMARY.finditer(text), _COMMITTED_FILES):
        if match[1] is not None:
            state = "created" if match[1] == "create" else "deleted"
            yield Fact("file", _git_path(match[2]), TIERS["changed"], state=state)
            continue
        moved = match[3]
        braces = _GIT_BRACES.search(moved)
        if braces is not None:  # "maps/{a.map => b.map}": the part that changed
            head, tail = moved[: braces.start()], moved[braces.end() :]
            old = (head + braces[1] + tail).replace("//", "/").lstrip("/")
            new = (head + braces[2] + tail).replace("//", "/").lstrip("/")
        elif " => " in moved:
            old, new = moved.split(" => ", 1)
        else:
            continue
        yield Fact("file", _git_path(old), TIERS["changed"], state=f"moved to {_git_path(new)}")


_GIT_ESCAPES: Final = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b"}


def _git_path(path: str) -> str:
    """``path`` as git printed it, unquoted: a path with a non-ASCII letter or a control
    character comes in quotes with C escapes and its UTF-8 bytes in octal
    (``"caf\\303\\251.txt"`` is café.txt)."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    out = bytearray()
    body, at = path[1:-1], 0
    while at < len(body):
        char = body[at]
        if char == "\\" and at + 1 < len(body):
            octal = body[at + 1 : at + 4]
            if len(octal) == 3 and all(c in "01234567" for c in octal):
                out.append(int(octal, 8) & 0xFF)
                at += 4
                continue
            out += _GIT_ESCAPES.get(body[at + 1], body[at + 1]).encode()
            at += 2
            continue
        out += char.encode()
        at += 1
    return out.decode("utf-8", "replace")


# A record's status set in SQL: UPDATE rooms SET status = 'closed' WHERE name = 'B-2'.
_SQL_STATUS = re.compile(
    r"\bUPDATE\s+[\w.\"`\[\]]{1,80}\s+SET\s+(?:[^;]{0,300}?,\s*)?[\"`\[]?(?:status|state|etat|"
    r"état|estado|stato|zustand|statut|stav|tila)[\"`\]]?\s*=\s*'(?P<state>[^']{1,40})'"
    r"[^;]{0,300}?\bWHERE\s+(?P<where>[^;]{1,300})",
    re.IGNORECASE,
)
_SQL_CONDITION = re.compile(
    r"(?:[\"`\[]|(?<!\w))(?P<column>\w+)[\"`\]]?\s*=\s*(?:'(?P<quoted>[^']{1,80})'|(?P<bare>[\w.-]{1,80}))"
)
# A dependency's version in a diff or a manifest line: "-\tgithub.com/x/y v0.37.0".
_DEP_LINE = re.compile(
    r"^(?P<sign>[-+])\s*\"?(?P<name>[@\w][\w@./-]*[\w])\"?\s*[:=]?\s*\"?[~^>=v]*"
    r"(?P<version>\d+\.\d+[\w.+-]*)\"?,?\s*(?://.*|#.*)?$"
)
# A setting's switch or count in a diff line: '-    "UseAsyncDispense": true,', "+retries: 2".
_SETTING_LINE = re.compile(
    r"^(?P<sign>[-+])\s*[\"']?(?P<name>[A-Za-z_][\w.-]{1,80})[\"']?\s*[:=]\s*"
    r"(?P<value>true|false|on|off|yes|no|enabled|disabled|-?\d+)[ \t]*[,;]?$",
    re.IGNORECASE,
)
# A package manager saying what it changed: "go: upgraded github.com/x/y v0.37.0 => v0.48.0",
# "Updating serde v1.0.1 -> v1.0.2", "bumped lodash from 4.17.20 to 4.17.21".
_BUMPED = re.compile(
    r"^[ \t]*(?:[\w-]{1,20}:[ \t]+)?(?:upgraded|downgraded|updated|updating|upgrading|bumped|"
    r"bumping)\s+(?P<name>[@\w][\w@./-]*)"
    r"\s+(?:from\s+)?v?(?P<old>\d+\.\d+[\w.+-]*)\s*(?:=>|->|→|to)\s*v?(?P<new>\d+\.\d+[\w.+-]*)",
    re.IGNORECASE | re.MULTILINE,
)


def _test_results(lines: Sequence[str], failing: set[str]) -> Iterator[Fact]:
    """What a test run's lines say of each test or suite: failures always, passes from
    a short, targeted run or of a test that failed before (``failing``, kept up to date
    across the outputs); a long listing of passes is bulk."""
    found: list[tuple[str, bool]] = []
    for line in lines:
        if len(line) > _TEST_LINE_CHARS:  # a runner's line is short; a long one is bulk
            continue
        surefire = _SUREFIRE.match(line)
        if surefire is not None:
            passed = surefire["failures"] == surefire["errors"] == "0"
            found.append((surefire["name"], passed))
            continue
        match = _TEST_LINE.match(line)
        if match is None:
            continue
        groups = match.groupdict()
        key = next(k for k in "abcdefghijk" if groups[k])
        state = groups[key + "s"].strip("*").lower()
        # dart marks only a failure ("... [E]"); its line without the mark is a pass
        passed = state in ("passed", "pass", "ok") or (key == "j" and not state)
        found.append((groups[key], passed))
    passes = sum(ok for _, ok in found)
    # a name failing anywhere in the run failed in it: dart and jest name the file of
    # each test, so a file's passing tests do not clear its failing one
    failed_now = {name for name, ok in found if not ok}
    failures = 0
    for name, ok in found:
        if ok and (name in failed_now or (passes > _TEST_LINES_SHOWN and name not in failing)):
            continue
        if not ok:  # a run where everything fails (a database down) names a few
            failures += 1
            if failures > _TEST_FAILURES_SHOWN:
                continue
        if ok:
            failing.discard(name)
        else:
            failing.add(name)
        state = "tests passed" if ok else "tests failed"
        kind: FactKind = "file" if PATH.fullmatch(name) else "record"
        yield Fact(
            kind, name, TIERS["changed"], state=state if kind == "file" else f"status {state}"
        )


def _sql_records(text: str) -> Iterator[Fact]:
    """Records whose status an SQL statement the agent ran sets (the condition on an
    id-like column names the record: ``WHERE tenant = 'a' AND id = 9`` is 9)."""
    for match in itertools.islice(_SQL_STATUS.finditer(text), _IDS_PER_LINE):
        conditions = list(_SQL_CONDITION.finditer(match.group("where")))
        if not conditions:
            continue
        named = next((c for c in conditions if _id_key(c["column"])), conditions[-1])
        key = named["quoted"] or named["bare"]
        yield Fact("record", key, TIERS["changed"], state=f"status {match.group('state')}")


# Where a command starts: the start of the text or of a line, after ";", "&&", "|",
# "(" or "$(", or inside the quotes of "sh -c '...'" / "psql -c '...'" (not inside an
# echo's or a grep's quotes).
_COMMAND_START = re.compile(
    r"(?:(?:^|[\n;&|(`]|\$\()\s*(?:sudo\s+(?:-\S+\s+)*)?(?:[A-Za-z_]\w*=\S*\s+)*"
    # "kubectl exec pod -- psql", "docker exec -it db psql", "ssh host psql ...",
    # "ssh host 'psql ...'", "bash -lc 'git ...'"
    r"|\s--\s+|\bexec(?:\s+-\S+)*\s+[\w.-]+\s+|\bssh\b[^'\"\n;&|]{0,200}\s"
    r"|(?:\bssh\b[^'\"\n]{0,200}|\s-\w*c)\s*['\"]\s*)\Z"
)
_QUOTED_ARGUMENT = re.compile(
    r"(?:^|\s)(?:-[A-Za-z]*[ce]|-[Qq]|--command=?|--execute=?|--query=?)\s*['\"]\Z"
)


def _at_command(text: str, at: int) -> bool:
    """Whether ``text[at:]`` starts a command (or the statement a client runs)."""
    before = text[max(at - 200, 0) : at]
    return _COMMAND_START.search(before) is not None or (
        _QUOTED_ARGUMENT.search(before) is not None
    )


# A database client run by a command: where a schema statement is run, not only named
# ("grep 'DROP TABLE' x.sql", "grep x /var/log/mysql/error.log" run none).
_SQL_CLIENT = re.compile(
    r"(?:(?<=[\s;&|(`'\"])|^)(?:[\w./-]*/)?(?:psql|mysql|mariadb|sqlite3|sqlcmd|cqlsh|"
    r"clickhouse(?:-client)?|duckdb|snowsql|bq|mongosh|dbshell|dbconsole|"
    r"doctrine:query:sql|db:query|tinker)(?=\s|$)",
    re.IGNORECASE | re.MULTILINE,
)
# The argument of a database tool that holds its SQL ("sql", "query" of run_sql ...).
_SQL_KEYS = re.compile(r"^(?:sql|statement|stmt|ddl|command_sql)$", re.IGNORECASE)
_SQL_TOOL = re.compile(
    r"sql|(?<![a-z])db(?![a-z])|database|postgres|mysql|sqlite|bigquery|snowflake|clickhouse|"
    r"duckdb",
    re.IGNORECASE,
)
# The arguments that write or search text (a file's content, a patch, a message): what
# they hold is not run.
_TEXT_KEYS = frozenset(
    {
        "content",
        "contents",
        "text",
        "body",
        "file_text",
        "new_string",
        "old_string",
        "new_str",
        "old_str",
        "patch",
        "diff",
        "message",
        "description",
        "pattern",
        "search",
        "prompt",
        "query",
        "q",
        "new",
        "old",
        "replacement",
        "code",
        "url",
    }
)
# A name in a statement: bare (letters of any script, digits, _ and $), or quoted with
# backticks, double quotes or brackets (then anything but the quote), schema-qualified.
_SQL_PART = r"(?:`[^`\n]{1,120}`|\"[^\"\n]{1,120}\"|\[[^\]\n]{1,120}\]|[^\W\d][\w$]{0,120})"
_SQL_QUALIFIED = _SQL_PART + r"(?:\." + _SQL_PART + r")?"


def _sql_name(group: str, *, many: bool = False) -> str:
    """A pattern for a name in a statement, in the group ``group`` (``many``: a list
    of them, "DROP TABLE a, b")."""
    more = r"(?:\s*,\s*" + _SQL_QUALIFIED + r"){0,11}" if many else ""
    return f"(?P<{group}>{_SQL_QUALIFIED}{more})"


# One schema statement: what it does to which table, view, index, database or column.
_DDL = re.compile(
    r"(?<![\w-])(?:DROP\s+(?:TABLE|VIEW|MATERIALIZED\s+VIEW|INDEX|DATABASE|SCHEMA|"
    r"KEYSPACE|SEQUENCE|TRIGGER|TYPE)\s+(?:CONCURRENTLY\s+)?(?:IF\s+EXISTS\s+)?"
    + _sql_name("dropped", many=True)
    + r"|CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:UNIQUE|TEMP|TEMPORARY|UNLOGGED)\s+)?(?:TABLE|VIEW|"
    r"MATERIALIZED\s+VIEW|INDEX|DATABASE|SCHEMA|KEYSPACE|SEQUENCE)\s+(?:CONCURRENTLY\s+)?"
    r"(?:IF\s+NOT\s+EXISTS\s+)?"
    + _sql_name("created")
    + r"|TRUNCATE\s+(?:TABLE\s+)?"
    + _sql_name("truncated", many=True)
    + r"|ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?"
    + _sql_name("altered")
    # the rest of the statement, up to its end or the end of the quoted argument
    + r"(?P<alter>[^;'\"\n&|]{0,400}))",
    re.IGNORECASE,
)
# What an ALTER TABLE does, clause by clause.
_ALTER_CLAUSE = re.compile(
    r"(?<![\w-])(?:RENAME\s+(?:COLUMN\s+)?(?!TO\b)"
    + _sql_name("old")
    + r"\s+TO\s+"
    + _sql_name("new")
    + r"|RENAME\s+TO\s+"
    + _sql_name("table")
    + r"|CHANGE\s+(?:COLUMN\s+)?"
    + _sql_name("was")
    + r"\s+"
    + _sql_name("now")
    + r"|(?P<verb>ADD|DROP|MODIFY|ALTER)\s+(?:COLUMN\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
    + _sql_name("column")
    + r")",
    re.IGNORECASE,
)
_NOT_COLUMNS = frozenset(
    {"constraint", "index", "key", "primary", "foreign", "unique", "partition", "check", "to"}
)
_ALTERED: Final = {"add": "added", "drop": "dropped", "modify": "modified"}
# SQL that runs nothing: a comment, a transaction rolled back, EXPLAIN (without ANALYZE)
_SQL_COMMENT = re.compile(r"--\s[^\n'\"]*|/\*.{0,2000}?\*/", re.DOTALL)
_ROLLED_BACK = re.compile(r"\bROLLBACK\b(?!\s+TO\b)", re.IGNORECASE)
_EXPLAINED = re.compile(r"\bEXPLAIN\s+(?!ANALY[SZ]E\b)\Z", re.IGNORECASE)


def _unquoted(name: str) -> str:
    parts = re.findall(r"`([^`]*)`|\"([^\"]*)\"|\[([^\]]*)\]|([^.`\"\[\]]+)", name)
    return ".".join(next(p for p in part if p) for part in parts if any(part))


def _runs_sql(tool: str, key: object, value: str) -> bool:
    """Whether the argument ``key`` of a call of ``tool``, holding ``value``, runs SQL:
    a database tool's SQL, or a command that runs a database client."""
    if not isinstance(key, str):
        return False
    if _SQL_KEYS.match(key) or (key.lower() == "query" and _SQL_TOOL.search(tool)):
        return True
    if key.lower() in _TEXT_KEYS:
        return False
    return any(_at_command(value, m.start()) for m in _SQL_CLIENT.finditer(value))


def _statement_start(text: str, at: int, sql_argument: bool) -> bool:
    """Whether a statement starts at ``at``: where the SQL argument or a statement
    before it ends, or where a client's quoted statement opens ("-c '", '-e "')."""
    before = text[max(at - 200, 0) : at]
    if _EXPLAINED.search(before):
        return False
    if sql_argument and not before.strip():
        return True
    return re.search(r"(?:^|[;\n(])\s*\Z", before) is not None or (
        _QUOTED_ARGUMENT.search(before) is not None
        or re.search(r"<<-?\s*['\"]?\w+['\"]?\s*\n\s*\Z", before) is not None  # a heredoc
    )


def _schema_records(text: str, *, sql_argument: bool = False) -> Iterator[Fact]:
    """What the schema statements in ``text`` (a command run through a database
    client, or a tool's SQL argument when ``sql_argument``) do: a table dropped,
    created, truncated or renamed, a column added, dropped, changed or renamed
    (``invoice.vat``). Not a statement in a comment, in a string, explained, or in a
    transaction rolled back."""
    if not any(w in text.upper() for w in ("DROP", "CREATE", "TRUNCATE", "ALTER")):
        return  # a cheap gate
    text = _SQL_COMMENT.sub(" ", text)
    if _ROLLED_BACK.search(text):
        return
    shown = 0
    for match in _DDL.finditer(text):
        if shown >= _IDS_PER_LINE:
            break
        if not _statement_start(text, match.start(), sql_argument):
            continue
        shown += 1
        for verb in ("dropped", "created", "truncated"):
            if match[verb]:
                names = re.findall(_SQL_QUALIFIED, match[verb])
                for name in names[:_IDS_PER_LINE]:
                    yield Fact("record", _unquoted(name), TIERS["changed"], state=f"status {verb}")
        if not match["altered"]:
            continue
        table = _unquoted(match["altered"])
        told = False
        for clause in itertools.islice(_ALTER_CLAUSE.finditer(match["alter"]), _IDS_PER_LINE):
            if clause["old"] or clause["was"]:
                old = _unquoted(clause["old"] or clause["was"])
                new = _unquoted(clause["new"] or clause["now"])
                # MySQL's "CHANGE price price DECIMAL(10,2)": a new type, no new name
                state = "status modified" if old == new else f"status renamed to {table}.{new}"
                yield Fact("record", f"{table}.{old}", TIERS["changed"], state=state)
            elif clause["table"]:
                state = f"status renamed to {_unquoted(clause['table'])}"
                yield Fact("record", table, TIERS["changed"], state=state)
            elif clause["column"].lower() not in _NOT_COLUMNS:
                word = _ALTERED.get(clause["verb"].lower(), "modified")
                column = _unquoted(clause["column"])
                yield Fact("record", f"{table}.{column}", TIERS["changed"], state=f"status {word}")
            else:
                continue
            told = True
        if not told:  # "ALTER TABLE shop.orders WITH compaction = {...}"
            what = shorten(_CREDENTIAL.sub("***", match["alter"]), 60)
            state = f"status altered: {what}" if what else "status altered"
            yield Fact("record", table, TIERS["changed"], state=state)


# A new git branch: "git checkout -b fix/x origin/main", "git switch -q -c feat/y main",
# "git checkout --track -b x origin/x", "git worktree add -b x ../x main".
_NEW_BRANCH = re.compile(
    r"(?<![\w-])git\s+(?:-C\s+\S+\s+)?(?:checkout|switch|worktree\s+add)"
    r"(?P<options>(?:\s+-(?:-track|-no-track|t|q|f)\b)*)\s+-(?P<flag>[bBcC])\s+"
    r"(?:-[qf]\s+)?['\"]?(?P<name>[\w][\w./-]{0,120})['\"]?(?![\w$/{-])"
    r"(?:\s+(?:--?[\w-]+\s+)*(?:\.{0,2}/\S*\s+)?['\"]?(?P<start>[\w][\w./-]{0,120})['\"]?(?![\w$/{-]))?"
)
# A tool refusing what was asked: a line that opens with its word for an error (psql's
# "ERROR:" in the languages it is translated to, mysql's "ERROR 1051", git's "fatal:",
# after a program's name: "psql: error: ..."), or a refusal anywhere.
_REFUSED = re.compile(
    r"^\s*(?:[\w./-]{1,40}:\s*)?(?:error|fatal|errore|erreur|erro|fehler|schwerwiegend|"
    r"ошибка|помилка|błąd|chyba|hata|fel|virhe|hiba|σφάλμα|エラー|错误|錯誤|오류|"
    r"致命的|致命错误)\b"
    r"|\b(?:permission denied|access denied|connection refused|could not connect|"
    r"failed to|unable to|command not found|no such file or directory|not recognized as|"
    r"exit(?:ed)? (?:code|status|with status)[: ]+[1-9]\d*|upgrade failed|"
    r"http(?:/[\d.]+)? [45]\d\d\b)"
    r"|^\s*(?:\(error\)|traceback|\[error\])|не удалось|échec|失败|失敗|실패",
    re.IGNORECASE | re.MULTILINE,
)
_REFUSAL_CHARS: Final = 200_000  # of an output, read for a refusal of what a call did


def _command_records(text: str, output: str = "") -> Iterator[Fact]:
    """What a command does to things, told by the command itself: a new git branch
    (where it starts from too); a branch ``-B`` resets is reset when the ``output``
    says so. Read only if its output refuses nothing."""
    shown = 0
    for match in _NEW_BRANCH.finditer(text):
        if shown >= _IDS_PER_LINE or not _at_command(text, match.start()):
            continue
        shown += 1
        start = match["start"]
        verb = "created"
        if match["flag"] in "BC" and re.search(r"^Reset branch\b", output, re.MULTILINE):
            verb = "reset"
        state = f"status {verb} from {start}" if start else f"status {verb}"
        yield Fact("record", match["name"].rstrip("./"), TIERS["changed"], state=state)


# Settings a command sets: "kcadm.sh update realms/staff -s ssoSessionIdleTimeout=900",
# "helm upgrade --set replicas=3", "ceph config set osd osd_memory_target 6442450944",
# "temporal operator namespace update --retention 10d", "kubectl scale --replicas=0",
# "sed -i 's/^strategy = .*/strategy = leastrecent/' queues.conf".
_SET_FLAGS = (
    r"--set|--set-string|--set-env-vars|--update-env-vars|--env|--param|--parameter|"
    r"--option|--conf"
)
_SET_PAIR = re.compile(
    r"(?<!\S)(?P<flag>-s|" + _SET_FLAGS + r")[ =](?:(?P<q>['\"])|)"
    r"(?P<key>[A-Za-z_][\w.:/-]{0,60})=(?P<value>(?(q)[^'\"\n]{1,80}|[^\s'\";&|,]{1,80}))"
)
_MORE_PAIRS = re.compile(r",(?P<key>[A-Za-z_][\w.:/-]{0,60})=(?P<value>[^\s'\";&|,]{1,80})")
_CONFIG_SET = re.compile(
    r"(?<![\w-])config(?:ure)?\s+set\s+(?:(?P<who>[\w.-]{1,40})\s+)?"
    r"(?P<key>[A-Za-z_][\w.-]{0,60})\s+(?:(?P<q>['\"])|)"
    r"(?P<value>(?(q)[^'\"\n]{1,80}|[^\s'\";&|]{1,80}))",
    re.IGNORECASE,
)
_CONFIG_UNSET = re.compile(
    r"(?<![\w-])config(?:ure)?\s+(?:unset|rm|remove|delete|--unset(?:-all)?)\s+"
    r"(?:(?P<who>[\w.-]{1,40})\s+)?(?P<key>[A-Za-z_][\w.-]{0,60})(?=\s|$|[;&|])",
    re.IGNORECASE,
)
# The verb of a command that sets things: a word of its own, not part of a path or URL.
_SETS_VERB = re.compile(
    r"(?<![\w/.-])(?:update|set|scale|patch|edit|toggle|modify|configure|upgrade)(?=\s)"
)
_FLAG_VALUE = re.compile(
    r"(?<!\S)--(?P<key>[a-z][\w-]{1,40})(?:=|\s+)(?:(?P<q>['\"])|)"
    r"(?P<value>(?(q)[^'\"\n]{1,80}|-?[^\s'\";&|-][^\s'\";&|]{0,79}))"
)
_SED_SET = re.compile(
    r"(?<![\w-])s(?P<sep>[/|#,])\^?\s*(?P<key>[A-Za-z_][\w.-]{0,60})\s*[=:][^/|#,\n]{0,80}"
    r"(?P=sep)\s*(?P=key)\s*[=:]\s*(?P<value>[^/|#,\n]{1,80}?)\s*(?P=sep)"
)
_SED_IN_PLACE = re.compile(r"(?<![\w-])sed\s(?:[^|;&\n]*\s)?-[a-zA-Z]*i")
_SETS_NOTHING = re.compile(r"(?<!\S)(?:--dry-run(?:=\S+)?|--diff|template)(?=\s|$)")
_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?.*?\n\1\b", re.DOTALL)
# Flags that say where or how a command runs, or switch on what it does, not what it
# sets (a switch takes no value: "--install web" is not install=web).
_NOT_SETTINGS = frozenset(
    {
        "namespace",
        "address",
        "region",
        "zone",
        "project",
        "context",
        "kubeconfig",
        "cluster",
        "output",
        "format",
        "fields",
        "file",
        "filename",
        "realm",
        "server",
        "host",
        "port",
        "user",
        "username",
        "profile",
        "selector",
        "label",
        "tail",
        "since",
        "query",
        "timeout",
        "dry-run",
        "verbose",
        "force",
        "yes",
        "all",
        "wait",
        "quiet",
        "debug",
        "config",
        "env-file",
        "name",
        "id",
        "target",
        "type",
        "image",
        "from",
        "to",
        "message",
        "description",
        "comment",
        "reason",
        "tenant",
        "org",
        "repo",
        "branch",
        "ref",
        "url",
        "endpoint",
        "path",
        "dir",
        "directory",
        "out",
        "limit",
        "page",
        "sort",
        "filter",
        "watch",
        "follow",
        "insecure",
        "tls",
        "ca",
        "install",
        "atomic",
        "cask",
        "save",
        "assume-yes",
        "create-namespace",
        "author",
        "reuse-values",
        "reset-values",
        "recursive",
        "prune",
        "color",
        "number",
        "grep",
        "maxfail",
        "log-level",
        "current-replicas",
        "resource-version",
        "set-file",
        "remove-env-vars",
        "values",
        "version",
        "chart",
        "repo-url",
        "record",
    }
)
# a setting that holds a credential: a password, a secret, a cookie ... anywhere in its
# name, a token, a key or an ident at its end ("apiKey", "db.password", "npmAuthIdent";
# not "accessTokenLifespan")
_SECRET_KEY = re.compile(
    r"pass(?:word|wd|phrase)?|pwd|secret|credential|cookie|bearer|jwt|signature|private|"
    r"auth|(?:^|[._-])pat$|(?:token|key|ident)$",
    re.IGNORECASE,
)
# a value with a credential's shape: a known key's prefix, a JWT
_SECRET_VALUE = re.compile(r"(?:sk|pk|rk)[-_]|ghp_|glpat-|xox[abp]-|eyJ|AKIA")
_SETTINGS_PER_COMMAND: Final = 6


def _secret_value(value: str) -> bool:
    """Whether a setting's ``value`` has a credential's shape: a URL with a password, a
    known key's prefix, a JWT, a long random token."""
    return (
        _CREDENTIAL.search(value) is not None
        or _SECRET_VALUE.match(value) is not None
        or _RANDOM_ID.fullmatch(value) is not None
    )


# The thing an update command acts on: "clients/6463...", "deployment/web" (not a path).
_TARGET = re.compile(r"(?<!\S)(?![-'\"./])(?P<target>[\w.-]+/[\w.@:-]+)(?=\s|$)")
_NAME_KEYS: Final = ("name", "clientId", "username", "alias", "title", "slug", "realm", "key")
_ID_NAMES: Final = ("id", "uid", "uuid", "ID", "Id")
_NAMES_KEPT: Final = 10_000
_NAMES_READ: Final = 100_000  # characters of an answer read for the names of its ids


def _names_by_id(objects: Iterable[dict[Any, Any]], names: dict[str, str]) -> None:
    """Adds to ``names`` the name each of ``objects`` (an API's JSON answer) gives the
    id it lists with it: ``{"id": "6463...", "clientId": "intranet-v1"}``."""
    for item in objects:
        ident = next((item[k] for k in _ID_NAMES if isinstance(item.get(k), str | int)), None)
        name = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
        if ident is not None and name and len(names) < _NAMES_KEPT:
            names[str(ident)] = name


def _setting_records(text: str, names: dict[str, str] | None = None) -> Iterator[Fact]:
    """Settings the command ``text`` sets: of the thing it acts on (``update
    clients/6463...``, by the name an earlier answer gave that id in ``names``), one
    record with them all (``intranet-v1``: enabled=false); else each its own record
    (``retention``: set to 10d). The last value set holds. Never a credential."""
    text = _HEREDOC.sub(" ", text)  # what a heredoc holds is written, not run here
    if _SETS_NOTHING.search(text):
        return  # a dry run, a diff, a template: nothing is set
    found: dict[str, str] = {}
    verb = _SETS_VERB.search(text)
    for match in _SET_PAIR.finditer(text):
        if match["flag"] == "-s" and verb is None:
            continue  # "rg -s", "curl -s": -s sets only in a command that sets
        found[match["key"]] = match["value"].strip()
        at = match.end()
        while (more := _MORE_PAIRS.match(text, at)) is not None:  # --set a=1,b=2
            found[more["key"]] = more["value"]
            at = more.end()
    for match in _CONFIG_SET.finditer(text):
        found[match["key"]] = match["value"].strip()
    if _SED_IN_PLACE.search(text):
        for match in _SED_SET.finditer(text):
            found[match["key"]] = match["value"].strip()
    for match in _CONFIG_UNSET.finditer(text):
        found[match["key"]] = ""
    target = None
    if verb is not None:
        for match in _FLAG_VALUE.finditer(text, verb.end()):
            key = match["key"]
            if key in _NOT_SETTINGS or key.endswith("id") or re.fullmatch(_SET_FLAGS, f"--{key}"):
                continue
            found[key] = match["value"].strip()
        acted = _TARGET.search(text, verb.end())
        if acted is not None and "=" not in acted["target"]:
            last = acted["target"].rstrip("/").rsplit("/", 1)[-1]
            target = (names or {}).get(last, last)
    settings = [
        (key, value)
        for key, value in found.items()
        if not _SECRET_KEY.search(key) and not _secret_value(value)
    ][:_SETTINGS_PER_COMMAND]
    if settings and target is not None and not _CREDENTIAL.search(target):
        said = [f"{key}={value}" if value else f"{key} unset" for key, value in settings]
        state = "status " + ", ".join(said)
        yield Fact("record", target, TIERS["changed"], state=state)
        return
    for key, value in settings:
        state = f"status set to {value}" if value else "status unset"
        yield Fact("record", key, TIERS["changed"], state=state)


# A schema migration a tool says it applied (or rolled back), in the words of the usual
# tools. Each branch is linear on any line: no two unbounded runs of one character class
# meet (a long dot leader with no DONE after it fails at once).
_MIGRATED = re.compile(
    # EF Core, Prisma: "Applying migration '20241206_AddLock'."; EF: "Reverting migration"
    r"^.{0,40}?\b(?P<av>Applying|Reverting) migration [`'\"](?P<a>[^`'\"\s]{3,120})[`'\"]"
    # Laravel 9+: "2025_01_28_111677_add_flag_to_loans ........ 138ms DONE"
    r"|^\s*(?P<b>\d{4}_\d{2}_\d{2}_\d{6}_\w+)\s+\.{3,}\s*(?:\d[\d.]*\s*m?s\s+)?"
    r"(?P<bs>DONE|FAIL)\b"
    # Laravel 8: "Migrated:  2025_01_28_111677_add_flag (41.02ms)", "Rolled back:  ..."
    r"|^\s*(?P<gv>Migrated|Rolled back):\s+(?P<g>\d{4}_\d{2}_\d{2}_\d{6}_\w+)"
    # Flyway: 'Migrating schema `wms` to version "42 - add probe offline flag"'
    r"|^.{0,40}?\bMigrating schema \S+ to version \"?(?P<c>[^\"\n]{1,120}?)\"?[ \t]*$"
    # Django: "Applying shop.0012_add_flag... OK", "Unapplying shop.0012_add_flag... OK"
    r"|^\s*(?P<dv>Applying|Unapplying) (?P<d>\w+\.\d{4}_\w+)\.\.\.[ \t]*(?P<ds>OK|FAILED)?"
    # Rails: "== 20240101120000 AddFlagToLoans: migrated (0.0123s) =====", "reverted"
    r"|^==\s+(?P<e>\d{8,14}\s+\w+): (?P<ev>migrated|reverted)\b"
    # Alembic: "Running upgrade 1a2b -> 3c4d, add probe flag"; a downgrade names the
    # revision it leaves first: "Running downgrade 3c4d -> 1a2b, add probe flag"
    r"|^.{0,60}?\bRunning (?P<fv>upgrade) \S* ?-> (?P<f>\w+, [^\n]{1,100})"
    r"|^.{0,60}?\bRunning (?P<hv>downgrade) (?P<h>\w+) ?-> \S*, (?P<hd>[^\n]{1,100})",
    re.MULTILINE,
)
_MIGRATION_WORDS: Final = ("igrat", "pplying", "DONE", "grade", "Rolled back", "evert")
_ROLLING_BACK = re.compile(r"^\s*(?:INFO\s+)?Rolling back migrations", re.MULTILINE)
_MIGRATIONS_SHOWN: Final = 5
"""Migrations one output reports, at most (the last: a first ``migrate`` applies a
framework's own before the project's)."""


def _migrations(text: str) -> Iterator[Fact]:
    """Schema migrations a tool's output says it applied, rolled back or failed on: a
    name printed before the migration runs is failed when an error line follows it."""
    if not any(word in text for word in _MIGRATION_WORDS):  # a cheap gate
        return
    back = _ROLLING_BACK.search(text) is not None  # Laravel's rollback prints "... DONE"
    found: dict[str, str] = {}
    matches = list(_MIGRATED.finditer(text))
    for n, match in enumerate(matches):
        name = next(match[k] for k in "abgcdefh" if match[k])
        if match["h"]:
            name = f"{match['h']}, {match['hd']}"
        verb = next((match[k] for k in ("av", "gv", "dv", "ev", "fv", "hv") if match[k]), "")
        done = match["bs"] or match["ds"] or ""
        if done.startswith("FAIL"):
            state = "migration failed"
        elif back or verb in ("Reverting", "Rolled back", "Unapplying", "reverted", "downgrade"):
            state = "migration rolled back"
        else:
            state = "migration applied"
        if state != "migration failed":  # an error before the next migration: it failed
            end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
            if ERROR_LINE.search(text, match.end(), end):
                state = "migration failed"
        found.pop(" ".join(name.split()), None)
        found[" ".join(name.split())] = state
    for name, state in list(found.items())[-_MIGRATIONS_SHOWN:]:
        yield Fact("record", name, TIERS["changed"], state=f"status {state}")


# Files whose diff lines name settings ("-  retries: 6"); in code, "-    total = 0" is a
# variable, not a setting.
_CONFIG_FILE = re.compile(
    r"\.(?:json|ya?ml|toml|ini|cfg|conf|env|properties|tfvars|hcl|plist)\b|(?:^|/)\.env\b",
    re.IGNORECASE,
)
_DIFF_FILE = re.compile(
    r"^(?:\*\*\* (?:Update|Add) File: |\+\+\+ (?:b/)?|diff --git a/\S+ b/|Index: )(?P<path>\S+)"
)


def _changed_records(text: str) -> Iterator[Fact]:
    """Dependencies a package manager says it bumped, or a diff bumps; settings a
    diff of a configuration file switches or sets to another count."""
    for match in _BUMPED.finditer(text):
        state = f"bumped from {match['old']} to {match['new']}"
        yield Fact("record", match["name"], TIERS["changed"], state=state)
    removed: dict[str, str] = {}
    was: dict[str, str] = {}  # settings a diff removes, by name
    config = False  # the diff's current file is a configuration file
    for line in text.splitlines():
        if line.startswith(("*** ", "+++ ", "diff --git ", "Index: ")):
            header = _DIFF_FILE.match(line)
            if header is not None:
                config = _CONFIG_FILE.search(header["path"]) is not None
                was.clear()
            continue
        setting = _SETTING_LINE.match(line.rstrip()) if config else None
        if setting is not None:  # a switch or a count a diff changes: "-  retries: 6"
            name, value = setting["name"], setting["value"].lower()
            if setting["sign"] == "-":
                was[name] = value
            elif name in was and was.pop(name) != value:
                yield Fact("record", name, TIERS["changed"], state=f"status set to {value}")
            continue
        dep = _DEP_LINE.match(line)
        if dep is None:
            continue
        name, version = dep.group("name"), dep.group("version")
        if dep.group("sign") == "-":
            removed[name] = version
        elif name in removed and removed[name] != version:
            state = f"bumped from {removed.pop(name)} to {version}"
            yield Fact("record", name, TIERS["changed"], state=state)


# A tool's line that opens with what it did to a named thing: gcloud's "Disabled version
# [3] of the secret [bot-token].", systemctl's 'Removed "/etc/.../old-sync.timer".',
# dbt's "1 of 1 OK loaded seed file analytics.prices", "Deleted service [web]."
_DONE_LINE = re.compile(
    r"^\s*(?:[\d:.]{5,12}\s+)?(?:\d+ of \d+\s+)?(?:OK\s+)?"
    r"(?P<verb>created|deleted|removed|disabled|enabled|updated|revoked|destroyed|stopped|"
    r"started|restarted|scaled|applied|loaded|dropped|renamed|archived|published|deployed|"
    r"rolled back|paused|resumed|uninstalled|installed|terminated|suspended)\b"
    r"(?P<rest>[^\n]{1,200})$",
    re.IGNORECASE,
)
_NAMED = re.compile(
    r"\[([^\[\]\s]{2,120})\]|\"([^\"\s]{2,200})\"|'([^'\s]{2,120})'|`([^`\s]{2,120})`"
)
_NAME_LIKE = re.compile(r"(?<![\w@-])[\w@-]*[._/:-][\w@./:-]*\w")
_DONE_LINES_SHOWN: Final = 8
# a tool's line saying a named thing's switch: "nightly-sync: enabled=False"
_FLAG_LINE = re.compile(
    r"^\s*(?P<name>[\w.:/-]{3,80}):\s+(?:enabled|active|is_active)\s*[=:]\s*"
    r"(?P<value>true|false|yes|no|[01])\s*$",
    re.IGNORECASE,
)
"""Things one output says it did something to, at most (a bulk delete lists more)."""


# A state a tool reports of a named thing anywhere on its line: "| Table X successfully
# dropped. |", "application 'web-a' deleted", "| SYNC_HOURLY | 0 * * * * | suspended |"
_NEW_STATE = re.compile(
    r"(?<![\w-])(created|deleted|removed|dropped|released|deployed|published|paused|suspended|"
    r"resumed|archived|disabled|enabled|reverted|rolled back|merged|renamed|restored|revoked|"
    r"terminated|destroyed|degraded|out ?of ?sync|unhealthy|roll(?:ed|ing)?[ -]?back to)(?![\w-])",
    re.IGNORECASE,
)
_STATE_LINE_CHARS: Final = 200
_NOT_DONE = re.compile(
    r"(?<![\w-])(?:not|never|will|would|to be|going to|cannot|can't|won't|"
    r"failed to|unable to|could not|couldn't)(?![\w-])|n't\b"
    # "0 rows deleted", "no files removed" (not cron's "0 * * * *")
    r"|(?<![\w-])(?:0|zero|no|none)\s+[^\W\d]+\s*$",
    re.IGNORECASE,
)


_UNDONE_ROLLBACK = re.compile(
    r"\b(?:fail\w*|error|denied|refused|aborted|dry[- ]?run|would|cannot|can't|not|no)\b",
    re.IGNORECASE,
)


def _state_lines(lines: Sequence[str]) -> Iterator[Fact]:
    """Things a tool's short lines give a new state: the name the line quotes or
    brackets nearest before the state word (else the first after it), or, on a line
    that quotes nothing, the name-like token nearest before it (else the first after);
    at most :data:`_DONE_LINES_SHOWN` per output."""
    shown = 0
    for line in lines:
        if len(line) > _STATE_LINE_CHARS or shown >= _DONE_LINES_SHOWN:
            continue
        state = _NEW_STATE.search(line)
        if state is None or "?" in line or _NOT_DONE.search(line[: state.start()]):
            continue  # "not fully merged", "0 rows deleted", "will be deleted ... [y/N]?"
        if _GREP_HIT.match(line) or _code_line(line, state.start()):
            continue  # a file's words a search found, source code: no tool's report
        if _told_whole(line) or _GIT_LONG.match(line.lstrip("#")):
            continue  # git status's line: see _git_status
        quoted = [(m.start(), next(g for g in m.groups() if g)) for m in _NAMED.finditer(line)]
        if quoted:
            named = [(at, q) for at, q in quoted if not q.replace(".", "").isdigit()]
        else:
            named = [(line.find(n), n) for n in _thing_names(line, None)]
        before = [n for at, n in named if at < state.start()]
        after = [n for at, n in named if at > state.start()]
        name = before[-1] if before else after[0] if after else None
        word = " ".join(state.group(1).lower().split())
        if word.endswith(" to"):  # "[web1] Rollback to `releases/212` release was successful."
            undone = _UNDONE_ROLLBACK.search(line) is not None  # failed, a dry run, "No ..."
            name, word = (after[0], "rolled back to this") if after and not undone else (None, "")
        if name is not None and "`" not in name:
            shown += 1
            yield Fact("record", name, TIERS["changed"], state=f"status {word}")


# git status, long form: "\tmodified:   app/Jobs/Sync.php", "\tnew file:   x.py", under
# one of its headings (a document quoting such a line is no change)
_GIT_LONG = re.compile(r"^\s*(modified|deleted|new file):\s+(\S+)\s*$")
_GIT_HEADING = re.compile(
    r"^(?:On branch \S|HEAD detached (?:at|from) \S|Not currently on any branch"
    r"|Changes (?:not staged for commit|to be committed):|Unmerged paths:)"
)
# short form: " M lib/cart.dart", "D  old.py" (a listing of these lines only)
_GIT_SHORT = re.compile(r"^([ MADRCU?!]{2}) (\S.*)$")
# a clean tree, in git's English and its German, French, Spanish, Portuguese messages
# ("nothing added to commit but untracked files present": no tracked file changed)
_GIT_CLEAN = re.compile(
    r"^(?:nothing to commit,? \(?(?:working (?:tree|directory) clean)"
    r"|nothing added to commit but untracked files present"
    r"|nichts zu committen, Arbeitsverzeichnis unverändert"
    r"|rien à valider, la copie de travail est propre"
    r"|nada para hacer commit, el árbol de trabajo está limpio"
    r"|nada para (?:fazer )?(?:commit|submeter), (?:a )?árvore de trabalho limpa)"
)
_GIT_STATES: Final = {"modified": "modified", "deleted": "deleted", "new file": "created"}
_GIT_FILES_SHOWN: Final = 20
"""Changes one ``git status`` lists, at most (a listing of thousands is bulk)."""
_COMMITTED: Final = "(committed)"


def _git_status(lines: Sequence[str], uncommitted: dict[str, str]) -> Iterator[Fact]:
    """The uncommitted changes ``git status`` lists (untracked files are not changes
    anyone said were made), noted in ``uncommitted`` until a later ``git status``
    reports a clean tree: then they are committed."""
    if any(_GIT_CLEAN.match(line) for line in lines):
        for path, state in uncommitted.items():
            yield Fact("file", path, TIERS["changed"], state=f"{state} {_COMMITTED}")
        uncommitted.clear()
        return
    shown = 0
    headed = False
    for line in lines:
        headed = headed or _GIT_HEADING.match(line) is not None
        long = _GIT_LONG.match(line) if headed else None
        # under git's heading, a path of any kind ("snippets/harga-lama.liquid")
        if long is not None and _NAME_LIKE.fullmatch(long[2]) and shown < _GIT_FILES_SHOWN:
            shown += 1
            yield _uncommitted(long[2], _GIT_STATES[long[1]], uncommitted)
    short = [_GIT_SHORT.match(line) for line in lines if not line.startswith("## ")]
    if not short or not all(short):
        return
    for match in short[:_GIT_FILES_SHOWN]:
        assert match is not None
        code, path = match[1], match[2].strip()
        letters = set(code) & {"M", "A", "D"}  # "??" untracked, "!!" ignored: not changes
        if letters and PATH.fullmatch(path):
            state = "deleted" if "D" in letters else "created" if "A" in letters else "modified"
            yield _uncommitted(path, state, uncommitted)


def _uncommitted(path: str, state: str, uncommitted: dict[str, str]) -> Fact:
    if state != "deleted":  # a deletion committed is a deletion still
        uncommitted[path] = state
    return Fact(
        "file",
        path,
        TIERS["changed"],
        state=state if state == "deleted" else f"{state} {_UNCOMMITTED}",
    )


def _after_verb(done: re.Match[str]) -> str | None:
    """The name right after a :data:`_DONE_LINE`'s verb, if one is there."""
    rest = done["rest"]
    first = _NAME_LIKE.match(rest.lstrip()) if rest[:1].isspace() else None
    return first.group(0) if first is not None else None


def _told_whole(line: str) -> bool:
    """Whether :func:`_done_lines` reads ``line`` whole: a switch, or a verb and the
    name right after it (its other names are details, not things in that state)."""
    if _FLAG_LINE.match(line):
        return True
    done = _DONE_LINE.match(line)
    return done is not None and _after_verb(done) is not None


def _done_lines(lines: Sequence[str]) -> Iterator[Fact]:
    """Things a tool's lines say it created, deleted, disabled ... : the last name the
    line quotes or brackets, else its first name-like token after the verb."""
    shown = 0
    for line in lines:
        if len(line) > _TEST_LINE_CHARS or shown >= _DONE_LINES_SHOWN:
            continue
        flag = _FLAG_LINE.match(line)
        if flag is not None:  # "nightly-sync: enabled=False"
            shown += 1
            switched = "enabled" if flag["value"].lower() in ("true", "1", "yes") else "disabled"
            yield Fact("record", flag["name"], TIERS["changed"], state=f"status {switched}")
            continue
        match = _DONE_LINE.match(line)
        if match is None or _GIT_LONG.match(line):
            continue  # git status's line: see _git_status
        # the name right after the verb ("deleted nightly-sync (1, {'app.Task': 1})"),
        # else the last one the line quotes or brackets
        first = _after_verb(match)
        quoted = [next(g for g in m.groups() if g) for m in _NAMED.finditer(match["rest"])]
        names = [q for q in quoted if not q.replace(".", "").isdigit()]
        if first is not None:
            names = [first]
        if not names:
            bare = _NAME_LIKE.search(match["rest"])
            names = [bare.group(0)] if bare else []
        if names and "`" not in names[-1]:
            shown += 1
            state = "status " + match["verb"].lower()
            yield Fact("record", names[-1], TIERS["changed"], state=state)


# What the agent says it did to a thing it names between backticks: "I revoked the
# `staging-key` key", "`nightly_digest` is disabled in sidekiq-cron", "`job_spec.rb` is
# green".
_STATED = re.compile(
    r"\b(revoked|deleted|removed|disabled|enabled|created|renamed|migrated|deployed|"
    r"rolled back|reverted|archived|paused|stopped|restarted|rotated|green|passed|failed|"
    r"ignored|skipped|gelöscht|deaktiviert|aktiviert|entfernt|eliminad[oa]|desactivad[oa]|"
    r"supprimée?|désactivée?|eliminat[oa]|disabilitat[oa]|verwijderd|uitgeschakeld|"
    r"poistettu|pysäytetty|usunięt[ya]|wyłączon[ya]|smazán[oa]?|vypnut[oa]?|"
    r"вимкнено|видалено|удален[оа]?|отключен[оа]?)\b",
    re.IGNORECASE,
)


def _stated_records(sentence: str) -> Iterator[Fact]:
    """A thing the agent's ``sentence`` names between backticks with what it did to it
    (one per sentence: the first name; not in a question or a conditional)."""
    if "`" not in sentence or sentence.endswith(_ASKED) or _conditional(sentence):
        return
    name = _TICKED.search(sentence)
    said = _STATED.search(sentence)
    if name is None or said is None or " " in name.group(1) or len(name.group(1)) > 120:
        return
    yield Fact("record", name.group(1), TIERS["changed"], state=f"status {said.group(1).lower()}")


_CONDITIONAL = re.compile(
    r"\b(?:if|whether|unless|until|should|would|could|ob|falls|jos|czy|jestli|pokud|если)\b",
    re.IGNORECASE,
)
# Words that mean "if" and as often "when", "as", or a passive ("Se eliminó la tabla",
# "als veraltet gelöscht"): a condition only in a sentence that tells no deed done.
_MAYBE_CONDITIONAL = re.compile(r"\b(?:once|when|wenn|si|se|als)\b", re.IGNORECASE)
# A deed done, in the agent's words: a past verb of change (English, German, Dutch,
# Scandinavian, Romance, Slavic, Turkish, Hindi, Chinese, Japanese, Korean, Thai). Read
# only to weigh its sentences (the said rules take any language): a sentence with one
# outranks a mere mention.
_DEED = re.compile(
    r"(?<![\w-])(?:(?:re)?(?:deleted|removed|dropped|created|restored|renamed|archived|"
    r"migrated|reverted|rolled back|truncated|purged|revoked|rotated|disabled|enabled|"
    r"deployed|merged|moved|added|wrote|written|updated|modified|changed|fixed|replaced|"
    r"built|cleared|wiped|killed|stopped|started|uninstalled|installed|upgraded|downgraded|"
    r"published|closed|opened|resolved|cancell?ed|refunded|deactivated|activated|suspended|"
    r"paused|resumed|erased|destroyed|terminated|committed|pushed|emptied|backed up)|"
    r"gelöscht|entfernt|erstellt|angelegt|wiederhergestellt|umbenannt|archiviert|"
    r"deaktiviert|aktiviert|geändert|aktualisiert|verschoben|verwijderd|aangemaakt|"
    r"hersteld|hernoemd|slettet|raderade|tog bort|"
    r"elimin(?:é|ó|ad[oa]s?|ei|ou|at[oa])|borr(?:é|ó|ad[oa]s?)|cre(?:é|ó|ad[oa]s?|ei|ou)|"
    r"restaur(?:é|ó|ad[oa]s?|ei|ou|ée?)|renombr(?:é|ó)|remov(?:i|eu|id[oa])|apag(?:uei|ou)|"
    r"exclu(?:í|iu|íd[oa])|supprimée?s?|créée?s?|renommée?s?|archivée?s?|désactivée?s?|"
    r"rimoss[oa]|cancellat[oa]|creat[oa]|ripristinat[oa]|"
    r"удалил[аи]?|удален[аоы]?|удалён|создал[аи]?|восстановил[аи]?|переименовал[аи]?|"
    r"видалив|видалила|створив|створила|відновив|відновила|"
    r"usun(?:ąłem|ęłam|ięt[aoy])|utworzy(?:łem|łam)|przywróci(?:łem|łam)|"
    r"sil(?:dim|indi)|oluşturdum|geri yükledim|"
    r"हटा (?:दी|दिया|दिए)|हटाया|हटाई|मिटा (?:दी|दिया)|बनाया|बनाई)(?![\w-])"
    r"|(?:删除|删掉|创建|恢复|移除|清除)了|已(?:删除|创建|恢复|移除)"
    r"|(?:削除|作成|復元|移動|変更)しました|(?:삭제|생성|복원|제거)했|ลบ\S{0,40}แล้ว",
    re.IGNORECASE,
)
# What a tool says of a thing that tells nothing of what became of it: kubectl's
# "patched" or "configured" (of what?), "scaled" (to how many?). The agent's words of it
# say more.
_UNTOLD: Final = frozenset({"status patched", "status configured", "status scaled"})
# A deed that undoes what a tool reported before it ("I restored users_backup ...")
_UNDOES = re.compile(
    r"(?<![\w-])(?:restored|recreated|undeleted|reverted|rolled back|wiederhergestellt|"
    r"restaur(?:é|ó|ad[oa]|ei|ou|ée?)|ripristinat[oa]|hersteld|восстановил[аи]?|відновив|"
    r"відновила|przywróci(?:łem|łam)|geri yükledim)(?![\w-])|恢复了|已恢复|復元しました|복원했",
    re.IGNORECASE,
)


def _conditional(sentence: str) -> bool:
    """Whether ``sentence`` puts what it says under a condition."""
    if _CONDITIONAL.search(sentence):
        return True
    return _MAYBE_CONDITIONAL.search(sentence) is not None and not _DEED.search(sentence)


def _moved_records(sentence: str) -> Iterator[Fact]:
    """A record the agent says it moved: "HOLLOW-3559 moved to Ready for QA" (the id
    named last before each "moved to", found in one pass over the sentence)."""
    moves = list(itertools.islice(_MOVED.finditer(sentence), _IDS_PER_LINE))
    if not moves:
        return
    ids = [(sentence.find(t), t) for t in _plain_ids(sentence) if not _FIGURE.fullmatch(t)]
    for match in moves:
        before = [t for at, t in ids if 0 <= at < match.start()]
        if before:
            state = " ".join(match.group("state").split())
            yield Fact("record", before[-1], TIERS["changed"], state=f"status {state}")


_NARRATED = re.compile(r"(?:next|then)\b", re.IGNORECASE)
_SAID: Final = "said: "
"""The state of a thing the agent's words name: those words, around the name."""
_SAID_CHARS: Final = 110
_SAID_PER_MESSAGE: Final = 3
_SAID_SENTENCES_READ: Final = 12  # sentences of one message read for those, at most
_LATE_DEEDS: Final = 32  # names whose newest deed is weighed against later tools, at most
_SAID_NAMES: Final = 2
_UNCOMMITTED: Final = "(uncommitted)"
_HYPHENATED = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w-])")
_HYPHENATED_PER_ENTRY: Final = 200
# A run of name characters; inside one, a run of Latin ones (a name glued to the
# Japanese or Thai around it: "deploy.yamlを更新")
_TOKEN = re.compile(r"[\w./@:-]+")
_LATIN_RUN = re.compile(r"[A-Za-z0-9_./@:-]+")


_SLASHED = re.compile(r"(?<![\w./-])/?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+")


# A name with one slash is a thing (a git ref, a release) when it holds a digit or a
# joining mark, or opens with a ref's usual prefix; "and/or", "read/write" are words.
_REF_LIKE = re.compile(r"[\d_.-]")
_REF_PREFIXES = frozenset(
    {"origin", "upstream", "feature", "feat", "fix", "bugfix", "hotfix", "release", "releases"}
    | {"chore", "refs", "heads", "tags", "dev", "wip"}
)


def _tails(path: str) -> list[str]:
    """The names of two parts at the end of ``path`` (``/srv/app/releases/9``:
    ``releases/9``), and the path itself when it has two parts."""
    parts = [p for p in path.split("/") if p]
    return ["/".join(parts[-2:])] if len(parts) >= 2 else []


def _thing_names(text: str, hyphenated: set[str] | None) -> Iterator[str]:
    """The names of :func:`_thing_names_at`, without where they start."""
    return (name for _, name in _thing_names_at(text, hyphenated))


def _name_runs(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each run of Latin name characters in ``text`` (a name glued to the Japanese or
    Thai around it too), trimmed of joining marks at its ends, with its token; a
    mailbox whole, with a plus or an accented letter in it (``juma+ops@duka.co.tz``,
    ``josé.k@duka.co.tz``)."""
    mailboxes = list(_MAILBOX.finditer(text)) if "@" in text else []
    for match in _TOKEN.finditer(text):
        while mailboxes and mailboxes[0].end() <= match.start():
            mailboxes.pop(0)  # passed: it was read whole, or no token held it
        if mailboxes and mailboxes[0].start() < match.end():
            if match.start() <= mailboxes[0].start():  # the first token it spans
                yield mailboxes[0], mailboxes[0].group(0)
            continue  # a part of a mailbox, read whole
        token = match.group(0)
        runs = [token] if _LATIN_RUN.fullmatch(token) else _LATIN_RUN.findall(token)
        for run in runs:
            yield match, run.strip(".:-/@")


_MAILBOX = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9\u00c0-\u024f._+-]+@[A-Za-z0-9\u00c0-\u024f-]+"
    r"(?:\.[A-Za-z0-9\u00c0-\u024f-]+)*\.[A-Za-z]{2,24}(?![\w@-])"
)
_SHARED_READ: Final = 20_000  # characters of a request or a command read for names

# A secret named like an environment variable: DB_PASS, AWS_SECRET_ACCESS_KEY,
# GITHUB_TOKEN, SECRET_KEY_BASE (a part of it says what it holds).
_SECRET_NAME = re.compile(
    r"(?<![A-Za-z0-9])(?=[A-Z0-9_]*_)[A-Z0-9_]*(?:PASS|PASSWD|PASSWORD|PWD|SECRET|TOKEN|KEY)"
    r"[A-Z0-9_]*(?![A-Za-z0-9])"
)
# The six words after a word for a credential, where its value is said: "the admin password
# is Zx9cVb7nM3kL", "DB_PASS is c2Vj...", "AWS_SECRET_ACCESS_KEY to wJal...".
_VALUE_WORD = re.compile(r"[^\s,;()<>\"'`]+")
_GIVES = re.compile(r"\s*(?:[:=]|is\b|was\b)")
_VALUE_WORDS: Final = 6
_VALUE_REACH: Final = 160


def _mask_credentials(text: str, found: set[str]) -> str:
    """``text`` (someone's words) with each credential in it masked: a password a URL
    or a setting holds (:data:`_CREDENTIAL`), and the value said after a word for a
    credential or a secret's variable name (``***``); the values masked go to
    ``found``."""
    if _CREDENTIAL.search(text):
        found |= _secret_values(text)
        text = _CREDENTIAL.sub(_masked, text)
    if not (_talks_secret(text) or _SECRET_NAME.search(text)):
        return text
    spans: set[tuple[int, int]] = set()
    marks = itertools.chain(
        _SECRET_TALK.finditer(text), _MORE_SECRET.finditer(text), _SECRET_NAME.finditer(text)
    )
    for mark in marks:  # every value-like word of the next six may be the value
        if mark.group(0).lower().startswith("token") and not _GIVES.match(text, mark.end()):
            continue  # "the concurrency token", "tokens": no credential given here
        words = _VALUE_WORD.finditer(text, mark.end(), mark.end() + _VALUE_REACH)
        for word in itertools.islice(words, _VALUE_WORDS):
            value = word.group(0).rstrip(".!?:")
            if _valueish(value):
                spans.add((word.start(), word.start() + len(value)))
    masked: list[str] = []
    at = 0
    for start, end in sorted(spans):
        if start >= at:
            masked += [text[at:start], "***"]
            found.add(text[start:end])
            at = end
    return "".join([*masked, text[at:]])


def _shared_names(text: str) -> set[str]:
    """The names in ``text`` (a request, a command) that, said again by the agent, are
    the thing it acted on: see :func:`_shared_shape`. Lower case; the first
    :data:`_HYPHENATED_PER_ENTRY` only. None from a sentence that talks of a secret
    ("The password is Tr0ub4dor&3x"), and no value shaped like a credential."""
    kept = " ".join(s for s in SENTENCE.split(text) if not _talks_secret(s))
    kept = _COMMAND_SECRET.sub(" ", _CREDENTIAL.sub(" ", kept))
    runs = itertools.islice(_name_runs(kept), _HYPHENATED_PER_ENTRY)
    return {
        name.lower()
        for match, name in runs
        # (a command's flag, "--dry-run-only", is no thing)
        if _shared_shape(name) and not _secret_value(name) and match.group(0)[:1] != "-"
    }


# Words and marks that say a credential is near, beyond :data:`_SECRET_TALK`: short
# labels (``pw``, ``pin:``, ``DB_PW``, ``db-pw``, French "mdp", German "Kennwort"), HTTP
# authorization, recovery and one-time codes (not "recovery" alone: Ceph recovers), the
# word in Chinese, Korean, Persian, Arabic and Hindi, and a Kubernetes Secret.
_KIND_SECRET = re.compile(r"^kind:\s*Secret\b", re.MULTILINE)
_MORE_SECRET = re.compile(
    # a login given ("the admin login is X", "set the login to X"), a key to encrypt with
    r"(?i:(?<![a-z])log[io]n\s+(?:is|to|=|:)|(?<![a-z])encrypt\w*\s+(?:\S+\s+){0,3}?with(?![a-z]))|"
    r"(?i:(?<![a-z])(?:pw|mdp|kennwort|bearer|otp|totp|2fa|passcode|passkey|htpasswd|"
    r"(?:recovery|backup)[ _-]?codes?)(?![a-z])|(?<![a-z])(?:pwd|pin|authorization)\s*[:=])"
    r"|口令|密碼|密钥|암호|비번|رمز|كلمة السر|कूटशब्द|पासवर्ड|ססמה|гасло"
    r"|" + _KIND_SECRET.pattern,
    re.MULTILINE,
)
# What only a credential looks like: a Vault or GitHub token, a PEM private key, a crypt
# hash (htpasswd's ``$apr1$``). A tool's line holding one gives no identifier at all.
_SECRET_SHAPE = re.compile(
    r"\b(?:hv[sbr]\.[\w-]{8,}|s\.[A-Za-z0-9]{24}\b|github_pat_|gh[opsu]_\w{10,}|glpat-)"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----|\$(?:apr1|2[abyx]|1|5|6|y)\$"
)
# A password a command passes by position or under a flag the credential rules do not
# read: ``sshpass -p X``, ``redis-cli -a X``, ``curl -u user:X``, ``htpasswd -b file
# user X``, ``export DB_PW=X``.
_COMMAND_SECRET = re.compile(
    r"(?:(?<![\w-])sshpass\s+-p|(?<![^\s\"'])(?:-a|--pass|--auth))\s+(?P<a>[^\s\"']+)"
    r"|(?<![^\s\"'])(?:-u|--user)\s+[^\s:\"']+:(?P<b>[^\s\"']+)"
    r"|\bhtpasswd\s+-[a-zA-Z]*b[a-zA-Z]*\s+\S+\s+\S+\s+(?P<c>[^\s\"']+)"
    r"|(?i:\b\w*(?:pw|pwd|pass|secret|token|key)\w*)=(?P<d>[^\s\"']+)"
    # zip -P X, openssl ... -k X / -pass pass:X, SQL's PASSWORD 'X' and IDENTIFIED BY 'X'
    r"|\bzip\b[^\n|;&]*?\s-P\s+(?P<e>[^\s\"']+)"
    r"|\bopenssl\b[^\n|;&]*?\s(?:-k|-pass\s+pass:)\s*(?P<f>[^\s\"']+)"
    r"|(?i:\b(?:password|identified\s+by))\s+'(?P<g>[^'\s]+)'"
)


def _talks_secret(text: str) -> bool:
    """Whether ``text`` talks of a credential (:data:`_SECRET_TALK`, :data:`_MORE_SECRET`)."""
    return (
        _SECRET_TALK.search(text) is not None
        or _MORE_SECRET.search(text) is not None
        or _SECRET_SHAPE.search(text) is not None
    )


def _valueish(token: str) -> bool:
    """Whether ``token`` could be a password: six characters or more, a digit or a
    capital among them."""
    return len(token) >= 6 and any(c.isdigit() or c.isupper() for c in token)


def _secret_values(text: str) -> set[str]:
    """The values ``text`` (a command) passes as credentials (and the parts of each a
    colon joins, and their Latin runs): none of them is a name."""
    values: set[str] = set()
    for match in _CREDENTIAL.finditer(text):
        value = re.split(r"[\s=]", match.group(0).rstrip("@"))[-1].removeprefix("-p")
        values.add(value)
        values.update(value.split(":"))
    for match in _COMMAND_SECRET.finditer(text):
        values.update(v for v in match.groupdict().values() if v)
    values = {v.strip("'\"") for v in values}
    return {v for v in values if len(v) >= 4} | {
        n for v in values for _, n in _name_runs(v) if _valueish(n)
    }


def _shared_shape(name: str) -> bool:
    """Whether ``name`` looks like the name of a thing, not a word, a value, a version or
    code: a host, a mailbox, a domain, a package or a node (``db-3.internal:5432``,
    ``juma.k@duka.co.tz``, ``acme/billing-sdk``, ``shop-7k.la``) joins its parts with an
    ``@``, or with a dot, slash or colon and holds a digit or a hyphen; a policy, a job
    or a file (``deny-legacy-ftp``, ``rate_tiers.map``) joins three words or more with
    hyphens, or words with an underscore before an extension. "read-only",
    "end-to-end", ``ecdsa-p256`` (a value), ``v2.14`` and ``math.factorial`` do not
    count."""
    if len(name) < 4 or not name[0].isalpha() or "://" in name or _VERSIONISH.fullmatch(name):
        return False
    if _AT_JOINED.search(name):
        return True
    if _MANY_PARTS.fullmatch(name):
        return not _CONNECTORS.intersection(re.split(r"[-_.]", name.lower()))
    return _PART_JOINED.search(name) is not None and ("-" in name or any(c.isdigit() for c in name))


_VERSIONISH = re.compile(r"[vV]\d+(?:\.\d+)*[\w.-]*")
# three parts or more joined by hyphens (``deny-legacy-ftp``, ``helm-stable-local``), or
# words joined by an underscore with a file's extension (``rate_tiers.map``); not a
# phrase ("end-to-end", "state-of-the-art")
_MANY_PARTS = re.compile(
    r"(?<![\w.-])(?:[^\W_]{2,}(?:-[^\W_]{2,}){2,}|[^\W_]+(?:_[^\W_]+)+\.[a-z]{2,4})"
)
_CONNECTORS: Final = frozenset({"to", "of", "the", "on", "in", "by", "and", "or", "for", "at"})
_AT_JOINED = re.compile(r"[^\W_]@[^\W_]")
_PART_JOINED = re.compile(r"[^\W_][./:][^\W_]")


def _thing_names_at(
    text: str, hyphenated: set[str] | None, shared: set[str] | None = None
) -> Iterator[tuple[int, str]]:
    """The names of things in ``text``, in order: files of a known kind
    (``values-prod.yaml``), paths with two slashes or more, names with an underscore
    (``LAB_RESULTS_2023``), hyphenated names (``kassa-staging``) when ``hyphenated``
    is ``None`` or holds them (not words like "follow-up"), and any name ``shared``
    holds (the user's request or the agent's command gave it: a host, a mailbox); not
    calls (``f()``), URLs, other hosts, figures, versions or times."""
    for match, name in _name_runs(text):
        if text[match.end() : match.end() + 1] == "(":
            continue  # a function called, not a thing acted on
        if len(name) < 4 or not name[0].isalpha() or "://" in name:
            continue
        if shared is not None and name.lower() in shared:
            yield match.start(), name  # the request or the command named it: the thing
        elif "@" in name:
            continue
        elif PATH.fullmatch(name) or (name.count("/") >= 2 and "." not in name):
            yield match.start(), name
        elif (
            name.count("/") == 1
            and hyphenated is not None
            and name.lower() in hyphenated
            and (_REF_LIKE.search(name) or name.split("/")[0].lower() in _REF_PREFIXES)
        ):
            yield match.start(), name  # releases/179, fix/login: a tool named it (not "and/or")
        elif ":" in name or "." in name or "/" in name:
            continue  # a time, a host, a dotted setting: not a thing here
        elif "_" in name or ("-" in name and (hyphenated is None or name.lower() in hyphenated)):
            yield match.start(), name  # LAB_RESULTS_2023; kassa-staging


def _around(sentence: str, name: str) -> str:
    """``sentence`` on one line, cut to the words around ``name`` when it is long."""
    text = " ".join(sentence.split())
    if len(text) <= _SAID_CHARS:
        return text
    at = max(text.find(name), 0)
    room = max(_SAID_CHARS - len(name), 20) // 2
    start, end = max(at - room, 0), min(at + len(name) + room, len(text))
    if start:
        start = text.find(" ", start, at) + 1 or start
    if end < len(text):
        end = text.rfind(" ", at + len(name), end) if " " in text[at + len(name) : end] else end
    return ("..." if start else "") + text[start:end].strip() + ("..." if end < len(text) else "")


def _said_records(
    sentence: str, hyphenated: set[str], shared: set[str] | None = None
) -> Iterator[Fact]:
    """The things the agent's ``sentence`` names (the first :data:`_SAID_NAMES`), each
    with the sentence as its state: what it did to them is said in its own words, in
    any language ("Я удалил приложение kassa-staging", "ผมลบตาราง LAB_RESULTS_2023").
    Not in a question or a conditional; the rules for tools' words win over these."""
    if sentence.endswith(_ASKED) or _conditional(sentence):
        return
    if _PROPOSES.search(sentence) or _talks_secret(sentence):
        return  # what it offers to do is not done; a credential is not copied
    # "Tomorrow I'll drop X": what comes, not done ("then I read it" tells what was)
    plan = next((m for m in _AGENT_NEXT.finditer(sentence) if not _NARRATED.match(m[0])), None)
    names = [
        (at, name)
        for at, name in _thing_names_at(sentence, hyphenated, shared)
        if plan is None or at < plan.start()
    ]
    if shared and names:
        # a name only the request or the command made a thing, that the rules for ids
        # read ("SEC-1184", "rsa-4096"), stays an id: its fact keeps the sentence too
        ids = {token.lower() for token in _plain_ids(sentence)}
        own = {name for _, name in _thing_names_at(sentence, hyphenated)}
        names = [(at, n) for at, n in names if n in own or n.lower() not in ids]
    for name in list(dict.fromkeys(name for _, name in names))[:_SAID_NAMES]:
        if "`" not in name:
            yield Fact("record", name, TIERS["said"], state=_SAID + _around(sentence, name))


def seen_text(messages: Iterable[Message]) -> str:
    """Everything the model reads in ``messages``: texts, tool calls, tool outputs."""
    parts: list[str] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, ToolUseBlock):
                parts.append(json.dumps(block.input, ensure_ascii=False))
            elif isinstance(block, ToolResultBlock):
                content = block.content
                if isinstance(content, str):
                    parts.append(content)
                else:
                    parts.extend(p.text for p in content if isinstance(p, TextBlock))
    return "\n".join(parts)

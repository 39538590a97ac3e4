"""A refusal is never committed as the summary, in any common phrasing or language.

The replies come from stub transports (``scripted=True``), which are judged by the
refusal detector alone: the hardest case, with no ``<summary>`` tags to lean on.
Summaries that merely mention or quote a refusal, or start with a negation that
declines nothing, must still be committed.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import MemoryContextStore, Message, ModelInfo
from contextfold.compaction import AutoCompactStore, CompactionEvent, compact_context
from contextfold.errors import SummaryRejectedError
from contextfold.testing import StubTransport, make_text_response

WINDOW = ModelInfo("small-model", 8_000, 1_000)

# (language, reply): every one declines the task.
REFUSALS = [
    ("en", "I can\u2019t help with that."),
    ("en", "I apologize, but I cannot summarize this conversation."),
    ("en", "Unfortunately, I cannot provide a summary of this content."),
    ("en", "I'm afraid I can't do that."),
    ("en", "**I'm sorry**, but I can't continue with this request."),
    ("en", "I\u2019m sorry, but I won\u2019t be able to help with this."),
    ("en", "As an AI language model, I cannot summarize private conversations."),
    ("en", "I am unable to comply with this request."),
    ("en", "I'm not able to assist with that."),
    ("en", "Sorry, I can't help with this one."),
    ("en", "My apologies, but summarizing this is something I must decline."),
    ("en", "I must respectfully decline to summarize this transcript."),
    ("en", "I won't be able to produce that summary."),
    ("en", "Unable to help with that request."),
    ("en", "That's not something I can help with."),
    ("en", "I'd rather not summarize this conversation."),
    ("en", "\ufeffI cannot help with that."),
    ("en", "> I'm sorry, I can't assist with that."),
    ("en", "_I cannot fulfill this request._"),
    ("en", "\uff29\u02bc\uff2d \uff33\uff2f\uff32\uff32\uff39, I can't do this."),
    ("en", "Hmm. I don't think I can help with this."),
    ("en", "I understand the request, but I'm not comfortable summarizing this conversation."),
    ("en", "\u201cI\u2019m sorry, but I cannot help with that.\u201d"),
    ("en", "I cannot."),
    ("en", "I'm unable to process this request."),
    ("en", "This request violates our usage policies, so I can't help."),
    ("es", "Lo siento, pero no puedo ayudarte con eso."),
    ("es", "Lamentablemente, no puedo resumir esta conversaci\u00f3n."),
    ("es", "No puedo cumplir con esta solicitud."),
    ("es", "Disculpa, pero no me es posible continuar."),
    ("es", "No puedo hacerlo."),
    ("fr", "Je suis d\u00e9sol\u00e9, mais je ne peux pas vous aider."),
    ("fr", "D\u00e9sol\u00e9e, je ne peux pas faire \u00e7a."),
    ("fr", "Je ne suis pas en mesure de r\u00e9sumer cette conversation."),
    ("fr", "Malheureusement, je ne peux pas r\u00e9pondre \u00e0 cette demande."),
    ("de", "Es tut mir leid, aber ich kann Ihnen dabei nicht helfen."),
    ("de", "Leider kann ich diese Anfrage nicht bearbeiten."),
    ("de", "Ich bin nicht in der Lage, diese Unterhaltung zusammenzufassen."),
    ("de", "Entschuldigung, das kann ich nicht."),
    ("pt", "Desculpe, mas n\u00e3o posso ajudar com isso."),
    ("pt", "Infelizmente, n\u00e3o consigo resumir esta conversa."),
    ("pt", "Sinto muito, n\u00e3o posso continuar."),
    ("it", "Mi dispiace, ma non posso aiutarti con questa richiesta."),
    ("it", "Purtroppo non sono in grado di riassumere questa conversazione."),
    ("it", "Non posso soddisfare questa richiesta."),
    ("it", "Non posso farlo."),
    (
        "ja",
        "\u7533\u3057\u8a33\u3042\u308a\u307e\u305b\u3093\u304c\u3001"
        "\u305d\u306e\u3054\u4f9d\u983c\u306b\u306f\u304a\u5fdc\u3048\u3067\u304d\u307e\u305b\u3093\u3002",
    ),
    (
        "ja",
        "\u305d\u306e\u5185\u5bb9\u3092\u8981\u7d04\u3059\u308b\u3053\u3068\u306f"
        "\u3067\u304d\u307e\u305b\u3093\u3002",
    ),
    (
        "ja",
        "\u6b8b\u5ff5\u306a\u304c\u3089\u3001\u304a\u624b\u4f1d\u3044\u3067\u304d\u304b\u306d"
        "\u307e\u3059\u3002",
    ),
    (
        "zh",
        "\u62b1\u6b49\uff0c\u6211\u65e0\u6cd5\u5e2e\u52a9\u4f60\u5b8c\u6210\u8fd9\u4e2a\u8bf7\u6c42\u3002",
    ),
    ("zh", "\u5bf9\u4e0d\u8d77\uff0c\u6211\u4e0d\u80fd\u63d0\u4f9b\u8fd9\u4e2a\u603b\u7ed3\u3002"),
    ("zh", "\u5f88\u9057\u61be\uff0c\u6211\u65e0\u6cd5\u603b\u7ed3\u8fd9\u6bb5\u5bf9\u8bdd\u3002"),
    (
        "zh",
        "\u4f5c\u70ba\u4e00\u500bAI\uff0c\u6211\u7121\u6cd5\u5354\u52a9\u9019\u9805\u8acb\u6c42\u3002",
    ),
    (
        "ru",
        "\u0418\u0437\u0432\u0438\u043d\u0438\u0442\u0435, \u043d\u043e \u044f \u043d\u0435 "
        "\u043c\u043e\u0433\u0443 \u043f\u043e\u043c\u043e\u0447\u044c "
        "\u0441 \u044d\u0442\u0438\u043c.",
    ),
    (
        "ru",
        "\u041a \u0441\u043e\u0436\u0430\u043b\u0435\u043d\u0438\u044e, \u044f \u043d\u0435 "
        "\u043c\u043e\u0433\u0443 \u0432\u044b\u043f\u043e\u043b\u043d\u0438\u0442\u044c "
        "\u044d\u0442\u0443 "
        "\u043f\u0440\u043e\u0441\u044c\u0431\u0443.",
    ),
    (
        "ko",
        "\uc8c4\uc1a1\ud558\uc9c0\ub9cc \ub3c4\uc640\ub4dc\ub9b4 \uc218 \uc5c6\uc2b5\ub2c8\ub2e4.",
    ),
    ("ko", "\uc694\uc57d\ud574 \ub4dc\ub9b4 \uc218 \uc5c6\uc2b5\ub2c8\ub2e4."),
    ("nl", "Het spijt me, maar ik kan je daar niet mee helpen."),
    (
        "ja",
        "\u7533\u3057\u8a33\u3054\u3056\u3044\u307e\u305b\u3093\u304c\u3001"
        "\u5bfe\u5fdc\u3044\u305f\u3057\u304b\u306d\u307e\u3059\u3002",
    ),
    ("ko", "\uc8c4\uc1a1\ud558\uc9c0\ub9cc \uc548 \ub429\ub2c8\ub2e4."),
]

QUOTED_LATER = (
    "## User requests and intent\nThe user asked for a haiku about the build.\n\n"
    "## Errors and dead ends\nThe vendor's bot answered \"I'm sorry, but I can't help with "
    'that." and then: I cannot assist with billing. We switched vendors.\n\n'
    "## Current state\nThe build is green."
)

# Summaries that must be committed, including ones that quote or resemble a refusal.
LEGIT = [
    "Unable to reproduce the bug was the user's first report; the assistant then found a race "
    "in cache.py.",
    QUOTED_LATER,
    "The user wrote: I can't help feeling the API is slow. Profiling showed 80% in json.dumps.",
    "I cannot reproduce the crash on macOS; on Linux it fails in test_io.py line 42.",
    "Unfortunately, the deploy failed twice with exit code 137 (OOM); memory was raised to 2 GiB.",
    "Sorry-state handling was refactored into state.py; the user approved the design.",
    "As an aside, the user prefers tabs over spaces and wants black disabled.",
    "Cannot-reproduce bugs are tracked in JIRA-12; the user closed JIRA-7.",
    "The assistant declined to run rm -rf /tmp/build and the user agreed.",
    "## Current state\nTests pass.\n\n## Errors and dead ends\nI'm sorry, but I can't help with "
    "that - was the old vendor bot's only reply.",
    "\u201cI can\u2019t help with that,\u201d the old bot kept saying; the user migrated to the "
    "new API in api/v2.py.",
    "El usuario pidi\u00f3 migrar la base de datos; el bot respondi\u00f3 \u00abNo puedo "
    "ayudarte\u00bb y se escal\u00f3 el caso.",
    "L'utilisateur veut r\u00e9sumer des journaux ; l'assistant a r\u00e9pondu \u00ab je ne peux "
    "pas vous aider \u00bb puis a corrig\u00e9 le script.",
    "Der Nutzer meldete, dass der Build fehlschl\u00e4gt. Ich kann nicht helfen war die Antwort "
    "des alten Bots.",
    "O usu\u00e1rio pediu um relat\u00f3rio de vendas; o arquivo report.csv foi gerado.",
    "L'utente ha chiesto di aggiornare il README; la modifica \u00e8 stata fatta.",
    "\u30e6\u30fc\u30b6\u30fc\u306f\u30d3\u30eb\u30c9\u306e\u4fee\u6b63\u3092\u4f9d\u983c\u3057\u305f"
    "\u3002\u30a2\u30b7\u30b9\u30bf\u30f3\u30c8\u306f\u300c\u304a\u624b\u4f1d\u3044\u3067\u304d"
    "\u307e\u305b\u3093\u300d\u3068\u7b54\u3048\u305f\u5f8c\u3001\u4fee\u6b63\u3057\u305f\u3002",
    "\u7528\u6237\u8981\u6c42\u603b\u7ed3\u65e5\u5fd7\uff1b\u52a9\u624b\u66fe\u56de\u7b54\u201c"
    "\u6211\u65e0\u6cd5\u5e2e\u52a9\u4f60\u201d\uff0c\u968f\u540e\u4fee\u590d\u4e86\u811a\u672c\u3002",
    "\uc0ac\uc6a9\uc790\ub294 \ube4c\ub4dc \uc624\ub958 \uc218\uc815\uc744 \uc694\uccad\ud588\ub2e4"
    ". \ud14c\uc2a4\ud2b8\ub294 \ubaa8\ub450 \ud1b5\uacfc\ud588\ub2e4.",
    "\u041f\u043e\u043b\u044c\u0437\u043e\u0432\u0430\u0442\u0435\u043b\u044c \u043f\u043e\u043f"
    "\u0440\u043e\u0441\u0438\u043b \u0438\u0441\u043f\u0440\u0430\u0432\u0438\u0442\u044c \u0441"
    "\u0431\u043e\u0440\u043a\u0443; \u0442\u0435\u0441\u0442\u044b \u0442\u0435\u043f\u0435\u0440"
    "\u044c \u043f\u0440\u043e\u0445\u043e\u0434\u044f\u0442.",
    "I am unable to find any reference to FOO_BAR in the repo; the user asked to search src/ next.",
    "No puedo is the title of the user's favourite song; they asked for a lyrics analysis.",
    "Help desk ticket 4411: the user cannot log in after the SSO migration.",
    "AI summary of the session: the user is building an AI assistant named Sorry Bot.",
    "I won't repeat the full log here; the key error is ECONNRESET at 10:42.",
    "Sorryville is the project codename; deploys go to sorryville.example.com.",
    "Unable to assist the migration tool, the user wrote their own script in tools/migrate.py.",
    "The model said it cannot help with legal questions, so the user rephrased the request.",
    "Ich kann den Fehler nicht reproduzieren; der Nutzer schickt Logs.",
    "No puedo reproducir el error; el usuario enviar\u00e1 registros.",
    "\u6211\u65e0\u6cd5\u590d\u73b0\u8fd9\u4e2a\u9519\u8bef\uff1b\u7528\u6237\u5c06"
    "\u53d1\u9001\u65e5\u5fd7\u3002",
    "## User requests and intent\n- " + "Port the billing job to Go. " * 40,
]


def history(n: int = 12) -> list[Message]:
    """Alternating turns, long enough that any short summary shrinks it."""
    return [
        Message.user(f"question {i}: " + "please look at the logs " * 12)
        if i % 2 == 0
        else Message.assistant(f"answer {i}: " + "the logs show a timeout " * 12)
        for i in range(n)
    ]


def test_the_lists_cover_enough_phrasings_and_languages() -> None:
    assert len(REFUSALS) >= 40
    assert len({language for language, _ in REFUSALS}) >= 8
    assert {"en", "es", "fr", "de", "pt", "it", "ja", "zh"} <= {lang for lang, _ in REFUSALS}
    assert len(LEGIT) >= 20


@pytest.mark.parametrize(
    ("language", "reply"), REFUSALS, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(REFUSALS)]
)
async def test_a_refusal_is_rejected(language: str, reply: str) -> None:
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), StubTransport([make_text_response(reply)]), keep_recent=2)
    assert info.value.reason == "refusal", language


@pytest.mark.parametrize("summary", LEGIT, ids=[f"legit-{i}" for i in range(len(LEGIT))])
async def test_a_summary_that_only_resembles_a_refusal_is_committed(summary: str) -> None:
    result = await compact_context(
        history(), StubTransport([make_text_response(summary)]), keep_recent=2
    )
    assert result is not None
    assert summary.strip() in result[0].text


@pytest.mark.parametrize(
    "reply",
    [
        "I can\u2019t help with that.",
        "**I'm sorry**, but I can't continue with this request.",
        "Lo siento, pero no puedo ayudarte con eso.",
        "\u62b1\u6b49\uff0c\u6211\u65e0\u6cd5\u5e2e\u52a9\u4f60\u3002",
    ],
)
async def test_auto_compact_store_keeps_the_history_after_a_refusal(reply: str) -> None:
    inner = MemoryContextStore(history(20))
    before = await inner.get_history()
    events: list[CompactionEvent] = []
    store = AutoCompactStore(
        inner,
        StubTransport(model=WINDOW),
        keep_recent=2,
        summary_transport=StubTransport([make_text_response(reply)], model=WINDOW),
        on_event=events.append,
    )
    await store.add_context_tokens(7_000, 10)
    assert await inner.get_history() == before
    assert store.compactions == 0
    [after] = [e for e in events if e.phase == "after"]
    assert after.outcome == "rejected"
    assert after.error is not None
    assert "refused" in after.error


def test_normalization_folds_typography_markup_and_accents() -> None:
    from contextfold.compaction._refusal import normalize, opening

    assert normalize("**I\u2019M S\u00d6RRY**") == "i'm sorry"
    assert normalize("\u00abD\u00e9sol\u00e9e\u00bb") == '"desolee"'
    assert normalize("\uff21\uff29\u200b") == "ai"
    # Kana keep their voicing marks (folding accents must not break Japanese).
    assert normalize("\u304c") == "\u304c"
    # The opening is the first sentence; a short interjection pulls in the next one.
    assert opening("Sure! I cannot help. More text follows here.") == "sure! i cannot help."
    assert opening("A long first sentence about the build. I can't help.") == (
        "a long first sentence about the build."
    )
    assert len(opening("word " * 500)) <= 200


# --- attacks: what the phrase lists did not choose ---------------------------------------

_settings = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_INVISIBLE = st.sampled_from(["", "\ufeff", "\u200b", " ", "\n", "  \t"])
_EMPHASIS = st.sampled_from(["", "**", "*", "_", "__", "~~", "`"])
FACTUAL_OPENINGS = [
    "The user asked for a migration plan for the billing database.",
    "## User requests and intent\nPort the importer to Go.",
    "Work so far: the failing test in tests/test_io.py was fixed.",
    "El usuario pidi\u00f3 un plan de migraci\u00f3n para la base de datos.",
    "Der Nutzer bat um einen Migrationsplan f\u00fcr die Datenbank.",
]


@_settings
@given(
    pick=st.sampled_from(REFUSALS),
    lead=_INVISIBLE,
    mark=_EMPHASIS,
    upper=st.booleans(),
    curly=st.booleans(),
    tail=st.text(max_size=300),
)
def test_a_refusal_stays_a_refusal_whatever_its_typography_and_whatever_follows(
    pick: tuple[str, str], lead: str, mark: str, upper: bool, curly: bool, tail: str
) -> None:
    from contextfold.compaction._refusal import looks_like_refusal

    _, text = pick
    text = text.replace("'", "\u2019") if curly else text
    text = text.upper() if upper else text
    assert looks_like_refusal(f"{lead}{mark}{text}{mark}\n\n{tail}")


@_settings
@given(pick=st.sampled_from(REFUSALS), first=st.sampled_from(FACTUAL_OPENINGS))
def test_a_refusal_after_a_factual_first_sentence_is_quoted_content(
    pick: tuple[str, str], first: str
) -> None:
    from contextfold.compaction._refusal import looks_like_refusal

    assert not looks_like_refusal(f"{first} {pick[1]}")


@_settings
@given(body=st.text(max_size=2_000))
def test_the_default_summary_format_is_never_taken_for_a_refusal(body: str) -> None:
    from contextfold.compaction._refusal import looks_like_refusal

    assert not looks_like_refusal(f"## User requests and intent\n{body}")

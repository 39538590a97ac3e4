"""Plug in your own summarization prompt: a file with {variables}.

``examples/prompts/support_handoff.md`` uses ``{product}`` and ``{policy}`` (filled
from ``prompt_vars``) and ``{max_summary_tokens}`` (filled by contextfold). A
placeholder without a value is a ``PromptError`` before any model is called.
Runs offline: the summarizer is a FunctionTransport that shows what it was sent.

    python examples/custom_prompt.py
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from contextfold import Message, PromptError, compact_context, load_prompt
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response

PROMPT = Path(__file__).parent / "prompts" / "support_handoff.md"


def conversation() -> list[Message]:
    turns = [
        (
            "Hi, I'm Dana (account AC-7781). Sync stopped on my Pro plan yesterday: the laptop "
            "and the phone both show old versions of my project folders since about 6 pm.",
            "Sorry about that, Dana. Sync issues after an app update are usually fixed by a "
            "fresh session. Could you sign out of the desktop app, sign back in, and tell me "
            "what the status bar says once it has finished loading?",
        ),
        (
            "Did that, still stuck at 'Waiting for server'. The phone says the same thing, and "
            "nothing new has uploaded from either device since yesterday evening.",
            "Thanks for checking both devices. I have reset the sync token on your account, "
            "which forces every device to reconnect from scratch. Please try again in five "
            "minutes and keep the app open while it re-indexes your folders.",
        ),
        (
            "Still stuck. Order ORD-5521 was my upgrade to Pro last week, is that related? The "
            "problem started a few days after I paid.",
            "Possibly: a plan change moves the account to another storage cluster. I escalated "
            "your case to engineering with the order number and promised you an update by "
            "Friday at the latest.",
        ),
        ("OK. Also the desktop app shows version 4.2.1.", "Noted, that is the latest."),
    ]
    out: list[Message] = []
    for user, agent in turns:
        out += [Message.user(user), Message.assistant(agent)]
    return out


def summarizer(request: StubRequest) -> StubResponse:
    print("--- the summarizer's system prompt (first lines) ---")
    print("\n".join((request.system or "").splitlines()[:2]))
    print("...", (request.system or "").splitlines()[-1])
    return make_text_response(
        "## Customer and account\n- Dana, Pro plan, account AC-7781, order ORD-5521\n"
        "## Problem\n- Sync stuck at 'Waiting for server' since yesterday\n"
        "## What was tried\n- Sign out/in; sync token reset: no change\n"
        "## Promises made\n- Engineering update by Friday\n"
        "## Next step\n- Chase the engineering escalation"
    )


async def main() -> None:
    prompt = load_prompt(PROMPT)
    print(f"prompt {PROMPT.name} uses variables: {', '.join(sorted(prompt.variables))}")
    compacted = await compact_context(
        conversation(),
        FunctionTransport(summarizer),
        keep_recent=2,
        system_prompt=prompt,
        prompt_vars={"product": "CloudSync", "policy": "refunds need a manager"},
        max_summary_tokens=500,
    )
    assert compacted is not None
    print(f"--- compacted history: {len(conversation())} -> {len(compacted)} messages ---")
    for message in compacted:
        text = message.text
        if "<summary>" in text:  # show the summary itself rather than its preamble
            text = text.split("<summary>")[1].split("</summary>")[0].strip().replace("\n", " | ")
        print(f"[{message.role}] {text[:110]}")
    try:
        await compact_context(conversation(), FunctionTransport(summarizer), system_prompt=prompt)
    except PromptError as exc:
        print("without prompt_vars:", exc)


if __name__ == "__main__":
    asyncio.run(main())

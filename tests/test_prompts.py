"""Prompt files, templates and variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextfold import AutoCompactStore, MemoryContextStore, Message
from contextfold.compaction import compact_context
from contextfold.errors import PromptError
from contextfold.prompts import BUILTIN_PROMPTS, Prompt, builtin_prompt, load_prompt
from contextfold.testing import FunctionTransport, StubTransport, make_text_response


@pytest.mark.parametrize("name", BUILTIN_PROMPTS)
def test_every_builtin_prompt_loads_from_the_installed_package(name: str) -> None:
    prompt = builtin_prompt(name)
    assert prompt.template.strip()
    assert prompt.variables <= {"max_summary_tokens", "summary", "archive_note"}


def test_default_summary_prompt_has_the_structured_sections() -> None:
    text = builtin_prompt("summary").render(max_summary_tokens=2_000)
    for heading in (
        "## User requests and intent",
        "## Decisions and constraints",
        "## Files and artifacts",
        "## Errors and dead ends",
        "## Current state",
        "## Pending work and next step",
        "## Exact identifiers",
    ):
        assert heading in text
    assert "2000 tokens" in text
    message = builtin_prompt("summary_message").render(summary="S", archive_note="")
    assert "continue" in message.lower()


def test_unknown_builtin_prompt_names_the_choices() -> None:
    with pytest.raises(PromptError, match="summary"):
        builtin_prompt("nope")


def test_load_prompt_from_text_path_and_str_path(tmp_path: Path) -> None:
    file = tmp_path / "mine.md"
    file.write_text("Summarize for {team}. Max {max_summary_tokens}.")
    assert load_prompt(file).source == str(file)
    assert load_prompt(str(file)).template.startswith("Summarize for {team}")
    assert load_prompt("Just text {x}").variables == {"x"}
    ready = Prompt("ready")
    assert load_prompt(ready) is ready


def test_missing_file_and_empty_text_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="does not exist"):
        load_prompt(tmp_path / "missing.md")
    with pytest.raises(PromptError, match="empty"):
        load_prompt("   ")


def test_rendering_names_missing_variables() -> None:
    with pytest.raises(PromptError, match="needs a value for team"):
        Prompt("for {team}").render(max_summary_tokens=1)
    assert Prompt("literal {{braces}} and {x}").render(x=1, unused=2) == "literal {braces} and 1"


def test_placeholders_must_be_plain_names() -> None:
    with pytest.raises(PromptError, match="plain names"):
        Prompt('json: {"a": 1}')


async def test_custom_prompt_with_variables_reaches_the_summarizer(tmp_path: Path) -> None:
    file = tmp_path / "billing.md"
    file.write_text("You summarize work on {project}. Stay under {max_summary_tokens} tokens.")
    transport = FunctionTransport(lambda r: make_text_response("## Current state\nok"))
    history = [Message.user("a " * 100), Message.assistant("b " * 100)] * 5
    result = await compact_context(
        history,
        transport,
        keep_recent=2,
        system_prompt=file,
        prompt_vars={"project": "billing-service"},
        max_summary_tokens=900,
    )
    assert result is not None
    assert transport.requests[0].system == (
        "You summarize work on billing-service. Stay under 900 tokens."
    )


def test_a_prompt_typo_fails_when_the_store_is_built() -> None:
    with pytest.raises(PromptError, match="projcet"):
        AutoCompactStore(MemoryContextStore(), StubTransport(), system_prompt="About {projcet}.")


def test_the_built_wheel_ships_every_prompt_file(tmp_path: Path) -> None:
    """An editable install reads prompts from the checkout; a real wheel must carry them."""
    import zipfile

    wheel_builder = pytest.importorskip("hatchling.builders.wheel")
    root = Path(__file__).resolve().parent.parent
    [wheel] = list(
        wheel_builder.WheelBuilder(str(root)).build(directory=str(tmp_path), versions=["standard"])
    )
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in BUILTIN_PROMPTS:
        assert f"contextfold/prompts/{name}.md" in names
    assert "contextfold/py.typed" in names

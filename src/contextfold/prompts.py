"""Summarization prompts: plain text files with ``{variables}``.

The built-in prompts live in the ``prompts/`` folder of the project and ship inside
the wheel (``contextfold/prompts``); :func:`builtin_prompt` loads one by name. A user
plugs in their own prompt with :func:`load_prompt`, as text or as a file path.

Templates use ``{name}`` placeholders; a literal brace is written ``{{`` or ``}}``.
Rendering with a variable the template does not know is fine (it is ignored), but a
placeholder with no value raises :class:`~contextfold.errors.PromptError` that names
it, so a typo never reaches a model.
"""

from __future__ import annotations

import os
import string
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from contextfold.errors import PromptError

__all__ = ["BUILTIN_PROMPTS", "Prompt", "builtin_prompt", "load_prompt"]

BUILTIN_PROMPTS: Final = (
    "acknowledgement",
    "chunk",
    "continuation",
    "summary",
    "summary_message",
    "update",
)

_MAX_PATH_CHARS = 1024


@dataclass(frozen=True, slots=True)
class Prompt:
    """A prompt template and where it came from."""

    template: str
    source: str = "<string>"

    def __post_init__(self) -> None:
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(self.template) if f is not None]
        except ValueError as exc:
            raise PromptError(f"prompt {self.source} is not a valid template: {exc}") from exc
        for name in fields:
            if not name.isidentifier():
                raise PromptError(
                    f"prompt {self.source} has placeholder {{{name}}}; placeholders must be "
                    "plain names, and literal braces are written {{ and }}"
                )

    @property
    def variables(self) -> frozenset[str]:
        """The placeholder names the template uses."""
        return frozenset(
            f for _, f, _, _ in string.Formatter().parse(self.template) if f is not None
        )

    def render(self, **variables: Any) -> str:
        """Fill the placeholders; raise :class:`PromptError` naming any without a value."""
        missing = sorted(self.variables - variables.keys())
        if missing:
            raise PromptError(
                f"prompt {self.source} needs a value for {', '.join(missing)} "
                f"(available: {', '.join(sorted(variables)) or 'none'})"
            )
        return self.template.format(**variables).strip()


@cache
def builtin_prompt(name: str) -> Prompt:
    """One of the prompts shipped with contextfold (see :data:`BUILTIN_PROMPTS`)."""
    if name not in BUILTIN_PROMPTS:
        raise PromptError(
            f"no built-in prompt {name!r}; choose one of {', '.join(BUILTIN_PROMPTS)}"
        )
    filename = f"{name}.md"
    packaged = resources.files("contextfold").joinpath("prompts", filename)
    if packaged.is_file():
        return Prompt(packaged.read_text(encoding="utf-8"), f"contextfold/prompts/{filename}")
    # An editable install or a source checkout: the files sit at the project root.
    source = Path(__file__).resolve().parents[2] / "prompts" / filename
    if source.is_file():
        return Prompt(source.read_text(encoding="utf-8"), str(source))
    raise PromptError(f"built-in prompt file {filename} is missing from this installation")


def load_prompt(prompt: str | os.PathLike[str] | Prompt) -> Prompt:
    """A :class:`Prompt` from text, a file path or a ready prompt.

    A :class:`pathlib.Path` (or any path-like object) is read as a file. A ``str``
    is read as a file when it names an existing file and otherwise used as the
    template text itself, except that a one-line string that looks like a path (it
    starts with ``/``, ``./``, ``../`` or ``~``, or ends with a prompt file suffix such
    as ``.md`` or ``.txt``) but names no file raises :class:`PromptError`: a typo in a
    path never becomes the prompt.
    """
    if isinstance(prompt, Prompt):
        return prompt
    if isinstance(prompt, os.PathLike):
        path = Path(prompt)
        if not path.is_file():
            raise PromptError(f"prompt file {path} does not exist")
        return Prompt(path.read_text(encoding="utf-8"), str(path))
    if not isinstance(prompt, str):
        raise PromptError(f"a prompt must be a string or a path, got {type(prompt).__name__}")
    if len(prompt) < _MAX_PATH_CHARS and "\n" not in prompt:
        if _is_file(prompt):
            return Prompt(Path(prompt).expanduser().read_text(encoding="utf-8"), prompt)
        if _looks_like_path(prompt):
            raise PromptError(
                f"prompt file {prompt} does not exist (pass the prompt text itself, or the "
                "path of an existing file)"
            )
    if not prompt.strip():
        raise PromptError("a prompt cannot be empty")
    return Prompt(prompt)


_PATH_PREFIXES = ("/", "./", "../", "~", ".\\", "..\\")
_PROMPT_SUFFIXES = (".md", ".markdown", ".txt", ".prompt", ".j2", ".jinja", ".tmpl", ".tpl")


def _looks_like_path(candidate: str) -> bool:
    text = candidate.strip()
    return text.startswith(_PATH_PREFIXES) or text.lower().endswith(_PROMPT_SUFFIXES)


def _is_file(candidate: str) -> bool:
    try:
        return Path(candidate).expanduser().is_file()
    except (OSError, ValueError):  # e.g. a NUL byte or a name too long for the OS
        return False

"""README examples that show their output must still print exactly that output."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._stores import drop_prefix, redis_client_or_skip
from tests.conftest import require_service

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
# A runnable example is a ```python block that calls asyncio.run, followed by a ```text block.
EXAMPLES = [
    (code, output)
    for code, output in re.findall(
        r"```python\n((?:(?!```).)*)```\s*```text\n((?:(?!```).)*)```", README, re.S
    )
    if "asyncio.run(" in code
]


def test_the_readme_has_examples_with_output() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize(("code", "output"), EXAMPLES, ids=lambda v: str(v)[:40])
async def test_readme_example_prints_what_the_readme_says(
    code: str, output: str, tmp_path: Path
) -> None:
    prefixes = re.findall(r'prefix="([^"]+)"', code) if "contextfold.redis" in code else []
    client = await redis_client_or_skip(require_service) if prefixes else None
    try:
        result = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-c", code],
            cwd=tmp_path,  # examples that write files (a SQLite database) write them here
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        if client is not None:  # the Redis example's sessions are removed afterwards
            for prefix in set(prefixes):
                await drop_prefix(client, prefix)
            await client.aclose()
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == output.strip()


DOCS = [ROOT / "README.md", *sorted((ROOT / "examples").glob("*.md"))]


def _snippets(doc: Path) -> list[tuple[str, str]]:
    """``(FILE:LINE, code)`` of every ```python block of ``doc``."""
    text = doc.read_text(encoding="utf-8")
    return [
        (f"{doc.name}:{text[: m.start()].count(chr(10)) + 1}", m.group(1))
        for m in re.finditer(r"```python\n(.*?)```", text, re.S)
    ]


SNIPPETS = [snippet for doc in DOCS for snippet in _snippets(doc)]


def test_the_docs_have_python_snippets() -> None:
    assert len(SNIPPETS) >= 10


@pytest.mark.parametrize(("where", "code"), SNIPPETS, ids=[w for w, _ in SNIPPETS])
def test_every_python_snippet_is_valid_as_a_script(where: str, code: str) -> None:
    # Pasted into a file and run, a snippet must at least parse: no top-level ``await``
    # (a SyntaxError outside a notebook or asyncio REPL), no ``>>>`` prompts.
    compile(code, where, "exec", dont_inherit=True)

"""Examples in the README and the manual print exactly the output they show.

The README is the front page; the manual is ``docs/*.md`` (built by ``make docs``). Every
```python block there, and in ``examples/*.md``, must at least compile as a script.
"""

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
MANUAL = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCS = [*MANUAL, *sorted((ROOT / "examples").glob("*.md"))]


def _where(doc: Path, text: str, offset: int) -> str:
    return f"{doc.relative_to(ROOT)}:{text[:offset].count(chr(10)) + 1}"


def _examples(doc: Path) -> list[tuple[str, str, str]]:
    """``(FILE:LINE, code, output)`` of each runnable example of ``doc``: a ```python block
    that calls ``asyncio.run``, followed by the ```text block of what it prints."""
    text = doc.read_text(encoding="utf-8")
    pattern = r"```python\n((?:(?!```).)*)```\s*```text\n((?:(?!```).)*)```"
    return [
        (_where(doc, text, m.start()), m.group(1), m.group(2))
        for m in re.finditer(pattern, text, re.S)
        if "asyncio.run(" in m.group(1)
    ]


EXAMPLES = [example for doc in MANUAL for example in _examples(doc)]


def test_the_readme_and_the_manual_have_examples_with_output() -> None:
    assert [where for where, _, _ in EXAMPLES if where.startswith("README.md:")]  # first screen
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize(("where", "code", "output"), EXAMPLES, ids=[w for w, _, _ in EXAMPLES])
async def test_example_prints_what_the_page_says(
    where: str, code: str, output: str, tmp_path: Path
) -> None:
    prefixes = re.findall(r'prefix="([^"]+)"', code) if "RedisContextStore" in code else []
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
    assert result.returncode == 0, f"{where}: {result.stderr}"
    assert result.stdout.strip() == output.strip(), where


def _snippets(doc: Path) -> list[tuple[str, str]]:
    """``(FILE:LINE, code)`` of every ```python block of ``doc``."""
    text = doc.read_text(encoding="utf-8")
    return [
        (_where(doc, text, m.start()), m.group(1))
        for m in re.finditer(r"```python\n(.*?)```", text, re.S)
    ]


SNIPPETS = [snippet for doc in DOCS for snippet in _snippets(doc)]


def test_the_docs_have_python_snippets() -> None:
    assert len(SNIPPETS) >= 17


@pytest.mark.parametrize(("where", "code"), SNIPPETS, ids=[w for w, _ in SNIPPETS])
def test_every_python_snippet_is_valid_as_a_script(where: str, code: str) -> None:
    # Pasted into a file and run, a snippet must at least parse: no top-level ``await``
    # (a SyntaxError outside a notebook or asyncio REPL), no ``>>>`` prompts.
    compile(code, where, "exec", dont_inherit=True)

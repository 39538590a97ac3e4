"""The README and the manual in ``docs/`` hold together: links resolve, pages are in the nav.

A link works in two places: on GitHub, where the README and ``docs/*.md`` are read as
files, and on the site ``make docs`` builds (``mkdocs build --strict`` checks the links
between pages there, but not the README's). So every relative link must name a file of
the repository, and an anchor must be a heading of that file under both GitHub's and
Python-Markdown's way of turning a heading into an id. A link to this repository on
GitHub (the way pages point at files outside ``docs/``) must name a file that exists.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from contextfold.compaction import CompactionSettings

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCS = [ROOT / "README.md", *PAGES, *sorted((ROOT / "examples").glob("*.md"))]
REPO_URL = re.compile(r"https://github\.com/contextfold/contextfold/(?:blob|tree)/main/([^#?]*)")

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(path: Path) -> str:
    """The file without its code: fenced blocks are blanked, so links in code are not links."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def github_slug(heading: str) -> str:
    text = heading.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def markdown_slug(heading: str) -> str:
    # Python-Markdown's toc.slugify, the one MkDocs uses unless told otherwise.
    text = unicodedata.normalize("NFKD", heading.replace("`", ""))
    text = re.sub(r"[^\w\s-]", "", text.encode("ascii", "ignore").decode("ascii")).strip()
    return re.sub(r"[-\s]+", "-", text.lower())


def _anchors(path: Path, slug: Callable[[str], str]) -> set[str]:
    return {slug(heading) for heading in HEADING.findall(_prose(path))}


def _links() -> list[tuple[str, Path, str]]:
    found = []
    for doc in DOCS:
        prose = _prose(doc)
        for match in LINK.finditer(CODE_SPAN.sub("", prose)):
            found.append((f"{doc.relative_to(ROOT)} -> {match.group(1)}", doc, match.group(1)))
    return found


LINKS = _links()


def test_the_readme_links_into_the_manual() -> None:
    readme_targets = {target for _, doc, target in LINKS if doc.name == "README.md"}
    for page in PAGES:
        assert f"docs/{page.name}" in {t.partition("#")[0] for t in readme_targets}, page.name


@pytest.mark.parametrize(("where", "doc", "target"), LINKS, ids=[w for w, _, _ in LINKS])
def test_every_link_resolves(where: str, doc: Path, target: str) -> None:
    if target.startswith(("http://", "https://", "mailto:")):
        repo_file = REPO_URL.match(target)
        if repo_file:
            assert (ROOT / repo_file.group(1)).exists(), f"{where}: no such file in the repo"
        return
    path, _, anchor = target.partition("#")
    file = (doc.parent / path).resolve() if path else doc
    assert file.is_relative_to(ROOT), f"{where}: outside the repository"
    assert file.exists(), f"{where}: no such file"
    if anchor:
        assert file.suffix == ".md", f"{where}: an anchor into a file that is not Markdown"
        assert anchor in _anchors(file, github_slug), f"{where}: no such heading on GitHub"
        assert anchor in _anchors(file, markdown_slug), f"{where}: no such heading in MkDocs"


def test_every_page_of_the_manual_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    in_nav = set(re.findall(r"^\s*-\s.*?:\s*(\S+\.md)\s*$", config, re.M))
    assert in_nav == {page.name for page in PAGES}


def test_the_slugs_agree_with_github_and_mkdocs() -> None:
    heading = "Fleets: replicas sharing one PostgreSQL database"
    assert github_slug(heading) == markdown_slug(heading)
    assert github_slug("Persistent: `store=`") == "persistent-store"
    assert github_slug("A & B") == "a--b" != markdown_slug("A & B") == "a-b"


def test_every_compaction_setting_is_in_the_settings_table_with_its_default() -> None:
    page = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    table = page.split("## Settings", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", table, re.M))
    fields = {field.name: field for field in dataclasses.fields(CompactionSettings)}
    assert set(rows) == set(fields)
    defaults = CompactionSettings()
    for name, shown in rows.items():
        default = getattr(defaults, name)
        if shown.startswith("`"):  # a literal: it must be the default in force
            assert ast.literal_eval(shown.strip("`")) == default, name
        elif shown == "none":
            assert default in (None, ()), name

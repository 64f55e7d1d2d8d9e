"""The documentation holds together: every relative link lands on a file and heading that exist.

The README is the front door and the manual lives in ``docs/``; pages move
and headings are renamed, and a link that no longer lands is what a
newcomer meets first.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]+\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
README_MAX_LINES = 250


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the headings of ``page``."""
    found = set()
    for line in FENCE.sub("", page.read_text("utf-8")).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            title = re.sub(r"[^\w\- ]", "", title)
            found.add(title.replace(" ", "-"))
    return found


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text("utf-8"))
    return [target for target in LINK.findall(text) if "://" not in target]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_lands(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            broken.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: no such heading")
    assert broken == []


def test_the_readme_is_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in readme, f"README does not link docs/{page.name}"


def test_the_readme_gives_the_test_command_ci_runs() -> None:
    command = 'python -m pip install -e ".[dev]" && python -m pytest'
    assert command in (ROOT / "README.md").read_text("utf-8")
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert 'python -m pip install --quiet -e ".[dev]"' in ci
    assert "python -m pytest\n" in ci

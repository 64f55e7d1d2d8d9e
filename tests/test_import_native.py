"""``import claude-code|codex|gemini``: what each agent remembered in its own files, imported as a
user runs it: into the right layer, once, with a dry run, a malformed file skipped with one line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pi_memory.entry import PROJECT, USER, Entry
from tests.clihelp import Run, run_cli

DATA = Path(__file__).parent / "data" / "native"


@pytest.fixture
def project(hermetic_home: Path, tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def memories(project: Path, layer: str) -> list[Entry]:
    from pi_memory.open_store import open_store

    return [e for e in open_store(project, warn=False).store.read(layer) if e.live]


def bodies(project: Path, layer: str) -> set[str]:
    return {e.body for e in memories(project, layer)}


def layer_bytes(project: Path) -> dict[str, bytes]:
    from pi_memory.open_store import open_store

    store = open_store(project, warn=False).store
    found = {}
    for layer in (USER, PROJECT):
        for path in sorted(store.directory(layer).rglob("*")):
            if path.is_file():
                found[str(path)] = path.read_bytes()
    return found


def auto_memory(home: Path, project: Path, skip_broken: bool = True) -> Path:
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project)) / "memory"
    shutil.copytree(DATA / "claude_memory", folder)
    if skip_broken:
        (folder / "broken.md").unlink()
    return folder


def imp(project: Path, *args: str) -> Run:
    return run_cli("import", *args, cwd=project)


def test_claude_code_auto_memory_goes_to_each_notes_layer(
    hermetic_home: Path, project: Path
) -> None:
    auto_memory(hermetic_home, project)
    run = imp(project, "claude-code")
    assert (run.code, run.err) == (0, ""), run.err
    assert (
        run.out.splitlines()[-1] == "imported 4 new memories from Claude Code (1 user, 3 project)"
    )
    assert bodies(project, USER) == {
        "The user wants review comments as a numbered list, shortest first."
    }
    assert bodies(project, PROJECT) == {
        "Releases go out with `make release`; tag first, then push the tag.\n"
        "**Why:** the CI job builds from the tag.",
        "Run the tests with `pytest -n 0 -q`; xdist hides the failing test's output.",
        "The staging database is reset every Monday at 06:00 UTC.",
    }
    deploy = next(e for e in memories(project, PROJECT) if e.body.startswith("Releases"))
    assert (deploy.keyword, deploy.src) == ("Deploy procedure", "import")


def test_a_second_import_imports_nothing_and_changes_nothing(
    hermetic_home: Path, project: Path
) -> None:
    auto_memory(hermetic_home, project)
    assert imp(project, "claude-code").code == 0
    before = layer_bytes(project)
    again = imp(project, "claude-code")
    assert again.code == 0
    assert again.out == (
        "imported 0 new memories from Claude Code\n"
        "  4 already there (the same or a near-duplicate memory): skipped\n"
    )
    assert layer_bytes(project) == before


def test_a_memory_already_written_in_other_words_is_not_imported_again(
    hermetic_home: Path, project: Path
) -> None:
    written = run_cli(
        "write", "--keyword", "staging", "The staging database is reset every Monday at 06:00 UTC",
        cwd=project,
    )  # fmt: skip
    assert written.code == 0, written.err
    auto_memory(hermetic_home, project)
    run = imp(project, "claude-code")
    assert "imported 3 new memories" in run.out and "1 already there" in run.out
    assert len(memories(project, PROJECT)) == 3


def test_dry_run_lists_and_stores_nothing(hermetic_home: Path, project: Path) -> None:
    auto_memory(hermetic_home, project)
    run = imp(project, "claude-code", "--dry-run")
    assert run.code == 0
    assert run.out.splitlines()[-1] == (
        "would import 4 new memories from Claude Code (1 user, 3 project)"
    )
    assert "  + user #reviewer preferences: The user wants review comments" in run.out
    assert layer_bytes(project) == {}


def test_a_malformed_file_is_skipped_with_one_line_and_the_rest_imported(
    hermetic_home: Path, project: Path
) -> None:
    folder = auto_memory(hermetic_home, project, skip_broken=False)
    (folder / "binary.md").write_bytes(b"\xff\xfe\x00garbage")
    run = imp(project, "claude-code")
    assert run.code == 1
    assert run.err.splitlines() == [
        f"pi_memory: skipped {folder / 'binary.md'}: not UTF-8 text (byte 0)",
        f"pi_memory: skipped {folder / 'broken.md'}: its frontmatter is never closed with ---",
    ]
    assert "imported 4 new memories" in run.out
    assert (folder / "broken.md").read_bytes().startswith(b"---\nname: broken")  # left alone


def test_codex_memories_go_to_the_project_only_when_they_were_learned_there(
    hermetic_home: Path, project: Path
) -> None:
    folder = hermetic_home / ".codex" / "memories"
    shutil.copytree(DATA / "codex_memories", folder)
    handbook = folder / "MEMORY.md"
    handbook.write_text(handbook.read_text("utf-8").replace("@PROJECT@", str(project)), "utf-8")
    run = imp(project, "codex")
    assert run.code == 0, run.err
    assert bodies(project, PROJECT) == {
        "The build needs `cmake -G Ninja`; the Makefile generator misses the codegen step.",
        "After editing proto files, run `make proto` before building.",
    }
    assert bodies(project, USER) == {
        "The user works in zsh with vi key bindings.",
        "Answer with the command first, the explanation after.",
    }
    build = next(e for e in memories(project, PROJECT) if "Ninja" in e.body)
    assert build.keyword == "build"


def test_codex_home_moves_the_memories_folder(
    hermetic_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "codex-home"
    shutil.copytree(DATA / "codex_memories", elsewhere / "memories")
    monkeypatch.setenv("CODEX_HOME", str(elsewhere))
    run = imp(project, "codex")
    assert "imported 4 new memories from Codex CLI" in run.out


def test_gemini_added_memories_of_the_user_and_the_project(
    hermetic_home: Path, project: Path
) -> None:
    (hermetic_home / ".gemini").mkdir()
    shutil.copy(DATA / "gemini" / "user_GEMINI.md", hermetic_home / ".gemini" / "GEMINI.md")
    shutil.copy(DATA / "gemini" / "project_GEMINI.md", project / "GEMINI.md")
    run = imp(project, "gemini")
    assert run.code == 0, run.err
    assert bodies(project, USER) == {
        "My preferred editor is Helix.",
        "I review pull requests in the morning.",
    }
    assert bodies(project, PROJECT) == {"This project's API server listens on port 8443."}


def test_nothing_to_import_says_where_it_looked(hermetic_home: Path, project: Path) -> None:
    run = imp(project, "gemini")
    assert run.code == 0
    assert run.out == (
        "imported 0 new memories from Gemini CLI\n"
        f"  (no Gemini CLI memory files found under {hermetic_home / '.gemini'})\n"
    )


def test_a_layer_copy_still_needs_from_and_to(project: Path) -> None:
    run = imp(project, "user")
    assert run.code == 1
    assert run.err.count("\n") == 1 and "needs --from and --to" in run.err
    mixed = imp(project, "--from", "categories", "--to", "files", "codex")
    assert mixed.code == 1 and "needs neither" in mixed.err


def test_an_agent_without_a_memory_of_its_own_is_not_offered(project: Path) -> None:
    from pi_memory.hosts.registry import every

    without = [h.name for h in every() if h.native_memory is None]
    assert without  # pi keeps no memory of its own
    run = imp(project, without[0])
    assert run.code == 1
    assert run.err.count("\n") == 1 and "neither a layer (user, project) nor an agent" in run.err


def test_a_section_pi_memory_wrote_after_the_added_memories_is_not_imported(
    hermetic_home: Path, project: Path
) -> None:
    text = (DATA / "gemini" / "project_GEMINI.md").read_text("utf-8").split("\n## Other")[0]
    written = run_cli(
        "write", "--json", "--keyword", "deploy", "Deploy on Fridays only after noon.", cwd=project
    )
    memory_id = json.loads(written.out)["id"]
    (project / "GEMINI.md").write_text(text, "utf-8")
    assert run_cli("promote", "--file", "GEMINI.md", memory_id, cwd=project).code == 0
    promoted = (project / "GEMINI.md").read_text("utf-8")
    assert "<!-- pi_memory:promoted BEGIN" in promoted
    run = imp(project, "gemini", "--dry-run")
    assert run.out.splitlines() == [
        "  + project #project's api: This project's API server listens on port 8443.",
        "would import 1 new memory from Gemini CLI (1 project)",
    ]

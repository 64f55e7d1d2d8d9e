"""The command line as a person types it: ``main`` in this process, real files.

Only what a process alone shows runs one: its exit status and a closed pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clihelp import REPO, run_cli, run_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def write(project: Path, *args: str) -> dict[str, object]:
    run = run_cli("write", "--json", *args, cwd=project)
    assert run.code == 0, run.err
    assert run.err == ""
    data = json.loads(run.out)
    assert isinstance(data, dict)
    return data


def test_write_keeps_the_first_of_a_hash_blob_and_counts_the_rest(project: Path) -> None:
    run = run_cli("write", "--keyword", "#a #b #c", "Deploy with rsync.", cwd=project)
    assert run.code == 0, run.err
    assert run.out.rstrip().endswith(
        "keyword: a · 2 extra keywords ignored (one keyword per memory)"
    )
    stored = (project / ".pi" / "agent" / "memory-auto" / "CONVENTIONS.md").read_text("utf-8")
    assert "| tags: a -->" in stored
    assert "#a #b #c" not in (project / ".pi" / "agent" / "memory-auto" / "MEMORY.md").read_text(
        "utf-8"
    )


def test_help_lists_every_command(project: Path) -> None:
    run = run_cli("--help", cwd=project)
    assert run.code == 0
    for name in (
        "write",
        "search",
        "show",
        "rebuild",
        "compact",
        "import",
        "unlock",
        "tool",
        "hook",
    ):
        assert f"    {name} " in run.out


def test_write_then_search_finds_it(project: Path) -> None:
    first = write(project, "--keyword", "deploy", "Deploy with rsync --delete.")
    assert first["layer"] == "project" and first["file"] == "CONVENTIONS.md"
    assert first["deduped"] is False and first["superseded"] == []
    run = run_cli("search", "--json", "rsync", cwd=project)
    data = json.loads(run.out)
    assert data["total"] == 1 and data["fallback"] is False
    hit = data["results"][0]
    assert hit["id"] == first["id"] and hit["keyword"] == "deploy"
    assert hit["body"] == "Deploy with rsync --delete."
    assert set(hit) == {
        "id",
        "layer",
        "file",
        "keyword",
        "body",
        "time",
        "last",
        "seen",
        "src",
        "project",
        "stale",
        "suspect",
        "supersedes",
        "superseded_by",
        "from_repository",
    }
    text = (project / ".pi/agent/memory-auto/CONVENTIONS.md").read_text("utf-8")
    assert text.endswith(" | tags: deploy -->\nDeploy with rsync --delete.\n")


def test_same_body_again_bumps_seen_instead_of_appending(project: Path) -> None:
    first = write(project, "--keyword", "pnpm", "Use pnpm, never npm.")
    again = write(project, "--keyword", "other", "--file", "DECISIONS.md", "use PNPM,  never npm")
    assert again["deduped"] is True and again["id"] == first["id"]
    rows = (project / ".pi/agent/memory-auto/CONVENTIONS.md").read_text("utf-8")
    assert rows.count("<!-- mid:") == 1 and "| seen: 2 | last: " in rows
    assert not (project / ".pi/agent/memory-auto/DECISIONS.md").exists()


def test_supersedes_retires_the_old_row_and_reasserting_revives(project: Path) -> None:
    old = write(project, "--keyword", "dev-server", "The dev server listens on port 3000.")
    new = write(
        project,
        "--keyword",
        "dev-server",
        "--supersedes",
        str(old["id"]),
        "The dev server listens on port 8080.",
    )
    assert new["superseded"] == [old["id"]]
    data = json.loads(run_cli("search", "--json", "dev", "server", cwd=project).out)
    assert [r["id"] for r in data["results"]] == [new["id"], old["id"]]
    assert data["results"][1]["superseded_by"] == new["id"]
    revived = write(project, "--keyword", "dev-server", "The dev server listens on port 3000.")
    assert revived["deduped"] is False and revived["id"] not in (old["id"], new["id"])


def test_extra_keywords_are_dropped_and_counted(project: Path) -> None:
    data = write(
        project,
        "--layer",
        "g",
        "--keyword",
        "macos",
        "--keyword",
        "brew",
        "--keyword",
        "zsh",
        "Homebrew lives in /opt/homebrew.",
    )
    assert data["layer"] == "user" and data["dropped_keywords"] == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("write", "--layer", "glob", "--keyword", "k", "body"), "unknown layer 'glob'"),
        (("write", "--keyword", "k", "--file", "NOTES.md", "body"), "not a category file"),
        (("write", "--keyword", "k", "an (unclosed thought"), "truncated"),
        (("write", "--keyword", "k", "--supersedes", "nope", "body"), "supersedes takes entry ids"),
        (("rebuild",), "rebuild needs a layer"),
        (("compact",), "compact needs a layer"),
        (("rebuild", "project", "extra"), "unrecognized arguments: extra"),
        (("rebuild", "prject"), "unknown layer 'prject'"),
        (("search", "--page", "0", "x"), "--page counts from 1"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(
    project: Path, args: tuple[str, ...], message: str
) -> None:
    run = run_cli(*args, cwd=project)
    assert run.code != 0
    assert run.out == ""
    assert len(run.err.splitlines()) == 1 and message in run.err
    assert "Traceback" not in run.err
    assert not (project / ".pi/agent/memory-auto/NOTES.md").exists()


def test_show_text_and_json(project: Path) -> None:
    write(project, "--keyword", "deploy", "Deploy with rsync.")
    write(project, "--keyword", "deploy", "--file", "DECISIONS.md", "Deploys happen on Tuesdays.")
    run = run_cli("show", cwd=project)
    assert run.code == 0, run.err
    assert f"project: {project.name} — 2 memories, 1 keyword" in run.out
    assert "  #deploy (2)" in run.out
    assert "  files: CONVENTIONS.md 1 · DECISIONS.md 1" in run.out
    data = json.loads(run_cli("show", "--json", cwd=project).out)
    layer = data["layers"]["project"]
    assert layer["memories"] == 2 and layer["table"] == [
        {"keyword": "deploy", "count": 2, "recalls": 0}
    ]
    assert layer["health"]["superseded"] == 0
    assert data["layers"]["user"]["memories"] == 0


def test_rebuild_collapses_legacy_rows_and_keeps_a_backup(project: Path) -> None:
    layer = project / ".pi/agent/memory-auto"
    layer.mkdir(parents=True)
    legacy = (
        "<!-- mid: 20250301-0001 | t: 2025-03-01 10:00:00 | p: app | src: auto"
        " | tags: deploy,rsync,backup -->\nDeploy with rsync.\n"
    )
    (layer / "DECISIONS.md").write_text(legacy, "utf-8")
    run = run_cli("rebuild", "project", cwd=project)
    assert run.code == 0, run.err
    assert "collapsed 1" in run.out
    assert (layer / "DECISIONS.md.bak").read_text("utf-8") == legacy
    assert "| tags: deploy -->" in (layer / "DECISIONS.md").read_text("utf-8")
    assert "#deploy" in (layer / "MEMORY.md").read_text("utf-8")


def test_body_from_stdin(project: Path) -> None:
    run = run_cli("write", "--keyword", "multi", "-", cwd=project, stdin="line one\nline two\n")
    assert run.code == 0, run.err
    text = (project / ".pi/agent/memory-auto/CONVENTIONS.md").read_text("utf-8")
    assert text.endswith("| tags: multi -->\nline one\nline two\n")


def test_tool_write_and_search(project: Path) -> None:
    run = run_cli(
        "tool",
        "memory_write",
        cwd=project,
        stdin=json.dumps({"body": "Tests run with pytest -q.", "keyword": "tests"}),
    )
    result = json.loads(run.out)
    assert result["ok"] is True and result["text"].startswith("Saved [")
    run = run_cli("tool", "memory_search", cwd=project, stdin=json.dumps({"query": "pytest"}))
    result = json.loads(run.out)
    assert result["ok"] is True and "Tests run with pytest -q." in result["text"]
    bad = json.loads(run_cli("tool", "memory_search", cwd=project, stdin='{"page": "x"}').out)
    assert bad == {"ok": False, "text": '"page" must be a whole number from 1'}


def test_unresolvable_model_is_reported_as_misconfigured(
    project: Path, hermetic_home: Path
) -> None:
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"defaults": {"model": "nowhere/model-x"}}', "utf-8")
    run = run_cli("show", cwd=project)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert lines[0] == "Memory: misconfigured"
    assert (
        '- model "nowhere/model-x" for dream is not resolvable (unknown id or missing credentials)'
    ) in lines
    assert any(line.startswith("global — ") for line in lines)  # the store itself still works
    config.write_text('{"layout": "files", "defaults": {"model": "nowhere/model-x"}}', "utf-8")
    lines = run_cli("show", cwd=project).out.splitlines()
    assert lines[:2] == ["Memory: misconfigured", "Dir: not initialized"]
    assert all(line.startswith(("Memory:", "Dir:", "- ")) for line in lines)


def test_a_real_process_exits_with_the_commands_status(project: Path) -> None:
    stored = run_process("write", "--keyword", "deploy", "Ship on Fridays.", cwd=project)
    assert (stored.code, stored.err) == (0, "")
    refused = run_process("write", "--layer", "glob", "--keyword", "k", "A fact.", cwd=project)
    assert refused.code == 1
    assert refused.out == ""
    assert refused.err.startswith("pi_memory: unknown layer 'glob'")
    assert refused.err.count("\n") == 1
    assert run_process("search", "fridays", cwd=project).out.count("Ship on Fridays.") == 1


def test_a_closed_pipe_is_not_an_error(project: Path) -> None:
    for i in range(30):
        write(project, "--keyword", f"topic-{i}", f"Fact number {i} stands alone.")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_memory", "show"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    proc.wait(timeout=60)
    assert "Traceback" not in err
    assert "Broken pipe" not in err


def test_show_names_an_abandoned_lock(project: Path) -> None:
    write(project, "--keyword", "deploy", "Deploy with rsync.")
    record = {
        "pid": 999_999_999,
        "hostname": os.uname().nodename,
        "startedAt": "2026-11-30T10:00:00.000Z",
        "op": "add",
    }
    lock = project / ".pi/agent/memory-auto/.lock"
    lock.write_text(json.dumps(record, separators=(",", ":")), "utf-8")
    run = run_cli("show", cwd=project)
    assert "  lock: held by add (pid 999999999 on " in run.out
    assert "the lock is abandoned: writes to this layer fail until python -m pi_memory unlock" in (
        run.out
    )
    assert json.loads(run_cli("show", "--json", cwd=project).out)["layers"]["project"][
        "lock_abandoned"
    ]
    refused = run_cli("write", "--keyword", "k", "Another fact.", cwd=project)
    assert refused.code == 1
    assert "abandoned" in refused.err and "python -m pi_memory unlock" in refused.err
    assert len(refused.err.splitlines()) == 1
    assert run_cli("unlock", "--yes", cwd=project).code == 0
    assert not lock.exists()
    assert run_cli("write", "--keyword", "k", "Another fact.", cwd=project).code == 0


def test_every_command_module_declares_its_arguments_and_runs() -> None:
    import importlib

    from pi_memory.cli import COMMANDS, OWN_ARGV

    for name, summary, module_name in COMMANDS:
        module = importlib.import_module(module_name)
        assert summary and summary[0].islower(), name
        if name in OWN_ARGV:
            assert callable(getattr(module, OWN_ARGV[name])), name
        else:
            assert callable(module.add_arguments) and callable(module.run), name


@pytest.mark.parametrize(("args", "loaded"), [(("--help",), ""), (("write", "--help"), "write")])
def test_only_the_command_typed_is_imported(
    project: Path, args: tuple[str, ...], loaded: str
) -> None:
    script = (
        "import sys\n"
        "from pi_memory.cli import main\n"
        "try:\n"
        f"    main({list(args)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "names = [m for m in sys.modules if m.startswith('pi_memory.commands.')]\n"
        "sys.stderr.write(' '.join(sorted(names)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    assert "    write " in proc.stdout or "usage: python -m pi_memory write" in proc.stdout
    assert proc.stderr.split() == ([f"pi_memory.commands.{loaded}"] if loaded else [])


@pytest.mark.parametrize(
    "words", [[], ["deploy"], ["deploy", "staging", "port"], ["c++", "", "a b"]]
)
def test_a_search_of_words_alone_is_read_as_argparse_reads_it(words: list[str]) -> None:
    from pi_memory.cli import build_parser
    from pi_memory.commands.search import words_only

    parsed = vars(build_parser("search").parse_args(["search", *words]))
    assert {"command": "search", **vars(words_only(words))} == parsed


#: Runs a search as a person types it, then names the modules it need not have loaded
#: (``typing`` is the type checker's alone: the package imports it under ``TYPE_CHECKING``).
SEARCH_SCRIPT = """
import sys
from pi_memory.cli import main
code = main(["search", "deploy", "staging"])
print(code, sorted(m for m in ("argparse", "shutil", "typing") if m in sys.modules))
"""


def _run_script(project: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``script`` in a new interpreter in ``project``, as the package's own process."""
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )


def test_a_search_of_words_alone_imports_neither_argparse_nor_typing(project: Path) -> None:
    write(project, "--keyword", "deploy", "Deploy to staging with rsync.")
    done = _run_script(project, SEARCH_SCRIPT)
    assert "rsync" in done.stdout, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "0 []"


def test_a_search_that_credits_nothing_leaves_the_session_notes_alone(project: Path) -> None:
    """A search whose words name no keyword of its hits changes nothing a session start
    reads: it does not even load what brings the start's note up to date."""
    write(project, "--keyword", "deploy", "Deploy to staging with rsync.")
    script = SEARCH_SCRIPT.replace('"deploy", "staging"', '"rsync"').replace(
        '("argparse", "shutil", "typing")', '("pi_memory.hosts.fastpath", "pi_memory.recalls")'
    )
    done = _run_script(project, script)
    assert "rsync" in done.stdout, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "0 ['pi_memory.recalls']"  # looked, credited none
    credited = _run_script(project, script.replace('"rsync"', '"deploy"'))
    assert credited.stdout.splitlines()[-1] == "0 ['pi_memory.hosts.fastpath', 'pi_memory.recalls']"


#: Writes a memory as a person types it, then names the modules it need not have loaded.
WRITE_SCRIPT = """
import sys
from pi_memory.cli import main
code = main(["write", "--keyword", "deploy", "Deploy to staging with rsync."])
print(code, sorted(m for m in ("argparse", "typing") if m in sys.modules))
from pi_memory.keywords import _HAN_RUN
print("Han pattern compiled:", len(_HAN_RUN))
"""


def test_a_plain_write_imports_neither_argparse_nor_typing(project: Path) -> None:
    write(project, "--keyword", "deploy", "Staging runs on port 5433.")
    done = _run_script(project, WRITE_SCRIPT)
    assert done.stdout.splitlines()[-2:] == ["0 []", "Han pattern compiled: 0"], done.stdout
    assert "rsync" in run_cli("search", "rsync", cwd=project).out


def test_superseding_a_memory_of_the_other_layer_says_where_it_is(project: Path) -> None:
    """It said "no such id", though the id exists: a memory supersedes only its own layer's."""
    old = write(project, "--layer", "user", "--keyword", "editor", "The editor is vim.")
    run = run_cli(
        "write",
        "--keyword",
        "editor",
        "--supersedes",
        str(old["id"]),
        "The editor is helix.",
        cwd=project,
    )
    assert run.code == 0, run.err
    assert "no such id" not in run.out
    assert f"{old['id']} is in the user layer" in run.out
    unknown = run_cli(
        "write", "--keyword", "x", "--supersedes", "20200101-abcd", "Another fact.", cwd=project
    )
    assert "no such id to supersede: 20200101-abcd" in unknown.out


@pytest.mark.parametrize(("args", "command"), [((), "unlock"), (("user",), "unlock user")])
def test_unlock_advises_a_command_that_exists(
    project: Path, hermetic_home: Path, args: tuple[str, ...], command: str
) -> None:
    """It printed pi's "run /memory unlock", a command no terminal here has."""
    layer = project if not args else hermetic_home
    lock = layer / ".pi/agent/memory-auto/.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    run = run_cli("unlock", *args, cwd=project)
    assert "/memory" not in run.out + run.err
    assert run.out == f"Lock: unreadable — run python -m pi_memory {command}\n"
    assert run.code == 1 and "pass --yes" in run.err  # no terminal to ask on
    assert run_cli("unlock", "--yes", *args, cwd=project).code == 0
    assert not lock.exists()


@pytest.mark.parametrize(
    "line",
    [
        ["--keyword", "deploy", "The", "deploy", "runs", "nightly."],
        ["--keyword", "a", "--keyword", "b", "--layer", "user", "--json", "x"],
        ["--layer", "user", "--file", "DECISIONS.md", "--keyword", "k", "--src", "agent", "y"],
        ["--keyword", "k", "--supersedes", "20260101-aaaa", "--supersedes", "20260101-bbbb", "z"],
        ["--json", "--keyword", "k", "--layer", "user", "--layer", "project", "one", "two"],
        ["--keyword", "", "an empty keyword, as typed"],
        ["--keyword", "c++", "ünïcode", "bodies", "and", "spaces  inside"],
    ],
)
def test_a_plain_write_line_is_read_as_argparse_reads_it(line: list[str]) -> None:
    from pi_memory.cli import build_parser
    from pi_memory.commands.write import plain_options

    parsed = vars(build_parser("write").parse_args(["write", *line]))
    plain = plain_options(line)
    assert plain is not None
    assert {"command": "write", **vars(plain)} == parsed


@pytest.mark.parametrize(
    "line",
    [
        [],
        ["body", "alone"],  # no keyword: argparse says it is required
        ["--keyword", "k"],  # no body
        ["--keyword", "k", "-"],  # the body from standard input
        ["--keyword=k", "body"],
        ["--key", "k", "body"],  # an abbreviation argparse may expand
        ["--keyword", "k", "body", "--layer", "user"],  # an option after the body
        ["--keyword", "-k", "body"],
        ["--keyword", "k", "--", "-body"],
        ["--help"],
        ["--keyword", "k", "--layer"],
        ["--keyword", "k", "-h", "body"],
    ],
)
def test_any_other_write_line_is_left_to_argparse(line: list[str]) -> None:
    from pi_memory.commands.write import plain_options

    assert plain_options(line) is None

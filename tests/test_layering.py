"""The package's layering runs one way, without a circle, and only the layouts name a layout.

The import graph is read with ``ast`` from the source: every ``import`` and
``from … import`` of ``pi_memory``, at module level and inside functions (a
lazy import is still a dependency). Imports under ``if TYPE_CHECKING:`` count
too, against the floors and as a circle: two modules that need each other's
names, even only to annotate, hold one concept between them.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pi_memory"

#: The modules of ``hosts`` below the adapters: the record type, the registry, one per host,
#: and the install edits they are made of.
HOST_RECORDS: tuple[str, ...] = (
    "hosts.host",
    "hosts.registry",
    "hosts.install",
    "hosts.jsonc",
    "hosts.install_plan",
    "hosts.claude_code",
    "hosts.codex",
    "hosts.gemini",
    "hosts.pi_agent",
)
#: Leaves: they import nothing of pi_memory, so every floor may read them
#: (the text rules, the environment variables' names, the configuration defaults, the index
#: file's name, the records' base class, the kept answers of a function).
LEAVES: tuple[str, ...] = (
    "errors",
    "text",
    "env_names",
    "config.defaults",
    "naming.layer_files",
    "named_tuple",
    "memo",
)
#: Floors from the top down. A module may import modules on its own floor or any
#: floor below it, never above. Each entry is a module or package prefix; a
#: package that does not exist yet keeps its floor for when it lands.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # The viewer is an adapter beside the commands: it may read every floor below.
    ("adapters", ("cli", "__main__", "commands", "hosts", "hooks", "viewer")),
    # The agent tools: what every adapter calls; a write may start a model job.
    ("agent_tools", ("agent_tools",)),
    ("jobs", ("jobs",)),
    (
        "engine",
        (
            "store",
            "plan",
            "open_store",
            "doctor",
            "memory_edits",
            "inbox",
            "ready_index",
            "worktree_memories",
            "sync",
        ),
    ),
    ("layouts", ("layouts",)),
    (
        "pure",
        (
            "config",
            "naming",
            "paths",
            "model",
            "transcripts",
            "retrieval",
            "query_terms",
            "tokens",
            "memory_listing",
            "memory_size",
            "json_input",
            "surfacing",
            "session",
            "search_index",
            "detect",
            "inject",
            "keywords",
            "keyword_tally",
            "staleness",
            "recalls",
            "truncation",
            "entry",
            "utf8",
            "control_chars",
            "output",
            "error_handler",
            # The hosts as records and the registry that lists them: plain data the
            # transcript readers and the model providers read; the adapters are above.
            *HOST_RECORDS,
            "launcher",
            "provenance",
            "receipts",
            "anchors",
            "instruction_files",
            "promoted",
            "native",
            "memory_use",
        ),
    ),
    ("fs", ("fs",)),
    ("base", (*LEAVES, "")),
)
#: What a floor may never import, whatever the floors above say.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "layouts": ("store", "plan", "commands", "hosts", "jobs", "cli", "hooks"),
    # Each layout is its own room; what they share lives in layouts/carry.py.
    "layouts.categories": ("layouts.files",),
    "layouts.files": ("layouts.categories",),
    # The adapters to the agents run beside the command line, never through it.
    "hosts": ("commands", "cli", "viewer"),
}
#: Forbidden imports still there, each until the change that removes it lands (none now:
#: the MCP server calls the agent tools in their own layer, not a command).
STILL_FORBIDDEN: frozenset[tuple[str, str]] = frozenset()
#: ``fs`` is the bottom: it imports nothing of pi_memory but itself and the leaves.
FS_MAY_IMPORT: tuple[str, ...] = ("fs", *LEAVES)
#: Where a layout's name may be written as a string: the layouts, and config reading it.
LAYOUT_NAMES: frozenset[str] = frozenset({"categories", "files"})
MAY_NAME_LAYOUTS: tuple[str, ...] = ("layouts", "config")


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of one module, read once per run (the sources do not change)."""
    return ast.parse(path.read_text("utf-8"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def type_only_lines(tree: ast.AST) -> set[int]:
    """Lines of the statements under ``if TYPE_CHECKING:``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                for inner in ast.walk(child):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        lines.add(inner.lineno)
    return lines


def imported(name: str, path: Path, known: set[str]) -> Iterator[tuple[str, int, bool]]:
    """``(module, line, type only)`` of every pi_memory module ``name`` imports, anywhere."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = parsed(path)
    type_only = type_only_lines(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "pi_memory":
                    yield alias.name, node.lineno, node.lineno in type_only
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] != "pi_memory":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if sub in known else base), node.lineno, node.lineno in type_only


@functools.cache
def import_graph(*, runtime_only: bool = False) -> dict[str, dict[str, int]]:
    """Each module → the modules it imports → the first line that does (built once a run;
    callers only read it)."""
    found = modules()
    known = set(found)
    graph: dict[str, dict[str, int]] = {}
    for name, path in found.items():
        edges = graph.setdefault(name, {})
        for target, line, type_only in imported(name, path, known):
            if target != name and not (runtime_only and type_only):
                edges.setdefault(target, line)
    return graph


def short(name: str) -> str:
    """``pi_memory.layouts.files.layer`` → ``layouts.files.layer``; the package itself → ``""``."""
    return name.partition(".")[2] if "." in name else ""


def under(name: str, prefix: str) -> bool:
    rel = short(name)
    if prefix == "":
        return rel == ""
    return rel == prefix or rel.startswith(prefix + ".")


def floor_of(name: str) -> int:
    matches = [
        (len(prefix), level)
        for level, (_, prefixes) in enumerate(FLOORS)
        for prefix in prefixes
        if under(name, prefix)
    ]
    if not matches:
        raise AssertionError(f"{name} has no floor: add it to FLOORS in {Path(__file__).name}")
    return max(matches)[1]


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def typing_at_run_time(path: Path) -> list[int]:
    """Lines that import ``typing`` outside ``if TYPE_CHECKING:``. Every module postpones its
    annotations, so the type checker is the only reader of what ``typing`` offers; importing
    it costs each command milliseconds (a module says ``TYPE_CHECKING = False`` instead)."""
    tree = parsed(path)
    guarded = type_only_lines(tree)
    return [
        node.lineno
        for node in ast.walk(tree)
        if (
            (isinstance(node, ast.Import) and any(a.name == "typing" for a in node.names))
            or (isinstance(node, ast.ImportFrom) and node.module == "typing")
        )
        and node.lineno not in guarded
    ]


def test_no_module_imports_typing_at_run_time() -> None:
    found = {name: lines for name, path in modules().items() if (lines := typing_at_run_time(path))}
    assert found == {}


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("from typing import Final\n", [1]),
        ("import typing\n", [1]),
        ("def f():\n    from typing import cast\n", [2]),
        ("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from typing import Final\n", []),
    ],
)
def test_the_typing_check_sees_a_run_time_import(
    tmp_path: Path, source: str, lines: list[int]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(source, "utf-8")
    assert typing_at_run_time(path) == lines


def test_the_graph_sees_lazy_module_level_and_typing_imports() -> None:
    graph = import_graph()
    assert "pi_memory.layouts" in graph["pi_memory.store"]  # a lazy import inside a method
    assert "pi_memory.entry" in graph["pi_memory.store"]  # a module-level import
    assert "pi_memory.layouts.files.layer" in graph["pi_memory.layouts"]
    # Only under ``if TYPE_CHECKING:``.
    assert "pi_memory.model.target" in graph["pi_memory.model.cli_provider"]


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_every_module_has_a_floor() -> None:
    for name in modules():
        floor_of(name)


def test_no_upward_import() -> None:
    upward = [
        f"{name} (floor {FLOORS[floor_of(name)][0]}) imports {target} "
        f"(floor {FLOORS[floor_of(target)][0]}) at line {line}"
        for name, edges in import_graph().items()
        for target, line in edges.items()
        if floor_of(target) < floor_of(name)
    ]
    assert upward == []


def test_forbidden_imports() -> None:
    bad = [
        f"{name} imports {target} at line {line}"
        for name, edges in import_graph().items()
        for target, line in edges.items()
        for floor, banned in FORBIDDEN.items()
        if under(name, floor) and any(under(target, b) for b in banned)
        if (name, target) not in STILL_FORBIDDEN
    ]
    assert bad == []


def test_only_the_ui_command_enters_the_viewer() -> None:
    """The viewer is an adapter: it reads the engine, and only ``commands/ui`` reads it."""
    graph = import_graph()
    outside = {
        name
        for name, edges in graph.items()
        if not under(name, "viewer") and any(under(target, "viewer") for target in edges)
    }
    assert outside == {"pi_memory.commands.ui"}


def test_each_exception_to_the_forbidden_imports_is_still_needed() -> None:
    graph = import_graph()
    assert [edge for edge in sorted(STILL_FORBIDDEN) if edge[1] not in graph.get(edge[0], {})] == []


def test_leaves_import_nothing_of_the_package() -> None:
    graph = import_graph()
    for name in graph:
        if any(under(name, leaf) for leaf in LEAVES):
            assert graph[name] == {}, name


def test_fs_imports_only_fs_and_the_leaves() -> None:
    bad = [
        f"{name} imports {target}"
        for name, edges in import_graph().items()
        if under(name, "fs")
        for target in edges
        if not any(under(target, allowed) for allowed in FS_MAY_IMPORT)
    ]
    assert bad == []


#: Names of the layout-name constants (``config.CATEGORIES``) and of the setting.
LAYOUT_WORDS: frozenset[str] = frozenset({"CATEGORIES", "FILES", "layout"})


def _layout_word(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in LAYOUT_WORDS
    return isinstance(node, ast.Attribute) and node.attr in LAYOUT_WORDS


def layout_names_in(path: Path) -> list[int]:
    """Lines where a string constant is exactly a layout's name, or where code
    compares with a layout constant or the ``layout`` setting (a branch on the layout)."""
    lines = []
    for node in ast.walk(parsed(path)):
        if (isinstance(node, ast.Constant) and node.value in LAYOUT_NAMES) or (
            isinstance(node, ast.Compare)
            and any(_layout_word(side) for side in [node.left, *node.comparators])
        ):
            lines.append(node.lineno)
    return lines


def test_only_the_layouts_and_config_name_a_layout() -> None:
    named = {
        name: lines
        for name, path in modules().items()
        if not any(under(name, prefix) for prefix in MAY_NAME_LAYOUTS)
        for lines in [layout_names_in(path)]
        if lines
    }
    assert named == {}


@pytest.mark.parametrize(
    "source",
    [
        'x = "files"\n',
        'if layout == "categories":\n    pass\n',
        "if config.layout != CATEGORIES:\n    pass\n",
        "same = settings.layout == other.layout\n",
    ],
)
def test_the_name_check_sees_a_layout_name(tmp_path: Path, source: str) -> None:
    path = tmp_path / "m.py"
    path.write_text(source, "utf-8")
    assert layout_names_in(path) != []


def host_names_in(path: Path, names: frozenset[str]) -> dict[str, list[int]]:
    """Each host name written as a string constant in the module → its lines."""
    found: dict[str, list[int]] = {}
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Constant) and node.value in names:
            found.setdefault(node.value, []).append(node.lineno)
    return found


def own_modules() -> dict[str, set[str]]:
    """Each host's name → the modules that may spell it: its own module and its
    transcript reader (the format's own words), and the registry that lists them all."""
    from pi_memory.hosts.registry import MODULES, host

    return {
        name: {
            f"pi_memory.hosts.{module}",
            host(name).transcript().read.__module__,
            "pi_memory.hosts.registry",
        }
        for name, module in MODULES.items()
    }


def test_a_hosts_name_is_spelt_only_in_its_own_modules() -> None:
    owners = own_modules()
    strays = {
        f"{module} spells {name!r} at lines {lines}"
        for module, path in modules().items()
        for name, lines in host_names_in(path, frozenset(owners)).items()
        if module not in owners[name]
    }
    assert strays == set()


def test_the_host_name_check_sees_a_name(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text('if host == "codex":\n    pass\nx = ("gemini", "other")\n', "utf-8")
    assert host_names_in(path, frozenset({"codex", "gemini", "pi"})) == {
        "codex": [1],
        "gemini": [3],
    }


#: The one module that spells pi_memory's environment variables' names.
ENV_NAMES_MODULE = "env_names"


def docstring_nodes(tree: ast.AST) -> set[int]:
    """``id`` of every module, class and function docstring's constant."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def env_names_in(path: Path) -> list[int]:
    """Lines where code (not a docstring) spells a ``PI_MEMORY_`` name or the prefix."""
    tree = parsed(path)
    prose = docstring_nodes(tree)
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and "PI_MEMORY" in node.value
        and id(node) not in prose
    ]


def test_only_env_names_spells_an_environment_variable() -> None:
    spelled = {
        name: lines
        for name, path in modules().items()
        if not under(name, ENV_NAMES_MODULE)
        for lines in [env_names_in(path)]
        if lines
    }
    assert spelled == {}


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ('WORKER = "PI_MEMORY_WORKER"\n', [1]),
        ('def f(env):\n    return env.get(f"PI_MEMORY_{name}")\n', [2]),
        ('"""Reads ``PI_MEMORY_AUTO_DIR``."""\n\ndef f():\n    """Or PI_MEMORY_X."""\n', []),
    ],
)
def test_the_env_check_sees_a_spelled_name_and_spares_prose(
    tmp_path: Path, source: str, lines: list[int]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(source, "utf-8")
    assert env_names_in(path) == lines


#: What a prompt's hook runs: surfacing, the session's state, the fast path's note.
PROMPT_PATH: tuple[str, ...] = ("surfacing", "retrieval", "session", "hosts.fastpath")


def reachable(graph: dict[str, dict[str, int]], start: list[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, {}))
    return seen


def test_the_prompt_path_imports_no_job_module() -> None:
    graph = import_graph(runtime_only=True)
    start = [name for name in graph if any(under(name, p) for p in PROMPT_PATH)]
    assert start
    assert sorted(n for n in reachable(graph, start) if under(n, "jobs")) == []


#: Runs a prompt's hook as a host does, then names every job module it loaded.
PROMPT_HOOK = """
import io, sys
sys.stdin = io.StringIO(sys.argv[1])
from pi_memory.cli import main
code = main(["hook", "UserPromptSubmit"])
sys.stdout = sys.__stdout__
print(code, sorted(m for m in sys.modules if m.startswith("pi_memory.jobs")))
"""


def test_a_prompt_hook_loads_no_job_module(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    from tests.hookhelp import make_project, payload

    root = make_project(tmp_path)
    store = root / ".pi/agent/memory-auto"
    store.mkdir(parents=True)
    (store / "DECISIONS.md").write_text(
        "<!-- mid: 20261001-aaaa | t: 2026-10-01 10:00:00 | p: repo | src: user | tags: psql -->\n"
        "Postgres listens on port 5433 in staging.\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    for n in range(2):  # the full work, then the fast path's note
        ask = payload(
            "claude-code",
            "UserPromptSubmit",
            root,
            prompt="which postgres port?",
            session_id=f"s{n}",
        )
        done = subprocess.run(
            [sys.executable, "-c", PROMPT_HOOK, ask],
            cwd=root, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr
        assert (
            "5433"
            in json.loads(done.stdout.splitlines()[0])["hookSpecificOutput"]["additionalContext"]
        )


#: Attributes that say what a layout offers: comparing them picks a branch by layout.
LAYOUT_TRAITS: frozenset[str] = frozenset({"agent_tools", "toolkit"})


def _trait(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in LAYOUT_TRAITS


def _names_of(node: ast.AST) -> list[str]:
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    return [ast.unparse(part).rpartition(".")[2] for part in parts]


def layout_forks_in(path: Path) -> list[int]:
    """Lines that test which layout the code works on under another name: a comparison
    with a layout's tools (or with a tuple of tool names), or an ``isinstance`` against
    a layout's staging or layer class."""
    lines = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            equality = all(
                isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for op in node.ops
            )
            strings = any(
                isinstance(side, ast.Tuple)
                and side.elts
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in side.elts)
                for side in sides
            )
            if any(_trait(side) for side in sides) or (equality and strings):
                lines.append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
            and any(n.endswith(("Staging", "Layer")) for n in _names_of(node.args[1]))
        ):
            lines.append(node.lineno)
    return lines


def test_no_job_or_adapter_forks_on_the_layout() -> None:
    """The layout declares what the jobs need of it (``LayerStore.jobs``); only the
    layouts may look at their own traits."""
    forks = {
        name: lines
        for name, path in modules().items()
        if not under(name, "layouts")
        for lines in [layout_forks_in(path)]
        if lines
    }
    assert forks == {}


@pytest.mark.parametrize(
    "source",
    [
        'if layer.agent_tools == ("memory",):\n    pass\n',
        'files = tools != ("memory_search", "memory_write")\n',
        "if store.layer(x).jobs.toolkit == MEMORY_TOOL:\n    pass\n",
        "if isinstance(staging, Staging):\n    pass\n",
        "ok = isinstance(layer, (CategoriesLayer, FilesLayer))\n",
    ],
)
def test_the_fork_check_sees_a_fork(tmp_path: Path, source: str) -> None:
    path = tmp_path / "m.py"
    path.write_text(source, "utf-8")
    assert layout_forks_in(path) != []


#: Search-only modules: ranking, paging and rendering a search, reading a query as a question.
SEARCH_ONLY: tuple[str, ...] = ("pi_memory.retrieval", "pi_memory.query_terms")


def test_a_prompt_hook_on_its_fast_path_loads_nothing_only_search_uses(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.hookhelp import make_project, payload

    root = make_project(tmp_path)
    store = root / ".pi/agent/memory-auto"
    store.mkdir(parents=True)
    (store / "DECISIONS.md").write_text(
        "<!-- mid: 20261001-aaaa | t: 2026-10-01 10:00:00 | p: repo | src: user | tags: psql -->\n"
        "Postgres listens on port 5433 in staging.\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    script = PROMPT_HOOK.replace('m.startswith("pi_memory.jobs")', f"m in {SEARCH_ONLY!r}")
    loaded = []
    for n in range(2):  # the full work, then the fast path's note
        ask = payload("claude-code", "UserPromptSubmit", root, prompt="which postgres port?",
                      session_id=f"s{n}")  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-c", script, ask],
            cwd=root, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert "5433" in done.stdout, done.stdout + done.stderr
        loaded.append(done.stdout.splitlines()[-1])
    assert loaded[1] == "0 []"


#: Runs a turn's end as a host does, then says whether it loaded a process module.
TURN_END_HOOK = """
import io, sys
sys.stdin = io.StringIO(sys.argv[1])
from pi_memory.cli import main
code = main(["hook", "--host", "pi", "Stop"])  # pi's extension reports a turn's end
print(code, sorted(m for m in ("subprocess", "threading") if m in sys.modules))
"""


def test_a_turn_end_with_nothing_to_start_loads_no_process_module(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.hookhelp import make_project, payload

    root = make_project(tmp_path)
    (root.parent / "transcript.jsonl").write_text("", "utf-8")
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent), "HOME": str(tmp_path / "home")}
    ended = payload("claude-code", "Stop", root, session_id="s1")
    for _ in range(2):  # the full work, then the fast path's note
        done = subprocess.run(
            [sys.executable, "-S", "-c", TURN_END_HOOK, ended],
            cwd=root, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr


def imported_by(argv: list[str], stdin: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """Every module ``python -X importtime ARGV`` imported, in order."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        input=stdin, cwd=cwd, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = [line.split("|")[-1] for line in done.stderr.splitlines() if "import time:" in line]
    return [row.strip() for row in rows[1:]]  # the first row is the header


def test_a_session_start_with_nothing_changed_imports_only_what_it_uses(tmp_path: Path) -> None:
    """Run as the hosts run it (``python -S PACKAGE hook …``): no command table, no error
    handler for a person, no job module while no job is due, no process module."""
    import os

    from tests.hookhelp import make_project, payload

    root = make_project(tmp_path)
    store = root / ".pi/agent/memory-auto"
    store.mkdir(parents=True)
    (store / "DECISIONS.md").write_text(
        "<!-- mid: 20261001-aaaa | t: 2026-10-01 10:00:00 | p: repo | src: user | tags: psql -->\n"
        "Postgres listens on port 5433 in staging.\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HOME"] = str(tmp_path / "home")
    start = payload("claude-code", "SessionStart.startup", root)
    argv = ["-S", str(PACKAGE), "hook", "--host", "claude-code", "SessionStart"]
    imported_by(argv, start, root, env)  # the full work writes the fast path's note
    loaded = imported_by(argv, start, root, env)
    # Answered from the note with os and sys alone (pi_memory.hosts.quick_hook).
    ours = {m for m in loaded if m.split(".")[0] == "pi_memory"}
    assert ours == {
        "pi_memory",
        "pi_memory.env_names",
        "pi_memory.fs",
        "pi_memory.fs.cache_home",
        "pi_memory.hosts",
        "pi_memory.hosts.hooks",
        "pi_memory.hosts.quick_hook",
        "pi_memory.json_input",
    }
    # What the package itself loads (Python 3.9's runpy loads typing before it).
    ours_after = loaded[loaded.index("pi_memory") :]
    costly = {"typing", "collections", "pathlib", "re", "json", "argparse", "subprocess"}
    assert sorted(m for m in ours_after if m in costly) == []


def test_the_mcp_server_answers_its_first_requests_from_the_note(tmp_path: Path) -> None:
    """A client waits for ``initialize`` and ``tools/list`` before its first request: after a
    hook left this directory's note, the server answers them without the command table,
    the configuration or a layout, and lists what ``tool --list`` does."""
    import json
    import os
    import subprocess
    import sys

    from tests.hookhelp import make_project, payload

    root = make_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HOME"] = str(tmp_path / "home")
    start = payload("claude-code", "SessionStart.startup", root)
    hook = ["-S", str(PACKAGE), "hook", "--host", "claude-code", "SessionStart"]
    imported_by(hook, start, root, env)  # the full work writes the fast path's note
    asks = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    stdin = "".join(json.dumps(ask) + "\n" for ask in asks)
    loaded = imported_by(["-S", str(PACKAGE), "mcp"], stdin, root, env)
    ours = {m for m in loaded if m.split(".")[0] == "pi_memory"}
    assert ours == {
        "pi_memory",
        "pi_memory.env_names",
        "pi_memory.fs",
        "pi_memory.fs.cache_home",
        "pi_memory.hosts",
        "pi_memory.hosts.mcp",
        "pi_memory.hosts.quick_hook",
        "pi_memory.json_input",
    }
    ours_after = loaded[loaded.index("pi_memory") :]
    # Nor what costs its start more than the interpreter's own: messages are read and written
    # with ``_json`` (no ``json``, nor its ``re``), its lock is ``_thread``'s, its signal
    # handlers are set with ``_signal`` (``signal`` wraps the numbers in ``enum``).
    costly = {"typing", "pathlib", "argparse", "json", "re", "threading", "enum", "signal"}
    costly |= {"zlib"}  # the note's name is hashed without its shared library
    assert sorted(m for m in ours_after if m in costly) == []
    served = subprocess.run(
        [sys.executable, "-S", str(PACKAGE), "mcp"],
        input=stdin, cwd=root, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    listed = json.loads(served.stdout.splitlines()[1])["result"]["tools"]
    direct = subprocess.run(
        [sys.executable, "-S", "-m", "pi_memory", "tool", "--list"],
        cwd=root, env={**env, "PYTHONPATH": str(PACKAGE.parent)},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert listed == json.loads(direct.stdout)
    assert {"memory_search", "memory_write"} <= {tool["name"] for tool in listed}
    # The note's list goes into the answer as the note holds it, not read and written again.
    note = next((tmp_path / "home" / ".cache" / "pi_memory" / "hooks").glob("*.json"))
    held = json.loads(note.read_text("utf-8"))
    compact = json.dumps(listed, separators=(",", ":"))
    held["quick"]["tools"] = compact
    note.write_text(json.dumps(held), "utf-8")
    served = subprocess.run(
        [sys.executable, "-S", str(PACKAGE), "mcp"],
        input=stdin, cwd=root, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert (
        served.stdout.splitlines()[1]
        == '{"jsonrpc": "2.0", "id": 2, "result": {"tools": ' + compact + "}}"
    )

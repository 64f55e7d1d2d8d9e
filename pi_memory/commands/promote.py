"""``promote ID``: copy a memory into the project's instruction files, which every host reads.

A memory the agent keeps needing (or that the user had to repeat) does more
good as a standing instruction than as a note that must be surfaced first.
``promote`` writes it as one item of the marked ``promoted`` section of the
project root's ``AGENTS.md``, ``CLAUDE.md`` and ``GEMINI.md`` (each that exists,
else ``AGENTS.md``; ``--file`` chooses), never touching a byte outside that
section (:mod:`pi_memory.instruction_files`). Nothing is promoted by itself:
``show`` lists the candidates, a person decides. ``--remove`` takes an item out;
the memory stays in its layer either way.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pi_memory.instruction_files import FILES

    parser.add_argument("memory_id", metavar="ID", help="the memory's id (see show or search)")
    parser.add_argument(
        "--remove",
        action="store_true",
        help="take the memory's item out of the section instead (the memory stays)",
    )
    parser.add_argument(
        "--file",
        action="append",
        default=[],
        choices=FILES,
        help="write this instruction file of the project root (repeatable; default: each "
        "of them that exists, else AGENTS.md)",
    )


def project_root() -> Path:
    """The directory whose instruction files the hosts read: the git top level, else here."""
    from pi_memory.naming.git_repo import project_root as root_of
    from pi_memory.naming.workdir import working_dir

    return root_of(working_dir())


def run(args: argparse.Namespace) -> int:
    from pi_memory import instruction_files, promoted
    from pi_memory.errors import UsageError
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line

    memory_id: str = args.memory_id.strip()
    paths = instruction_files.targets(project_root(), args.file)
    if args.remove:
        changed = instruction_files.write_sections(
            paths,
            promoted.SECTION,
            promoted.NOTE,
            lambda lines: promoted.without_item(lines, memory_id),
        )
        done = "removed from" if changed else "was not promoted in"
        write_line(f"{memory_id}: {done} {_names(changed or paths)}")
        return 0
    store = open_store().store
    entry = next((e for e in store.read_all() if e.id == memory_id), None)
    if entry is None:
        raise UsageError(f"no memory with id {memory_id!r} (see: python -m pi_memory show)")
    if not entry.live:
        raise UsageError(f"{memory_id} is superseded by {entry.superseded_by}: promote that one")
    changed = instruction_files.write_sections(
        paths,
        promoted.SECTION,
        promoted.NOTE,
        lambda lines: promoted.with_item(lines, memory_id, entry.body),
    )
    if changed:
        write_line(f"{memory_id}: promoted into {_names(changed)}")
    else:
        write_line(f"{memory_id}: already promoted in {_names(paths)}")
    return 0


def _names(paths: list[Path]) -> str:
    return ", ".join(str(path) for path in paths)

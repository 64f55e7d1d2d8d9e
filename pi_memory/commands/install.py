"""``install HOST`` / ``uninstall HOST``: wire the memory into an agent's own configuration.

Keeps one backup of each file it changes, the file as pi_memory first found
it, in the user's state directory (never in a project's working tree); an
``uninstall`` that puts those very bytes back, or removes a file install
made, removes the backup too, so a round trip leaves nothing behind. Writes
atomically, and with ``--dry-run`` prints the diff instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.hosts.install import Change, current_launcher, plan
from pi_memory.hosts.install_plan import Locations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

BACKUP_SUFFIX = ".pi_memory.bak"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``install`` and ``uninstall`` take the same arguments (``install`` also ``--pyz``)."""
    import argparse

    from pi_memory.hosts.install import SCOPES
    from pi_memory.hosts.registry import NAMES, every

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = "hosts:\n" + "\n".join(f"  {h.name:<12} {h.title}" for h in every())
    parser.add_argument("host", metavar="HOST", choices=NAMES, help="the agent (see hosts below)")
    parser.add_argument(
        "--scope",
        default="user",
        choices=SCOPES,
        help="user (default): the agent's settings in your home directory, for every "
        "project; project: the settings files in this repository, for this project only",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
    if parser.prog.endswith(" install"):
        parser.add_argument(
            "--pyz",
            metavar="PATH",
            help="run the single-file build at PATH instead of this package",
        )
        choice = parser.add_mutually_exclusive_group()
        choice.add_argument(
            "--model",
            metavar="PROVIDER/MODEL",
            help="learn with this model, without asking (e.g. claude-cli/haiku); written "
            "to ~/.pi/agent/memory.json",
        )
        choice.add_argument(
            "--no-model",
            action="store_true",
            help="no model, without asking: nothing is learned in the background",
        )


def run(args: argparse.Namespace) -> int:
    pyz: str | None = getattr(args, "pyz", None)
    model: str | None = getattr(args, "model", None)
    if getattr(args, "no_model", False):
        model = ""
    return run_install(args.command, args.host, args.scope, args.dry_run, pyz, model=model)


def read_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def backup_of(path: Path) -> Path:
    """Where the one backup of ``path`` is kept: ``$XDG_STATE_HOME/pi_memory/backups``
    (else ``~/.local/state/…``), named after the file and its whole path."""
    import hashlib

    from pi_memory.naming.home import home_dir

    state = os.environ.get("XDG_STATE_HOME", "").strip()
    root = Path(state) if os.path.isabs(state) else home_dir(os.environ) / ".local" / "state"
    where = str(path.absolute()).encode("utf-8", "surrogateescape")
    digest = hashlib.sha256(where).hexdigest()[:12]
    return root / "pi_memory" / "backups" / f"{path.name}.{digest}{BACKUP_SUFFIX}"


def backups(path: Path) -> list[bytes]:
    """The contents of ``path``'s backup, then of those older versions left beside it
    (``NAME.<time>.pi_memory.bak``), newest first."""
    found = [backup_of(path)]
    found += sorted(path.parent.glob(f"{path.name}.*{BACKUP_SUFFIX}"), reverse=True)
    out = []
    for backup in found:
        data = read_file(backup)
        if data is not None:
            out.append(data)
    return out


def _keep_backup(path: Path, data: bytes) -> str:
    """Save ``data`` as ``path``'s backup unless one is kept already (that one is older:
    the file as pi_memory first found it); what to say about it."""
    from pi_memory.fs.atomic import atomic_write_bytes

    kept = backup_of(path)
    if kept.exists():
        return ""
    kept.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(kept, data)
    return f" (backup: {kept})"


def diff(change: Change) -> str:
    import difflib

    def lines(data: bytes | None) -> list[str]:
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    old = "/dev/null" if change.before is None else str(change.path)
    new = "/dev/null" if change.after is None else str(change.path)
    text = "".join(difflib.unified_diff(lines(change.before), lines(change.after), old, new))
    return text if text.endswith("\n") or not text else text + "\n"


def apply(change: Change, action: str) -> str:
    """Write one change; what was done, in one line."""
    from pi_memory.fs.atomic import atomic_write_bytes

    kept = backup_of(change.path)
    original = read_file(kept)
    # Uninstall's round trip ends where it began: the very bytes found, or no file.
    ended = action == "uninstall" and (change.after is None or change.after == original)
    saved = ""
    if change.before is not None and not ended:
        saved = _keep_backup(change.path, change.before)
    if change.after is None:
        change.path.unlink()
        said = f"removed {change.path}{saved}"
    else:
        change.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(change.path, change.after)
        verb = "created" if change.before is None else "updated"
        said = f"{verb} {change.path}{saved}"
    if ended and original is not None:
        kept.unlink()
        if change.after is not None:
            said = f"restored {change.path} as install found it"
    return said


def run_install(
    action: str,
    host: str,
    scope: str,
    dry_run: bool,
    pyz: str | None,
    *,
    model: str | None = None,
) -> int:
    """``model``: ``--model``'s value, ``""`` for ``--no-model``, ``None``: ask on a terminal."""
    from pi_memory.commands.install_model import model_edits
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.home import home_dir
    from pi_memory.output import write, write_line

    cwd = Path(os.getcwd())
    loc = Locations(home=home_dir(os.environ), root=project_root(cwd), env=os.environ)
    more, said = model_edits(action, host, model, loc.home, interactive=not dry_run)
    launcher = current_launcher(pyz)
    changes = plan(
        action,
        host=host,
        scope=scope,
        launcher=launcher,
        loc=loc,
        read=read_file,
        backups=backups,
        more=more,
    )
    if not changes:
        write_line(f"{host} ({scope}): nothing to change, already {action}ed")
    for change in changes:
        if dry_run:
            write(diff(change))
        else:
            write_line(apply(change, action))
    for line in said:
        write_line(line)
    if action == "install" and not dry_run:
        from pi_memory.launcher import compile_package

        # As pip does: every hook then reads the modules it imports instead of compiling them.
        compile_package(launcher)
    if dry_run and changes:
        write_line(f"{host} ({scope}): dry run, nothing was changed")
    elif action == "install" and changes:
        write_line(f"{host} ({scope}): installed; start a new session to load it")
        from pi_memory.hosts.registry import host as record

        note = record(host).install_note
        if note:
            write_line(note)
    return 0

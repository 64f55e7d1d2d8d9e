"""``install HOST`` / ``uninstall HOST``: wire the memory into an agent's own configuration.

Backs up every file it changes (``NAME.<time>.pi_memory.bak`` beside it),
writes atomically, and with ``--dry-run`` prints the diff instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.hosts.install import Change, Locations, current_launcher, plan

BACKUP_SUFFIX = ".pi_memory.bak"


def read_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def backups(path: Path) -> list[bytes]:
    """The contents of ``path``'s backups, newest first."""
    found = sorted(path.parent.glob(f"{path.name}.*{BACKUP_SUFFIX}"), reverse=True)
    out = []
    for backup in found:
        data = read_file(backup)
        if data is not None:
            out.append(data)
    return out


def _backup(path: Path, data: bytes) -> Path:
    import time

    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{stamp}{BACKUP_SUFFIX}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.{stamp}-{n}{BACKUP_SUFFIX}")
    target.write_bytes(data)
    return target


def diff(change: Change) -> str:
    import difflib

    def lines(data: bytes | None) -> list[str]:
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    old = "/dev/null" if change.before is None else str(change.path)
    new = "/dev/null" if change.after is None else str(change.path)
    text = "".join(difflib.unified_diff(lines(change.before), lines(change.after), old, new))
    return text if text.endswith("\n") or not text else text + "\n"


def apply(change: Change) -> str:
    from pi_memory.fs.atomic import atomic_write_bytes

    saved = ""
    if change.before is not None:
        saved = f" (backup: {_backup(change.path, change.before)})"
    if change.after is None:
        change.path.unlink()
        return f"removed {change.path}{saved}"
    change.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(change.path, change.after)
    verb = "created" if change.before is None else "updated"
    return f"{verb} {change.path}{saved}"


def run_install(action: str, host: str, scope: str, dry_run: bool, pyz: str | None) -> int:
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.home import home_dir
    from pi_memory.output import write, write_line

    cwd = Path(os.getcwd())
    loc = Locations(home=home_dir(os.environ), root=project_root(cwd), env=os.environ)
    changes = plan(
        action,
        host=host,
        scope=scope,
        launcher=current_launcher(pyz),
        loc=loc,
        read=read_file,
        backups=backups,
    )
    if not changes:
        write_line(f"{host} ({scope}): nothing to change, already {action}ed")
        return 0
    for change in changes:
        if dry_run:
            write(diff(change))
        else:
            write_line(apply(change))
    if dry_run:
        write_line(f"{host} ({scope}): dry run, nothing was changed")
    elif action == "install":
        write_line(f"{host} ({scope}): installed; start a new session to load it")
        from pi_memory.hosts.registry import host as record

        note = record(host).install_note
        if note:
            write_line(note)
    return 0

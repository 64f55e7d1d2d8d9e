"""What ``install HOST`` and ``uninstall HOST`` change in a host's own configuration files.

Pure planning: given what the files hold now, the bytes each file should hold
afterwards. The command applies the plan (backups, atomic writes) or prints
it as a diff. Every edit merges: other hooks, servers, rules and keys stay as
they are, and running ``install`` twice changes nothing the second time.

What is ours is recognised by its shape, wherever the package lives now: a
hook command that runs ``… pi_memory[.pyz] hook --host HOST …``, the MCP
server named ``pi_memory``, the permission rules that name our command, the
marked block of a TOML file, the extension file carrying our marker. So
``uninstall`` removes exactly that, and when nothing else changed in a file
since, it puts back the very bytes the first install found (from the backup).

Which files each host has is its record's ``install`` (in its own module);
this module holds the edits they are made of and the planning.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from pi_memory.errors import PiMemoryError
from pi_memory.hosts.install_plan import Edit, Locations, Plan
from pi_memory.launcher import Launcher, this_package
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.hosts.host import Host
    from pi_memory.hosts.jsonc import Node

SCOPES: Final = ("user", "project")
SERVER: Final = "pi_memory"
#: Seconds a hook may take (a host's record may cap it per event, and say its unit).
HOOK_TIMEOUT: Final = 30
#: A hook command run in the background of a POSIX shell: the shell exits at once, the
#: command keeps the event on its stdin (a background command's stdin is otherwise
#: /dev/null) and writes nowhere the host waits on.
SHELL_BACKGROUND: Final = " <&0 >/dev/null 2>&1 &"
TOML_BEGIN: Final = "# >>> pi_memory (python -m pi_memory uninstall codex removes this block)"
TOML_END: Final = "# <<< pi_memory"
TOML_MARK: Final = "  # pi_memory"
#: Codex's hooks flag (on by default since it became stable), and the name it had before,
#: which Codex 0.171.0 still reads but warns about on every run.
FEATURE: Final = "hooks"
OLD_FEATURES: Final = ("codex_hooks",)
EXTENSION_MARK: Final = "// pi_memory extension, written by: python -m pi_memory install pi"
_INSTALLED_LINE: Final = "const INSTALLED_COMMAND: string[] | null = null;"


class InstallError(PiMemoryError):
    pass


class Change(NamedTuple):
    path: Path
    #: ``None``: the file does not exist (before) or is to be deleted (after).
    before: bytes | None
    after: bytes | None


def current_launcher(pyz: str | None = None) -> Launcher:
    """This interpreter and this package (or the .pyz it runs from, or the one given)."""
    if not pyz:
        return this_package()
    target = Path(pyz).resolve()
    if not target.is_file():
        raise InstallError(f"--pyz {pyz}: no such file")
    return this_package(target)


def _is_ours(command: object) -> bool:
    """A hook command this package's installer wrote (whatever its paths)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    names = [os.path.basename(w.rstrip("/\\")) for w in words]
    return (
        any(n in ("pi_memory", "pi_memory.pyz") for n in names)
        and "hook" in words
        and "--host" in words
    )


def is_ours_tool(command: str) -> bool:
    words = command.replace(":*", "").split()
    names = [os.path.basename(w.strip("'\"").rstrip("/\\")) for w in words]
    return any(n in ("pi_memory", "pi_memory.pyz") for n in names) and "tool" in words


# -- JSON files ------------------------------------------------------------------------------


def _hook_entry(command: str, timeout: int, background: bool = False) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "command": command, "timeout": timeout}
    if background:
        handler["async"] = True
    return {"hooks": [handler]}


def set_hooks(data: dict[str, Any], host: Host, launcher: Launcher) -> None:
    """Our hook on each of the host's events, in the host's unit of a timeout."""
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError('"hooks" is not an object')
    wanted_events = set(host.events.values())
    # An event an earlier install hooked and this one does not (a turn's end, now done
    # by the next prompt): ours goes, the user's own hooks there stay.
    for event, groups in list(hooks.items()):
        if event not in wanted_events and isinstance(groups, list):
            kept = [g for g in groups if not _group_is_ours(g)]
            if kept:
                hooks[event] = kept
            elif groups:
                del hooks[event]
    for event in host.events.values():
        seconds = min(HOOK_TIMEOUT, host.hook_timeout_caps.get(event, HOOK_TIMEOUT))
        command = launcher.command("hook", "--host", host.name, event)
        background = event in host.background_events
        if background and host.shell_background:
            # Windows: the host runs PowerShell, which has no such form; the host waits.
            command, background = command + ("" if os.name == "nt" else SHELL_BACKGROUND), False
        entry = _hook_entry(command, seconds * host.timeout_units, background)
        wanted = [entry]
        if event == host.events.get("start") and host.start_matchers:
            # Only the starts after a first prompt: that prompt starts a new session.
            wanted = [{"matcher": matcher, **entry} for matcher in host.start_matchers]
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f'"hooks.{event}" is not a list')
        mine = [g for g in groups if _group_is_ours(g)]
        if mine == wanted:
            continue
        groups[:] = [g for g in groups if not _group_is_ours(g)]
        groups.extend(wanted)


def _group_is_ours(group: object) -> bool:
    if not isinstance(group, dict):
        return False
    handlers = group.get("hooks")
    return (
        isinstance(handlers, list)
        and bool(handlers)
        and all(isinstance(h, dict) and _is_ours(h.get("command")) for h in handlers)
    )


def drop_hooks(data: dict[str, Any]) -> None:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                handlers = [
                    h
                    for h in group["hooks"]
                    if not (isinstance(h, dict) and _is_ours(h.get("command")))
                ]
                if not handlers and group["hooks"]:
                    continue
                if len(handlers) != len(group["hooks"]):
                    kept.append({**group, "hooks": handlers})
                    continue
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]


def server(launcher: Launcher, **extra: Any) -> dict[str, Any]:
    return {"command": launcher.argv[0], "args": [*launcher.argv[1:], "mcp"], **extra}


def set_server(data: dict[str, Any], spec: dict[str, Any]) -> None:
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise InstallError('"mcpServers" is not an object')
    servers[SERVER] = spec


def drop_server(data: dict[str, Any]) -> None:
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and SERVER in servers:
        del servers[SERVER]
        if not servers:
            del data["mcpServers"]


def add_to_list(data: dict[str, Any], path: tuple[str, ...], values: list[str]) -> None:
    node = data
    for key in path[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise InstallError(f'"{key}" is not an object')
    items = node.setdefault(path[-1], [])
    if not isinstance(items, list):
        raise InstallError(f'"{".".join(path)}" is not a list')
    items.extend(v for v in values if v not in items)


def drop_from_list(
    data: dict[str, Any], path: tuple[str, ...], ours: Callable[[object], bool]
) -> None:
    chain = [data]
    for key in path[:-1]:
        node = chain[-1].get(key)
        if not isinstance(node, dict):
            return
        chain.append(node)
    items = chain[-1].get(path[-1])
    if not isinstance(items, list):
        return
    kept = [v for v in items if not ours(v)]
    if kept:
        chain[-1][path[-1]] = kept
        return
    del chain[-1][path[-1]]
    for parent, key in zip(reversed(chain[:-1]), reversed(path[:-1])):
        if parent[key]:
            break
        del parent[key]


# -- the files of each host ------------------------------------------------------------------


def edits(host: str, scope: str, launcher: Launcher, loc: Locations) -> list[Edit]:
    """The files ``install``/``uninstall`` of ``host`` change: the host's record says."""
    from pi_memory.hosts.registry import UnknownHost
    from pi_memory.hosts.registry import host as record

    try:
        found = record(host)
    except UnknownHost as unknown:
        raise InstallError(str(unknown)) from None
    if scope not in SCOPES:
        raise InstallError(f"unknown scope {scope!r} (user or project)")
    return found.install(Plan(scope, launcher, loc, found.config_dir(loc.env, loc.home)))


def with_(data: dict[str, Any], fn: Callable[..., None], *args: Any) -> dict[str, Any]:
    fn(data, *args)
    return data


# -- TOML (Codex) ----------------------------------------------------------------------------

_HEADER_RE: Final = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")


def _toml_block(launcher: Launcher, with_features: bool) -> str:
    lines = [TOML_BEGIN]
    if with_features:
        lines += ["[features]", f"{FEATURE} = true", ""]
    lines += [
        f"[mcp_servers.{SERVER}]",
        f"command = {json.dumps(launcher.argv[0])}",
        "args = [" + ", ".join(json.dumps(a) for a in (*launcher.argv[1:], "mcp")) + "]",
        TOML_END,
    ]
    return "\n".join(lines) + "\n"


def toml_uninstall(text: str | None) -> str | None:
    if text is None:
        return None
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if bare == TOML_BEGIN:
            inside = True
            continue
        if inside:
            inside = bare != TOML_END
            continue
        if bare.endswith(TOML_MARK) and bare.startswith((FEATURE, *OLD_FEATURES)):
            continue
        out.append(line)
    return "".join(out)


def toml_install(text: str | None, launcher: Launcher) -> str:
    clean = toml_uninstall(text) or ""
    headers = [m.group(1).strip() for m in map(_HEADER_RE.match, clean.splitlines()) if m]
    if f"mcp_servers.{SERVER}" in headers or f'mcp_servers."{SERVER}"' in headers:
        raise InstallError(
            f"config.toml already defines [mcp_servers.{SERVER}] itself; remove it first"
        )
    lines = clean.splitlines(keepends=True)
    with_features = "features" not in headers
    if not with_features:
        lines = _flag_in_features(lines)
    body = "".join(lines)
    if body and not body.endswith("\n"):
        body += "\n"
    if body and not body.endswith("\n\n"):
        body += "\n"
    wanted = body + _toml_block(launcher, with_features)
    if (
        text is not None
        and toml_uninstall(wanted) == toml_uninstall(text)
        and _toml_block(launcher, with_features) in text
    ):
        return text  # already installed as wanted: leave the bytes alone
    return wanted


def _flag_in_features(lines: list[str]) -> list[str]:
    """``hooks = true`` in the file's own ``[features]`` table, unless it says already."""
    start = next(
        i
        for i, line in enumerate(lines)
        if (m := _HEADER_RE.match(line)) and m.group(1).strip() == "features"
    )
    end = next((i for i in range(start + 1, len(lines)) if _HEADER_RE.match(lines[i])), len(lines))
    if any(re.match(rf"\s*{FEATURE}\s*=", lines[i]) for i in range(start + 1, end)):
        return lines
    return [*lines[: start + 1], f"{FEATURE} = true{TOML_MARK}\n", *lines[start + 1 :]]


# -- pi --------------------------------------------------------------------------------------


def extension_source() -> str:
    import pkgutil

    data = pkgutil.get_data("pi_memory.hosts", "pi/extension.ts")
    if data is None:
        raise InstallError("the pi extension is missing from this package")
    return data.decode("utf-8")


def extension_text(launcher: Launcher) -> str:
    source = extension_source()
    if _INSTALLED_LINE not in source:
        raise InstallError("the pi extension has no command line to fill in")
    filled = f"const INSTALLED_COMMAND: string[] | null = {json.dumps(list(launcher.argv))};"
    return EXTENSION_MARK + "\n" + source.replace(_INSTALLED_LINE, filled)


# -- planning --------------------------------------------------------------------------------


def _dump_json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _load_json(path: Path, raw: bytes | None, comments: bool) -> tuple[dict[str, Any], Node | None]:
    """The file's object, and where it holds comments (a ``jsonc`` edit allows them) its
    tree, so that the edit keeps them."""
    if raw is None or not raw.strip():
        return {}, None
    node = None
    try:
        text = raw.decode("utf-8-sig")
        try:
            data = json.loads(text)
        except ValueError:
            if not comments:
                raise
            from pi_memory.hosts.jsonc import parse

            node = parse(text)
            data = node.value
    except (UnicodeDecodeError, ValueError) as exc:
        raise InstallError(
            f"{path} is not valid JSON ({exc}); fix it first, nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; nothing was changed")
    return data, node


def _json_bytes(new: dict[str, Any], raw: bytes | None, node: Node | None) -> bytes:
    """``new`` as the file's bytes: written afresh, or spliced into the text with comments."""
    if raw is None or node is None:
        return _dump_json(new)
    from pi_memory.hosts.jsonc import splice

    bom = codecs.BOM_UTF8 if raw.startswith(codecs.BOM_UTF8) else b""
    return bom + splice(raw.decode("utf-8-sig"), node, new).encode("utf-8")


def _same_json(old: bytes, new: dict[str, Any], comments: bool) -> bool:
    try:
        text = old.decode("utf-8-sig") or "{}"
        try:
            return bool(json.loads(text) == new)
        except ValueError:
            if not comments:
                return False
            from pi_memory.hosts.jsonc import loads

            return bool(loads(text) == new)
    except (UnicodeDecodeError, ValueError):
        return False


def plan(
    action: str,
    *,
    host: str,
    scope: str,
    launcher: Launcher,
    loc: Locations,
    read: Callable[[Path], bytes | None],
    backups: Callable[[Path], list[bytes]],
    more: Sequence[Edit] = (),
) -> list[Change]:
    """The file changes of ``install`` or ``uninstall``; files that stay the same are left out.
    ``more``: edits beyond the host's files (the memory's model in memory.json)."""
    changes = []
    for edit in [*edits(host, scope, launcher, loc), *more]:
        before = read(edit.path)
        after = _after(action, edit, before, backups)
        if after != before:
            changes.append(Change(edit.path, before, after))
    return changes


def _after(
    action: str, edit: Edit, before: bytes | None, backups: Callable[[Path], list[bytes]]
) -> bytes | None:
    install = action == "install"
    if edit.kind == "file":
        if before is not None and EXTENSION_MARK.encode() not in before:
            if not install:
                return before
            raise InstallError(
                f"{edit.path} exists and was not written by pi_memory; nothing was changed"
            )
        return edit.install(None).encode("utf-8") if install else None
    if edit.kind == "toml":
        text = None if before is None else before.decode("utf-8", "surrogateescape")
        if install:
            return str(edit.install(text)).encode("utf-8", "surrogateescape")
        cleaned = edit.uninstall(text)
        if cleaned is None:
            return None
        for old in backups(edit.path):
            if old.decode("utf-8", "surrogateescape").rstrip("\n") == cleaned.rstrip("\n"):
                return old
        if not cleaned.strip():
            return None  # install created it (an empty original would have matched a backup)
        return str(cleaned).encode("utf-8", "surrogateescape")
    comments = edit.kind == "jsonc"
    data, node = _load_json(edit.path, before, comments)
    if install:
        new = edit.install(json.loads(json.dumps(data)))
        return before if new == data else _json_bytes(new, before, node)
    new = edit.uninstall(json.loads(json.dumps(data)))
    if new == data:
        return before
    for old in backups(edit.path):
        if _same_json(old, new, comments):
            return old  # nothing else changed since: the very bytes found at install
    if not new:
        return None  # install created it (an empty original would have matched a backup)
    return _json_bytes(new, before, node)

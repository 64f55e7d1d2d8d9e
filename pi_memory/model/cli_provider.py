"""A coding agent's own CLI as the model, for users with a logged-in agent and no API key.

``claude -p --output-format json``, ``codex exec``, ``gemini -p`` run
non-interactively with the whole conversation on stdin. The child is guarded
against recursion twice: :data:`~pi_memory.env_names.MODEL_CHILD` is set, which this
package's hooks check first (a child session never runs our hooks into another job), and the
CLI's hooks are switched off (Claude Code by a flag; Gemini CLI by the settings
of a private workspace the child runs in, see :func:`gemini_workspace`). It
runs in its own process group, killed whole when the deadline passes.

Tool calls are spoken as a text protocol: the prompt lists the tools and asks
for ``<tool_call>{"name": …, "arguments": {…}}</tool_call>`` blocks, which are
parsed back into :class:`ToolCall` records.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from pi_memory import env_names
from pi_memory.model.errors import ModelUnavailable
from pi_memory.model.types import Message, ToolCall, ToolSpec
from pi_memory.model.wire import CUT, Ask, Parsed, checked, count, malformed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.config.schema import Config
    from pi_memory.model.target import Target

#: Claude Code settings for the child: none of the user's hooks run in it.
CLAUDE_SETTINGS: Final = '{"disableAllHooks": true}'
#: pi-memory's think levels → ``claude --effort`` (``off`` leaves the CLI's default).
CLAUDE_EFFORT: Final = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
}
_TOOL_CALL: Final = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.S)


def prompt_text(ask: Ask) -> str:
    """The conversation as one text: the CLI takes a single prompt."""
    parts: list[str] = []
    if ask.tools:
        parts.append(_tool_protocol(ask.tools))
    for message in ask.messages:
        parts.append(_render(message))
    return "\n\n".join(parts) + "\n"


def _tool_protocol(tools: Sequence[ToolSpec]) -> str:
    lines = [
        "You can call these tools. To call one, answer with one or more blocks",
        '<tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>',
        "and nothing else; the results come back in the next message. "
        "When you are done, answer in plain text without any <tool_call> block.",
        "",
        "Tools:",
    ]
    for tool in tools:
        schema = json.dumps(dict(tool.parameters), ensure_ascii=False, sort_keys=True)
        lines.append(f"- {tool.name}: {tool.description} Arguments (JSON Schema): {schema}")
    return "\n".join(lines)


def _render(message: Message) -> str:
    if message.role == "tool":
        return f"[tool result {message.tool_call_id}]\n{message.content}"
    text = message.content
    for call in message.tool_calls:
        block = json.dumps({"name": call.name, "arguments": dict(call.arguments)})
        text += f"\n<tool_call>{block}</tool_call>"
    return f"[{message.role}]\n{text}"


#: Gemini reads the conversation from stdin and appends its ``-p`` prompt to it.
GEMINI_PROMPT: Final = "Answer the conversation above."
#: The workspace settings of a Gemini child: no hooks (the user's included), no built-in
#: tools, the folder's last 20 sessions kept (a running job's among them). Workspace
#: settings override the user's, and are read only in a trusted folder.
GEMINI_SETTINGS: Final = (
    '{"hooksConfig": {"enabled": false}, "tools": {"core": []},'
    ' "general": {"sessionRetention": {"enabled": true, "maxCount": 20}}}'
)
#: The only MCP server a Gemini child may start; no server has this name (an empty list
#: means "all" to the CLI, an empty name is refused).
GEMINI_NO_MCP: Final = "pi-memory-no-mcp-server"


def default_command(api: str) -> str:
    """The program a CLI provider runs when memory.json names none (the host's own)."""
    from pi_memory.hosts.registry import model_commands

    return model_commands().get(api, "")


def argv(target: Target, ask: Ask, reply_file: str = "") -> list[str]:
    """The command line; ``reply_file`` is where ``codex exec -o`` writes its last message."""
    api = target.provider.api
    command = target.provider.command or default_command(api)
    model = [] if target.model_id == "default" else [target.model_id]
    if api == "claude-cli":
        out = [command, "-p", "--output-format", "json", "--no-session-persistence"]
        out += ["--settings", CLAUDE_SETTINGS, "--tools", "", "--strict-mcp-config"]
        if ask.system:
            out += ["--system-prompt", ask.system]
        if ask.think in CLAUDE_EFFORT:
            out += ["--effort", CLAUDE_EFFORT[ask.think]]
        return out + (["--model", *model] if model else [])
    if api == "codex-cli":
        out = [command, "exec", "--skip-git-repo-check", "--ephemeral", "--color", "never"]
        out += ["--sandbox", "read-only", "--output-last-message", reply_file]
        return out + (["--model", *model] if model else []) + ["-"]
    out = [command, "--output-format", "json", "--allowed-mcp-server-names", GEMINI_NO_MCP]
    return out + (["--model", *model] if model else []) + ["--prompt", GEMINI_PROMPT]


def child_env(env: Mapping[str, str], ask: Ask) -> dict[str, str]:
    out = dict(env)
    out[env_names.MODEL_CHILD] = "1"
    out["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = str(ask.max_tokens)
    return out


def gemini_workspace(ask: Ask, env: dict[str, str]) -> tuple[str, str]:
    """The folder a Gemini child runs in, and the file to remove after it; ``env`` is
    completed.

    The folder's ``.gemini/settings.json`` turns off the hooks and the built-in tools
    and keeps the folder's last sessions only (gemini records every session of a
    folder); the folder is trusted for the run (``GEMINI_CLI_TRUST_WORKSPACE``: a
    headless run in an untrusted folder refuses to start, and ignores its settings),
    and the job's system prompt replaces the CLI's own (``GEMINI_SYSTEM_MD``). The
    user's project stays out of the child: its GEMINI.md, its settings, its sessions.
    One folder serves every run, so gemini knows one more project, not one a job.
    """
    import tempfile

    parent = _private_dir(Path(tempfile.gettempdir()) / f"pi_memory-gemini{_uid()}")
    folder = parent / "pi_memory-gemini-child"
    (folder / ".gemini").mkdir(parents=True, exist_ok=True)
    settings = folder / ".gemini" / "settings.json"
    if not settings.is_file() or settings.read_text(encoding="utf-8") != GEMINI_SETTINGS:
        from pi_memory.fs.atomic import atomic_write_text

        atomic_write_text(settings, GEMINI_SETTINGS, durable=False)
    env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    if not ask.system:
        return str(folder), ""
    fd, system = tempfile.mkstemp(dir=str(parent), prefix="system-", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(ask.system)
    env["GEMINI_SYSTEM_MD"] = system
    return str(folder), system


def _uid() -> str:
    getuid = getattr(os, "getuid", None)  # POSIX: the temporary folder is shared
    return f"-{getuid()}" if getuid else ""


def _private_dir(path: Path) -> Path:
    """``path``, made if missing; a fresh folder instead when it is not ours alone
    (another user could have put settings there that gemini would obey)."""
    import stat
    import tempfile

    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = path.lstat()
    posix = hasattr(os, "getuid")  # elsewhere the temporary folder is the user's own
    mine = not posix or (info.st_uid == os.getuid() and not info.st_mode & 0o077)
    if stat.S_ISDIR(info.st_mode) and mine:
        return path
    return Path(tempfile.mkdtemp(prefix="pi_memory-gemini-"))


def run(target: Target, ask: Ask, deadline: float, env: Mapping[str, str]) -> Parsed:
    """Run the CLI once; a Parsed reply, or ModelUnavailable when it never answered."""
    stdin = prompt_text(ask)
    name = target.provider.api
    if ask.system and name == "codex-cli":
        stdin = f"[system]\n{ask.system}\n\n{stdin}"
    reply_file = _reply_file() if name == "codex-cli" else ""
    child = child_env(env, ask)
    folder, system = None, ""
    if name == "gemini-cli":
        try:
            folder, system = gemini_workspace(ask, child)
        except OSError as failed:
            raise ModelUnavailable(f"cannot prepare gemini's folder ({failed})") from None
    try:
        args = argv(target, ask, reply_file)
        code, out, err = _run(args, stdin, deadline, child, folder)
        if reply_file:
            out = Path(reply_file).read_text(encoding="utf-8", errors="replace") or out
    finally:
        if reply_file:
            Path(reply_file).unlink(missing_ok=True)
        if system:
            Path(system).unlink(missing_ok=True)
    if code != 0 and not out.strip():
        said = _said(err) if name == "gemini-cli" else ""
        said = said or " ".join(err.split())[:200] or f"exit status {code}"
        raise ModelUnavailable(f"{name} failed ({said})")
    if name == "claude-cli":
        return _claude(out, bool(ask.tools))
    if name == "gemini-cli":
        return _gemini(out, bool(ask.tools))
    return _plain(out, bool(ask.tools))


def _reply_file() -> str:
    import tempfile

    fd, path = tempfile.mkstemp(prefix="pi_memory-codex-", suffix=".txt")
    os.close(fd)
    return path


def _run(
    args: list[str], stdin: str, deadline: float, env: dict[str, str], cwd: str | None = None
) -> tuple[int, str, str]:
    import subprocess

    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise ModelUnavailable("no answer before the job's deadline")
    posix = sys.platform != "win32"
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=posix,
        )
    except OSError as err:
        raise ModelUnavailable(
            f"cannot run {args[0]!r} ({err.strerror or err}); install it or set the "
            'provider\'s "command" in memory.json'
        ) from None
    try:
        out, errs = proc.communicate(stdin.encode("utf-8"), timeout=remaining)
    except subprocess.TimeoutExpired:
        _kill(proc, posix)
        raise ModelUnavailable(f"{args[0]} gave no answer within {remaining:.0f} s") from None
    return proc.returncode, out.decode("utf-8", "replace"), errs.decode("utf-8", "replace")


def _kill(proc: Any, posix: bool) -> None:
    import signal

    try:
        if posix:
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # the whole tree: a CLI is often a launcher with a child doing the work
            import subprocess

            subprocess.run(
                ["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, check=False
            )
            proc.kill()
    except OSError:
        pass
    proc.communicate()


def _claude(out: str, with_tools: bool) -> Parsed:
    data = _last_json(out)
    if not isinstance(data, Mapping):
        return malformed("claude -p did not print a JSON result")
    usage = data.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    tin = sum(
        count(usage.get(k))
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    tout = count(usage.get("output_tokens"))
    text = data.get("result")
    if data.get("stop_reason") == "max_tokens":
        return Parsed("", (), "", tin, tout, CUT, "the reply hit max_tokens")
    if data.get("is_error") or data.get("subtype") != "success" or not isinstance(text, str):
        said = text if isinstance(text, str) and text else str(data.get("subtype", "error"))
        return malformed(f"claude -p reported an error ({' '.join(said.split())[:200]})")
    return _with_tools(text, with_tools, tin, tout)


def _gemini(out: str, with_tools: bool) -> Parsed:
    data = _last_json(out)
    if not isinstance(data, Mapping):
        return malformed("gemini -p did not print a JSON result")
    error = data.get("error")
    if error:
        message = error.get("message") if isinstance(error, Mapping) else error
        return malformed(f"gemini -p reported an error ({str(message)[:200]})")
    text = data.get("response")
    if not isinstance(text, str):
        return malformed("gemini -p's result has no response")
    tin = tout = 0
    stats = data.get("stats")
    models = stats.get("models") if isinstance(stats, Mapping) else None
    # Every model the run called (a router's side call included); thinking is output.
    for model in models.values() if isinstance(models, Mapping) else ():
        tokens = model.get("tokens") if isinstance(model, Mapping) else None
        if isinstance(tokens, Mapping):
            tin += count(tokens.get("prompt"))
            tout += count(tokens.get("candidates")) + count(tokens.get("thoughts"))
    return _with_tools(text, with_tools, tin, tout)


def _said(err: str) -> str:
    """The message of the JSON error gemini ends its stderr with (after warnings and a
    stack trace), or ``""``."""
    start = len(err)
    while start > 0:
        start = err.rfind("\n{", 0, start)
        try:
            data = json.loads(err[start + 1 :])
        except ValueError:
            continue
        error = data.get("error") if isinstance(data, Mapping) else None
        message = error.get("message") if isinstance(error, Mapping) else None
        return " ".join(str(message).split())[:200] if message else ""
    return ""


def _plain(out: str, with_tools: bool) -> Parsed:
    return _with_tools(out.strip(), with_tools, 0, 0)


def _with_tools(text: str, with_tools: bool, tin: int, tout: int) -> Parsed:
    calls: list[ToolCall] = []
    if with_tools:
        for number, match in enumerate(_TOOL_CALL.finditer(text), 1):
            try:
                data = json.loads(match.group(1))
            except ValueError:
                return malformed("a tool call is malformed", tin, tout)
            name, arguments = data.get("name"), data.get("arguments", {})
            if not isinstance(name, str) or not isinstance(arguments, Mapping):
                return malformed("a tool call is malformed", tin, tout)
            calls.append(ToolCall(f"cli_{number}", name, dict(arguments)))
        if calls:
            text = _TOOL_CALL.sub("", text).strip()
    return checked(Parsed(text, tuple(calls), "tool_use" if calls else "end", tin, tout))


def _last_json(out: str) -> object:
    """The JSON document a CLI printed (the last line that parses, for chatty CLIs)."""
    try:
        return json.loads(out)
    except ValueError:
        pass
    for line in reversed(out.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def background_command(config: Config) -> tuple[str, str]:
    """The provider and program of the background jobs' model when it is a CLI provider
    (``("", "")`` otherwise): what a session start checks is still there."""
    from pi_memory.config.models import task_model

    name = task_model(config, "extractMemories") or ""
    provider = config.providers.get(name.partition("/")[0])
    if provider is None or not provider.api.endswith("-cli"):
        return "", ""
    return name.partition("/")[0], provider.command or default_command(provider.api)


def command_found(command: str, env: Mapping[str, str]) -> bool:
    """``command`` is a file, or a program on ``env``'s ``PATH``."""
    import shutil

    return os.path.isfile(command) or shutil.which(command, path=env.get("PATH")) is not None


def missing_command_note(provider: str, command: str) -> str:
    """What a session start says when the model's program is not where the hooks run."""
    return (
        f"pi_memory: the memory's model ({provider}) runs {command!r}, which is not on this "
        "PATH, so nothing is learned in the background: install it, or set "
        f'"providers.{provider}.command" in ~/.pi/agent/memory.json to its full path'
    )

"""The ``memory`` tool of a headless agent, answered from a staged copy of one layer.

The agent sees the tool's usual answers (``list``, ``search``, "Saved …"),
computed over the layer's memories as read at the start plus what the agent
already did in this run. Writes are validated as the real tool validates them
and recorded, not performed; :meth:`Staging.commit` replays them through the
real tool, under the store's lock, once the agent has finished. A model that
fails half-way therefore changes nothing.

``rename`` and ``rebuild_index`` exist only in the dream's tool (pi-memory's
seven actions); the extract agent gets the main agent's five.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from pi_memory.config.defaults import MEMORY_MAX_BYTES
from pi_memory.entry import Entry
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.model.types import ToolCall, ToolSpec
    from pi_memory.store import Store

MAIN_ACTIONS: Final = ("add", "replace", "remove", "list", "search")
DREAM_ACTIONS: Final = (*MAIN_ACTIONS, "rename", "rebuild_index")
WRITES: Final = ("add", "replace", "remove", "rename", "rebuild_index")


class Staged(NamedTuple):
    action: str
    args: Mapping[str, str]


def tool_spec(actions: Sequence[str]) -> ToolSpec:
    from pi_memory.layouts.carry import ENTRY_TYPES
    from pi_memory.model.types import ToolSpec

    props: dict[str, Any] = {
        "action": {"type": "string", "enum": list(actions)},
        "name": {"type": "string", "description": "the memory's unique name"},
        "description": {"type": "string", "description": "one self-contained line"},
        "content": {"type": "string", "description": "the memory itself"},
        "type": {"type": "string", "enum": list(ENTRY_TYPES)},
        "query": {"type": "string", "description": "words to find (search)"},
    }
    if "rename" in actions:
        props["new_name"] = {"type": "string", "description": "rename: the new name"}
    return ToolSpec(
        "memory",
        "Read and change the long-term memory: " + ", ".join(actions) + ".",
        {"type": "object", "properties": props, "required": ["action"]},
    )


class Staging:
    """One layer's memories as the agent sees them while nothing is written yet."""

    def __init__(
        self,
        entries: Sequence[Entry],
        actions: Sequence[str],
        now: datetime,
        max_body_bytes: int = MEMORY_MAX_BYTES,
    ) -> None:
        self.max_body_bytes = max_body_bytes
        self.entries = list(entries)
        self.actions = tuple(actions)
        self.now = now
        self.staged: list[Staged] = []
        self.refused: list[str] = []

    def answer(self, call: ToolCall) -> str:
        """The tool's answer to one call; a refusal is an answer too, never an exception."""
        args = {k: v for k, v in call.arguments.items() if isinstance(v, str)}
        action = args.get("action", "")
        if call.name != "memory" or action not in self.actions:
            reason = f"Unknown action: {action or call.name} (use {', '.join(self.actions)})"
            self.refused.append(reason)
            return reason
        try:
            text = getattr(self, f"_{action}")(args)
        except ValueError as err:
            self.refused.append(f"{action} {args.get('name', '')}: {err}".replace("  ", " "))
            return str(err)
        if action in WRITES:
            self.staged.append(Staged(action, args))
        return str(text)

    def _find(self, ref: str) -> int:
        for i, entry in enumerate(self.entries):
            if ref in (entry.file, entry.name):
                return i
        raise ValueError(f'Entry "{ref}" not found')

    def _checked(self, args: Mapping[str, str], key: str) -> str:
        from pi_memory.errors import EntryRejected
        from pi_memory.layouts.files.format import check_description, check_name, check_type
        from pi_memory.text import js_trim

        value = js_trim(args.get(key, ""))
        try:
            self._check_size(key, value)
            if key in ("name", "new_name"):
                check_name(value)
            elif key == "description":
                check_description(value)
            elif key == "type" and value:
                check_type(value)
        except EntryRejected as err:
            raise ValueError(str(err)) from None
        return value

    def _check_size(self, key: str, value: str) -> None:
        """The real tool refuses a text over ``memoryMaxBytes``; so does its stand-in, at once."""
        from pi_memory.errors import EntryRejected
        from pi_memory.memory_size import size_issue

        problem = size_issue(value, self.max_body_bytes)
        if problem is not None:
            raise EntryRejected(f"{key} {problem}")

    def _add(self, args: Mapping[str, str]) -> str:
        name = self._checked(args, "name")
        content = self._checked(args, "content")
        if not content:
            raise ValueError("content is required for add")
        kind = self._checked(args, "type") or "feedback"
        description = self._checked(args, "description") or content.split("\n")[0][:200]
        try:
            at = self._find(name)
        except ValueError:
            at = -1
        fresh = Entry(
            id="", time="", project="", src="auto", keyword=name, body=content,
            file=f"{name}.md", name=name, description=description, type=kind,
            modified=self.now.isoformat(),
        )  # fmt: skip
        if at >= 0:
            self.entries[at] = self.entries[at]._replace(
                body=content, description=description, type=kind
            )
        else:
            self.entries.append(fresh)
        return f'Saved "{name}".'

    def _replace(self, args: Mapping[str, str]) -> str:
        at = self._find(args.get("name", ""))
        if not any(args.get(k) for k in ("content", "description", "type")):
            raise ValueError("replace needs content, description or type")
        old = self.entries[at]
        self.entries[at] = old._replace(
            body=self._checked(args, "content") or old.body,
            description=self._checked(args, "description") or old.description,
            type=self._checked(args, "type") or old.type,
        )
        return f'Replaced "{old.name}".'

    def _remove(self, args: Mapping[str, str]) -> str:
        at = self._find(args.get("name", ""))
        return f'Removed "{self.entries.pop(at).name}".'

    def _rename(self, args: Mapping[str, str]) -> str:
        at = self._find(args.get("name", ""))
        new = self._checked(args, "new_name")
        if any(e.name == new for e in self.entries):
            raise ValueError(f'a memory named "{new}" already exists')
        old = self.entries[at]
        self.entries[at] = old._replace(name=new)
        return f'Renamed "{old.name}" to "{new}".'

    def _rebuild_index(self, args: Mapping[str, str]) -> str:
        del args
        return f"Index rebuilt from {len(self.entries)} memories."

    def _list(self, args: Mapping[str, str]) -> str:
        from pi_memory.memory_listing import list_text

        del args
        return list_text(self.entries)

    def _search(self, args: Mapping[str, str]) -> str:
        from pi_memory.memory_listing import search_text

        query = args.get("query", "").strip()
        if not query:
            raise ValueError("query is required for search")
        return search_text(self.entries, query, self.now, self.max_body_bytes)

    def planned(self) -> list[str]:
        return [describe(step) for step in self.staged]

    def commit(self, store: Store, layer: str) -> tuple[list[str], list[str]]:
        """Replay the staged writes through the real tool; ``(done, refused)`` lines.

        The caller holds the store's lock for ``layer``.
        """
        from pi_memory.errors import PiMemoryError

        tool = store.layer(layer).memory_tool()
        done: list[str] = []
        refused: list[str] = []
        written: list[str] = []
        for step in self.staged:
            a = dict(step.args)
            for key in ("content", "description"):  # no secret reaches a file (store.redact)
                if isinstance(a.get(key), str):
                    a[key] = store.redact(a[key])
            try:
                if step.action == "add":
                    add = tool.add(
                        a["name"], a["content"], a.get("description"), a.get("type"), self.now
                    )
                    written.append(add.file)
                elif step.action == "replace":
                    replaced = tool.replace(
                        a["name"], a.get("content"), a.get("description"), a.get("type"), self.now
                    )
                    written.append(replaced.file)
                elif step.action == "remove":
                    tool.remove_by_name(a["name"])
                elif step.action == "rename":
                    tool.rename(a["name"], a["new_name"], self.now)
                else:
                    layer_store = store.layer(layer)
                    layer_store.rebuild_index(layer_store.read(), store.recalls(layer))
            except (PiMemoryError, KeyError, OSError) as err:
                refused.append(f"{step.action} {a.get('name', '')}: {err}".replace("  ", " "))
                continue
            done.append(describe(step))
        _anchor_written(store, layer, written, self.now)
        return done, refused


def _anchor_written(store: Store, layer: str, files: Sequence[str], now: datetime) -> None:
    """Anchor the project memories just written to the code they mention (see
    :mod:`pi_memory.anchors`); under the caller's lock. They are stored whatever happens."""
    from pi_memory.entry import PROJECT
    from pi_memory.errors import PiMemoryError

    if layer != PROJECT or not files:
        return
    try:
        entries = store.layer(layer).read()
        first: dict[str, Entry] = {}
        for entry in entries:
            first.setdefault(entry.id, entry)  # what Store.anchor would find by the id
        by_file = {e.file: e.id for e in entries}
        for memory_id in dict.fromkeys(by_file[f] for f in files if f in by_file):
            store.anchor(memory_id, now, held=True, entry=first[memory_id])
    except (OSError, PiMemoryError):
        return


def describe(step: Staged) -> str:
    a = step.args
    if step.action == "rename":
        return f'rename "{a.get("name")}" → "{a.get("new_name")}"'
    if step.action == "rebuild_index":
        return "rebuild_index"
    return f'{step.action} "{a.get("name")}"'

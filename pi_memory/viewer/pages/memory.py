"""One memory: its text (escaped), its fields, where it lives, its history and receipts;
and the changes made from here: edit, supersede, remove."""

from __future__ import annotations

from datetime import datetime

from pi_memory.viewer.html import empty, esc, form, hidden, link, notice, page, table, url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.entry import Entry
    from pi_memory.viewer.app import App
    from pi_memory.viewer.routing import Request, Response

DONE = {
    "edited": "Saved. The previous text is kept as a rollback point.",
    "superseded": "Saved as a new memory that supersedes the old one.",
    "restored": "Restored.",
    "merged": "Merged: the other memory is superseded by this one.",
    "resolved": "Settled: the other memory is superseded by this one.",
    "accepted": "Accepted from the inbox: it is a memory now.",
}


def render(request: Request) -> Response:
    done = DONE.get(request.arg("done"), "")
    return draw(request.app, request.arg("layer"), request.arg("id"), done, "ok")


def lookup(app: App, layer: str, entry_id: str) -> Entry | None:
    from pi_memory.entry import LAYERS
    from pi_memory.memory_edits import find

    if layer not in LAYERS:
        return None
    return find(app.store().read(layer), entry_id)


def draw(
    app: App,
    layer: str,
    entry_id: str,
    message: str = "",
    kind: str = "info",
    *,
    draft: str | None = None,
    status: int = 200,
) -> Response:
    """The memory's page, with ``message`` on top and ``draft`` kept in the edit box."""
    entry = lookup(app, layer, entry_id)
    top = notice(message, kind) if message else ""
    if entry is None:
        body = top + empty(f"There is no memory {entry_id} in this layer.")
        if draft is not None:
            body += f'<h2>Your text</h2><pre class="text">{esc(draft)}</pre>'
        return page(
            app, "Memory not found", "/memories", body, status=404 if status == 200 else status
        )
    csrf = app.csrf.issue()
    body = top + f'<pre class="text" id="text">{esc(entry.body)}</pre>'
    body += _fields(app, entry) + _actions(app, entry, csrf, draft)
    body += _history(app, entry) + _receipts(app, entry)
    return page(app, entry.name or f"Memory {entry.id}", "/memories", body, status=status)


def _fields(app: App, entry: Entry) -> str:
    store = app.store()
    where = store.directory(entry.layer) / entry.file
    rows = [
        ("id", esc(entry.id)),
        ("layer", esc(store.label(entry.layer))),
        ("keyword", link(app, f"#{entry.keyword}", "/memories", q=entry.keyword, mode="tag")),
        ("type", esc(entry.type)),
        ("description", esc(entry.description)),
        ("source", esc(entry.src)),
        ("written", esc(entry.time)),
        ("confirmed again", esc(entry.last) + (f" (seen {entry.seen}×)" if entry.seen > 1 else "")),
        ("modified", esc(entry.modified)),
        ("project", esc(entry.project)),
        ("on disk", f'<code class="path">{esc(where)}</code>'),
        (
            "supersedes",
            " ".join(link(app, i, "/memory", layer=entry.layer, id=i) for i in entry.supersedes),
        ),
        (
            "superseded by",
            link(app, entry.superseded_by, "/memory", layer=entry.layer, id=entry.superseded_by)
            if entry.superseded_by
            else "",
        ),
    ]
    items = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in rows if v)
    return f'<section class="card"><dl class="facts">{items}</dl></section>'


def _actions(app: App, entry: Entry, csrf: str, draft: str | None) -> str:
    from pi_memory.memory_edits import version

    keep = [hidden("layer", entry.layer), hidden("id", entry.id), hidden("version", version(entry))]
    text = entry.body if draft is None else draft
    edit = form(
        app,
        "/edit",
        csrf,
        ["<h2>Edit</h2>", *keep, f'<textarea name="body" aria-label="text">{esc(text)}</textarea>'],
        button="Save",
    )
    supersede = form(
        app,
        "/supersede",
        csrf,
        [
            '<h2>Supersede</h2><p class="meta">A new memory replaces this one; '
            "this one stays, marked outdated.</p>",
            *keep,
            f'<input name="keyword" value="{esc(entry.keyword)}" aria-label="keyword">',
            '<textarea name="body" aria-label="new text" '
            'placeholder="what is true now"></textarea>',
        ],
        button="Supersede",
    )
    remove = form(
        app,
        "/remove",
        csrf,
        ['<h2>Remove</h2><p class="meta">Recoverable from the removed memories.</p>', *keep],
        button="Remove",
        danger=True,
        confirm="Remove this memory? It can be restored.",
    )
    return f'<div class="actions card">{edit}{supersede}{remove}</div>'


def _history(app: App, entry: Entry) -> str:
    from pi_memory.memory_edits import history

    versions = history(app.store(), entry.layer, entry.id)
    rows = [
        (
            esc(v.when + " UTC"),
            esc(v.label),
            f'<pre class="text">{esc(v.entry.body)}</pre>'
            + (
                ""
                if v.entry.live
                else f'<p class="meta">superseded by {esc(v.entry.superseded_by)}</p>'
            ),
        )
        for v in versions
    ]
    inner = (
        table(("kept at", "by", "text then"), rows)
        if rows
        else empty("No earlier version is kept.")
    )
    return f'<section class="card"><h2>History</h2>{inner}</section>'


#: Receipts listed on a memory's page, newest first.
SHOWN_RECEIPTS = 50


def _receipts(app: App, entry: Entry) -> str:
    """When the memory was injected, surfaced or written by a job (the receipts log)."""
    from pi_memory import receipts
    from pi_memory.viewer.receipts_view import receipts_table

    found = receipts.read(receipts.Filter(memory=entry.id))[-SHOWN_RECEIPTS:]
    inner = (
        receipts_table(app, found)
        if found
        else empty("No receipt names this memory yet: no session was given it.")
    )
    return f'<section class="card"><h2>Receipts</h2>{inner}</section>'


def _args(request: Request) -> tuple[str, str, str]:
    return request.arg("layer"), request.arg("id"), request.arg("version")


def _back(app: App, layer: str, entry_id: str, done: str) -> Response:
    from pi_memory.viewer.routing import redirect

    app.changed()
    return redirect(url(app, "/memory", layer=layer, id=entry_id, done=done))


def edit(request: Request) -> Response:
    from pi_memory import memory_edits
    from pi_memory.errors import PiMemoryError

    app = request.app
    layer, entry_id, seen = _args(request)
    text = request.form.get("body", "")
    try:
        memory_edits.edit(app.store(), layer, entry_id, text, seen)
    except memory_edits.StaleEdit as exc:
        app.changed()
        return draw(app, layer, entry_id, str(exc), "error", draft=text, status=409)
    except (PiMemoryError, OSError) as exc:
        return draw(app, layer, entry_id, f"Not saved: {exc}", "error", draft=text, status=400)
    return _back(app, layer, entry_id, "edited")


def supersede(request: Request) -> Response:
    from pi_memory import memory_edits
    from pi_memory.errors import PiMemoryError

    app = request.app
    layer, entry_id, seen = _args(request)
    store = app.store()
    current = lookup(app, layer, entry_id)
    try:
        if current is None or memory_edits.version(current) != seen:
            raise memory_edits.StaleEdit(
                f"memory {entry_id} changed on disk since this page was drawn: nothing was written"
            )
        file = current.file if store.layer(layer).files_by_category else None
        outcome = store.write(
            layer,
            request.form.get("body", ""),
            [request.form.get("keyword", current.keyword)],
            now=datetime.now(),
            file=file,
            supersedes=[current.id],
        )
    except memory_edits.StaleEdit as exc:
        app.changed()
        return draw(app, layer, entry_id, str(exc), "error", status=409)
    except (PiMemoryError, OSError) as exc:
        return draw(app, layer, entry_id, f"Not saved: {exc}", "error", status=400)
    return _back(app, layer, outcome.entry.id, "superseded")


def remove(request: Request) -> Response:
    from pi_memory import memory_edits
    from pi_memory.errors import PiMemoryError
    from pi_memory.viewer.routing import redirect

    app = request.app
    layer, entry_id, seen = _args(request)
    try:
        memory_edits.remove(app.store(), layer, entry_id, seen)
    except memory_edits.StaleEdit as exc:
        app.changed()
        return draw(app, layer, entry_id, str(exc), "error", status=409)
    except (PiMemoryError, OSError) as exc:
        return draw(app, layer, entry_id, f"Not removed: {exc}", "error", status=400)
    app.changed()
    return redirect(url(app, "/removed", layer=layer, done=entry_id))

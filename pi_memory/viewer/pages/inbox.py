"""The inbox: what the background review proposed, waiting for a person (approval mode,
``extractMemories.approval: inbox``): accept it as proposed, edit and accept, or reject."""

from __future__ import annotations

from datetime import datetime

from pi_memory.viewer.html import empty, esc, form, hidden, notice, page, url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.inbox import Item
    from pi_memory.viewer.app import App
    from pi_memory.viewer.routing import Request, Response

DONE: Final = {
    "rejected": "Rejected: the same proposal will not be staged again.",
    "accepted": "Accepted: it is a memory now.",
}


def render(request: Request, message: str = "", status: int = 200) -> Response:
    from pi_memory import inbox

    app = request.app
    store = app.store()
    items = inbox.pending(store)
    done = DONE.get(request.arg("done"), "")
    top = notice(message, "error") if message else notice(done, "ok") if done else ""
    damaged = inbox.damaged(store)
    top += "".join(notice(f"cannot read {path}", "warn") for path in damaged)
    if not items:
        return page(app, "Inbox", "/inbox", top + _empty(app), status=status)
    csrf = app.csrf.issue()
    body = top + "".join(_item(app, item, csrf) for item in items)
    return page(app, f"Inbox ({len(items)})", "/inbox", body, status=status)


def _empty(app: App) -> str:
    approval = app.opened().config.extract_memories.approval
    if approval == "inbox":
        return empty("Nothing waits for your approval.")
    return empty(
        "Nothing waits for your approval: approval mode is off, so the background review "
        'writes what it learns directly. Set "extractMemories": {"approval": "inbox"} in '
        "memory.json to approve each memory here first."
    )


def _item(app: App, item: Item, csrf: str) -> str:
    p = item.proposal
    where = f"{p.layer} layer" + (f" · {p.file}" if p.file else "")
    head = (
        f'<h2><span class="badge kw">#{esc(p.keyword)}</span> {esc(p.action)} · {esc(where)}</h2>'
        f'<p class="meta">proposed {esc(item.created)} by {esc(item.source.job)}'
        + (f" · session {esc(item.source.session[:12])}" if item.source.session else "")
        + (f" · supersedes {esc(', '.join(p.supersedes))}" if p.supersedes else "")
        + "</p>"
    )
    text = f'<pre class="text">{esc(p.text)}</pre>' if p.text else ""
    said = "".join(
        f'<li><span class="meta">{esc(m.role)}</span> {esc(m.text)}</li>'
        for m in item.source.messages
    )
    evidence = (
        f"<details><summary>From the conversation</summary><ul>{said}</ul></details>"
        if said
        else ""
    )
    ref = hidden("id", item.id)
    accept = form(app, "/inbox/accept", csrf, [ref], button="Accept")
    change = form(
        app,
        "/inbox/accept",
        csrf,
        [
            ref,
            f'<input name="keyword" value="{esc(p.keyword)}" aria-label="keyword">',
            f'<textarea name="text" aria-label="text">{esc(p.text)}</textarea>',
        ],
        button="Edit and accept",
    )
    reject = form(app, "/inbox/reject", csrf, [ref], button="Reject", danger=True)
    return (
        f'<section class="card proposal" data-item="{esc(item.id)}">{head}{text}{evidence}'
        f'<div class="actions">{accept}{change}{reject}</div></section>'
    )


def accept(request: Request) -> Response:
    from pi_memory import inbox
    from pi_memory.errors import PiMemoryError
    from pi_memory.viewer.routing import redirect

    app = request.app
    store = app.store()
    ref = request.arg("id")
    text, keyword = request.form.get("text"), request.form.get("keyword")
    edits = inbox.Edits(text=text or None, keyword=keyword or None)
    try:
        done = inbox.accept(store, ref, edits, now=datetime.now())
    except (PiMemoryError, OSError) as exc:
        app.changed()
        return render(request, f"Not accepted: {exc}", 409)
    app.changed()
    if done.written.action == inbox.WRITE:
        return redirect(
            url(app, "/memory", layer=done.written.layer, id=done.memory, done="accepted")
        )
    return redirect(url(app, "/inbox", done="accepted"))


def reject(request: Request) -> Response:
    from pi_memory import inbox
    from pi_memory.errors import PiMemoryError
    from pi_memory.viewer.routing import redirect

    app = request.app
    try:
        inbox.reject(app.store(), request.arg("id"))
    except (PiMemoryError, OSError) as exc:
        return render(request, f"Not rejected: {exc}", 409)
    app.changed()
    return redirect(url(app, "/inbox", done="rejected"))

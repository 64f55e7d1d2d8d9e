"""The memories removed from a layer that can be brought back, and the restore action."""

from __future__ import annotations

from pi_memory.viewer.html import empty, esc, form, hidden, notice, page, table, url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.viewer.routing import Request, Response


def render(request: Request) -> Response:
    from pi_memory.entry import LAYERS, USER
    from pi_memory.memory_edits import removed

    app = request.app
    layer = request.arg("layer", USER)
    layer = layer if layer in LAYERS else USER
    store = app.store()
    done = request.arg("done")
    top = notice(f"Removed {done}: restore it below if that was a mistake.", "ok") if done else ""
    csrf = app.csrf.issue()
    rows = [
        (
            esc(r.when + " UTC"),
            f'<span class="badge kw">#{esc(r.entry.keyword)}</span> '
            + esc(r.entry.name or r.entry.id),
            esc(" ".join(r.entry.body.split())[:200]),
            form(
                app,
                "/restore",
                csrf,
                [hidden("layer", layer), hidden("id", r.entry.id)],
                button="Restore",
            ),
        )
        for r in removed(store, layer)
    ]
    inner = (
        table(("removed", "memory", "text", ""), rows)
        if rows
        else empty("Nothing removed from this layer is kept.")
    )
    other = [
        f'<a href="{esc(url(app, "/removed", layer=name))}">{esc(store.label(name))}</a>'
        for name in LAYERS
    ]
    body = top + f'<p class="meta">Layers: {" · ".join(other)}</p>{inner}'
    return page(app, f"Removed from {store.label(layer)}", "/memories", body)


def restore(request: Request) -> Response:
    from pi_memory import memory_edits
    from pi_memory.errors import PiMemoryError
    from pi_memory.viewer.routing import redirect

    app = request.app
    layer, entry_id = request.arg("layer"), request.arg("id")
    try:
        memory_edits.restore(app.store(), layer, entry_id)
    except (PiMemoryError, OSError) as exc:
        return page(app, "Not restored", "/memories", notice(str(exc), "error"), status=400)
    app.changed()
    return redirect(url(app, "/memory", layer=layer, id=entry_id, done="restored"))

"""Two memories side by side, as the health check paired them: merge a near-duplicate
pair into one, or settle a conflict by superseding one side with the other."""

from __future__ import annotations

from pi_memory.viewer.html import empty, esc, form, hidden, link, notice, page, url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.entry import Entry
    from pi_memory.viewer.app import App
    from pi_memory.viewer.routing import Request, Response


def render(request: Request, message: str = "", status: int = 200) -> Response:
    from pi_memory.memory_edits import version
    from pi_memory.viewer.pages.memory import lookup

    app = request.app
    layer, a_id, b_id = request.arg("layer"), request.arg("a"), request.arg("b")
    merge = request.arg("kind") == "merge"
    title = "Merge a near-duplicate pair" if merge else "Settle a conflict"
    a, b = lookup(app, layer, a_id), lookup(app, layer, b_id)
    top = notice(message, "error") if message else ""
    if a is None or b is None:
        return page(app, title, "/", top + empty("One of these memories is gone."), status=404)
    csrf = app.csrf.issue()
    keep = [hidden("layer", layer), hidden("kind", request.arg("kind"))]
    keep += [
        hidden("a", a.id),
        hidden("b", b.id),
        hidden("va", version(a)),
        hidden("vb", version(b)),
    ]
    side = f'<div class="pair">{_side(app, a, "older")}{_side(app, b, "newer")}</div>'
    if merge:
        act = form(
            app,
            "/merge",
            csrf,
            [
                *keep,
                "<h2>Merged text</h2>",
                f'<textarea name="body" aria-label="merged text">{esc(b.body)}</textarea>',
                '<p class="meta">The newer memory takes this text; '
                "the older one is superseded by it.</p>",
            ],
            button="Merge",
        )
    else:
        act = form(
            app,
            "/resolve",
            csrf,
            [*keep, hidden("winner", b.id)],
            button="The newer is current: supersede the older",
        )
        act += form(
            app,
            "/resolve",
            csrf,
            [*keep, hidden("winner", a.id)],
            button="The older is current: supersede the newer",
        )
    return page(
        app, title, "/", top + side + f'<div class="actions card">{act}</div>', status=status
    )


def _side(app: App, entry: Entry, which: str) -> str:
    to = link(app, entry.id, "/memory", layer=entry.layer, id=entry.id)
    return (
        f'<section class="card"><h2>{esc(which)}: {to}</h2>'
        f'<p class="meta">#{esc(entry.keyword)} · {esc(entry.time)}</p>'
        f'<pre class="text">{esc(entry.body)}</pre></section>'
    )


def _settle(request: Request, body: str | None, winner: str) -> Response:
    from pi_memory import memory_edits
    from pi_memory.errors import PiMemoryError
    from pi_memory.viewer.routing import redirect

    app = request.app
    layer = request.arg("layer")
    sides = {request.arg("a"): request.arg("va"), request.arg("b"): request.arg("vb")}
    if winner not in sides or len(sides) != 2:
        return render(request, "Choose one of the two memories.", 400)
    loser = next(i for i in sides if i != winner)
    try:
        memory_edits.retire(
            app.store(), layer, (loser, sides[loser]), (winner, sides[winner]), body=body
        )
    except memory_edits.StaleEdit as exc:
        app.changed()
        return render(request, str(exc), 409)
    except (PiMemoryError, OSError) as exc:
        return render(request, f"Nothing changed: {exc}", 400)
    app.changed()
    done = "merged" if body is not None else "resolved"
    return redirect(url(app, "/memory", layer=layer, id=winner, done=done))


def merge(request: Request) -> Response:
    return _settle(request, request.form.get("body", ""), request.arg("b"))


def resolve(request: Request) -> Response:
    return _settle(request, None, request.arg("winner"))

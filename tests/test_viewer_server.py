"""The viewer's server over real HTTP on 127.0.0.1: its gate, its pages and its actions.

Each test runs ``python -m pi_memory ui`` in its own process against a store
written by the engine, and talks to it as a browser (or an attacker) would.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from tests.viewerhelp import Viewer, form_fields, start


def _store(project: Path):  # type: ignore[no-untyped-def]
    from pi_memory.open_store import open_store

    return open_store(project, warn=False).store


def _write(project: Path, body: str, keyword: str, layer: str = "project") -> str:
    return _store(project).write(layer, body, [keyword], now=datetime.now()).entry.id


@pytest.fixture
def project(repo: Path) -> Path:
    return repo


@pytest.fixture
def viewer(project: Path):  # type: ignore[no-untyped-def]
    _write(project, "Deploy with make deploy; staging listens on port 5433", "deploy")
    _write(project, "Prefer small commits with messages that say why", "style", "user")
    with start(project) as running:
        yield running


def test_the_first_line_is_a_loopback_url_with_a_token(viewer: Viewer) -> None:
    assert viewer.url.startswith("http://127.0.0.1:")
    assert len(viewer.token) >= 30
    page = viewer.overview()
    assert page.status == 200
    assert "conflicts" in page.text
    assert 'data-layer="user"' in page.text and 'data-layer="project"' in page.text
    assert "Model spend today" in page.text and "Pending jobs" in page.text


@pytest.mark.parametrize("path", ["/", "/memories", "/static/style.css", "/nowhere"])
def test_a_request_without_the_token_is_refused(viewer: Viewer, path: str) -> None:
    assert viewer.request("GET", path).status == 403
    assert viewer.request("GET", f"{path}?t=wrong{viewer.token}").status == 403
    assert viewer.request("GET", f"{path}?t={viewer.token[:-1]}").status == 403


def test_a_post_without_the_token_is_refused(viewer: Viewer) -> None:
    answer = viewer.request("POST", "/edit", body=b"id=x", headers={"Content-Length": "4"})
    assert answer.status == 403


def test_a_foreign_host_is_refused_dns_rebinding(viewer: Viewer) -> None:
    path = f"/?t={viewer.token}"
    evil = f"evil.example:{viewer.port}"
    assert viewer.request("GET", path, headers={"Host": evil}).status == 403
    assert viewer.request("GET", path, headers={"Host": "127.0.0.1:1"}).status == 403
    assert viewer.request("GET", path, headers={"Host": f"localhost:{viewer.port}"}).status == 200


def test_a_cross_site_request_is_refused(viewer: Viewer) -> None:
    path = f"/memories?t={viewer.token}"
    assert viewer.request("GET", path, headers={"Origin": "http://evil.example"}).status == 403
    page = viewer.get("/memory", layer="project", id=_first_id(viewer, "deploy"))
    fields = {**form_fields(page.text, "/edit"), "body": "changed by a foreign page"}
    assert viewer.post("/edit", fields, Origin="http://evil.example").status == 403
    assert viewer.post("/edit", fields, Origin="null").status == 403
    assert viewer.post("/edit", fields, **{"Sec-Fetch-Site": "cross-site"}).status == 403
    assert "changed by a foreign page" not in _all_bodies(viewer.project)


def test_a_post_without_a_known_csrf_token_is_refused(viewer: Viewer) -> None:
    page = viewer.get("/memory", layer="project", id=_first_id(viewer, "deploy"))
    fields = {**form_fields(page.text, "/edit"), "body": "changed without a token"}
    missing = {k: v for k, v in fields.items() if k != "csrf"}
    assert viewer.post("/edit", missing).status == 403
    assert viewer.post("/edit", {**fields, "csrf": "made-up"}).status == 403
    assert "changed without" not in _all_bodies(viewer.project)


def test_an_oversized_body_is_refused_unread(viewer: Viewer) -> None:
    page = viewer.get("/memory", layer="project", id=_first_id(viewer, "deploy"))
    fields = {**form_fields(page.text, "/edit"), "body": "x" * 70_000}
    answer = viewer.post("/edit", fields)
    assert answer.status == 413
    assert "x" * 100 not in _all_bodies(viewer.project)


def test_an_edit_is_saved_with_a_rollback_point(viewer: Viewer) -> None:
    entry_id = _first_id(viewer, "deploy")
    page = viewer.get("/memory", layer="project", id=entry_id)
    fields = form_fields(page.text, "/edit")
    fields["body"] = "Deploy with make ship; staging listens on 5434"
    answer = viewer.post("/edit", fields)
    assert answer.status == 303
    assert "make ship" in _all_bodies(viewer.project)
    after = viewer.request("GET", answer.headers["Location"])
    assert "Saved." in after.text
    assert entry_id in answer.headers["Location"]
    history = after.text.split("<h2>History</h2>")[1]
    assert "make deploy" in history  # the text before the edit, from the rollback point


def test_a_stale_edit_is_refused_and_the_other_write_kept(viewer: Viewer) -> None:
    entry_id = _first_id(viewer, "deploy")
    page = viewer.get("/memory", layer="project", id=entry_id)
    fields = {**form_fields(page.text, "/edit"), "body": "my edit from an old page"}
    # A hook writes the same memory again meanwhile: it is re-confirmed (seen 2).
    _write(viewer.project, "Deploy with make deploy; staging listens on port 5433", "deploy")
    answer = viewer.post("/edit", fields)
    assert answer.status == 409
    assert "changed on disk since this page was drawn" in answer.text
    assert "my edit from an old page" in answer.text  # the person's text is not lost
    assert "my edit from an old page" not in _all_bodies(viewer.project)
    entry = next(e for e in _store(viewer.project).read("project") if e.id == entry_id)
    assert entry.seen == 2


def test_stored_text_is_escaped_never_markup(project: Path) -> None:
    entry_id = _write(project, 'Beware <script>alert("x")</script> and \u202eevil', "hostile")
    with start(project) as viewer:
        for page in (viewer.get("/memories"), viewer.get("/memory", layer="project", id=entry_id)):
            assert "<script>alert" not in page.text
            assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page.text
            assert "\u202e" not in page.text
            assert "\\u202eevil" in page.text
            assert page.headers["Content-Security-Policy"].startswith("default-src 'none'")


def test_the_search_is_the_search_command(viewer: Viewer) -> None:
    import json

    from tests.clihelp import run_cli

    _write(viewer.project, "The cache moved to redis on port 6379", "cache")
    page = viewer.get("/memories", q="port staging")
    cli = json.loads(run_cli("search", "--json", "port", "staging", cwd=viewer.project).out)
    ids = [hit["id"] for hit in cli["results"]]
    shown = [i for i in _ids(page.text) if i in ids]
    assert shown == ids and len(ids) == 2
    assert f'data-total="{cli["total"]}"' in page.text
    only_user = viewer.get("/memories", layer="user")
    assert "small commits" in only_user.text and "make deploy" not in only_user.text


def test_remove_then_restore(viewer: Viewer) -> None:
    entry_id = _first_id(viewer, "deploy")
    page = viewer.get("/memory", layer="project", id=entry_id)
    assert viewer.post("/remove", form_fields(page.text, "/remove")).status == 303
    assert "make deploy" not in _all_bodies(viewer.project)
    listing = viewer.get("/removed", layer="project")
    assert entry_id in listing.text
    assert viewer.post("/restore", form_fields(listing.text, "/restore")).status == 303
    assert "make deploy" in _all_bodies(viewer.project)


def test_supersede_writes_a_new_memory_that_retires_the_old(viewer: Viewer) -> None:
    entry_id = _first_id(viewer, "deploy")
    page = viewer.get("/memory", layer="project", id=entry_id)
    fields = form_fields(page.text, "/supersede")
    fields.update(keyword="deploy", body="Deploy with make ship")
    assert viewer.post("/supersede", fields).status == 303
    entries = {e.id: e for e in _store(viewer.project).read("project")}
    assert entries[entry_id].superseded_by
    assert entries[entries[entry_id].superseded_by].body == "Deploy with make ship"


def test_a_conflict_is_settled_by_superseding_one_side(project: Path) -> None:
    older = _write(project, "The staging database listens on port 5432", "database")
    newer = _write(project, "The staging database listens on port 6543", "database")
    with start(project) as viewer:
        overview = viewer.overview()
        assert "Conflicts" in overview.text
        page = viewer.get("/pair", layer="project", kind="conflict", a=older, b=newer)
        assert viewer.post("/resolve", form_fields(page.text, "/resolve")).status == 303
    entries = {e.id: e for e in _store(project).read("project")}
    assert entries[older].superseded_by == newer
    assert older in entries[newer].supersedes


def test_a_near_duplicate_pair_is_merged(project: Path) -> None:
    a = _write(project, "Run the unit tests with pytest -q before every commit", "testing")
    b = _write(project, "Run unit tests with pytest -q before each commit please", "testing")
    with start(project) as viewer:
        page = viewer.get("/pair", layer="project", kind="merge", a=a, b=b)
        fields = {**form_fields(page.text, "/merge"), "body": "Run pytest -q before every commit"}
        assert viewer.post("/merge", fields).status == 303
    entries = {e.id: e for e in _store(project).read("project")}
    assert entries[a].superseded_by == b
    assert entries[b].body == "Run pytest -q before every commit"


def test_every_page_draws(viewer: Viewer) -> None:
    for path in ("/", "/memories", "/inbox", "/sessions", "/spend", "/removed"):
        page = viewer.get(path)
        assert page.status == 200, (path, page.text)
        assert "<nav>" in page.text
    assert viewer.get("/sessions", q="nothing said").status == 200
    assert viewer.get("/static/app.js").status == 200


def _first_id(viewer: Viewer, keyword: str) -> str:
    return next(e.id for e in _store(viewer.project).read("project") if e.keyword == keyword)


def _ids(text: str) -> list[str]:
    import re

    return re.findall(r'data-id="([^"]+)"', text)


def _all_bodies(project: Path) -> str:
    return "\n".join(e.body for e in _store(project).read_all())


def test_the_chart_draws_the_cap_or_says_where_it_is() -> None:
    from pi_memory.viewer.chart import spend_chart

    days = ["2026-12-01", "2026-12-02"]
    tokens = {"2026-12-01": {"review": 40_000, "compact": 5_000}}
    near = spend_chart(days, tokens, 60_000)
    assert near.count('class="cap"') == 1 and "daily cap 60,000" in near
    assert near.count("<rect") == 2
    assert "<title>2026-12-01 · review: 40,000 tokens</title>" in near
    far = spend_chart(days, tokens, 2_000_000)
    assert 'class="cap"' not in far and "daily cap 2,000,000: far above" in far
    assert 'class="cap"' in spend_chart(days, {}, 60_000)  # nothing spent: the cap alone


def test_receipts_show_on_the_memory_and_in_the_timeline(project: Path) -> None:
    from pi_memory import receipts

    entry_id = _write(project, "Deploy with make deploy; staging listens on port 5433", "deploy")
    given = receipts.made(
        receipts.HOOK,
        receipts.SURFACE,
        host="claude-code",
        session="session-one",
        text="<relevant_memories>…</relevant_memories>",
        ids=(entry_id,),
        layers=("project",),
    )
    assert receipts.append(given)
    with start(project) as viewer:
        page = viewer.get("/memory", layer="project", id=entry_id)
        mine = page.text.split("<h2>Receipts</h2>")[1]
        assert "surfaced 1 memory" in mine and "claude-code" in mine
        timeline = viewer.get("/sessions")
        assert 'data-host="claude-code"' in timeline.text
        assert "session-one" in timeline.text and "1 surfaced" in timeline.text


def test_suspect_memories_are_marked_and_can_be_listed_alone(tmp_path: Path) -> None:
    from tests.test_anchors import commit_file, git
    from tests.test_suspect import made_suspect

    root = tmp_path / "anchored"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, "src/deploy.py", "def deploy_all():\n    return 3\n")
    suspect, fresh = made_suspect(root)
    with start(root) as viewer:
        everything = viewer.get("/memories")
        assert suspect in everything.text and fresh in everything.text
        assert 'title="src/deploy.py changed since">suspect</span>' in everything.text
        only = viewer.get("/memories", suspect="only")
        assert _ids(only.text) == [suspect]


def test_the_actions_work_on_the_files_layout(project: Path, hermetic_home: Path) -> None:
    import json

    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"layout": "files"}), "utf-8")
    entry_id = _write(project, "Deploy with make deploy; staging listens on port 5433", "deploy")
    with start(project) as viewer:
        page = viewer.get("/memory", layer="project", id=entry_id)
        assert ".md</code>" in page.text  # the memory's own file
        fields = {**form_fields(page.text, "/edit"), "body": "Deploy with make ship"}
        assert viewer.post("/edit", fields).status == 303
        assert "Deploy with make ship" in _all_bodies(project)
        page = viewer.get("/memory", layer="project", id=entry_id)
        assert viewer.post("/remove", form_fields(page.text, "/remove")).status == 303
        assert "make ship" not in _all_bodies(project)
        listing = viewer.get("/removed", layer="project")
        assert viewer.post("/restore", form_fields(listing.text, "/restore")).status == 303
        assert "Deploy with make ship" in _all_bodies(project)


def _stage(project: Path, *proposals: tuple[str, str]) -> list[str]:
    from pi_memory import inbox

    staged = inbox.stage(
        _store(project),
        [inbox.Proposal("project", inbox.WRITE, keyword, text) for keyword, text in proposals],
        inbox.Source("extract", "session-one"),
        now=datetime.now(),
    )
    return [item.id for item in staged.items]


def test_an_inbox_item_is_accepted_edited_or_rejected(project: Path) -> None:
    from pi_memory import inbox

    plain, edited, dropped = _stage(
        project,
        ("deploy", "Deploy with make deploy"),
        ("cache", "The cache is redis, keys expire after 15 minutes"),
        ("noise", "The user greets <b>everyone</b>"),
    )
    with start(project) as viewer:
        page = viewer.get("/inbox")
        assert all(f'data-item="{i}"' in page.text for i in (plain, edited, dropped))
        assert "&lt;b&gt;everyone&lt;/b&gt;" in page.text
        csrf = form_fields(page.text, "/inbox/accept")["csrf"]
        assert viewer.post("/inbox/accept", {"csrf": csrf, "id": plain}).status == 303
        text = "The cache is redis; keys expire after 10 minutes"
        changed = {"csrf": csrf, "id": edited, "text": text, "keyword": "cache"}
        assert viewer.post("/inbox/accept", changed).status == 303
        assert viewer.post("/inbox/reject", {"csrf": csrf, "id": dropped}).status == 303
        assert viewer.post("/inbox/reject", {"csrf": csrf, "id": dropped}).status == 409
        assert "Nothing waits for your approval" in viewer.get("/inbox").text
    bodies = _all_bodies(project)
    assert "Deploy with make deploy" in bodies and text in bodies and "greets" not in bodies
    assert inbox.pending(_store(project)) == []

"""The viewer in a real browser: headless Chromium through the main flows.

Open the overview, search, open a memory and edit it, see the inbox, the
sessions and the spend chart, checking the DOM at each step and keeping a
screenshot of each page in a directory the test prints (and names in its
failure messages). A memory holding a script shows as text and never runs.

Needs Chromium (Debian: ``apt-get install chromium``); without it this test
fails, never passes: ``.ci/run`` installs it where it can, and says NOT RUN
and leaves this test out where it cannot.
"""

from __future__ import annotations

import os
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from tests.devtools import Page, chromium, find_chromium
from tests.viewerhelp import Viewer, start

SHOTS = Path(tempfile.gettempdir()) / "pi_memory-viewer-screenshots"


def _prepare(project: Path) -> None:
    import json

    from pi_memory import inbox, receipts
    from pi_memory.model import ledger
    from pi_memory.open_store import open_store

    config = Path(os.environ["HOME"], ".pi/agent/memory.json")
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"dailyTokenCap": 80_000}), "utf-8")
    opened = open_store(project, warn=False)
    assert opened.config.daily_token_cap == 80_000
    store, now = opened.store, datetime.now()
    deploy = store.write(
        "project", "Deploy with make deploy; staging listens on port 5433", ["deploy"], now=now
    ).entry.id
    store.write(
        "project", "Tests run with pytest -q; the slow ones are marked", ["testing"], now=now
    )
    store.write("user", "Prefer small commits whose messages say why", ["style"], now=now)
    store.write("project", "Never <script>window.pwned=1</script> here", ["hostile"], now=now)
    for event, ids in ((receipts.INJECT, ()), (receipts.SURFACE, (deploy,))):
        given = receipts.made(
            receipts.HOOK, event, host="claude-code", session="a1b2c3", text="…", ids=ids
        )
        assert receipts.append(given)
    proposal = inbox.Proposal("project", inbox.WRITE, "release", "Releases are tagged on Fridays")
    assert inbox.stage(store, [proposal], inbox.Source("extract", "a1b2c3"), now=now).items
    directory = ledger.directory(opened.config)
    today = ledger.now_local()
    for back, job, tokens in ((0, "review", 41_000), (0, "compact", 9_000), (1, "review", 23_000)):
        when = today - timedelta(days=back) if today.day > back else today
        line = ledger.LedgerLine(ledger.stamp(when), job, "fake-model", tokens, tokens // 10, 900)
        ledger.record(directory, line)


def _shot(page: Page, name: str) -> Path:
    SHOTS.mkdir(exist_ok=True)
    return page.screenshot(SHOTS / f"{name}.png")


def test_the_main_flows_in_chromium(repo: Path) -> None:
    executable = find_chromium()
    assert executable, "Chromium is not installed: apt-get install chromium (see .ci/run)"
    print(f"screenshots: {SHOTS}")
    _prepare(repo)
    with start(repo) as viewer, chromium(executable) as page:
        _overview(page, viewer)
        _search(page, viewer)
        _edit(page, viewer)
        _hostile(page, viewer)
        _other_pages(page, viewer)


def _overview(page: Page, viewer: Viewer) -> None:
    viewer.overview()  # the health is worked out: the page the browser gets is whole
    page.open(viewer.url)
    assert page.evaluate("document.querySelectorAll('.working').length") == 0
    assert page.evaluate("document.title") == "Overview · pi_memory"
    assert page.evaluate("document.querySelectorAll('section[data-layer]').length") == 2
    _shot(page, "overview")
    cards = page.evaluate("document.querySelector('main').innerText")
    assert "Model spend today" in cards
    assert "55,000 tokens of the 80,000 daily cap" in cards  # 41,000 + 4,100 and 9,000 + 900
    # The stylesheet came from the package: the header is laid out by it.
    assert page.evaluate("getComputedStyle(document.querySelector('header')).display") == "flex"


def _search(page: Page, viewer: Viewer) -> None:
    page.loads("document.querySelector('nav a[href^=\"/memories\"]').click()")
    page.evaluate("document.querySelector('form.search input[type=search]').focus()")
    page.type_text("staging port")
    page.loads("document.querySelector('form.search button').click()")
    assert "q=staging+port" in page.evaluate("location.search")
    found = page.evaluate("[...document.querySelectorAll('li.memory')].map(li => li.innerText)")
    assert found and "make deploy" in found[0], found
    _shot(page, "memories")


def _edit(page: Page, viewer: Viewer) -> None:
    page.loads("document.querySelector('li.memory a').click()")
    assert "make deploy" in page.evaluate("document.getElementById('text').innerText")
    page.evaluate(
        "const box = document.querySelector('form[action^=\"/edit\"] textarea');"
        "box.focus(); box.select();"
    )
    page.type_text("Deploy with make ship; staging listens on port 5434")
    page.loads("document.querySelector('form[action^=\"/edit\"] button').click()")
    notice = page.evaluate("document.querySelector('.notice').innerText")
    assert notice.startswith("Saved."), notice
    assert "make ship" in page.evaluate("document.getElementById('text').innerText")
    assert "make deploy" in page.evaluate("document.querySelector('table').innerText")  # history
    _shot(page, "memory")
    from pi_memory.open_store import open_store

    bodies = [e.body for e in open_store(viewer.project, warn=False).store.read("project")]
    assert "Deploy with make ship; staging listens on port 5434" in bodies


def _hostile(page: Page, viewer: Viewer) -> None:
    page.open(viewer.url.replace("/?", "/memories?q=pwned&"))
    text = page.evaluate("document.querySelector('li.memory').innerText")
    assert "<script>window.pwned=1</script>" in text
    assert page.evaluate("typeof window.pwned") == "undefined"


def _other_pages(page: Page, viewer: Viewer) -> None:
    page.loads("document.querySelector('nav a[href^=\"/inbox\"]').click()")
    assert page.evaluate("document.querySelector('h1').innerText") == "Inbox (1)"
    _shot(page, "inbox")
    page.loads("document.querySelector('form[action^=\"/inbox/accept\"] button').click()")
    notice = page.evaluate("document.querySelector('.notice').innerText")
    assert notice.startswith("Accepted from the inbox"), notice
    assert "tagged on Fridays" in page.evaluate("document.getElementById('text').innerText")
    page.loads("document.querySelector('nav a[href^=\"/sessions\"]').click()")
    assert page.evaluate("document.querySelector('h1').innerText") == "Sessions"
    timeline = page.evaluate("document.querySelector('section[data-host]').innerText")
    assert "claude-code" in timeline and "1 surfaced" in timeline, timeline
    _shot(page, "sessions")
    page.loads("document.querySelector('nav a[href^=\"/spend\"]').click()")
    bars = page.evaluate("document.querySelectorAll('svg.chart rect').length")
    assert bars >= 2, bars
    assert page.evaluate("document.querySelectorAll('svg.chart line.cap').length") == 1
    assert "review" in page.evaluate("document.querySelector('.legend').innerText")
    _shot(page, "spend")
    page.prefer_dark()
    page.open(viewer.url.replace("/?", "/memories?"))
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(22, 23, 26)", background  # the dark scheme's --bg
    _shot(page, "memories-dark")

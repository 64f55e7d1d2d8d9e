"""``python -m pi_memory ui``: a local viewer of the memories, in the browser.

An adapter beside the command line: a threaded standard-library HTTP server on
the loopback interface (:mod:`.server`), a request gate that checks the token,
``Host``, ``Origin``, the CSRF token and the body size before anything else
runs (:mod:`.security`), a table of pages (:mod:`.routing`), one module per
page under :mod:`.pages`, the HTML helpers that escape every stored text
(:mod:`.html`), and the spend chart drawn as SVG (:mod:`.chart`). The stylesheet
and script are package data under ``static/``: no CDN, no build step, offline.
Every change goes through the engine (:mod:`pi_memory.memory_edits`,
:meth:`pi_memory.store.Store.write`), as the command line's do.
"""

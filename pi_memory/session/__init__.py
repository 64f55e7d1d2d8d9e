"""What one agent session remembers between its hook processes.

Every hook is a new interpreter, so what the extensions kept in process memory
lives in a small directory per session under the user's cache directory
(``<cache>/sessions/<session key>/``), never inside a memory layer:

``state.json``
    The session's state as one record (:mod:`pi_memory.session.state`): the
    injection frozen at session start, whether the next prompt carries it
    again, Gemini CLI's compression watch, the memories surfaced so far and
    the review gate (:mod:`pi_memory.session.gate`). A hook loads it once,
    decides with pure functions and saves it once.
``jobs/``
    Job records of background work for this session (:mod:`pi_memory.jobs.records`).

All of it is derived state: deleting it costs one re-render or one review,
never a memory. Files are replaced atomically without fsync (disposable), and
directories untouched for ``sessionDays`` days are pruned
(:mod:`pi_memory.session.dirs`).
"""

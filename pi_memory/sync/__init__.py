"""``sync``: the user layer kept in a git repository with a remote, on every machine.

:mod:`pi_memory.sync.git` runs git (a timeout, never a prompt),
:mod:`pi_memory.sync.merge` merges two copies of a layer by the layout's own rules,
and :mod:`pi_memory.sync.run` is the one flow: fetch, merge under the layer's lock,
push, and only then change the layer.
"""

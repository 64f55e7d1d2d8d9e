"""Naming: where memories live, and what their files and directories are called.

One module per concept, each importable on its own (a hook imports only what
its layout needs):

- :mod:`~pi_memory.naming.platforms`: the naming platform (``linux``, ``darwin``, ``win32``);
- :mod:`~pi_memory.naming.windows`: device names and trailing dots and spaces;
- :mod:`~pi_memory.naming.graphemes`: grapheme clusters, so a cut never splits one;
- :mod:`~pi_memory.naming.dir_names`: a project key as one bounded directory name;
- :mod:`~pi_memory.naming.entry_names`: the ``files`` layout's entry file names;
- :mod:`~pi_memory.naming.whatwg_url`: the part of the WHATWG URL parser a remote needs;
- :mod:`~pi_memory.naming.remote_url`: the ``host/owner/repo`` key of a git remote;
- :mod:`~pi_memory.naming.git_repo`: finding a work tree by reading ``.git``;
- :mod:`~pi_memory.naming.git_config`: git config files and a repository's remotes;
- :mod:`~pi_memory.naming.project_key`: project identity and its memory directory;
- :mod:`~pi_memory.naming.home`: the home directory and ``~`` in configured paths;
- :mod:`~pi_memory.naming.layer_dirs`: where each layer of a store lives.

Every naming rule is a pure function that takes the platform as an argument,
so the Windows rules are tested on any machine. Only the git readers touch
the disk: they read ``.git`` and the config file directly, because a hook
runs on every prompt and cannot afford a ``git`` subprocess.
"""

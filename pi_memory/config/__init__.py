"""Configuration: ``memory.json``, the environment, and the models tasks run with.

- :mod:`~pi_memory.config.defaults`: every default, in one table (imports nothing);
- :mod:`~pi_memory.config.schema`: the settings records and the names they allow;
- :mod:`~pi_memory.config.reader`: typed reading of values, collecting errors and warnings;
- :mod:`~pi_memory.config.parse`: one merged ``memory.json`` dictionary into a ``Config``;
- :mod:`~pi_memory.config.env_overlay`: pi-memory-auto's environment variables over it;
- :mod:`~pi_memory.config.trust`: which projects' own ``memory.json`` is read;
- :mod:`~pi_memory.config.load`: the files found, read and merged for a process;
- :mod:`~pi_memory.config.render`: a ``Config`` back in ``memory.json`` shape;
- :mod:`~pi_memory.config.messages`: what a user sees of a misconfigured store;
- :mod:`~pi_memory.config.layout_setting`: what the ``layout`` setting decides outside
  the layouts;
- :mod:`~pi_memory.config.models`: which model a task runs with, and whether it resolves.
"""

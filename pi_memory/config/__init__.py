"""Configuration: ``memory.json``, the environment, and the models tasks run with.

- :mod:`~pi_memory.config.defaults`: every default, in one table (imports nothing);
- :mod:`~pi_memory.config.config`: the settings records, reading and merging the
  files, and rendering them back in ``memory.json`` shape;
- :mod:`~pi_memory.config.models`: which model a task runs with, and whether it resolves.
"""

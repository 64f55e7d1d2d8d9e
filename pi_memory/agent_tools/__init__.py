"""The agent tools: what the model can call, one module per tool.

Each tool module holds the tool's declaration (``SPEC``: description and JSON
schema), its argument checks and its action (``run``: arguments in, ``(ok,
text)`` out). :mod:`pi_memory.agent_tools.registry` lists them, says which a
store offers and runs one call. The adapters — the MCP server
(:mod:`pi_memory.hosts.mcp`) and ``python -m pi_memory tool``, which the pi
extension spawns — import this package; it imports the engine below it.
"""

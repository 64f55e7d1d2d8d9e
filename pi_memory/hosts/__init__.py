"""Adapters for the agents: hook dispatch, output shapes, the MCP server, installers."""

from __future__ import annotations

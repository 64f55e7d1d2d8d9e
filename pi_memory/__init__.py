"""pi_memory: persistent Markdown memory for AI coding agents."""

from __future__ import annotations

__version__ = "0.1.0"

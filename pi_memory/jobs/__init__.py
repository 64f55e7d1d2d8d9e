"""What runs outside the conversation: background jobs, their records and worker, session state."""

from __future__ import annotations

from __future__ import annotations

from pi_memory.cli import main

raise SystemExit(main())

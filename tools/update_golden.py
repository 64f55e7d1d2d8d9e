"""Regenerate the expected outputs of the categories-layout, transcript and install golden files.

Run it only after a deliberate format change, then read every diff: the golden
files are the specification, this script only saves typing.

    python tools/update_golden.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import golden_install, golden_transcripts  # noqa: E402
from tests.golden_categories import CASES_DIR, expected_outputs  # noqa: E402


def main() -> int:
    for source in sorted(CASES_DIR.glob("*.md")):
        if source.name.count(".") > 1:
            continue
        for suffix, data in expected_outputs(source).items():
            target = source.with_name(source.stem + suffix)
            if isinstance(data, bytes):
                target.write_bytes(data)
            else:
                target.write_text(json.dumps(data, indent=1) + "\n", "utf-8")
            print(target.relative_to(ROOT))
    for sample in golden_transcripts.samples():
        target = golden_transcripts.golden_path(sample)
        target.write_text(golden_transcripts.expected_text(sample), "utf-8")
        print(target.relative_to(ROOT))
    for case in golden_install.cases():
        golden_install.write_expected(case, installed(case))
        print(golden_install.CASES_DIR.relative_to(ROOT) / case / "after")
    return 0


def installed(case: str) -> dict[str, bytes]:
    """The files after ``install`` of ``case``, in a scratch HOME."""
    import os
    import tempfile

    saved = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
            os.environ.pop(name, None)
        os.environ["HOME"] = str(home)
        try:
            repo = golden_install.lay_out(case, Path(tmp), home)
            golden_install.install(case, repo)
            return golden_install.state(Path(tmp), home)
        finally:
            os.environ.clear()
            os.environ.update(saved)


if __name__ == "__main__":
    raise SystemExit(main())

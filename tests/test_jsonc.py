"""JSON with comments, as Gemini CLI reads its settings: read, and edited in place."""

from __future__ import annotations

import json

import pytest

from pi_memory.hosts.jsonc import loads, parse, splice

TEXT = """// top
{
  "url": "https://example.com/a//b", /* not a comment: "in a string" */
  "list": [1, /* two */ 2],
  "nested": {
      "deep": "x" // four spaces here
  }
}
"""


def test_comments_are_skipped_and_strings_are_not_comments() -> None:
    expected = {"url": "https://example.com/a//b", "list": [1, 2], "nested": {"deep": "x"}}
    assert loads(TEXT) == expected


@pytest.mark.parametrize(
    "text", ['{"a": 1,}', '{"a": 1 /* open', '{"a" 1}', '{"a": 1} x', "[1 2]", "{", ""]
)
def test_what_gemini_would_refuse_is_an_error(text: str) -> None:
    with pytest.raises(ValueError, match="at line 1"):
        parse(text)


def test_an_edit_changes_its_own_lines_only_and_undoing_it_gives_the_text_back() -> None:
    data = loads(TEXT)
    new = json.loads(json.dumps(data))
    new["list"].append(3)
    new["nested"]["more"] = {"k": [True]}
    new["added"] = None
    edited = splice(TEXT, parse(TEXT), new)
    assert loads(edited) == new
    assert edited.startswith('// top\n{\n  "url": "https://example.com/a//b", /* not a comment')
    assert '      "deep": "x",\n      "more": {\n          "k": [\n' in edited  # its indent
    assert splice(edited, parse(edited), data) == TEXT


def test_a_value_that_changes_shape_is_written_afresh_in_place() -> None:
    edited = splice(TEXT, parse(TEXT), {**loads(TEXT), "list": {"a": 1}})
    assert '  "list": {\n    "a": 1\n  },\n' in edited
    assert edited.endswith('"deep": "x" // four spaces here\n  }\n}\n')

from __future__ import annotations

import pytest

from pi_memory.truncation import truncation_issue


@pytest.mark.parametrize(
    "text",
    [
        "Deploy with `rsync --delete`; back up the previous release first.",
        "Brackets (round), [square] and {curly} are closed.",
        "Nested ([{ok}]) and done.",
        "Steps: 1) build 2) test 3) ship.",
        "Smile :) it closes nothing.",
        "Code may hold anything: `f(x` and `a[`.",
        "```python\nprint(\n```\nThe fence above is closed.",
        "````\n```\nnested fence\n```\n````",
        "Double ``code with ` inside`` spans.",
        'He said "ship it".',
        "A colon inside: like this one is fine.",
        "部署时先备份（上一个版本）。",
        "Trailing spaces are ignored.   \n\n",
        "Ends with a closing bracket (like this)",
        "Ends with code `x(`",
    ],
)
def test_complete_text(text: str) -> None:
    assert truncation_issue(text) is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty text"),
        ("   \n", "empty text"),
        ("Use `rsync --delete", "unclosed code span (` is never closed)"),
        ("Run ``make", "unclosed code span (`` is never closed)"),
        ("```bash\nrsync -a src/ dst/\n", "unclosed code block (``` is never closed)"),
        ("Call deploy(target, retries", "unbalanced '(': opened and never closed"),
        ("See [the docs for details", "unbalanced '[': opened and never closed"),
        ("config {a: 1, b: 2", "unbalanced '{': opened and never closed"),
        ("部署时先备份（上一个版本", "unbalanced '（': opened and never closed"),
        ("Outer (inner) and (cut", "unbalanced '(': opened and never closed"),
        ("Mismatched (closer] never closes", "unbalanced '(': opened and never closed"),
        ("Before deploying, run these:", "ends with ':', as if more were to follow"),
        ("Deploy with rsync,", "ends with ',', as if more were to follow"),
        ("Deploy with rsync;", "ends with ';', as if more were to follow"),
        ("a long shell line \\", "ends with '\\\\', as if more were to follow"),
        ("部署时先备份，", "ends with '，', as if more were to follow"),
        ("The value is <", "ends with an opening '<'"),
        ("He said “", "ends with an opening '“'"),
        ('He said "', "ends with an opening '\"'"),
        ("The list「", "ends with an opening '「'"),
    ],
)
def test_truncated_text(text: str, reason: str) -> None:
    assert truncation_issue(text) == reason


def test_trailing_opener_inside_balanced_text_is_reported_as_unbalanced() -> None:
    # A text ending in "(" has an unclosed bracket first: that is the clearer reason.
    assert truncation_issue("Deploy (") == "unbalanced '(': opened and never closed"


def test_long_text_with_many_spans_is_linear() -> None:
    text = "word `code` " * 20000 + "end."
    assert truncation_issue(text) is None
    assert truncation_issue(text + " `open") == "unclosed code span (` is never closed)"


@pytest.mark.parametrize(
    "text",
    [
        "Errors print in \x1b[31mred\x1b[0m.",  # CSI: ESC [ is no bracket
        "The title is set with \x1b]0;name\x07 by the shell.",  # OSC: ESC ] closes nothing
    ],
)
def test_a_terminal_escape_is_not_a_bracket(text: str) -> None:
    """ESC [ and ESC ] introduce a terminal escape sequence; reporting one as an unbalanced
    bracket called a complete body "truncated" and hid why it was odd."""
    assert truncation_issue(text) is None
    # Nor does an escape's bracket close a real one.
    assert truncation_issue("[" + text) == "unbalanced '[': opened and never closed"

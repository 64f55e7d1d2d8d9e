"""Is a memory body complete? Text cut off mid-way is rejected, not stored.

A body that a model's output limit or a transcript cap cut short reads as a
fact but is missing its end. Three signs give it away: a code span or block
that is never closed, a bracket that is opened and never closed, and text that
ends on something that announces more to come.

Deliberate choices:

- A closing bracket without an opener is fine: ``1) build 2) test`` and ``:)``
  are ordinary prose, and cutting text short never adds a closer.
- Brackets inside code are not counted (``f(x`` in code is the code's business),
  nor the ``[`` or ``]`` that introduces a terminal escape sequence (``ESC [``,
  ``ESC ]``): calling such a body truncated would hide what is odd about it.
- A trailing colon counts as cut off: a memory that ends in ``Run these
  first:`` lost the list it announced. So do a trailing comma, semicolon,
  backslash, opening bracket or opening quote.
- Straight quotes are ambiguous (a trailing ``"`` usually closes), so one
  counts only when it is the last character and leaves an odd number of them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["truncation_issue"]

_PAIRS: Final = {"(": ")", "[": "]", "{": "}", "（": "）", "【": "】", "［": "］", "｛": "｝"}
_CLOSERS: Final = {closer: opener for opener, closer in _PAIRS.items()}
_TRAILING_OPENERS: Final = frozenset("([{<“‘«「『（【［｛《〈")
_TRAILING_CONTINUATIONS: Final = frozenset(",;:\\，、；：")


def _strip_code(text: str) -> tuple[str, str | None]:
    """The text with code spans and fenced blocks blanked out, and a problem if any.

    One rule covers both (CommonMark's inline rule): a run of N backticks is
    closed by the next run of exactly N backticks. A fence is a run of three.
    """
    out: list[str] = []
    index = 0
    length = len(text)
    while index < length:
        start = text.find("`", index)
        if start < 0:
            out.append(text[index:])
            break
        out.append(text[index:start])
        run_end = start
        while run_end < length and text[run_end] == "`":
            run_end += 1
        run = run_end - start
        close = _find_run(text, run_end, run)
        if close < 0:
            kind = "code block" if run >= 3 else "code span"
            return "", f"unclosed {kind} ({'`' * run} is never closed)"
        out.append(" ")
        index = close + run
    return "".join(out), None


def _find_run(text: str, start: int, run: int) -> int:
    """Where the next run of exactly ``run`` backticks begins, or -1."""
    index = start
    length = len(text)
    while True:
        found = text.find("`", index)
        if found < 0:
            return -1
        end = found
        while end < length and text[end] == "`":
            end += 1
        if end - found == run:
            return found
        index = end


def _unclosed_bracket(prose: str) -> str | None:
    stack: list[str] = []
    for char in prose.replace("\x1b[", "\x1b").replace("\x1b]", "\x1b"):
        if char in _PAIRS:
            stack.append(char)
        elif char in _CLOSERS and stack and stack[-1] == _CLOSERS[char]:
            stack.pop()
    return stack[0] if stack else None


def _trailing_issue(text: str) -> str | None:
    last = text[-1]
    if last in _TRAILING_OPENERS:
        return f"ends with an opening {last!r}"
    if last in _TRAILING_CONTINUATIONS:
        return f"ends with {last!r}, as if more were to follow"
    if last == '"' and text.count('"') % 2 == 1:
        return "ends with an opening '\"'"
    return None


def truncation_issue(text: str) -> str | None:
    """Why ``text`` looks cut off, or ``None`` when it reads as complete."""
    stripped = text.rstrip()
    if not stripped.strip():
        return "empty text"
    prose, problem = _strip_code(stripped)
    if problem is not None:
        return problem
    opener = _unclosed_bracket(prose)
    if opener is not None:
        return f"unbalanced {opener!r}: opened and never closed"
    return _trailing_issue(stripped)

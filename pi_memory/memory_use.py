"""What the agent did with the memories it was given, judged from a transcript; pure.

The background review reads a session's conversation (:mod:`pi_memory.transcripts`,
what pi_memory injected already dropped) and hands it here with the session's
surfaced memories. A surfaced memory was **used** when the agent:

- named its id (a ``memory`` or ``memory_search`` call, a citation), or a tool
  result handed it back (it searched and found it);
- ran or wrote one of its code spans (a backticked command or path of at least
  :data:`MIN_SPAN` characters) in a tool call or a reply: it acted on it;
- said most of it in one reply (:data:`CITED_SHARE` of its distinctive words,
  at least :data:`MIN_OVERLAP`): it cited it.

Otherwise it was ignored. Any live memory is **repeated** when the user, after
the agent's first reply, wrote a message that says most of it again
(:data:`REPEATED_SHARE` of its distinctive words, at least :data:`MIN_OVERLAP`,
and a message not many times longer than the memory): the user had to correct
the agent with what the memory already says. Both rules lean towards silence:
a false "used" keeps a memory from the retire list, a false "repeated" offers
one promotion a person declines.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from pi_memory.recalls import REPEATED, SURFACED, USED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.entry import Entry
    from pi_memory.transcripts import Turn

#: A code span shorter than this (``ls``, ``-v``) proves nothing when it reappears.
MIN_SPAN: Final = 4
#: Distinctive words a memory and a message must share, at the least.
MIN_OVERLAP: Final = 3
#: Share of a memory's distinctive words one reply must hold to cite it.
CITED_SHARE: Final = 0.7
#: Share of a memory's distinctive words a user's message must hold to repeat it.
REPEATED_SHARE: Final = 0.6
#: A user's message more than this many times the memory's words is about more than it.
MAX_MESSAGE_RATIO: Final = 4
_SPAN: Final = re.compile(r"`([^`\n]+)`")


def words(text: str) -> frozenset[str]:
    """The distinctive words of ``text``: search tokens (stopwords dropped, Han 2-grams)."""
    from pi_memory.tokens import tokenize

    return frozenset(tokenize(text))


def _holds(memory: frozenset[str], message: frozenset[str], share: float) -> bool:
    shared = len(memory & message)
    return bool(memory) and shared >= MIN_OVERLAP and shared >= share * len(memory)


def spans(body: str) -> list[str]:
    return [span.strip() for span in _SPAN.findall(body) if len(span.strip()) >= MIN_SPAN]


def was_used(
    memory: Entry, said: Sequence[str], said_words: Sequence[frozenset[str]], results: Sequence[str]
) -> bool:
    """Whether the agent's replies and calls (``said``, and their words) or the tools'
    answers (``results``) show use."""
    if any(memory.id in text for text in said) or any(memory.id in text for text in results):
        return True
    code = spans(memory.body)
    if any(span in text for span in code for text in said):
        return True
    mine = words(memory.body)
    return any(_holds(mine, theirs, CITED_SHARE) for theirs in said_words)


def was_repeated(memory: Entry, corrections: Sequence[frozenset[str]]) -> bool:
    mine = words(memory.body)
    return any(
        _holds(mine, message, REPEATED_SHARE) and len(message) <= MAX_MESSAGE_RATIO * len(mine)
        for message in corrections
    )


def judge(
    turns: Sequence[Turn], memories: Sequence[Entry], surfaced: Collection[str]
) -> dict[str, frozenset[str]]:
    """Each judged memory's id → its verdicts in this conversation (``surfaced``,
    ``used``, ``repeated``); a memory with none is left out."""
    from pi_memory.transcripts import ASSISTANT, TOOL, USER

    said = ["\n".join((turn.text, *turn.tool_calls)) for turn in turns if turn.role == ASSISTANT]
    said_words = [words(text) for text in said]
    results = [turn.text for turn in turns if turn.role == TOOL]
    first = next((i for i, turn in enumerate(turns) if turn.role == ASSISTANT), len(turns))
    corrections = [words(turn.text) for turn in turns[first + 1 :] if turn.role == USER]
    verdicts: dict[str, frozenset[str]] = {}
    for memory in memories:
        if not memory.live:
            continue
        flags = set()
        if memory.id in surfaced:
            flags.add(SURFACED)
            if was_used(memory, said, said_words, results):
                flags.add(USED)
        if corrections and was_repeated(memory, corrections):
            flags.add(REPEATED)
        if flags:
            verdicts[memory.id] = frozenset(flags)
    return verdicts

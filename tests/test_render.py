from __future__ import annotations

from pi_memory.transcripts import Turn
from pi_memory.transcripts.render import keep_tail, serialize, structured

TURNS = [
    Turn(0, "user", "Run the tests with pnpm."),
    Turn(1, "assistant", "Running.", ('shell {"command":"pnpm test"}',)),
    Turn(2, "tool", "x" * 30, (), "shell", True),
    Turn(3, "assistant", "Fixed."),
]


def test_serialize_labels_every_message() -> None:
    assert serialize(TURNS, tool_chars=10) == (
        "[User]: Run the tests with pnpm.\n\n"
        "[Assistant]: Running.\n\n"
        '[Assistant tool calls]: shell {"command":"pnpm test"}\n\n'
        "[Tool error] shell: xxxxxxxxx…\n\n"
        "[Assistant]: Fixed."
    )


def test_keep_tail_keeps_the_end_from_a_line_start() -> None:
    text = "\n".join(f"line {n:03d}" for n in range(200))
    tail = keep_tail(text, 100)
    assert len(tail) <= 100
    assert tail.endswith("line 199")
    assert tail.startswith("…line ")
    assert keep_tail("short", 100) == "short"


def test_structured_cuts_the_middle_first_and_user_lines_last() -> None:
    turns = [
        Turn(i, "user" if i % 3 == 0 else "assistant", f"message {i} " + "y" * 20) for i in range(9)
    ]
    text = structured(turns, max_chars=150, max_tool_result_chars=5, max_assistant_chars=10)
    assert text.startswith("=== Conversation ===\n[1] user: message 0 ")
    assert "[…]" in text
    assert "[4] user: message 3" in text and "[7] user: message 6" in text
    assert "[5] assistant" not in text


def test_structured_renders_calls_and_results() -> None:
    text = structured(TURNS, max_chars=10_000, max_tool_result_chars=5, max_assistant_chars=100)
    assert text == (
        "=== Conversation ===\n"
        "[1] user: Run the tests with pnpm.\n"
        '[2] assistant: Running. | tool_call: shell({"command":"pnpm test"})\n'
        "[3] tool_result (error): xxxx…\n"
        "[4] assistant: Fixed."
    )


def test_structured_writes_a_call_as_the_design_does() -> None:
    # ``tool_call: memory({"action":"list"})``, and a call without arguments keeps its parentheses.
    turns = [
        Turn(0, "assistant", "", tool_calls=('memory {"action":"list"}', "git_status")),
    ]
    text = structured(turns, max_chars=10_000, max_tool_result_chars=50, max_assistant_chars=50)
    assert text.splitlines()[1] == (
        '[1] assistant: tool_call: memory({"action":"list"}) | tool_call: git_status()'
    )

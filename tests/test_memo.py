"""pi_memory.memo: a function's answers kept by argument, up to a cap."""

from __future__ import annotations

from pi_memory.memo import Memo


def test_an_answer_is_worked_out_once_and_kept() -> None:
    calls: list[str] = []

    def shout(word: str) -> str:
        calls.append(word)
        return word.upper()

    memo = Memo(shout, 10)
    assert [memo["a"], memo["b"], memo["a"], memo.__getitem__("b")] == ["A", "B", "A", "B"]
    assert calls == ["a", "b"]
    assert dict(memo) == {"a": "A", "b": "B"}


def test_past_the_cap_answers_are_worked_out_each_time_and_not_kept() -> None:
    calls: list[int] = []

    def double(n: int) -> int:
        calls.append(n)
        return 2 * n

    memo = Memo(double, 2)
    assert [memo[1], memo[2], memo[3], memo[3], memo[1]] == [2, 4, 6, 6, 2]
    assert calls == [1, 2, 3, 3]
    assert len(memo) == 2

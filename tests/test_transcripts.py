from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_memory.transcripts import TranscriptError
from pi_memory.transcripts.own_context import strip_injected
from pi_memory.transcripts.read import detect_format, parse_transcript, read_transcript
from tests.golden_transcripts import expected_text, golden_path, samples

SAMPLES = samples()
assert SAMPLES, "transcript samples not found"


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_reads_as_its_golden_turns(sample: Path) -> None:
    assert expected_text(sample) == golden_path(sample).read_text("utf-8")


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_naming_the_format_gives_what_detection_gives(sample: Path) -> None:
    golden = json.loads(golden_path(sample).read_text("utf-8"))
    fmt, turns = read_transcript(sample, golden["format"])
    assert fmt == golden["format"]
    assert json.loads(json.dumps([t._asdict() for t in turns])) == golden["turns"]


def test_recorded_claude_code_session_keeps_the_turns_before_compaction() -> None:
    _, turns = read_transcript(next(p for p in SAMPLES if p.name == "claude_code_recorded_1.jsonl"))
    texts = [t.text for t in turns]
    assert texts[0] == "remember that my favourite colour is teal"
    assert "next prompt after a full context" in texts
    assert not any("This session is being continued" in t for t in texts)
    assert [t.position for t in turns] == list(range(len(turns)))


def test_recorded_codex_session_leaves_out_its_compaction_summary() -> None:
    """Codex 0.171.0 records the summary of a local compaction as an assistant message, then
    a ``compacted`` record repeating it: the summary is the host's, not the conversation."""
    _, turns = read_transcript(next(p for p in SAMPLES if p.name == "codex_recorded.jsonl"))
    texts = [t.text for t in turns]
    assert texts[0] == "which port does the staging database use?"
    assert texts[-2:] == ["thanks", "FAKE_REPLY: thanks"]
    assert not any("CONTEXT CHECKPOINT COMPACTION" in t for t in texts)
    assert [t.position for t in turns] == list(range(len(turns)))


def test_our_own_injected_context_is_never_a_turn() -> None:
    for sample in SAMPLES:
        for turn in read_transcript(sample)[1]:
            for marker in ("<memory-auto>", "<relevant_memories>", "<memory_index", "<system-"):
                assert marker not in turn.text, (sample.name, turn)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "keep <relevant_memories>\nx\n</relevant_memories> this", "keep  this", id="span"
        ),
        pytest.param("said\n<memory-auto>\ncontract\n</memory-auto>\n#deploy", "said", id="index"),
        pytest.param('<memory_index layer="user">\n- a\n</memory_index>', "", id="window"),
        pytest.param("a <system-reminder>cut off", "a", id="unclosed"),
        pytest.param("plain <b>html</b> stays", "plain <b>html</b> stays", id="foreign-tags"),
    ],
)
def test_strip_injected(text: str, expected: str) -> None:
    assert strip_injected(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("not json at all\n", id="prose"),
        pytest.param('{"foo": 1}\n{"bar": 2}\n', id="foreign-jsonl"),
        pytest.param("[1, 2, 3]", id="json-array"),
    ],
)
def test_unknown_text_is_not_guessed(text: str) -> None:
    with pytest.raises(TranscriptError):
        detect_format(text)


def test_unknown_format_name_is_an_error() -> None:
    with pytest.raises(TranscriptError, match="unknown transcript format"):
        parse_transcript("{}", "slack")


def test_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="cannot read transcript"):
        read_transcript(tmp_path / "nope.jsonl")


def test_invalid_utf8_and_torn_lines_read_what_is_whole(tmp_path: Path) -> None:
    good = '{"type":"session","version":3,"id":"s"}\n' + json.dumps(
        {
            "type": "message",
            "id": "a",
            "parentId": None,
            "message": {"role": "user", "content": "caf\u00e9"},
        }
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(good.encode() + b'\n{"type":"message","id":"b","parentId":"a","mess\xff')
    fmt, turns = read_transcript(path)
    assert fmt == "pi"
    assert [t.text for t in turns] == ["caf\u00e9"]

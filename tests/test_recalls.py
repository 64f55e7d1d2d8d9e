from __future__ import annotations

import json
import random
from datetime import datetime

import pytest

from pi_memory.entry import Entry
from pi_memory.recalls import (
    MAX_KEYS,
    MAX_RECALLS,
    apply_credits,
    credited_keywords,
    credits_for,
    mentions,
    parse_recalls,
    render_recalls,
)
from pi_memory.retrieval import Hit, search

NOW = datetime(2026, 10, 1, 10, 0, 0)


def hit(keyword: str, superseded_by: str = "", id_: str = "20260101-aaaa") -> Hit:
    entry = Entry(
        id=id_,
        time="2026-09-01 10:00:00",
        project="p",
        src="user",
        keyword=keyword,
        body=f"about {keyword}",
        superseded_by=superseded_by,
    )
    return Hit(entry, 1.0, None)


# -- the file ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["", "not json", "{", "[1, 2]", '"deploy"', "null", "42", "\x00\x01"],
)
def test_unusable_file_reads_as_no_data(text: str) -> None:
    assert parse_recalls(text) == {}


def test_valid_file() -> None:
    assert parse_recalls('{"deploy": 3, "rsync": 1}') == {"deploy": 3, "rsync": 1}


def test_bom_is_ignored() -> None:
    assert parse_recalls('\ufeff{"deploy": 2}') == {"deploy": 2}


def test_wrong_shapes_keep_the_valid_part() -> None:
    text = json.dumps(
        {
            "deploy": 3,
            "text": "3",
            "flag": True,
            "neg": -1,
            "float": 2.5,
            "list": [1],
            "obj": {"a": 1},
            "": 4,
            "---": 5,
        }
    )
    assert parse_recalls(text) == {"deploy": 3}


def test_counts_are_clamped_and_spellings_merged() -> None:
    text = '{"Serialize Conversation": 4, "serialize-conversation": 3, "big": 99}'
    assert parse_recalls(text) == {"serializeconversation": 7, "big": MAX_RECALLS}


def test_render_is_sorted_and_round_trips() -> None:
    counts = {"zeta": 1, "部署": 2, "alpha": 10}
    text = render_recalls(counts)
    assert text == '{\n  "alpha": 10,\n  "zeta": 1,\n  "部署": 2\n}\n'
    assert parse_recalls(text) == counts
    assert render_recalls(dict(reversed(list(counts.items())))) == text


def test_render_empty() -> None:
    assert render_recalls({}) == "{}\n"


def test_oversized_file_is_trimmed_on_read() -> None:
    counts = {f"k{i:05d}": 1 + i % 3 for i in range(MAX_KEYS + 10)}
    parsed = parse_recalls(json.dumps(counts))
    assert len(parsed) == MAX_KEYS


# -- crediting --------------------------------------------------------------


def test_credits_keyword_the_query_named() -> None:
    assert credited_keywords("deploy", [hit("deploy")], "keyword", 1, False) == {"deploy"}


def test_substring_either_way() -> None:
    assert credited_keywords("deploy", [hit("deploy-script")], "keyword", 1, False) == {
        "deployscript"
    }
    assert credited_keywords(
        "how to rsync --delete safely", [hit("rsync")], "keyword", 1, False
    ) == {"rsync"}
    assert credited_keywords(
        "Serialize Conversation", [hit("serialize_conversation")], "tag", 1, False
    ) == {"serializeconversation"}


def test_keyword_the_query_never_mentioned_earns_nothing() -> None:
    hits = [hit("deploy", id_="20260101-aaaa"), hit("backup", id_="20260101-bbbb")]
    assert credited_keywords("deploy", hits, "keyword", 1, False) == {"deploy"}


def test_only_page_one() -> None:
    assert credited_keywords("deploy", [hit("deploy")], "keyword", 2, False) == set()


def test_never_on_fallback_or_recent() -> None:
    assert credited_keywords("deploy", [hit("deploy")], "keyword", 1, True) == set()
    assert credited_keywords("deploy", [hit("deploy")], "recent", 1, False) == set()


def test_superseded_hits_earn_nothing() -> None:
    assert (
        credited_keywords("deploy", [hit("deploy", "20260102-bbbb")], "keyword", 1, False) == set()
    )


def test_tokens_are_accepted_instead_of_text() -> None:
    assert credited_keywords(["rsync", "delete"], [hit("rsync")], "keyword", 1, False) == {"rsync"}


def test_chinese_keyword() -> None:
    assert credited_keywords("部署前备份", [hit("备份")], "keyword", 1, False) == {"备份"}


def test_single_letter_does_not_mention_a_longer_keyword() -> None:
    assert not mentions(["x"], "nginx")
    assert mentions(["nginx"], "x")
    assert mentions(["ng"], "nginx")


def test_credits_for_a_real_search() -> None:
    entries = [hit("deploy").entry, hit("backup", id_="20260101-bbbb").entry]
    assert credits_for(search(entries, "deploy", now=NOW)) == {"deploy"}
    assert credits_for(search(entries, "zzzz", now=NOW)) == set()  # fallback
    assert credits_for(search(entries, "", now=NOW)) == set()  # a listing
    assert credits_for(search(entries, "deploy", mode="recent", now=NOW)) == set()


# -- applying ----------------------------------------------------------------


def test_apply_adds_one_per_keyword_once() -> None:
    assert apply_credits({"deploy": 1}, ["deploy", "Deploy", "rsync"]) == {"deploy": 2, "rsync": 1}


def test_apply_does_not_mutate_its_input() -> None:
    counts = {"deploy": 1}
    apply_credits(counts, ["deploy"])
    assert counts == {"deploy": 1}


def test_apply_caps_each_keyword() -> None:
    counts: dict[str, int] = {}
    for _ in range(25):
        counts = apply_credits(counts, ["deploy"])
    assert counts == {"deploy": MAX_RECALLS}


def test_apply_caps_the_file_dropping_lowest_counts_then_last_names() -> None:
    counts = {f"k{i:05d}": 2 for i in range(MAX_KEYS - 2)}
    counts.update({"low-a": 1, "low-b": 1})
    updated = apply_credits(counts, ["k00000"])
    assert len(updated) == MAX_KEYS
    updated = apply_credits(counts, ["fresh"])
    # Over by one: of the two count-1 keys that were not just credited, the
    # alphabetically last goes; the fresh key stays although its count is 1 too.
    assert len(updated) == MAX_KEYS
    assert "fresh" in updated
    assert "low-a" in updated
    assert "low-b" not in updated


def test_full_log_can_still_learn_a_new_keyword() -> None:
    counts = {f"k{i:05d}": 1 for i in range(MAX_KEYS)}
    updated = apply_credits(counts, ["zzz-new"])
    assert len(updated) == MAX_KEYS
    assert updated["zzznew"] == 1
    assert "k04999" not in updated


def test_apply_is_deterministic_under_random_sequences() -> None:
    rng = random.Random(11)
    names = [f"kw{i}" for i in range(30)]
    for _ in range(50):
        credits = [rng.sample(names, rng.randint(0, 5)) for _ in range(40)]
        first: dict[str, int] = {}
        second: dict[str, int] = {}
        for batch in credits:
            first = apply_credits(first, batch)
            second = apply_credits(second, list(reversed(batch)))
        assert render_recalls(first) == render_recalls(second)
        assert all(0 < value <= MAX_RECALLS for value in first.values())

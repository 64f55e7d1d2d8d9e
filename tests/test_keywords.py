from __future__ import annotations

import random

import pytest

from pi_memory.entry import Entry
from pi_memory.keywords import (
    FALLBACK_KEYWORD,
    KeywordPick,
    KeywordRow,
    canonical_key,
    canonical_keys,
    coerce_keywords,
    collect_keywords,
    derive_keyword,
    keyword_issue,
    sanitize_keywords,
    split_stored_tags,
)


def entry(
    id_: str, keyword: str, time: str = "2026-01-01 10:00:00", superseded_by: str = ""
) -> Entry:
    return Entry(
        id=id_,
        time=time,
        project="p",
        src="user",
        keyword=keyword,
        body="b",
        superseded_by=superseded_by,
    )


@pytest.mark.parametrize(
    ("keyword", "key"),
    [
        ("Serialize Conversation", "serializeconversation"),
        ("serialize-conversation", "serializeconversation"),
        ("#serialize_conversation", "serializeconversation"),
        ("src/store.ts", "srcstorets"),
        ("node.js", "nodejs"),
        ("  Deploy  ", "deploy"),
        ("部署 备份", "部署备份"),
        ("部署、备份", "部署备份"),
        ("c#", "c#"),
        ("C++", "c++"),
        ("v1.2", "v12"),
        ("---", ""),
    ],
)
def test_canonical_key(keyword: str, key: str) -> None:
    assert canonical_key(keyword) == key


def test_canonical_keys_are_each_keywords_own() -> None:
    # The ASCII keywords are worked out joined: each must get the key it gets alone,
    # whatever its neighbours hold (a NUL, the character they are joined with, too).
    rng = random.Random(5)
    alphabet = "aZ9 #-_./+\t\n\x00\x1c、部署\u200b\u3000"
    keywords = ["".join(rng.choices(alphabet, k=rng.randint(0, 10))) for _ in range(3000)]
    keywords += ["Serialize Conversation", "  #C# ", "", "#", "---", "a\x00b", "部署 备份"]
    assert canonical_keys(keywords) == {keyword: canonical_key(keyword) for keyword in keywords}
    assert canonical_keys(["node.js", "Node.JS", "node.js"]) == {
        "node.js": "nodejs",
        "Node.JS": "nodejs",
    }
    assert canonical_keys([]) == {}


@pytest.mark.parametrize(
    ("keyword", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("#", "empty"),
        ("a\nb", "line break"),
        ("a|b", "'|'"),
        ("x-->y", "comment marker"),
        ("<!--x", "comment marker"),
        ("a,b", "comma"),
        ("a，b", "comma"),
        ("one two three four five six seven eight nine", "9 words"),
        ("a部b c d e f g h i", "9 words"),  # a run of Han characters parts two words
        ("部署备份流程的完整步", "10 Chinese characters"),
        ("x" * 81, "80 characters"),
        ("---", "no letters or digits"),
    ],
)
def test_keyword_issue_reasons(keyword: str, fragment: str) -> None:
    issue = keyword_issue(keyword)
    assert issue is not None
    assert fragment in issue


@pytest.mark.parametrize(
    "keyword",
    [
        "deploy",
        "#deploy",
        "one two three four five six seven eight",
        "部署备份流程完整",
        "rsync --delete",
        "src/store.ts",
        "部署 rsync",
        "部署rsync一二a b c d e f",
    ],
)
def test_keyword_issue_accepts(keyword: str) -> None:
    assert keyword_issue(keyword) is None


def test_eight_han_is_the_limit() -> None:
    assert keyword_issue("一二三四五六七八") is None
    assert keyword_issue("一二三四五六七八九") == "9 Chinese characters (at most 8)"
    # CJK Extension B counts as Han, as it does for search and the detectors.
    assert keyword_issue("𠀀" * 9) == "9 Chinese characters (at most 8)"
    assert derive_keyword("𠀀𠀁𠀂𠀃𠀄𠀅𠀆𠀇𠀈 first") == "𠀀𠀁𠀂𠀃𠀄𠀅𠀆𠀇"


def test_sanitize_keeps_first_and_counts_the_rest() -> None:
    assert sanitize_keywords(["deploy", "rsync", "backup"]) == KeywordPick("deploy", 2, ())


def test_sanitize_never_rejects_for_being_many() -> None:
    many = [f"topic{i}" for i in range(50)]
    assert sanitize_keywords(many) == KeywordPick("topic0", 49, ())


def test_sanitize_does_not_count_spellings_of_the_kept_keyword() -> None:
    assert sanitize_keywords(["Deploy", "deploy", "#DEPLOY", "rsync"]) == KeywordPick(
        "Deploy", 1, ()
    )


def test_sanitize_skips_invalid_and_reports_why() -> None:
    pick = sanitize_keywords(["a|b", "#deploy"])
    assert pick.keyword == "deploy"
    assert pick.dropped == 1
    assert pick.issues == ("'a|b': contains '|', which separates the entry's metadata fields",)


def test_sanitize_splits_a_comma_list() -> None:
    assert sanitize_keywords("deploy, rsync，备份") == KeywordPick("deploy", 2, ())


def test_sanitize_collapses_inner_whitespace_and_hash() -> None:
    assert sanitize_keywords(["  #rsync   --delete "]).keyword == "rsync --delete"


def test_sanitize_nothing_valid() -> None:
    pick = sanitize_keywords(["a|b", "x" * 100])
    assert pick.keyword is None
    assert pick.dropped == 0
    assert len(pick.issues) == 2


def test_sanitize_nothing_given() -> None:
    assert sanitize_keywords([]) == KeywordPick(None, 0, ("no keyword given",))
    assert sanitize_keywords(["", " , "]) == KeywordPick(None, 0, ("no keyword given",))


def test_split_stored_tags_legacy_blob() -> None:
    assert split_stored_tags("#a #b #c") == ["#a", "#b", "#c"]
    assert split_stored_tags("deploy,rsync,备份") == ["deploy", "rsync", "备份"]
    assert split_stored_tags("#rsync delete #backup") == ["#rsync delete", "#backup"]
    assert split_stored_tags("rsync delete") == ["rsync delete"]
    assert split_stored_tags("") == []


def test_coerce_counts_a_legacy_blob_as_three() -> None:
    assert coerce_keywords("#a #b #c", "body") == ("a", 2)


def test_coerce_comma_list() -> None:
    assert coerce_keywords("deploy,rsync,备份", "body") == ("deploy", 2)


def test_coerce_single() -> None:
    assert coerce_keywords("deploy", "body") == ("deploy", 0)


def test_coerce_skips_invalid_candidates() -> None:
    long = " ".join(["word"] * 9)
    assert coerce_keywords(f"{long},rsync", "body") == ("rsync", 1)


def test_coerce_derives_when_nothing_survives() -> None:
    body = "Deploy with `rsync --delete`; back up the previous release first."
    assert coerce_keywords("", body) == ("rsync --delete", 0)
    assert coerce_keywords(" ".join(["w"] * 9), body) == ("rsync --delete", 0)


@pytest.mark.parametrize(
    ("body", "keyword"),
    [
        ("Deploy with `rsync --delete`; back up the previous release first.", "rsync --delete"),
        ("Writes go through src/store.ts only.", "src/store.ts"),
        ("Prefer node.js 20 for the tools.", "node.js"),
        ("Call serializeConversation before compaction.", "serializeConversation"),
        ("The dev server listens on port 3000.", "dev server"),
        ("部署时先备份上一个版本。", "部署时先备份上一"),
        ("部署前备份", "部署前备份"),
        ("```\nnpm test\n```", "npm test"),
        ("", FALLBACK_KEYWORD),
        ("!!! ???", FALLBACK_KEYWORD),
        ("a an the", FALLBACK_KEYWORD),
    ],
)
def test_derive_keyword(body: str, keyword: str) -> None:
    assert derive_keyword(body) == keyword
    assert keyword_issue(derive_keyword(body)) is None


def test_derive_keyword_random_bodies_always_valid() -> None:
    rng = random.Random(7)
    alphabet = "abc de.f/-_`()[]{}|,，部署备份 \n\t#<>!?。0123"
    for _ in range(2000):
        body = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        derived = derive_keyword(body)
        assert derived
        assert keyword_issue(derived) is None, (body, derived)
        assert derive_keyword(body) == derived


def test_collect_groups_by_canonical_key_with_first_written_spelling() -> None:
    rows = collect_keywords(
        [
            entry("20260102-aaaa", "serialize-conversation", "2026-01-02 10:00:00"),
            entry("20260101-bbbb", "Serialize Conversation", "2026-01-01 10:00:00"),
            entry("20260103-cccc", "serialize_conversation", "2026-01-03 10:00:00"),
        ],
        {},
    )
    assert rows == [KeywordRow("Serialize Conversation", 3, 0)]


def test_collect_first_spelling_ties_by_input_order() -> None:
    rows = collect_keywords(
        [entry("20260101-aaaa", "Deploy"), entry("20260101-bbbb", "deploy")], {}
    )
    assert rows == [KeywordRow("Deploy", 2, 0)]


def test_collect_excludes_superseded() -> None:
    rows = collect_keywords(
        [
            entry("20260101-aaaa", "old", superseded_by="20260102-bbbb"),
            entry("20260102-bbbb", "new"),
        ],
        {},
    )
    assert rows == [KeywordRow("new", 1, 0)]


def test_collect_orders_by_count_plus_capped_recalls_then_count_then_name() -> None:
    entries = [
        entry("20260101-0001", "alpha"),
        entry("20260101-0002", "alpha"),
        entry("20260101-0003", "beta"),
        entry("20260101-0004", "Gamma"),
        entry("20260101-0005", "delta"),
        entry("20260101-0006", "epsilon"),
    ]
    # beta: 1 + min(9, 4) = 5; alpha: 2 + 1 = 3; delta: 1 + 2 = 3 (alpha wins on count);
    # epsilon and Gamma: 1 each, alphabetical by casefold.
    rows = collect_keywords(entries, {"beta": 9, "alpha": 1, "delta": 2})
    assert [(r.keyword, r.count, r.recalls) for r in rows] == [
        ("beta", 1, 9),
        ("alpha", 2, 1),
        ("delta", 1, 2),
        ("epsilon", 1, 0),
        ("Gamma", 1, 0),
    ]


def test_collect_recalls_are_keyed_by_canonical_key() -> None:
    rows = collect_keywords(
        [entry("20260101-0001", "Serialize Conversation")], {"serializeconversation": 3}
    )
    assert rows == [KeywordRow("Serialize Conversation", 1, 3)]


def test_collect_cap_drops_lowest_ranked() -> None:
    entries = [entry(f"20260101-{i:04x}", f"kw{i:03d}") for i in range(250)]
    entries += [entry("20260101-ffff", "kw249")]
    rows = collect_keywords(entries, {"kw248": 1})
    assert len(rows) == 200
    assert rows[0] == KeywordRow("kw249", 2, 0)
    assert rows[1] == KeywordRow("kw248", 1, 1)
    assert rows[-1].keyword == "kw197"
    assert collect_keywords(entries, {}, cap=0) == []


def test_collect_is_independent_of_input_order_for_distinct_times() -> None:
    rng = random.Random(3)
    names = ["deploy", "Deploy", "rsync", "部署", "backup", "BACKUP", "c#", "node.js"]
    for _ in range(200):
        entries = [
            entry(f"20260101-{i:04x}", rng.choice(names), f"2026-01-{i % 28 + 1:02d} 10:{i:02d}:00")
            for i in range(rng.randint(0, 40))
        ]
        recalls = {canonical_key(n): rng.randint(0, 12) for n in names if rng.random() < 0.5}
        expected = collect_keywords(entries, recalls)
        shuffled = entries[:]
        rng.shuffle(shuffled)
        assert collect_keywords(shuffled, recalls) == expected


def test_invisible_characters_do_not_make_a_new_keyword() -> None:
    assert canonical_key("in\u202estalls") == canonical_key("installs") == "installs"
    assert canonical_key("dep\u200bloy") == "deploy"


def test_sanitize_splits_a_hash_blob_as_reading_does() -> None:
    # The legacy ``#a #b #c`` notation is three keywords on the way in, as on the way out.
    assert sanitize_keywords("#a #b #c") == KeywordPick("a", 2, ())
    assert sanitize_keywords(["#deploy #rsync", "backup"]) == KeywordPick("deploy", 2, ())
    assert sanitize_keywords("#rsync --delete").keyword == "rsync --delete"
    assert sanitize_keywords("c#").keyword == "c#"

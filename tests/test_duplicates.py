from __future__ import annotations

import pytest

from pi_memory.detect import duplicates
from pi_memory.detect.duplicates import DuplicatePair, find_duplicates, find_duplicates_bruteforce
from pi_memory.detect.pairs import features
from pi_memory.detect.set_join import PrefixIndex, group_order, rank_order
from pi_memory.detect.text_features import (
    body_order,
    content_list,
    jaccard,
    keyword_set,
    number_list,
    token_list,
    tokens,
)
from pi_memory.entry import Entry, normalize_memory_text
from tests.similarity_stores import random_store, shuffled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from pi_memory.detect.text_features import BodyFacts, StoreFacts


def entry(
    entry_id: str,
    body: str,
    keyword: str = "deploy",
    *,
    time: str = "",
    layer: str = "project",
    superseded_by: str = "",
) -> Entry:
    return Entry(
        id=entry_id,
        time=time or f"2026-10-{entry_id[6:8]} 10:00:00",
        project="p",
        src="user",
        keyword=keyword,
        body=body,
        layer=layer,
        file="DECISIONS.md",
        superseded_by=superseded_by,
    )


def test_tokens_are_lowercased_words_and_han_bigrams() -> None:
    assert tokens("Deploy with `rsync --delete`; port 3000.") == {
        "deploy",
        "with",
        "rsync",
        "delete",
        "port",
        "3000",
    }
    assert tokens("部署脚本 uses pnpm") == {"部署", "署脚", "脚本", "uses", "pnpm"}
    assert tokens("用") == {"用"}
    # CJK Extension B and the Compatibility Supplement are Han: 2-grams, not one word.
    assert tokens("𠀀𠀁𠀂") == {"𠀀𠀁", "𠀁𠀂"}
    assert tokens("丽丸乁x") == {"丽丸", "丸乁", "x"}
    assert tokens("... —— !!") == frozenset()


def test_numbers_keep_versions_whole() -> None:
    assert number_list("node 18.2.1 on port 3000, then port 3000 again") == ["18.2.1", "3000"]


def test_jaccard_and_canonical_keywords() -> None:
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    assert jaccard(set(), set()) == 0.0
    assert keyword_set(["Dev-Server", "dev server", "dev_server", "Dev.Server/"]) == {"devserver"}


def test_rewording_with_the_same_keyword_is_a_pair() -> None:
    old = entry("20261001-aaaa", "Deploy goes through rsync to the staging host.")
    new = entry("20261020-bbbb", "Deploy goes through rsync to the staging server.")
    # tokens: 7 shared of 9; keywords equal → 0.6 * 7 / 9 + 0.4 * 1
    assert find_duplicates([new, old]) == [
        DuplicatePair(
            a="20261001-aaaa",
            b="20261020-bbbb",
            layer="project",
            score=0.6 * (7 / 9) + 0.4,
            token=7 / 9,
            shared=("deploy",),
        )
    ]


def test_keyword_spelling_does_not_matter_and_shared_is_spelled_as_the_older() -> None:
    old = entry("20261001-aaaa", "Deploy goes through rsync to the staging host.", "Dev-Server")
    new = entry("20261020-bbbb", "Deploy goes through rsync to the staging server.", "dev server")
    [pair] = find_duplicates([old, new])
    assert pair.shared == ("Dev-Server",)


def test_different_numbers_are_different_facts() -> None:
    a = entry("20261001-aaaa", "The dev server listens on port 80.")
    b = entry("20261002-bbbb", "The dev server listens on port 81.")
    assert find_duplicates([a, b]) == []


def test_numbers_on_one_side_only_do_not_block() -> None:
    a = entry("20261001-aaaa", "The dev server listens on port 80 of the staging host")
    b = entry("20261002-bbbb", "The dev server listens on port of the staging host")
    assert len(find_duplicates([a, b])) == 1


def test_token_threshold_without_a_shared_keyword() -> None:
    # Different keywords: score = 0.6 * token, so token must reach 5/6.
    a = entry("20261001-aaaa", "one two three four five six", "alpha")
    b = entry("20261002-bbbb", "one two three four five six seven", "beta")  # 6/7
    c = entry("20261003-cccc", "one two three four five six seven eight", "gamma")  # 6/8 with a
    pairs = find_duplicates([a, b, c])
    assert [(p.a, p.b) for p in pairs] == [
        ("20261002-bbbb", "20261003-cccc"),  # 7/8
        ("20261001-aaaa", "20261002-bbbb"),  # 6/7
    ]


def test_token_below_045_is_not_a_pair_even_with_the_same_keyword() -> None:
    a = entry("20261001-aaaa", "alpha beta gamma delta eps")
    b = entry("20261002-bbbb", "alpha beta gamma zeta eta theta")  # 3/8 = 0.375
    assert find_duplicates([a, b]) == []
    c = entry("20261003-cccc", "alpha beta gamma delta zeta")  # 4/6 with a
    assert [(p.a, p.b) for p in find_duplicates([a, c])] == [("20261001-aaaa", "20261003-cccc")]


def test_identical_bodies_score_one_even_without_tokens() -> None:
    a = entry("20261001-aaaa", "...", "alpha")
    b = entry("20261002-bbbb", "!!", "beta")
    c = entry("20261003-cccc", "Use PNPM", "gamma")
    d = entry("20261004-dddd", "use  pnpm.", "delta")
    pairs = find_duplicates([a, b, c, d])
    assert [(p.a, p.b, p.score, p.token, p.shared) for p in pairs] == [
        ("20261001-aaaa", "20261002-bbbb", 1.0, 1.0, ()),
        ("20261003-cccc", "20261004-dddd", 1.0, 1.0, ()),
    ]


def test_the_same_text_has_the_same_tokens_and_numbers() -> None:
    # Identical bodies with tokens are left to the joins (a Jaccard of 1), which find
    # them only if case, whitespace and trailing punctuation never change a token or a
    # number; bodies without tokens are paired by their text alone.
    import random
    import sys

    from pi_memory.detect.text_features import body_facts

    spaces = "".join(filter(str.isspace, map(chr, range(sys.maxunicode + 1))))
    rng = random.Random(11)
    letters = "aAbZe09.Σσς部署K\u212aİı_'-"
    by_norm: dict[str, set[tuple[frozenset[str], frozenset[str]]]] = {}
    bodies: dict[str, set[str]] = {}
    for _ in range(6000):
        words = [
            "".join(rng.choices(letters, k=rng.randint(1, 5))) for _ in range(rng.randint(0, 4))
        ]
        gaps = ["".join(rng.choices(spaces, k=rng.randint(1, 3))) for _ in range(len(words) + 1)]
        body = gaps[0] + "".join(map(str.__add__, words, gaps[1:]))
        if rng.random() < 0.5:
            body += "".join(rng.choices(".,;:!?。，；：！？、…" + spaces, k=rng.randint(1, 4)))
        if rng.random() < 0.5:
            body = body.upper() if rng.random() < 0.5 else body.lower()
        norm, found, numbers, _, _ = body_facts(body)
        by_norm.setdefault(norm, set()).add((found, numbers))
        bodies.setdefault(norm, set()).add(body)
    assert sum(1 for same in bodies.values() if len(same) > 1) > 50  # not vacuous
    assert all(len(facts) == 1 for facts in by_norm.values())
    # And the join finds such a pair without help: the same text, other spacing and case.
    a = entry("20261001-aaaa", "Use  PNPM for\u3000installs", "alpha")
    b = entry("20261002-bbbb", "use pnpm FOR installs!", "beta")
    assert [(p.score, p.token) for p in find_duplicates([a, b])] == [(1.0, 1.0)]


def test_superseded_rows_and_other_layers_are_not_compared() -> None:
    body = "Deploy goes through rsync to the staging host."
    live = entry("20261001-aaaa", body)
    dead = entry("20261002-bbbb", body, superseded_by="20261003-cccc")
    other = entry("20261004-dddd", body, layer="user")
    assert find_duplicates([live, dead, other]) == []
    again = entry("20261005-eeee", body, layer="user")
    assert [(p.a, p.b, p.layer) for p in find_duplicates([live, other, again])] == [
        ("20261004-dddd", "20261005-eeee", "user")
    ]


def test_older_first_by_time_then_id() -> None:
    body = "Deploy goes through rsync to the staging host."
    late_id = entry("20261009-zzzz", body, time="2026-01-01 00:00:00")
    early_id = entry("20261001-aaaa", body, time="2026-02-01 00:00:00")
    [pair] = find_duplicates([early_id, late_id])
    assert (pair.a, pair.b) == ("20261009-zzzz", "20261001-aaaa")
    same_time = [
        entry(i, body, time="2026-01-01 00:00:00") for i in ("20261002-bbbb", "20261001-cccc")
    ]
    [pair] = find_duplicates(same_time)
    assert (pair.a, pair.b) == ("20261001-cccc", "20261002-bbbb")


def test_limit_keeps_the_best() -> None:
    store = random_store(7, 200)
    full = find_duplicates(store)
    assert len(full) > 3
    assert find_duplicates(store, limit=3) == full[:3]
    assert find_duplicates(store, limit=0) == []


def test_han_bigrams_make_chinese_rewordings_pairs() -> None:
    a = entry("20261001-aaaa", "部署前先备份上一个版本", "部署")
    b = entry("20261002-bbbb", "部署前先备份上个版本", "部署")
    [pair] = find_duplicates([a, b])
    assert pair.token == pytest.approx(8 / 11)


@pytest.mark.parametrize("seed", range(120))
def test_fast_path_equals_the_definition(seed: int) -> None:
    store = random_store(seed)
    assert find_duplicates(store) == find_duplicates_bruteforce(store)


def test_adversarial_stores_produce_pairs_on_every_path() -> None:
    # The comparisons above must not pass vacuously: the generated stores
    # contain identical bodies, rewordings and number-guarded templates.
    found = [find_duplicates(random_store(seed)) for seed in range(40)]
    pairs = [pair for store in found for pair in store]
    assert any(p.score == 1.0 for p in pairs)
    assert any(p.score < 1.0 for p in pairs)
    assert any(p.layer == "user" for p in pairs)
    assert any(p.layer == "project" for p in pairs)


@pytest.mark.parametrize("seed", range(20))
def test_order_does_not_depend_on_input_order(seed: int) -> None:
    store = random_store(1000 + seed)
    assert find_duplicates(shuffled(store, seed)) == find_duplicates(store)


def test_templates_differing_only_in_a_number_are_exact_and_never_pairs() -> None:
    store = [
        entry(f"2026100{1 + i % 9}-{i:04x}", f"The dev server listens on port {8000 + i}.")
        for i in range(400)
    ]
    assert find_duplicates(store) == find_duplicates_bruteforce(store) == []


def test_prefix_index_finds_every_pair_at_the_threshold() -> None:
    # |x ∩ y| = 9, |x ∪ y| = 20: exactly at the threshold, the tightest case.
    x = {f"w{i}" for i in range(15)}
    y = {f"w{i}" for i in range(6, 20)}
    assert jaccard(x, y) == 0.45
    ranks = {f"w{i}": i for i in range(20)}
    index = PrefixIndex(0.45)
    # One token fewer in common and the pair falls below the threshold: the
    # size and position filters already drop it. Sets go in smallest first.
    index.add(2, rank_order(y - {"w6"}, ranks))
    index.add(1, rank_order(y, ranks))
    assert index.probe(rank_order(x, ranks)) == [1]


@pytest.mark.parametrize("probes_no_smaller", [False, True])
def test_probe_add_keeps_a_pair_at_the_threshold_and_drops_one_below(
    probes_no_smaller: bool,
) -> None:
    # The self-join's one-pass probe: sets in ascending size, each probed then indexed.
    x = {f"w{i}" for i in range(15)}
    y = {f"w{i}" for i in range(6, 20)}
    ranks = {f"w{i}": i for i in range(20)}
    index = PrefixIndex(0.45, probes_no_smaller=probes_no_smaller)
    # A key comes once per shared prefix token that passes the filters.
    assert index.probe_add(2, rank_order(y - {"w6"}, ranks)) == []
    assert set(index.probe_add(1, rank_order(y, ranks))) == {2}  # 13 of 14 shared
    # J = 0.45 exactly is kept; 8 shared of 20 (J = 0.4) is not.
    assert set(index.probe_add(0, rank_order(x, ranks))) == {1}
    # A set equal to x meets x and y, and still not the one below.
    assert set(index.probe_add(3, rank_order(x, ranks))) == {0, 1}


@pytest.mark.parametrize("crowded", [False, True])
@pytest.mark.parametrize(("first_shared", "kept"), [(2, True), (3, False)])
def test_probe_add_drops_a_set_whose_shared_tokens_begin_too_late_in_it(
    crowded: bool, first_shared: int, kept: bool
) -> None:
    # x (14 tokens) and y (10) need 8 tokens in common for J >= 0.45 (8 of 16 is 0.5,
    # 7 of 17 is below). In rank order, the first token y shares with x sits at y's
    # position 2 (8 of y's tokens left to share: kept) or 3 (7 left: dropped), first in x.
    index = PrefixIndex(0.45, probes_no_smaller=True)
    if crowded:
        # The shared token is in another set's prefix already: y joins its posting.
        index.probe_add(9, [3, *range(20, 28)])
    y = list(range(3 - first_shared, 13 - first_shared))
    x = list(range(3, 17))
    index.probe_add(1, y)
    assert (1 in index.probe_add(2, x)) is kept


@pytest.mark.parametrize("larger_first", [False, True])
def test_a_small_keyword_group_keeps_pairs_at_the_threshold_and_drops_them_below(
    larger_first: bool,
) -> None:
    x = frozenset(range(15))
    sets = {
        "at": frozenset(range(6, 20)),  # 9 shared of 20: J = 0.45 exactly
        "below": frozenset([*range(7, 20), 99]),  # 8 shared of 21
        "inside": frozenset(range(7)),  # 7 of 15: J = 0.467, no token missing
        "too small": frozenset(range(6)),  # 6 of 15: J = 0.4 whatever is shared
    }
    for name, y in sets.items():
        tokens = [x, y] if larger_first else [y, x]
        group = duplicates._Sets(tokens, [frozenset(), frozenset()], [len(t) for t in tokens], [])
        out: dict[tuple[int, int], int] = {}
        duplicates._small_group(group, [0, 1], out)
        wanted = {(0, 1): len(x & y)} if jaccard(x, y) >= duplicates.MIN_TOKEN else {}
        assert out == wanted, name
    assert [name for name, y in sets.items() if jaccard(x, y) >= 0.45] == ["at", "inside"]
    # Two bodies without tokens share nothing: no pair, whatever the threshold.
    empty = duplicates._Sets([frozenset(), frozenset()], [frozenset(), frozenset()], [0, 0], [])
    out = {}
    duplicates._small_group(empty, [0, 1], out)
    assert out == {}


def test_the_detectors_leave_the_cycle_collector_as_they_found_it() -> None:
    import gc

    from pi_memory.detect.conflicts import find_conflicts

    store = random_store(7)
    assert gc.isenabled()
    find_duplicates(store)
    find_conflicts(store)
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # nothing left out of collection
    gc.disable()
    try:
        find_duplicates(random_store(8))
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    "body",
    [
        "Deploy v2beta to 10.0.0.1 on port 8080, then 3x retries",
        "Plain words only, no numbers",
        "Port ８０８０ and 80 on the Kelvin \u212a scale",
        "部署脚本 runs at 9 before 部署流程",
        "",
    ],
)
def test_word_tokens_are_the_tokens_of_the_body_without_its_numbers(body: str) -> None:
    import re

    [item] = group = features([entry("20261001-0001", body)])["project"]
    spelling = {number: word for word, number in group_order(group).ranks.items()}
    without_numbers = re.sub(r"\d+(?:\.\d+)*", " ", body)
    numbers, words, content = body_order(body)
    assert list(words) == token_list(without_numbers)
    assert list(content) == content_list(token_list(without_numbers))
    assert list(numbers) == number_list(body)
    assert set(map(spelling.__getitem__, item.words)) == frozenset(words)
    assert set(map(spelling.__getitem__, item.content)) == frozenset(content)
    assert item.numbers == frozenset(numbers)
    assert set(map(spelling.__getitem__, item.tokens)) == tokens(body)
    with pytest.raises(TypeError):  # ids without the vocabulary they are in
        group_order(list(group))


def test_a_body_is_normalised_at_any_whitespace_case_and_trailing_punctuation() -> None:
    import sys

    # What ``\s`` matches in a str pattern is exactly what str.isspace() accepts.
    spaces = "".join(filter(str.isspace, map(chr, range(sys.maxunicode + 1))))
    body = f"{spaces}Deploy\u00a0the  API\u2003before\n\tFRIDAY{spaces}。!"
    assert normalize_memory_text(body) == "deploy the api before friday"
    assert normalize_memory_text("a\x1cb") == "a b"  # a separator \s counts as a space
    assert normalize_memory_text("  …  ") == ""


def test_the_sets_made_directly_are_the_sets_of_the_ordered_parts() -> None:
    # Facts worked out from scratch skip the ordering; kept facts come from the ordered
    # parts. Both must be the same sets.
    from pi_memory.detect.text_features import body_facts, body_lists, facts_of
    from tests.similarity_stores import realistic_store

    bodies = [e.body for seed in range(3) for e in random_store(seed, 200)]
    bodies += [e.body for e in realistic_store(600, 1)] + ["", "3000", "v2 …", "部署 80"]
    for body in bodies:
        assert body_facts(body) == facts_of(*body_lists(body)), body


def _spelled(vocabulary: Mapping[str, int], facts: StoreFacts) -> BodyFacts:
    """A body's store facts with their ids spelled as the words they stand for."""
    spelling = {number: word for word, number in vocabulary.items()}
    assert len(spelling) == len(vocabulary)  # one id per word
    norm, tokens, numbers, words, content = facts
    word_set = frozenset(map(spelling.__getitem__, words))
    content_set = frozenset(map(spelling.__getitem__, content))
    return norm, frozenset(map(spelling.__getitem__, tokens)), numbers, word_set, content_set


def test_a_stores_facts_made_together_are_each_bodys_own() -> None:
    # The detectors work a store's bodies out a column at a time: each body must get
    # exactly the facts it gets alone, whatever its neighbours hold.
    import random

    from pi_memory.detect.text_features import body_facts, body_lists, facts_of, store_facts
    from tests.similarity_stores import realistic_store

    bodies = [e.body for seed in range(3) for e in random_store(seed, 200)]
    bodies += [e.body for e in realistic_store(600, 1)]
    bodies += [
        "",
        "3000",
        "v2 …",
        "部署 80",
        "Deploy v2beta to 10.0.0.1 on port 8080, then 3x retries",
        "The dogs studies ran 3x faster: v2x1 releases 1.2.3.",
        "  Spaced\tout \x1c body .  ",
        "Port ８０８０ and 80 on the Kelvin \u212a scale",
    ]
    rng = random.Random(7)
    alphabet = "aAbZe09 s.\t\n\x1c,-_'é部署K\u212a"
    bodies += ["".join(rng.choices(alphabet, k=rng.randint(0, 24))) for _ in range(2000)]
    alone = [body_facts(body) for body in bodies]
    assert alone == [facts_of(*body_lists(body)) for body in bodies]

    def together(bodies: list[str], known: dict[str, BodyFacts] | None = None) -> list[BodyFacts]:
        vocabulary, found = store_facts(bodies, known)
        return [_spelled(vocabulary, facts) for facts in zip(*found)]

    assert together(bodies) == alone
    for _ in range(40):
        picked = rng.sample(range(len(bodies)), rng.randint(0, 12))
        assert together([bodies[i] for i in picked]) == [alone[i] for i in picked]
    # Some facts known already (as kept across runs), the rest worked out.
    known = dict(zip(bodies[::3], alone[::3]))
    assert together(bodies, known) == alone
    # Words only a number's letters spell: a function word, an inflected word.
    assert together(["Run 2the deploys2"]) == [body_facts("Run 2the deploys2")]
    # A body holding the character the bodies are joined with.
    assert together([*bodies[:50], "a\x00b 7"]) == [*alone[:50], body_facts("a\x00b 7")]


def test_a_stores_uneven_spaces_and_digits_are_found_in_their_own_body() -> None:
    # What a body holds is looked for in all the bodies joined: a space at either end
    # of a body, or a digit, must count for that body alone, wherever it stands.
    from pi_memory.detect.text_features import body_facts, store_facts

    odd = [" lead", "trail ", "two  spaces", "tab\there", "x\x1fy", "v2 x", "9", "end. "]
    plain = ["", "plain words", "a", "end.", *odd]
    for body in odd:
        for before in plain:
            for after in plain:
                for bodies in ([body], [before, body], [body, after], [before, body, after]):
                    vocabulary, found = store_facts(bodies)
                    spelled = [_spelled(vocabulary, facts) for facts in zip(*found)]
                    assert spelled == list(map(body_facts, bodies)), bodies


def test_a_stores_tokens_are_numbered_rarest_first() -> None:
    # The joins' prefixes hold each body's rarest tokens: the ids put them first.
    from pi_memory.detect.text_features import body_facts, store_facts

    bodies = ["The cache rotates keys.", "the cache warms", "The queue drains", "部署 the 80"]
    vocabulary, found = store_facts(bodies, {bodies[3]: body_facts(bodies[3])})
    assert vocabulary["the"] > vocabulary["cache"] > vocabulary["rotates"]
    assert vocabulary["cache"] > vocabulary["queue"]
    assert vocabulary["queue"] < vocabulary["80"]  # as many: in the order first seen
    assert vocabulary["the"] in found[1][3]
    # A word no token spells is numbered when first asked for, after every token:
    # a content word's lemma ("rotat", "key"), or a word asked for later.
    assert min(vocabulary["rotat"], vocabulary["key"], vocabulary["drain"]) >= 9
    assert vocabulary["elsewhere"] == len(vocabulary) - 1
    assert vocabulary["key"] in found[4][0] and vocabulary["keys"] not in found[4][0]


def test_features_take_the_known_facts_and_work_out_the_rest() -> None:
    from pi_memory.detect.text_features import age_key, body_facts
    from pi_memory.keywords import canonical_key

    store = random_store(3, 300)
    assert any("T" in e.time for e in store)  # a time not written as stored
    live = [e for e in store if not e.superseded_by]
    known = {e.body: body_facts(e.body) for e in live[::3]}
    for facts in (features(store), features([e._replace() for e in store], known)):
        made = [
            (*item[:3], *_spelled(group_order(group).ranks, item[3:]))
            for group in facts.values()
            for item in group
        ]
        assert sorted(made, key=lambda item: item[0].id) == sorted(
            ((e, age_key(e), canonical_key(e.keyword), *body_facts(e.body)) for e in live),
            key=lambda item: item[0].id,
        )


def test_a_word_that_ends_in_no_inflected_end_is_its_own_lemma() -> None:
    # The store's content words look up only the words that end in one of these.
    from pi_memory.detect.text_features import INFLECTED_ENDS, lemma
    from tests.similarity_stores import realistic_store

    stems = ["walk", "stud", "run", "box", "quick", "releas", "kat", "go", "a", "mix"]
    ends = ["", "s", "es", "ies", "ed", "ing", "ly", "e", "er", "ment", "ful", "ion", "ish"]
    words = [stem + end for stem in stems for end in ends]
    words += [w.lower() for e in realistic_store(300, 2) for w in e.body.split() if w.isalpha()]
    changed = [word for word in words if lemma(word) != word]
    assert {word[-1] for word in changed} == set(INFLECTED_ENDS)
    assert all(word.endswith(INFLECTED_ENDS) for word in changed)


def test_content_ids_are_the_lemmas_of_the_words_but_the_function_words() -> None:
    from pi_memory.detect.text_features import Vocabulary, content_ids

    ids = Vocabulary(zip(["deploys", "the", "deploy", "rsync", "releases", "v2"], range(6)))
    words = [frozenset({0, 1, 3}), frozenset({2, 3}), frozenset({4, 1}), frozenset({1})]
    found = content_ids([*words, frozenset()], ids, range(5))
    # A lemma no word spells is numbered after every word; "v2" is never looked up.
    assert ids["releas"] == 6 == len(ids) - 1
    assert found == [{2, 3}, {2, 3}, {6}, set(), set()]

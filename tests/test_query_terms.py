"""A query read as a question: scaffolding dropped, hyphenated words split, irregular forms,
dates found in a memory's time."""

from __future__ import annotations

from datetime import datetime

from pi_memory.entry import Entry
from pi_memory.query_terms import Term, forms_of, terms
from pi_memory.retrieval import search
from pi_memory.tokens import tokenize

NOW = datetime(2026, 10, 1, 10, 0, 0)


def asked(query: str) -> list[str]:
    return [term.token for term in terms(query, tokenize(query))]


def entry(id_: str, body: str, time: str = "2025-03-02 10:00:00", keyword: str = "misc") -> Entry:
    return Entry(
        id=id_, time=time, project="p", src="user", keyword=keyword, body=body,
        layer="project", file="LOG.md",
    )  # fmt: skip


def ids(query: str, entries: list[Entry]) -> list[str]:
    return [hit.entry.id for hit in search(entries, query, now=NOW).hits]


def test_scaffolding_is_dropped_while_something_else_is_asked() -> None:
    assert asked("How long has Melanie been painting?") == ["melanie", "painting"]
    assert asked("What kind of art does Caroline make?") == ["art", "caroline", "make"]
    assert asked("Would Melanie likely enjoy Vivaldi?") == ["melanie", "enjoy", "vivaldi"]
    # How the answer was put is not what it is about.
    assert asked("What did John mention about his car?") == ["john", "car"]
    assert asked("How does Gina describe the studio?") == ["gina", "studio"]
    # Not scaffolding where it names the topic, and never the whole query.
    assert asked("a long hike") == ["long", "hike"]
    assert asked("what kind of") == ["kind"]
    assert asked("how long") == ["long"]
    assert asked("describe") == ["describe"]


def test_a_hyphenated_word_is_also_its_parts_an_identifier_stays_whole() -> None:
    assert asked("self-care routine") == ["self-care", "routine", "self", "care"]
    assert asked("src/store.ts --delete node.js") == ["src/store.ts", "--delete", "node.js"]
    assert asked("e2e-tests") == ["e2e-tests"]


def test_irregular_forms_at_least_four_letters() -> None:
    assert forms_of("went") == ("went", "goes", "going", "gone")
    assert forms_of("go") == ("go", "went")
    assert forms_of("children") == ("children", "child")
    assert forms_of("ran") == ("ran", "running")  # "run" would be found inside "brunch"
    assert forms_of("painted") == ("paint",)


def test_a_word_that_drops_its_e_for_ing_is_found_in_its_ing_form() -> None:
    # Cut before the e: one form finds both.
    assert forms_of("dance") == ("danc",)
    assert forms_of("change") == ("chang",)
    # Four letters would cut to three, found inside other words (``fil`` in ``film``).
    assert forms_of("hike") == ("hike", "hiking")
    assert forms_of("file") == ("file", "filing")
    # Not a word that keeps its e (``seeing``), and not past an irregular group.
    assert forms_of("free") == ("free",)
    assert forms_of("june") == ("june",)
    assert forms_of("make") == ("make", "made", "making")


def test_a_plural_is_cut_as_its_word_is() -> None:
    assert forms_of("changes") == ("chang",)
    assert forms_of("dances") == ("danc",)
    assert forms_of("hikes") == ("hike", "hiking")
    # An adverb is no plural: ``rare`` is not looked for as ``raring``.
    assert forms_of("rarely") == ("rare",)


def test_an_adjective_and_its_noun_find_each_other() -> None:
    assert forms_of("confident") == forms_of("confidence") == ("confiden",)
    assert forms_of("important") == forms_of("importance") == ("importan",)
    assert forms_of("differences") == ("differen",)
    # Short words are no such pair (``agent``, ``parent``, ``balance``).
    assert forms_of("parent") == ("parent",)
    assert forms_of("balance") == ("balanc",)
    entries = [
        entry("20250302-0001", "Gina gains confidence from her sales."),
        entry("20250302-0002", "Gina is in business."),
    ]
    assert ids("Is Gina confident?", entries)[0] == "20250302-0001"
    assert ids("confident", entries) == ["20250302-0001"]


def test_a_short_ily_word_is_not_cut_to_a_piece_of_another_word() -> None:
    assert forms_of("family") == ("family",)
    assert forms_of("happily") == ("happi",)


def test_the_forms_find_the_memory_and_only_it() -> None:
    entries = [
        entry("20250302-0001", "Jon has been dancing since he was a kid."),
        entry("20250302-0002", "Jon is familiar with the studio's lease."),
        entry("20250302-0003", "Jon's family came to the opening."),
    ]
    assert ids("dance", entries) == ["20250302-0001"]
    assert ids("Jon family", entries)[0] == "20250302-0003"
    assert "20250302-0002" not in ids("family", entries)


def test_a_month_or_a_year_is_also_looked_for_in_the_time() -> None:
    (june,) = terms("in June", ["june"])
    assert june == Term("june", ("june",), "-06-")
    assert [t.time for t in terms("camping 2023", ["camping", "2023"])] == ["", "2023"]
    # "may" is a month only beside a number.
    assert [t.time for t in terms("what may help", ["help"])] == [""]
    assert [t.time for t in terms("on 8 May", ["may"])] == ["-05-"]
    assert [t.time for t in terms("room 2023", ["room", "1066"])] == ["", ""]


def test_an_irregular_form_finds_the_memory() -> None:
    entries = [
        entry("20250302-0001", "Melanie went camping with her kids."),
        entry("20250302-0002", "Melanie likes camping gear reviews."),
    ]
    assert ids("When did Melanie go camping?", entries)[0] == "20250302-0001"


def test_the_month_asked_ranks_the_memory_of_that_month_first() -> None:
    entries = [
        entry("20250302-0001", "Lake camping trip.", time="2025-03-02 10:00:00"),
        entry("20250302-0002", "Hills camping trip.", time="2024-06-14 10:00:00"),
    ]
    assert ids("camping in June", entries)[0] == "20250302-0002"
    # A date alone is no topic: the other memory of June does not match.
    entries.append(entry("20250302-0003", "Bought a bike.", time="2025-06-20 10:00:00"))
    assert ids("camping in June", entries) == ["20250302-0002", "20250302-0001"]


def test_the_day_of_a_whole_date_is_looked_for_in_the_time() -> None:
    def times(query: str) -> list[str]:
        return [term.time for term in terms(query, tokenize(query))]

    assert times("painting on October 13, 2023") == ["", "-10-", "2023-10-13", "2023"]
    assert times("store on 1 February, 2023") == ["", "2023-02-01", "-02-", "2023"]
    assert times("dinner on 7 July") == ["", "-07-07", "-07-"]
    # A number that is no day of a month asked beside it is no date.
    assert times("room 13 in June") == ["", "", "-06-"]
    assert times("32 July") == ["", "-07-"]


def test_the_day_asked_ranks_that_day_first() -> None:
    entries = [
        entry("20231020-0001", "Melanie showed a painting.", time="2023-10-20 10:00:00"),
        entry("20231013-0002", "Melanie showed a painting.", time="2023-10-13 10:00:00"),
        entry("20221013-0003", "Melanie showed a painting.", time="2022-10-13 10:00:00"),
    ]
    asked = "What painting did Melanie show on October 13, 2023?"
    assert ids(asked, entries)[0] == "20231013-0002"
    # Without the year, the day in any year.
    assert ids("painting shown on 13 October", entries)[2] == "20231020-0001"


def test_a_memory_holding_an_answer_of_the_shape_asked_ranks_first() -> None:
    newer = "2025-06-01 10:00:00"
    entries = [
        entry("20250302-0001", "Melanie went camping with the kids.", time=newer),
        entry("20250302-0002", "Melanie went camping with the kids last week."),
    ]
    assert ids("When did Melanie go camping?", entries)[0] == "20250302-0002"
    # Not asked when: the newer memory first, as before.
    assert ids("Where did Melanie go camping?", entries)[0] == "20250302-0001"
    entries = [
        entry("20250302-0001", "Melanie has kids who love hiking.", time=newer),
        entry("20250302-0002", "Melanie has three kids."),
    ]
    assert ids("How many kids does Melanie have?", entries)[0] == "20250302-0002"
    entries = [
        entry("20250302-0001", "Melanie and her husband are married.", time=newer),
        entry("20250302-0002", "Melanie and her husband have been married five years."),
    ]
    assert ids("How long have Melanie and her husband been married?", entries)[0] == (
        "20250302-0002"
    )
    entries = [
        entry("20250302-0001", "John goes to the gym.", time=newer),
        entry("20250302-0002", "John goes to the gym twice a week."),
    ]
    assert ids("How often does John go to the gym?", entries)[0] == "20250302-0002"


def test_scaffolding_does_not_outweigh_the_topic() -> None:
    entries = [
        entry("20250302-0001", "Melanie has painted for seven years."),
        entry("20250302-0002", "Melanie took the long road home."),
    ]
    assert ids("How long has Melanie painted?", entries)[0] == "20250302-0001"

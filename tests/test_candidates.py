"""A list of people to rank, by id or name, from a file or pasted; rankings within it."""

import numpy as np
import pytest
from rankers_helpers import tiny_collection

from expert_gui.core.data.candidates import match_candidates, read_candidates
from expert_gui.core.errors import InputFileError, QueryError
from expert_gui.core.rankers.candidates import Restricted, on_people
from expert_gui.core.rankers.methods import make_ranker

IDS = ["p1", "p2", "p3", "p4"]
NAMES = ["Ann Lee", "Bob Stone", "Ann Lee", "Cy Young"]


def test_ids_then_names_in_the_order_named():
    text = "p4\n\n# the pool\n  bob   STONE \np4\np1\n"
    assert match_candidates(text, IDS, NAMES) == [3, 1, 0]


@pytest.mark.parametrize("text, line, message", [
    ("p1\nAnn Lee\n", 2, "name of 2 people (p1, p3)"),
    ("p1\nZed\n", 2, "'Zed' is no person's id or name"),
    ("# nobody\n\n", None, "names nobody"),
])
def test_a_line_naming_nobody_or_several_is_an_error_naming_the_line(text, line, message):
    with pytest.raises(InputFileError) as err:
        match_candidates(text, IDS, NAMES, "pool.txt")
    assert err.value.line == line and message in str(err.value)
    assert str(err.value).startswith("pool.txt")


def test_read_from_a_file(tmp_path):
    path = tmp_path / "pool.txt"
    path.write_text("\ufeffp2\nCy Young\n", encoding="utf-8")
    assert read_candidates(path, IDS, NAMES) == [1, 3]
    path.write_bytes(b"p1\n\xff\n")
    with pytest.raises(InputFileError, match="UTF-8"):
        read_candidates(path, IDS, NAMES)


def test_restricted_rankings_keep_the_methods_order_and_scores():
    c = tiny_collection()
    ranker = make_ranker("tfidf", collection=c)
    chosen = [c.person_ids[i] for i in (3, 0, 2)]
    full = ranker.rank("ring buffer lockless")
    within = Restricted(ranker, chosen).rank("ring buffer lockless", depth=2)
    want = [(p, s) for p, s in full.top() if p in chosen][:2]
    assert within.top() == want and within.n_candidates == 3
    assert sorted(within.candidates.tolist()) == [0, 2, 3]
    assert Restricted(ranker, chosen).name == ranker.name
    with pytest.raises(QueryError, match="does not rank"):
        Restricted(ranker, ["nobody"])
    assert np.all(np.diff(within.scores) <= 0)


def test_a_ranking_of_more_people_is_put_in_the_order_of_fewer():
    """A baseline over every document ranks people a model trained without some never saw."""
    ranking = make_ranker("tfidf", collection=tiny_collection()).rank("ring")
    model_people = [p for p in reversed(ranking.person_ids) if p != ranking.top(1)[0][0]]
    moved = on_people(ranking, model_people)
    assert moved.person_ids == model_people
    assert [p for p, _ in moved.top()] == [p for p, _ in ranking.top()
                                           if p in model_people]
    assert list(moved.scores) == [s for p, s in ranking.top() if p in model_people]

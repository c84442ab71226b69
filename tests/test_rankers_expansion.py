import numpy as np
from rankers_helpers import random_model, tiny_collection

from expert_gui.core.model.neighbours import nearest_words
from expert_gui.core.rankers.language_models import Model1
from expert_gui.core.rankers.methods import make_ranker


def test_expanded_model1_scores_the_query_plus_each_words_neighbours():
    collection = tiny_collection()
    model = random_model(collection)
    ranker = make_ranker("model1-jm", model=model, collection=collection, expand=2)
    ranking = ranker.rank("ring ice zebra")
    added = [n.word for w in ("ring", "ice")
             for n in nearest_words(model, [model.vocab.index[w]], 2)]
    assert ranking.extra["expansion"] == added
    assert ranking.known_words == ("ring", "ice") and ranking.unknown_words == ("zebra",)
    plain = Model1(collection).rank("ring ice " + " ".join(added))
    np.testing.assert_allclose(ranking.scores, plain.scores)
    assert ranking.people.tolist() == plain.people.tolist()
    assert ranker.rank("zebra").no_known_words

"""Expert profiling with the log-linear model: what a person knows, and who works on the same.

Expert finding asks "who knows about q?"; profiling asks its dual, "what does c know?" (Balog et
al.). The trained model answers it with no further pass over the documents.

Words. Eq. 1 gives P(c|w) for every word w. Bayes turns it around: P(w|c) = P(c|w) P(w) / P(c),
with P(w) the word's share of the collection's tokens (the distribution training draws its
n-grams from) and P(c) = sum_w P(c|w) P(w), the prior of c the model implies. `WORD_SCORES`:
- "kl" (the default): P(w|c) log(P(w|c) / P(w)), the word's term in KL(P(.|c) || P(.)), the
  divergence of c's words from everybody's: words c uses often *and* more than the others do.
- "bayes": P(w|c). Led by the collection's most frequent words ("net", "flow", "add" on
  DPDK), much the same for everyone.
- "posterior": P(c|w), Eq. 1 itself. Led by rare words that c happened to use ("aforementioned",
  "wrongly"), since a word seen once belongs wholly to its one author.
`docs/results/profiles-dpdk/README.md` compares the three on DPDK.

All three need log P(c|w) = W_c[c] . W_p[w] + b_c - log Z_1(w), and Z_1(w) sums over every
person. `Profiler.prepare` computes the |V| normalisers and the |C| priors once per model (one
|V| x |C| product, in chunks); after that a person's words cost one |V| x e product.

Topics of an open set are ranked for a person by the person's rank in each topic's ranking
(`TopicScores`), ties broken by P(c|q). P(c|q) itself is not comparable across topics: a topic
with two experts gives each about 1/2, one with twenty about 1/20. Dividing by P(c) does not
help here, being the same for every topic of one person: it orders topics as P(c|q) does (by
Bayes P(c|q)/P(c) = P(q|c)/P(q), so it is also the order of P(q|c) under a uniform P(q)). A
rank is normalised per topic by construction, and reads plainly ("2nd of 1,473 for Ring"). On
the DPDK dev topics it gives a higher MAP than P(c|q) for both the log-linear model and Model 2
(docs/results/profiles-dpdk/); "probability" (P(c|q), equivalently the lift P(c|q)/P(c)) is
kept as `TOPIC_ORDERS`' alternative.

Similar people: cosine between rows of W_c, each with the words that characterise both (the
larger minimum of the two people's KL terms); and, from the collection, the people who share
documents with c (co-authors).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import log_softmax

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import NUMBER_TOKEN, PAD_TOKEN
from expert_gui.core.errors import UnknownPersonError
from expert_gui.core.explore.timeline import (
    PERIODS,
    documents_about,
    documents_per_period,
    tokens_of,
)
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.model.marginals import marginals, word_log_frequencies
from expert_gui.core.rankers.ranking import Ranker, order_by_score

WORD_SCORES = ("kl", "bayes", "posterior")
WORD_SCORE_LABELS = {"kl": "P(w|c) log(P(w|c)/P(w))", "bayes": "P(w|c)", "posterior": "P(c|w)"}
# How a person's topics are ordered: by their rank in each topic (then P(c|q)), or by P(c|q).
TOPIC_ORDERS = ("rank", "probability")
# Words of the profile that similar people are compared on, and how many are shown as the reason.
REASON_POOL = 50
REASON_WORDS = 3


@dataclass(frozen=True)
class ProfileWord:
    word: str
    word_id: int
    score: float
    log_p_word: float  # log P(w|c)
    log_p_person: float  # log P(c|w), Eq. 1
    documents: int | None  # the person's documents that hold the word (None: no collection)


@dataclass(frozen=True)
class ProfileTopic:
    topic_id: str
    query: str
    rank: int  # the person's place in the topic's ranking, 1 = first
    probability: float  # P(c|q)

    @property
    def score(self) -> float:
        """1/rank: the reciprocal rank of the paper's Eq. 5."""
        return 1.0 / self.rank


@dataclass(frozen=True)
class SimilarPerson:
    person: int
    person_id: str
    name: str
    score: float  # cosine of the two rows of W_c
    words: tuple[str, ...]  # the reason: words that characterise both


@dataclass(frozen=True)
class Coauthor:
    person: int
    person_id: str
    name: str
    documents: int  # documents the two share


@dataclass(frozen=True)
class Profile:
    person: int
    person_id: str
    name: str
    word_score: str
    words: tuple[ProfileWord, ...]
    topics: tuple[ProfileTopic, ...] | None  # None without a topic set
    similar: tuple[SimilarPerson, ...]
    coauthors: tuple[Coauthor, ...]
    documents: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # doc indices
    timeline: tuple[tuple[str, int], ...] = ()  # (period, documents), empty without dates
    period: str = "year"

    def to_dict(self) -> dict:
        """The CLI's JSON: the keys of issue 13, with each entry's evidence beside its score."""
        out = {
            "person": self.person_id,
            "name": self.name,
            "words": [{"word": w.word, "score": w.score, "documents": w.documents}
                      for w in self.words],
        }
        if self.topics is not None:
            out["topics"] = [{"topic_id": t.topic_id, "score": t.score, "rank": t.rank,
                              "probability": t.probability} for t in self.topics]
        out["similar"] = [{"person": s.person_id, "score": s.score, "name": s.name,
                           "words": list(s.words)} for s in self.similar]
        out["coauthors"] = [{"person": a.person_id, "documents": a.documents, "name": a.name}
                            for a in self.coauthors]
        out["timeline"] = [{"period": p, "documents": n} for p, n in self.timeline]
        return out


@dataclass(frozen=True)
class TopicScores:
    """Every person's log P(c|q) and rank (1 = first) in every topic of a set: T x C each.

    Topics none of whose words the ranker knows rank nobody and are left out.
    """

    topic_ids: tuple[str, ...]
    queries: tuple[str, ...]
    log_probs: np.ndarray
    ranks: np.ndarray

    def for_person(self, person: int, k: int | None = None,
                   order: str = "rank") -> tuple[ProfileTopic, ...]:
        """The topics best first: by the person's rank in each, then by P(c|q) ("rank"), or by
        P(c|q) alone ("probability"); ties by topic order."""
        if order not in TOPIC_ORDERS:
            raise ValueError(f"topic order must be one of {TOPIC_ORDERS}, not {order!r}")
        ranks, logp = self.ranks[:, person], self.log_probs[:, person]
        keys = (-logp, ranks) if order == "rank" else (-logp,)
        best = np.lexsort((np.arange(len(ranks)), *keys))[:k]
        return tuple(ProfileTopic(self.topic_ids[t], self.queries[t], int(ranks[t]),
                                  float(np.exp(logp[t]))) for t in best)


def score_topics(ranker: Ranker, queries: Mapping[str, str],
                 should_stop: Callable[[], bool] | None = None) -> TopicScores:
    """Rank every person for every topic with `ranker`.

    Its scores are read as log-likelihoods up to a constant per topic, so a softmax over people
    gives P(c|q): the log-linear model's own P(c|q) (Eq. 2), and for Model 1 and 2, whose score
    is log P(q|c), the posterior under a uniform prior, as Balog et al. assume.
    """
    from expert_gui.core.rankers.batch import block_size, blocks

    ids, texts, rows = [], [], []
    n = len(ranker.person_ids)
    for part in blocks(list(queries.items()), block_size(ranker)):
        if should_stop is not None and should_stop():
            break
        for (topic_id, query), ranking in zip(part, ranker.rank_batch([q for _, q in part]),
                                              strict=True):
            if ranking.no_known_words:
                continue
            scores = np.full(n, -np.inf)
            scores[ranking.people] = ranking.scores
            ids.append(topic_id)
            texts.append(query)
            rows.append(log_softmax(scores))
    log_probs = np.array(rows, dtype=np.float64).reshape(len(rows), n)
    ranks = np.empty(log_probs.shape, dtype=np.int64)
    order = np.argsort(-log_probs, axis=1, kind="stable")
    np.put_along_axis(ranks, order, np.arange(1, n + 1)[None, :], axis=1)
    return TopicScores(tuple(ids), tuple(texts), log_probs, ranks)


class Profiler:
    """Profiles of a model's people; the collection (optional) adds documents, co-authors and the
    timeline. Call `prepare` once (it is the slow part; every profile calls it when needed)."""

    def __init__(self, model: LogLinearModel, collection: Collection | None = None):
        self.model = model
        self.collection = collection
        self.person_ids = model.person_ids
        self._index = {p: i for i, p in enumerate(model.person_ids)}
        self.log_p_word = word_log_frequencies(model)  # log P(w); -inf for <pad>
        hidden = [model.vocab.index[w] for w in (PAD_TOKEN, NUMBER_TOKEN)
                  if w in model.vocab.index]
        self.listed = np.ones(len(self.log_p_word), dtype=bool)  # words a profile may show
        self.listed[hidden] = False
        self.listed &= np.isfinite(self.log_p_word)
        self._weights = np.ascontiguousarray(model.candidate_weights, dtype=np.float32)
        norms = np.linalg.norm(self._weights, axis=1, keepdims=True)
        self._unit = self._weights / np.where(norms > 0, norms, 1.0)
        self.log_z: np.ndarray | None = None  # log Z_1(w) of Eq. 1, per word
        self.log_prior: np.ndarray | None = None  # log P(c) = log sum_w P(c|w) P(w)
        self._words_in_collection = None if collection is None else _word_map(model, collection)
        self._last_scores: tuple | None = None
        self._preparing = threading.Lock()  # the GUI may ask from two workers at once

    # -- the one-off part ------------------------------------------------------------------------
    def prepare(self, should_stop: Callable[[], bool] | None = None) -> bool:
        """log Z_1(w) for every word and log P(c) for every person; False if stopped."""
        with self._preparing:
            return self._prepare(should_stop)

    def _prepare(self, should_stop: Callable[[], bool] | None) -> bool:
        if self.log_z is not None:
            return True
        found = marginals(self.model, should_stop)
        if found is None:
            return False
        self.log_z, self.log_prior = found.log_z, found.log_prior
        return True

    # -- look-ups -----------------------------------------------------------------------------
    def person(self, person_id: str) -> int:
        """The index of a person id; an unknown id raises with the closest known ids."""
        i = self._index.get(person_id)
        if i is None:
            raise UnknownPersonError(person_id, closest_ids(person_id, self.model.person_ids,
                                                            self.model.person_names))
        return i

    # -- words --------------------------------------------------------------------------------
    def log_p_person_given_word(self, person: int) -> np.ndarray:
        """log P(c|w) of Eq. 1 for every word: one |V| x e product."""
        self.prepare()
        logits = self.model.word_embeddings @ self._weights[person]
        return logits.astype(np.float64) + float(self.model.candidate_bias[person]) - self.log_z

    def word_scores(self, person: int, score: str = "kl") -> tuple[np.ndarray, np.ndarray,
                                                                     np.ndarray]:
        """(score, log P(w|c), log P(c|w)) for every word; -inf for words a profile never lists.

        The last person's are kept: a profile asks for them twice (its words, the reasons of
        its similar people)."""
        if score not in WORD_SCORES:
            raise ValueError(f"word score must be one of {WORD_SCORES}, not {score!r}")
        last = self._last_scores
        if last is not None and last[0] == (person, score):
            return last[1]
        log_pcw = self.log_p_person_given_word(person)
        with np.errstate(invalid="ignore"):
            log_pwc = log_pcw + self.log_p_word - self.log_prior[person]
            if score == "kl":
                values = np.exp(log_pwc) * (log_pwc - self.log_p_word)
            elif score == "bayes":
                values = np.exp(log_pwc)
            else:
                values = np.exp(log_pcw)
        values = np.where(self.listed, values, -np.inf)
        self._last_scores = ((person, score), (values, log_pwc, log_pcw))
        return values, log_pwc, log_pcw

    def words(self, person: int, k: int = 20, score: str = "kl") -> tuple[ProfileWord, ...]:
        values, log_pwc, log_pcw = self.word_scores(person, score)
        top = top_indices(values, k)
        counts = self._document_counts(person, top)
        words = self.model.vocab.words
        return tuple(ProfileWord(words[w], int(w), float(values[w]), float(log_pwc[w]),
                                 float(log_pcw[w]), None if counts is None else int(counts[i]))
                     for i, w in enumerate(top))

    def _document_counts(self, person: int, word_ids: np.ndarray) -> np.ndarray | None:
        """How many of the person's documents hold each word (None without the collection)."""
        c = self.collection
        p = None if c is None else c.person_index.get(self.person_ids[person])
        if p is None:
            return None
        cids = self._words_in_collection[word_ids]
        tokens, doc_of = tokens_of(c, c.documents_of(p))
        hit = np.isin(tokens, cids[cids >= 0])
        pairs = np.unique(doc_of[hit] * len(c.vocab) + tokens[hit])
        per_word = np.bincount(pairs % len(c.vocab), minlength=len(c.vocab))
        return np.where(cids >= 0, per_word[np.maximum(cids, 0)], 0)

    # -- people -------------------------------------------------------------------------------
    def similar(self, person: int, k: int = 10, score: str = "kl") -> tuple[SimilarPerson, ...]:
        """The k people with the closest W_c rows (cosine), each with the words that tie them:
        of c's top `REASON_POOL` words, those whose KL term is largest for both (the larger
        minimum of the two), so a word must characterise each of them."""
        sims = self._unit @ self._unit[person]
        sims[person] = -np.inf
        top = top_indices(sims, k)
        values, log_pwc, _ = self.word_scores(person, score)
        pool = top_indices(values, REASON_POOL)
        log_pw = self.log_p_word[pool, None]
        mine = np.exp(log_pwc[pool, None]) * (log_pwc[pool, None] - log_pw)
        # log P(w|c') = log P(c'|w) + log P(w) - log P(c') for the pool's words only.
        emb = self.model.word_embeddings[pool].astype(np.float64)
        theirs = (emb @ self._weights[top].T.astype(np.float64) + self.model.candidate_bias[top]
                  - self.log_z[pool, None] + log_pw - self.log_prior[top])
        both = np.minimum(mine, np.exp(theirs) * (theirs - log_pw))
        words = self.model.vocab.words
        out = []
        for j, q in enumerate(top):
            best = pool[np.argsort(-both[:, j], kind="stable")[:REASON_WORDS]]
            out.append(SimilarPerson(int(q), self.person_ids[q], self.model.person_names[q],
                                     float(sims[q]), tuple(words[w] for w in best)))
        return tuple(out)

    def coauthors(self, person: int, k: int = 10) -> tuple[Coauthor, ...]:
        """People who share documents with this one, most shared first (ties by id)."""
        c = self.collection
        p = None if c is None else c.person_index.get(self.person_ids[person])
        if p is None:
            return ()
        docs = c.documents_of(p)
        starts, ends = c.assoc_indptr[docs], c.assoc_indptr[docs + 1]
        people = np.concatenate([c.assoc_people[s:e] for s, e in
                                 zip(starts.tolist(), ends.tolist(), strict=True)]
                                ) if len(docs) else np.zeros(0, np.int32)
        shared = np.bincount(people, minlength=c.n_people)
        shared[p] = 0
        found = np.flatnonzero(shared)
        found = found[np.lexsort((found, -shared[found]))][:k]
        out = []
        for q in found.tolist():
            mine = self._index.get(c.person_ids[q], -1)
            out.append(Coauthor(mine, c.person_ids[q], c.person_names[q], int(shared[q])))
        return tuple(out)

    # -- documents ----------------------------------------------------------------------------
    def documents(self, person: int) -> np.ndarray:
        """The person's document indices in the collection, newest first when dated."""
        c = self.collection
        p = None if c is None else c.person_index.get(self.person_ids[person])
        if p is None:
            return np.zeros(0, dtype=np.int64)
        docs = c.documents_of(p)
        if c.has_dates:  # undated (NaT, the smallest int64) last; same day: collection order
            days = c.doc_dates[docs].astype(np.int64)
            docs = docs[np.lexsort((-docs, days))[::-1]]
        return docs

    # -- everything ---------------------------------------------------------------------------
    def profile(self, person: int | str, k: int = 20, topics: TopicScores | None = None,
                word_score: str = "kl", period: str = "year") -> Profile:
        """A person's profile: k words, k topics (given a topic set), k similar people, k
        co-authors, their documents and their documents per period."""
        if period not in PERIODS:
            raise ValueError(f"period must be one of {PERIODS}, not {period!r}")
        i = self.person(person) if isinstance(person, str) else int(person)
        docs = self.documents(i)
        timeline = ()
        if self.collection is not None and self.collection.has_dates:
            timeline = tuple(documents_per_period(self.collection.doc_dates[docs], period))
        return Profile(
            person=i, person_id=self.person_ids[i], name=self.model.person_names[i],
            word_score=word_score,
            words=self.words(i, k, word_score),
            topics=None if topics is None else topics.for_person(i, k),
            similar=self.similar(i, k, word_score),
            coauthors=self.coauthors(i, k),
            documents=docs,
            timeline=timeline,
            period=period,
        )

    def about(self, profile: Profile, query: str) -> tuple[np.ndarray, tuple[tuple[str, int], ...]]:
        """When the person worked on a word or a topic: which of their documents are about it
        (`timeline.documents_about`), and how many of those fall in each period of their
        timeline."""
        c = self.collection
        if c is None:
            return np.zeros(len(profile.documents), dtype=bool), ()
        about = documents_about(c, profile.documents, query)
        per_period = ()
        if profile.timeline:
            span = (profile.timeline[0][0], profile.timeline[-1][0])
            per_period = tuple(documents_per_period(c.doc_dates[profile.documents[about]],
                                                    profile.period, span))
        return about, per_period


def closest_ids(wanted: str, person_ids: Sequence[str], names: Sequence[str],
                n: int = 5) -> list[str]:
    """Known ids most like `wanted`: by id, by display name, and ids that contain it."""
    key = wanted.lower()
    lower = {p.lower(): p for p in person_ids}
    by_name = {}
    for p, name in zip(person_ids, names, strict=True):
        by_name.setdefault(name.lower(), p)
    found = [lower[m] for m in difflib.get_close_matches(key, list(lower), n=n, cutoff=0.6)]
    found += [by_name[m] for m in difflib.get_close_matches(key, list(by_name), n=n, cutoff=0.6)]
    found += [p for p in person_ids if key and key in p.lower()]
    return list(dict.fromkeys(found))[:n]


def top_indices(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest finite values, largest first (ties by index)."""
    top = order_by_score(values, max(k, 0))
    return top[np.isfinite(values[top])]


def _word_map(model: LogLinearModel, collection: Collection) -> np.ndarray:
    """The collection's id of each model word (-1: not in the collection's vocabulary)."""
    if model.vocab.words == collection.vocab.words:
        return np.arange(len(model.vocab), dtype=np.int64)
    index = collection.vocab.index
    return np.array([index.get(w, -1) for w in model.vocab.words], dtype=np.int64)

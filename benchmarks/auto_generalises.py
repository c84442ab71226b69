"""Does `auto` follow the best method on queries from outside the collection? The shared proxies
of issue 29 (part 2), each over seeds, and the calibration rules that could choose `auto`'s
weights, prototyped on pseudo-queries made from the collection alone.

    .venv/bin/python benchmarks/auto_generalises.py [--data ../shared/data] [--demo resources/demo]
        [--models DIR] [--seeds 0 1 2] [--sets dpdk-dev dpdk-commits dpdk-commits-others
        aminer-areas aminer-papers demo dpdk-pool-commits aminer-experts-papers] [--epochs N]
        [--paper-settings] [--every-document]
        [--threads 1] [--json OUT]

Query sets (their model in brackets; a model per seed S, its documents held out seeded by S,
trained as `expert-gui train` trained it before every document counted: the collection's
suggested settings, or --epochs, the measured model kept, `retrain_on_all=False`):
- dpdk-dev [dpdk]: the 158 MAINTAINERS section titles of topics.dev.tsv, short topics;
- dpdk-commits [dpdk]: the model's held-out commits of a driver section (net/ice: ... for "Intel
  ice", found by the prefix naming a word of the section's title in its group, e.g. net/ for
  "Networking Drivers"), each a query for that section; its relevant people are the section's
  maintainers (qrels.dev.txt). Held-out commits are out of the model's collection, as a query
  from outside is;
- dpdk-commits-others [dpdk]: the same, with the commit's author no longer a candidate (nor
  relevant): who else knows this, as a reviewer is found for another person's paper;
- aminer-areas [aminer]: the 7 AMiner research areas;
- aminer-papers [aminer-papers]: the 114 AMiner papers of topics-documents.tsv as queries, with
  the papers removed from the collection (`experiment --exclude-topic-documents`); relevant: the
  experts of the paper's area (qrels-documents.txt), not its authors;
- demo [demo]: the demo's 30 topics (resources/demo, its train_settings.json);
- dpdk-pool-commits [dpdk-pool]: a reviewer pool made of DPDK, as the issue's reviewer set is
  made (58 reviewers, their own papers, other people's papers as queries): the collection holds
  only the commits of the POOL most prolific authors; the queries are the commits of a judged
  driver section written by nobody in the pool, each a query for its section, its maintainers in
  the pool relevant;
- aminer-experts-papers [aminer-experts]: the same made of AMiner: the collection holds only the
  papers of the people on its expert lists (54 with a paper), linked to them alone; the queries
  are the topic papers none of them wrote, the experts of the paper's area relevant.

With --every-document each model is the one `expert-gui train` keeps by default now: measured and
calibrated as above, then trained again on every document (`retrain_on_all`), ranked by `auto`
with the measured model's calibration; kept under DIR/every-document. That model has seen its
held-out commits, so the DPDK model of seed S is trained on DPDK without the commits of the
dpdk-commits sets (the commits that seed holds out that are matched to a driver section, 260-285,
about 0.6% of DPDK), removed as aminer-papers removes its papers; they are the queries of
dpdk-commits and dpdk-commits-others, and dpdk-dev is ranked by that same model. The pseudo-query
sets and the rules built on them are left out: the model has seen those documents.

Every member (log-linear, Model 2 (jm), Model 1 (d)) and the ensemble (Eq. 5) ranks every query
once; scores are kept (DIR/<model>/seed-S/scores-<set>.npz) so that the rules are compared
offline. AP over the whole ranking (every candidate), relevant people without documents counted
as never found, as ir-measures counts them; MAP over the judged queries.

Pseudo-query sets, from the model's held-out documents alone (no qrels; dpdk-commits' queries
left out of them):
- documents: the whole held-out document, its people relevant (what the calibration uses today);
- first-words: its first 8 words, its people relevant;
- salient: its 4 words of highest tf-idf (idf from the training collection), its people relevant;
- coauthors: the whole document; its own people are no longer candidates, and their co-authors
  (who share a training document with one of them) are relevant (documents with co-authors only);
- neighbours: the whole document; its own people are no longer candidates, and the people of its
  5 nearest training documents (TF-IDF cosine) are relevant;
- topical: the document without its people's own words (a word of which they hold at least
  SIGNATURE_SHARE of the training documents), its people relevant: the topic as an outsider
  would write it, without the phrasing the log-linear model can memorise.

Rules (the weights of auto's z-score fusion over the three members): `auto` is what the app
ranks with, the model's own calibration (core/evaluation/fusion_choice.py on `documents`): its
short-topic weights (`current-short`) for queries of at most SHORT_WORDS words and its
whole-document weights (`current`) for longer ones (a model calibrated before short topics had
weights of their own: `current` for every query); `gated:P` that same rule on
pseudo-set P; `best-fixed:P` the best on P of five fixed fusions (each member alone, the log-
linear model and Model 2 (jm) with equal weights, all three with equal weights); a pseudo-set
of fewer than 10 queries leaves the model's own weights; `short A / long B` chooses per query:
queries of at most SHORT_WORDS words rank with rule A's weights, longer ones with rule B's. Printed: per set and seed, every method's MAP, the best single method, and what
each rule scores; then, per rule, its worst and mean distance to the best single method.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import Tokenizer
from expert_gui.core.data.topics import read_topics
from expert_gui.core.evaluation.calibration import index_for, train_and_calibrate
from expert_gui.core.evaluation.every_document import retrained
from expert_gui.core.evaluation.fusion_choice import MIN_DOCUMENTS, choose_fusion
from expert_gui.core.evaluation.heldout import (
    HeldOutSettings,
    held_out_again,
    hold_out,
    without_documents,
)
from expert_gui.core.evaluation.qrels import read_qrels
from expert_gui.core.rankers.fusion import average_precisions, simplex_grid, zscores
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.query_type import LONG_QUERY_WORDS
from expert_gui.core.store.manifest import MEMBERS
from expert_gui.core.store.storage import load_model
from expert_gui.core.train.settings import TrainSettings, suggested_settings

SINGLE = (*MEMBERS, "ensemble")  # the single methods auto is compared with
SHORT_WORDS = LONG_QUERY_WORDS  # a query of at most this many words is a short topic
TOP_COMBINATIONS = 15  # of the short/long rules, the best this many are printed (all in --json)
SHORT_RULES = ("current", "gated:first-words", "gated:salient", "best-fixed:salient", "pair",
               "loglinear")
LONG_RULES = ("current", "gated:coauthors", "best-fixed:coauthors", "gated:neighbours",
              "gated:topical", "best-fixed:topical", "pair",
              "loglinear", "model1-d", "thirds")
PSEUDO = ("documents", "first-words", "salient", "coauthors", "neighbours", "topical")
SIGNATURE_SHARE = 0.5  # a word its people hold this share of the documents of is their own
FIXED = {"loglinear": (1, 0, 0), "model2-jm": (0, 1, 0), "model1-d": (0, 0, 1),
         "pair": (0.5, 0.5, 0), "thirds": (1 / 3, 1 / 3, 1 / 3)}
SETS = {"dpdk-dev": "dpdk", "dpdk-commits": "dpdk", "dpdk-commits-others": "dpdk",
        "aminer-areas": "aminer",
        "aminer-papers": "aminer-papers", "demo": "demo",
        "dpdk-pool-commits": "dpdk-pool", "aminer-experts-papers": "aminer-experts"}
POOL = 60  # dpdk-pool: the most prolific authors, about as many as the reviewer set's 58
DRIVER_GROUPS = {"Baseband Drivers": "baseband", "Bus Drivers": "bus",
                 "Compression Drivers": "compress", "Crypto Drivers": "crypto",
                 "DMAdev Drivers": "dma", "Eventdev Drivers": "event",
                 "Memory Pool Drivers": "mempool", "Networking Drivers": "net",
                 "Rawdev Drivers": "raw", "RegEx Drivers": "regex", "vDPA Drivers": "vdpa"}
PREFIX_RE = re.compile(r"^([a-z0-9_]+)/([a-z0-9_]+)[a-z0-9_/]*:")


@dataclasses.dataclass
class QuerySet:
    """Queries (id -> text), their relevant people (id -> person ids), and per query the people
    who are not candidates (pseudo-sets that leave a document's own people out)."""

    queries: dict[str, str]
    qrels: dict[str, set[str]]
    excluded: dict[str, set[str]] = dataclasses.field(default_factory=dict)


# -- the collections and their models ------------------------------------------------------------
def collection_of(key: str, args) -> tuple[Collection, Path]:
    """A model's collection, and the path its suggested settings are read for."""
    data = args.data
    if key == "dpdk":
        path = data / "dpdk-maintainers"
        return load_collection(path), path
    if key == "demo":
        return load_collection(args.demo), args.demo
    if key == "dpdk-pool":
        path = data / "dpdk-maintainers"
        dpdk = load_collection(path)
        return only_their_documents(dpdk, dpdk_pool(dpdk), key), path
    path = data / "aminer-dblp"
    collection = load_collection(path)
    if key == "aminer-experts":
        return only_their_documents(collection, aminer_experts(collection, path), key), path
    if key == "aminer-papers":  # as `experiment --exclude-topic-documents`: the queries removed
        texts = {t.query.strip() for t in read_topics(path / "topics-documents.tsv")}
        drop = [d for d in range(collection.n_documents) if collection.text(d).strip() in texts]
        collection = without_documents(collection, np.asarray(drop, dtype=np.int64))
    return collection, path


def dpdk_pool(collection: Collection) -> set[str]:
    """The POOL authors of the most commits (ties by index)."""
    counts = np.bincount(collection.assoc_people, minlength=collection.n_people)
    return {collection.person_ids[p] for p in np.argsort(-counts, kind="stable")[:POOL]}


def aminer_experts(collection: Collection, path: Path) -> set[str]:
    """The people of AMiner's expert lists who have a document."""
    return {p for topic in read_qrels(path / "qrels.txt").values() for p, g in topic.items()
            if g > 0 and p in collection.person_index}


def only_their_documents(collection: Collection, people: set[str], name: str) -> Collection:
    """The documents of `people`, linked to them only: a reviewer pool's own papers."""
    mine = {collection.person_index[p] for p in people}
    documents = [d for d in range(collection.n_documents)
                 if mine.intersection(collection.people_of(d).tolist())]
    return Collection.from_records(
        [(collection.doc_ids[d], collection.text(d), collection.date_text(d))
         for d in documents],
        [(collection.doc_ids[d], collection.person_ids[p]) for d in documents
         for p in collection.people_of(d) if p in mine],
        people={collection.person_ids[p]: collection.person_names[p] for p in mine},
        name=name)


def model_folder(key: str, seed: int, args) -> Path:
    return args.models / ("every-document" if args.every_document else "") / key / f"seed-{seed}"


def model_for(key: str, collection: Collection, path: Path, seed: int, args):
    folder = model_folder(key, seed, args)
    if (folder / "manifest.json").is_file():
        model = load_model(folder)
        if not args.every_document or retrained(model):  # not a second run cut short
            return model
    base = TrainSettings(threads=args.threads, checkpoint_every=0, checkpoint_minutes=0,
                         retrain_on_all=args.every_document)
    if args.paper_settings:
        settings = dataclasses.replace(base, seed=seed)
    else:
        settings = dataclasses.replace(
            suggested_settings(path, base, collection=collection).settings, seed=seed)
    if args.epochs:
        settings = dataclasses.replace(settings, epochs=args.epochs)
    print(f"training {key} seed {seed}: dim {settings.dim}, batch {settings.batch_size}, "
          f"{settings.epochs} epochs", file=sys.stderr, flush=True)
    return train_and_calibrate(hold_out(collection, HeldOutSettings(seed=seed)), settings,
                               out_dir=folder)


# -- the query sets -------------------------------------------------------------------------------
def topic_set(topics: Path, qrels: Path) -> QuerySet:
    judged = read_qrels(qrels)
    queries = {t.id: t.query for t in read_topics(topics) if t.id in judged}
    return QuerySet(queries, {t: {p for p, g in judged[t].items() if g > 0} for t in queries})


def section_prefixes(topics: Path) -> dict[tuple[str, str], str]:
    """(driver class, driver name) -> the one section of a driver group whose title names it."""
    found: dict[tuple[str, str], list[str]] = {}
    for line in topics.read_text(encoding="utf-8").splitlines()[1:]:
        topic_id, title, group = line.split("\t")
        kind = DRIVER_GROUPS.get(group)
        for word in {w for w in re.split(r"[^a-z0-9_]+", title.lower()) if w} if kind else ():
            found.setdefault((kind, word), []).append(topic_id)
    return {k: ids[0] for k, ids in found.items() if len(set(ids)) == 1}


def section_commits(collection: Collection, documents: np.ndarray, data: Path
                    ) -> dict[int, str]:
    """Of `documents`, the commits of a judged driver section: document -> its section."""
    folder = data / "dpdk-maintainers"
    sections = section_prefixes(folder / "topics.dev.tsv")
    judged = read_qrels(folder / "qrels.dev.txt")
    out = {}
    for d in documents:
        match = PREFIX_RE.match(collection.text(int(d)))
        topic = sections.get(match.groups()) if match else None
        if topic in judged:
            out[int(d)] = topic
    return out


def commit_set(collection: Collection, documents: np.ndarray, data: Path,
               others: bool = False) -> QuerySet:
    """Held-out commits of a driver section as queries for it; relevant: its maintainers (with
    `others`, the commit's author is no longer a candidate: who else knows this?)."""
    judged = read_qrels(data / "dpdk-maintainers" / "qrels.dev.txt")
    queries, qrels, excluded = {}, {}, {}
    for d, topic in section_commits(collection, documents, data).items():
        doc_id = collection.doc_ids[d]
        authors = {collection.person_ids[p]
                   for p in collection.people_of(d)} if others else set()
        relevant = {p for p, g in judged[topic].items() if g > 0} - authors
        if relevant:
            queries[doc_id] = collection.text(d)
            qrels[doc_id] = relevant
            excluded[doc_id] = authors
    return QuerySet(queries, qrels, excluded)


def outside_commits(data: Path, pool: Collection) -> QuerySet:
    """Commits of a judged driver section by authors outside the pool, as queries for that
    section; relevant: its maintainers in the pool (who of the pool could review this?)."""
    dpdk = load_collection(data / "dpdk-maintainers")
    judged = read_qrels(data / "dpdk-maintainers" / "qrels.dev.txt")
    queries, qrels = {}, {}
    for d, topic in section_commits(dpdk, np.arange(dpdk.n_documents), data).items():
        if any(dpdk.person_ids[p] in pool.person_index for p in dpdk.people_of(d)):
            continue
        relevant = {p for p, g in judged[topic].items() if g > 0} & set(pool.person_ids)
        if relevant:
            queries[dpdk.doc_ids[d]] = dpdk.text(d)
            qrels[dpdk.doc_ids[d]] = relevant
    return QuerySet(queries, qrels)


def outside_papers(path: Path, pool: Collection) -> QuerySet:
    """AMiner's topic papers that no expert of the pool wrote; relevant: the experts of the
    paper's area."""
    papers = topic_set(path / "topics-documents.tsv", path / "qrels-documents.txt")
    theirs = {pool.text(d).strip() for d in range(pool.n_documents)}
    people = set(pool.person_ids)
    keep = [t for t, text in papers.queries.items()
            if text.strip() not in theirs and papers.qrels[t] & people]
    return QuerySet({t: papers.queries[t] for t in keep},
                    {t: papers.qrels[t] & people for t in keep})


def commit_queries(collection: Collection, seed: int, data: Path) -> np.ndarray:
    """The dpdk-commits queries of seed `seed` under --every-document: the commits the default
    split of that seed holds out (as the measured-model study's model of that seed held them
    out) that belong to a driver section; removed from the collection before training."""
    documents = hold_out(collection, HeldOutSettings(seed=seed)).documents
    return np.asarray(sorted(section_commits(collection, documents, data)), dtype=np.int64)


def pseudo_sets(collection: Collection, training: Collection, documents: np.ndarray,
                leave_out: set[str]) -> dict[str, QuerySet]:
    """The pseudo-query sets of the module's docstring, from the held-out `documents`."""
    tokenizer = Tokenizer(training.settings)
    df = np.bincount(np.concatenate([np.unique(training.doc_tokens(i))
                                     for i in range(training.n_documents)]),
                     minlength=len(training.vocab))
    idf = np.log((training.n_documents + 1) / (df + 1))
    matrix = training.association_matrix()  # documents x people
    coauthors = (matrix.T @ matrix).tocsr()
    tfidf, vectoriser, terms = _tfidf(training)
    present = (tfidf > 0).astype(np.float64).tocsr()  # training documents x terms
    term_df = np.asarray(present.sum(axis=0)).ravel()
    docs_of = matrix.T.tocsr()  # people x training documents
    out = {name: QuerySet({}, {}) for name in PSEUDO}
    for d in documents:
        doc_id = collection.doc_ids[int(d)]
        if doc_id in leave_out:
            continue
        text = collection.text(int(d))
        people = {collection.person_ids[p] for p in collection.people_of(int(d))}
        out["documents"].queries[doc_id] = text
        out["documents"].qrels[doc_id] = people
        out["first-words"].queries[doc_id] = " ".join(text.split()[:8])
        out["first-words"].qrels[doc_id] = people
        ids = training.vocab.encode(tokenizer.words(text))[0]
        if len(ids):
            counts = np.bincount(ids)
            known = np.flatnonzero(counts)
            best = known[np.argsort(-counts[known] * idf[known], kind="stable")[:4]]
            out["salient"].queries[doc_id] = " ".join(training.vocab.words[i] for i in best)
            out["salient"].qrels[doc_id] = people
        index = training.person_index
        own = [index[p] for p in people if p in index]
        near = set()
        for p in own:
            row = coauthors[p]
            near.update(training.person_ids[q] for q in row.indices)
        near -= people
        if near:
            out["coauthors"].queries[doc_id] = text
            out["coauthors"].qrels[doc_id] = near
            out["coauthors"].excluded[doc_id] = people
        similar = (tfidf @ vectoriser(text).T).toarray().ravel()
        neighbours = set()
        for t in np.argsort(-similar)[:5]:
            if similar[t] > 0:
                neighbours.update(training.person_ids[p] for p in training.people_of(int(t)))
        neighbours -= people
        if neighbours:
            out["neighbours"].queries[doc_id] = text
            out["neighbours"].qrels[doc_id] = neighbours
            out["neighbours"].excluded[doc_id] = people
        theirs = np.unique(np.concatenate([docs_of[p].indices for p in own] or [[]])
                           ).astype(np.int64)
        own_df = np.asarray(present[theirs].sum(axis=0)).ravel()
        topical = [w for w in tokenizer.words(text) if w in terms
                   and own_df[terms[w]] < SIGNATURE_SHARE * term_df[terms[w]]]
        if topical:
            out["topical"].queries[doc_id] = " ".join(topical)
            out["topical"].qrels[doc_id] = people
    return out


def _tfidf(training: Collection):
    """The training documents as unit TF-IDF rows, a function making a query's row, and the
    column of every word."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    tokenizer = Tokenizer(training.settings)
    vectoriser = TfidfVectorizer(analyzer=tokenizer.words, sublinear_tf=True)
    matrix = vectoriser.fit_transform(training.text(i) for i in range(training.n_documents))
    return matrix, lambda text: vectoriser.transform([text]), vectoriser.vocabulary_


# -- scores, fusions and their MAP ----------------------------------------------------------------
def scores_for(model, index: Collection, queries: dict[str, str], methods, cache: Path):
    """Every method's score of every candidate for every query (NaN row: no known word), in
    the order of `index.person_ids`; cached."""
    if cache.is_file():
        kept = np.load(cache, allow_pickle=False)
        if list(kept["queries"]) == list(queries) and all(m in kept for m in methods):
            return {m: kept[m] for m in methods}
    people = {p: i for i, p in enumerate(index.person_ids)}
    out = {}
    for method in methods:
        ranker = make_ranker(method, model=model, collection=index, p_expert=False)
        where = np.array([people[p] for p in ranker.person_ids])
        rows = np.full((len(queries), len(people)), np.nan)
        for q, text in enumerate(queries.values()):
            ranking = ranker.rank(text)
            if not ranking.no_known_words:
                rows[q, where[ranking.people]] = ranking.scores
        out[method] = rows
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cache, queries=np.array(list(queries)), **out)
    return out


def average_precision(scores: np.ndarray, relevant: list[int], judged: int) -> float:
    """AP of one ranking by `scores` (NaN: the method ranks nobody), ties broken by index as
    order_by_score does; relevant people who are not candidates count as never found."""
    if not relevant or judged == 0 or np.isnan(scores).all():
        return 0.0
    ap = average_precisions(scores[None, :], np.asarray(relevant, dtype=np.int64))[0]
    return float(ap) * len(relevant) / judged


@dataclasses.dataclass
class Sheet:
    """A query set scored: per query, the members' z-scores over the candidates, the relevant
    candidates (indices into the candidates), how many people are judged, its word count, and
    the single methods' APs."""

    z: list[np.ndarray]
    relevant: list[list[int]]
    judged: list[int]
    words: list[int]
    single: dict[str, np.ndarray]

    def fused_ap(self, weights) -> np.ndarray:
        w = np.asarray(weights, dtype=np.float64)
        return np.array([average_precision(w @ z if z.any() else np.full(z.shape[1], np.nan),
                                           r, j)
                         for z, r, j in zip(self.z, self.relevant, self.judged, strict=True)])


def sheet(index: Collection, query_set: QuerySet, scores: dict[str, np.ndarray]) -> Sheet:
    tokenizer = Tokenizer(index.settings)
    people = index.person_ids
    z, relevant, judged, words = [], [], [], []
    single = {m: [] for m in scores}
    for q, topic in enumerate(query_set.queries):
        excluded = query_set.excluded.get(topic, set())
        keep = np.array([p not in excluded for p in people])
        position = np.cumsum(keep) - 1
        rel = [int(position[i]) for i, p in enumerate(people)
               if keep[i] and p in query_set.qrels[topic]]
        rows = []
        for m in MEMBERS:
            s = scores[m][q][keep]
            rows.append(np.zeros(keep.sum()) if np.isnan(s).all() else zscores(s))
        z.append(np.asarray(rows))
        relevant.append(rel)
        judged.append(len(query_set.qrels[topic]))
        words.append(len(tokenizer.words(query_set.queries[topic])))
        for m in scores:
            single[m].append(average_precision(scores[m][q][keep], rel, judged[-1]))
    return Sheet(z, relevant, judged, words, {m: np.asarray(v) for m, v in single.items()})


def grid_ap(grid: np.ndarray, s: Sheet) -> np.ndarray:
    """AP of every grid point (rows) on every query of `s` (columns)."""
    out = np.zeros((len(grid), len(s.z)))
    for q, (z, rel, judged) in enumerate(zip(s.z, s.relevant, s.judged, strict=True)):
        if rel and z.any():
            out[:, q] = average_precisions(grid @ z, np.asarray(rel, dtype=np.int64)) * \
                len(rel) / judged
    return out


def rule_weights(pseudo: dict[str, Sheet], seed: int, current: np.ndarray
                 ) -> dict[str, np.ndarray]:
    """Each rule's weights from the pseudo-query sheets; a pseudo-set of fewer than
    MIN_DOCUMENTS queries (no co-authors in DPDK) leaves the model's own weights."""
    grid = simplex_grid(len(MEMBERS))
    out = {}
    for name, s in pseudo.items():
        if len(s.z) < MIN_DOCUMENTS:
            out[f"gated:{name}"] = out[f"best-fixed:{name}"] = current
            continue
        out[f"gated:{name}"] = np.asarray(
            choose_fusion(grid_ap(grid, s), grid, MEMBERS, seed)["weights"])
        fixed = {k: s.fused_ap(w).mean() for k, w in FIXED.items()}
        out[f"best-fixed:{name}"] = np.asarray(FIXED[max(fixed, key=fixed.get)], dtype=float)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--demo", type=Path, default=Path("resources/demo"))
    p.add_argument("--models", type=Path, default=Path("/tmp/auto-generalises"))
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    p.add_argument("--epochs", type=int, default=0, help="train this many epochs instead")
    p.add_argument("--paper-settings", action="store_true",
                   help="train at the paper's settings, not the ones suggested for the "
                        "collection (give another --models folder)")
    p.add_argument("--every-document", action="store_true",
                   help="train as `expert-gui train` does by default: again on every document "
                        "after the calibration (the DPDK commit queries removed first)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", type=Path)
    args = p.parse_args()

    rows = []
    for key in dict.fromkeys(SETS[s] for s in args.sets):
        collection, path = collection_of(key, args)
        for seed in args.seeds:
            started = time.perf_counter()
            asked = None  # the commits asked as queries, out of the model's collection
            trained_on = collection
            if args.every_document and key == "dpdk":
                asked = commit_queries(collection, seed, args.data)
                trained_on = without_documents(collection, asked)
            model = model_for(key, trained_on, path, seed, args)
            split = held_out_again(trained_on, model.calibration)
            index = index_for(model, trained_on)
            folder = model_folder(key, seed, args)
            real = {}
            for name in (s for s in args.sets if SETS[s] == key):
                if name.startswith("dpdk-commits"):
                    real[name] = commit_set(collection, split.documents if asked is None
                                            else asked, args.data,
                                            others=name.endswith("others"))
                elif name == "dpdk-dev":
                    d = args.data / "dpdk-maintainers"
                    real[name] = topic_set(d / "topics.dev.tsv", d / "qrels.dev.txt")
                elif name == "dpdk-pool-commits":
                    real[name] = outside_commits(args.data, collection)
                elif name == "aminer-experts-papers":
                    real[name] = outside_papers(args.data / "aminer-dblp", collection)
                elif name == "aminer-areas":
                    d = args.data / "aminer-dblp"
                    real[name] = topic_set(d / "topics.tsv", d / "qrels.txt")
                elif name == "aminer-papers":
                    d = args.data / "aminer-dblp"
                    real[name] = topic_set(d / "topics-documents.tsv", d / "qrels-documents.txt")
                else:
                    real[name] = topic_set(args.demo / "topics.tsv", args.demo / "qrels.txt")
            leave_out = {q for n, r in real.items() if n.startswith("dpdk-commits")
                         for q in r.queries}
            pseudo = {} if args.every_document else pseudo_sets(collection, index,
                                                                split.documents, leave_out)
            pseudo_sheets = {
                n: sheet(index, q, scores_for(model, index, q.queries, MEMBERS,
                                              folder / f"scores-pseudo-{n}.npz"))
                for n, q in pseudo.items()}
            fusion = model.calibration["fusion"]
            current = np.asarray(fusion["weights"])
            weights = {"current": current,
                       "current-short": np.asarray(fusion.get("short_topics", fusion)["weights"]),
                       **{k: np.asarray(v, dtype=float) for k, v in FIXED.items()},
                       **rule_weights(pseudo_sheets, seed, current)}
            pseudo_maps = {n: {m: float(s.single[m].mean()) for m in MEMBERS}
                           for n, s in pseudo_sheets.items() if s.z}
            for name, query_set in real.items():
                s = sheet(index, query_set, scores_for(model, index, query_set.queries, SINGLE,
                                                       folder / f"scores-{name}.npz"))
                maps = {m: float(v.mean()) for m, v in s.single.items()}
                rules = {r: float(s.fused_ap(w).mean()) for r, w in weights.items()}
                short = np.asarray(s.words) <= SHORT_WORDS
                fused = {r: s.fused_ap(w) for r, w in weights.items()}
                rules["auto"] = float(np.where(short, fused["current-short"],
                                               fused["current"]).mean())
                for a in (r for r in SHORT_RULES if r in weights):
                    for b in (r for r in LONG_RULES if r in weights):
                        rules[f"short {a} / long {b}"] = float(np.where(
                            short, fused[a], fused[b]).mean())
                best = max(SINGLE, key=maps.get)
                row = {"set": name, "seed": seed, "queries": len(s.z), "maps": maps,
                       "best": best, "rules": rules,
                       "weights": {r: w.tolist() for r, w in weights.items()},
                       "pseudo": pseudo_maps, "label": model.calibration["fusion"]["label"],
                       "retrained": retrained(model),
                       "removed": 0 if asked is None else len(asked)}
                rows.append(row)
                print(f"{name} seed {seed} ({len(s.z)} queries, "
                      f"{time.perf_counter() - started:.0f} s): " +
                      ", ".join(f"{m} {v:.3f}" for m, v in maps.items()) +
                      f"; auto {rules['auto']:.3f}", flush=True)
    report(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


def report(rows: list[dict]) -> None:
    print("\n| set | seed | queries | auto | log-linear | Model 2 (jm) | Model 1 (d) | ensemble "
          "| best single | auto - best |\n|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        m, best = r["maps"], r["maps"][r["best"]]
        print(f"| {r['set']} | {r['seed']} | {r['queries']} | {r['rules']['auto']:.3f} | "
              f"{m['loglinear']:.3f} | {m['model2-jm']:.3f} | {m['model1-d']:.3f} | "
              f"{m['ensemble']:.3f} | {r['best']} | {r['rules']['auto'] - best:+.3f} |")
    rules = sorted({r for row in rows for r in row["rules"]})
    print("\n| rule | worst vs best single | mean vs best single | sets within .01 |\n"
          "|---|---|---|---|")
    summary = []
    for rule in rules:
        gaps = [row["rules"][rule] - row["maps"][row["best"]] for row in rows
                if rule in row["rules"]]
        if len(gaps) == len(rows):
            summary.append((min(gaps), float(np.mean(gaps)), sum(g >= -0.01 for g in gaps),
                            rule))
    ranked_rules = sorted(summary, reverse=True)
    shown = [r for r in ranked_rules if not r[3].startswith("short ")] + \
        [r for r in ranked_rules if r[3].startswith("short ")][:TOP_COMBINATIONS]
    for worst, mean, within, rule in sorted(shown, reverse=True):
        print(f"| {rule} | {worst:+.3f} | {mean:+.3f} | {within}/{len(rows)} |")


if __name__ == "__main__":
    sys.exit(main())

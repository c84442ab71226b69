"""Query latency of every ranker, and of a naive version of the two the paper's complexity
analysis is about (section 5.3: log-linear O(|C|), Model 2 O(|D|)).

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
        .venv/bin/python benchmarks/bench_rank.py ../shared/data/dpdk-maintainers [--model DIR]
    .venv/bin/python benchmarks/bench_rank.py --synthetic-only

On a shared, oversubscribed machine, limit BLAS to one thread: a multi-threaded BLAS waits for
its threads to be scheduled and a 1 ms product becomes a 16 ms one.

Parts:
- dpdk: median ms per query of each method over the dev topics (`topics.dev.tsv`). Without
  --model, a random 300-dimensional model over the collection stands in (latency does not
  depend on what was learnt).
- synthetic: 1,000,000 documents (Zipf words, 20 tokens on average), 10,000 people (1 to 3 per
  document), |V| = 50,000, e = 300, built directly as arrays; queries of 3 words drawn from
  random documents. Goals on 2 cores: log-linear < 2 ms, Model 2 < 100 ms per query.

Naive versions measured in the same run: log-linear as k per-word softmaxes (Eq. 1 for each word,
then the product of Eq. 2); Model 2 as a dense pass over every document for every query term.
Reported as medians and ratios, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
from scipy.special import log_softmax

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.report import LoadReport
from expert_gui.core.data.text import PAD_TOKEN, TextSettings, Vocabulary
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.rankers.language_models import Model2
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS


def median_ms(fn, queries, repeat: int = 1) -> float:
    times = []
    for q in queries:
        for _ in range(repeat):
            t = time.perf_counter()
            fn(q)
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def random_model(vocab: Vocabulary, person_ids: list[str], dim: int, settings: TextSettings,
                 seed: int = 0) -> LogLinearModel:
    rng = np.random.default_rng(seed)
    return LogLinearModel(
        word_embeddings=rng.normal(0, 0.1, (len(vocab), dim)).astype(np.float32),
        candidate_weights=rng.normal(0, 0.1, (len(person_ids), dim)).astype(np.float32),
        candidate_bias=np.zeros(len(person_ids), np.float32),
        vocab=vocab, text_settings=settings, person_ids=person_ids, person_names=person_ids)


def naive_loglinear(model: LogLinearModel):
    """Eq. 1 for every query word (k matrix-vector products and k softmaxes), then Eq. 2."""
    def rank(query: str) -> np.ndarray:
        ids, _, _ = model.encode(query)
        return log_softmax(model.word_log_probs(ids).sum(axis=0))
    return rank


def naive_model2(m2: Model2):
    """Model 2 as a dense pass over all |D| documents for every query term: O(k |D|)."""
    dense_len = np.maximum(m2.doc_lengths, 1.0)
    doc_lambda = np.exp(m2.log_doc_lambda)

    def rank(query: str) -> np.ndarray:
        words = m2.tokenizer.words(query)
        ids, _ = m2.collection.vocab.encode(words)
        log_pq = np.zeros(m2.collection.n_documents)
        for t in ids:
            n_td = np.zeros(m2.collection.n_documents)
            col = m2.postings[:, [t]]
            n_td[col.indices] = col.data
            log_pq += np.log((1 - doc_lambda) * n_td / dense_len + doc_lambda * m2.p_background[t])
        pdc = m2.p_doc_given_person
        return np.log(pdc @ np.exp(log_pq - log_pq.max())) + log_pq.max()
    return rank


def synthetic_collection(n_docs: int, n_people: int, n_words: int, mean_len: float,
                         seed: int = 0) -> Collection:
    rng = np.random.default_rng(seed)
    lengths = np.maximum(rng.poisson(mean_len, n_docs), 1)
    offsets = np.zeros(n_docs + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    zipf = 1.0 / np.arange(1, n_words)
    tokens = rng.choice(np.arange(1, n_words), size=int(offsets[-1]), p=zipf / zipf.sum())
    if n_docs < n_people:
        raise SystemExit("the synthetic collection needs at least one document per person")
    docs = np.repeat(np.arange(n_docs), rng.integers(1, 4, n_docs))
    people = rng.integers(0, n_people, len(docs))
    people[:n_people] = rng.permutation(n_people)  # everyone has a document
    links = np.unique(docs * n_people + people)  # sorted by document, then person; no repeats
    docs, people = links // n_people, (links % n_people).astype(np.int32)
    indptr = np.zeros(n_docs + 1, np.int64)
    np.cumsum(np.bincount(docs, minlength=n_docs), out=indptr[1:])
    counts = np.bincount(tokens, minlength=n_words)
    vocab = Vocabulary([PAD_TOKEN] + [_letters(i) for i in range(1, n_words)], counts)
    return Collection(
        name="synthetic", doc_ids=[f"d{i}" for i in range(n_docs)],
        person_ids=[f"p{i:05d}" for i in range(n_people)],
        person_names=[f"p{i:05d}" for i in range(n_people)],
        assoc_indptr=indptr, assoc_people=people, tokens=tokens.astype(np.uint16),
        doc_offsets=offsets, vocab=vocab, settings=TextSettings(stopwords="none"),
        text_bytes=np.zeros(0, np.uint8), text_offsets=np.zeros(n_docs + 1, np.int64),
        report=LoadReport(format="synthetic"))


def _letters(i: int) -> str:
    """A word of letters only (digits would be folded into the number token)."""
    out = ""
    while True:
        i, r = divmod(i, 26)
        out += chr(ord("a") + r)
        if i == 0:
            return "w" + out


def bench_dpdk(path: Path, model_dir: str | None, n_queries: int) -> dict:
    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.data.topics import read_topics
    from expert_gui.core.store.storage import load_model

    collection = load_collection(path)
    model = load_model(model_dir) if model_dir else random_model(
        collection.vocab, list(collection.person_ids), 300, collection.settings)
    queries = [t.query for t in read_topics(path / "topics.dev.tsv")][:n_queries]
    out = {"documents": collection.n_documents, "people": collection.n_people,
           "queries": len(queries), "median_ms": {}, "build_s": {}}
    for method in METHODS:
        t = time.perf_counter()
        ranker = make_ranker(method, model=model, collection=collection)
        out["build_s"][method] = round(time.perf_counter() - t, 2)
        out["median_ms"][method] = median_ms(ranker.rank, queries, repeat=3)
        if method == "model2-jm":
            out["median_ms"]["model2-jm naive"] = median_ms(naive_model2(ranker), queries)
    out["median_ms"]["loglinear naive"] = median_ms(naive_loglinear(model), queries, repeat=3)
    return out


def bench_synthetic(n_docs: int, n_people: int, n_words: int, dim: int, n_queries: int) -> dict:
    t = time.perf_counter()
    collection = synthetic_collection(n_docs, n_people, n_words, 20.0)
    build = {"collection": round(time.perf_counter() - t, 1)}
    rng = np.random.default_rng(1)
    queries = []
    for d in rng.integers(0, n_docs, n_queries):
        words = collection.doc_tokens(int(d))
        queries.append(" ".join(collection.vocab.words[w] for w in rng.choice(words, 3)))
    model = random_model(collection.vocab, list(collection.person_ids), dim, collection.settings)
    out = {"documents": n_docs, "people": n_people, "vocabulary": n_words, "dim": dim,
           "queries": n_queries, "median_ms": {}, "build_s": build}
    for method in ("loglinear", "model1-jm", "model2-jm", "model2-d"):
        t = time.perf_counter()
        ranker = make_ranker(method, model=model, collection=collection)
        build[method] = round(time.perf_counter() - t, 1)
        out["median_ms"][method] = median_ms(ranker.rank, queries)
        if method == "model2-jm":
            out["median_ms"]["model2-jm naive"] = median_ms(naive_model2(ranker), queries[:10])
    out["median_ms"]["loglinear naive"] = median_ms(naive_loglinear(model), queries)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dpdk", nargs="?", type=Path, help="the dpdk-maintainers folder")
    p.add_argument("--model", help="a model trained on it (default: a random one)")
    p.add_argument("--queries", type=int, default=158)
    p.add_argument("--synthetic-only", action="store_true")
    p.add_argument("--no-synthetic", action="store_true")
    p.add_argument("--docs", type=int, default=1_000_000)
    p.add_argument("--people", type=int, default=10_000)
    p.add_argument("--words", type=int, default=50_000)
    p.add_argument("--dim", type=int, default=300)
    p.add_argument("--json", type=Path, help="also write the results here")
    args = p.parse_args()
    results = {}
    if args.dpdk and not args.synthetic_only:
        results["dpdk"] = bench_dpdk(args.dpdk, args.model, args.queries)
    if not args.no_synthetic:
        results["synthetic"] = bench_synthetic(args.docs, args.people, args.words, args.dim,
                                               min(args.queries, 100))
    for part, r in results.items():
        print(f"== {part}: {r['documents']:,} documents, {r['people']:,} people, "
              f"{r['queries']} queries")
        for method, ms in r["median_ms"].items():
            print(f"  {method:<18} {ms:9.2f} ms/query (median)")
        for method in ("loglinear", "model2-jm"):
            naive = r["median_ms"].get(f"{method} naive")
            if naive:
                print(f"  {method}: {naive / r['median_ms'][method]:.1f}x faster than naive")
        print(f"  build seconds: {r['build_s']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

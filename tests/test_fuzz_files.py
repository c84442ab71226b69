"""Generated and damaged files into every other reader (issue 11): topics, qrels, runs, the
collection cache, model folders and checkpoints. Only the typed errors may escape; a damaged
model, checkpoint or cache is refused or rebuilt, never read as something else; a crafted one
that passes every check still answers with finite numbers. Each case runs under the deadline."""

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from rankers_helpers import TINY, random_model, tiny_collection
from safetensors.numpy import load as load_tensors
from safetensors.numpy import save as save_tensors
from test_fuzz_loaders import CONTENT, FUZZ, repeated

from expert_gui.core.data.cache import digest as _cache_digest
from expert_gui.core.data.collection import Collection
from expert_gui.core.data.loading import collection_cache, load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.errors import CollectionError, ModelFileError, TopicsError
from expert_gui.core.evaluation.qrels import read_qrels
from expert_gui.core.evaluation.runs import read_run, write_run
from expert_gui.core.rankers.loglinear import LogLinearRanker
from expert_gui.core.rankers.ranking import Ranking
from expert_gui.core.store import manifest as schema
from expert_gui.core.store.storage import (
    latest_checkpoint,
    load_model,
    save_checkpoint,
    save_model,
)

MANY = settings(FUZZ, max_examples=60)
_TOPIC_BITS = [b"<top>", b"</top>", b"<num>", b"Number:", b"<title>", b"Topic:", b";",
               b"topic_id\tquery\n", b"\t", b"\n", b" ", b"T1", b"q", b"\xff", b"0 ", b"1",
               b"Q0 ", b"nan", b"-1"]
TEXTS = st.lists(st.sampled_from(_TOPIC_BITS) | st.binary(max_size=8), max_size=40).map(b"".join)


def written(data: bytes, name: str = "f") -> Path:
    folder = Path(tempfile.mkdtemp())
    (folder / name).write_bytes(data)
    return folder / name


# -- topics, qrels, runs -----------------------------------------------------------------------
def _read_or_refused(read, data: bytes):
    """What `read` makes of a file holding `data`, or None when it refused the file with a
    TopicsError that names it."""
    path = written(data)
    try:
        return read(path)
    except TopicsError as exc:
        assert exc.path == str(path)
        return None


def _check_topics(data: bytes) -> None:
    topics = _read_or_refused(read_topics, data)
    if topics is not None:
        ids = [t.id for t in topics]
        assert len(set(ids)) == len(ids) and all(t.id and t.query for t in topics)


@MANY
@given(data=TEXTS | CONTENT)
def test_topics(data):
    _check_topics(data)


@FUZZ
@given(data=repeated([b"<top>", b"<top><num>", b"<num> ", b"<title>\t", b"<top></top>\n",
                      b"T;", b"\t", b"<top><num>1</num><title>q</title></top>\n"]))
def test_topics_openers_repeated(data):
    _check_topics(data)


@MANY
@given(data=TEXTS | CONTENT)
def test_qrels(data):
    qrels = _read_or_refused(read_qrels, data)
    if qrels is not None:
        assert qrels and all(isinstance(g, int) for judged in qrels.values()
                             for g in judged.values())


@MANY
@given(data=TEXTS | CONTENT)
def test_runs(data):
    run = _read_or_refused(read_run, data)
    if run is not None:
        assert all(math.isfinite(s) for scores in run.values() for s in scores.values())


_ID = st.text(min_size=1, max_size=12)  # any code point: white space, newlines, surrogates


@MANY
@given(topics=st.dictionaries(_ID, st.lists(_ID, min_size=1, max_size=5, unique=True),
                              min_size=1, max_size=4), tag=_ID)
def test_any_ids_survive_a_run_file(topics, tag):
    # issue 11: ids holding spaces or newlines were written verbatim into TREC runs
    rankings = {t: Ranking("q", "m", people, np.arange(len(people)),
                           np.linspace(1, 0, len(people)), known_words=("w",))
                for t, people in topics.items()}
    path = written(b"")
    write_run(path, rankings, tag)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == sum(map(len, topics.values()))
    assert all(len(line.split()) == 6 and line.split()[5] == line.split()[5].strip()
               for line in lines)
    back = read_run(path)
    assert {t: list(scores) for t, scores in back.items()} == topics


# -- the collection cache -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cached(tmp_path_factory):
    """A copy of the tiny collection and the files of its cache."""
    folder = tmp_path_factory.mktemp("tiny")
    for f in TINY.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EXPERT_GUI_HOME", str(tmp_path_factory.mktemp("home")))
        first = load_collection(folder)
        files = {p.name: p.read_bytes() for p in collection_cache(first.fingerprint).iterdir()}
        expected = (list(first.doc_ids), np.array(first.tokens), list(first.person_ids),
                    np.array(first.assoc_people))
    return folder, first.fingerprint, files, expected


@MANY
@given(data=st.data())
def test_a_damaged_cache_is_rebuilt_never_trusted(cached, data):
    folder, fingerprint, files, (doc_ids, tokens, people, links) = cached
    cache = collection_cache(fingerprint)
    cache.mkdir(exist_ok=True)
    for name, blob in files.items():
        (cache / name).write_bytes(blob)
    name = data.draw(st.sampled_from(sorted(files)))
    blob = bytearray(files[name])
    how = data.draw(st.sampled_from(["flip", "truncate", "crafted"]))
    if how == "flip":
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(blob) - 1))
            blob[i] ^= 1 << data.draw(st.integers(0, 7))
        (cache / name).write_bytes(bytes(blob))
    elif how == "truncate":
        (cache / name).write_bytes(bytes(blob[:data.draw(st.integers(0, len(blob) - 1))]))
    elif name.endswith(".npy"):  # a crafted array, hashed again: the checks must catch it
        array = np.load(cache / name).copy()
        if len(array):
            limits = np.iinfo(array.dtype) if array.dtype.kind in "iu" else None
            value = data.draw(st.sampled_from([-1, 10**9, 0, 1]))
            if limits is not None:
                value = min(max(value, limits.min), limits.max)
            array[data.draw(st.integers(0, len(array) - 1))] = value
        np.save(cache / name, array, allow_pickle=False)
        (cache / "xxh3").write_text(_cache_digest(cache))
    try:
        c = Collection.load(cache)
    except CollectionError:
        pass
    else:  # only a change the checks cannot see as wrong (a token id within range, ...)
        assert c.assoc_people.max() < c.n_people and c.doc_offsets[-1] == len(c.tokens)
        assert int(c.tokens.max()) < len(c.vocab)
    again = load_collection(folder)
    if how != "crafted":
        assert again.doc_ids == doc_ids and again.person_ids == people
        assert np.array_equal(again.tokens, tokens)
        assert np.array_equal(again.assoc_people, links)


# -- model folders ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    model = random_model(tiny_collection(), seed=3)
    model.settings = {"dim": 5, "epochs": 1}
    model.history = [{"epoch": 1, "step": 3, "train_loss": 2.5, "val_loss": None}]
    folder = save_model(model, tmp_path_factory.mktemp("m") / "model")
    return model, {p.name: p.read_bytes() for p in folder.iterdir()}


def _model_folder(files: dict) -> Path:
    folder = Path(tempfile.mkdtemp())
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def _loaded_or_refused(files: dict):
    """The model of a folder holding `files`, or None when load_model refused it."""
    try:
        return load_model(_model_folder(files))
    except ModelFileError:
        return None


def _same(a, b) -> bool:
    return (a.person_ids == b.person_ids and a.person_names == b.person_names
            and a.vocab.words == b.vocab.words and a.text_settings == b.text_settings
            and all(np.array_equal(getattr(a, n), getattr(b, n))
                    for n in ("word_embeddings", "candidate_weights", "candidate_bias")))


def _answers_sanely(model) -> None:
    """A model that passed every check ranks with finite numbers and prints its people."""
    ranking = LogLinearRanker(model).rank(" ".join(model.vocab.words[1:6]))
    assert np.isfinite(ranking.scores).all()
    if ranking.probabilities is not None:
        assert np.isfinite(ranking.probabilities).all()
    assert all(isinstance(n, str) for n in model.person_names)


@MANY
@given(data=st.data())
def test_bit_flips_in_a_model_are_refused_or_change_nothing(model_files, data):
    # issue 11: 16 of 600 random manifest bit flips changed answers silently
    model, files = model_files
    name = data.draw(st.sampled_from(["manifest.json", "model.safetensors"]))
    blob = bytearray(files[name])
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] ^= 1 << data.draw(st.integers(0, 7))
    if data.draw(st.booleans()):
        blob = blob[:data.draw(st.integers(0, len(blob)))]
    back = _loaded_or_refused({**files, name: bytes(blob)})
    if back is not None:
        assert _same(back, model)


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                     | st.text(max_size=5), lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


def _paths(value, where=()):
    yield where
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*where, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            yield from _paths(v, (*where, i))


@MANY
@given(data=st.data())
def test_crafted_manifests_are_refused_or_answer_sanely(model_files, data):
    # a manifest changed into other valid JSON and hashed again, as a crafted file would be
    _, files = model_files
    manifest = json.loads(files["manifest.json"])
    path = data.draw(st.sampled_from([p for p in _paths(manifest) if p and p[0] != "sha256"]))
    target = manifest
    for key in path[:-1]:
        target = target[key]
    if data.draw(st.booleans()) and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = data.draw(_JSON)
    try:
        manifest["sha256"] = schema.digest(files["model.safetensors"], manifest)
    except ValueError:
        pass  # an infinite number, which JSON lacks: the file holds Infinity, to be refused
    model = _loaded_or_refused({**files, "manifest.json": json.dumps(manifest).encode()})
    if model is not None:
        _answers_sanely(model)


@MANY
@given(data=st.data())
def test_crafted_tensors_are_refused_or_answer_sanely(model_files, data):
    _, files = model_files
    tensors = dict(load_tensors(files["model.safetensors"]))
    name = data.draw(st.sampled_from(sorted(tensors)))
    t = tensors[name]
    change = data.draw(st.sampled_from(["value", "dtype", "shape", "drop", "extra"]))
    if change == "value":
        t = t.copy()
        t.flat[data.draw(st.integers(0, t.size - 1))] = data.draw(
            st.sampled_from([np.nan, np.inf, -np.inf, 1e38, -1e7, 0.0]))
    elif change == "dtype":
        t = t.astype(data.draw(st.sampled_from([np.int8, np.float64, np.float16, np.int64])))
    elif change == "shape":
        t = data.draw(st.sampled_from([t.reshape(-1), t.reshape(-1)[:, None], t[..., None],
                                       t[:-1], np.concatenate([t, t])]))
    if change == "drop":
        del tensors[name]
    elif change == "extra":
        tensors["extra"] = np.zeros(2, np.float32)
    else:
        tensors[name] = np.ascontiguousarray(t)
    blob = save_tensors(tensors)
    manifest = json.loads(files["manifest.json"])
    manifest["sha256"] = schema.digest(blob, manifest)
    model = _loaded_or_refused({**files, "model.safetensors": blob,
                                "manifest.json": json.dumps(manifest).encode()})
    if model is not None:
        _answers_sanely(model)


@MANY
@given(data=CONTENT | repeated([b"[", b"{\"a\":", b"\"", b"\\u0000"]))
def test_any_bytes_as_a_manifest(model_files, data):
    _, files = model_files
    folder = _model_folder({**files, "manifest.json": data})
    with pytest.raises(ModelFileError):
        load_model(folder)


# -- checkpoints -----------------------------------------------------------------------------------
def _checkpoint_meta(step):
    return {"settings": {"dim": 2}, "text_settings": {"stopwords": "english"},
            "collection_fingerprint": "f", "param_groups": [{"lr": 1.0, "params": [0]}],
            "run": {"epoch": 0, "batch": step, "step": step, "epoch_loss": 0.5,
                    "epoch_weight": 3.0, "best_val": None, "best_epoch": 0, "bad_epochs": 0,
                    "history": []}}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """Files of two complete checkpoints, steps 1 and 2."""
    out = {}
    for step in (1, 2):
        folder = tmp_path_factory.mktemp("c") / "checkpoint"
        save_checkpoint(folder, {"a": torch.full((3,), float(step))}, _checkpoint_meta(step))
        out[step] = {p.name: p.read_bytes() for p in folder.iterdir()}
    return out


@MANY
@given(data=st.data())
def test_damaged_checkpoints_leave_the_newest_complete_one(checkpoints, data):
    root = Path(tempfile.mkdtemp())
    placed = {}
    for name in data.draw(st.lists(st.sampled_from(["checkpoint", "checkpoint.tmp",
                                                    "checkpoint.old"]), unique=True)):
        step = data.draw(st.sampled_from([1, 2]))
        files = dict(checkpoints[step])
        damaged = data.draw(st.booleans())
        if damaged:
            victim = data.draw(st.sampled_from(sorted(files)))
            blob = bytearray(files[victim])
            i = data.draw(st.integers(0, len(blob) - 1))
            blob[i] ^= 1 << data.draw(st.integers(0, 7))
            files[victim] = bytes(blob[:data.draw(st.integers(0, len(blob)))])
        (root / name).mkdir()
        for f, blob in files.items():
            (root / name / f).write_bytes(blob)
        placed[name] = (step, damaged)
    complete = [step for step, damaged in placed.values() if not damaged]
    try:
        found = latest_checkpoint(root)
    except ModelFileError:
        assert not complete
        return
    if found is None:
        assert not placed
        return
    folder, tensors, meta = found
    assert meta["run"]["step"] >= max(complete, default=0)
    assert tensors["a"].tolist() == [float(meta["run"]["step"])] * 3

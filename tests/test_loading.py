"""load_collection: the on-disk cache, progress events, stopping, and the typed errors."""

import os

import numpy as np
import pytest

from expert_gui.core.data.formats import FORMATS
from expert_gui.core.data.loading import LoadProgress, collection_cache, load_collection
from expert_gui.core.data.text import TextSettings
from expert_gui.core.errors import CollectionError
from expert_gui.core.paths import cache_dir


def cached_folders():
    root = cache_dir() / "collections"
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def test_second_load_comes_from_the_cache(folder, monkeypatch):
    first = load_collection(folder)
    assert cached_folders() == [first.fingerprint]

    def must_not_read(*args, **kwargs):
        raise AssertionError("the files were read again")

    monkeypatch.setattr(FORMATS["folder"], "read", must_not_read)
    again = load_collection(folder)
    assert again.fingerprint == first.fingerprint
    assert isinstance(again.tokens, np.memmap)  # memory-mapped, not read
    assert np.array_equal(again.tokens, first.tokens) and again.doc_ids == first.doc_ids
    assert again.text(1) == first.text(1) and again.report.problems == first.report.problems


def test_changed_file_or_settings_load_afresh(folder):
    first = load_collection(folder)
    assoc = folder / "associations.tsv"
    st = assoc.stat()
    os.utime(assoc, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert load_collection(folder).fingerprint == first.fingerprint  # same content: cached
    # issue 11: same size, same modification time, other content
    assoc.write_bytes(assoc.read_bytes().replace(b"d2\tbob", b"d2\tcat"))
    os.utime(assoc, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert assoc.stat().st_size == st.st_size
    touched = load_collection(folder)
    assert touched.fingerprint != first.fingerprint
    assert "cat" in touched.person_ids
    no_stop = load_collection(folder, settings=TextSettings(stopwords="none"))
    assert no_stop.fingerprint not in (first.fingerprint, touched.fingerprint)
    assert "the" in no_stop.vocab.index and "the" not in first.vocab.index
    assert len(cached_folders()) == 3


def test_user_stopword_file_is_part_of_the_key(folder, tmp_path):
    words = tmp_path / "stop.txt"
    words.write_text("ring\n", encoding="utf-8")
    first = load_collection(folder, settings=TextSettings(stopwords=str(words)))
    assert "ring" not in first.vocab.index
    words.write_text("crypto\n", encoding="utf-8")
    os.utime(words, ns=(1, 10**18))
    second = load_collection(folder, settings=TextSettings(stopwords=str(words)))
    assert second.fingerprint != first.fingerprint and "ring" in second.vocab.index


def test_without_cache_nothing_is_written(folder):
    c = load_collection(folder, use_cache=False)
    assert c.n_documents == 5 and c.text(0).startswith("Ring buffer")
    assert cached_folders() == []


def test_broken_cache_is_rebuilt(folder):
    first = load_collection(folder)
    tokens = np.array(first.tokens)
    (collection_cache(first.fingerprint) / "tokens.npy").unlink()
    (collection_cache(first.fingerprint) / "tokens.npy").write_bytes(b"not numpy")
    again = load_collection(folder)
    assert np.array_equal(again.tokens, tokens)


def test_progress_events_reach_the_total(folder):
    events = []
    load_collection(folder, progress=events.append, use_cache=False)
    assert all(isinstance(e, LoadProgress) for e in events) and len(events) >= 2
    done = [e.done for e in events]
    assert done == sorted(done)
    total = sum(f.stat().st_size for f in folder.iterdir())
    assert events[-1].total == total and events[-1].done == total


def test_stop_returns_none_and_caches_nothing(folder):
    assert load_collection(folder, should_stop=lambda: True) is None
    assert cached_folders() == []
    assert list((cache_dir() / "collections").iterdir()) == []  # the spill folder is gone


def test_empty_collection_is_an_error(tmp_path):
    (tmp_path / "documents.tsv").write_text("doc_id\ttext\n", encoding="utf-8")
    (tmp_path / "associations.tsv").write_text("doc_id\tperson_id\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="at least one document"):
        load_collection(tmp_path)


def test_missing_companion_file_is_an_error(folder):
    with pytest.raises(CollectionError, match="no such file") as err:
        load_collection(folder, associations=folder / "nope.tsv")
    assert err.value.path.endswith("nope.tsv")


def test_old_caches_of_a_path_are_pruned(folder):
    fingerprints = [load_collection(folder, settings=TextSettings(min_count=k)).fingerprint
                    for k in (1, 2, 3, 4)]
    assert len({f[:8] for f in fingerprints}) == 1  # one path, one prefix
    assert cached_folders() == sorted(fingerprints[1:])  # the least recently used went


def test_a_full_disk_at_the_cache_still_loads_and_says_so(folder, monkeypatch, caplog):
    import errno

    from expert_gui.core.data import cache

    def disk_full(path, values, allow_pickle):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cache.np, "save", disk_full)
    c = load_collection(folder)
    assert c.n_documents == 5 and c.text(0).startswith("Ring buffer")
    assert list((cache_dir() / "collections").iterdir()) == []  # nothing half written is left
    assert "no space left on the device (" in caplog.text and "not cached" in caplog.text


def _rehashed(folder, name, values):
    """Write a cache array and hash the cache again, as a crafted cache would be."""
    from expert_gui.core.data.cache import digest as _cache_digest

    np.save(folder / f"{name}.npy", values, allow_pickle=False)
    (folder / "xxh3").write_text(_cache_digest(folder))


@pytest.mark.parametrize("name, change, message", [
    ("assoc_people", lambda a: np.where(a == 0, 99, a).astype(a.dtype), "indices below 2"),
    ("doc_offsets", lambda a: np.concatenate([a[:-1], [10**9]]), "offsets from 0 to"),
    ("tokens", lambda a: a.astype(np.float32), "1-D array of kind 'u'"),
    ("text_offsets", lambda a: a[::-1].copy(), "non-decreasing"),
])
def test_a_cache_is_checked_as_strictly_as_a_model(folder, name, change, message):
    # issue 11: an out-of-range person index raised an IndexError in `train`; an offset of 1e9
    # was killed at 24 GB
    from expert_gui.core.data.collection import Collection

    first = load_collection(folder)
    tokens = np.array(first.tokens)
    cache = collection_cache(first.fingerprint)
    _rehashed(cache, name, change(np.load(cache / f"{name}.npy")))
    with pytest.raises(CollectionError, match=message):
        Collection.load(cache)
    again = load_collection(folder)  # rebuilt from the files
    assert again.doc_ids == first.doc_ids and np.array_equal(again.tokens, tokens)


def test_a_damaged_cache_fails_its_hash(folder):
    from expert_gui.core.data.collection import Collection

    first = load_collection(folder)
    cache = collection_cache(first.fingerprint)
    data = bytearray((cache / "tokens.npy").read_bytes())
    data[-1] ^= 1  # a token id changed, still in range
    (cache / "tokens.npy").write_bytes(bytes(data))
    with pytest.raises(CollectionError, match="does not match its hash"):
        Collection.load(cache)


@pytest.mark.parametrize("name", ["documents.tsv", "associations.tsv", "people.tsv"])
def test_a_file_inside_a_collection_folder_opens_the_folders_collection(folder, name):
    whole = load_collection(folder, use_cache=False)
    via_file = load_collection(folder / name, use_cache=False)
    assert (via_file.name, via_file.source, via_file.fingerprint) == \
        (whole.name, whole.source, whole.fingerprint) == \
        (folder.name, str(folder), whole.fingerprint)
    assert via_file.doc_ids == whole.doc_ids


def test_a_file_changed_while_read_is_fingerprinted_by_what_was_read(tmp_path, monkeypatch):
    # issue 24 item 2: a file changed during a load and then restored was served, mixed, from
    # the cache under the original's key (vocabulary 5,003 instead of 5,002)
    from expert_gui.core.data.collection import CollectionBuilder

    lines = [f"d{i}\tring buffer number {i}\n" for i in range(40_000)]  # past every buffer
    original = ("doc_id\ttext\n" + "".join(lines)).encode()
    path = tmp_path / "documents.tsv"
    path.write_bytes(original)
    (tmp_path / "associations.tsv").write_text("d1\ta\n", encoding="utf-8")
    real = CollectionBuilder.add_document
    state = {"changed": False}

    def change_the_tail_once(self, *args, **kwargs):
        if not state["changed"]:  # the first document is in; the file's end is not read yet
            state["changed"] = True
            with open(path, "r+b") as f:
                f.seek(len(original) - 8)
                f.write(b" zebra!\n")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(CollectionBuilder, "add_document", change_the_tail_once)
    mixed = load_collection(tmp_path)
    monkeypatch.undo()
    assert "zebra" in mixed.vocab.words
    changed = [p for p in mixed.report.problems if p.kind == "changed-while-read"]
    assert [p.file for p in changed] == [str(path)] and "not cached" in changed[0].message
    path.write_bytes(original)  # restored
    again = load_collection(tmp_path)
    assert "zebra" not in again.vocab.words and again.fingerprint != mixed.fingerprint
    assert not any(p.kind == "changed-while-read" for p in again.report.problems)
    assert load_collection(tmp_path).fingerprint == again.fingerprint  # cached as before

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from expert_gui.core.data.collection import Collection, CollectionBuilder
from expert_gui.core.data.text import TextSettings, Tokenizer


def _small():
    docs = [("d1", "Ring buffer lockless ring"), ("d2", "Crypto device"), ("d3", "the of and"),
            ("d1", "duplicate"), ("d4", "orphan words")]
    assoc = [("d1", "alice"), ("d2", "bob"), ("d2", "alice"), ("d3", "bob"), ("dX", "carol"),
             ("d2", "bob")]
    return Collection.from_records(docs, assoc, people={"alice": "Alice A.", "zed": "Zed"})


def test_builder_tokens_offsets_and_associations():
    c = _small()
    assert c.doc_ids == ["d1", "d2", "d3", "d4"]
    assert c.person_ids == ["alice", "bob"] and c.person_names == ["Alice A.", "bob"]
    assert [c.vocab.words[i] for i in c.doc_tokens(0)] == ["ring", "buffer", "lockless", "ring"]
    assert len(c.doc_tokens(2)) == 0
    assert c.people_of(1).tolist() == [0, 1]
    assert c.documents_of(0).tolist() == [0, 1] and c.documents_of(1).tolist() == [1, 2]
    assert c.text(1) == "Crypto device"


def test_report_names_every_problem():
    kinds = sorted(p.kind for p in _small().report.problems)
    assert kinds == ["duplicate-association", "duplicate-id", "empty-document", "no-people",
                     "unknown-document", "unknown-person"]


def test_table1_stats_by_hand():
    s = _small().stats()
    assert s.documents == 4 and s.people_with_documents == 2 and s.associations == 4
    assert s.documents_with_people == 3
    assert s.associations_per_document_mean == np.mean([1, 2, 1])
    assert s.associations_per_person_mean == 2.0 and s.associations_per_person_sd == 0.0
    assert s.average_document_length == (4 + 2 + 0 + 2) / 4


def test_save_load_round_trip(tmp_path):
    c = _small()
    c.save(tmp_path / "cache")
    d = Collection.load(tmp_path / "cache")
    assert d.doc_ids == c.doc_ids and d.person_ids == c.person_ids
    assert np.array_equal(d.tokens, c.tokens) and d.text(0) == c.text(0)
    assert d.vocab.words == c.vocab.words and d.report.problems == c.report.problems


# Text with the characters the fast path treats specially: ASCII punctuation and digits, '_',
# non-ASCII letters, digits and punctuation, combining marks, and letters that change length
# when lower-cased.
_TEXT = st.text(alphabet=st.sampled_from(list("aZ9 _-.\n\t'éÉßİΣσς٣²—\u0301\u00a0\u2028日本"))
                | st.characters(), max_size=60)


@settings(max_examples=150, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=12), st.sampled_from(["any-digit", "numeric"]))
def test_batched_tokenizing_equals_the_tokenizer(texts, numbers):
    text_settings = TextSettings(numbers=numbers)
    CollectionBuilder._BATCH_DOCS = 5  # several batches per example
    try:
        b = CollectionBuilder(text_settings)
        for k, text in enumerate(texts):
            b.add_document(f"d{k}", text, "<memory>", k)
        c = b.build()
    finally:
        CollectionBuilder._BATCH_DOCS = 512
    tok = Tokenizer(text_settings)
    for k, text in enumerate(texts):
        assert [c.vocab.words[t] for t in c.doc_tokens(k)] == tok.words(text)
        assert c.text(k) == text.encode("utf-8", "replace").decode("utf-8")
    empty = {p.line for p in c.report.problems if p.kind == "empty-document"}
    assert empty == {k for k, t in enumerate(texts) if not tok.words(t)}


def test_spilled_text_reads_back(tmp_path):
    b = CollectionBuilder(spill_dir=tmp_path)
    for k in range(1200):  # more than one batch
        b.add_document(f"d{k}", f"document number {k} about rings", "<memory>", None)
    c = b.build()
    assert isinstance(c.text_bytes, np.memmap)
    assert c.text(0) == "document number 0 about rings"
    assert c.text(1199) == "document number 1199 about rings"
    assert [c.vocab.words[t] for t in c.doc_tokens(1199)] == ["document", "number", "<num>",
                                                              "rings"]


def test_forgetting_the_memo_keeps_word_ids(monkeypatch):
    from expert_gui.core.data import collection

    monkeypatch.setattr(collection, "_MEMO_LIMIT", 3)
    monkeypatch.setattr(CollectionBuilder, "_BATCH_DOCS", 1)
    texts = ["ring queue", "crypto ring", "x86 ring offload", "queue crypto 42"]
    c = Collection.from_records([(f"d{k}", t) for k, t in enumerate(texts)], [])
    tok = Tokenizer(TextSettings())
    for k, text in enumerate(texts):
        assert [c.vocab.words[t] for t in c.doc_tokens(k)] == tok.words(text)
    assert c.vocab.counts[c.vocab.index["ring"]] == 3

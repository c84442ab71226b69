"""Text in every script: Unicode folded once for documents and queries, Chinese, Japanese and
Korean cut into overlapping pairs of characters, and models of the earlier rule read as before."""

import pytest

from expert_gui.core import schema
from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import (
    NUMBER_TOKEN,
    TextSettings,
    Tokenizer,
    check_text_settings,
    highlight_pattern,
    text_rule_note,
)
from expert_gui.core.rankers.methods import make_ranker

NEW = Tokenizer(TextSettings())
EARLIER = Tokenizer(TextSettings.from_dict({}))  # settings saved before the rule was recorded


@pytest.mark.parametrize("text, words", [
    # Chinese: overlapping pairs, so 智能 is found inside 人工智能
    ("人工智能对", ["人工", "工智", "智能", "能对"]),
    # a lone character is itself; Latin and digits keep their words beside Han
    ("VR技术", ["vr", "技术"]), ("5G网络", ["5g", "网络"]), ("2024年", [NUMBER_TOKEN, "年"]),
    # punctuation (fullwidth too) ends a run
    ("数据库，引文。", ["数据", "据库", "引文"]),
    # Japanese: kanji and kana in one run, as Lucene's CJK bigrams pair them
    ("東京大学の", ["東京", "京大", "大学", "学の"]), ("データ", ["デー", "ータ"]),
    # Korean: a word and its particle, pairs within the word, never across a space
    ("대학교에서 연구", ["대학", "학교", "교에", "에서", "연구"]),
    # NFKC: fullwidth letters and digits, ligatures, superscripts and subscripts
    ("ｓｏｌａｒ ＳＯＬＡＲ", ["solar", "solar"]), ("ﬂuid", ["fluid"]), ("CO₂ x²", ["co2", "x2"]),
    ("ｍｌｘ５", ["mlx5"]),
    # a symbol that NFKC spells in letters ends the word first: EPYC™ is epyc, not epyctm
    ("EPYC™ VTune™", ["epyc", "vtune"]),
    # case folded: ß is ss (German capital and small forms meet)
    ("Straße STRASSE", ["strasse", "strasse"]),
    # a soft hyphen or zero-width joiner is no break; a combining accent stays on its letter
    ("hy\u00adphen", ["hyphen"]), ("cafe\u0301", ["café"]), ("café", ["café"]),
    # a vowel sign belongs to its word (Devanagari was cut at each one before)
    ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),
    # English as before
    ("The net/mlx5: FIX crash in 2 queues", ["net", "mlx5", "fix", "crash", NUMBER_TOKEN,
                                             "queues"]),
])
def test_words_in_every_script(text, words):
    assert NEW.words(text) == words


def test_the_earlier_rule_reads_text_as_before():
    assert EARLIER.settings.segmentation == "runs"
    assert EARLIER.words("人工智能对 VR技术 ｓｏｌａｒ ﬂuid") == ["人工智能对", "vr技术", "ｓｏｌａｒ",
                                                           "ﬂuid"]
    assert EARLIER.words("hy\u00adphen हिन्दी") == ["hy", "phen", "ह", "न", "द"]
    # and new settings are saved with their rule, so they read back as they were made
    assert TextSettings.from_dict(TextSettings().to_dict()) == TextSettings()
    assert TextSettings().segmentation == "cjk-bigrams"


def test_korean_and_chinese_terms_are_found_inside_running_text():
    for query, document in [("대학교", "대학교에서"), ("数据库", "建设科研数据库的方法"),
                            ("人工智能", "探析人工智能影响下高职艺术")]:
        assert set(NEW.words(query)) <= set(NEW.words(document))
        assert not set(EARLIER.words(query)) <= set(EARLIER.words(document))


MIXED = ["人工智能对高职艺术设计人才培养具有重要的影响。VR技术", "ｓｏｌａｒ power ﬁeld", "plain English text",
         "대학교에서 연구했다", "東京大学の研究者がデータベースを", "EPYC™ ¾ hy\u00adphen café cafe\u0301",
         "हिन्दी भाषा", "x\u200by \ufeffz"]


@pytest.mark.parametrize("settings", [TextSettings(), TextSettings.from_dict({})])
def test_a_collection_reads_its_documents_as_a_query_is_read(settings):
    """The builder's batched tokenizing gives exactly `Tokenizer.words`, under either rule."""
    c = Collection.from_records([(f"d{i}", t) for i, t in enumerate(MIXED)], [],
                                settings=settings)
    tokenizer = Tokenizer(settings)
    for i, text in enumerate(MIXED):
        assert [c.vocab.words[j] for j in c.doc_tokens(i)] == tokenizer.words(text), text


def test_a_fullwidth_query_ranks_as_its_ascii_form():
    docs = [("d1", "solar panels on roofs"), ("d2", "wind turbines"), ("d3", "solar cells"),
            ("d4", "人工智能与数据库")]
    assocs = [("d1", "ann"), ("d2", "bo"), ("d3", "cy"), ("d4", "di")]
    c = Collection.from_records(docs, assocs)
    for method in ("model2-jm", "model1-d", "tfidf"):
        ranker = make_ranker(method, collection=c)
        ascii_, wide = ranker.rank("solar"), ranker.rank("ＳＯＬＡＲ")
        assert list(wide.known_words) == ["solar"] and not wide.unknown_words
        assert [ascii_.person_ids[p] for p in ascii_.people] == \
            [wide.person_ids[p] for p in wide.people]
        assert list(ascii_.scores) == list(wide.scores)
        assert wide.person_ids[wide.people[0]] in ("ann", "cy")
        ai = ranker.rank("人工智能")  # found inside the clause
        assert list(ai.known_words) == ["人工", "工智", "智能"]
        assert ai.person_ids[ai.people[0]] == "di"


def test_settings_check_and_describe_their_rule():
    check_text_settings(TextSettings().to_dict(), "text_settings")
    check_text_settings({k: v for k, v in TextSettings().to_dict().items()
                         if k != "segmentation"}, "text_settings")
    with pytest.raises(schema.SchemaError, match="segmentation"):
        check_text_settings({**TextSettings().to_dict(), "segmentation": "jieba"}, "t")
    with pytest.raises(ValueError, match="segmentation must be one of"):
        TextSettings(segmentation="jieba")
    assert "Chinese, Japanese and Korean as pairs of characters" in TextSettings().describe()
    assert "the earlier rule" in TextSettings.from_dict({}).describe()


def test_a_model_of_the_earlier_rule_says_so_where_it_matters():
    earlier = TextSettings.from_dict({})
    assert text_rule_note(TextSettings(), ["人工智能对"]) is None
    assert text_rule_note(earlier, ["solar", "wind"]) is None  # English reads the same
    note = text_rule_note(earlier, ["solar", "人工智能对"])
    assert note.startswith("This model's collection was read with the earlier text rule")
    assert text_rule_note(earlier) == note  # without its words, said anyway


def test_highlighting_marks_pairs_inside_running_text_and_other_words_whole():
    pattern = highlight_pattern(["人工", "工智", "智能", "solar"])
    marked = pattern.sub(lambda m: f"[{m.group()}]", "人工智能对 Solar solarium")
    assert marked == "[人工][智能]对 [Solar] solarium"
    assert highlight_pattern([]) is None


def test_a_model_saved_before_the_rule_was_recorded_reads_text_as_it_was_trained(tmp_path):
    import json

    from test_model import tiny_model

    from expert_gui.core.store import manifest as schema
    from expert_gui.core.store.storage import load_model, save_model

    model = tiny_model()
    model.vocab.words[1] = "人工智能对"
    save_model(model, tmp_path / "m")
    assert load_model(tmp_path / "m").text_settings.segmentation == "cjk-bigrams"
    assert load_model(tmp_path / "m").text_rule_note is None
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    del manifest["text_settings"]["segmentation"]  # as a model of an earlier version wrote it
    manifest["sha256"] = schema.digest((tmp_path / "m" / "model.safetensors").read_bytes(),
                                       manifest)
    (tmp_path / "m" / "manifest.json").write_text(json.dumps(manifest))
    back = load_model(tmp_path / "m")
    assert back.text_settings.segmentation == "runs"
    assert back.tokenizer.words("人工智能对 ｓｏｌａｒ") == ["人工智能对", "ｓｏｌａｒ"]
    assert list(back.encode("人工智能对")[1]) == ["人工智能对"]
    assert back.text_rule_note.startswith("This model's collection was read with the earlier")


def test_a_query_counts_a_pair_of_characters_as_half_a_word():
    """A query's type (a short topic or a whole document) counts its words: a Chinese title of
    15 characters is a topic of about 7 words, not 14 (its pairs)."""
    from expert_gui.core.data.text import Tokenizer
    from expert_gui.core.rankers.query_type import query_type, words_in

    t = Tokenizer()
    assert t.count_words("人工智能") == 2 and t.count_words("VR技术的应用") == 3
    assert t.count_words("deep learning for images") == 3  # "for" is a stop word
    title = "基于深度学习的图像识别方法研究"
    assert len(t.words(title)) == 14 and words_in(t, title) == 7
    assert query_type(words_in(t, title)) == "short topic"

import numpy as np

from expert_gui.core.text import NUMBER_TOKEN, PAD_TOKEN, TextSettings, Tokenizer, Vocabulary


def test_tokenizer_follows_section_4_4():
    tok = Tokenizer(TextSettings())
    words = tok.words("The net/mlx5: FIX crash in 2 queues, and the i40e driver!")
    # lowercase, punctuation gone, stop words ("the", "in", "and") gone, digits folded
    assert words == ["net", NUMBER_TOKEN, "fix", "crash", NUMBER_TOKEN, "queues", NUMBER_TOKEN, "driver"]


def test_numeric_rule_keeps_names_with_digits():
    tok = Tokenizer(TextSettings(numbers="numeric"))
    assert tok.words("mlx5 has 2 queues") == ["mlx5", NUMBER_TOKEN, "queues"]


def test_user_stopword_list(tmp_path):
    path = tmp_path / "stop.txt"
    path.write_text("# mine\nqueues\n", encoding="utf-8")
    tok = Tokenizer(TextSettings(stopwords=str(path)))
    assert tok.words("the queues grow") == ["the", "grow"]


def test_vocabulary_keeps_most_frequent_and_pads_at_zero():
    words = ["b", "a", "c", "d"]
    counts = np.array([5, 5, 1, 3])
    vocab, remap = Vocabulary.from_counts(words, counts, TextSettings(vocab_size=4, min_count=1))
    assert vocab.words == [PAD_TOKEN, "a", "b", "d"]  # ties by word, "c" cut
    assert remap.tolist() == [2, 1, -1, 3]
    assert vocab.dtype == np.uint16
    ids, unknown = vocab.encode(["a", "zzz", "d", PAD_TOKEN])
    assert ids.tolist() == [1, 3] and unknown == ["zzz", PAD_TOKEN]


def test_min_count_cuts_rare_words():
    vocab, remap = Vocabulary.from_counts(["x", "y"], np.array([1, 2]), TextSettings(min_count=2))
    assert vocab.words == [PAD_TOKEN, "y"] and remap.tolist() == [-1, 1]

import numpy as np
import pytest

from expert_gui.core.data.text import NUMBER_TOKEN, PAD_TOKEN, TextSettings, Tokenizer, Vocabulary


def test_tokenizer_follows_section_4_4():
    tok = Tokenizer(TextSettings())
    words = tok.words("The net/mlx5: FIX crash in 2 queues, and the i40e driver!")
    # lowercase, punctuation gone, stop words ("the", "in", "and") gone, numbers folded
    assert words == ["net", "mlx5", "fix", "crash", NUMBER_TOKEN, "queues", "i40e", "driver"]


def test_default_rule_folds_numbers_not_words_with_digits():
    tok = Tokenizer(TextSettings())
    n = NUMBER_TOKEN
    # integers, decimals, versions, dates and addresses (split at punctuation), hex literals
    assert tok.words("42 3.14 v1.2.3 2026-06-29 10.0.0.1 0x8100 0XFF") == \
        [n, n, n, "v1", n, n, n, n, n, n, n, n, n, n, n]
    # names and terms that hold a digit stay words; so do bare hex strings and "0x" alone
    assert tok.words("mlx5 i40e e1000 IPv6 x86 5G COVID-19 GPT-4 H2O ed25519 0x") == \
        ["mlx5", "i40e", "e1000", "ipv6", "x86", "5g", "covid", n, "gpt", n, "h2o", "ed25519",
         "0x"]


def test_any_digit_rule_folds_every_token_with_a_digit():
    tok = Tokenizer(TextSettings(numbers="any-digit"))
    assert tok.words("mlx5 has 2 queues at 0x10, ipv6") == \
        [NUMBER_TOKEN, NUMBER_TOKEN, "queues", NUMBER_TOKEN, NUMBER_TOKEN]


def test_earlier_numeric_rule_is_still_read():
    """Models trained with the rule once offered as "numeric" keep it: digits only."""
    settings = TextSettings.from_dict({**TextSettings().to_dict(), "numbers": "numeric"})
    assert Tokenizer(settings).words("mlx5 has 2 queues at 0x10") == \
        ["mlx5", NUMBER_TOKEN, "queues", "0x10"]


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="numbers must be one of"):
        TextSettings(numbers="some-digits")


def test_settings_describe_their_number_rule():
    # The rule comes first: the training panel shows this line shortened in the middle.
    assert TextSettings().describe().startswith(
        "number rule 'numbers' (integers and 0x hex literals folded)")
    assert TextSettings(numbers="any-digit").describe().startswith(
        "number rule 'any-digit' (every token holding a digit folded)")


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

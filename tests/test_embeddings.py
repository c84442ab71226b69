"""Pretrained word vectors: the three formats, case-insensitive matching, coverage, bad files."""

import struct

import numpy as np
import pytest
import torch
from fixtures.training import load_training_fixture

from expert_gui.core.data.text import Vocabulary
from expert_gui.core.errors import EmbeddingsFileError, TrainingError
from expert_gui.core.train.embeddings import detect_format, load_word_vectors
from expert_gui.core.train.net import initial_parameters
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import train

VOCAB = Vocabulary(["<pad>", "ring", "queue", "crypto", "mlx"], np.ones(5, dtype=np.int64))
VECTORS = {"Ring": [1.0, 2.0], "ring": [3.0, 4.0], "QUEUE": [5.0, 6.0], "other": [7.0, 8.0]}


def write_text(path, header):
    lines = [f"{len(VECTORS)} 2"] if header else []
    lines += [f"{w} {' '.join(str(x) for x in v)}" for w, v in VECTORS.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_binary(path):
    with open(path, "wb") as f:
        f.write(f"{len(VECTORS)} 2\n".encode())
        for w, v in VECTORS.items():
            f.write(w.encode() + b" " + struct.pack("<2f", *v) + b"\n")
    return path


@pytest.mark.parametrize("kind", ["word2vec-text", "glove", "word2vec-binary"])
def test_formats_load_and_match_case_insensitively(tmp_path, kind):
    path = {"word2vec-text": lambda: write_text(tmp_path / "v.txt", True),
            "glove": lambda: write_text(tmp_path / "v.txt", False),
            "word2vec-binary": lambda: write_binary(tmp_path / "v.bin")}[kind]()
    assert detect_format(path) == kind
    wv = load_word_vectors(path, VOCAB)
    assert wv.dim == 2 and wv.file_words == 4
    assert wv.found.tolist() == [False, True, True, False, False]
    np.testing.assert_array_equal(wv.vectors[1], [3.0, 4.0])  # "ring" beats "Ring"
    np.testing.assert_array_equal(wv.vectors[2], [5.0, 6.0])  # "QUEUE" matches "queue"
    cov = wv.coverage()
    assert (cov["found"], cov["vocabulary"], cov["fraction"]) == (2, 4, 0.5)
    assert "2 of 4 words (50.0%)" in wv.summary()


def test_ragged_text_file_names_its_line(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("ring 1 2\nqueue 1 2 3\n", encoding="utf-8")
    with pytest.raises(EmbeddingsFileError, match=r"v.txt:2"):
        load_word_vectors(path, VOCAB)


def test_non_numbers_name_their_line(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("ring 1 2\nqueue 1 x\n", encoding="utf-8")
    with pytest.raises(EmbeddingsFileError, match=r"v.txt:2"):
        load_word_vectors(path, VOCAB)


def test_truncated_binary_file_is_refused(tmp_path):
    path = write_binary(tmp_path / "v.bin")
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(EmbeddingsFileError, match="truncated"):
        load_word_vectors(path, VOCAB)


def test_missing_and_empty_files_are_refused(tmp_path):
    with pytest.raises(EmbeddingsFileError, match="no such file"):
        load_word_vectors(tmp_path / "none.txt", VOCAB)
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(EmbeddingsFileError, match="no word vectors"):
        load_word_vectors(tmp_path / "empty.txt", VOCAB)


def test_found_vectors_become_the_initial_word_embeddings(tmp_path):
    wv = load_word_vectors(write_text(tmp_path / "v.txt", False), VOCAB)
    wp, _, _ = initial_parameters(5, 3, TrainSettings(dim=2), wv)
    torch.testing.assert_close(wp[1:3], torch.tensor([[3.0, 4.0], [5.0, 6.0]]))
    other, _, _ = initial_parameters(5, 3, TrainSettings(dim=2))
    # the padding token and the words not found keep Glorot's draw
    torch.testing.assert_close(wp[[0, 3, 4]], other[[0, 3, 4]])


def test_training_with_embeddings_records_coverage_and_checks_dimensions(tmp_path):
    collection = load_training_fixture()
    path = tmp_path / "v.txt"
    path.write_text("Ring 1 0 0 1\nAES 0 1 1 0\nunrelated 1 1 1 1\n", encoding="utf-8")
    model = train(collection, TrainSettings(dim=4, epochs=1, batch_size=64, embeddings=str(path)))
    assert model.settings["embeddings_coverage"]["found"] == 2
    with pytest.raises(TrainingError, match="dimension"):
        train(collection, TrainSettings(dim=5, epochs=1, embeddings=str(path)))

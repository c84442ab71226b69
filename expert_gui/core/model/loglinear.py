"""The log-linear model of the paper (Eq. 1 and 2), as plain numpy arrays for inference.

Eq. 1: P(c|w) = softmax(W_c . W_p[w] + b_c) over the candidates C.
Eq. 2: P(c|w_1..w_k) is proportional to prod_i P(c|w_i), computed in log space.

Training (torch) lives in `train/`; this class is what a trained model *is* once saved, and
what rankers, the CLI and the GUI use, so none of them touch torch tensors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import log_softmax

from expert_gui.core.data.text import TextSettings, Tokenizer, Vocabulary, text_rule_note


@dataclass
class LogLinearModel:
    """Parameters and everything needed to interpret them.

    word_embeddings: |V| x e, row i is W_p's column for word id i (row 0: the padding token).
    candidate_weights: |C| x e (W_c). candidate_bias: |C| (b_c).
    """

    word_embeddings: np.ndarray
    candidate_weights: np.ndarray
    candidate_bias: np.ndarray
    vocab: Vocabulary
    text_settings: TextSettings
    person_ids: list[str]
    person_names: list[str]
    settings: dict = field(default_factory=dict)
    collection_fingerprint: str = ""
    collection_source: str = ""
    history: list[dict] = field(default_factory=list)
    # held-out documents and fusion weights (core/evaluation/calibration.py)
    calibration: dict | None = None
    # how the collection was read (a format's name; "" when not recorded)
    collection_format: str = ""

    def __post_init__(self):
        self._tokenizer: Tokenizer | None = None

    @property
    def n_people(self) -> int:
        return len(self.person_ids)

    @property
    def n_words(self) -> int:
        """The words it knows: its vocabulary less the padding token (every screen counts
        these, so that two of them never differ by one)."""
        return len(self.vocab) - 1

    @property
    def dim(self) -> int:
        return self.word_embeddings.shape[1]

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = Tokenizer(self.text_settings)
        return self._tokenizer

    @property
    def text_rule_note(self) -> str | None:
        """The sentence that says this model's collection was read with the earlier text rule
        (a manifest without `text_settings.segmentation`), where its words show it could
        matter; None otherwise."""
        return text_rule_note(self.text_settings, self.vocab.words[1:])

    def encode(self, text: str) -> tuple[np.ndarray, list[str], list[str]]:
        """Token ids of the known words, the known words, and the unknown words of a text."""
        words = self.tokenizer.words(text)
        ids, unknown = self.vocab.encode(words)
        known = [self.vocab.words[i] for i in ids]
        return ids, known, unknown

    def word_log_probs(self, word_ids: np.ndarray) -> np.ndarray:
        """log P(c|w) of Eq. 1 for each word: k x |C|."""
        logits = self.word_embeddings[np.asarray(word_ids)] @ self.candidate_weights.T
        logits = logits + self.candidate_bias
        return log_softmax(logits.astype(np.float64), axis=-1)

    def query_log_probs(self, word_ids: np.ndarray) -> np.ndarray:
        """log P(c|w_1..w_k) of Eq. 2, normalised over candidates.

        Each word's normaliser Z_1 is the same for every candidate and cancels in Z_2, and
        sum_i (W_c W_p[w_i] + b_c) = W_c (sum_i W_p[w_i]) + k b_c: one matrix-vector product and
        one softmax whatever the query length.
        """
        word_ids = np.asarray(word_ids)
        summed = self.word_embeddings[word_ids].astype(np.float64).sum(axis=0)
        logits = self.candidate_weights.astype(np.float64) @ summed
        logits += len(word_ids) * self.candidate_bias.astype(np.float64)
        return log_softmax(logits)

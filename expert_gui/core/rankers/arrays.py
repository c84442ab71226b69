"""Where a batch of queries is scored: numpy and scipy on the host (`HOST`, the default), or
torch on a device (`TorchArrays`: the training GPU, or the CPU in tests).

A batch's work is a few products of a resident matrix (people or documents x words, or the
model's parameters) with a block of queries, and elementwise arithmetic on the result; these
classes hold the resident matrices where the work runs and give the operations that differ
between numpy and torch. Everything else is written once against `xp` (numpy or torch, whose
functions used here share their names). A ranker never needs torch: it is imported only when a
device is asked for.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.sparse import csc_matrix, csr_matrix
from scipy.special import log_softmax


class HostArrays:
    """numpy and scipy on the host."""

    xp = np
    device = None

    def put(self, array: np.ndarray) -> np.ndarray:
        """A host array where the work runs."""
        return np.asarray(array)

    def host(self, array) -> np.ndarray:
        return np.asarray(array)

    def float64(self, array):
        return array.astype(np.float64)

    def log_softmax(self, array):
        """log softmax of each row."""
        return log_softmax(array, axis=1)

    def divide(self, a, b):
        """a / b, 0 where b is not positive."""
        return np.divide(a, b, out=np.zeros(np.broadcast_shapes(a.shape, b.shape)), where=b > 0)

    def term_matrix(self, matrix, log_ratio: tuple[np.ndarray, np.ndarray] | None = None
                    ) -> HostTermMatrix:
        return HostTermMatrix(matrix, log_ratio)

    def sparse(self, matrix) -> csr_matrix:
        """A sparse matrix where the work runs, to multiply dense arrays with."""
        return csr_matrix(matrix)


class HostTermMatrix:
    """A sparse matrix over the vocabulary (people or documents x words), multiplied by blocks of
    queries through the columns of their words only. With `log_ratio` = (r, p), an entry x of
    row i and word t counts as log(1 + r_i x / p_t): the smoothed language models' gain over the
    background (rankers/language_models.py)."""

    def __init__(self, matrix, log_ratio=None):
        self.matrix = csc_matrix(matrix)
        self.log_ratio = log_ratio

    def columns(self, terms: np.ndarray) -> csc_matrix:
        """rows x terms: the matrix's columns `terms`, each entry as it counts (`log_ratio`)."""
        sub = self.matrix[:, terms]
        if self.log_ratio is not None:
            r, p = self.log_ratio
            column = np.repeat(np.arange(len(terms)), np.diff(sub.indptr))
            sub = csc_matrix((np.log1p(r[sub.indices] * sub.data / p[terms][column]),
                              sub.indices, sub.indptr), shape=sub.shape)
        return sub

    def times(self, terms: np.ndarray, block: csr_matrix) -> np.ndarray:
        """rows x queries: the matrix's columns `terms` times `block` (queries x terms), a
        sparse product: only the entries of the queries' own words are touched."""
        return (self.columns(terms).tocsr() @ block.T.tocsc()).toarray()


HOST = HostArrays()


class TorchArrays:
    """torch on `device` ("cuda", "mps", "cpu"): the resident matrices are moved there once."""

    def __init__(self, device):
        import torch

        self.xp = torch
        self.device = torch.device(device)

    def put(self, array: np.ndarray):
        array = np.asarray(array)
        if not array.flags.writeable:  # shared by the rankers over a collection: a copy
            return self.xp.tensor(array, device=self.device)
        return self.xp.as_tensor(array, device=self.device)

    def host(self, array) -> np.ndarray:
        return array if isinstance(array, np.ndarray) else array.cpu().numpy()

    def float64(self, array):
        return array.to(self.xp.float64)

    def log_softmax(self, array):
        return self.xp.log_softmax(array, dim=1)

    def divide(self, a, b):
        ok = b > 0
        return self.xp.where(ok, a / self.xp.where(ok, b, 1.0), 0.0)

    def term_matrix(self, matrix, log_ratio=None) -> TorchTermMatrix:
        return TorchTermMatrix(self, matrix, log_ratio)

    def sparse(self, matrix):
        m = csr_matrix(matrix, dtype=np.float64)
        with warnings.catch_warnings():  # "sparse CSR tensor support is in beta state"
            warnings.simplefilter("ignore", UserWarning)
            return self.xp.sparse_csr_tensor(
                self.put(m.indptr.astype(np.int64)), self.put(m.indices.astype(np.int64)),
                self.put(m.data), size=m.shape)


class TorchTermMatrix:
    """`HostTermMatrix` resident on a torch device: the whole matrix (its `log_ratio` applied
    once), multiplied by the queries' counts spread over the vocabulary."""

    def __init__(self, arrays: TorchArrays, matrix, log_ratio=None):
        m = csr_matrix(matrix, dtype=np.float64)
        if log_ratio is not None:
            r, p = log_ratio
            m.data = np.log1p(r[np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))] * m.data
                              / p[m.indices])
        self.arrays = arrays
        self.n_words = m.shape[1]
        self.matrix = arrays.sparse(m)

    def times(self, terms: np.ndarray, block: csr_matrix):
        torch = self.arrays.xp
        spread = torch.zeros((self.n_words, block.shape[0]), dtype=torch.float64,
                             device=self.arrays.device)
        spread[self.arrays.put(terms)] = self.arrays.put(block.T.toarray())
        return self.matrix @ spread


def arrays_for(device: str | None) -> HostArrays | TorchArrays:
    """numpy on the host for None; torch on the device named otherwise."""
    return HOST if device is None else TorchArrays(device)

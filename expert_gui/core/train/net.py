"""The log-linear network in torch: Eq. 3's loss, the parameters, their initialisation (section
4.4), the optimiser and the device.

Speed without approximation: in Eq. 2 each word's normaliser Z_1 is the same for every candidate
and cancels in Z_2, so log P(c|w_1..w_n) = log_softmax_c(W_c . sum_i W_p[w_i] + k b_c) exactly,
where k = n is the window's length. A batch therefore costs one embedding sum,
one m x |C| product and one log-sum-exp per window, instead of n per-word softmaxes; and the
log-sum-exp streams over chunks of candidates (forward and backward), so memory is O(m x chunk),
not O(m x n x |C|). The padding token that fills an incomplete last window (section 4.4) is a
word like any other: Glorot-initialised and learned, so P(c|pad) is estimated from the data.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from expert_gui.core.errors import TrainingError
from expert_gui.core.train.settings import TrainSettings


# -- the loss -----------------------------------------------------------------------------------
class CandidateLogSumExp(torch.autograd.Function):
    """log sum_c exp(h_i . W_c[c] + k_i b_c) for each row i, streaming over candidate chunks.

    Forward and backward both visit |C| in chunks of `chunk` columns and recompute the scores in
    backward, so no m x |C| matrix is ever held. The bias rides along as one more column of W_c
    (and k as one more column of h), so scores and all three gradients are one product each.
    `compute_dtype` (bf16/fp16) runs the products in reduced precision; the log-sum-exp and the
    accumulations stay in the parameters' precision.
    """

    @staticmethod
    def forward(ctx, h, wc, b, k, chunk, compute_dtype):
        hk = torch.cat([h, k[:, None]], dim=1)
        wb = torch.cat([wc, b[:, None]], dim=1)
        lse = torch.full((h.shape[0],), -math.inf, dtype=h.dtype, device=h.device)
        for sl in _chunks(wc.shape[0], chunk):
            scores = _matmul(hk, wb[sl].T, compute_dtype)
            lse = torch.logaddexp(lse, torch.logsumexp(scores, dim=1))
        ctx.save_for_backward(hk, wb, lse)
        ctx.chunk, ctx.compute_dtype = chunk, compute_dtype
        return lse

    @staticmethod
    def backward(ctx, grad):
        hk, wb, lse = ctx.saved_tensors
        cd = ctx.compute_dtype
        e = hk.shape[1] - 1
        grad_hk = torch.zeros_like(hk)
        grad_wb = torch.empty_like(wb)
        for sl in _chunks(wb.shape[0], ctx.chunk):
            # d lse_i / d score_ic = softmax_ic: recomputed, then scaled by the incoming grad.
            p = _matmul(hk, wb[sl].T, cd).sub_(lse[:, None]).exp_().mul_(grad[:, None])
            grad_hk += _matmul(p, wb[sl], cd)
            grad_wb[sl] = _matmul(p.T, hk, cd)
        return grad_hk[:, :e], grad_wb[:, :e], grad_wb[:, e], None, None, None


class WindowSum(torch.autograd.Function):
    """sum_i W_p[w_i] over each window's words (the padding token included).

    The forward is `embedding_bag`; the backward scatters each window's gradient back to its
    words with one `index_add_`, about twice as fast on CPU as embedding_bag's own backward.
    """

    @staticmethod
    def forward(ctx, wp, windows):
        ctx.save_for_backward(windows)
        ctx.shape = wp.shape
        return F.embedding_bag(windows, wp, mode="sum")

    @staticmethod
    def backward(ctx, grad):
        (windows,) = ctx.saved_tensors
        grad_wp = grad.new_zeros(ctx.shape)
        grad_wp.index_add_(0, windows.reshape(-1), grad.repeat_interleave(windows.shape[1], 0))
        return grad_wp, None


def _chunks(n: int, chunk: int):
    return [slice(s, min(s + chunk, n)) for s in range(0, n, chunk)]


def _matmul(a, b, compute_dtype):
    if compute_dtype is None:
        return a @ b
    return (a.to(compute_dtype) @ b.to(compute_dtype)).to(a.dtype)


def window_cross_entropy(wp, wc, b, windows, rows, people, probs, weights, batch_size: int,
                         chunk: int = 8192, compute_dtype=None) -> torch.Tensor:
    """Eq. 3's first term: (1/m) sum_i w_i H(p_i, P(.|window_i)), m = batch_size.

    H = log Z_2 - sum_c p_c s_c, with s_c = W_c[c] . sum_i W_p[w_i] + k b_c the window's scores;
    the targets p come as sparse (row, person, probability) triples.
    """
    h = WindowSum.apply(wp, windows)
    k = h.new_full((len(windows),), windows.shape[1])
    lse = CandidateLogSumExp.apply(h, wc, b, k, chunk, compute_dtype)
    target_scores = (h[rows] * wc[people]).sum(dim=1) + k[rows] * b[people]
    expected = torch.zeros_like(lse).index_add_(0, rows, probs * target_scores)
    return (weights * (lse - expected)).sum() / batch_size


class LogLinearNet(nn.Module):
    """W_p, W_c and b_c as torch parameters; `forward` is `window_cross_entropy`."""

    def __init__(self, word_embeddings: torch.Tensor, candidate_weights: torch.Tensor,
                 candidate_bias: torch.Tensor, chunk: int = 8192,
                 compute_dtype: torch.dtype | None = None):
        super().__init__()
        self.word_embeddings = nn.Parameter(word_embeddings)
        self.candidate_weights = nn.Parameter(candidate_weights)
        self.candidate_bias = nn.Parameter(candidate_bias)
        self.chunk = chunk
        self.compute_dtype = compute_dtype

    def forward(self, windows, rows, people, probs, weights, batch_size: int) -> torch.Tensor:
        return window_cross_entropy(self.word_embeddings, self.candidate_weights,
                                    self.candidate_bias, windows, rows, people, probs, weights,
                                    batch_size, self.chunk, self.compute_dtype)

    @torch.no_grad()
    def add_penalty(self, l2: float, batch_size: int) -> None:
        """The gradient of Eq. 3's lambda / (2m) (||W_p||^2 + ||W_c||^2), lambda/m W, added to
        the gradients already there (one foreach add, instead of autograd's passes). Its value
        is not part of the loss shown (`weighted_mean_loss`)."""
        weights = [self.word_embeddings, self.candidate_weights]
        for w in weights:
            if w.grad is None:
                w.grad = torch.zeros_like(w)
        torch._foreach_add_([w.grad for w in weights], weights, alpha=l2 / batch_size)


def weighted_mean_loss(loss_sum: float, weight_sum: float) -> float:
    """The loss the app, the CLI and the manifest show, for training and validation alike:
    sum_i w_i H(p_i, q_i) / sum_i w_i over the instances, with Eq. 3's weights w_i =
    |d_max| / |d|, in nats per instance, without the L2 term. A uniform guess over the people
    scores log |C| on every instance, so it scores log |C| here too; Eq. 3's own value (w_i
    averaging 46 on DPDK, plus lambda/(2m) times the squared norms, which grow with the
    vocabulary) has no such yardstick. `weight_sum` is never 0: every weight is at least 1."""
    return loss_sum / weight_sum


# -- set-up -------------------------------------------------------------------------------------
def select_device(name: str = "auto") -> torch.device:
    """CUDA when present, else Apple MPS, else CPU; or the device asked for."""
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise TrainingError("device 'cuda' was asked for, but no CUDA GPU is available")
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise TrainingError("device 'mps' was asked for, but Apple MPS is not available")
    return device


def ranking_device(name: str = "auto") -> str | None:
    """Where a run's rankings of its held-out documents run (rankers' `device`): the CUDA GPU
    it trains on, else None, numpy on the host (Apple's MPS has no float64)."""
    device = select_device(name)
    return str(device) if device.type == "cuda" else None


def glorot_uniform(rows: int, cols: int, generator: torch.Generator) -> torch.Tensor:
    """Section 4.4: uniform in [-sqrt(6/(rows+cols)), +sqrt(6/(rows+cols))]."""
    bound = math.sqrt(6.0 / (rows + cols))
    return (torch.rand(rows, cols, generator=generator, dtype=torch.float64) * 2 - 1) * bound


def initial_parameters(n_words: int, n_people: int, settings: TrainSettings,
                       word_vectors=None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Glorot-uniform W_p (pretrained rows where given) and W_c, zero b_c (section 4.4)."""
    g = torch.Generator().manual_seed(settings.seed)
    wp = glorot_uniform(n_words, settings.dim, g).float()
    wc = glorot_uniform(n_people, settings.dim, g).float()
    if word_vectors is not None:
        found = torch.from_numpy(word_vectors.found)
        wp[found] = torch.from_numpy(word_vectors.vectors[word_vectors.found]).float()
    return wp, wc, torch.zeros(n_people)


def make_optimizer(params, settings: TrainSettings,
                   device: torch.device = torch.device("cpu")) -> torch.optim.Optimizer:
    """Adadelta (section 4.4) or Adam. On CUDA their multi-tensor (foreach) updates, torch's
    default there, or Adam's fused kernel; capturable when the step is to be a CUDA graph.
    On a CPU torch's per-tensor updates, as before."""
    graphs = device.type == "cuda" and settings.cuda_graphs
    if settings.optimizer == "adam":
        fused = True if device.type == "cuda" and not graphs else None
        return torch.optim.Adam(params, lr=settings.learning_rate or 1e-3, fused=fused,
                                capturable=graphs)
    return torch.optim.Adadelta(params, lr=settings.learning_rate or 1.0, rho=settings.rho,
                                eps=settings.eps, capturable=graphs)


def device_memory_bytes(device: torch.device) -> int:
    """Peak memory: allocated on a GPU, resident size of the process on the CPU."""
    if device.type == "cuda":
        return int(torch.cuda.max_memory_allocated(device))
    if device.type == "mps":
        return int(torch.mps.current_allocated_memory())
    try:
        import resource
        import sys
    except ImportError:  # Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)

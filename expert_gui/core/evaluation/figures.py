"""The paper's figures, drawn with matplotlib's object API (no pyplot, no GUI backend), each
saved as PNG and SVG: window sweep (Figure 2), entropy vs AP (Figure 3), query expansion for
Model 1 (Figure 4), per-topic AP difference (Figure 5)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from expert_gui.core.evaluation.analysis import APDifference, EntropyFit
from expert_gui.core.evaluation.significance import mark
from expert_gui.core.store.outputs import replacing

DPI = 150


def _save(fig: Figure, out_dir: str | Path, stem: str) -> list[Path]:
    fig.tight_layout()
    paths = [Path(out_dir) / f"{stem}.png", Path(out_dir) / f"{stem}.svg"]
    with replacing(paths[0], "wb") as f:
        fig.savefig(f, format="png", dpi=DPI)
    with replacing(paths[1], "wb") as f:
        fig.savefig(f, format="svg")
    return paths


def entropy_figure(fit: EntropyFit, out_dir: str | Path, stem: str = "figure3_entropy_ap",
                   title: str = "") -> list[Path]:
    """Figure 3: one dot per topic, and the OLS line; R and its marks in the title."""
    fig = Figure(figsize=(5, 4))
    ax = fig.add_subplot()
    ax.scatter(fit.entropy, fit.ap, s=14, alpha=0.7, color="tab:blue", label="topic")
    if np.isfinite(fit.slope):
        xs = np.linspace(0, 1, 2)
        ax.plot(xs, fit.slope * xs + fit.intercept, color="tab:red", label="OLS fit")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("normalized entropy of P(c | q)")
    ax.set_ylabel("average precision")
    r = f"R = {fit.r:.2f}{mark(fit.p)}, p = {fit.p:.2g}" if np.isfinite(fit.r) else "R undefined"
    ax.set_title(f"{title}\n{r}, {len(fit.topics)} topics".strip(), fontsize="medium")
    ax.legend(loc="best", fontsize="small")
    ax.grid(alpha=0.3)
    return _save(fig, out_dir, stem)


def ap_difference_figure(diff: APDifference, out_dir: str | Path,
                         stem: str = "figure5_ap_difference", title: str = "",
                         system: str = "log-linear", baseline: str = "Model 2 (jm)") -> list[Path]:
    """Figure 5: one bar per topic, sorted; above zero the system wins."""
    fig = Figure(figsize=(7, 3.5))
    ax = fig.add_subplot()
    colours = np.where(diff.difference >= 0, "tab:blue", "tab:orange")
    ax.bar(np.arange(len(diff.difference)), diff.difference, width=1.0, color=colours)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlim(-0.5, max(len(diff.difference), 1) - 0.5)
    ax.set_ylim(-1.02, 1.02)
    ax.set_xticks([])
    ax.set_xlabel(f"topics, sorted ({diff.wins} better, {diff.ties} equal, {diff.losses} worse)")
    ax.set_ylabel(f"AP({system}) - AP({baseline})")
    ax.set_title(title)
    return _save(fig, out_dir, stem)


def window_sweep_figure(results: Mapping[int, Mapping[str, float]], out_dir: str | Path,
                        stem: str = "figure2_window_sweep", title: str = "") -> list[Path]:
    """Figure 2: MAP and MRR of the log-linear model against the training window n (log2 axis)."""
    windows = sorted(results)
    fig = Figure(figsize=(5, 3.5))
    ax = fig.add_subplot()
    for measure, label in (("AP", "MAP"), ("RR", "MRR")):
        ax.plot(windows, [results[n][measure] for n in windows], marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_xticks(windows, [str(n) for n in windows])
    ax.set_xlabel("window size n")
    ax.set_ylabel("score")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return _save(fig, out_dir, stem)


def query_expansion_figure(results: Mapping[int, Mapping[str, float]], out_dir: str | Path,
                           stem: str = "figure4_query_expansion", title: str = "") -> list[Path]:
    """Figure 4: MAP of Model 1 (jm) when each query term brings its k nearest terms in W_p."""
    ks = sorted(results)
    fig = Figure(figsize=(5, 3.5))
    ax = fig.add_subplot()
    ax.plot(ks, [results[k]["AP"] for k in ks], marker="o", label="MAP")
    ax.set_xlabel("k nearest terms added per query term")
    ax.set_ylabel("MAP of Model 1 (jm)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    return _save(fig, out_dir, stem)

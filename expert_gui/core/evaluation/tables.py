"""The paper's Table 2 (every method, marks against the log-linear model) and Table 4 (Model 2,
the log-linear model and their ensemble, marks against the ensemble), as Markdown, CSV and LaTeX.

A mark on a row says that row differs from the reference row on that measure (two-tailed paired
randomization test, Benjamini-Hochberg adjusted over the rows); the best value of each column is
in bold (the lowest for the rank of the first relevant person). Each mean comes with its
standard deviation over the topics.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from expert_gui.core.evaluation.measures import (
    LABELS,
    LOWER_IS_BETTER,
    MEASURES,
    PerTopic,
)
from expert_gui.core.evaluation.significance import (
    N_PERMUTATIONS,
    SEED,
    compare_to_reference,
    mark,
)
from expert_gui.core.rankers.names import METHOD_LABELS
from expert_gui.core.store.outputs import replacing

TABLE2_METHODS = ("lsi", "tfidf", "model1-d", "model1-d-doc", "model1-jm", "model2-d",
                  "model2-jm", "loglinear", "auto")
TABLE4_METHODS = ("model2-jm", "loglinear", "ensemble")
MORE_METHODS = (*TABLE2_METHODS, "ensemble")
DIGITS = 3


@dataclass(frozen=True)
class Table:
    """Mean and standard deviation over the topics of each measure per method, and each
    non-reference method's adjusted p-value."""

    title: str
    reference: str
    methods: tuple[str, ...]
    measures: tuple[str, ...]
    means: dict[str, dict[str, float]]
    p_values: dict[str, dict[str, float]]
    sds: dict[str, dict[str, float]]

    def best(self, measure: str) -> set[str]:
        """The methods whose rounded mean is the column's best (all of them on a tie)."""
        rounded = {m: round(self.means[m][measure], DIGITS) for m in self.methods}
        top = (min if measure in LOWER_IS_BETTER else max)(rounded.values())
        return {m for m, v in rounded.items() if v == top}

    def mark(self, method: str, measure: str) -> str:
        return mark(self.p_values.get(method, {}).get(measure))


def build_table(title: str, per_topic: Mapping[str, PerTopic], methods: Sequence[str],
                reference: str, *, measures: Sequence[str] = MEASURES,
                n_permutations: int = N_PERMUTATIONS, seed: int = SEED) -> Table:
    """Means and significance of `methods` (those present in `per_topic`) against `reference`."""
    methods = tuple(m for m in methods if m in per_topic)
    if reference not in methods:
        raise ValueError(f"the reference method {reference!r} was not evaluated")
    topics = per_topic[reference].topics
    if any(per_topic[m].topics != topics for m in methods):
        raise ValueError("every method must be scored on the same topics, in the same order")
    means = {m: {x: per_topic[m].mean(x) for x in measures} for m in methods}
    sds = {m: {x: per_topic[m].sd(x) for x in measures} for m in methods}
    p_values: dict[str, dict[str, float]] = {m: {} for m in methods if m != reference}
    for x in measures:
        adjusted = compare_to_reference({m: per_topic[m].values[x] for m in methods}, reference,
                                        n_permutations=n_permutations, seed=seed)
        for m, p in adjusted.items():
            p_values[m][x] = p
    return Table(title, reference, methods, tuple(measures), means, p_values, sds)


def label(method: str) -> str:
    """A method's label; "loglinear@any-digit" (a model trained with another numbers rule)
    reads "Log-linear, numbers: any-digit"."""
    method, _, rule = method.partition("@")
    label = METHOD_LABELS.get(method, method)
    return f"{label}, numbers: {rule}" if rule else label


def cell(table: Table, method: str, measure: str) -> str:
    """A mean with its standard deviation: "0.515 ± 0.312" (ranks with one decimal)."""
    digits = 1 if measure in LOWER_IS_BETTER else DIGITS
    return f"{table.means[method][measure]:.{digits}f} ± {table.sds[method][measure]:.{digits}f}"


def to_markdown(table: Table) -> str:
    head = ["Method", *(LABELS.get(x, x) for x in table.measures)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in table.methods:
        cells = [label(m) + (" (reference)" if m == table.reference else "")]
        for x in table.measures:
            value = cell(table, m, x)
            if m in table.best(x):
                value = f"**{value}**"
            cells.append(value + table.mark(m, x).replace("*", r"\*"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def to_csv(table: Table) -> str:
    """One row per method: the mean of each measure, its standard deviation over the topics and
    its adjusted p-value against the reference."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["method", *(c for x in table.measures for c in (x, f"{x} sd", f"{x} p"))])
    for m in table.methods:
        row = [m]
        for x in table.measures:
            p = table.p_values.get(m, {}).get(x)
            row += [f"{table.means[m][x]:.6f}", f"{table.sds[m][x]:.6f}",
                    "" if p is None else f"{p:.6f}"]
        writer.writerow(row)
    return out.getvalue()


def to_latex(table: Table) -> str:
    """A booktabs tabular in the paper's style: best in bold, marks as superscripts, the
    standard deviation as a subscript."""
    head = " & ".join(["", *(LABELS.get(x, x) for x in table.measures)])
    lines = [
        r"\begin{tabular}{l" + "c" * len(table.measures) + "}",
        r"\toprule",
        head + r" \\",
        r"\midrule",
    ]
    for m in table.methods:
        cells = [label(m)]
        for x in table.measures:
            digits = 1 if x in LOWER_IS_BETTER else DIGITS
            value = f"{table.means[m][x]:.{digits}f}"
            if m in table.best(x):
                value = rf"\textbf{{{value}}}"
            sd = rf"_{{\pm {table.sds[m][x]:.{digits}f}}}"
            symbol = table.mark(m, x)
            cells.append(f"${value}^{{{symbol}}}{sd}$" if symbol else f"${value}{sd}$")
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def write_table(table: Table, out_dir: str | Path, stem: str) -> list[Path]:
    """Write `stem`.md, .csv and .tex; returns the paths."""
    out_dir = Path(out_dir)
    paths = []
    for suffix, render in ((".md", to_markdown), (".csv", to_csv), (".tex", to_latex)):
        path = out_dir / f"{stem}{suffix}"
        with replacing(path) as f:
            f.write(render(table))
        paths.append(path)
    return paths

"""report.md and settings.json: the experiment's numbers with everything needed to redo them."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

from expert_gui import __version__
from expert_gui.core.evaluation.measures import LABELS, MEASURES
from expert_gui.core.evaluation.results import ExperimentResult
from expert_gui.core.evaluation.significance import mark
from expert_gui.core.evaluation.tables import DIGITS, label, to_markdown
from expert_gui.core.store.outputs import replacing


def versions() -> dict[str, str]:
    import ir_measures
    import matplotlib
    import numpy
    import scipy
    import torch

    return {"expert-gui": __version__, "python": sys.version.split()[0],
            "platform": platform.platform(), "numpy": numpy.__version__,
            "scipy": scipy.__version__, "torch": torch.__version__,
            "ir-measures": ir_measures.__version__, "matplotlib": matplotlib.__version__}


def write_report(result: ExperimentResult) -> list[Path]:
    out = result.out_dir
    settings_path = out / "settings.json"
    with replacing(settings_path) as f:
        f.write(json.dumps({
            "sources": result.sources, "settings": result.settings.to_dict(),
            "model": _model_path(result),
            "versions": versions(), "wall_times_s": result.wall_times,
            "completed": result.completed}, indent=2))
    path = out / "report.md"
    # a path's bytes that are not UTF-8 (a Latin-1 folder name) are written as the CLI prints
    # them, \udce9, not refused at the end of the experiment
    with replacing(path, errors="backslashreplace") as f:
        f.write("\n".join(_report_lines(result)) + "\n")
    return [path, settings_path]


def _model_path(result: ExperimentResult) -> str | None:
    """Relative to the results folder, so a moved folder (or two side by side) still points right."""
    if result.model_path is None:
        return None
    return os.path.relpath(Path(result.model_path).resolve(), Path(result.out_dir).resolve())


def _report_lines(result: ExperimentResult) -> list[str]:
    lines = ["# Expertise retrieval experiment", ""]
    if not result.completed:
        lines += ["**Stopped before the end: the sections below hold what was finished.**", ""]
    lines += [f"**Warning:** {w}\n" for w in result.warnings]
    first = next(iter(result.per_topic.values()), None)
    judged = len(first.topics) if first else 0
    lines += [
        f"- collection: `{result.sources['collection']}`",
        f"- topics: `{result.sources['topics']}` ({result.n_topics} topics, {judged} with judgments "
        "evaluated; a topic whose query has no known word counts with an empty ranking)",
        f"- qrels: `{result.sources['qrels']}`",
        f"- model: `{_model_path(result)}`" if result.model_path else "- model: none",
        f"- training settings: {result.settings.suggested_settings or 'as given'} (all of them "
        "under Settings below)",
        f"- written {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}",
    ]
    if result.coverage:
        lines.append(f"- judgments: {result.coverage}")
    if result.settings.candidates:
        lines.append(f"- candidates: `{result.settings.candidates}`, {result.candidates:,} "
                     "people; only they are ranked, and every measure is computed within them "
                     f"({len(result.dropped_topics):,} topics left out: none of their relevant "
                     "people is a candidate)")
    if result.auto:
        lines.append(f"- auto: {result.auto}")
    lines.append("")
    lines += _findings(result)
    significance = (f"Significance: two-tailed paired randomization test, "
                    f"{result.settings.n_permutations} permutations (seed {result.settings.seed}), "
                    "Benjamini-Hochberg adjusted over the rows of each column; "
                    r"\*\*\* p < 0.01, \*\* p < 0.05, \* p < 0.1 against the reference row. "
                    "Best value of each column in bold (for the first relevant rank, the "
                    "lowest); each mean ± the standard deviation over the topics.")
    for stem, table in result.tables.items():
        lines += [f"## {table.title}", "", to_markdown(table), significance, "",
                  f"Also as [{stem}.csv]({stem}.csv) and [{stem}.tex]({stem}.tex).", ""]
    lines += _held_out_lines(result)
    lines += _pairwise_lines(result)
    if result.entropy is not None:
        e = result.entropy
        lines += ["## Figure 3: normalized entropy of P(c|q) vs average precision", "",
                  f"Pearson's R = {e.r:.3f}{mark(e.p).replace('*', chr(92) + '*')} "
                  f"(two-tailed permutation p = {e.p:.3g}) over {len(e.topics)} topics; "
                  f"OLS: AP = {e.slope:.3f} x entropy + {e.intercept:.3f}.", "",
                  "![entropy vs AP](figure3_entropy_ap.png)", ""]
    if result.difference is not None:
        d = result.difference
        lines += ["## Figure 5: per-topic AP, Log-linear minus Model 2 (jm)", "",
                  f"Log-linear better on {d.wins} topics, equal on {d.ties}, worse on {d.losses}.",
                  "", "![AP difference](figure5_ap_difference.png)", ""]
    if result.expansion:
        lines += ["## Figure 4: Model 1 (jm) with query expansion by the k nearest terms in W_p", "",
                  *_curve_table("k", result.expansion), "",
                  "![query expansion](figure4_query_expansion.png)", ""]
    if result.sweep:
        epochs = result.settings.sweep_epochs
        note = "" if epochs is None else \
            f" (each trained for {epochs} epoch{'' if epochs == 1 else 's'})"
        lines += [f"## Figure 2: window size n of the log-linear model{note}", "",
                  *_curve_table("n", result.sweep), "", "![window sweep](figure2_window_sweep.png)",
                  ""]
    lines += ["## Settings", "", "```json", json.dumps(result.settings.to_dict(), indent=2), "```",
              "", "## Versions", ""]
    lines += [f"- {name}: {v}" for name, v in versions().items()]
    lines += ["", "## Wall times", "", "| stage | seconds |", "|---|---|"]
    lines += [f"| {stage} | {t:.1f} |" for stage, t in result.wall_times.items()]
    lines += ["", "Run files (TREC format) are in `runs/`; per-topic measures in "
              "[per_topic.csv](per_topic.csv)."]
    return lines


def _findings(result: ExperimentResult) -> list[str]:
    """One line per measure: how Log-linear, Model 2 (jm) and the ensemble compare, on the
    values as the tables print them."""
    table2, table4 = result.tables.get("table2"), result.tables.get("table4")
    if table2 is None or "model2-jm" not in table2.methods:
        return []
    lines = ["## Findings", ""]
    for m in MEASURES:
        ll, m2 = (round(table2.means[k][m], DIGITS) for k in ("loglinear", "model2-jm"))
        verdict = "beats" if ll > m2 else "loses to" if ll < m2 else "ties"
        p = table2.p_values["model2-jm"][m]
        text = (f"- {LABELS[m]}: Log-linear {ll:.3f} {verdict} Model 2 (jm) {m2:.3f} "
                f"(adjusted p = {p:.3g})")
        if table4 is not None:
            ens = round(table4.means["ensemble"][m], DIGITS)
            best = max(ll, m2)
            relation = "above" if ens > best else "below" if ens < best else "equal to"
            text += f"; Ensemble {ens:.3f}, {relation} the better of the two"
        lines.append(text)
    return lines + [""]


def _held_out_lines(result: ExperimentResult) -> list[str]:
    """Every method on the held-out documents beside the same method on the topics: does the
    collection's own answer key pick the method that is best on the real topics?"""
    if not result.held_out:
        return []
    n = len(next(iter(result.held_out.values())).topics)
    held = result.settings.held_out
    lines = ["## Held-out documents as queries, beside the topics", "",
             f"{n} documents ({held.fraction:.0%} of those with people, at least {held.minimum}, "
             f"at most {held.maximum}; seed {held.seed}) were held out of training and of every "
             "index; each one's text is a query, its people the relevant answers.", "",
             "| Method | MAP held-out | MRR held-out | MAP topics | MRR topics |",
             "|---|---|---|---|---|"]
    order = sorted(result.held_out, key=lambda m: -result.held_out[m].mean("AP"))
    for m in order:
        h, t = result.held_out[m], result.per_topic.get(m)
        topics = f"{t.mean('AP'):.3f} | {t.mean('RR'):.3f}" if t is not None else "- | -"
        lines.append(f"| {label(m)} | {h.mean('AP'):.3f} | {h.mean('RR'):.3f} | {topics} |")
    best_held = order[0]
    scored = [m for m in order if m in result.per_topic]
    best_topics = max(scored, key=lambda m: result.per_topic[m].mean("AP")) if scored else None
    lines += ["", f"Best on the held-out documents: {label(best_held)}; on the topics: "
              f"{label(best_topics) if best_topics else '-'}.", ""]
    if result.excluded_documents:
        lines += [f"{result.excluded_documents} documents whose text is a query were removed "
                  "from the collection first.", ""]
    return lines


def _pairwise_lines(result: ExperimentResult) -> list[str]:
    """The pairwise measure of each method's own scores and of its P(expert)."""
    if not result.pairwise:
        return []
    people = max(raw.people for raw, _ in result.pairwise.values())
    lines = ["## Scores across topics: the pairwise measure", "",
             "For each person, the share of pairs (a topic they are relevant for, a topic they "
             "are not) whose scores put the second above the first, ties counting half; the "
             f"mean over the {people:,} people with at least one of each, and over all their "
             "pairs together (pooled). Lower is better; 0.5 is chance. A method's own score "
             "(log P(q|c), P(c|q), cosine, ...) beside its P(expert), the probability fitted "
             "on the held-out documents that is meant to mean the same for every query.", "",
             "| Method | own score | pooled | P(expert) | pooled |", "|---|---|---|---|---|"]

    def number(x: float) -> str:
        return "-" if x != x else f"{x:.3f}"

    for method, (raw, calibrated) in result.pairwise.items():
        lines.append(f"| {label(method)} | {number(raw.mean)} | {number(raw.pooled)} | "
                     f"{number(calibrated.mean)} | {number(calibrated.pooled)} |")
    return lines + ["", "(-: the model holds no fit of P(expert) for the method.)", ""]


def _curve_table(key: str, curve) -> list[str]:
    head = [key, *(LABELS[m] for m in MEASURES)]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    rows += ["| " + " | ".join([str(x), *(f"{curve[x][m]:.3f}" for m in MEASURES)]) + " |"
             for x in sorted(curve)]
    return rows



"""Which method `auto` uses for a query, by its type, and why (issue 29, part 2).

`auto` ranks every query with the weights its calibration chose on held-out documents: "who
wrote this document?". docs/results/auto-generalises.md measured them on queries from outside the
collection: on short topics `auto` was above the best single method or within 0.01 of it; on
whole documents it held on AMiner's papers and missed on DPDK's commits by 0.01-0.02 (the
log-linear model alone was best), and on the issue's reviewer set authorship favoured the
log-linear model where Model 1 (d) was best. No rule built from the collection alone did better,
so the weights stay; what a screen says of them depends on the query's type.
"""

from __future__ import annotations

from expert_gui.core.rankers.names import METHOD_LABELS, METHODS

# Words above which a query is a whole document rather than a topic (the split the study used).
LONG_QUERY_WORDS = 12


def query_type(n_words: int) -> str:
    """'short topic' (at most LONG_QUERY_WORDS words) or 'whole document'."""
    return "whole document" if n_words > LONG_QUERY_WORDS else "short topic"


def query_kind(n_words: int) -> str:
    """'short topic (2 words)', 'whole document (40 words)'."""
    return f"{query_type(n_words)} ({n_words:,} word{'s' if n_words != 1 else ''})"


def auto_reason(calibration: dict | None, n_words: int) -> str:
    """Why `auto`'s weights suit a query of `n_words` words (its type: query_type), and where
    they may not: for a whole document, the best single method on the held-out documents, by
    name."""
    if not (calibration or {}).get("fusion"):
        return "auto is not calibrated, so it ranks with its starting weights"
    if n_words <= LONG_QUERY_WORDS:
        return ("auto's weights from the held-out documents; on short topics of other "
                "collections they did as well as the best single method or better")
    measures = calibration.get("measures", {})
    singles = [m for m in METHODS if m not in ("auto", "ensemble") and m in measures]
    best = max(singles, key=lambda m: measures[m]["AP"], default=None)
    named = (f", where the best single method was {METHOD_LABELS.get(best, best)} (MAP "
             f"{measures[best]['AP']:.3f})" if best else "")
    return ("auto's weights were chosen on held-out documents, which measure authorship (who "
            f"wrote this?){named}; for a document by someone else, such as a paper to review, "
            "that may not carry over (on one such set Model 1 (d) was best)")

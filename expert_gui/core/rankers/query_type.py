"""Which method `auto` uses for a query, by its type, and why (issue 29, part 2).

`auto`'s weights are chosen on held-out documents: "who wrote this document?". Where most of them
are whole documents, a short topic gets weights of its own, from the log-linear model's anchor
(fusion_choice.py says why, and what a collection of titles gets). docs/results/auto-generalises.md measured both on queries from outside the
collection: on short topics `auto` was then at or above the best single method, or within 0.01
of it, on every shared set; on whole documents it held on AMiner's papers and missed on DPDK's
commits by 0.01-0.03 (the log-linear model alone was best), and on the issue's reviewer set
authorship favoured the log-linear model where Model 1 (d) was best. What a screen says of the
weights depends on the query's type.
"""

from __future__ import annotations

from expert_gui.core.rankers.names import METHOD_LABELS, METHODS

# Words above which a query is a whole document rather than a topic (the split the study used).
LONG_QUERY_WORDS = 12
# Above this share of short held-out documents, they choose auto's weights for short topics too
# (core/evaluation/fusion_choice.py).
SHORT_MAJORITY = 0.5


# A query the user says is a paper or proposal from outside the collection (`--outside`, the
# query panel's choice, every `assign`): who could review it? `auto` ranks it with
# fusion.OUTSIDE whatever its length.
OUTSIDE_PAPER = "paper from outside"


def outside_reason() -> str:
    """Why `auto` ranks a paper from outside as it does (fusion.OUTSIDE)."""
    return ("a paper from outside asks who could review it, not who wrote it: auto adds the "
            "three members that judge how a person's writing fits its topic, with equal weights, "
            "the log-linear model counting each person's prior once; held-out documents, which "
            "ask who wrote a document of the collection, do not choose them. For a code base's "
            "patches the log-linear model alone did better (docs/results/outside-papers.md)")


# Why a ranking carries no P(expert), as every screen says it (`p_expert_missing`).
NO_P_EXPERT_FIT = ("the model was trained without held-out documents, or before P(expert) "
                   "accounted for how peaked an answer is (issue 42: train it again), or the "
                   "method's options differ from those it was fitted with")
# The query types P(expert) can be calibrated for: its labels are the held-out documents'
# people, who wrote them, which is what a whole document asks. A topic asks who knows about it:
# on the shared topic sets a fit on authorship was off by 0.07 (AMiner) to 0.44 (the demo, whose
# topics' words only newcomers use) on average (docs/results/p-expert.md), so a topic is shown
# with each person's own score.
P_EXPERT_KINDS = ("whole document",)
ECE_LIMIT = 0.05  # the most a fit may miss on held-out documents (expected calibration error)
NO_P_EXPERT_TOPIC = ("P(expert) is fitted on who wrote the held-out documents, and a topic asks "
                     "who knows about it: on the shared topic sets it was off by 0.07 to 0.44 "
                     "on average, so each person's own score is shown")


def no_p_expert_documents(ece: float) -> str:
    """Why a whole document has no P(expert) when its fit missed the held-out documents."""
    return (f"P(expert) was off by {ece:.2f} on average on the held-out documents (more than "
            f"{ECE_LIMIT:.2f}), so each person's own score is shown")
NO_P_EXPERT_OUTSIDE = ("P(expert) is fitted on held-out documents, on who wrote them: it is not "
                       "calibrated for a paper from outside, so each person's score is shown")
NO_P_EXPERT_RECENCY = ("P(expert) is fitted with every document counting, not under recency, so "
                       "each person's score is shown")


def p_expert_missing(outside: bool = False, recency: bool = False) -> str:
    """Why a ranking of a paper from outside (`outside`), under recency, or else has no
    P(expert)."""
    if outside:
        return NO_P_EXPERT_OUTSIDE
    return NO_P_EXPERT_RECENCY if recency else NO_P_EXPERT_FIT


def words_in(tokenizer, query) -> int:
    """A query's words, as its type counts them: a text's words by the model's tokenizer
    (`Tokenizer.count_words`), or the number of token ids."""
    return tokenizer.count_words(query) if isinstance(query, str) else len(query)


def short_topic(n_words: int) -> bool:
    """Whether a query of `n_words` words is a short topic (at most LONG_QUERY_WORDS)."""
    return n_words <= LONG_QUERY_WORDS


def query_type(n_words: int) -> str:
    """'short topic' or 'whole document'."""
    return "short topic" if short_topic(n_words) else "whole document"


def query_kind(n_words: int) -> str:
    """'short topic (2 words)', 'whole document (40 words)'."""
    return f"{query_type(n_words)} ({n_words:,} word{'s' if n_words != 1 else ''})"


def auto_reason(calibration: dict | None, n_words: int) -> str:
    """Why `auto`'s weights suit a query of `n_words` words (its type: query_type), and where
    they may not: for a whole document, the best single method on the held-out documents, by
    name."""
    fusion = (calibration or {}).get("fusion")
    if not fusion:
        return "auto is not calibrated, so it ranks with its starting weights"
    if short_topic(n_words):
        if "short_topics" not in fusion:
            return ("auto's weights from the held-out documents, the same for every query (the "
                    "model was calibrated before short topics had weights of their own: train "
                    "it again for them)")
        if fusion["short_topics"].get("short_share", 0.0) > SHORT_MAJORITY:
            return ("most held-out documents are short like this query (titles), so they chose "
                    "auto's weights for it as for a whole document")
        if fusion["short_topics"].get("anchor", "loglinear") != "loglinear":
            return ("too few documents could be held out to test the log-linear model's start, "
                    "and it has had little to learn from, so a short topic ranks as a whole "
                    "document does")
        return ("auto starts from the log-linear model, not from a start chosen on held-out "
                "documents (who wrote this document?), and leaves it only as far as they show; "
                "on the short topics of other collections that was within 0.01 of the best "
                "single method or above it")
    measures = calibration.get("measures", {})
    singles = [m for m in METHODS if m not in ("auto", "ensemble") and m in measures]
    best = max(singles, key=lambda m: measures[m]["AP"], default=None)
    named = (f", where the best single method was {METHOD_LABELS.get(best, best)} (MAP "
             f"{measures[best]['AP']:.3f})" if best else "")
    return ("auto's weights were chosen on held-out documents, which measure authorship (who "
            f"wrote this?){named}; for a document by someone else, such as a paper to review, "
            "that may not carry over (on one such set Model 1 (d) was best)")

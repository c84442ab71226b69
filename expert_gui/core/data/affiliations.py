"""The affiliations (institutions) a collection keeps for each of its people, as the sources
wrote them: runs of spaces made one, each kept once in the order first read, and bounded, so
that a damaged or hostile export cannot make one person hold unbounded text. Two affiliations
are compared by the institution they name (`formats/name_evidence.institution`), not as written.
"""

from __future__ import annotations

from collections.abc import Iterable

# Affiliations kept per person. Addresses come in many spellings: one author of 102 Web of
# Science records of ../shared/realfiles has 28 (of 6 institutions); a name given hundreds is
# a damaged export, or many namesakes in one.
MAX_AFFILIATIONS = 64
# Characters kept of each: a full address (department, institution, street, city, country)
# fits in a few hundred; the rest of a longer one is cut.
MAX_AFFILIATION_CHARS = 500


def gather(kept: list[str], more: Iterable[str], shared: dict[str, str]) -> bool:
    """Add to a person's affiliations those of `more` not kept yet, within the bounds; whether
    anything was left out (an affiliation past MAX_AFFILIATIONS, or the end of a long one).
    `shared` holds one copy of each affiliation for all the people who have it."""
    left_out = False
    for text in more:
        place = " ".join(text.split())
        if len(place) > MAX_AFFILIATION_CHARS:
            place = place[:MAX_AFFILIATION_CHARS].rstrip()
            left_out = True
        if not place or place in kept:
            continue
        if len(kept) == MAX_AFFILIATIONS:
            return True
        kept.append(shared.setdefault(place, place))
    return left_out

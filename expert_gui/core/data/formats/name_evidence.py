"""What says two spellings of a name are one person beyond the names themselves (a shared
affiliation, a shared co-author, an author id, years of work that overlap), and the people a
load keeps apart who may be one, for the report: the user sees likely duplicates instead of a
silent join or a silent split.

A family name that millions share (`COMMON_FAMILIES`: Zhang, Wang, Kim, Nguyen, Singh ...)
says little on its own: "Zhang, M" of 2005 is no more "Meng Zhang" of 2018 than any other M.
Zhang, so there a name of initials joins a fuller one only on such evidence.

An affiliation is compared by its institution: of "Univ Montana, Wildlife Biol Program,
Missoula, MT 59812 USA", the part that names a university, institute, hospital ... ("univ
montana"), else its first part. Co-authors count only on papers of at most `MAX_COAUTHORS`
authors (a consortium paper's thousands say nothing about any two of them).
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Iterable

from expert_gui.core.data.formats.names import fold

MAX_COAUTHORS = 64
# Words that make a part of an affiliation its institution.
_INSTITUTION = re.compile(
    r"univ|institu|hospital|college|school|academ|cent(?:er|re)|laborator|\blab\b|clinic|"
    r"inc\b|ltd\b|gmbh|corporation|company|foundation|museum|council|ministry|agency|"
    r"observator|polytechn|大学|学院|研究|医院|公司", re.IGNORECASE)
_PARTS = re.compile(r"[,;]")
_NOT_WORD = re.compile(r"[\W_]+")
# The shortest family names compared letter by letter for a likely misspelling ("Sarbunan" and
# "Sarbuan"): shorter ones differ by a letter too often to say anything ("Wang", "Wan").
MIN_FAMILY_LETTERS = 5
# The longest family names compared so: the longest in use are about 35 letters (a double name
# without its hyphen, particles and all, stays under 48); each name makes one variant per
# letter, so a longer "name" (a field of text) would cost its length squared in memory.
MAX_FAMILY_LETTERS = 48
# Names compared with one another at most, among those of one shape (a family and first given
# name, or a family less a letter): more say nothing of any two, and comparing all pairs of
# thousands would take hours.
LOOKED_AT = 64

# Family names each borne by millions, folded as name keys are: the commonest Chinese ones in
# pinyin (and Cantonese spellings), Korean and Vietnamese ones in their usual romanisations,
# and the commonest of India, Japan, the Arabic-speaking world, the Americas and Europe.
COMMON_FAMILIES = frozenset("""
wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he lin gao luo zheng liang
xie song tang han feng deng cao peng zeng xiao tian dong pan yuan cai jiang yu du ye cheng wei
su lu ding ren yao shen zhong cui tan fan liao shi jin jia xia fu fang zou xiong bai meng qin
qiu hou yin xue yan duan lei long tao mao hao gu gong shao wan qian lai kong chang wen kang
chan wong cheung lau leung ng ho lam tsang chow lee chu tse yeung kwok
kim park pak choi choe jung jeong chung kang cho jo yoon yun jang lim im shin oh seo kwon
hwang ahn ryu yoo hong
nguyen tran le pham hoang huynh phan vu vo dang bui do ngo duong ly
singh kumar sharma patel shah gupta das rao reddy yadav khan ali ahmed hussain mohamed
mohammed hassan
sato suzuki takahashi tanaka watanabe ito yamamoto nakamura kobayashi kato
smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez
gonzalez silva santos oliveira souza pereira ferreira
""".split())


@functools.lru_cache(maxsize=1 << 16)
def institution(affiliation: str) -> str:
    """The institution an affiliation names, folded to its words ("" for none)."""
    return " ".join(w for w in _NOT_WORD.split(fold(institution_written(affiliation))) if w)


def institution_written(affiliation: str) -> str:
    """The part of an affiliation that names its institution, as written ("" for none)."""
    parts = [p.strip() for p in _PARTS.split(affiliation) if p.strip()]
    if not parts:
        return ""
    return next((p for p in parts if _INSTITUTION.search(p)), parts[0])


class Evidence:
    """Each name key's institutions and co-authors (other keys on its papers)."""

    def __init__(self):
        self._places: dict[tuple, set[str]] = defaultdict(set)
        self._coauthors: dict[tuple, set[tuple]] = defaultdict(set)
        self._ids: dict[tuple, set[str]] = defaultdict(set)
        self._years: dict[tuple, tuple[int, int]] = {}

    def add_document(self, keys: list[tuple], affiliations: list[Iterable[str]],
                     ids: list[Iterable[str]], year: int | None = None) -> None:
        """One paper's authors' name keys, each one's affiliations and author ids, and the
        paper's year (None: undated)."""
        for key, places, idents in zip(keys, affiliations, ids, strict=True):
            self._places[key].update(filter(None, map(institution, places)))
            self._ids[key].update(idents)
            if year is not None:
                first, last = self._years.get(key, (year, year))
                self._years[key] = (min(first, year), max(last, year))
        if len(keys) <= MAX_COAUTHORS:
            for key in keys:
                self._coauthors[key].update(k for k in keys if k != key)

    def same_id(self, a: tuple, b: tuple) -> bool:
        """Whether two name keys share an author id (ids join them; nothing to show)."""
        return bool(self._ids.get(a, set()) & self._ids.get(b, set()))

    def shared(self, a: tuple, b: tuple) -> tuple[str, str | tuple] | None:
        """What two name keys share: ("affiliation", the institution) or ("co-author", the
        co-author's key); None for nothing."""
        places = self._places.get(a, set()) & self._places.get(b, set())
        if places:
            return "affiliation", min(places)
        coauthors = self._coauthors.get(a, set()) & self._coauthors.get(b, set())
        return ("co-author", min(coauthors)) if coauthors else None

    def years(self, key: tuple) -> tuple[int, int] | None:
        """The first and last year of a name key's dated papers (None: none dated)."""
        return self._years.get(key)

    def years_overlap(self, a: tuple, b: tuple) -> bool:
        """Whether two name keys' years of work overlap (each span widened by a year: a paper
        is dated by its year online in one export and by its issue in another)."""
        span_a, span_b = self._years.get(a), self._years.get(b)
        return span_a is not None and span_b is not None and \
            span_a[0] - 1 <= span_b[1] and span_b[0] - 1 <= span_a[1]


def near_families(people: dict[str, tuple]) -> list[tuple[str, str]]:
    """Pairs of people (ids) with the same full given names whose family names of
    `MIN_FAMILY_LETTERS` to `MAX_FAMILY_LETTERS` letters differ by one letter left out, added or changed ("Sarbunan",
    "Sarbuan"), when no third person of those given names has a family of that shape. `people`
    maps an id to its name key. Each pair once, in id order."""
    by_variant: dict[tuple, list[str]] = defaultdict(list)
    for pid, (family, given, suffix) in people.items():
        if not MIN_FAMILY_LETTERS <= len(family) <= MAX_FAMILY_LETTERS \
                or not family.isalpha() or not given or any(len(w) < 2 for w in given):
            continue
        for k in range(-1, len(family)):  # the family itself, and it with one letter left out
            variant = family if k < 0 else family[:k] + family[k + 1:]
            by_variant[(given, suffix, variant)].append(pid)
    pairs = set()
    for ids in by_variant.values():
        # two people alone share the shape: a third says it is a common one ("Wang", "Wan")
        if len(set(ids)) == 2:
            a, b = sorted(set(ids))
            if _one_letter_apart(people[a][0], people[b][0]):
                pairs.add((a, b))
    return sorted(pairs)


def _one_letter_apart(a: str, b: str) -> bool:
    """One letter left out, added or changed (not two changes that share a deletion)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    k = next((i for i, (x, y) in enumerate(zip(short, long, strict=False)) if x != y),
             len(short))
    return short[k:] == long[k + 1:]

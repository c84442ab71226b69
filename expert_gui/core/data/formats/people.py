"""Who is who across a whole collection of records: name spellings and author ids -> people.

1. Spellings with one key (names.py: "Tobler W." = "Tobler, W" = "W. Tobler") are one person.
2. A full spelling joins the one fuller spelling of its family and first name that extends it
   ("Jedediah Brodie", "Jedediah F. Brodie") when the two share an affiliation or a co-author
   (name_evidence.py), and so do given names written as one word and in parts ("Jianxin",
   "Jian-xin"); a spelling of initials only ("Tobler, W.", "Bruna, EM") joins the full
   spelling of its family name that it abbreviates ("Tobler, Waldo R."), every initial used,
   when the collection holds exactly one such, and, where millions share the family name
   ("Zhang, M", "Meng Zhang"), only when they share an affiliation, a co-author or an id or
   their years of work overlap; a bare family name joins nothing. Each join is reported, and so
   is each pair kept apart that may be one person (likely duplicates).
3. Author ids beat names: ids given together (a WoS author's ORCID and ResearcherID, or the ids
   of one author in two exports of one paper) are one person, and people with different ids are
   different people even with one name. A spelling without an id joins the person with an id
   who has that name, when there is exactly one; otherwise it stays apart, reported.

A person with ids is called by the best of them (`orcid:`, `scopus:`, `rid:`, `openalex:`);
others by their fullest spelling in lower case ("waldo-r-tobler"). The display name is the
fullest spelling; two people of one display name are told apart by their institution, else
their id, in parentheses ("Kathryn R. Cullen (Univ Minnesota)").
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from expert_gui.core.data.formats.name_evidence import (
    COMMON_FAMILIES,
    LOOKED_AT,
    Evidence,
    institution_written,
    near_families,
)
from expert_gui.core.data.formats.names import (
    Name,
    compatible,
    fold,
    id_of_display,
    name_key,
    parse_name,
)
from expert_gui.core.data.formats.records import Author
from expert_gui.core.data.report import LoadReport

_ID_ORDER = ("orcid:", "scopus:", "rid:", "openalex:")
_NOT_LETTERS = re.compile(r"[\W_]+")


@dataclass
class Occurrence:
    """One author of one document, where the document was read, the document and its year."""

    author: Author
    file: str
    line: int | None
    doc: object = None
    year: int | None = None


class AuthorMatcher:
    """Finds the one author of a record that a name (from an id list, or a copy of the record)
    names: the same key, else the same family and compatible given names, else the same words
    in any order. Built once per author list (consortium papers have thousands of authors);
    a name that would have to be compared with more than `LOOKED_AT` authors names none."""

    LOOKED_AT = 64

    def __init__(self, authors: list[Author]):
        self.authors = authors
        self._by_key: dict[tuple, list[int]] = {}
        self._by_family: dict[str, list[int]] = {}
        for i, a in enumerate(authors):
            if a.name is not None:
                key = name_key(a.name)
                self._by_key.setdefault(key, []).append(i)
                self._by_family.setdefault(key[0], []).append(i)
        self._by_word: dict[str, list[int]] | None = None

    def match(self, name: Name) -> int | None:
        key = name_key(name)
        same = self._by_key.get(key, ())
        if len(same) == 1:
            return same[0]
        family = self._by_family.get(key[0], ())
        if len(family) <= self.LOOKED_AT:
            found = [i for i in family
                     if compatible(key[1], name_key(self.authors[i].name)[1])
                     or compatible(name_key(self.authors[i].name)[1], key[1])]
            if len(found) == 1:
                return found[0]
        words = _words(name)
        if not words:
            return None
        if self._by_word is None:
            self._by_word = {}
            for i, a in enumerate(self.authors):
                for w in _words(a.name) if a.name is not None else ():
                    self._by_word.setdefault(w, []).append(i)
        rarest = min((self._by_word.get(w, []) for w in words), key=len)
        if len(rarest) > self.LOOKED_AT:
            return None
        found = [i for i in rarest if words <= _words(self.authors[i].name)]
        return found[0] if len(found) == 1 else None


@functools.lru_cache(maxsize=1 << 16)
def _words(name: Name) -> frozenset[str]:
    """The folded words of a name (letters and digits), initials left out."""
    return frozenset(w for w in _NOT_LETTERS.split(fold(name.display())) if len(w) > 1)


class People:
    """Resolves the authors of every document to people; `add` them in reading order, then
    `resolve` once."""

    def __init__(self, report: LoadReport):
        self.report = report
        self._occurrences: list[Occurrence] = []

    def add(self, author: Author, file: str, line: int | None, doc: object = None,
            year: int | None = None) -> int:
        """One author of one document (`doc`, by default its file and line) of `year`."""
        self._occurrences.append(Occurrence(author, file, line,
                                            (file, line) if doc is None else doc, year))
        return len(self._occurrences) - 1

    def spelling(self, k: int) -> str | None:
        """How occurrence k wrote its author (None: an author given by id alone)."""
        name = self._occurrences[k].author.name
        return name.display() if name is not None else None

    def resolve(self) -> tuple[list[str], dict[str, str]]:
        """Each occurrence's person id, in the order added, and each person's display name."""
        occ = self._occurrences
        keys = [name_key(o.author.name) if o.author.name is not None else None for o in occ]
        first: dict[tuple, int] = {}
        for i, k in enumerate(keys):
            if k is not None:
                first.setdefault(k, i)
        canon = self._variants(first, keys)
        canon.update(self._given_in_parts(first, keys, canon))
        canon.update(self._abbreviations(first, keys, canon))
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for o in occ:
            for other in o.author.ids[1:]:
                a, b = find(o.author.ids[0]), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
        by_key: dict[tuple, set[str]] = {}
        for o, k in zip(occ, keys, strict=True):
            if o.author.ids and k is not None:
                by_key.setdefault(canon.get(k, k), set()).add(find(o.author.ids[0]))
        groups: list[object] = []
        ambiguous: set[tuple] = set()
        for o, k in zip(occ, keys, strict=True):
            if o.author.fixed:
                groups.append(("fixed", o.author.fixed))
            elif o.author.ids:
                groups.append(("ids", find(o.author.ids[0])))
            else:
                k = canon.get(k, k)
                owners = by_key.get(k, set())
                if len(owners) == 1:
                    groups.append(("ids", next(iter(owners))))
                else:
                    groups.append(("name", k))
                    if len(owners) > 1 and k not in ambiguous:
                        ambiguous.add(k)
                        self.report.add(
                            "ambiguous-name", o.file, o.line,
                            f"«{o.author.name.display()}» has no author id and {len(owners)} "
                            "people with ids have this name; it is kept as another person")
        person_ids, names = self._ids(groups)
        self._report_namesakes(by_key, ambiguous, first, person_ids, keys)
        return person_ids, names

    def _evidence(self, keys: list, wanted: set[tuple]) -> Evidence:
        """The affiliations and co-authors of the names `wanted`, paper by paper (only theirs:
        most names are never compared)."""
        evidence = Evidence()
        papers: dict[object, list[int]] = {}
        touched: set[object] = set()
        for i, o in enumerate(self._occurrences):
            if keys[i] is not None:
                papers.setdefault(o.doc, []).append(i)
                if keys[i] in wanted:
                    touched.add(o.doc)
        for members in (papers[doc] for doc in touched):
            authors = [self._occurrences[i].author for i in members]
            evidence.add_document([keys[i] for i in members], [a.affiliations for a in authors],
                                  [a.ids for a in authors], self._occurrences[members[0]].year)
        return evidence

    def _variants(self, first: dict[tuple, int], keys: list) -> dict[tuple, tuple]:
        """Full spellings that a fuller one of the same first name extends ("Jedediah Brodie",
        "Jedediah F. Brodie") -> that one, when it is the only one and the two share an
        affiliation or a co-author; else both are kept and reported as likely one person.
        Among at most LOOKED_AT spellings of one family and first name."""
        groups: dict[tuple, list[tuple]] = {}
        for k in first:
            if k[1] and len(k[1][0]) > 1:
                groups.setdefault((k[0], k[1][0], k[2]), []).append(k)
        compared = [g for g in groups.values() if 1 < len(g) <= LOOKED_AT]
        evidence = self._evidence(keys, {k for g in compared for k in g})
        canon: dict[tuple, tuple] = {}
        for group in compared:
            for k in sorted(group, key=lambda k: (-len(k[1]), -_letters(k))):  # fullest first
                fuller = {canon.get(f, f) for f in group if _extends(f, k)}
                if not fuller:
                    continue
                shown = self._shown(first, k)
                if len(fuller) > 1:
                    self._likely(first[k], f"«{shown}» may be any of "
                                 + ", ".join(f"«{self._shown(first, f)}»" for f in fuller))
                    continue
                target = fuller.pop()
                if self._join_on_evidence(first, evidence, k, target,
                                          "the one fuller name that extends it",
                                          "one more given name or initial"):
                    canon[k] = target
        return canon

    def _join_on_evidence(self, first: dict[tuple, int], evidence: Evidence, k: tuple,
                          target: tuple, what_it_is: str, why_alike: str,
                          years: bool = False) -> bool:
        """Whether `k` is `target` by what the two share (an id, an affiliation, a co-author;
        with `years`, years of work that overlap), each join reported; else the pair is shown
        as likely one person."""
        if evidence.same_id(k, target):
            return True  # one person by their ids already: nothing to report
        shown, other = self._shown(first, k), self._shown(first, target)
        shared = evidence.shared(k, target)
        if shared is not None:
            what, which = shared
            said = f"the {what} «{which if what == 'affiliation' else self._shown(first, which)}»"
        elif years and evidence.years_overlap(k, target):
            said = "years of work: " + " and ".join(
                "-".join(dict.fromkeys(map(str, evidence.years(x)))) for x in (k, target))
        else:
            self._likely(first[k], f"«{shown}» and «{other}» may be one person ({why_alike}; "
                         f"no affiliation, co-author{', years' if years else ''} or id in "
                         "common says so): kept apart")
            return False
        o = self._occurrences[first[k]]
        self.report.add("merged-names", o.file, o.line,
                        f"«{shown}» taken as «{other}», {what_it_is}, with which it shares {said}")
        return True

    def _given_in_parts(self, first: dict[tuple, int], keys: list,
                        canon: dict[tuple, tuple]) -> dict[tuple, tuple]:
        """Given names written as one word and in parts ("Jianxin", "Jian-xin", "Jian Xin") ->
        the spelling in most parts (which initials "J.-X." abbreviate), when the two share an
        affiliation, a co-author or an id."""
        groups: dict[tuple, list[tuple]] = {}
        for k in first:
            if k not in canon and k[1] and all(len(w) > 1 for w in k[1]):
                groups.setdefault((k[0], "".join(k[1]), k[2]), []).append(k)
        compared = [g for g in groups.values() if 1 < len(g) <= LOOKED_AT]
        if not compared:
            return {}
        evidence = self._evidence(keys, {k for g in compared for k in g})
        joined: dict[tuple, tuple] = {}
        for group in compared:
            target = max(group, key=lambda k: (len(k[1]), -first[k]))
            for k in sorted(group, key=first.__getitem__):
                if k != target and self._join_on_evidence(
                        first, evidence, k, target, "its given names written in parts",
                        "the same given names, written as one word and in parts"):
                    joined[k] = target
        return joined

    def _abbreviations(self, first: dict[tuple, int], keys: list,
                       canon: dict[tuple, tuple]) -> dict[tuple, tuple]:
        """Each key of initials only -> the one full key of its family it abbreviates, every
        initial used ("J. F. Wang" is not "Jun Wang"); for a family millions share, only on
        evidence (`_join_on_evidence`, years included). Full keys are found by the first
        letters of their given names, so the time grows with the spellings, not with their
        pairs (one family of 8,000 spellings of initials took minutes)."""
        full = _Initials({k: i for k, i in first.items()
                          if k not in canon and any(len(w) > 1 for w in k[1])})
        joined: dict[tuple, tuple] = {}
        common: list[tuple[tuple, tuple]] = []
        for k, i in first.items():
            if not k[1] or any(len(w) > 1 for w in k[1]) or len(k[1]) > MAX_INITIALS:
                continue
            fits, n_fits = full.extending(k)
            o = self._occurrences[i]
            if n_fits == 1 and k[0] in COMMON_FAMILIES:
                common.append((k, fits[0]))
            elif n_fits == 1:
                joined[k] = fits[0]
                self.report.add("merged-names", o.file, o.line,
                                f"«{o.author.name.display()}» taken as "
                                f"«{self._shown(first, fits[0])}», the one fuller name of that "
                                "family it abbreviates")
            elif fits:
                self._likely(i, f"«{o.author.name.display()}» may be any of "
                             + ", ".join(f"«{self._shown(first, f)}»" for f in fits[:5])
                             + ("" if n_fits <= 5 else f" or {n_fits - 5} more")
                             + ": kept apart")
            else:
                loose = full.extended(k)
                if loose:
                    self._likely(i, f"«{o.author.name.display()}» has an initial that "
                                 + " and ".join(f"«{self._shown(first, f)}»" for f in loose)
                                 + " lack" + ("s" if len(loose) == 1 else "")
                                 + ": kept apart, perhaps one person")
        if common:
            evidence = self._evidence(keys, {k for pair in common for k in pair})
            for k, target in common:
                if self._join_on_evidence(
                        first, evidence, k, target, "the one fuller name of that family it "
                        "abbreviates", f"initials of it, but millions share the family name "
                        f"{self._occurrences[first[target]].author.name.family}", years=True):
                    joined[k] = target
        return joined

    def _report_namesakes(self, by_key: dict[tuple, set[str]], ambiguous: set[tuple],
                          first: dict[tuple, int], person_ids: list[str], keys: list) -> None:
        """People with ids kept apart by them under one name ("W.R. Tobler", two Scopus ids), and
        people whose family names differ by a letter, given names alike ("Sarbunan", "Sarbuan"):
        likely one person each, shown."""
        for k, owners in by_key.items():
            if len(owners) > 1 and k in first:
                self._likely(first[k], f"«{self._shown(first, k)}» is {len(owners)} people by "
                             f"their author ids ({', '.join(sorted(owners)[:5])}): kept apart; "
                             "if one person, the database holds two ids for them")
        named: dict[str, tuple] = {}
        where: dict[str, int] = {}
        for i, (pid, k) in enumerate(zip(person_ids, keys, strict=True)):
            if k is not None:
                named.setdefault(pid, k)
                where.setdefault(pid, i)
        for a, b in near_families(named):
            self._likely(where[b], f"«{self._shown(first, named[a])}» and "
                         f"«{self._shown(first, named[b])}» differ by one letter of the family "
                         "name: kept apart, perhaps one person misspelt")

    def _shown(self, first: dict[tuple, int], key: tuple) -> str:
        return self._occurrences[first[key]].author.name.display()

    def _likely(self, i: int, message: str) -> None:
        o = self._occurrences[i]
        self.report.add("likely-duplicate", o.file, o.line, message)

    def _ids(self, groups: list) -> tuple[list[str], dict[str, str]]:
        """Person ids and display names for the groups of occurrences."""
        members: dict[object, list[int]] = {}
        for i, g in enumerate(groups):
            members.setdefault(g, []).append(i)
        id_sets: dict[object, set[str]] = {}
        for g, idx in members.items():
            if g[0] == "ids":
                id_sets[g] = {x for i in idx for x in self._occurrences[i].author.ids}
        taken: set[str] = {g[1] for g in members if g[0] == "fixed"}
        person: dict[object, str] = {}
        names: dict[str, str] = {}
        for g, idx in members.items():
            display = self._fullest(idx) if g[0] != "fixed" else g[1]
            if g[0] == "fixed":
                pid = g[1]
            elif g[0] == "ids":
                pid = min(id_sets[g], key=_id_rank)
            else:
                base = id_of_display(display) or "person"
                pid, n = base, 1
                while pid in taken:
                    n += 1
                    pid = f"{base}-{n}"
            taken.add(pid)
            person[g] = pid
            names[pid] = display
        self._tell_apart(names, {person[g]: idx for g, idx in members.items() if g[0] != "fixed"})
        return [person[g] for g in groups], names

    def _tell_apart(self, names: dict[str, str], members: dict[str, list[int]]) -> None:
        """Two or more people of one display name: each is shown with their institution in
        parentheses where the institutions tell them apart, else with their id."""
        by_display: dict[str, list[str]] = {}
        for pid in members:
            by_display.setdefault(names[pid], []).append(pid)
        for display, pids in by_display.items():
            if len(pids) < 2:
                continue
            places = {pid: next((p for i in members[pid]
                                 for a in self._occurrences[i].author.affiliations
                                 if (p := institution_written(a))), "") for pid in pids}
            distinct = len({fold(p) for p in places.values()}) == len(pids) and all(
                places.values())
            for pid in pids:
                tag = places[pid][:60].replace("(", "").replace(")", "") if distinct else pid
                names[pid] = f"{display} ({tag})"

    def _fullest(self, idx: list[int]) -> str:
        """The fullest spelling of a person: most letters in the given names, then the first."""
        best, score = "", None
        for i in idx:
            name = self._occurrences[i].author.name
            if name is None:
                continue
            s = (sum(c.isalpha() for c in name.given), len(name.display()))
            if score is None or s > score:
                best, score = name.display(), s
        return best or min(self._occurrences[idx[0]].author.ids, key=_id_rank)


def _letters(key: tuple) -> int:
    return sum(map(len, key[1]))


# The most initials a name's given names are compared by: no one has more than a handful of
# given names, and the prefixes of a longer run of them (a field of text read as a name) would
# cost its length squared; such a name is kept apart.
MAX_INITIALS = 16


class _Initials:
    """Full name keys by their family, suffix and the first letters of their given names (in
    reading order within each), sorted by those letters, so that the keys a run of initials
    abbreviates (their letters start with its) are one range of them."""

    _SHOWN = 5  # keys named in a report line; the rest are counted

    def __init__(self, order: dict[tuple, int]):
        """`order`: each full key and where it was first read."""
        self._order = order
        self._keys: dict[tuple, list[tuple]] = {}
        for key in order:
            self._keys.setdefault((key[0], key[2], "".join(w[0] for w in key[1])), []).append(key)
        self._sorted: dict[tuple[str, str], list[str]] = {}
        for family, suffix, letters in sorted(self._keys, key=lambda k: k[2]):
            self._sorted.setdefault((family, suffix), []).append(letters)

    def extending(self, initials: tuple) -> tuple[list[tuple], int]:
        """The full keys a key of initials abbreviates (`compatible`): the first `_SHOWN` in
        reading order, and how many."""
        family, suffix, letters = initials[0], initials[2], "".join(initials[1])
        ordered = self._sorted.get((family, suffix), [])
        found, count = [], 0
        j = bisect.bisect_left(ordered, letters)
        while j < len(ordered) and ordered[j].startswith(letters):
            same = self._keys[(family, suffix, ordered[j])]
            found += same[:self._SHOWN]
            count += len(same)
            j += 1
        return sorted(found, key=self._order.__getitem__)[:self._SHOWN], count

    def extended(self, initials: tuple) -> list[tuple]:
        """The full keys of fewer given names whose first letters begin a key of initials
        (an initial more than they have): the first three in reading order."""
        family, suffix, letters = initials[0], initials[2], "".join(initials[1])
        found = [k for m in range(1, len(letters))
                 for k in self._keys.get((family, suffix, letters[:m]), [])[:3]]
        return sorted(found, key=self._order.__getitem__)[:3]


def _extends(full: tuple, short: tuple) -> bool:
    """Whether a key's given names say more than another's of one family that they agree with
    ("Jedediah F." more than "Jedediah", "Jun Feng" more than "Jun F.")."""
    return full != short and full[2] == short[2] and compatible(short[1], full[1]) and \
        (len(full[1]), _letters(full)) > (len(short[1]), _letters(short))


def _id_rank(author_id: str) -> tuple[int, str]:
    rank = next((i for i, p in enumerate(_ID_ORDER) if author_id.startswith(p)), len(_ID_ORDER))
    return rank, author_id


_ORCID = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")


def author_id(kind: str, value: str) -> str:
    """An author id with its kind ("orcid:0000-0002-1825-0097"), an ORCID read out of a URL;
    "" when the value holds none."""
    value = value.strip()
    if kind == "orcid":
        m = _ORCID.search(value)
        return f"orcid:{m.group()}" if m else ""
    return f"{kind}:{value}" if value else ""


_OVID_ORCID = re.compile(r"^(.*?);\s*ORCID:\s*(\S+)\s*$", re.IGNORECASE)


def named_ids(value: str) -> list[tuple[Name | None, str]]:
    """Web of Science's lists of "Name/id" (OI, RI, ORCID-Numbers, ResearcherID-Numbers), one
    entry per ';' (or per line), and Ovid's ORCIDs ("Shan, Wei; ORCID: http://orcid.org/...",
    one a line): each name with its ORCID or ResearcherID."""
    if "ORCID:" in value.upper():
        return [(parse_name(m.group(1)), author_id("orcid", m.group(2)))
                for line in value.splitlines() if (m := _OVID_ORCID.match(line.strip()))]
    out = []
    for entry in value.split(";") if ";" in value else value.splitlines():
        name, slash, ident = " ".join(entry.strip("{} \n").split()).rpartition("/")
        if slash and ident:
            out.append((parse_name(name), author_id("orcid" if _ORCID.fullmatch(ident)
                                                    else "rid", ident)))
    return out


def attach_named_ids(authors: list[Author], pairs: list[tuple[Name | None, str]]) -> list[str]:
    """Give each id to the author its name names; the entries that name none of the authors
    (Web of Science lists some people who are not authors of the record) are returned."""
    unmatched = []
    matcher = AuthorMatcher(authors)
    for name, ident in pairs:
        k = matcher.match(name) if name is not None and ident else None
        if k is None:
            unmatched.append(f"{name.display() if name else '?'}/{ident.split(':', 1)[-1]}")
        elif ident not in authors[k].ids:
            authors[k].ids = (*authors[k].ids, ident)
    return unmatched


# The start of an address and the authors it is theirs: WoS's "[Brodie, Jedediah F.; Hastings,
# Alan] Univ Montana, ...", Embase's "(Zhang S.; Zhao Y.) The Affiliated ...", Ovid's "(Shan,
# Wang) Department of ..." (family names, split on commas).
_ADDRESSED = re.compile(r"(?:^|[;\n]|,\s)\s*[\[(]([^\[\]()]{1,2000})[\])]\s*")
_EMAIL = re.compile(r"\S+@\S+")


def named_affiliations(value: str, families: bool = False) -> list[tuple[Name, str]]:
    """Each (author named, address) of an addresses cell whose addresses start with their
    authors in brackets; `families`: the bracket lists family names, split on commas."""
    found = list(_ADDRESSED.finditer(value))
    out = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(value)
        address = value[m.end():end].strip(" ;,.\n")
        if not address:
            continue
        names = m.group(1).split(";") if ";" in m.group(1) or not families \
            else m.group(1).split(",")
        for written in names:
            name = parse_name(_EMAIL.sub("", written).strip(" ,"))
            if name is not None:
                out.append((name, address))
    return out


def attach_affiliations(authors: list[Author], pairs: list[tuple[Name, str]]) -> None:
    """Give each address to the author its name names (unmatched names are passed over: an
    address list may name a group or a person who is no author)."""
    matcher = AuthorMatcher(authors)
    for name, address in pairs:
        k = matcher.match(name)
        if k is not None and address not in authors[k].affiliations:
            authors[k].affiliations = (*authors[k].affiliations, address)

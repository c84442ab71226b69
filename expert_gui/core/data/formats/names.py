"""People's names as exports write them: split into family and given names, and the key that
says two spellings are one person (the one place where names are normalised).

A name with a comma is "family, given" ("Tobler, Waldo", "Rijke, Maarten de", "Smith, Jr.,
Sam", Scopus's "Roediger III, H.L."; Dimensions's "R. Cullen, Kathryn" moves a middle initial
before the family name, and it goes back to the given names). Without one, trailing initials
mean the family name comes first ("Tobler W.", "Liu R.", "Van Gysel C.", MEDLINE's "Lai Z" and
its transliterated "Gubzhabidze ShI", "Ermishev IuV"); otherwise the given names come first and
the family name is the last word with the particles before it ("W. Tobler", "WR Tobler", "A. K.
van der Vegt", "Christophe Van Gysel"). Lens's "null Tobler" has no given name. A suffix (Jr.,
Sr., II, III, IV, MEDLINE's 2nd, 3rd, 4th) is kept apart from both wherever it is written, and a
qualifier in parentheses at the end ("Kathryn R. Cullen (Univ Minnesota)", the app's own way to
tell two people of one name apart) is no part of the name.

The key folds accents and case and keeps letters and digits only, and reads initials written
together ("WR", "EM") as one each: "Tobler W.", "Tobler, W", "W. Tobler" are one key, as are "Müller"
and "Muller". Joining initials to the full name they abbreviate needs the whole collection and
is people.py's work.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from expert_gui.core.data.text import TOKEN_RE
from expert_gui.core.schema import short

# Words that belong to the family name that follows them ("van der Vegt", "de Rijke").
PARTICLES = frozenset({"da", "das", "de", "del", "della", "der", "des", "di", "do", "dos", "du",
                       "la", "le", "van", "von", "vom", "zu", "zur", "ten", "ter", "bin", "al",
                       "el", "dal", "dei", "den", "af", "av", "st", "st."})
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "2nd", "3rd", "4th"})
# Suffixes that are never initials, even alone after a family name ("Weaver III"; "Ivanov II"
# and "Petrov IV" are MEDLINE's initials of Ivan Ivanovich and Ivan V.).
_ONLY_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "iii", "2nd", "3rd", "4th"})
# A suffix as the key has it: MEDLINE's "3rd" is Scopus's "III".
_SUFFIX_KEYS = {"2nd": "ii", "3rd": "iii", "4th": "iv"}
# Author "names" that stand for nobody.
_NOBODY = frozenset({"", "…", "...", "et al", "et al.", "others", "and others", "anonymous",
                     "anon", "anon.", "na", "n/a", "null", "{na}", "nan", "unknown"})
_BRACKETED = re.compile(r"\[[^\]]*\]")
_LIST_SEPARATORS = re.compile(r"[;|]")
_COMMA_OR_AND = re.compile(r",|\s(?:and|&)\s")
_GIVEN_SEPARATORS = re.compile(r"[\s.\-‐–]+")
_QUALIFIER = re.compile(r"\s+\([^()]*\)$")
# Initials as MEDLINE transliterates Cyrillic ones (Ш "Sh", Ю "Iu", Я "Ia", Ж "Zh" ...): two to
# four, at least one of two letters ("ShI", "IuV", "ZhA"), so that "Wu" or "Ma" stay names.
_INITIAL = r"(?:Shch|Zh|Kh|Ts|Ch|Sh|Iu|Ia|Yu|Ya|Ye|Yo|[A-Z])"
_TRANSLITERATED = re.compile(f"(?=.*[a-z]){_INITIAL}{{2,4}}")
_INITIALS = re.compile(_INITIAL)
# Letters NFKD leaves whole: folded by hand so "Łukasz" and "Lukasz" are one key.
_FOLD = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ð": "d", "ı": "i", "ß": "ss", "æ": "ae",
                       "œ": "oe", "þ": "th", "ŀ": "l"})


@dataclass(frozen=True)
class Name:
    """A person's name in parts. `family` holds its particles ("de Rijke")."""

    family: str
    given: str = ""
    suffix: str = ""

    def display(self) -> str:
        text = f"{self.given} {self.family}".strip()
        return f"{text}, {self.suffix}" if self.suffix else text


@functools.lru_cache(maxsize=1 << 16)
def parse_name(text: str) -> Name | None:
    """The parts of a name written as text; None for a placeholder ("[Anonymous]", "…")."""
    s = " ".join(text.replace("\u00a0", " ").split()).strip(" ,;")
    if _QUALIFIER.search(s) and not _QUALIFIER.fullmatch(" " + s):
        s = _QUALIFIER.sub("", s).strip(" ,;")
    if s.count("[") != s.count("]"):  # "WR Tobler]"
        s = s.strip("[] ")
    if s.lower().startswith("null "):
        s = s[5:].strip()
    if s.lower() in _NOBODY or _BRACKETED.fullmatch(s):
        return None
    parts = [p.strip() for p in s.split(",") if p.strip()]
    if not parts:
        return None
    if len(parts) >= 2:
        if len(parts) >= 3 and parts[1].lower() in _SUFFIXES:
            return name_from_parts(parts[0], " ".join(parts[2:]), parts[1])
        if parts[1].lower() in _SUFFIXES:
            if " " in parts[0]:  # "David John Gagne, II": a whole name, then its suffix
                whole = parse_name(parts[0])
                return Name(whole.family, whole.given, parts[1]) if whole else None
            return name_from_parts(parts[0], "", parts[1])
        given = " ".join(parts[1:])
        if all(map(is_initials, parts[0].split())) and not all(map(is_initials, given.split())):
            return name_from_parts(given, parts[0])  # "F. S., Teo": the sides swapped
        family, suffix = _family_suffix(parts[0])
        family, moved = _leading_initials(family)
        return name_from_parts(family, f"{given} {moved}".strip(), suffix)
    words = parts[0].split(" ")
    suffix = words.pop() if len(words) > 2 and words[-1].lower() in _SUFFIXES \
        or len(words) == 2 and words[-1].lower() in _ONLY_SUFFIXES else ""
    if len(words) == 1:
        return Name(words[0], "", suffix)
    if is_initials(words[-1]) and (not is_initials(words[0])
                                   or _letters(words[-1]) < _letters(words[0])):
        k = len(words) - 1  # family name first, then its initials
        while k > 1 and is_initials(words[k - 1]):
            k -= 1
        return Name(" ".join(words[:k]), " ".join(words[k:]), suffix)
    k = len(words) - 1
    while k > 1 and words[k - 1].lower() in PARTICLES:
        k -= 1
    return Name(" ".join(words[k:]), " ".join(words[:k]), suffix)


def _family_suffix(family: str) -> tuple[str, str]:
    """A family name before a comma less the suffix written after it ("Roediger III")."""
    words = family.split()
    if len(words) > 1 and words[-1].lower() in _SUFFIXES:
        return " ".join(words[:-1]), words[-1]
    return family, ""


_DOTTED_INITIALS = re.compile(r"(?:[A-Z]\.(?:-?[A-Z]\.)*)")


def _leading_initials(family: str) -> tuple[str, str]:
    """A family name before a comma less the dotted initials that lead it ("R. Cullen", as
    Dimensions writes "Cullen, Kathryn R."), and those initials."""
    words = family.split()
    k = 0
    while k < len(words) - 1 and _DOTTED_INITIALS.fullmatch(words[k]):
        k += 1
    return " ".join(words[k:]), " ".join(words[:k])


def name_from_parts(family: str, given: str = "", suffix: str = "") -> Name | None:
    """A name a source gives in parts (CSL's family/given, PubMed's LastName/ForeName, the two
    sides of a comma); particles at the end of the given names move to the family name
    ("Rijke, Maarten de" is "de Rijke")."""
    family, given, suffix = (" ".join(p.split()) for p in (family or "", given or "",
                                                          suffix or ""))
    if given.lower() == "null":
        given = ""
    words = given.split(" ") if given else []
    while words and words[-1].lower() in PARTICLES:
        family = f"{words.pop()} {family}"
    if words and words[-1].lower() in _SUFFIXES and not suffix:
        suffix = words.pop()
    if not family.strip():
        return parse_name(" ".join(words)) if words else None
    if family.lower() in _NOBODY or _BRACKETED.fullmatch(family):
        return None
    return Name(family.strip(), " ".join(words), suffix)


def split_names(cell: str, style: str = "names") -> list[str]:
    """The names of an authors cell: split on ';' or '|' ("names"), or, for "comma" (old Scopus
    "Rocle, N., Rey-Valette, H.", Publish or Perish "Q Yang, W Tobler", PubMed "Lai Z, Shi SY"),
    on commas, where a piece of initials only belongs to the family name before it. A cell of
    several lines (Ovid's, a blank line between two names) is split at its line breaks first:
    no name runs over two lines."""
    if "\n" in cell or "\r" in cell:
        return [n for line in cell.splitlines() for n in split_names(line, style)]
    if style != "comma" or _LIST_SEPARATORS.search(cell):
        return [n.strip() for n in _LIST_SEPARATORS.split(cell) if n.strip()]
    out: list[str] = []
    joined = False  # whether out[-1] already has its initials
    for piece in _COMMA_OR_AND.split(cell):
        piece = re.sub(r"^(?:and|&)\s+", "", piece.strip())
        if not piece:
            continue
        words = piece.split()
        if len(words) > 1 and words[-1].lower() in _SUFFIXES:  # "Roediger III": a family name
            words = words[:-1]
        if out and not joined and all(map(is_initials, words)) \
                and not any(map(is_initials, _without_suffix(out[-1]))):
            out[-1] = f"{out[-1]}, {piece}"
            joined = True
        else:
            out.append(piece)
            joined = any(map(is_initials, words))
    return out


def _without_suffix(written: str) -> list[str]:
    words = written.split()
    return words[:-1] if len(words) > 1 and words[-1].lower() in _SUFFIXES else words


def split_and(cell: str) -> list[str]:
    """The names of a list joined by " and " (BibTeX's way, the ACM Digital Library's), split as
    bibtexparser splits BibTeX's (an "and" inside braces is part of a name)."""
    from bibtexparser.middlewares.names import split_multiple_persons_names

    return [n.strip() for n in split_multiple_persons_names(cell) if n.strip()]


# The start of a family name whose next letter is a capital ("McCarty", "MacKenzie"): in names
# run together a capital after these is never the next name's.
_INNER_CAPITAL = ("Mc", "Mac", "Fitz")
# Words that are a family name of their own ("Xiaoqiang Di", "Suparna De", "Quang Tuan Le") but
# also begin family names with an inner capital ("DiCaprio", "DeVito", "LePage"): a capital
# after them is taken as the next name's, a guess.
_AMBIGUOUS_START = frozenset({"De", "Di", "Du", "Da", "Le", "La", "Van", "Von", "Del", "Della",
                              "Des", "Dos"})
# The longest of these starts: a word longer than it before a capital is none of them (so a
# cell is split in time linear in its length, however long its words).
_LONGEST_START = max(map(len, (*_INNER_CAPITAL, *_AMBIGUOUS_START)))


@dataclass
class RunTogether:
    """Names run together with no separator (SpringerLink's "Justice Opara-MartinsReza
    SahandiFeng Tian"), split where a lower-case letter meets a capital, and what of that was
    a guess."""

    names: list[str]
    splits: int  # places where the cell was cut
    guesses: list[str]  # why each uncertain cut (or join) was made


def split_run_together(cell: str) -> RunTogether:
    """Split a list of "given family" names written without separators.

    A name ends where a lower-case letter meets a capital ("MartinsReza"), except after "Mc",
    "Mac" or "Fitz" ("McCarty"). Every name has a given and a family name, so a piece of one
    word joins a neighbour: the next name at the start of the list ("DeRen Li"), the name before
    at its end ("Kevin D. LePage"); in the middle, the name before when the cut came after "De",
    "Le" ... ("LePage"), else the next one (a given name with a capital inside, "ZhenFeng
    Wang"). A cut after "De", "Di", "Le" ... that stands, and every join in the middle, is a
    guess: the same letters may be one name or two.
    """
    cell = " ".join(cell.split())
    if not cell:
        return RunTogether([], 0, [])
    pieces: list[tuple[str, bool]] = []  # (text, whether the cut before it was after "De" ...)
    begin, word, ambiguous = 0, 0, False
    for i in range(1, len(cell)):
        if cell[i - 1] == " ":
            word = i
        elif cell[i - 1].islower() and cell[i].isupper():
            start = cell[word:i] if i - word <= _LONGEST_START else ""
            if start not in _INNER_CAPITAL:
                pieces.append((cell[begin:i].strip(), ambiguous))
                begin, ambiguous = i, start in _AMBIGUOUS_START
    pieces.append((cell[begin:].strip(), ambiguous))
    names: list[str] = []
    guesses: list[str] = []
    pending = ""  # a one-word piece that begins the next name
    for k, (piece, after_particle) in enumerate(pieces):
        if " " in piece or len(pieces) == 1:
            if after_particle and not pending:
                guesses.append(f"{short(names[-1].rsplit(' ', 1)[-1] + piece.split(' ', 1)[0])} "
                               "read as the end of one name and the start of the next")
            names.append(pending + piece)
            pending = ""
        elif k == 0 or not names:
            pending += piece
        elif k == len(pieces) - 1:  # ends the name being built: a pending one, if any
            if pending:
                pending += piece
            else:
                names[-1] += piece
        elif after_particle:
            guesses.append(f"{short(names[-1].rsplit(' ', 1)[-1] + piece)} read as one family "
                           "name")
            names[-1] += piece
        else:
            guesses.append(f"{short(piece)} read as the start of the next name, not the end of "
                           f"{short(names[-1])}")
            pending += piece
    if pending:
        names.append(pending)
    return RunTogether(names, len(names) - 1, guesses)


def is_initials(word: str) -> bool:
    """'W.', 'WR', 'E.-H.', 'J.C.', 'A.M.B.': one to four capitals, dotted or not (three at
    most without dots); MEDLINE's transliterated 'ShI', 'IuV'."""
    word = word.strip(",")
    letters = word.replace(".", "").replace("-", "")
    return (0 < len(letters) <= 4 and letters.isalpha() and letters.isupper()
            and ("." in word or len(letters) <= 3)) \
        or _TRANSLITERATED.fullmatch(letters) is not None


def _letters(word: str) -> int:
    return sum(c.isalpha() for c in word)


def fold(text: str) -> str:
    """Lower case without accents: "Müller" -> "muller", "Łukasz" -> "lukasz"."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower().translate(_FOLD))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@functools.lru_cache(maxsize=1 << 16)
def name_key(name: Name) -> tuple[str, tuple[str, ...], str]:
    """(family, given-name words, suffix), folded to letters and digits: equal keys are one
    person. An initial is a one-letter word; initials written together ("WR", "EM") are one
    word each."""
    family = "".join(c for c in fold(name.family) if c.isalnum())
    given: list[str] = []
    all_initials = all(is_initials(w) for w in name.given.split())
    for word in _GIVEN_SEPARATORS.split(name.given):
        letters = "".join(c for c in fold(word) if c.isalnum())
        if not letters:
            continue
        if all_initials and word.isupper() and 1 < len(letters) <= 3:
            given.extend(letters)
        elif all_initials and _TRANSLITERATED.fullmatch(word):  # "ShI": s, i
            given.extend(initial[0].lower() for initial in _INITIALS.findall(word))
        else:
            given.append(letters)
    suffix = "".join(c for c in fold(name.suffix) if c.isalnum())
    return family, tuple(given), _SUFFIX_KEYS.get(suffix, suffix)


def has_letters(name: Name) -> bool:
    """Whether a name holds a letter or a digit in its family or given names (its key is not
    empty): "?" and "--" name nobody."""
    family, given, _ = name_key(name)
    return bool(family or given)


def compatible(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """Whether given names `short` may abbreviate `full`: word by word, an initial matches a
    name with that first letter, a full name only itself ("W. R." and "Waldo R.", "W." and
    "Waldo Rudolph"); every word of `short` has its match ("J. F." is not "Jun")."""
    if len(short) > len(full):
        return False
    for a, b in zip(short, full, strict=False):
        if len(a) == 1 or len(b) == 1:
            if a[0] != b[0]:
                return False
        elif a != b:
            return False
    return True


def id_of_display(display: str) -> str:
    """A person id from a display name: its words in lower case joined by '-' (the id the
    BibTeX reader has always given: "maarten-de-rijke")."""
    return "-".join(TOKEN_RE.findall(display.lower()))

"""LaTeX in BibTeX values -> Unicode, fast: only the title, abstract, keywords and names are
decoded, only when they hold LaTeX at all, and by a table of what exports write (accents,
special letters, escapes, dashes, quotes, text-style macros); math (`$...$`) is kept as written.
A value with a macro the table does not know goes to pylatexenc, bounded to `MAX_DECODED`
characters (pylatexenc takes about 3 microseconds a character, and superlinear time on long
values); a longer one is kept as written, and the caller reports it.

pylatexenc alone decoded every value of every entry: 50 of the 58 s a Rayyan export of 1,788
entries took to open.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# Longest value handed to pylatexenc: 20 times a long abstract.
MAX_DECODED = 65_536

_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
            "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
            "c": "\u0327", "k": "\u0328", "r": "\u030a", "b": "\u0331", "d": "\u0323"}
_MACROS = {
    "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å",
    "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "dh": "ð", "DH": "Ð", "th": "þ",
    "TH": "Þ", "ng": "ŋ", "NG": "Ŋ", "textellipsis": "…", "ldots": "…", "dots": "…",
    "textendash": "–", "textemdash": "—", "textquoteright": "’", "textquoteleft": "‘",
    "textquotedblleft": "“", "textquotedblright": "”", "textless": "<", "textgreater": ">",
    "textasciitilde": "~", "textbackslash": "\\", "textregistered": "®", "texttrademark": "™",
    "copyright": "©", "textcopyright": "©", "textdegree": "°", "textmu": "µ", "textbullet": "•",
    "S": "§", "P": "¶", "pounds": "£", "euro": "€", "textperiodcentered": "·",
    "textunderscore": "_", "textbar": "|", "LaTeX": "LaTeX", "TeX": "TeX", "backslash": "\\",
}
# Macros that only style their argument (the braces of which are then dropped): empty.
_STYLES = frozenset({"emph", "textit", "textbf", "textrm", "textsf", "texttt", "textsc",
                     "textup", "textsl", "textnormal", "textsuperscript", "textsubscript",
                     "mbox", "url", "it", "bf", "em", "rm", "sc", "tt", "sl", "sf", "relax",
                     "protect", "mathrm", "text", "textmd", "uppercase", "MakeUppercase"})
_ESCAPED = {"&": "&", "%": "%", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", " ": " ",
            ",": " ", ";": " ", ":": " ", "!": "", "-": "", "/": "", "@": "", "\\": " "}
_TOKEN = re.compile(r"""
    \\(?P<acc>['`^"~=.])\s*(?:\{\s*(?:\\(?P<d1>[ij])(?![A-Za-z])\s*|(?P<b1>[A-Za-z]?))\s*\}
                           |\\(?P<d2>[ij])(?![A-Za-z])|(?P<b2>[A-Za-z]))
  | \\(?P<wacc>[uvHckrbd])(?:\s*\{\s*(?:\\(?P<d3>[ij])(?![A-Za-z])\s*|(?P<b3>[A-Za-z]?))\s*\}
                           |\s+(?P<b4>[A-Za-z]))
  | \\(?P<esc>[&%$\#_{}\ ,;:!\-/@\\])
  | \\(?P<name>[A-Za-z]+)\s*(?:\{\})?
  | (?P<dash>---?) | (?P<quote>``|'') | (?P<tilde>~) | (?P<brace>[{}])
""", re.VERBOSE)
_MATH = re.compile(r"(?<!\\)\$[^$]*(?<!\\)\$")
_HAS_LATEX = re.compile(r"[\\{}~$]|--|``|''")


class _Unknown(Exception):
    """A macro the table does not know."""


def decode(value: str) -> tuple[str, bool]:
    """(the value in Unicode, whether it was decoded); False: too long for pylatexenc and
    holding a macro the table does not know, so kept as written."""
    if not _HAS_LATEX.search(value):
        return value, True
    try:
        return _decode_outside_math(value), True
    except _Unknown:
        if len(value) > MAX_DECODED:
            return value, False
        return _pylatexenc().latex_to_text(value), True


def _decode_outside_math(value: str) -> str:
    out, pos = [], 0
    for m in _MATH.finditer(value):
        out += [_TOKEN.sub(_replace, value[pos:m.start()]), m.group()]
        pos = m.end()
    out.append(_TOKEN.sub(_replace, value[pos:]))
    return "".join(out)


def _replace(m: re.Match) -> str:
    g = m.group
    accent = g("acc") or g("wacc")
    if accent:
        dotless = g("d1") or g("d2") or g("d3")
        base = dotless or next((b for b in (g("b1"), g("b2"), g("b3"), g("b4")) if b), "")
        return unicodedata.normalize("NFC", base + _ACCENTS[accent]) if base else ""
    if g("esc") is not None:
        return _ESCAPED[g("esc")]
    name = g("name")
    if name is not None:
        if name in _STYLES:
            return ""
        if name in _MACROS:
            return _MACROS[name]
        raise _Unknown(name)
    if g("dash"):
        return "—" if g("dash") == "---" else "–"
    if g("quote"):
        return "“" if g("quote") == "``" else "”"
    if g("tilde"):
        return "\u00a0"
    return ""  # a brace


@functools.cache
def _pylatexenc():
    """pylatexenc's decoder: math kept verbatim, \\url's argument as it is."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    context.add_context_category("expert-gui-urls", prepend=True,
                                 macros=[MacroTextSpec("url", simplify_repl="%s")])
    return LatexNodes2Text(latex_context=context, math_mode="verbatim")

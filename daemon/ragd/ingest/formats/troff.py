"""The troff layer under both man-page macro packages (pure): escapes, comments, request
arguments and the strings a page defines.

A man page is troff source; `man` runs groff over it. Only what decides the *text* of the
page is read here: escape sequences become the characters they print (`\\(em` → —), font
and size changes disappear (the index keeps words, not typefaces), and a request line is
split into its name and arguments the way troff quotes them. Every pattern below has only
bounded repetition or alternatives that start with different characters, so each runs in
time linear in the line (tests/unit/test_regex_linear.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, MutableMapping

# Named characters (`\\(xy`, `\\[name]`) pages use for text; groff's names. A name not here
# prints nothing, as a glyph groff lacks would.
SPECIAL = {
    "em": "—", "en": "–", "hy": "-", "mi": "-", "aq": "'", "dq": '"', "lq": "“", "rq": "”",
    "oq": "‘", "cq": "’", "bu": "•", "co": "©", "rg": "®", "tm": "™", "pl": "+", "mu": "×",
    "di": "÷", ">=": "≥", "<=": "≤", "!=": "≠", "->": "→", "<-": "←", "<>": "↔", "ga": "`",
    "ha": "^", "ti": "~", "rs": "\\", "sl": "/", "ba": "|", "br": "│", "dg": "†", "de": "°",
    "lB": "[", "rB": "]", "lC": "{", "rC": "}", "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›",
    "at": "@", "sh": "#", "Do": "$", "sc": "§", "ps": "¶", "aa": "´", "ss": "ß", "12": "½",
    "14": "¼", "34": "¾", "eq": "=", "ul": "_", "ru": "_", "pc": "·", "ap": "~", "tdi": "÷",
    "+-": "±", "la": "⟨", "ra": "⟩", "Eu": "€", "eu": "€", "Po": "£", "Ye": "¥", "ct": "¢",
    "u2212": "-", "u2014": "—", "u2013": "–", "u2018": "‘", "u2019": "’", "u201C": "“",
    "u201D": "”", "u2022": "•", "u00A0": " ", "u00B7": "·", "ua": "↑", "da": "↓", "OK": "✓",
    "mc": "µ",
    "*m": "µ", "*a": "α", "*b": "β", "*p": "π", "AE": "Æ", "ae": "æ", "/o": "ø", "/O": "Ø",
    "oa": "å", "oA": "Å", "-D": "Ð", "Sd": "ð", "TP": "Þ", "Tp": "þ", "r!": "¡", "r?": "¿",
}  # fmt: skip
# groff's accented letters are named accent + letter (`:u` ü, `'e` é, `,c` ç).
ACCENTS = {":": "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", ",": "\u0327"}
# Strings predefined by the macro packages (`\\*(lq`); a page may define more with `.ds`.
STRINGS = {
    "lq": "“", "rq": "”", "R": "®", "Tm": "™", "S": "", "Aq": "'", "Lq": "“", "Rq": "”",
    "ua": "↑", "ga": "`", "aa": "´", "q": '"', "Pi": "π", "Le": "≤", "Ge": "≥", "Ne": "≠",
    "Pm": "±", "If": "∞", "Am": "&", "Ba": "|", "Ql": "'",
}  # fmt: skip
# What a one-character escape prints; any other `\\x` prints x (`\\.` a full stop).
SINGLE = {
    "-": "-", "e": "\\", "\\": "\\", "E": "\\", "&": "", "~": " ", "0": " ", " ": " ",
    "|": "", "^": "", "c": "", "'": "´", "`": "`", "%": "", ":": "", "t": "\t", "a": "",
    "{": "", "}": "", "p": "", "r": "", "u": "", "d": "", "z": "", "!": "", "/": "",
    ",": "", ")": "", "j": "", "\n": "",
}  # fmt: skip
# Where a character a text defines (`.char \\[pdfmom] pdfmom`, roff_reader) is kept among
# its strings: no string's name holds a blank, so the two cannot meet.
CHAR_KEY = "char "
# The character a `.char` request names: `\\[name]` or `\\(xy`.
CHARACTER = re.compile(r"\\(?:\[([^\]\s]{1,64})\]|\((\S\S))")
STRING_ALLOWANCE = 1_000  # characters of strings a line may add beyond its own length
MAX_NAME = 64  # longest `\\[name]` read as one escape; a longer bracket is text
MAX_DELIMITED = 400  # longest `\\w'…'` argument read as one escape

_NAME = rf"(?:\((..)|\[([^\]\n]{{0,{MAX_NAME}}})\]|(.))"
# One escape: its kind and what names it. The name forms are `(xy`, `[name]` or one
# character; sizes take a signed number; `\\w'…'`-style escapes a delimited argument.
ESCAPE = re.compile(
    r"\\(?:"
    rf"\*{_NAME}"  # groups 1-3: a string
    rf"|[fF]{_NAME}"  # groups 4-6: a font change (prints nothing)
    r"|s[-+]?(?:\d\d?|\(\d\d|\[[-+\d]{0,8}\])?"  # a size change (prints nothing)
    # (`\\N` is not one: `\\N'65'` is a character by number, the delimited form below.)
    rf"|[ngmMkYV$]{_NAME}"  # groups 7-9: a register, colour or other name (prints nothing)
    rf"|([hvwlLoxXbDZRSNCA])'([^'\n]{{0,{MAX_DELIMITED}}})'"  # groups 10-11: delimited
    rf"|\((..)|\[([^\]\n]{{0,{MAX_NAME}}})\]"  # groups 12-13: a named character
    r"|(.|\n|$)"  # group 14: a one-character escape (a trailing backslash: nothing)
    r")"
)
# The start of a comment: `\\"` or `\\#`, after any number of escaped backslashes.
_COMMENT = re.compile(r"\\(?:\\|([\"#]))")
# One argument of a request: "quoted" (with "" for a quote inside) or a run of non-blanks.
# Blanks are left to `finditer` to step over (a leading `[ \t]*` that then failed would
# rescan every run of blanks from each of its positions).
# An escaped blank (`\ `) belongs to its word: `.BI \-p \ pidlist` has two arguments.
_ARGUMENT = re.compile(r'"((?:[^"]|"")*)"?|((?:[^ \t\\]|\\(?:.|$))+)')


def strip_comment(line: str) -> str:
    """The line without its comment (`\\"` or `\\#` to the end of the line)."""
    for match in _COMMENT.finditer(line):
        if match.group(1):
            return line[: match.start()]
    return line


def split_arguments(text: str) -> list[str]:
    """troff's argument split: blanks separate, double quotes group (`""` is a quote)."""
    found = []
    for match in _ARGUMENT.finditer(text):
        quoted, bare = match.group(1), match.group(2)
        if quoted is not None:
            found.append(quoted.replace('""', '"'))
        elif bare is not None:
            found.append(bare)
    return found


def split_request(line: str) -> tuple[str, str]:
    """A control line (`.TP 8`, `.  SH`, `.el\\{`) → (request name, the rest): a name
    ends at a blank or an escape."""
    body = line[1:].lstrip(" \t")
    end = 0
    while end < len(body) and end < MAX_NAME and body[end] not in " \t\\":
        end += 1
    return body[:end], body[end:]


def is_control(line: str) -> bool:
    return line[:1] in (".", "'")


DOCUMENT_ALLOWANCE = 1_000_000  # characters of strings a whole document may add beyond its size


class Strings(MutableMapping[str, str]):
    """The strings a document defines, which print, all told, at most its own size plus
    `DOCUMENT_ALLOWANCE` characters (`allow`); past that a string prints nothing (`render`
    asks `spend`). Each line's allowance alone let a document of n lines of `\\*a` print
    a 1,000-character string n times: 160 KB → 40 MB of text."""

    def __init__(self, defined: Mapping[str, str]) -> None:
        self.defined = dict(defined)
        self.left = DOCUMENT_ALLOWANCE

    def allow(self, size: int) -> None:
        self.left = size + DOCUMENT_ALLOWANCE

    def spend(self, size: int) -> bool:
        """Whether a string of `size` characters may still print (it is counted if so)."""
        if size > self.left:
            return False
        self.left -= size
        return True

    def __getitem__(self, key: str) -> str:
        return self.defined[key]

    def __setitem__(self, key: str, value: str) -> None:
        self.defined[key] = value

    def __delitem__(self, key: str) -> None:
        del self.defined[key]

    def __contains__(self, key: object) -> bool:
        return key in self.defined

    def __iter__(self) -> Iterator[str]:
        return iter(self.defined)

    def __len__(self) -> int:
        return len(self.defined)


def _special(name: str) -> str:
    if name in SPECIAL:
        return SPECIAL[name]
    if len(name) == 2 and name[0] in ACCENTS and name[1].isalpha():
        return unicodedata.normalize("NFC", name[1] + ACCENTS[name[0]])  # `\\[:u]` → ü
    if name.startswith("u") and 4 <= len(name) <= 7:
        try:
            return _character(int(name[1:].split("_")[0], 16))
        except ValueError:
            return ""
    return name if len(name) == 1 else ""


def _character(code: int) -> str:
    """The character numbered `code`; nothing for a surrogate half or past Unicode (a lone
    surrogate in a document's text cannot be written as UTF-8)."""
    return "" if 0xD800 <= code <= 0xDFFF or not 0 < code < 0x110000 else chr(code)


def render(
    text: str, strings: Mapping[str, str] | None = None, budget: list[int] | None = None
) -> str:
    """The characters `text` prints: escapes resolved, fonts and sizes dropped. `budget`
    (one count shared by the calls for one line, `render_all`): the characters the
    strings it names may still add."""
    if "\\" not in text:
        return text
    defined = strings if strings is not None else STRINGS
    # Strings a page defines can be long: the text they add to one line is bounded by the
    # line's own length (plus one string), so a line of `\\*a` × n stays linear; those a
    # whole document adds by its own size plus DOCUMENT_ALLOWANCE (`Strings`).
    if budget is None:
        budget = [len(text) + STRING_ALLOWANCE]

    def printed(value: str) -> str:
        budget[0] -= len(value)
        if budget[0] < 0 or (isinstance(defined, Strings) and not defined.spend(len(value))):
            return ""
        return value

    def one(match: re.Match[str]) -> str:
        groups = match.groups()
        name = groups[0] or groups[1] or groups[2]
        if name is not None:
            return printed(defined.get(name, STRINGS.get(name, "")))
        if groups[9] is not None:
            return _delimited(groups[9], groups[10])
        named = groups[11] or groups[12]
        if named is not None:
            own = defined.get(CHAR_KEY + named)  # a character the text defined (`.char`)
            return _special(named) if own is None else printed(own)
        single = groups[13]
        if single is not None:
            return SINGLE.get(single, single)
        return ""  # a font, size, register or colour

    return ESCAPE.sub(one, text)


def render_all(texts: list[str], strings: Mapping[str, str] | None = None) -> list[str]:
    """A request's arguments, each rendered, the strings they name sharing one line's
    allowance: rendered one by one, `.B \\*a \\*a …` printed a whole string per
    argument (a 1,000-character string: 250 times the line)."""
    budget = [sum(len(t) for t in texts) + STRING_ALLOWANCE]
    return [render(t, strings, budget) for t in texts]


def _delimited(kind: str, argument: str) -> str:
    """`\\h'1i'` moves (a space), `\\N'65'` is a character by number, `\\o'…'` and `\\Z'…'`
    print their argument; the rest (`\\w` a width, `\\l` a line) print nothing."""
    if kind == "h":
        return " "
    if kind == "N":
        digits = argument.isascii() and argument.isdigit()  # (not `²`: int() refuses it)
        return _character(int(argument)) if digits else ""
    if kind in "oZC":
        return argument if kind != "C" else _special(argument)
    return ""


def continues(line: str) -> bool:
    """Does the text line end in `\\c` (the next line's text follows with no space)?"""
    stripped = line.rstrip()
    return stripped.endswith("\\c") and not stripped.endswith("\\\\c")

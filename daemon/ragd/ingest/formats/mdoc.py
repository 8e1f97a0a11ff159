"""The mdoc(7) macro package (pure): BSD-style pages such as ssh(1) and ssh_config(5).

mdoc marks up meaning, not fonts: `.Fl l` is the flag `-l`, `.Ar file` an argument,
`.Xr ssh 1` a reference `ssh(1)`. Most macros are *callable*: `.Op Fl b Ar bind_address`
holds three, printed `[-b bind_address]`. `inline` turns one such line into its text,
following mdoc's spacing (closing punctuation hugs the word before it, `Ns` removes a
space, an enclosure such as `Op` or `Dq` wraps the rest of the line).

Blocks: `.Sh`/`.Ss` are headings; `.Bl … .It … .El` lists, where each `.It` of a tag list
(`-tag`, `-hang`, `-ohang`, `-inset`, `-diag`) opens a tagged item like man(7)'s `.TP`;
`.Bd -literal`/`-unfilled` and `.Dl` are code. List nesting is counted up to `MAX_LISTS`
(deeper `.Bl` lists are read as the innermost kind).
"""

from __future__ import annotations

from ragd.ingest.formats.roff_reader import RoffReader
from ragd.ingest.formats.troff import STRING_ALLOWANCE, render, render_all

MAX_LISTS = 32
# What a bare `.Nm` prints, at most: a page's name, and a name made of a long string
# (`.Nm \\*a`) would be printed whole by every `Nm` of a line (`.Op Nm Nm Nm …`).
MAX_PAGE_NAME = 100
LITERAL = "\x00"  # marks a word escaped with `\&` while a line is read
TAGGED_LISTS = frozenset({"-tag", "-hang", "-ohang", "-inset", "-diag"})
# Enclosures: the macro wrapping the rest of its line, and the open/close pairs.
WRAPS = {
    "Op": ("[", "]"), "Dq": ("“", "”"), "Qq": ('"', '"'), "Sq": ("‘", "’"), "Pq": ("(", ")"),
    "Bq": ("[", "]"), "Brq": ("{", "}"), "Aq": ("⟨", "⟩"), "Ql": ("‘", "’"),
}  # fmt: skip
OPENS = {"Oo": "[", "Do": "“", "Qo": '"', "So": "‘", "Po": "(", "Bo": "[", "Bro": "{", "Ao": "⟨"}
CLOSES = {"Oc": "]", "Dc": "”", "Qc": '"', "Sc": "’", "Pc": ")", "Bc": "]", "Brc": "}", "Ac": "⟩"}
NAMES = {
    "Ux": "UNIX", "Bx": "BSD", "Ox": "OpenBSD", "Fx": "FreeBSD", "Nx": "NetBSD",
    "Bsx": "BSD/OS", "Dx": "DragonFly", "At": "AT&T UNIX",
}  # fmt: skip
# Callable macros that print their arguments as they are.
PLAIN = frozenset(
    "Ar Cm Ic Pa Ev Va Em Sy Li Dv Er Fa Ft Vt Ad Ms Tn Sx Cd Fd Ot Lb Hf No Mt An Nd Tg "
    "Fr Ef Xo Xc Bk Ek Ot Lp %A %B %C %D %I %J %N %O %P %Q %R %T %U %V".split()
)  # fmt: skip
CALLABLE = PLAIN | set(WRAPS) | set(OPENS) | set(CLOSES) | set(NAMES) | {
    "Fl", "Xr", "Nm", "Ns", "Pf", "Ta", "Lk", "Fn", "Fo", "Fc", "In", "St", "Ap", "Eo", "Ec"
}  # fmt: skip
CLOSING = frozenset(".,:;)]?!")
OPENING = frozenset("([")
SILENT = frozenset("Dd Os Bk Ek Sm Tg Ud Ef Xo Xc".split())
EXIT_STD = "The {} utility exits 0 on success, and >0 if an error occurs."
RETURN_STD = (
    "The {}() function returns the value 0 if successful; otherwise the value -1 is "
    "returned and the global variable errno is set to indicate the error."
)


def inline(tokens: list[str], page_name: str) -> str:
    """One mdoc line's macros and words → its text."""
    line = _Line()
    closers: list[str] = []
    end = len(tokens)  # trailing punctuation goes after the enclosures' closers
    while end > 0 and len(tokens[end - 1]) == 1 and tokens[end - 1] in CLOSING:
        end -= 1
    trailing, tokens = tokens[end:], tokens[:end]
    names_left = STRING_ALLOWANCE  # what bare `Nm`s may print on one line (`.Op Nm Nm …`)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        # The words after `token` are looked at by position, never copied: a copy per
        # token made one `.Op a a a …` line of n words cost n² (a 200 KB line: 5 s).
        following = tokens[index] if index < len(tokens) else None
        bare = following is None or following in CALLABLE or following in CLOSING
        if token in WRAPS:
            line.put(WRAPS[token][0], glue_next=True)
            closers.append(WRAPS[token][1])
        elif token in OPENS or token in CLOSES:
            line.put(OPENS.get(token, ""), glue_next=True)
            line.put(CLOSES.get(token, ""), attach=True)
        elif token in ("Xr", "Fn", "Pf") and following is not None:
            index += line.compound(token, tokens, index)
        elif token in CALLABLE:
            line.flags = token == "Fl"
            always = token in ("Ta", "Ap") or token in NAMES
            text = _bare(token, page_name) if bare or always else ""
            if token == "Nm":
                names_left -= len(text)
                text = text if names_left >= 0 else ""
            line.put(text, attach=token == "Ap")
            line.glue |= token in ("Ns", "Ap")
        elif len(token) == 1 and token in CLOSING:
            line.put(token, attach=True)
        else:
            word = f"-{token}" if line.flags else token
            line.put(word, glue_next=len(token) == 1 and token in OPENING)
    for closer in [*reversed(closers), *trailing]:
        line.put(closer, attach=True)
    return "".join(line.pieces).replace(LITERAL, "")


def _bare(token: str, page_name: str) -> str:
    """What a callable macro prints given no words: `Nm` the page's name, `Fl` a dash."""
    return {"Nm": page_name, "Fl": "-", "Ar": "file ...", "Ap": "'", "Ta": "|"}.get(
        token, NAMES.get(token, "")
    )


class _Line:
    """The pieces of one line's text and whether the next one gets a space."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.glue = False  # the next piece attaches to the last (after `Ns`, `(`, `[`)
        self.flags = False  # words are flags (`Fl a b` → `-a -b`)

    def put(self, text: str, attach: bool = False, glue_next: bool = False) -> None:
        if text:
            if self.pieces and not (self.glue or attach):
                self.pieces.append(" ")
            self.pieces.append(text)
            self.glue = glue_next
        elif glue_next:
            self.glue = True

    def compound(self, token: str, tokens: list[str], start: int) -> int:
        """`Xr ssh 1` → `ssh(1)`, `Fn f a b` → `f(a, b)`, `Pf ( x` → `(x`, from the words
        of `tokens` at `start`: how many were used."""
        first = tokens[start]
        if token == "Xr":
            after = tokens[start + 1] if start + 1 < len(tokens) else ""
            section = after if after not in CALLABLE else ""
            self.put(f"{first}({section})" if section else first)
            return 2 if section else 1
        if token == "Fn":
            end = start + 1
            while end < len(tokens) and tokens[end] not in CALLABLE and tokens[end] not in CLOSING:
                end += 1
            self.put(f"{first}({', '.join(tokens[start + 1 : end])})")
            return end - start
        self.put(first, glue_next=True)
        return 1


def _listed(names: list[str]) -> str:
    if len(names) < 3:
        return " and ".join(names)
    return ", ".join(names[:-1]) + ", and " + names[-1]


class MdocReader(RoffReader):
    def __init__(self, page: str = "") -> None:
        super().__init__(page)
        self.name = ""  # the first `.Nm`: what a bare `.Nm` prints
        self.lists: list[list[str]] = []  # per `.Bl` list open: its kind, its items so far
        self.authors: list[str] = []  # the `%A` lines read in a row

    def words(self, args: list[str]) -> str:
        # `\&.` is a full stop as a word, not a delimiter: marked until `inline` is done.
        rendered = zip(args, render_all(args, self.strings), strict=True)
        tokens = [(LITERAL if a.startswith("\\&") else "") + r for a, r in rendered]
        return inline(tokens, self.name)

    def macro(self, name: str, args: list[str], number: int) -> None:
        blocks = self.blocks
        if name == "%A":  # authors of a reference are listed together: "A, B, and C"
            self.authors.append(self.words(args))
            return
        if self.authors:
            blocks.text(_listed(self.authors), number)
            self.authors = []
        if name == "Dt":
            blocks.heading(1, self.title(render_all(args, self.strings)), number)
        elif name in ("Sh", "Ss"):
            blocks.heading(2 if name == "Sh" else 3, self.words(args), number)
        elif name in ("Pp", "Lp", "Rs", "Re"):
            self.paragraph_break(number)
        elif name in ("Bl", "El", "It"):
            self.listing(name, args, number)
        elif name in ("Bd", "Ed", "Dl", "D1"):
            self.display(name, args, number)
        elif name == "Xc":
            blocks.tag_open = False
        elif name in SILENT or (name == "An" and args[:1] in (["-split"], ["-nosplit"])):
            return
        else:
            self.phrase(name, args, number)

    def phrase(self, name: str, args: list[str], number: int) -> None:
        """A line of callable macros and words (`.Nm`, `.Nd`, `.Op …`, `.Ex -std`)."""
        if name == "Nm" and args and not self.name:
            self.name = render(args[0], self.strings)[:MAX_PAGE_NAME]
        if name == "Nd":
            text = "— " + self.words(args)
        elif name in ("Ex", "Rv") and args[:1] == ["-std"]:
            subject = render(args[1], self.strings) if len(args) > 1 else self.name
            text = (EXIT_STD if name == "Ex" else RETURN_STD).format(subject)
        elif name in CALLABLE:
            text = self.words([name, *args])
        else:  # not an mdoc macro we know: its words are kept
            super().macro(name, args, number)
            return
        if text:
            self.blocks.text(text, number)

    def listing(self, name: str, args: list[str], number: int) -> None:
        blocks = self.blocks
        if name == "Bl":
            blocks.flush()
            kind = next((a for a in args if a.startswith("-")), "-tag")
            if len(self.lists) < MAX_LISTS:
                self.lists.append([kind])
        elif name == "El":
            blocks.flush()
            if self.lists:
                self.lists.pop()
        else:
            current = self.lists[-1] if self.lists else ["-tag"]
            current.append("")  # one more item (counted for `-enum`)
            kind = current[0]
            if kind in TAGGED_LISTS:
                extended = args[-1:] == ["Xo"]  # the tag goes on to `.Xc`
                blocks.item(self.words(args[:-1] if extended else args), number)
                blocks.tag_open = extended
            elif kind == "-column":
                blocks.item("", number)
                blocks.text(self.words(args), number)
            else:
                blocks.item(f"{len(current) - 1}." if kind == "-enum" else "", number)

    def display(self, name: str, args: list[str], number: int) -> None:
        blocks = self.blocks
        if name == "Bd":
            if "-literal" in args or "-unfilled" in args:
                blocks.start_code()
            else:
                blocks.flush()
        elif name == "Ed":
            blocks.end_code()
            blocks.flush()
        elif name == "Dl":
            blocks.start_code()
            blocks.text(self.words(args), number)
            blocks.end_code()
        else:
            blocks.flush()
            blocks.text(self.words(args), number)
            blocks.flush()

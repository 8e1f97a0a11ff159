"""What the LaTeX reader (`formats.latex`) knows of LaTeX's commands and environments:
which are sections, which show words, which take arguments that are not text.

A command not named here is dropped and the groups after it are read as text, so an
unknown `\\mycmd{kept words}` keeps its words. Argument specs are read left to right:
``o`` an optional ``[…]`` argument, ``r`` a required one (a ``{…}`` group, or a single
token), both skipped unread: a key, a file name, a length or a definition's body is not
the document's text, and a body read as text would run its `\\section`s.
"""

from __future__ import annotations

# Sectioning commands by depth; `formats.latex` turns depths into heading levels relative
# to the shallowest one the file uses (a thesis' \chapter, a paper's \section).
SECTIONS = {
    "part": 0,
    "chapter": 1,
    "addchap": 1,  # KOMA-Script's unnumbered chapter
    "section": 2,
    "addsec": 2,
    "subsection": 3,
    "subsubsection": 4,
    "paragraph": 5,
    "subparagraph": 6,
}

# Commands that stand for words or characters.
WORDS = {
    "LaTeX": "LaTeX", "TeX": "TeX", "LaTeXe": "LaTeX2e", "BibTeX": "BibTeX",
    "ldots": "…", "dots": "…", "textellipsis": "…", "textbackslash": "\\",
    "S": "§", "P": "¶", "copyright": "©", "textcopyright": "©", "textregistered": "®",
    "texttrademark": "™", "dag": "†", "ddag": "‡", "textendash": "–", "textemdash": "—",
    "textasciitilde": "~", "textasciicircum": "^", "textless": "<", "textgreater": ">",
    "textbar": "|", "textbullet": "•", "textunderscore": "_", "slash": "/",
    "textquotedbl": '"', "textquoteleft": "‘", "textquoteright": "’",
    "textquotedblleft": "“", "textquotedblright": "”", "guillemotleft": "«",
    "guillemotright": "»", "textdegree": "°", "euro": "€", "pounds": "£",
    "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å",
    "AA": "Å", "l": "ł", "L": "Ł", "i": "i", "j": "j",
    "quad": " ", "qquad": " ", "enspace": " ", "space": " ", "newline": " ",
    "linebreak": " ", "break": " ", "smallskip": " ", "medskip": " ", "bigskip": " ",
}  # fmt: skip

# Control symbols: `\%` is a per cent sign, `\,` a thin space, `\-` a hyphenation point.
SYMBOLS = {
    "%": "%", "$": "$", "&": "&", "#": "#", "_": "_", "{": "{", "}": "}", " ": " ",
    "\n": " ", "\t": " ", ",": " ", ";": " ", ":": " ", ">": " ", "!": "", "/": "", "@": "",
    "-": "", ")": "", "]": "", "|": "‖",
}  # fmt: skip

# Accents by their combining mark: `\'e` and `\'{e}` are é, `\c{c}` is ç.
ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "H": "\u030b",
    "u": "\u0306", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331",
}  # fmt: skip
LETTER_ACCENTS = frozenset("cvHukrdb")

# Commands whose arguments (by spec, see above) are skipped: settings, lengths, keys,
# file names, colours, definitions. The words of a group after the spec are read.
SKIPPED = {
    "documentclass": "or", "usepackage": "or", "RequirePackage": "or",
    "label": "r", "ref": "r", "eqref": "r", "pageref": "r", "autoref": "r", "cref": "r",
    "Cref": "r", "vref": "r", "nameref": "r", "hyperref": "o", "href": "r",
    "hypertarget": "r", "hyperlink": "r",  # an anchor's name, then the text it marks
    "bibliographystyle": "r", "bibliography": "r", "nocite": "r", "addbibresource": "r",
    "includegraphics": "or", "pagestyle": "r", "thispagestyle": "r", "pagenumbering": "r",
    "setcounter": "rr", "addtocounter": "rr", "setlength": "rr", "addtolength": "rr",
    "newcounter": "ro", "vspace": "r", "hspace": "r", "cline": "r", "hypersetup": "r",
    "geometry": "r", "lstset": "r", "setminted": "or", "graphicspath": "r", "color": "r",
    "textcolor": "r", "colorbox": "r", "fcolorbox": "rr", "definecolor": "rrr",
    "newtheorem": "roro", "setmainfont": "or", "setsansfont": "or", "setmonofont": "or",
    "fontsize": "rr", "linespread": "r", "newcommand": "roor", "renewcommand": "roor",
    "providecommand": "roor", "DeclareRobustCommand": "roor", "newenvironment": "roorr",
    "renewenvironment": "roorr", "DeclareMathOperator": "rr", "thanks": "r", "index": "r",
    "glossary": "r", "rule": "orr", "raisebox": "roo", "makebox": "oo", "framebox": "oo",
    "parbox": "ooor", "resizebox": "rr", "scalebox": "ro", "phantom": "r", "hphantom": "r",
    "vphantom": "r", "multicolumn": "rr", "multirow": "ororo", "usetikzlibrary": "r",
    "addcontentsline": "rrr", "counterwithin": "rr", "numberwithin": "rr", "caption": "o",
    "footnote": "o", "footnotetext": "o", "includeonly": "r", "let": "rr",
    "lstinputlisting": "or", "inputminted": "orr", "linethickness": "r", "enlargethispage": "r",
}  # fmt: skip

# Citations keep their keys, "[knuth84, lamport94]": the key names the entry of the
# bibliography (\bibitem{knuth84}) a reader would look up, where "[1]" names nothing.
CITATIONS = frozenset(
    "cite citep citet citealp citealt citeauthor citeyear parencite textcite autocite "
    "footcite Cite Citep Citet smartcite supercite".split()
)
# Another file's contents: shown as "(includes FILE)", never read.
INPUTS = frozenset("input include subfile import subimport includepdf".split())
# Commands whose text is set apart from the sentence around it.
WRAPPED = {"footnote": (" (", ")"), "footnotetext": (" (", ")"), "marginpar": (" (", ")")}
DEFINITIONS = frozenset({"def", "gdef", "edef", "xdef"})
# LaTeX's definitions of a command (`SKIPPED` gives their arguments: the name, the number
# of arguments, a default, the body); one taking no argument whose body is words is shown
# where it is used (`formats.latex_definitions`).
COMMAND_DEFINITIONS = frozenset(
    {"newcommand", "renewcommand", "providecommand", "DeclareRobustCommand"}
)

# Environments whose body is source code or plain text to keep as written.
VERBATIM = {
    "verbatim": "", "verbatim*": "", "Verbatim": "o", "BVerbatim": "o", "LVerbatim": "o",
    "lstlisting": "o", "minted": "or", "alltt": "", "spverbatim": "", "sourcecode": "o",
    # SageTeX's and PythonTeX's code (fancyvrb underneath: read verbatim by LaTeX too)
    "sageblock": "", "sagesilent": "", "sagecommandline": "", "sageexample": "",
    "pycode": "o", "pyblock": "o", "pyconsole": "o",
    # Cadabra's sessions (`\begin{screen}{1,2}`: the lines that are input), a fancyvrb
    # Verbatim in its cadabra.sty; read as text, each `%` (the last expression) cut a
    # command short: "@distribute!(a b + a c;" for "@distribute!(%);" (newuser58)
    "screen": "r",
}  # fmt: skip
# Environments dropped with their body.
DROPPED = frozenset({"comment", "filecontents", "filecontents*", "tikzpicture", "pspicture"})
# Display math: kept as its source, between $$.
MATH = frozenset(
    f"{name}{star}"
    for name in "equation align gather multline eqnarray flalign alignat displaymath math "
    "dmath split".split()
    for star in ("", "*")
)
LISTS = {
    "itemize": "- ", "itemize*": "- ", "compactitem": "- ", "asparaitem": "- ",
    "enumerate": "1", "enumerate*": "1", "compactenum": "1", "asparaenum": "1",
    "description": "- ", "compactdesc": "- ", "thebibliography": "- ",
}  # fmt: skip
TABLES = {
    "tabular": "or", "tabular*": "ror", "tabularx": "rr", "tabulary": "rr",
    "longtable": "or", "longtable*": "or", "xltabular": "rr", "supertabular": "r",
}  # fmt: skip
# Other environments' arguments that are settings, not text (a minipage's width).
ENVIRONMENT_ARGUMENTS = {
    "figure": "o", "figure*": "o", "table": "o", "table*": "o", "minipage": "ooor",
    "wrapfigure": "oror", "wraptable": "oror", "multicols": "r", "multicols*": "r",
    "subfigure": "or", "subtable": "or", "adjustbox": "r", "tcolorbox": "o",
    "spacing": "r", "list": "rr", "thebibliography": "r", "column": "or", "columns": "o",
    "frame": "o",
}  # fmt: skip
# Environments a reader sees headed by their name ("Theorem." before its statement).
NAMED = frozenset(
    "theorem lemma proposition corollary definition example remark proof note claim "
    "conjecture exercise solution".split()
)

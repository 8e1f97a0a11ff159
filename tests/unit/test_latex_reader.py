"""LaTeX (`ingest/formats/latex.py`, `latex_source.py`, `latex_macros.py`): small documents
written here, each construct read through the loader as the daemon reads them, and
chunked to see the heading paths a citation would carry; then hostile files, which must
be read whole without recursion or a stall."""

from __future__ import annotations

import pytest

from ragd.core.config import DOCUMENT_PATTERNS
from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import Document
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats import latex_definitions, module_name
from ragd.ingest.loaders import parse


def read(source: str, name: str = "paper.tex") -> Document:
    return parse(name, source.encode())


def paths(document: Document) -> list[str]:
    return [chunk.heading_path for chunk in chunk_document(document)]


PAPER = r"""\documentclass[11pt]{article}
\usepackage{amsmath} % the preamble is settings
\newcommand{\R}{\mathbb{R}}
\title{Tidal Moorings \\ in Practice}
\author{Ann Other}
\begin{document}
\maketitle
\begin{abstract}
We study moorings.
\end{abstract}
\section[Intro]{Introduction to \emph{Moorings}}\label{sec:intro}
Bollards hold \textbf{lines}.
\subsection*{Knots}
A cleat hitch.
\subsubsection{Hitches}
Round turn.
\paragraph{Run-in} Two half hitches.
\section{Fees}
Pay at the office.
\end{document}
Notes after the end are not text.
"""


def test_tex_files_are_documents_read_as_latex() -> None:
    assert PathFilter(DOCUMENT_PATTERNS).includes("paper.tex")
    assert module_name("Thesis.TEX") == "latex"


def test_sections_sit_under_the_title_at_their_levels() -> None:
    document = read(PAPER)
    assert paths(document) == [
        "Tidal Moorings in Practice > Abstract",
        "Tidal Moorings in Practice > Introduction to Moorings",
        "Tidal Moorings in Practice > Introduction to Moorings > Knots",
        "Tidal Moorings in Practice > Introduction to Moorings > Knots > Hitches",
        "Tidal Moorings in Practice > Introduction to Moorings > Knots > Hitches > Run-in",
        "Tidal Moorings in Practice > Fees",
    ]
    text = document.text
    assert text.startswith("# Tidal Moorings in Practice\n")
    assert "Bollards hold lines." in text and "Two half hitches." in text
    # the preamble, the short title and what follows \end{document} are not text
    for absent in ("Ann Other", "amsmath", "mathbb", "Intro\n", "after the end"):
        assert absent not in text


def test_levels_count_from_the_shallowest_command_used() -> None:
    """A thesis chapter file (no preamble, no title): \\chapter is the top level."""
    document = read("\\chapter{Ropes}\nNylon.\n\\section{Care}\nRinse.\n\\part*{Later}\nx.\n")
    assert paths(document) == ["Ropes", "Ropes > Care", "Later"]
    assert document.text.split("\n\n")[:3] == ["## Ropes", "Nylon.", "### Care"]


def test_a_title_in_the_body_or_none_at_all() -> None:
    assert paths(read("\\title{Log}\n\\section{Day one}\nCalm.\n")) == ["Log > Day one"]
    assert read("Just a paragraph.\n").text == "Just a paragraph."


# Documents whose whole text is one thing: comments, inputs, definitions, dropped blocks.
READ_AS = {
    "comments dropped, \\% kept": (
        "Half % a comment\n   done: 50\\% of it.\nfoo%\nbar\n% whole line\n",
        "Half done: 50% of it. foobar",
    ),
    "inputs shown, never read": (
        "\\input{chapters/intro}\n\\include{appendix}\n\\input macros\n",
        "(includes chapters/intro)\n\n(includes appendix)\n\n(includes macros)",
    ),
    "definitions and dropped blocks are not text": (
        "\\newcommand{\\boat}[1]{\\section{#1 boat}}\n\\def\\loop{\\loop}\\loop\n"
        "\\begin{comment}\nhidden\n\\end{comment}\n\\iffalse also hidden \\fill\\fi\nShown.\n",
        "Shown.",
    ),
    # "\\begin{document}" inside a comment starts no body
    "a document environment only in a comment": (
        "% \\begin{document}\nAll of this is text.\n",
        "All of this is text.",
    ),
}


@pytest.mark.parametrize("case", sorted(READ_AS))
def test_whole_documents_read_as(case: str) -> None:
    source, text = READ_AS[case]
    assert read(source).text == text


def test_code_environments_are_code_blocks_kept_as_written() -> None:
    document = read(
        "Before.\n\\begin{verbatim}\nrm -rf /tmp/x % kept\n  \\section{not a heading}\n"
        "\\end{verbatim}\n\\begin{lstlisting}[language=Python, caption=Tie]\ntie(knot)\n"
        "\\end{lstlisting}\n\\begin{minted}[linenos]{rust}\nfn main() {}\n\\end{minted}\n"
        "Inline \\verb|a%b{| and \\lstinline{x = 1}.\n"
    )
    text = document.text
    assert "```\nrm -rf /tmp/x % kept\n  \\section{not a heading}\n```" in text
    assert "```python\ntie(knot)\n```" in text and "```rust\nfn main() {}\n```" in text
    assert "Inline `a%b{` and `x = 1`." in text


def test_cadabras_screen_environment_is_code_kept_as_typed() -> None:
    # Cadabra's help pages (Debian's cadabra 1.46: 207 of them in 178 files) write every
    # session in `\begin{screen}{lines}`, a fancyvrb Verbatim in its cadabra.sty. Read as
    # LaTeX, `%` (the last expression) cut each command short and the next line ran on:
    # "@distribute!(a b + a c;" where the page shows "@distribute!(%);" (newuser58).
    text = read(
        "\\cdbalgorithm{distribute}{}\n\nRewrite a product of sums, as in\n"
        "\\begin{screen}{1,2}\n{A,B}::AntiCommuting.\na (b+c);\n@distribute!(%);\n"
        "a b + a c;\n\\end{screen}\nThe algorithm in fact works on all objects.\n"
    ).text
    assert "```\n{A,B}::AntiCommuting.\na (b+c);\n@distribute!(%);\na b + a c;\n```" in text
    assert "1,2" not in text  # the lines shown as input, not text
    assert text.endswith("The algorithm in fact works on all objects.")


def test_a_screen_without_cadabras_line_argument_is_text() -> None:
    # ascmac.sty's `screen` (Japanese documents' rounded box) holds LaTeX text, not a
    # session: only Cadabra's, written `\begin{screen}{1,2}`, is verbatim.
    text = read(
        "\\begin{screen}\nPress \\textbf{Enter} to go on. % a note to the author\n\\end{screen}\n"
    ).text
    assert "Press Enter to go on." in text
    assert "```" not in text and "note to the author" not in text


def test_lists_are_lists_with_their_terms_and_nesting() -> None:
    text = read(
        "\\begin{itemize}\n\\item Bow line\n\n\\item Stern line\n\\begin{enumerate}\n"
        "\\item first\n\\item second\n\\end{enumerate}\n\\end{itemize}\n"
        "\\begin{description}\n\\item[Bollard] a post.\n\\item[\\emph{Cleat}] a horn.\n"
        "\\end{description}\n"
    ).text
    assert text == (
        "- Bow line\n- Stern line\n  1. first\n  2. second\n\n- Bollard: a post.\n- Cleat: a horn."
    )


def test_tables_are_rows_without_rules() -> None:
    text = read(
        "\\begin{table}[h]\n\\begin{tabular}{|l|r|}\\hline\nBoat & Fee \\\\ \\hline\n"
        "Dinghy & \\textbf{5} EUR \\\\\n\\multicolumn{2}{c}{Schooner on request}\\\\\n"
        "\\end{tabular}\n\\caption{Nightly fees.}\n\\end{table}\n"
    ).text
    assert text == ("| Boat | Fee |\n| Dinghy | 5 EUR |\n| Schooner on request |\n\nNightly fees.")


def test_a_tables_last_row_needs_no_row_end() -> None:
    """LaTeX ends a table's last row at `\\end{tabular}`; most tables write no `\\\\`
    after it. That row's cells were dropped (attack52): "Outer mooring" was in no chunk."""
    text = read(
        "\\begin{tabular}{ll}\nBerth & Depth \\\\\nHarbour & 12 \\\\\nOuter mooring & 30\n"
        "\\end{tabular}\n\nAfter.\n\\begin{tabular}{l}\\begin{tabular}{l} inner & cell"
    ).text
    assert text == (
        "| Berth | Depth |\n| Harbour | 12 |\n| Outer mooring | 30 |\n\nAfter.\n\n| inner | cell |"
    )


def test_an_item_inside_an_items_term_is_part_of_the_term() -> None:
    """TeX reads `\\item[`'s term to its `]`, an `\\item` in it included; each such
    `\\item` had looked for its own term's `]` again (a line of 20,000: 110 s)."""
    text = read("\\begin{description}\n\\item[Bow \\item[Stern] a line.\n\\end{description}\n").text
    assert text == "- Bow [Stern: a line."  # the inner `[` is the term's, as written


def test_math_stays_as_its_source() -> None:
    text = read(
        "Energy $E = mc^2$ and\n\\[ \\int_0^1 x\\,dx \\]\nand \\(a+b\\).\n"
        "\\begin{equation}\n\\frac{a}{b} \\label{eq:one}\n\\end{equation}\n"
        "A lone $ sign.\n\nNext.\n"
    ).text
    assert "Energy $E = mc^2$ and $$\\int_0^1 x\\,dx$$ and $a+b$." in text
    assert "$$\\frac{a}{b} \\label{eq:one}$$" in text
    assert "A lone $ sign." in text  # never closed in its paragraph: a dollar sign


def test_an_address_with_a_per_cent_sign_is_no_comment() -> None:
    """hyperref reads `\\href`'s and `\\url`'s address with `%` as itself (`a%20b`).
    Read as a comment, it hid the closing brace: the rest of the file became the address
    and was gone, "See" all that was left of this (attack52)."""
    text = read(
        "See \\href{https://example.org/a%20b}{the mooring guide} for details.\n"
        "Next line words, \\url{https://e.org/%7Eann} and \\nolinkurl{x%y}.\n\nNew paragraph.\n"
    ).text
    assert text == (
        "See the mooring guide for details. Next line words, https://e.org/%7Eann and x%y."
        "\n\nNew paragraph."
    )


def test_iffalse_skips_as_tex_does() -> None:
    """`\\iffalse … \\else shown \\fi`: TeX shows the `\\else` branch, which was dropped;
    a conditional inside the skipped branch has its own `\\fi`, which had ended the skip
    and shown the rest of the branch (attack52). A `\\fi` in a comment ends nothing."""
    text = read(
        "\\iffalse a \\ifnum1=1 b \\else c \\fi d \\else Shown \\fi after.\n\n"
        "\\iffalse % \\fi\nhidden \\iff \\ifthenelse{x}{y}{z} \\fi\nAlso \\fill shown.\n"
    ).text
    assert text == "Shown after.\n\nAlso shown."


def test_a_group_never_closed_takes_nothing_with_it() -> None:
    """A `\\label`'s or a definition's `{` never closed had taken the rest of the file
    as its argument ("LaTeX has no text"); TeX stops at the paragraph or reports the
    runaway argument. It is read as text now (attack52)."""
    for source in (
        "\\def\\x{never closed\n\nLater words.",
        "\\newcommand{\\x}{never closed\n\nLater words.",
        "\\label{sec:open\n\nLater words.",
    ):
        assert "Later words." in read(source).text, source
    # one such group a file: the next one takes the rest as before (each is a scan to
    # the end of the file; given back at every one, a line of them was n²)
    assert read("\\label{a \\label{b\n\nLater.").text == "a"


def test_inline_commands_show_their_words() -> None:
    text = read(
        "See \\href{https://example.org/x}{the harbour site} or \\url{https://e.org}; "
        "\\emph{calm} \\textbf{seas}, \\unknown{kept words}\\footnote{A note.} "
        "cited \\cite[p.~3]{knuth84, lamport94} in Section~\\ref{sec:fees}\\label{x}.\n"
        "Erd\\H{o}s, na\\\"ive, \\LaTeX{}, ``quoted''.\n"
    ).text
    assert text == (
        "See the harbour site or https://e.org; calm seas, kept words (A note.) "
        'cited [knuth84, lamport94] in Section . Erdős, naïve, LaTeX, "quoted".'
    )


def test_a_documents_own_word_macros_show_their_words_where_used() -> None:
    """emcee's paper (the emcee 3.1.6 sdist's document/ms.tex) names the software through
    `\\this`, defined as `\\project{\\thisplain}` and that as `emcee`: dropped as unknown
    commands, its title read ": The MCMC Hammer" and the name was in no chunk (newuser51)."""
    document = read(
        "\\documentclass{article}\n\\newcommand{\\project}[1]{{\\sffamily #1}}\n"
        "\\newcommand{\\thisplain}{ferryd}\n\\newcommand{\\this}{\\project{\\thisplain}}\n"
        "\\providecommand{\\this}{not this}\n\\def\\harbour{Kiel~harbour}\n"
        "\\newcommand\\etal{\\emph{et\\,al.}}\n\\newcommand{\\R}{\\mathbb{R}}\n"
        "\\newcommand{\\boat}[1]{#1 boat}\n\\def\\pair#1#2{#1 and #2}\n"
        "\\title{\\this: Tidal Moorings}\n\\begin{document}\n\\section{Why \\this}\n"
        "The \\this\\ daemon in \\harbour, after Ann \\etal{} and \\R\\boat{x}\\pair ab.\n"
        "\\renewcommand{\\harbour}{$H$}Now \\harbour.\n\\end{document}\n"
    )
    assert paths(document) == ["ferryd: Tidal Moorings > Why ferryd"]
    assert document.text.split("\n\n")[-1] == (
        "The ferryd daemon in Kiel harbour, after Ann et al. and x ab. Now ."
    )


def test_word_macros_are_bounded() -> None:
    """Half a million uses show at most MAX_SHOWN_CHARS of words; a chain of definitions
    each using the one before twice is worked out once each, and one whose words would be
    longer than MAX_WORDS_CHARS is no word macro; a document keeps MAX_DEFINITIONS."""
    uses = read("\\newcommand{\\w}{word}\n" + "\\w " * 500_000).text
    assert uses.count("word") == latex_definitions.MAX_SHOWN_CHARS // len("word")
    chain = (
        "\\def\\a{x}"
        + "".join(
            f"\\def\\{c}{{\\{p} \\{p}}}"
            for p, c in zip("abcdefghijklmnopq", "bcdefghijklmnopqr", strict=True)
        )
        + "\\e. \\r."
    )
    # \e stands for 16 x's; \r's 131,072 are over MAX_WORDS_CHARS: no words, shown as none
    assert read(chain).text == "x" * 16 + ". ."  # a space after a command name is TeX's, not text
    names = ["m" + "".join("abcdefghij"[int(d)] for d in f"{i:04d}") for i in range(2000)]
    many = read(
        "".join(f"\\newcommand{{\\{n}}}{{{n[1:]}}}" for n in names)
        + "\\"
        + names[0]
        + " \\"
        + names[-1]
    ).text
    assert many == names[0][1:]  # the first MAX_DEFINITIONS are kept, later ones not


def test_a_body_is_read_only_until_its_words_are_too_long() -> None:
    """A body of 199 uses of a macro of 76 characters is over MAX_WORDS_CHARS at its
    second use: the rest is not looked up and joined (a file of such redefinitions had
    cost 20 times a plain file's parse per byte; review51)."""

    class Counted(dict[str, str]):
        looked_up = 0

        def __getitem__(self, key: str) -> str:
            Counted.looked_up += 1
            return super().__getitem__(key)

    definitions = latex_definitions.Definitions()
    definitions._words = Counted()
    definitions.define("\\b", None, "abcdefghij " * 6 + "abcdefghij")
    definitions.define("\\a", None, "\\b" * 199)
    assert definitions.shown("a") is None and definitions.shown("b") is not None
    assert Counted.looked_up <= 2 * (latex_definitions.MAX_WORDS_CHARS // 76 + 1)


def test_anchors_are_not_text() -> None:
    """pandoc's LaTeX puts `\\hypertarget{ref-KEY}{}` before each reference: its name had
    run into the entry, "ref-Goodman:2010Goodman, J." (emcee's joss/paper.tex)."""
    text = read(
        "\\hypertarget{refs}{}\n\\leavevmode\\hypertarget{ref-knuth84}{}%\nKnuth, D. (1984).\n\n"
        "See \\hyperlink{fees}{the fees}.\n"
    ).text
    assert text == "Knuth, D. (1984).\n\nSee the fees."


def test_a_footnote_in_a_title_is_not_in_the_heading_path() -> None:
    document = read("\\section{Colour\\footnote{Also xcolor.} models}\nRGB.\n")
    assert paths(document) == ["Colour models"]
    assert "Also xcolor." in document.text


def test_hostile_nesting_and_unclosed_things_are_read_whole() -> None:
    depth = 100_000
    assert read("{" * depth + "deep" + "}" * depth).text == "deep"
    assert read("\\begin{itemize}\\item x " * 20_000).text.count("x") == 20_000
    # titles inside titles: the innermost few are captured, the rest read as their text
    assert read("\\section{" * 20_000 + "Title").text == "# Title"
    unclosed = read("Before.\n\n\\begin{verbatim}\nline\n" + "\\begin{verbatim}\n" * 1000)
    assert unclosed.text.startswith("Before.\n\n```\nline\n\\begin{verbatim}")
    assert "Lone" in read("\\begin{equation} x\n\nLone " + "$ x " * 10_000).text


def test_a_ten_megabyte_line_is_read() -> None:
    line = "word " * 2_000_000
    assert len(read(line).text) == len(line) - 1
    braces = read("\\textbf{" * 1_000_000 + "x").text
    assert braces == "x"


# A Beamer talk as beamer's user guide writes one: \frametitle inside a frame, the title
# as the frame's argument, an overlay specification and options before it.
TALK = r"""\documentclass{beamer}
\usetheme{Warsaw}
\title{Tidal Moorings}
\begin{document}
\begin{frame}
\titlepage
\end{frame}
\section{Bollards}
\begin{frame}
\frametitle{Why bollards hold}
Friction on the post.
\end{frame}
\subsection{Cleats}
\begin{frame}<1->[fragile]{A cleat hitch}{Three turns}
\begin{itemize}
\item<1-> a round turn
\end{itemize}
\end{frame}
\section{Knots}
\begin{frame}{Bowline}
A loop that does not slip.
\end{frame}
\end{document}
"""


def test_a_beamer_frames_title_heads_it_under_its_section() -> None:
    document = read(TALK, "talk.tex")
    headed = [c.heading_path for c in chunk_document(document) if "Friction" in c.text]
    assert headed == ["Tidal Moorings > Bollards > Why bollards hold"]
    assert "Tidal Moorings > Bollards > Cleats > A cleat hitch" in paths(document)
    assert "Tidal Moorings > Knots > Bowline" in paths(document)
    text = "\n".join(chunk.text for chunk in chunk_document(document))
    assert "a round turn" in text and "<1->" not in text and "fragile" not in text


def test_a_frame_without_a_title_stands_under_its_section() -> None:
    """A titleless frame ran on under the frame before it: its slide was cited as
    "Tidal Moorings > Bollards > Why bollards hold". It has its section's path now; a
    frame titled by a `\\frametitle` in its body keeps that title."""
    untitled = "\\begin{frame}\nSteel posts rust first.\n\\end{frame}\n"
    late = "\\begin{frame}[fragile]\n\\frametitle{Wet posts}\nSome words.\n\\end{frame}\n"
    talk = TALK.replace("\\subsection{Cleats}", untitled + late + "\\subsection{Cleats}")
    talk = talk.replace(
        "\\section{Knots}\n", "\\section{Knots}\n" + untitled.replace("Steel posts rust", "Knots")
    )
    chunks = chunk_document(read(talk, "talk.tex"))

    def cited(words: str) -> list[str]:
        return [c.heading_path for c in chunks if words in c.text]

    assert cited("Steel posts rust first.") == ["Tidal Moorings > Bollards"]
    assert cited("Knots first.") == ["Tidal Moorings > Knots"]
    assert cited("Friction") == ["Tidal Moorings > Bollards > Why bollards hold"]
    assert cited("Some words.") == ["Tidal Moorings > Bollards > Wet posts"]
    assert not any(c.text.strip() in ("Tidal Moorings", "Bollards", "Knots") for c in chunks)

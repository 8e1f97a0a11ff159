"""AsciiDoc, Org, LaTeX and type-stub files indexed by the daemon's own writer (the default
include patterns, the parse workers, the chunker, MiniLM, ChromaDB and tantivy), then
searched: each passage comes back under the heading path its file's titles give it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ragd.harness.localindex import LocalIndex
from ragd.query.retrieval import Retriever


@contextmanager
def searched(tmp_path: Path, embedder, files: dict[str, str]) -> Iterator[Retriever]:  # type: ignore[no-untyped-def]
    """A folder of `files` indexed; its retriever."""
    folder = tmp_path / "harbour"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    index = LocalIndex(folder, tmp_path / "data", embedder)
    try:
        yield index.retriever
    finally:
        index.close()


GUIDE_ADOC = """= Harbour Guide
:toc:
:berth-office: Quay Office

Welcome to the harbour.

== Mooring

[[knots]]
NOTE: Every visiting yacht doubles its bow line with a cormorant hitch.

=== Fees

[cols="1,2"]
|===
|Boat |Nightly fee

|Dinghy |5 EUR
|Schooner |48 EUR
|===

Pay at the {berth-office}, see link:https://example.org/fees[the fee schedule].
"""

TASKS_ORG = """#+TITLE: Harbour Tasks
#+STARTUP: overview

* TODO [#A] Dredge the inner basin :works:
  :PROPERTIES:
  :ID: 7f3e-dredge
  :END:
  The dredger Marlinspike clears silt from the inner basin every spring.

** Permits
#+BEGIN_SRC sh
request-permit --basin inner
#+END_SRC
"""


def test_asciidoc_and_org_passages_are_found_under_their_heading_paths(
    tmp_path: Path,
    embedder,  # type: ignore[no-untyped-def]
) -> None:
    files = {"guide.adoc": GUIDE_ADOC, "tasks.org": TASKS_ORG}
    with searched(tmp_path, embedder, files) as retriever:
        search = retriever.search
        hitch = search("which knot doubles a visiting yacht's bow line?", top_k=3).chunks[0]
        assert (hitch.source, hitch.heading) == ("guide.adoc", "Harbour Guide > Mooring")
        assert "cormorant hitch" in hitch.text

        fees = search("nightly fee for a schooner", top_k=3).chunks[0]
        assert (fees.source, fees.heading) == ("guide.adoc", "Harbour Guide > Mooring > Fees")
        assert "| Schooner | 48 EUR |" in fees.text
        assert "Quay Office" in fees.text and "the fee schedule" in fees.text

        dredge = search("when does the dredger clear silt?", top_k=3).chunks[0]
        assert dredge.source == "tasks.org"
        assert dredge.heading == "Harbour Tasks > Dredge the inner basin"
        assert "7f3e" not in dredge.text  # the property drawer is not text
        assert "tags: works" in dredge.text

        permit = search("request-permit basin", top_k=3).chunks[0]
        assert permit.heading == "Harbour Tasks > Dredge the inner basin > Permits"


PAPER_TEX = r"""\documentclass{article}
\usepackage{amsmath}
\title{Harbour Dredging}
\author{A. Pilot}
\begin{document}
\maketitle
\section{Method}
% a draft remark the reader must not see
The dredger \emph{Marlinspike} clears silt from the inner basin every spring,
see~\cite{tides09}.
\subsection{Fees}
\begin{tabular}{ll}\hline
Boat & Nightly fee \\ \hline
Schooner & 48 EUR \\
\end{tabular}
\end{document}
"""

TIDES_PYI = """from typing import overload

class TideTable:
    @overload
    def high_water(self, port: str) -> float: ...
    @overload
    def high_water(self, port: str, day: int) -> list[float]: ...
    def low_water(self, port: str) -> float: ...
"""


def test_latex_and_stub_passages_are_found_under_their_heading_paths(
    tmp_path: Path,
    embedder,  # type: ignore[no-untyped-def]
) -> None:
    """Before, neither `*.tex` nor `*.pyi` was included: nothing of them was found."""
    files = {"paper.tex": PAPER_TEX, "tides.pyi": TIDES_PYI}
    with searched(tmp_path, embedder, files) as retriever:
        search = retriever.search
        silt = search("when does the dredger clear silt from the basin?", top_k=3).chunks[0]
        assert (silt.source, silt.heading) == ("paper.tex", "Harbour Dredging > Method")
        assert "Marlinspike" in silt.text and "[tides09]" in silt.text
        assert "draft remark" not in silt.text and "A. Pilot" not in silt.text

        fees = search("nightly fee for a schooner", top_k=3).chunks[0]
        assert fees.heading == "Harbour Dredging > Method > Fees"
        assert "| Schooner | 48 EUR |" in fees.text

        water = search("high_water port day overload", top_k=3).chunks[0]
        assert water.source == "tides.pyi"
        assert water.heading == "class TideTable > def high_water"
        assert "def high_water(self, port: str" in water.text

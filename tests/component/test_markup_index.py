"""An AsciiDoc and an Org file indexed by the daemon's own writer (the default include
patterns, the parse workers, the chunker, MiniLM, ChromaDB and tantivy), then searched:
each passage comes back under the heading path its file's titles give it."""

from __future__ import annotations

from pathlib import Path

from ragd.harness.localindex import LocalIndex

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
    folder = tmp_path / "harbour"
    folder.mkdir()
    (folder / "guide.adoc").write_text(GUIDE_ADOC)
    (folder / "tasks.org").write_text(TASKS_ORG)
    index = LocalIndex(folder, tmp_path / "data", embedder)
    try:
        search = index.retriever.search
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
    finally:
        index.close()

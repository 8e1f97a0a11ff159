"""Every document format: structure → heading paths, hostile files → one clear skip reason."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.ingest import formats
from ragd.ingest.chunking import UNTITLED, ChunkParams, chunk_document
from ragd.ingest.formats import archive
from ragd.ingest.loaders import Document, SkipFile, parse
from tests.support import formats as files
from tests.support import office
from tests.support.daemon import Daemon, wait_for


def headings(document: Document) -> list[str]:
    return [chunk.heading_path for chunk in chunk_document(document)]


def test_html_headings_become_paths_and_page_chrome_is_dropped() -> None:
    document = parse("faq.html", files.HTML)
    assert headings(document) == [
        "Harbour FAQ",
        "Harbour FAQ > Parking",
        "Harbour FAQ > Parking > Permits",
        "Harbour FAQ > Contact",
    ]
    assert "- Residents park free\n- Visitors pay at the kiosk" in document.text
    assert "alert" not in document.text and "Home" not in document.text


def test_html_encoding_is_read_as_declared_else_utf8() -> None:
    assert parse("a.htm", "<p>café – ok</p>".encode()).text == "café – ok"
    latin = "<meta charset=iso-8859-1><p>café</p>".encode("latin-1")
    assert parse("b.html", latin).text == "café"
    assert parse("c.html", "\ufeff<p>café</p>".encode("utf-16")).text == "café"


def test_rst_sections_become_paths_and_include_reads_nothing() -> None:
    document = parse("tides.rst", files.RST)
    assert headings(document) == [
        "Tide Tables",
        "Tide Tables > Spring Tides",
        "Tide Tables > Neap Tides",
    ]
    assert '```python\nprint("high water")\n```' in document.text
    assert "root:" not in document.text  # `.. include:: /etc/passwd` is not followed


def test_rst_sphinx_markup_leaves_no_docutils_messages_in_the_text() -> None:
    """Sphinx-only roles would make docutils insert its own diagnostics next to the text;
    they are not the author's words and must not be indexed. Roles show their text."""
    source = (
        b"Setup\n=====\n\n- See :ref:`install` for the quay keys.\n\n"
        b"term\n   The :ref:`berth` is booked ahead.\n\n:Owner: see :doc:`harbour`\n"
    )
    text = parse("setup.rst", source).text
    assert "See install for the quay keys." in text
    assert "The berth is booked ahead." in text
    assert "harbour" in text
    for leaked in ("No role entry", "INFO/1", 'Trying "ref"', "<string>"):
        assert leaked not in text


LOCATED_HTML = b"""<html><head><title>Locks</title>
<script>
var skipped = "three lines";
</script></head><body>
<h1
  class="wrapped">Lock keeping</h1>
<p>The upper gate opens
at <b>half tide</b> only
on weekdays.</p>
<table><tr><td>Fee</td>
<td>four pounds</td></tr></table>
<pre>
swing 1
swing 2</pre>
</body></html>"""

LOCATED_RST = """Locks
=====

The upper gate opens
at half tide only.

.. code-block:: text

   swing 1
   swing 2


* Fee: four pounds
* Permits at the office
"""


def test_html_and_rst_chunks_report_the_files_own_lines() -> None:
    def located(name: str, data: bytes) -> list[tuple[str, tuple[int, int] | None]]:
        tiny = ChunkParams(target_tokens=8, overlap_tokens=0)  # about one block a chunk
        return [(c.text[:12], c.lines) for c in chunk_document(parse(name, data), tiny)]

    # A paragraph folded onto one line keeps all its lines, even split across chunks; the
    # multi-line start tag, the script and the table row's cells are counted exactly.
    assert located("locks.html", LOCATED_HTML) == [
        ("The upper ga", (7, 9)),
        ("tide only on", (7, 9)),
        ("| Fee | four", (10, 11)),
        ("```\nswing 1\n", (13, 14)),
    ]
    # libxml2 counts lines in 16 bits: past line 65,534 a chunk names no lines, not wrong ones.
    page = b"<h2>Early</h2><p>early words</p>\n" + b"<br>\n" * 65540 + b"<h2>Late</h2><p>late</p>"
    assert [c.lines for c in chunk_document(parse("big.html", page))] == [(1, 1), None]
    # The `code-block` directive's line is past its content: counted back to the content.
    assert located("locks.rst", LOCATED_RST.encode()) == [
        ("The upper ga", (4, 5)),
        ("tide only.", (4, 5)),
        ("```text\nswin", (9, 10)),
        ("- Fee: four ", (13, 13)),  # a list longer than a chunk: cut between its items
        ("- Permits at", (14, 14)),
    ]


def test_docx_heading_styles_nest_under_the_title() -> None:
    document = parse("crew.docx", files.docx_bytes())
    assert headings(document) == [
        "Crew Handbook",
        "Crew Handbook > Muster Stations",
        "Crew Handbook > Muster Stations > Lifejackets",
    ]
    assert "- Bring your lifejacket" in document.text
    assert "| Deck | Count |\n| Upper | 120 |" in document.text


def test_notebook_markdown_and_code_cells_without_outputs() -> None:
    document = parse("fuel.ipynb", files.notebook_bytes())
    assert headings(document) == ["Fuel Analysis", "Fuel Analysis > Findings"]
    assert "```python\nfuel = load_bunkers('kestrel')\n```" in document.text
    assert "never indexed" not in document.text


def test_python_is_split_into_class_and_function() -> None:
    document = parse("tools/ballast.py", files.PYTHON)
    assert headings(document) == [
        UNTITLED,  # the module's own code; never the file name, so a rename keeps it
        "class BallastPump",
        "class BallastPump > def start",
        "class BallastPump > def stop",
        "def trim_angle",
    ]
    assert headings(parse("elsewhere/renamed.py", files.PYTHON)) == headings(document)
    # Python that does not parse, and languages without a pattern, are one section of code.
    assert headings(parse("old.py", b"print 'py2'\n")) == [UNTITLED]
    assert headings(parse("query.sql", b"select 1;\n")) == [UNTITLED]
    assert headings(parse("Main.java", b"class Main {}\n")) == ["class Main"]  # version 73


def test_other_languages_split_at_top_level_definitions() -> None:
    go = b"package main\n\n// Pump moves water.\ntype Pump struct{}\n\nfunc (p *Pump) Start() {}\n"
    document = parse("pump.go", go)
    assert headings(document) == ["package main", "type Pump", "func (p *Pump) Start"]
    assert "```go\n// Pump moves water.\ntype Pump struct{}\n```" in document.text
    ts = b"export function fare(zone) {\n  return 2;\n}\nexport const late = async (b) => b;\n"
    assert headings(parse("fares.ts", ts)) == ["export function fare", "export const late"]


def test_odt_outline_levels_become_paths() -> None:
    document = parse("galley.odt", files.odt_bytes())
    assert headings(document) == ["Galley Guide", "Galley Guide > Opening Hours"]


def test_epub_chapters_nest_under_the_book_title() -> None:
    document = parse("tales.epub", files.epub_bytes())
    assert headings(document) == ["Ferry Tales > The Crossing", "Ferry Tales > Storm Night"]
    assert "Lanterns swung" in document.text


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("broken.docx", files.docx_bytes()[:2000], "damaged Word document"),
        ("text.docx", b"plain words, not a zip", "damaged Word document"),
        ("deep.html", files.deeply_nested_html(), "nested deeper than the parser's limit"),
        ("binary.html", bytes(range(256)) * 8, "binary content"),
        ("broken.ipynb", b'{"cells": [', "damaged notebook"),
        ("broken.odt", files.odt_bytes()[:900], "damaged OpenDocument text"),
        ("broken.epub", files.epub_bytes()[:900], "damaged EPUB book"),
        ("empty.rst", b"   \n", "empty file"),
        ("blob.py", b"\x00\x01\x02" * 100, "binary content"),
    ],
)
def test_hostile_files_give_one_clear_reason(name: str, data: bytes, reason: str) -> None:
    with pytest.raises(SkipFile, match=reason) as caught:
        parse(name, data)
    assert "\n" not in str(caught.value)


def test_a_zip_declaring_too_much_is_refused_before_unpacking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(SkipFile, match=r"unpacks to .* zip bomb"):
        parse("crew.docx", files.docx_bytes())


def test_a_library_crash_becomes_a_skip_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragd.ingest.formats import rst

    def explode(name: str, data: bytes) -> Document:
        raise IndexError("list index out of range")

    monkeypatch.setattr(rst, "parse", explode)
    with pytest.raises(SkipFile, match=r"unreadable reStructuredText \(IndexError"):
        formats.convert("x.rst", b"text")


# -- through the daemon -------------------------------------------------------------------
HARBOUR_NEWS = b"""Harbour daemon NEWS

Version 3.2
===========

* Pilot boats now signal with a green lantern at dusk.

Version 3.1
===========

* The slipway winch was replaced.
"""
README_DEBIAN = b"""Notes for Debian

The quay crane settings live in /etc/harbour/crane.conf on Debian systems.
"""


# A GNU Info manual as /usr/share/info holds it: gzipped, nodes between \x1f separators,
# underlined titles, a menu and a cross reference, the tag table after the nodes.
HARBOUR_INFO = (
    b"This is harbour.info, produced by makeinfo version 6.8 from harbour.texi.\n\n"
    b"\x1f\nFile: harbour.info,  Node: Top,  Next: Mooring,  Up: (dir)\n\n"
    b"Harbour Manual\n**************\n\n"
    b"* Menu:\n\n* Mooring::            Tying up at the quay.\n\n"
    b"\x1f\nFile: harbour.info,  Node: Mooring,  Prev: Top,  Up: Top\n\n"
    b"1 Mooring\n*********\n\nMoor at the north quay.\n\n"
    b"1.1 Knots\n=========\n\n"
    b"   A cormorant hitch never slips, whatever the swell (*note Mooring::).\n\n"
    b"\x1f\nTag Table:\nNode: Top\x7f76\nNode: Mooring\x7f252\n\x1f\nEnd Tag Table\n"
)


@pytest.fixture(scope="module")
def formats_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("formats")
    root = tmp / "docs"
    root.mkdir()
    (root / "faq.html").write_bytes(files.HTML)
    (root / "tides.rst").write_bytes(files.RST)
    (root / "crew.docx").write_bytes(files.docx_bytes())
    (root / "fuel.ipynb").write_bytes(files.notebook_bytes())
    (root / "ballast.py").write_bytes(files.PYTHON)
    (root / "galley.odt").write_bytes(files.odt_bytes())
    (root / "tales.epub").write_bytes(files.epub_bytes())
    (root / "broken.docx").write_bytes(files.docx_bytes()[:2000])
    (root / "deep.html").write_bytes(files.deeply_nested_html())
    (root / "huge.ipynb").write_bytes(files.notebook_bytes("x" * 50_000_000))
    (root / "report.pptx").write_bytes(office.deck_bytes())
    (root / "berths.xlsx").write_bytes(office.workbook_bytes())
    (root / "talk.odp").write_bytes(office.impress_bytes())
    (root / "ledger.ods").write_bytes(office.calc_bytes())
    (root / "tar.1.gz").write_bytes(gzip.compress(files.TAR_MAN))
    (root / "backup.tar.gz").write_bytes(gzip.compress(files.TAR_MAN))  # not a man page
    (root / "NEWS.gz").write_bytes(gzip.compress(HARBOUR_NEWS))  # as /usr/share/doc has it
    (root / "README.Debian").write_bytes(README_DEBIAN)
    (root / "harbour.info.gz").write_bytes(gzip.compress(HARBOUR_INFO))
    # 40 MB of text in 40 KB: refused at the 20 MB text cap, never held whole.
    (root / "flood.txt.gz").write_bytes(gzip.compress(b"tide " * 8_000_000))
    for n in range(3):
        (root / f"budget-{n}.numbers").write_bytes(b"PK\x03\x04 not a format we read")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "lib.js").write_text("function vendored() {}\n")
    daemon = Daemon(tmp, [root]).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()
    shutil.rmtree(root, ignore_errors=True)


def best(daemon: Daemon, query: str) -> dict:  # type: ignore[type-arg]
    return daemon.search(query, 3, mode="bm25")["results"][0]


def test_each_format_is_searchable_under_its_heading_path(formats_daemon: Daemon) -> None:
    d = formats_daemon
    expected = {
        "quayside car park midnight": ("faq.html", "Harbour FAQ > Parking"),
        "spring tides 5.8 metres": ("tides.rst", "Tide Tables > Spring Tides"),
        "orange lifejackets saloon seat": (
            "crew.docx",
            "Crew Handbook > Muster Stations > Lifejackets",
        ),
        "consumption fell twelve percent refit": ("fuel.ipynb", "Fuel Analysis > Findings"),
        "ballast impeller priming": ("ballast.py", "class BallastPump > def start"),
        "galley porridge seven": ("galley.odt", "Galley Guide > Opening Hours"),
        "lanterns wheelhouse": ("tales.epub", "Ferry Tales > Storm Night"),
        "dredging delay slipway": ("report.pptx", "Quarterly harbour report"),
        "Vessel 150 of the fleet": ("berths.xlsx", "Berths"),
        "tide tables posted harbour office": (
            "talk.odp",
            "Tide tables are posted at the harbour office.",
        ),
        "Harbour Launch dredged": ("ledger.ods", "Berths"),
    }
    for query, (source, heading) in expected.items():
        hit = best(d, query)
        assert (hit["source"], hit["heading"]) == (source, heading), query


def test_code_and_notebook_hits_say_where_they_are(formats_daemon: Daemon) -> None:
    d = formats_daemon
    code = best(d, "ballast impeller priming")
    first, last = code["lines"]
    lines = files.PYTHON.decode().split("\n")[first - 1 : last]
    assert lines[0] == "    def start(self):" and "priming the ballast impeller" in lines[-1]
    assert code["text"].count("\n") == last - first + 2  # the listing plus its two fences
    notebook = best(d, "consumption fell twelve percent refit")
    assert notebook["cells"] == [3, 3] and notebook["lines"] is None
    cell = json.loads(files.notebook_bytes())["cells"][notebook["cells"][0] - 1]
    assert "twelve percent" in "".join(cell["source"])
    assert "twelve percent" in notebook["text"]
    printed = d.rag("search", "consumption fell twelve percent refit", "--mode", "bm25").stdout
    assert "1. fuel.ipynb (cell 3) — Fuel Analysis > Findings" in printed
    html = best(d, "quayside car park midnight")  # converted formats: the file's own lines
    assert html["lines"] == [4, 4] and "quayside" in files.HTML.decode().split("\n")[3]
    slide = best(d, "dredging delay slipway")
    assert slide["slides"] == [1, 1] and slide["lines"] is None
    printed = d.rag("search", "mooring fees schooner", "--mode", "bm25").stdout
    assert "1. report.pptx (slide 2) — Mooring fees" in printed
    sheet = best(d, "Vessel 150 of the fleet")
    first, last = sheet["rows"]
    assert first <= 151 <= last and sheet["text"].startswith("| Berth | Vessel | Length (m) |")
    printed = d.rag("search", "Vessel 150 of the fleet", "--mode", "bm25").stdout
    assert f"1. berths.xlsx (rows {first}–{last}) — Berths" in printed
    assert best(d, "tide tables posted harbour office")["slides"] == [4, 4]
    assert best(d, "Harbour Launch dredged")["rows"] == [1, 7]
    rst = best(d, "spring tides 5.8 metres")
    assert rst["lines"] == [9, 15]  # the paragraph at line 9 to the last line of its code
    assert files.RST.decode().split("\n")[8].startswith("Spring tides at Brannock")


def test_skips_are_explained_and_unsupported_types_counted(formats_daemon: Daemon) -> None:
    status = formats_daemon.status()
    reasons = {e["source"]: e["reason"] for e in status["errors"]}
    assert reasons["broken.docx"].startswith("damaged Word document")
    assert "nested deeper than the parser's limit" in reasons["deep.html"]
    assert reasons["huge.ipynb"].startswith("too large")
    assert reasons["flood.txt.gz"] == "gzipped file expands past the 20 MB max_text_mb cap"
    assert status["files"] == 15 and len(reasons) == 4
    # node_modules/lib.js is not even seen; an archive (`.tar.gz`) is not read.
    assert status["skipped_types"] == {".numbers": 3, ".gz": 1}
    out = formats_daemon.rag("status")
    assert "skipped    3 .numbers, 1 .gz (file types not indexed; see `include`)" in out.stdout
    # `rag ingest`'s summary counted only the files with errors: it names these too.
    assert status["roots"][0]["skipped_types"] == status["skipped_types"]
    out = formats_daemon.rag("ingest", str(formats_daemon.roots[0]))
    assert out.returncode == 0, out.stderr
    summary = next(line for line in out.stderr.splitlines() if line.startswith("indexed "))
    assert summary.endswith("(4 skipped; 4 files of types not indexed: .numbers, .gz)"), summary
    (formats_daemon.roots[0] / "budget-0.numbers").unlink()  # its delete event drops it
    wait_for(
        lambda: formats_daemon.status()["skipped_types"] == {".numbers": 2, ".gz": 1},
        30,
        "the deleted file to leave the skipped types",
    )


def test_a_gzipped_man_page_is_cited_by_option_under_its_section(
    formats_daemon: Daemon,
) -> None:
    """A `tar.1.gz` in a root is read as man(1) reads it: the option's description finds
    its item, cited under the page's title and its section, at the lines of the page."""
    out = formats_daemon.rag("search", "barnacle logs twice as tight", "--json", "--mode", "bm25")
    hit = json.loads(out.stdout)["results"][0]
    assert hit["source"] == "tar.1.gz"
    assert hit["heading"] == "tar(1) > OPTIONS > Compression options"
    assert "- --zstd — Filter the archive through the zstandard compressor" in hit["text"]
    first, last = hit["lines"]
    page = files.TAR_MAN.decode().split("\n")
    assert "barnacle logs" in "\n".join(page[first - 1 : last])


def test_documentation_names_and_gzipped_documents_are_cited_as_on_disk(
    formats_daemon: Daemon,
) -> None:
    """`NEWS.gz` is read as the text inside it, its underlined releases heading its
    sections, and cited under its own name at the lines `zcat` shows; `README.Debian`
    (no suffix of ours) is plain text."""
    news = best(formats_daemon, "pilot boats green lantern dusk")
    assert (news["source"], news["heading"]) == ("NEWS.gz", "Version 3.2")
    first, last = news["lines"]
    assert "green lantern" in "\n".join(HARBOUR_NEWS.decode().split("\n")[first - 1 : last])
    printed = formats_daemon.rag("search", "pilot boats green lantern", "--mode", "bm25").stdout
    assert "1. NEWS.gz" in printed
    readme = best(formats_daemon, "quay crane settings")
    assert readme["source"] == "README.Debian" and "/etc/harbour/crane.conf" in readme["text"]


def test_a_gzipped_info_manual_is_cited_under_its_heading_path(formats_daemon: Daemon) -> None:
    """`harbour.info.gz` is read as an Info reader shows it: the section's text under the
    manual's name and its underlined titles, the reference as its words, at the lines
    `zcat` shows."""
    hit = best(formats_daemon, "cormorant hitch never slips")
    assert hit["source"] == "harbour.info.gz"
    assert hit["heading"] == "harbour > Mooring > Knots"
    assert "(see Mooring)" in hit["text"] and "*note" not in hit["text"]
    first, last = hit["lines"]
    page = HARBOUR_INFO.decode().split("\n")
    assert "cormorant hitch" in "\n".join(page[first - 1 : last])


def test_formats_package_has_one_module_per_format() -> None:
    from ragd.ingest.loaders import FORMAT_MODULES

    package = Path(formats.__file__).parent
    for module in set(FORMAT_MODULES.values()) | {"code", formats.module_name("tar.1.gz"), "info"}:
        assert (package / f"{module}.py").exists(), module

"""DocBook and Mallard (`ingest/formats/docbook.py`, `mallard.py`, `xml_confined.py`,
`xml_blocks.py`): small books, chapters and pages written here after GnuCash's guide and
GNOME's help, read through the loader as the parse worker reads them (with the file's
folder), and chunked to see the heading paths a citation would carry; then the files that
must not leak another file, fetch anything or stop the reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragd.core.config import DOCUMENT_PATTERNS
from ragd.core.no_text import is_no_text
from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import Document, SkipFile
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse


def read(folder: Path, name: str, source: str) -> Document:
    path = folder / name
    path.write_text(source, encoding="utf-8")
    return parse(name, path.read_bytes(), folder=str(folder))


def paths(document: Document) -> list[str]:
    return [chunk.heading_path for chunk in chunk_document(document)]


BOOK = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE book PUBLIC "-//OASIS//DTD DocBook XML V4.5//EN"
  "http://www.oasis-open.org/docbook/xml/4.5/docbookx.dtd" [
  <!ENTITY app "<application>Harbourmaster</application>">
  <!ENTITY chapter1 SYSTEM "chapter1.xml">
]>
<book>
  <bookinfo><title>&app; Guide</title><titleabbrev>HG</titleabbrev></bookinfo>
  <!-- a comment is not text -->
  &chapter1;
  <chapter id="moorings">
    <title>Moorings</title>
    <para>Every berth of &app; has a bollard<indexterm><primary>secret
      index words</primary></indexterm>.<remark>Editor: check this</remark></para>
    <sect1 id="tides"><title>Tides &ndash; and berths</title>
      <itemizedlist><listitem><para>Spring tides need longer lines.</para></listitem>
        <listitem><para>Neap tides need shorter ones.</para></listitem></itemizedlist>
      <variablelist><varlistentry><term>Bollard</term>
        <listitem><para>A post the lines are tied to.</para></listitem></varlistentry>
      </variablelist>
      <informaltable><tgroup cols="2"><thead><row><entry>Berth</entry><entry>Depth</entry>
        </row></thead><tbody><row><entry>North quay</entry><entry><para>7 m</para></entry>
        </row></tbody></tgroup></informaltable>
      <programlisting language="sh">moor --berth 4
  --lines 6</programlisting>
      <warning><para>Never moor across the fairway.</para></warning>
      <para>Choose <menuchoice><guimenu>Berth</guimenu><guimenuitem>Assign</guimenuitem>
        </menuchoice>, see <xref linkend="moorings"/> and <xref linkend="elsewhere"/>, or
        ask <ulink url="mailto:harbour@example.org">the office</ulink> or read
        <ulink url="https://example.org/tides">the tide tables</ulink>.</para>
      <figure><title>The quay at dawn</title><mediaobject><imageobject>
        <imagedata fileref="quay.png"/></imageobject><textobject><phrase>Boats moored
        along the north quay</phrase></textobject></mediaobject></figure>
    </sect1>
  </chapter>
  <glossary><glossentry><glossterm>Fairway</glossterm><glossdef><para>The channel
    ships sail along.</para></glossdef></glossentry></glossary>
</book>
"""


def test_a_book_reads_as_headings_and_text(tmp_path: Path) -> None:
    document = read(tmp_path, "index.docbook", BOOK)
    text = document.text
    assert "# Harbourmaster Guide" in text  # the entity of the internal subset, expanded
    headed = paths(document)
    assert "Harbourmaster Guide > Moorings" in headed
    assert "Harbourmaster Guide > Moorings > Tides – and berths" in headed  # &ndash;, no DTD
    assert "Every berth of Harbourmaster has a bollard." in text
    assert "- Spring tides need longer lines.\n- Neap tides need shorter ones." in text
    assert "Bollard: A post the lines are tied to." in text
    assert "| Berth | Depth |\n| North quay | 7 m |" in text
    assert "```sh\nmoor --berth 4\n  --lines 6\n```" in text
    assert "Warning: Never moor across the fairway." in text
    assert "Choose Berth > Assign, see Moorings and elsewhere" in text
    assert "the office (harbour@example.org)" in text
    assert "the tide tables (https://example.org/tides)" in text
    assert "The quay at dawn" in text and "Boats moored along the north quay" in text
    assert "Fairway: The channel ships sail along." in text
    assert "Harbourmaster Guide > Glossary" in paths(document)
    for hidden in ("comment", "secret", "Editor", "HG", "quay.png"):
        assert hidden not in text


def test_the_chapters_a_book_declares_are_not_read_into_it(tmp_path: Path) -> None:
    """Each chapter is indexed from its own file, once: `&chapter1;` stays out of the book."""
    (tmp_path / "chapter1.xml").write_text(
        "<chapter><title>Buoys</title><para>Red to port.</para></chapter>"
    )
    document = read(tmp_path, "index.docbook", BOOK)
    assert "Buoys" not in document.text and "Red to port" not in document.text


def test_a_chapter_takes_its_entities_from_the_dtd_beside_it(tmp_path: Path) -> None:
    (tmp_path / "local.dtd").write_text(
        '<!ENTITY % more SYSTEM "more.dtd">\n%more;\n'
        '<!ENTITY app "<application>&appname;</application>">\n'
    )
    (tmp_path / "more.dtd").write_text('<!ENTITY appname "GnuCash">\n')
    chapter = """<?xml version="1.0"?>
<!DOCTYPE chapter SYSTEM "local.dtd">
<chapter id="basics"><title>&app; Basics</title>
  <para>Start &app; from the menu.</para>
  <section><title>Accounts</title><para>&appname; keeps accounts.</para></section>
</chapter>"""
    document = read(tmp_path, "ch_basics.xml", chapter)
    assert paths(document) == ["GnuCash Basics", "GnuCash Basics > Accounts"]
    assert "Start GnuCash from the menu." in document.text
    assert "GnuCash keeps accounts." in document.text


def test_a_chapter_without_a_doctype_borrows_its_books(tmp_path: Path) -> None:
    (tmp_path / "index.docbook").write_text(BOOK)
    chapter = (
        "<?xml version='1.0'?>\n<chapter><title>Buoys</title>\n"
        "<para>&app; lists buoys.</para></chapter>\n"
    )
    document = read(tmp_path, "chapter1.xml", chapter)
    assert "Harbourmaster lists buoys." in document.text
    assert document.origins[document.text.split("\n").index("Harbourmaster lists buoys.")] == 3


def test_an_entity_declared_nowhere_is_left_out_and_the_file_read(tmp_path: Path) -> None:
    document = read(
        tmp_path, "ch.xml", "<chapter><title>T</title><para>Use &nowhere; daily.</para></chapter>"
    )
    assert "Use daily." in document.text
    assert any("&nowhere;" in note for note in document.notes)


@pytest.mark.parametrize(
    "declaration",
    [
        '<!ENTITY x SYSTEM "{secret}">',  # an absolute path
        '<!ENTITY x SYSTEM "../outside/secret.txt">',  # up out of the folder
        '<!ENTITY x SYSTEM "file://{secret}">',
        '<!ENTITY % x SYSTEM "{secret}"> <!ENTITY y "%x;">',  # a parameter entity
        '<!ENTITY x SYSTEM "link.txt">',  # a link beside the file, to the secret
    ],
)
def test_nothing_outside_the_folder_is_read(tmp_path: Path, declaration: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("TOPSECRETWORD")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "link.txt").symlink_to(secret)
    source = (
        f"<?xml version='1.0'?>\n<!DOCTYPE chapter [ {declaration.format(secret=secret)} ]>\n"
        "<chapter><title>Leak</title><para>Before &x; after.</para></chapter>\n"
    )
    document = read(folder, "leak.xml", source)
    assert "TOPSECRETWORD" not in document.text
    assert "Before" in document.text


@pytest.mark.parametrize(
    ("dtd", "include"),
    [
        ('<!ENTITY % e SYSTEM ".env"> <!ENTITY leak "%e;">', ""),  # a hidden file
        ('<!ENTITY % e SYSTEM "secret.txt"> <!ENTITY leak "%e;">', ""),  # no DTD
        ('<!ENTITY leak "none">', '<xi:include href=".private.xml"/>'),  # a hidden fragment
    ],
)
def test_a_file_beside_is_read_only_as_what_it_is_and_never_hidden(
    tmp_path: Path, dtd: str, include: str
) -> None:
    """attack48: a DTD beside the file, named by its DOCTYPE, read `.env` (or a gitignored
    `secret.txt`) through a parameter entity, and answers quoted the API key in it."""
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=SECRETWORDENV\n")
    (tmp_path / "secret.txt").write_text("SECRETWORDTXT\n")
    (tmp_path / ".private.xml").write_text("<para>SECRETWORDXML</para>")
    (tmp_path / "evil.dtd").write_text(dtd)
    source = (
        "<?xml version='1.0'?>\n<!DOCTYPE article SYSTEM \"evil.dtd\">\n"
        '<article xmlns:xi="http://www.w3.org/2001/XInclude"><title>Deployment</title>'
        f"<section><title>Settings</title><para>Settings: &leak; done.</para>{include}"
        "</section></article>\n"
    )
    document = read(tmp_path, "notes.xml", source)
    assert "SECRETWORD" not in document.text
    assert "Settings:" in document.text and "done." in document.text


def test_a_billion_laughs_is_one_clear_line(tmp_path: Path) -> None:
    levels = ['<!ENTITY l0 "lol">'] + [
        f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, 10)
    ]
    body = "<chapter><title>x</title><para>&l9;</para></chapter>"
    source = f"<!DOCTYPE chapter [{''.join(levels)}]>\n{body}"
    with pytest.raises(SkipFile, match="beyond the XML parser's limits"):
        read(tmp_path, "lol.xml", source)


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("pom.xml", '<project xmlns="http://maven.apache.org/POM/4.0.0"><name>x</name></project>'),
        ("settings.xml", "<?xml version='1.0'?><!-- c --><settings><para>x</para></settings>"),
        ("image.xml", '<svg xmlns="http://www.w3.org/2000/svg"><text>x</text></svg>'),
        ("ns.xml", '<book xmlns="urn:not-docbook"><title>x</title></book>'),
    ],
)
def test_xml_that_is_not_docbook_is_skipped_quietly(tmp_path: Path, name: str, source: str) -> None:
    with pytest.raises(SkipFile) as skipped:
        read(tmp_path, name, source)
    assert is_no_text(str(skipped.value)), skipped.value  # `rag status`: not an error


def test_a_fragment_a_chapter_includes_is_read_in_place(tmp_path: Path) -> None:
    (tmp_path / "codes.xml").write_text("<para>Tax code 521 covers moorings.</para>")
    (tmp_path / "other.xml").write_text(
        "<chapter><title>Other</title><para>Elsewhere.</para></chapter>"
    )
    chapter = """<chapter xmlns:xi="http://www.w3.org/2001/XInclude"><title>Taxes</title>
<xi:include href="codes.xml"/><xi:include href="other.xml"/></chapter>"""
    document = read(tmp_path, "taxes.xml", chapter)
    assert "Tax code 521 covers moorings." in document.text
    assert "Elsewhere" not in document.text


def test_a_cross_reference_to_another_chapter_shows_its_title(tmp_path: Path) -> None:
    """GnuCash's guide: `<xref linkend="chapter_txns"/>` in ch_basics.xml showed
    "chapter_txns"; the chapter beside it holds that id, and its title is what the built
    manual shows. A sibling that is a link is not followed (confined as DTDs are)."""
    (tmp_path / "app.dtd").write_text('<!ENTITY app "GnuCash">\n')
    (tmp_path / "ch_txns.xml").write_text(
        '<!DOCTYPE chapter SYSTEM "app.dtd">\n<chapter id="chapter_txns">'
        "<title>&app; Transactions</title><sect1 id='txn-split'>"
        "<title id='split-title'>Splits</title><para>A split.</para></sect1></chapter>"
    )
    (tmp_path / "pom.xml").write_text('<project><name id="txn-elsewhere">No</name></project>')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.xml").write_text('<chapter id="hidden"><title>Secret</title></chapter>')
    (tmp_path / "ch_link.xml").symlink_to(outside / "secret.xml")
    chapter = """<chapter id="chapter_basics"><title>Basics</title>
<para>See <xref linkend="chapter_txns"/>, <xref linkend="txn-split"/>,
<xref linkend="nowhere" endterm="split-title"/>, <xref linkend="hidden"/> and
<xref linkend="txn-elsewhere"/>.</para></chapter>"""
    text = read(tmp_path, "ch_basics.xml", chapter).text
    assert "See GnuCash Transactions, Splits, Splits, hidden and txn-elsewhere." in text


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_a_utf16_chapter_reads_as_a_utf8_one(tmp_path: Path, encoding: str) -> None:
    """A chapter saved as UTF-16 (a BOM, or none: `<?` in two bytes) was "XML (root
    < ? x m l >) is not a document": the prolog scan read its bytes as ASCII. Its text,
    entities, DTD and line numbers are now the UTF-8 file's."""
    (tmp_path / "app.dtd").write_text('<!ENTITY app "Harbourmaster">\n')
    source = (
        f'<?xml version="1.0" encoding="{encoding.upper()}"?>\n'
        '<!DOCTYPE chapter SYSTEM "app.dtd">\n<chapter id="tides"><title>Tides</title>\n'
        "<para>Spring tides in &app; need longer lines — café.</para></chapter>\n"
    )
    (tmp_path / "tides.xml").write_bytes(source.encode(encoding))
    document = parse("tides.xml", (tmp_path / "tides.xml").read_bytes(), folder=str(tmp_path))
    line = "Spring tides in Harbourmaster need longer lines — café."
    assert document.text == f"# Tides\n\n{line}"
    assert document.origins[document.text.split("\n").index(line)] == 4
    page = '<page xmlns="http://projectmallard.org/1.0/"><title>Café</title><p>Moor.</p></page>'
    bom = "\ufeff" if encoding.endswith("-be") else ""  # the others' codecs write one
    (tmp_path / "p.page").write_bytes((bom + page).encode(encoding))
    assert parse("p.page", (tmp_path / "p.page").read_bytes()).text == "# Café\n\nMoor."


@pytest.mark.parametrize("declared", ["UTF-16", "utf-32"])
def test_a_utf8_file_declaring_a_wide_encoding_reads_as_utf8(tmp_path: Path, declared: str) -> None:
    """A chapter or page whose declaration names UTF-16 but whose bytes open with `<?xml`
    in ASCII (a header copied from another file) is UTF-8, as the bytes show: libxml2
    took the declaration's word and the file was skipped as "not well-formed XML at line
    1 (Blank needed here)"."""
    source = (
        f'<?xml version="1.0" encoding="{declared}"?>\n'
        '<chapter id="tides"><title>Tides</title><para>Spring tides — café.</para></chapter>\n'
    )
    assert read(tmp_path, "tides.xml", source).text == "# Tides\n\nSpring tides — café."
    page = (
        f"<?xml version='1.0' encoding='{declared}'?>\n"
        '<page xmlns="http://projectmallard.org/1.0/"><title>Café</title><p>Moor.</p></page>'
    )
    assert read(tmp_path, "p.page", page).text == "# Café\n\nMoor."


def test_docbook_5_reads_its_info_title(tmp_path: Path) -> None:
    source = """<article xmlns="http://docbook.org/ns/docbook" version="5.0">
<info><title>Knots</title></info><section><info><title>Bowline</title></info>
<para>A fixed loop.</para></section></article>"""
    assert paths(read(tmp_path, "knots.xml", source)) == ["Knots > Bowline"]


PAGE = """<page xmlns="http://projectmallard.org/1.0/" id="bounce">
  <info>
    <link type="guide" xref="a11y"/>
    <credit type="author"><name>Shaun</name></credit>
    <desc>Ignore quickly-repeated key presses.</desc>
  </info>
  <title>Turn on bounce keys</title>
  <p>Turn on <em>bounce keys</em> in <guiseq><gui>Settings</gui><gui>Typing</gui></guiseq>.</p>
  <steps><item><p>Open the panel.</p></item>
    <item><p>Press <keyseq><key>Ctrl</key><key>B</key></keyseq>.</p></item></steps>
  <note style="tip"><title>Quickly</title><p>Use the icon.</p></note>
  <comment><p>Editors: reword this.</p></comment>
  <section id="delay"><title>Delay</title>
    <terms><item><title>Acceptance delay</title><p>How long to wait.</p></item></terms>
    <table><tr><td><p>Short</p></td><td><p>0.5 s</p></td></tr></table>
    <code>gsettings set bounce true</code>
    <p>See <link xref="#delay"/>.</p>
  </section>
</page>"""


def test_a_mallard_page(tmp_path: Path) -> None:
    document = read(tmp_path, "bounce.page", PAGE)
    text = document.text
    assert paths(document)[0] == "Turn on bounce keys"
    assert "Turn on bounce keys > Delay" in paths(document)
    assert text.split("\n\n")[1] == "Ignore quickly-repeated key presses."
    assert "Turn on bounce keys in Settings > Typing." in text
    assert "1. Open the panel.\n2. Press Ctrl+B." in text
    assert "Tip (Quickly): Use the icon." in text
    assert "Acceptance delay: How long to wait." in text
    assert "| Short | 0.5 s |" in text
    assert "```\ngsettings set bounce true\n```" in text
    assert "See Delay." in text
    for hidden in ("Shaun", "Editors", "a11y"):
        assert hidden not in text


def test_a_mallard_key_sequence_keeps_its_keys_written_as_text(tmp_path: Path) -> None:
    """Mallard lets a `keyseq` or `guiseq` hold bare text as well as `key` and `gui`
    elements, and Yelp shows each such text as one more step: evince 43's SyncTeX page
    says "press <keyseq><key>Ctrl</key>left click</keyseq>", which had been read as
    "press Ctrl", and the keyless answer quoted that instruction (newuser59)."""
    source = """<page xmlns="http://projectmallard.org/1.0/" id="sync"><title>Sync</title>
  <p>Press <keyseq><key>Ctrl</key>left click</keyseq> in the viewer.</p>
  <p>Open <guiseq><gui>Edit</gui> Preferences <!-- note --> </guiseq> now.</p>
  <p>Or <keyseq>
    <key>Ctrl</key>
    <key>Q</key>
  </keyseq>.</p>
</page>"""
    text = read(tmp_path, "sync.page", source).text
    assert "Press Ctrl+left click in the viewer." in text
    assert "Open Edit > Preferences now." in text
    assert "Or Ctrl+Q." in text


CONDITIONAL_PAGE = """<page xmlns="http://projectmallard.org/1.0/"
  xmlns:if="http://projectmallard.org/if/1.0/" id="shell-exit">
  <title>Log out</title>
  <if:choose>
    <if:when test="platform:gnome-classic"><p>Click the menu at the top left.</p></if:when>
    <if:when test="platform:ubuntu, platform:unity"><p>Click the gear.</p></if:when>
    <if:else><p>Click the system menu at the top right.</p></if:else>
    <p>A stray paragraph Yelp never shows.</p>
  </if:choose>
  <note if:test="!platform:gnome-classic"><p>Switch User shows with two users.</p></note>
  <steps><item if:test="!target:mobile"><p>Open the menu.</p></item>
    <item><p>Press <if:if test="platform:gnome-classic">the red</if:if> Log Out.</p></item>
  </steps>
  <table><tr><td><p if:test="!platform:gnome-classic">Super</p>
    <p if:test="platform:gnome-classic">Ctrl+Alt</p></td><td><p>Overview</p></td></tr></table>
  <if:choose>
    <if:when test="!target:mobile"><p>Shown on every desktop.</p></if:when>
    <if:else><p>Only on a phone.</p></if:else>
  </if:choose>
</page>"""


def test_a_mallard_pages_branches_are_each_under_their_condition(tmp_path: Path) -> None:
    """gnome-help's shell-exit.page: every `if:when` and the `if:else` were read as one
    text, so the page said where the menu is three contradictory ways. Each branch is now
    led by its condition (what the viewer's platform picks); tokens about the viewer
    (`target:`) are not conditions a reader has; what Yelp never shows is not text."""
    text = read(tmp_path, "shell-exit.page", CONDITIONAL_PAGE).text
    assert "If gnome-classic: Click the menu at the top left." in text
    assert "If ubuntu or unity: Click the gear." in text
    assert "Otherwise: Click the system menu at the top right." in text
    assert "If not gnome-classic: Note: Switch User shows with two users." in text
    assert "1. Open the menu.\n2. Press (If gnome-classic: the red) Log Out." in text
    assert "| (If not gnome-classic: Super) (If gnome-classic: Ctrl+Alt) | Overview |" in text
    assert "\n\nShown on every desktop." in text
    assert "stray" not in text and "phone" not in text


def test_the_desktop_manuals_are_included_by_default() -> None:
    included = PathFilter(DOCUMENT_PATTERNS)
    for name in ("index.docbook", "ch_basics.xml", "a11y-bouncekeys.page"):
        assert included.includes(name), name


def test_each_sibling_is_parsed_once_for_the_whole_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every chapter misses a reference, so each looks at all its siblings: they were all
    parsed again for each chapter (the square of the folder: 52 CPU s for 200 chapters of
    190 KB). Each sibling's ids are now learnt once per version of its bytes, in the parse
    worker (`sibling_index`); an id written with a character reference is still found,
    and a sibling rewritten at once with a title of the same length is read again."""
    from ragd.ingest.formats import docbook, xml_confined

    parses: dict[bytes, int] = {}

    def counted(data: bytes, *args: object, **kwargs: object) -> object:
        key = next((line for line in data.splitlines() if b"<chapter" in line), data)
        parses[key] = parses.get(key, 0) + 1
        return xml_confined.parse_confined(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(docbook, "parse_confined", counted)
    names = [f"ch{n}.xml" for n in range(6)]
    for n, name in enumerate(names):
        (tmp_path / name).write_text(
            f'<chapter id="ch&#95;{n}">\n<title>Chapter {n}</title><para>See <xref '
            f'linkend="ch_{(n + 1) % 6}"/> and <xref linkend="nowhere"/>.</para></chapter>'
        )

    def text(name: str) -> str:
        return parse(name, (tmp_path / name).read_bytes(), folder=str(tmp_path)).text

    for n, name in enumerate(names):
        assert f"See Chapter {(n + 1) % 6} and nowhere." in text(name)
    assert sorted(parses.values()) == [2] * 6  # once as itself, once as a sibling
    retitled = (tmp_path / "ch1.xml").read_text().replace("Chapter", "Section")
    (tmp_path / "ch1.xml").write_text(retitled)  # the same length, in the same clock tick
    assert "See Section 1 and nowhere." in text("ch0.xml")


def test_an_empty_mallard_link_shows_the_other_pages_title(tmp_path: Path) -> None:
    """gnome-help: 513 of its 519 empty `<link xref>`s name another page, and showed that
    page's id ("See shell-exit"); Yelp shows the page's link title, else its title, and a
    section's title for `page#section`."""
    ns = 'xmlns="http://projectmallard.org/1.0/"'
    (tmp_path / "b.page").write_text(
        f'<page {ns} id="b"><info><title type="link">Bee</title><title type="link" '
        'role="trail">Trail</title></info><title>Page B</title>'
        '<section id="sec"><title>Its section</title><p>y</p></section></page>'
    )
    (tmp_path / "c.page").write_text(f'<page {ns} id="c"><title>Page <em>C</em></title></page>')
    page = (
        f'<page {ns} id="a"><title>A</title><p>See <link xref="b"/>, <link xref="b#sec"/>, '
        '<link xref="c"/>, <link xref="gone"/> and <link xref="#here"/>.</p>'
        '<section id="here"><title>Here</title><p>x</p></section></page>'
    )
    assert "See Bee, Its section, Page C, gone and Here." in read(tmp_path, "a.page", page).text


def _titles_referring_on(count: int, references: int) -> str:
    """An article whose section i's title refers `references` times to section i + 1."""
    sections = "".join(
        f'<section id="s{i}"><title>Tide {i}'
        + f' <xref linkend="s{i + 1}"/>' * references
        + f"</title><para>Slack water {i}.</para></section>"
        for i in range(count)
    )
    return f'<?xml version="1.0"?>\n<article><title>Tides</title>{sections}</article>\n'


def test_titles_that_refer_on_to_other_titles_are_read_in_linear_time(tmp_path: Path) -> None:
    """A title shows the title of a section it refers to, and that title's references
    were shown in turn, without bound: titles each referring twice to the next doubled
    the text at every level (1.7 KB over 16 sections took 1.3 s and came out 277
    chunks; 30 sections would never end), and a chain of 200 (16 KB) was skipped as
    "DocBook nested too deeply to read", though no element nests three deep. A
    reference inside a title shown for another shows that title's own words only."""
    doubled = read(tmp_path, "doubled.docbook", _titles_referring_on(18, 2))
    assert len(doubled.text) < 10_000
    # s0's heading shows s1's title, whose references show s2's own words
    assert "## Tide 0 Tide 1 Tide 2 Tide 2 Tide 1 Tide 2 Tide 2\n" in doubled.text
    chained = read(tmp_path, "chained.docbook", _titles_referring_on(400, 1))
    assert "Slack water 399." in chained.text
    assert "## Tide 398 Tide 399 s400\n" in chained.text
    sections = "".join(
        f'<section id="s{i}"><title>Tide {i} <link xref="tides#s{i + 1}"/></title>'
        f"<p>Slack water {i}.</p></section>"
        for i in range(400)
    )
    page = read(
        tmp_path,
        "tides.page",
        '<?xml version="1.0"?>\n<page xmlns="http://projectmallard.org/1.0/" id="tides">'
        f"<title>Tides</title>{sections}</page>\n",
    )
    assert "Slack water 399." in page.text

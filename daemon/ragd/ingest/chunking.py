"""Documents → chunks along headings, each with its place in the file (pure).

1. Split into *sections*: every chunk belongs to exactly one heading path
   (``H1 > H2 > H3``). Text before the first heading belongs to the document title.
   Plain text's headings are read from its layout (`text_headings`).
2. Split each section into *blocks*: paragraphs, fenced code (atomic — a ``#`` inside a
   fence is code, not a heading), tables and lists stay whole.
3. *Pack* blocks into chunks of at most `target_tokens` (estimated as chars/4), cutting at
   the limit or at a content-defined anchor once a chunk is half full. A new chunk in the
   same section starts with ≈ `overlap_tokens` of whole trailing paragraphs from the
   previous one. A paragraph larger than a chunk is split at sentence boundaries, or,
   when it holds a bulleted list (a man page's `.TP` options), between its items.

Packing is per section, so an edit can only move chunk boundaries inside its own section:
the rest of the file keeps its chunk ids and needs no new embeddings.

Every block remembers the lines it came from, so every chunk knows its *location*: the
1-based line range it spans in the file (Markdown, plain text, source code, HTML, reST), its page
(PDF) or its cells (notebooks). A location is not part of a chunk's identity or of what
is embedded: an edit above a chunk moves its lines, and the new lines are stored when the
file is re-indexed while its embeddings come from the cache.

A document without any heading (plain text, a PDF, Markdown or a converted file with
none) is not headed by its file name — that would change every embedded window, and so
every embedding, when the file is renamed or moved. It is headed by its own first line
when that line reads as a title (`content_title`), else by the neutral `UNTITLED`. Both
come from the content alone, so a rename re-embeds nothing.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from typing import NamedTuple

from ragd.ingest.document import UNPLACED, Document, split_lines
from ragd.ingest.pdf_outline import outlined_pages
from ragd.ingest.section_budget import Section, bounded_sections, over_budget
from ragd.ingest.text_headings import text_sections

# 2: content-defined cut points; 3: overlap is not embedded twice; 4: one block per window
# 5: heading-less documents headed by their content, not their file name; locations
# 6: Sphinx directives and roles, MyST, slides, sheets and scans read (formats/, ocr)
# 7: reST numbered lists keep their numbers, tables their titles, misplaced section
#    titles their words; Sphinx file-wide settings (`:orphan:`) are not text
# 8: Python code between two definitions is its own section, named by what it assigns
# 9: plain text's underlined titles and man-page section names are headings
# 10: ... ranked by which style heads which, a title with nothing under it kept as its text;
#     capitals naming a file or code and a table's header row are not headings; only a man
#     page's banner heads its sections
# 11: HTML navigation (ARIA navigation/search roles) and heading permalinks are not text
# 12: a Markdown heading with nothing under it and no section inside it is its own text;
#     Markdown's underlined (setext) headings are headings (ingest.setext); a ~~~ line
#     inside a ``` fence does not close it when looking for the title
# 13: such a heading's text holds its whole title (its heading path is cut at
#     HEADING_MAX_CHARS); a line longer than that over a --- or === stays text, and so
#     does YAML front matter with blank lines in it
# 14: only a bare fence line as long as the opening one closes a fence (an example's
#     ``` inside a ```` fence is code)
# 15: a ``` line whose info string holds a backtick opens no fence (it is inline code:
#     "```` ```{r} ```` stays …"), which under 14 made the rest of its file code
# 16: a fence inside a list item is a fence (indented up to three past the item's content
#     column, or on its marker line: `Fences`), kept whole and never carried as overlap
# 17: more than LONE_STUBS headings in a row with nothing under them are one section of
#     titles, one a line in blocks of ≈ a quarter chunk (`_bare_headings`), not a chunk
#     (and an embedding) per heading
# 18: HTML tables of contents and DocBook's Prev/Next bars are not text, a nested HTML
#     list keeps its nesting, an HTML page of headings alone has no text
# 19: a file with more sections than its size allows (79 KB of `# a` over one word made
#     8,000 chunks) has its runs of small sections merged (ingest.section_budget)
# 20: a fence left open in a list item ends with the item (a line left of its content
#     column), not at the end of the file; HTML lists nested past MAX_LIST_NESTING stop
#     indenting
# 21: text above the first of several level-1 headings (a change log's first release)
#     is no longer filed under that heading
# 22: plain text's release lines ("CHANGES FROM 2.8 TO 2.9", a Debian changelog's
#     "pkg (1.2-3) unstable; urgency=medium") are headings (ingest/text_headings.py)
# 23: ... when they stand for two releases or more: a paged man page's running footer
#     ("GNU grep 3.8  2019-12-29  4"), an entry written twice, is not
# 24: an oversized paragraph holding a bulleted list (a man page's `.TP` options, one a
#     line) is cut between its items, each kept on its own line, not at full stops with
#     the items joined by spaces
# 25: what an HTML page marks `nosearch` is not text (SQLite's banner, menu and search box,
#     a chunk on each of its 766 pages)
# 26: an HTML list of links is a table of contents by its shape only when each link leads
#     to an anchor the page holds: SQLite's cli.html's -D options, links into compile.html,
#     were dropped as one
# 27: the words an inline HTML <svg> shows (its <text>) are a paragraph: SQLite's railroad
#     diagrams, each statement's keywords, were left out with the drawing
# 28: an HTML heading ends at the first block after its words: SQLite's
#     `<h2>Keyword Index</h1>` held the rest of its page, cut to one 80-character heading
#     (keyword_index.html's keywords, doclist.html "no text")
# 29: a `mailto:` link's address follows its text in HTML, EPUB and reST ("email
#     (security@…)"), where only "email" was kept; a NUL past a text file's first 8 KiB
#     is dropped (it was `\x00` inside a chunk)
# 30: a button, script or other skipped element inside an HTML heading or `pre` is not
#     its text (rustdoc's "Copy item path" headed every chunk of its item pages), nor a
#     wordless `a.anchor` permalink (rustdoc's "§")
# 31: an OpenDocument list item's or table cell's paragraphs are apart, and a list in an
#     item is its own indented lines ("over many lineswith two paragraphs" before)
# 32: reST's `.. sectnum::` numbers sections from below the title (and subtitle) docutils
#     promotes, as the page shows them ("5.1", where the path said "1.5.1")
# 33: plain text's titles adorned with reST's other characters (`` ` . ' " + : _ ``…, as
#     docutils' docs and PEPs shipped as .txt are) are headings, under docutils' rule:
#     "Hyperlink Targets" and what follows were cited under "Explicit Markup Blocks"
# 34: what a reST substitution (`|name|`) puts in a paragraph is placed with it, not at its
#     definition: demo.txt's "Inline Markup" (lines 89–116) was located at lines 89–540
# 35: a `mailto:` link's address follows its text in Word and OpenDocument text too ("write
#     to us (security@…)"), where only "write to us" was kept
# 36: a wordless link to an anchor inside a heading is its permalink, not its text:
#     rustdoc's `<a class="doc-anchor" href="#examples">§</a>` made "§Examples"
# 37: an OpenDocument footnote or endnote is cited as "limit [1]" and its text is a
#     paragraph at the end of its section, where "limit1The limit is…" was read in place
# 38: AsciiDoc (.adoc, .asciidoc) and Org (.org) have readers of their own: a file a user
#     had included before was chunked as code, with no heading paths, and its size and
#     mtime unchanged would keep those chunks (the start-up walk reads no such file again)
# 39: an AsciiDoc CSV/DSV table is read a line at a time: a cell over the csv module's
#     128 KB field limit skipped the whole file ("unreadable AsciiDoc"), and a quoted cell
#     running over two lines shifted every later row's line number
# 40: an Org `* COMMENT` headline leaves out its whole subtree (only the word was dropped,
#     and the draft under it indexed)
#     an AsciiDoc backslash escape is not shown: `\{name}` is "{name}", `\<<id>>` "<<id>>"
#     (it was "\id"), `\*not bold*` "*not bold*"
#     a Word footnote or endnote is cited as "limit [1]" and its text ends its section, as in
#     OpenDocument: python-docx reads neither, and a note's words were not indexed
#     an OpenDocument note cited in a heading leaves no "[1]" in the heading path ("Fares [1]")
# 41: Markdown's HTML comments (blocks and inline) are not text (ingest.markdown_comments)
# 42: LaTeX (.tex) has a reader of its own and type stubs (.pyi) are included: a .tex file
#     a user had included was chunked as code, with no heading paths
# 43: paginated formatter output (nroff manuals, RFCs) loses its running headers and line-end
#     hyphenation, and its numbered section titles head sections (ingest.paged_text)
# 44: a plain-text file is paged only if a running line stands between blank lines: a
#     benchmark log's verdict lines, repeated at one interval, were dropped as running lines
# 45: a Markdown comment inside a list item, four columns in under `- item`, is hidden
#     (ingest.markdown_comments): it was read as indented code and indexed
# 46: `%`-separated entry lists (Crawl's descriptions, fortunes) are read entry by entry,
#     each a section headed by its name, separators and comments not text (ingest.entry_list)
# 47: plain text's terminal bold and underline (overstrikes, ANSI SGR) read as a terminal
#     shows them, and an overstruck man page capture is text, not binary (terminal_text)
# 48: an RFC's appendix subsections ("A.1.  Bar") stand under their appendix ("Appendix A.
#     Foo") in paged text, not beside it at the top (ingest.paged_text)
# 49: Python's functions of one name in a row (an @overload stack and its implementation,
#     a property's getter and setter) are one section, not one each (formats.code)
# 50: a LaTeX Beamer frame's title heads its slide under the enclosing section, overlay
#     specifications are not text (formats.latex)
# 51: a NUL dropped between a CR and an LF leaves them two line breaks (`CR NUL LF` became
#     one `CR LF`: the file's later lines were numbered one early, and the blank line lost)
# 52: a reST directive whose body is Python code (click's `click:example`, matplotlib's
#     `plot`) is a code block, not reST ("if x:: y") (formats.sphinx)
# 53: DocBook (.docbook, DocBook-rooted .xml) and Mallard (.page) read (formats.docbook, .mallard)
# 54: a reST directive body of "Label: value" lines ("Default: 30", which parses as an
#     annotation without a value) is text again, not a Python block (formats.sphinx)
# 55: two methods of one name with code between them in a class body are two units, not
#     one run (formats.code; a class's methods are written without what lies between them)
# 56: Rust's doc comments are read as rustdoc shows them (formats.rust_docs): the module
#     docs' headings head the file's sections, an item's docs are its description with
#     their sections under it, a `/*! */` page's examples are no longer its definitions
# 57: a DocBook cross reference to another chapter file shows that chapter's title, not
#     its id (formats.docbook_siblings); a Mallard page's conditional branches are each
#     led by their condition, not run together (formats.mallard_conditions); a UTF-16 or
#     UTF-32 `.xml`/`.page` is read, not skipped as "not a document" (xml_prolog.as_utf8);
#     a paged file's bare page numbers ("12" alone at each foot) are not text (paged_text);
#     a titleless Beamer frame stands under its section, not the frame before (latex)
# 58: a Rust `/**` no `*/` closes (a raw string's line) no longer makes the doc comments
#     after it code (formats.rust_docs); an `.xml`/`.page` in UTF-8 whose declaration
#     names UTF-16 is read as UTF-8, not skipped as not well-formed (xml_prolog.as_utf8)
# 59: a Rust doc example's hidden lines (`# use …`, a lone `#`) are left out and `##` is
#     shown as `#`, as rustdoc shows them (formats.rust_hidden); a Markdown heading's title
#     (`.md`, notebook cells, Rust docs) is the rendered one: entities decoded, escapes,
#     emphasis markers and link syntax gone, code spans kept (ingest.heading_text)
# 60: Rust read with a lexer (formats.rust_lexer): `///` in a string or a block comment is
#     not a doc, nor a `fn` there an item; `#[doc = "…"]` is doc text and `include_str!`
#     docs a line naming the file (formats.rust_attributes); a struct's fields' and an
#     enum's variants' docs are sections under the type; hidden example lines are left
#     out in block quotes and indented code too (formats.rust_hidden); a doc heading
#     indented one to three blanks is a heading
# 61: a Mallard page's empty `<link xref="other-page"/>` shows that page's link title or
#     title (a section's for `page#section`), not the id (formats.mallard, found among
#     the `.page` files beside it by formats.docbook_siblings)
# 62: a DocBook/Mallard title shown for a reference shows the references inside it by
#     their targets' own words, not their titles' references in turn, and at most
#     HEADING_MAX_CHARS (formats.xml_blocks.title_of): no more doubling at every level
# 63: TypeScript is split at its own declarations too (interface, type, enum, namespace,
#     declare: formats.code), and `.cjs`/`.mts`/`.cts` are read as JavaScript/TypeScript
# 64: Go's top-level `var`/`const` are sections of their own, named by what they declare
#     (formats.code), not the tail of the definition above them
# 65: a Go `var (` group never closed ends at the next definition, not named by a body's
#     lines (formats.code); TypeScript's `const enum`, `declare module "…"`, `declare
#     global` are declarations too, and a `type` only with its `=` or `<`
# 66: a Go file's code before its first definition (package clause, imports) is headed
#     by its package clause, `package cobra`, not `(untitled)` (formats.code)
# 67: a line longer than a chunk with no space in its second half (minified JavaScript)
#     is cut after its last punctuation there, not inside an identifier (`_cut`)
# 68: a Go or JavaScript/TypeScript line inside a multi-line string or block comment
#     heads no section (formats.code_literals): a raw string's "type the name …"
# 69: PHP is split at its classes, interfaces, traits, enums and functions, a class again
#     at its methods (`class Cursor > function advance`), Kotlin, Swift and Scala alike
#     (`class Berth > fun weeksLeft`), and Lua at its functions (formats.code): each file
#     had been one `(untitled)` section; an `@annotation` line goes with what follows it
# 70: a `changelog`, `README` … opening with an ATX heading, and another after a blank
#     line, is read as Markdown (text_headings.written_in_markdown), not plain text
# 71: a Kotlin, Swift, Scala, PHP or Lua line inside a raw or long string, a heredoc or a
#     block comment heads no section, nor a member (formats.code_literals)
# 72: a text file read as Markdown by the guess keeps its HTML comments, and one opening
#     in `#` comment lines or naming another Emacs mode is text (written_in_markdown)
# 73: Java, C#, C and C++ are split at their types and functions, a type again at its
#     members (`class TypeManager > findClass()`, formats.c_family): each file had been
#     one `(untitled)` section
# 74: Ruby is cut at its classes, modules and methods at every depth, nested by indent
#     and `end` (formats.ruby_code: a gem file was one `module Rack` section); a gem's
#     README.rdoc is read at its `=` headings (ingest.rdoc)
# 75: `.cxx`, `.hh`, `.hxx` are read as C++ and `.ru`, `.gemspec` as Ruby (formats.code):
#     each had been one `(untitled)` section when included, and none was by default
# 76: Perl (`.pm`, `.pl`, `.pod`, now indexed by default) is read by formats.perl: POD
#     as documentation under its `=head` headings, code cut at `package` and `sub`; a
#     `FAQ.pm` that `faq.*` let in had been one `(untitled)` code block quoting its markup
# 77: a CPAN `Changes` file's "1.57 2022-10-21" lines are release headings
#     (text_headings._dated_version): Log::Log4perl's 110 releases were one section
# 78: a man page whose title is its file's name in other capitals, or a module name's last
#     part, is headed as the file is named (formats/roff_reader.page_title): pod2man's
#     `.TH FAQ 3pm` in Log::Log4perl::FAQ.3pm.gz was headed `faq(3pm)`
# 79: Lua's `path.mkdir = function(d)` is a definition, headed `function path.mkdir`, and a
#     Lua module's code before its first function is headed by LDoc's tag, `module pl.path`
#     (`@classmod pl.List`: `class pl.List`), not `(untitled)` (formats.code; newuser43)
# 80: a script with no suffix is read by its `#!` interpreter's reader (ingest.shebang):
#     one included by name had been one block of code in no language
# 81: a `.ru` file whose letters are mostly not ASCII (a Russian `manual.ru`) is read as
#     text (loaders._prose_named_rackup), not as one block of Ruby
# 82: ... but its comment lines are not counted: a short `config.ru` under a Russian or
#     Japanese comment stays Ruby (review43)
# 83: Kotlin's, Swift's and Scala's block comments nest (formats.code_literals): a `fun`
#     after an inner comment's `*/`, still commented out, had headed a section
# 84: a C# property, indexer or event with accessor bodies is a member of its type
#     (`class Berth > property Weeks`, formats.c_family._accessors): each had been read
#     into the method above it; a run of one-line `{ get; set; }` stays one section
# 85: a `.cs` file few of whose lines end like code (vim's Czech `tutor.cs`, groff's
#     `hyphen.cs`) is read as text (formats.c_family.written_as_prose), not as C#
# 86: Markdown's other suffixes, `.mdwn` (ikiwiki), `.mkd`, `.mkdn`, `.mdown`, are read as
#     Markdown and included: etckeeper's README.mdwn.gz had been one `(untitled)` text
#     section (newuser44); a shell function ends at its closing `}`, the commands after
#     it are `script code`, not the function's (etckeeper's main program was `usage`)
# 87: `#!/usr/bin/env -u NAME python3` (and `-uNAME`, `-C DIR`, `--unset NAME`,
#     `-Spython3`) names Python, not NAME: read by Python's reader (ingest.shebang; guard44)
# 88: Tcl (`*.tcl`, included; `#!/usr/bin/env tclsh`): each `proc` at the margin, a
#     `namespace eval`, snit type and TclOO class with their
#     procs and methods one level below, the comment block above each (one blank
#     line between allowed) kept with it, the code before them headed `package csv`
#     (newuser45, tcllib 1.21: each file had been one `(untitled)` section)
# 89: a man page's own macro whose definition prints nothing prints none of its words
#     (Tcl's `.AS Tcl_Interp Tcl_CreateInterp in/out` atop each tcllib page, newuser45)
# 90: a Tcl proc's own procs one indent in are its members (`proc ::logger::init > proc
#     setlevel`: tcllib's logger defines each service's commands inside `logger::init`)
# 91: a man page's own macro made of `.nop \\$1` or `.do BI \\$1` prints its words: 89
#     had taken it for one that prints nothing and dropped them (review45)
# 92: a LaTeX document's own argument-less macros whose bodies are words are shown where
#     used (`\\this` is "emcee" in emcee's paper, its title had been ": The MCMC Hammer");
#     `\\hypertarget`'s and `\\hyperlink`'s anchor names are not text (pandoc's
#     "ref-Goodman:2010Goodman, J."); plain text: the last line of a delimited block
#     (git's AsciiDoc `.txt`, `----` … `----`) is no title over its closing rule; newuser51
# 93: a `.txt` whose header says `Content-type: text/asciidoc` (git's how-tos) is read as
#     AsciiDoc: its titles, listings and links as an `.adoc` shows them (newuser51)
# 94: a PDF's outline (bookmarks) heads its pages, each page cut where an entry's title
#     stands (`ingest/pdf_outline.py`): every chunk of a 234-page LaTeX manual had been
#     headed by its title alone (newuser52)
# 95: an AsciiDoc open block (`--`) is a container, not a listing; LaTeX: a table's last
#     row without `\\\\` is kept (its cells were dropped at `\\end{tabular}`), an `\\item`
#     inside an item's term is part of the term, `%` in an `\\href`/`\\url` address is no
#     comment (the rest of the file had become the address), `\\iffalse` skipped as TeX
#     skips it (nested conditionals, its `\\else` branch read), a first `{` never closed
#     is read as text (it had taken the rest of the file); a notebook whose metadata
#     or one cell's source is of another shape is read, not skipped as unreadable (attack52)
# 96: YAML is headed by its keys, its items' names and its documents' kinds
#     (`formats/yaml_outline.py`): every `.yml` had been one `(untitled)` section; a PDF's
#     words drawn in a CID font with no space glyph keep their spaces, and its ligature
#     characters (ﬁ, ﬂ, …) are written as letters (`pdf_words.py`); a notebook's raw
#     cells are kept (they had been dropped)
# 97: plain text: a title at the margin of a page whose text is indented heads its section
#     (`text_headings._margin_title`): doc-debian's bug tracker guides had every chunk
#     under the file's first line, and the mailing-list guide's "Development lists" was
#     cited as "Subscription / Unsubscription" (newuser53)
# 98: such a title may start with its section number (`5. Project Leader`, `A. Standard
#     Resolution Procedure`): the Debian constitution's chunks had all been cited under
#     its first line (newuser53)
# 99: a module-level Python assignment of 15 lines or more heads itself (an Ansible module's
#     `DOCUMENTATION`, `EXAMPLES`, `RETURN` had been `(untitled)`, newuser53); Jinja
#     templates (`*.j2`) are included and read as the file they render to
# 100: YAML: a sequence at its key's own indent is the key's (`spec > containers > web`, had
#     been `spec > web`), an item's keys stand where its first key does; no line of a
#     scalar behind a tag or anchor, a `- |` item, a quoted scalar or a flow collection
#     over lines heads anything; names read as YAML reads them (`name: >-`, `"Step #2"`,
#     `'it''s'`, `!!str x`), `metadata.name` not `metadata.labels.name` (attack53)
# 101: a code block cut at line breaks (over 3 chunks) keeps its closing fence with its last
#     lines: alone it was a chunk of "```", with no line of the file (attack53)
# 102: a PDF's Chinese or Japanese CID font with no space glyph keeps pypdf's word spaces
#     (`pdf_words.unspaced_script`), and so does a font with no /ToUnicode (read through
#     its encoding): the halved space had put spaces between their glyphs
#     (attack53b); a YAML template's lines of Jinja tags alone are blank to its outline
#     (`code._tags_blanked`): one opening with `{# … #}` had had no heading (attack53b)
#     and Python statements before a long assignment are headed by their own names
#     (they had been headed by the long one's and those after it too)
# 103: plain text's numbered subtitles inside a numbered heading head their subsections
#     (the Debian constitution's `  5.2. Appointment` had been a line of its section's text)
# 104: a Jinja template of a document (`usage.md.j2`, `page.html.j2`) is read by that
#     document's reader, not as one block of code
# 105: a PDF's title (its first line) without its footnote mark: "The subcaption package",
#     not "The subcaption package∗" in every chunk's heading path (nu52a)
# 106: javadoc's summary grids (`div.summary-table`, JDK 16 on) are read as tables, a row a
#     member: a method's type, name and description had been three paragraphs (newuser54)
# 107: a C or C++ prototype at the top under a comment that says something heads its section
#     (a header's API: lz4.h's `LZ4_compress_default()`, 18 of its 25 chunks had been
#     `(untitled)`), and a block comment closed by a lone `*/` whose lines open with no `*`
#     goes with the definition below it (newuser54)
# 108: a documented prototype's leading line of macro calls (`LZ4_DEPRECATED("…")` above
#     `LZ4_decompress_fast()`) goes with it, the comment above that line documenting it
# 109: a short text above a Markdown document's one title (javadoc's "Package …" over
#     "# Class BitField", a README's badges) joins the title's first chunk: it had been a
#     chunk of its own
# 110: a numbered subtitle's level is its depth under its heading (`2.1.1.` had lost
#     `2.1.` from its path when a `1.2.1.` under a heading `1.2.` came first; attack54),
#     and a C prototype ending in attribute macros is headed by its own name (glibc's
#     `memmove (…) __THROW __nonnull ((1, 2));` had been `__nonnull()`)
# 111: a C or C++ banner comment (rules and a title: lz4.h's `Advanced Functions`) heads
#     the macros under it, which had been the tail of the prototype above it
#     (`formats.c_banners`; nu54b)
# 112: Doxygen's pages: the page's title (`div.headertitle > div.title`) is its h1, a code
#     listing (`div.fragment`) one code block, and its banner, breadcrumbs, footer, member
#     group links and code tooltips are chrome (newuser55: JsonCpp's 535 tooltips, every
#     source page's chunks headed by the project's header row)
# 113: Doxygen's member labels (`span.mlabel`) are words apart: "override default", not
#     "overridedefault" (37 on JsonCpp's pages, newuser55)
# 114: each piece of a code block cut at line breaks is fenced (the block's opening line
#     and a closing fence of its run): a piece between had neither and read as prose, and
#     Doxygen's source listings were quoted as sentences (newuser55)
# 115: an EPUB zipped from the folder above the book (`epub/META-INF/container.xml`) is
#     read from that folder: Debian Edu's three manuals had been skipped (newuser56)
# 116: an EPUB whose manifest lists a part the zip lacks is read without it: debmake-doc's
#     six guides and live-manual-epub's ten had been skipped whole (newuser56)
# 117: an Org item whose line stops mid-sentence goes on with the lines under it at the
#     margin: Postmodern's manual was read as items and half-sentence paragraphs (newuser56)
# 118: a C banner only where the lexer reads a comment between statements at the top (one in
#     a function's body had cut it in two, one in a comment, `#if 0` or a raw string headed
#     the code after it), titles keep `<sys/select.h>`'s brackets; a split code block opened
#     on a list item's line is fenced piece by piece; reveal.js's `div.fragment` is no
#     Doxygen listing, Doxygen's list icons no letter of a name ("CSDL_AssertData"), its
#     member titles `h3` under their group (330 chunks of a group's title alone); a
#     notebook nbformat refuses keeps its cells (attack56)
# 119: an Org item goes on at the margin only when the line there does not start a sentence
#     and the item's stop is not inside a bracket, quote, markup or before a footnote: a
#     paragraph written under a list had joined its last item (Postmodern's create-tables
#     page: five definitions); a rule `-----` ends an item or paragraph; an EPUB whose nav
#     or NCX is listed but absent is read without a table of contents, one none of whose
#     chapters is read has no text, a chapter listed twice is read once (attack57)
# 120: an OpenDocument text is read from its content.xml alone, its body's `office:text`
#     found past blank text: an embedded formula naming math.dtd, a thumbnail listed but
#     absent or an OpenOffice.org 2 manifest naming Manifest.dtd had made the whole file
#     unreadable, an indented body read as no words
#     (LibreOffice's Math Guide, the Debian Live manual; newuser57); an ikiwiki directive
#     alone on a page's first line (`[[!meta robots="noindex, follow"]]`) is no title
# 121: a fence in a block quote (`> ```sh`) is a code block, not the quote's prose: cut at
#     full stops past a chunk, its later pieces unfenced; an EPUB's heading never repeats
#     the heading it is under (`Book > Book > Publish date`: 92 of 5,808 chunks); a
#     Doxygen source listing's line number stands apart from its code (SDL's "94typedef");
#     a YAML complex key (`? key`) heads its own value, not the key above's; a C banner's
#     title loses HTML tags (`<b>Types</b>`) (r58)
# 122: an OpenDocument presentation (`.odp`) is read slide by slide, as a `.pptx` deck,
#     and a spreadsheet (`.ods`) sheet by sheet, as an `.xlsx` workbook (both had been
#     skipped types; newuser57's mapsforge talks); an embedded formula reads as its
#     StarMath source, not "formula" (LibreOffice's Math Guide)
# 123: an `.odp` deck's footers (`presentation:footer-decl`) are read, once; a slide title
#     longer than a heading keeps its words in the slide's text (.odp and .pptx) (attack58)
# 124: an `.ods` cell with a value and no paragraph reads as its value; an `.ods` or
#     `.xlsx` whose repeats or shared strings would pass `max_text_mb` is refused (attack58b)
# 125: an ikiwiki page's (`.mdwn`) escaped `\[[` reads as the wiki shows it, `[[`; a
#     `[[!meta title="…"]]` on its first line gives its title
# 126: an AsciiDoc `+…+` passthrough reads as its text without the pluses (FreeRADIUS's
#     `=== +%{Packet-Type}+` titles); Cadabra's `\begin{screen}{1,2}` sessions are LaTeX
#     code blocks, `%` and braces kept (newuser58)
# 127: ascmac's `screen` (no argument) stays text; a first line that is a list's item
#     ("- Introduction", a nav.adoc) is no title
# 128: a Mallard `keyseq`/`guiseq` keeps its steps written as bare text ("Ctrl+left
#     click", evince's SyncTeX page, had been "Ctrl") (newuser59)
# 129: mdBook's books: the menu bar (the book's title, a chunk on every chapter) and an
#     example's hidden lines (`span.boring`) are not text; a page that redirects at once
#     (`meta` refresh 0) and a print copy (`noindex`, prints itself) are not documents, nor
#     is a built book's `searchindex.js` (mdBook's, Sphinx's) (newuser59)
# 130: a Markdown heading's trailing attribute list (`{: #id .class}`, `{#id}`) is not
#     part of its title, and a first line that is a Jinja tag alone or a snippet include
#     (`--8<-- "LICENSE.md"`) is no title (MkDocs sources, newuser60)
# 131: a JavaScript/TypeScript `var`/`let` assigned a function (`var ObservableValue =
#     /*#__PURE__*/function (_Atom) {`, a class as Babel and TypeScript compile it) is a
#     definition, and `/*#__PURE__*/` may precede a `const`'s function (mobx's bundles,
#     newuser60)
# 132: a JavaScript file wrapped whole (a UMD bundle, an IIFE) and defining nothing at the
#     margin is read at its body's indentation (mobx's `dist/mobx.umd.development.js`:
#     117 chunks all `(untitled)`, now headed like the ES bundle) (newuser60)
# 133: Texinfo's HTML: a node's Next/Previous/Up bar (makeinfo's `div.header`, texi2any
#     7's `div.nav-panel`) is not text (Aspell's manual: a chunk on each of 60 pages)
#     (newuser61)
# 134: Emacs Lisp (`.el`, read by default) is split at its definitions (`defun`,
#     `defcustom`, `define-minor-mode`, `ert-deftest` …) with the `;` comments above them,
#     its header and Commentary headed by the file's summary line (newuser61)
# 135: Texinfo's HTML: its table of contents (`div.contents` after `h2.contents-heading`,
#     `shortcontents` alike) is not text (Aspell's manual's `index.html`: 3 chunks)
#     (newuser61)
# 136: a file with more blocks than its window budget (64 + one per 40 characters: a file
#     of one-word paragraphs made a window every 8) shares windows between its blocks
#     (ingest/windows.py; attack63)
# 137: a Markdown heading longer than HEADING_MAX_CHARS is its section's first line of
#     text too: the words its path cut off were in no chunk when text followed it (attack63)
# 138: Emacs Lisp: a run of `(define-key MAP …)` lines is one section, `define-key MAP`, and
#     a forward `(defvar name)` heads none (evil 1.14.2's `evil-maps.el`: 384 chunks, 363
#     of them one line, → 26) (review63)
# 139: a `.el` file no line of which opens a form at the margin is Greek text (vim's
#     `tutor.el`), read as text, not as one `(untitled)` block of Lisp (review63)
# 140: a short text above a Markdown title longer than HEADING_MAX_CHARS is joined to the
#     title's text again (137 had made it a chunk of its own) (review63)
# 141: bytes that are not UTF-8 in a text are read as the Windows-1252 letters they are
#     (`Klaus K\xe4mpf` in make's NEWS was `K\ufffdmpf`), unless in a run of three or in a text
#     where they are dense (another script's 8-bit encoding: replaced as before) (lead)
# 142: Scheme (`*.scm`, Guile's modules) is read: split at each `(define…` form at the
#     margin with the `;` comments above it, the module form headed by its name, the
#     header and Commentary by the summary line; its strings and block comments span lines
#     (guile-lib 0.2.7's 30 modules had not been read at all) (newuser62)
# 143: Scheme: a `;` comment block a blank line above a definition goes with it (htmlprag's
#     `;;; @defproc` documentation had gone to the procedure above), but not above the
#     first, the module form (the Commentary stays the header's) (newuser62)
# 144: C and C++: an object declared at the top under a doc comment (`///`, `/**`) heads its
#     section by its name, and one built with arguments is no function (CLI11 2.1.2's
#     `CLI::ExistingFile` had been read into `class IPV4Validator`, `NonNegativeNumber`
#     headed `NonNegativeNumber()`) (newuser62)
# 145: stray bytes read as Latin letters by one regular expression, not a codec error
#     handler called a byte (a 20 MB text with one in five took 6-14 s, now 2.5 s); a
#     run of high bytes that is not UTF-8 is one U+FFFD a malformed sequence, as before
#     141, not one a byte (review64)
# 146: a text whose replaced bytes outnumber its Latin ones is another script's: all its
#     stray bytes are replaced (Russian comments' `и`, `не` had been `è`, `íå`; 9 of vim's
#     menu files in KOI8-R, cp1251, GBK, EUC-KR…) (review64)
# 147: Scheme: a datum comment `#;` is code, not a `;` comment to the line's end: a string
#     its datum opened on that line had been read inverted, a line in it heading a
#     section and the definition after it none (review64)
# 148: Scheme: `#| … |#` block comments nest (R6RS, R7RS): the first `|#` had closed the
#     outer one, and a definition commented out after an inner note headed a section
#     (review64)
# 149: Scheme: `#!` and a name (`#!optional`, `#!rest` in MIT Scheme and Chicken,
#     `#!fold-case`, `#!r6rs`) is a token, not Guile's `#! … !#` block: everything up to
#     the next `!#`, a string's included, had been a comment (review64)
# 150: C and C++: a banner of stars or slashes (`/*****`, `////`) is no doc comment: the
#     title of a group of names had been lost to the first name's heading (xmlsec's
#     strings.h, 31 titles) (review64)
# 151: C and C++: a documented table with a brace initializer (`static const int
#     depths[1000] = {`) heads its section by its name; it had been no statement (review64)
# 152: OCaml (`*.ml`, `*.mli`) is read: split at each definition at the margin (`let`,
#     `val`, `type`, `module` …) and at each odoc section heading (`(** {1 Title}`), a
#     module's own definitions its members; comments and strings span lines; a doc comment
#     after its value stays with it (cmdliner 1.1.1's interface had not been read) (newuser63)
# 153: a Hoogle database in text (Haddock's `split.txt`, beside every Haskell package's
#     HTML reference) is read headed by its package, modules and documented declarations,
#     its comments' HTML tags out: split 0.2.3.5's had been 33 `(untitled)` chunks (newuser63)
# 154: Haskell (`*.hs`) is read, split at each signature, type, class, instance and the
#     module line at the margin with the `-- |` comment above; Haddock's hyperlinked source
#     pages (one `<pre>` of `span.hs-*`) are read as the module they show: split 0.2.3.5's
#     two had been `(untitled)` runs (newuser63)
# 155: OCaml: a string or quoted string inside a comment is one (`(* "*)" *)` is one
#     comment, as the compiler reads it), and a quoted string `{id|…|id}` ends at its own
#     `|id}`: the first `*)` or `|}` had ended them, the lines after read as code (review66)
# 156: Haskell: block comments `{- … -}` (nested; pragmas `{-# … #-}` too) and strings
#     run over lines by a gap are no code, and a `{-| … -}` Haddock block documents the
#     signature below it: a commented-out signature had headed a section, and each block
#     had gone to the section above (base's Debug.Trace, 6 of them) (review66)
# 157: a text file that opens with Haddock's Hoogle head is a Hoogle database only when
#     the first line after the head and the package's `--` comment is `@package`,
#     `@version` or `module`: a note quoting the head, then prose, had been read as
#     declarations (review66)
# 158: OCaml: an odoc heading at the margin inside a module's `sig … end` (cmdliner's
#     `module Arg : sig`) is the module's member: each had been a section at the top,
#     `module Arg` gone from 64 of its chunks' headings (review66)
# 159: Scheme: `.sls` (an R6RS library), `.ss` and `.sps` are read as Scheme, a library's
#     definitions, indented inside its form, its members; a `.sls` no line of which opens
#     a form (Salt's YAML state) is text: each had been one `(untitled)` block (review66)
# 160: Haskell: a class's methods are its members (`class Foldable > foldr'`), and a
#     signature naming several (`(==), (/=) :: …`) is a definition headed by them all:
#     base's Foldable's 17 methods had each been cited as the class (review66)
# 161: groff documents that are not man pages (`*.ms`, `*.me`, `*.mom`, `*.roff`, gzipped
#     too) are read: ms, me, mom and mm headings, displays and pic sources as code, hdtbl
#     rows; a character a text defines with `.char` prints its text (groff 1.22.4's papers
#     and examples had not been read at all) (newuser64)
# 162: a groff document's own macro whose definition starts a paragraph (`.lp`, `.br`)
#     breaks one where it is called: meref.me's entries had run into each other (newuser64)
# 163: troff's conditions on a name (`.if !d sopath .ds sopath`) take the name as theirs,
#     not as text; `.defcolor`, `.blm` print nothing; www.tmac's pictures, rules and colours
#     and mom's `DOC_COVER` keyword are not text; a drop cap (`.DC T HIS`) is one word
#     (groff's webpage.ms had opened with `\#eeeeee 30 blm-macro mydarkred rgb …`) (newuser64)
# 164: a groff document's own macro that ends a diversion (meref.me's `.DE`, after `.TL`
#     and the macro's name) makes the words since the paragraph began the tag of an item
#     whose body follows: each entry had been its name and its description apart (newuser64)
# 165: in a groff document a text line that starts with a blank starts a new line, as troff
#     breaks there (vim's plain-text `click.me` had run its instructions into one) (newuser64)

# 166: a Tcl file's code before its first definition, with no `package provide` there, is
#     headed by a package index's `package ifneeded csv` or tcllib's header summary under
#     `# json_write.tcl --`: of 690 `.tcl` files (tcllib 1.21, Tcl 8.6's library) 556 had
#     opened `(untitled)`, now 293 (newuser64)
# 167: a `*.me`/`*.ms`/`*.mom`/`*.roff` file with no troff request or macro on a `.` line
#     is read as plain text: a DOS `READ.ME`'s `'de facto'` line had opened a macro
#     definition that swallowed the rest, 27 of 72 words kept (review67)
# 168: the strings a troff document (a man page too) prints add, all told, at most its size
#     plus 1,000,000 characters: a `\*a` line per line printed a 999-character string per
#     line, 160 KB → 40 MB of text (review67)
# 169: troff's traps and next file (`.wh -3 fo`, `.ch`, `.dt`, `.em`, `.nx`, `.rd`) print
#     nothing in a groff document (4.4BSD's trek.me had opened with `-3 fo`) (review67)
# 170: three-part titles (`.tl`, me's running headers and footers `.he .fo .oh .eh .of
#     .ef`) print their parts, `%` dropped, a header once: 4.4BSD's trek.me had been cited
#     as `'Star Trek''USD:31-%' 'USD:31-%''Star Trek'` (review67)
# 171: a man page kept as `*.roff` (its first `.TH` gives a section, or mdoc's `.Dd`/`.Dt`)
#     is read as the man page it is: by the ms macros `ls.roff` had lost its sections'
#     names and been headed by the line after each (review67)
# 172: a groff document's macro whose first word is a digit `int` refuses (`²`, or 5,000
#     digits) no longer makes the whole document unreadable; a superscript item tag is kept
#     (review67)
# 173: Erlang is read and included by default (`*.erl`, `*.hrl`): a function's clauses and
#     its `-spec` one section headed by its name, with the edoc comment above; `-module`,
#     `-record`, `-type`, `-callback` head theirs. OTP's EUnit had not been read (newuser65)
# 174: R Markdown and R are read and included by default (`*.Rmd`, `*.R`): an `.Rmd`'s
#     YAML header as the page shows it (its title a heading, knitr's `output`/`vignette`
#     keys dropped), a chunk's `{r, echo = FALSE}` header a plain fence; an R function
#     assigned at the margin heads its section. dplyr's vignettes had not been read (newuser65)
# 175: Erlang's `-type`, `-opaque` and `-callback` head no section of their own (1-2 line
#     chunks: 553 of 922 `-type`s in OTP's stdlib, kernel, edoc, inets); they stay with the
#     section above, a behaviour's callbacks together (newuser65)
# 176: an `.Rmd` whose sections start at `#` has them one level down, under its title
#     (base.Rmd's `# Overview` had been the title's sibling); chunk comments untouched
#     (newuser65)
# 177: an `.Rmd` header with a YAML alias, or over 20,000 characters, is no front matter
#     and stays the text it is: a dozen lines of anchors and aliases had been expanded
#     (six levels: 3 MB of `author`; nine would not finish)
# 178: Quarto is read and included by default (`*.qmd`, as an `.Rmd`), and in both a
#     chunk's leading `#|` option lines are blank and a fenced div's fence lines are
#     blank or its callout's title (great_tables 1.1.0's pages had `::: {.callout-note}`
#     as text and had not been read)
# 179: Common Lisp is read and included by default (`*.lisp`, `*.asd`): a form at the
#     margin that defines something heads its section with its docstring and the comments
#     above; `in-package` heads the code before. Alexandria had not been read (newuser66)
# 180: a Vim help file (`doc/*.txt` opening with its `*NAME.txt*` tag, or with an
#     `ft=help` modeline) is read as its help window shows it: title and ruled-off
#     sections headed, examples fenced, tags and links by name. Vim's user manual had
#     been `(untitled)` throughout (newuser66)
# 181: an `.Rmd` header's values are shown as written (`007`, not 7; a date that is no day,
#     `2024-02-30`, or a 5,000-digit number had made the whole file unreadable, and so had
#     a header nested past the YAML composer's depth) (review69)
# 182: a groff document's font macros glue their arguments as troff prints them (me's
#     `.i fact or` → `factor`, ms's `.I troff ) (` → `(troff)`; sendmail's op.me had read
#     `fact or`, `uname (1)`) (review69)
# 183: a groff document's string naming strings (`.ds b \E*a`, mom's way) is held to the
#     1,000 characters every string may hold: looked up twice it had stored 2,000 and,
#     over its line's allowance, printed nothing (review69)
# 184: a `tbl` cell whose `T{` is never closed keeps its text: its row is written when
#     the table (`.TE`) or the file ends, where every line since the `T{` had been
#     dropped (man pages and groff documents; review69)
# 185: a Markdown text over its section budget whose first line is a heading that is not
#     its one title heads its merged runs `(untitled)`, not with that line as written
#     (`## proc p0`: every chunk of a Tcl file of 600 procs, a journal's first day) (review69)
# 186: a line of 8 troff conditions (`MAX_NESTED`) reads the text the last one runs, as
#     the reader says; the eighth had been taken and its text dropped (review69)
# 187: a Vim help file titled only by its byline (`VIM REFERENCE MANUAL by Bram Moolenaar`,
#     34 of Vim 9.0's 151 help files) is titled by its name; a boxed title is read
#     without its box, and the first centred title wins over an indented table header
# 188: Clojure is read and included by default (`*.clj`, `*.cljs`, `*.cljc`): a form at
#     the margin that defines something heads its section with its docstring and the
#     comments above; `ns` heads the code before. core.async had not been read (newuser70)
# 189: `.csv` and `.tsv` are read and included by default, as the one-sheet table a
#     spreadsheet shows (`formats.delimited`); each had been one block of code when
#     included, none by default: scikit-learn's bundled data (newuser70)
# 190: a code block's opening fence line over 120 characters is carried into its later
#     pieces as its run and its info string's first word: a 2,000-character fence line was
#     repeated in every piece, the chunks holding the file ≈ 2-3 times over (hostile70)
# 191: a troff string's definition spends none of the page's printing allowance (2,000
#     lines of `.ds x \*x\*x` had left 91 of 100 later strings printing nothing), and a
#     `.de`/`.ig` block never closed ends at its opening line: the rest of the file had
#     been swallowed (man pages and groff documents; hostile70)
# 192: a Common Lisp file's `in-package` form alone before its first definition is read
#     with that definition: alone it was a chunk of one line (nu66b; hostile70)
# 193: Erlang's strings and quoted atoms and Tcl's quoted words over lines are read as such
#     (`code_literals`): a usage text's line reading `name(Args) ->` or `proc name` at the
#     margin headed a definition, and its `%` or `#` lines were comments (hostile70)
# 194: Crystal's `.cr` is read and included by default, cut at its classes, modules,
#     structs, enums and methods at every depth as Ruby is (`abstract def` has no body);
#     Crystal 1.6's `http/` had not been read (nu71a; newuser71)
# 195: Nim's `.nim` is read and included by default, cut at its routines at the margin
#     (their `##` documentation inside them) and a `type` section's types, the module's
#     documentation headed by its first sentence; Nim's collections had not been read
#     (nu71b; newuser71)
# 196: a Nim module's `##` documentation before its first definition is split at its own
#     section titles (`## ## Hashing`, `## Basic usage` over a rule), each a heading under
#     the module's: tables.nim's Table, OrderedTable, CountTable had been one section (nu71b)
# 197: a CSV's records end at a lone `\r` too, and a `"` never closed makes the file read
#     again with quotes as plain characters: it had been one column, or one "unreadable
#     CSV" line for the whole file (review71)
# 198: a Leiningen `project.clj`'s `defproject` form is headed by the project's name: it
#     had been `(untitled)` (review71)
# 199: a spreadsheet's or CSV's header over 500 characters (`xlsx.REPEATED_HEADER_CHARS`)
#     is written once, not above each block: a wide header over long rows had been
#     repeated once per row, 71 MB of text from a 1 MB CSV (review71)
# 200: a Nim `when` at the margin, and its `elif`/`else:`, heads a section whose routines
#     one indent in are its members: 1,783 routines of Debian's nim 1.6.10 under one had
#     been cited as the margin definition above the `when` (review72)
# 201: a CSV field past `csv`'s limit (131,072 characters) is read whole; the separator's
#     vote weighs records by their lines; a first record of numbers over numbers heads no
#     block (breast_cancer.csv's first row had been repeated as its header) (readers73)
# 202: a Clojure comment heading below the `ns` form (`;;;; CHANNELS`, a banner closed
#     by its semicolons, a short comment under a rule) heads the forms under it: core.async's
#     walkthrough.clj had been one `(untitled)` section (readers73)
# 203: a Crystal file's code before its first definition goes with it when it is only
#     `require`s and macro lines (`{% if flag?(:win32) %}`), else is headed by the file's
#     name, as is a Nim module's (`module odbcsql`) without a summary, and the runs of
#     sections merged past the budget of either: 340 `(untitled)` chunks in Debian 12's
#     crystal and nim (readers73)
# 204: a Quarto (or R Markdown) shortcode outside code is read as the page shows it, none
#     of its words but `kbd`'s keys: each had been a line of prose, and `{{< pagebreak >}}`
#     over a `---` rule a heading (readers73)
# 205: a Vim help rule carrying tags at its right (`------ *airline-tabline*`) heads a
#     part by its first tag, and a rule is one only at the margin: vim-airline's 56
#     extensions had all been cited as its `EXTENSIONS` section (newuser73)
# 206: `*.vim` included and read as code, each function at the margin heading its
#     section (`function airline#extensions#tabline#init`) with the `"` comments above
#     it: vim-airline's 75 files had been no document (newuser73)
# 207: `*.d` included and read as code, D's types, functions and a type's members at its
#     least indent inside its body heading their sections with their ddoc comments:
#     Phobos's containers and digests had been no document; a make dependency file
#     named `.d` is skipped as not a document (newuser73)
# 208: a Vim script's lines before its first function headed by its header comment
#     (`Plugin: fugitive, …`, `Vim syntax file (Python)`) or the names its `let`s set:
#     79 of vim-airline's 473 chunks had been `(untitled)`, now 12 (newuser73)
# 209: D code that names nothing headed by its module (`deprecated module …` too) or file
#     name, never `(untitled)`: 57 of Phobos+druntime's 21,598 chunks, a DTrace script (review74)
# 210: a Vim script's lines with no header comment nor margin `let` headed by the file's
#     name, not `(untitled)`: 340 of vim-runtime's, ALE's and airline's 9,847 chunks (review74)
# 211: D's attributes with parentheses (`package(std):`, `immutable(char)*`) name no
#     function: 360 headings of Phobos+druntime, 21,598 -> 21,568 chunks (review74)
# 212: a `.d` dependency file of a program or library (`tides: tides.c`, cargo's
#     target/debug/*.d) skipped as not a document, not read as D (review74)
# 213: a Clojure script with no `ns` form headed by its file's name, not `(untitled)`:
#     core.async's four examples (nu70b) (review74)
# 214: D's `q{ … }` token strings and `q"…"` delimited strings read as strings: code in
#     one at the margin heads nothing (std/string.d's `main()`) (fixes74)
# 215: a C# file's usings and namespace line headed by its namespace (`namespace
#     Python.Runtime.Codecs`), a Java file's by its package clause, not `(untitled)` (nu75a)
# 216: HTML: gtk-doc's navigation bar (`table.navigation`) and credit line (`div.footer`,
#     "Generated by GTK-Doc") are chrome; a table row holding a heading is read as blocks
#     (cairo's reference, nu75b; libxml's and SQLite's layout tables)
#     (217-224 unused: readers75's bumps were numbered before the merge)
# 225: a CSV's first record that opens with two numbers over columns of numbers is a line
#     of counts, no header: iris.csv's `150,4,setosa,…` had been repeated above its blocks
#     (readers75)
# 226: a D token string's strings, characters and comments read as such, their braces
#     none: `q{ write("}"); }` had ended at the `"}"` (readers75)
# 227: a Vim user command at the margin (`command! -bar ALENext`) heads a section as a
#     function does, a run of them one a line one section; a helper the script runs
#     itself heads nothing; a heredoc's lines are text: ALE's 39 commands had been read
#     into its `let` lines (readers75)
# 228: a DTrace script named `.d` (a `#!…dtrace` line, `#pragma D`, a probe description at
#     the margin) read by its probe clauses, not as D: Erlang/OTP's 11 DTrace examples had
#     each been one section under the file's name, now 73 chunks (readers75)
# 229: a Vim script not in UTF-8 read in the encoding its `scriptencoding` names: 27 of
#     vim-runtime's menus and keymaps (cp1250, ISO-8859-2, KOI8-R, EUC-JP, GBK, …) had been
#     read as Windows-1252 or replaced, Czech `Nápověda` as `Nápovìda` (readers75)
# 230: a Vim script's `scriptencoding` naming a codec that does not read ASCII as ASCII
#     (`idna`, `undefined`, `punycode`, EBCDIC's `cp037`, `unicode_escape`) is not used:
#     the script had been lost as unreadable, or read as other letters (review76)
# 231: HTML: a table nested in a row's cell is read among that row's cells, which had
#     been dropped when its first row began: DocBook menu tables' rows holding a Note
#     (gnucash-docs' 32 pages), groff's webpage-13 (review76)
# 232: a Vim user command defined inside a function's body heads nothing: a body at the
#     margin had had its rest cited as the command (review76)
#     (233-239 unused: attack77's bump was numbered before the merge)
# 240: a UTF-16/32 text with a few code units that are no character (a lone surrogate, a
#     file cut inside one) read with them replaced and a note, not refused whole (attack77)
# 250: a UTF-16 byte-order mark before UTF-8 text (no NUL byte, valid UTF-8) read as UTF-8,
#     not as CJK nonsense, nor, at odd length, as nonsense with a note (review77)
CHUNKER_VERSION = 250
CHARS_PER_TOKEN = 4
HEADING_SEPARATOR = " > "
UNTITLED = "(untitled)"
TITLE_MAX_CHARS = 80
# Every window embeds its heading path (up to six levels), so an unbounded heading over
# many small paragraphs would multiply the text planned and embedded (headings ×
# paragraphs); cut, each level costs at most this much per window.
HEADING_MAX_CHARS = 200
TITLE_SCAN_CHARS = 64 * 1024
# Text above a document's one title this short is a kicker or a line of badges, read with
# the title's first paragraphs rather than as a chunk of its own (`_short_lead_joined`).
SHORT_LEAD_CHARS = 200
# More stubs in a row than this (headings with nothing under them, `_bare_headings`) are
# packed together; up to this many are each a chunk, as before. Runs measured on 8,569
# Markdown files (/usr/share/doc, node_modules, toolchains' docs): 55 of one stub, 8 of
# two, 1 of three, 1 of twelve (node's V8 options); the eval corpora's longest is three
# (marshmallow's docs/index.rst), whose chunks this keeps.
LONE_STUBS = 3
TITLE_BLOCKS_PER_CHUNK = 4  # a run of titles is cut into blocks of ≈ a quarter chunk

# A heading's opening only: the title and its closing #'s are cut with str methods, since
# any regex spelling of "title, then optional blanks, #'s and blanks" backtracks
# polynomially on a long run of blanks (the chunker runs in the daemon, not the worker).
_HEADING_OPEN = re.compile(r"(#{1,6})[ \t]+")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_FENCE_RUN = re.compile(r"(`{3,}|~{3,})")  # matched where a line's indentation ends (Fences)
_BLANKS = re.compile(r"[ \t]*")  # matched from an index: a line's indentation, no copy made
DEEP_BLANKS = 256
# What a line that is a fence's or a list item's first line can start with: any other
# line starts at column 0 with neither, so it opens nothing, closes nothing and ends items.
_MAY_OPEN = frozenset(" \t-+*`~0123456789")
MAX_MARKERS = 8  # list items one line may open ("- 1. ```" opens two); a fence past them is text
# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) and whitespace.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
_NOT_SPACE = re.compile(r"\S")  # what str.strip keeps (both use Unicode's spaces)
_WORD_BREAK = re.compile(r"[^\w\s]")  # punctuation: a long line without spaces is cut after one
_UNDERLINE = re.compile(r"^\s*(=+|-+|~+|\*+)\s*$")


@dataclass(frozen=True)
class ChunkParams:
    target_tokens: int = 500
    overlap_tokens: int = 50

    @property
    def target_chars(self) -> int:
        return self.target_tokens * CHARS_PER_TOKEN

    @property
    def overlap_chars(self) -> int:
        return self.overlap_tokens * CHARS_PER_TOKEN

    def fingerprint(self) -> str:
        return f"v{CHUNKER_VERSION}:t{self.target_tokens}:o{self.overlap_tokens}"


@dataclass(frozen=True)
class Chunk:
    heading: tuple[str, ...]
    text: str
    page: int | None = None
    # `text` without the paragraphs carried over from the previous chunk. The overlap is
    # there for the answer's context; it is already embedded with the chunk it came from,
    # so only this part is embedded — an edit to a carried paragraph re-embeds one chunk.
    fresh: str = ""
    lines: tuple[int, int] | None = None  # first and last line in the file (1-based)
    cells: tuple[int, int] | None = None  # first and last notebook cell (1-based)
    slides: tuple[int, int] | None = None  # first and last slide of a deck (1-based)
    rows: tuple[int, int] | None = None  # first and last row of a sheet (1-based)

    @property
    def embed_text(self) -> str:
        return self.fresh or self.text

    @property
    def heading_path(self) -> str:
        return HEADING_SEPARATOR.join(self.heading)


@dataclass(frozen=True)
class Block:
    """A block of text and the 0-based lines it spans in the text it was split from."""

    text: str
    first: int
    last: int
    code: bool = False  # fenced code (opened by its first line): kept whole, never carried


@dataclass(frozen=True)
class Packed:
    """One packed chunk: all its text, the part not carried over, the lines it spans."""

    text: str
    fresh: str
    first: int
    last: int


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


# The marks a typeset title carries for its footnote (LaTeX's \thanks sets "∗", then "†").
TITLE_NOTE_MARKS = "∗*†‡"


def content_title(text: str, laid_out: bool = False) -> str:
    """The heading of a document that has none: its first line when it reads as a title.

    A title-like first line is short (≤ TITLE_MAX_CHARS), stands alone (a blank line or
    an underline follows it, so it is not the start of a wrapped paragraph or of a
    ``Key: value`` list), does not end like a clause (``.``, ``,``, ``;``, ``:``) and is
    no wiki directive (but an ikiwiki `[[!meta title="…"]]` gives the title it names) nor
    a list's item ("- Introduction"; "* " may be a plain-text outline's heading).
    Text extracted from a page layout (`laid_out`, a PDF) has no blank lines at all, so
    there the first line need not stand alone. Anything else gets the neutral UNTITLED.
    Either way the heading depends on the text only, never on the file's name or folder,
    so a rename leaves every window unchanged.
    """
    lines = split_lines(text[:TITLE_SCAN_CHARS])  # a title is near the top, if anywhere
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return UNTITLED
    if _wiki_directive(lines[first]):
        return _meta_title(lines[first]) or UNTITLED
    if _template_line(lines[first]):
        return UNTITLED
    title = clean_heading(lines[first])
    if laid_out:  # a typeset title's footnote mark: LaTeX's \thanks, "The subcaption package∗"
        title = title.rstrip(TITLE_NOTE_MARKS).rstrip() or title
    after = lines[first + 1] if first + 1 < len(lines) else ""
    stands_alone = laid_out or not after.strip() or _UNDERLINE.match(after) is not None
    if (
        stands_alone
        and len(title) <= TITLE_MAX_CHARS
        and not title.endswith((".", ",", ";", ":"))
        and not _FENCE.match(title)
        and not title.startswith("- ")  # a list's item: an Antora nav.adoc of one entry
        and any(c.isalnum() for c in title)
    ):
        return title
    return UNTITLED


def _meta_title(line: str) -> str:
    """The title an ikiwiki `[[!meta title="OpenID"]]` directive gives its page (the wiki
    shows it as the page's title), or "" when the directive gives none or one too long."""
    stripped = line.strip()
    if not stripped.startswith("[[!meta "):
        return ""
    _, found, rest = stripped.partition('title="')
    title = clean_heading(rest.partition('"')[0]) if found else ""
    return title if len(title) <= TITLE_MAX_CHARS and any(c.isalnum() for c in title) else ""


def _wiki_directive(line: str) -> bool:
    """An ikiwiki directive alone on its line, `[[!meta robots="noindex, follow"]]` or
    `[[!pagestats pages="./tags/*"]]`: the page shows no words for it, or a table it
    generates, never a title (7 of ikiwiki's 99 English pages open with one)."""
    stripped = line.strip()
    return stripped.startswith("[[!") and stripped.endswith("]]")


def _template_line(line: str) -> bool:
    """A line a site generator replaces, never a title: a Jinja tag alone, `{% import … %}`,
    `{{ config.copyright }}`, `{# … #}` (an MkDocs theme override's first text, read as
    HTML), or a snippet include, `--8<-- "LICENSE.md"` (pymdown's Snippets: the whole of
    pymdown-extensions' `about/license.md`)."""
    stripped = line.strip()
    if stripped.startswith("--8<--"):
        return True
    return any(stripped.startswith(o) and stripped.endswith(c) for o, c in _JINJA_TAGS)


_JINJA_TAGS = (("{%", "%}"), ("{{", "}}"), ("{#", "#}"))


def chunk_document(doc: Document, params: ChunkParams = ChunkParams()) -> list[Chunk]:
    if doc.kind == "pdf":
        title = (content_title(doc.pages[0][1], laid_out=True),) if doc.pages else (UNTITLED,)
        return [
            Chunk(title + tuple(map(clean_heading, path)), p.text, page, p.fresh)
            for path, page, text in outlined_pages(doc.pages, doc.outline)
            for p in pack_with_overlap(split_blocks_at(text), params)
        ]
    if doc.kind == "text":
        lead = content_title(doc.text)
        laid_out = text_sections(split_lines(doc.text), lead)
        if laid_out is None:  # no headings: one section, under the content's title
            return [
                Chunk((lead,), p.text, None, p.fresh, **_location(doc, p.first, p.last))
                for p in pack_with_overlap(split_blocks_at(doc.text), params)
            ]
        sections = [Section(tuple(map(clean_heading, p)), body, at) for p, body, at in laid_out]
        top = lead
    else:
        top = content_title(doc.text)
        sections = split_sections(doc.text, top)
        if over_budget(sections, len(doc.text)):  # the title merged runs are headed by
            top = (
                _document_title(split_lines(doc.text))
                or doc.runs_title
                or _not_a_heading(doc.text, top)
            )
    sections = bounded_sections(sections, len(doc.text), params.target_chars, (top,))
    chunks = []
    for heading, lines, start, titles in sections:
        if titles:
            blocks = _title_blocks(lines, params.target_chars // TITLE_BLOCKS_PER_CHUNK)
        else:
            blocks = split_blocks_at("\n".join(lines))
        for p in pack_with_overlap(blocks, params):
            where = _location(doc, start + p.first, start + p.last)
            chunks.append(Chunk(heading, p.text, None, p.fresh, **where))
    return chunks


def _location(doc: Document, first: int, last: int) -> dict[str, tuple[int, int] | None]:
    """{what doc.located counts: span} of the chunk spanning lines `first`..`last` (0-based)
    of `doc.text` (lines, cells, slides or rows)."""
    if doc.located is None:
        return {}
    if doc.origins:
        reaches = (doc.reaches or doc.origins)[first : last + 1]
        known = [
            (start, start if end is None else end)
            for start, end in zip(doc.origins[first : last + 1], reaches, strict=False)
            if start is not None
        ]
        unplaced = any(start == UNPLACED for start, _ in known)
        span = None if unplaced or not known else (min(known)[0], max(e for _, e in known))
    else:
        span = (first + 1, last + 1)
    return {doc.located: span}


def split_sections(text: str, fallback_title: str) -> list[Section]:
    """Markdown → its sections (heading path, body lines, 0-based line of the first body
    line), honouring code fences; bare headings as `_bare_headings` says."""
    lines = split_lines(text)
    document_title = _document_title(lines)
    title = document_title or fallback_title
    stack: list[tuple[int, str]] = []
    sections: list[Section] = []
    current: list[str] = []
    start = 0  # the line `current` starts at
    fences = Fences()
    whole_title = ""  # the last heading's title uncut: its text when nothing is under it
    bare: list[Bare] = []  # the headings since the last section with text under it

    def flush(next_start: int, next_level: int | None = None) -> None:
        """Close the section `current` holds; `next_level`: the heading that follows it
        (None at the end of the file)."""
        nonlocal start
        path = tuple(h for _, h in stack) or (title,)
        if any(line.strip() for line in current):
            sections.extend(_bare_headings(bare, title))
            bare.clear()
            sections.append(Section(path, list(current), start))
        elif stack:
            # Nothing under the heading. With no section inside it either (a stub note
            # that is only its title, "## Deprecated" straight over "## Removed") its
            # title is its text, or no chunk would hold its words (as text_headings does
            # for plain text). Uncut: the path's copy stops at HEADING_MAX_CHARS, and a
            # title past that lost its last words from every chunk.
            stub = next_level is None or next_level <= stack[-1][0]
            bare.append(Bare(path, whole_title, start - 1, stub))
        current.clear()
        start = next_start

    for number, line in enumerate(lines):
        if fences.feed(line):
            current.append(line)
            continue
        heading = atx_heading(line)
        if heading:
            flush(number + 1, heading[0])
            level, raw = heading
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, clean_heading(raw)))
            whole_title = " ".join(raw.split())
            if stack[-1][1].endswith("…") and len(whole_title) > HEADING_MAX_CHARS:
                # Cut in the path, the title is its section's first line of text: its
                # words past the cut were in no chunk (attack63: `# kestrel0 …
                # kestrel2999` over a paragraph, `kestrel2999` found by no BM25 search).
                current.append(whole_title)
                start = number
            continue
        current.append(line)
    flush(len(lines))
    sections.extend(_bare_headings(bare, title))
    return _short_lead_joined(sections) if document_title else sections


def _short_lead_joined(sections: list[Section]) -> list[Section]:
    """`sections` with a short text above the one level-1 heading (a kicker, a breadcrumb,
    a line of badges: filed under that heading already, see `_document_title`) joined to
    the heading's own text, the heading's line a blank between them. Apart it was a chunk
    of its own: javadoc's "Package org.apache.commons.lang3" over "# Class BitField", 32
    characters, was 49 of newuser54's 1,785 chunks."""
    if len(sections) < 2:
        return sections
    lead, first = sections[0], sections[1]
    heading_line = lead.start + len(lead.lines)
    # (a title longer than its path holds is its section's first line: it starts there)
    if lead.start != 0 or lead.path != first.path or first.start - heading_line not in (0, 1):
        return sections  # no text above the title: the file opens with it
    if lead.titles or first.titles:
        return sections
    if sum(len(line.strip()) for line in lead.lines) > SHORT_LEAD_CHARS:
        return sections
    return [Section(first.path, [*lead.lines, "", *first.lines], lead.start), *sections[2:]]


class Bare(NamedTuple):
    """A heading with no text under it: its path, its whole title, its line, and whether
    it is a stub (no heading inside it either)."""

    path: tuple[str, ...]
    title: str
    line: int
    stub: bool


def _title_blocks(lines: list[str], limit: int) -> list[Block]:
    """Bare headings' titles (one a line, "" between) as blocks of whole titles, one a
    line, of at most ≈ `limit` chars, cut at the limit or at an anchor once half full.
    A block is one embedding window (a list's lines), so a title a block made as many
    embeddings as headings (10,012 for 79 KB of "# hN"); never one paragraph, which a
    chunk's limit would cut at full stops or mid-word."""
    blocks: list[Block] = []
    current: list[tuple[int, str]] = []
    size = 0

    def close() -> None:
        nonlocal current, size
        text = "\n".join(t for _, t in current)
        blocks.append(Block(text, current[0][0], current[-1][0]))
        current, size = [], 0

    for number, line in enumerate(lines):
        if not line:
            continue
        if current and size + 1 + len(line) > limit:
            close()
        size += len(line) + (1 if current else 0)
        current.append((number, line))
        if size >= limit // 2 and is_anchor(line):
            close()
    if current:
        close()
    return blocks


def _bare_headings(run: list[Bare], title: str) -> list[Section]:
    """The sections of a run of headings with no text between them.

    Up to LONE_STUBS stubs in a row are each a section of their own, their title as its
    text (a heading over a deeper one is only in that one's path). More are one section
    of titles, every heading of the run a line in it (`_title_blocks`), under the
    path the run's headings share (else the document's title): a file of bare `#` lines
    (an outline, a generated index; 79 KB made ≈ 10,000 one-line chunks, against ≈ 150
    for the same bytes of paragraphs) makes as many chunks as its text fills, and every
    word of it stays in a chunk."""
    stubs = [Section(b.path, [b.title], b.line) for b in run if b.stub]
    if len(stubs) <= LONE_STUBS:
        return stubs
    first = run[0].line
    body = [""] * (run[-1].line - first + 1)  # only blank lines lie between the headings
    shared = run[0].path[:-1]
    for b in run:
        body[b.line - first] = b.title
        same = 0
        while same < min(len(shared), len(b.path) - 1) and shared[same] == b.path[same]:
            same += 1
        shared = shared[:same]
    return [Section(shared or (title,), body, first, titles=True)]


def _not_a_heading(text: str, title: str) -> str:
    """`title`, the content title of a Markdown text, unless it is the text's first heading
    (`## proc p0`, markup and all): that one names its own section, not the file, and as
    the path of the runs of sections merged past the budget (which share no heading) it
    had headed every chunk of a Tcl file of 600 procs, each cited as the first."""
    first = next((line for line in split_lines(text[:TITLE_SCAN_CHARS]) if line.strip()), "")
    return UNTITLED if atx_heading(first) is not None else title


def _document_title(lines: list[str]) -> str | None:
    """The title of the one level-1 heading, when the file has exactly one: that heading
    titles the whole file, so text above it (badges, a byline) goes under it. With several
    (a change log whose releases are level 1, chapters) the first titles only its own
    part: psutil's HISTORY.rst opens with "Bug tracker at …" over `6.1.0`, and that line,
    filed under 6.1.0, was what "What is new in psutil 6.1.0?" anchored and quoted."""
    fences = Fences()
    titles = []
    for line in lines:
        heading = None if fences.feed(line) else atx_heading(line)
        if heading and heading[0] == 1:
            titles.append(heading[1])
            if len(titles) > 1:
                return None
    return clean_heading(titles[0]) if titles else None


class Fences:
    """Which lines of Markdown are fenced code, fed one line at a time (linear: each line
    is scanned once, and a list item is pushed and popped at most once).

    CommonMark's fence is indented at most three columns *relative to the block it is in*.
    A fence inside a list item sits at the item's content column, which is four or more
    in a nested list or under "-   " (mkdocs writes every item that way): read from column
    0, its ``` line was indented code, so its blank lines split the code into prose
    paragraphs and a long one was cut at full stops. So the open list items' content
    columns are tracked (a marker "- ", "* ", "+ ", "1. ", "1) " pushes one, a less indented
    line pops it), and an opener counts from the innermost one; "- ```sh" opens a fence on
    its marker line. Only a bare run of the same character, as long or longer, closes a
    fence (CommonMark): a module docstring's `~~~~` underline inside ```python is code,
    and so are the ``` lines of an example inside a ```` fence. A closer may be less
    indented than its opener (a sloppy closer at column 0 still closes); any other line
    left of the content column of the item the fence is in ends the item and the fence
    (CommonMark), so an unclosed fence in an item stops where its item does, and an
    unclosed top-level one runs on to the end. `anywhere`: an opener at any indentation
    (query.units reads chunk text, which may start inside a list item it cannot see).
    A block quote needs nothing here: each of its lines starts with ">", so none of them
    is a heading or a blank line whether the chunker sees its fence or not (its fence is a
    block of its own all the same: `QuotedFence`).
    """

    def __init__(self, anywhere: bool = False) -> None:
        self.run = ""  # the open fence's run of ` or ~ ("" when none is open)
        self.column = 0  # the column of the container the open fence is in
        self._items: list[int] = []  # content columns of the open list items, increasing
        self._anywhere = anywhere
        self.left = False  # the last line fed ended the fence by leaving its list item
        self.deep = False  # the last line fed is indented 4+ past its container: code or
        # a paragraph's continuation, as the line before decides (formats.rust_hidden)

    def feed(self, line: str) -> bool:
        """Whether `line`, the next line, is code or a fence's own line."""
        self.left = False
        self.deep = False
        if line and line[0] not in _MAY_OPEN:  # most lines: prose at column 0 (a third faster)
            self._items.clear()  # column 0 ends every list item
            if self.run and self.column:
                self.run = ""  # and the fence inside one (see below)
                self.left = True
            return bool(self.run)
        column, at = _indentation(line)
        if self.run:
            closer = opens_fence(line, _FENCE_RUN, at)
            if (
                closer is not None
                and closer.group(1)[0] == self.run[0]
                and len(closer.group(1)) >= len(self.run)
                and not line[closer.end() :].strip()
                and (self._anywhere or column - self.column <= 3)
            ):
                self.run = ""
                return True
            if not (self.column and at < len(line) and column < self.column):
                return True
            # A line left of the item's content column ends the item, and the fence open
            # in it (CommonMark): an unclosed "- ```sh" made the rest of the file code,
            # its headings no headings, where before fences in items it was one item.
            self.run = ""
            self.left = True
        if at == len(line):
            return False  # a blank line ends no list item
        while self._items and self._items[-1] > column:
            self._items.pop()
        for _ in range(MAX_MARKERS + 1):
            if not self._anywhere and column - (self._items[-1] if self._items else 0) > 3:
                self.deep = True
                return False  # indented code (or a paragraph's continuation)
            opener = opens_fence(line, _FENCE_RUN, at)
            if opener is not None:
                self.run = opener.group(1)
                self.column = self._items[-1] if self._items else 0
                return True
            item = _list_marker(line, at, column) if at < len(line) else None
            if item is None:
                return False
            at, column, content = item
            self._items.append(content)
        return False  # "- - - - …": more items opened on one line than any list nests


def opens_fence(line: str, opening: re.Pattern[str] = _FENCE, at: int = 0) -> re.Match[str] | None:
    """`line` (from index `at`) as a fence line (group 1 its run), or None. A backtick
    fence's info string holds no backtick (CommonMark): "```` ```{r} ```` stays a code
    block" is a paragraph opening with inline code; taken for a ```` fence, which only a
    bare ```` closes, it made the rest of docs/formats.md code, its later sections no
    headings."""
    match = opening.match(line, at)
    if match and match.group(1)[0] == "`" and line.find("`", match.end()) != -1:
        return None
    return match


def _indentation(line: str, at: int = 0, column: int = 0) -> tuple[int, int]:
    """The column of `line`'s first non-blank character from index `at` (at `column`) on,
    a tab advancing to the next multiple of four as CommonMark counts, and its index
    (len(line) when there is none). The blanks are found by a regex (C speed); tabs are
    counted one by one only in the first DEEP_BLANKS: past them a line is indented code
    under any list a document holds, so a count of one column per blank will do (a
    4 MB file of tab-indented lines took 1.4 s counted whole, 0.07 s before Fences)."""
    end = _BLANKS.match(line, at).end()  # type: ignore[union-attr]  # `*` always matches
    if end - at > DEEP_BLANKS or line.find("\t", at, end) == -1:
        return column + end - at, end
    for blank in line[at:end]:
        column = column + 4 - column % 4 if blank == "\t" else column + 1
    return column, end


def _list_marker(line: str, at: int, column: int) -> tuple[int, int, int] | None:
    """A list item's marker at `line[at]` (column `column`): "-", "+", "*", or up to nine
    digits and "." or ")", then a blank or the line's end. Returns where the item's text
    starts (index, column) and the item's content column, which is that column unless
    the text is indented five or more past the marker (then it is indented code inside
    an item whose content starts one blank past the marker), or None."""
    end = at
    if line[at] in "-+*":
        end = at + 1
    else:
        while end < len(line) and end - at < 9 and "0" <= line[end] <= "9":
            end += 1
        if end == at or end == len(line) or line[end] not in ".)":
            return None
        end += 1
    if end < len(line) and line[end] not in " \t":
        return None
    marker_end = column + end - at
    text_column, text_at = _indentation(line, end, marker_end)
    if text_at == len(line) or text_column - marker_end > 4:
        return text_at, text_column, marker_end + 1
    return text_at, text_column, text_column


def atx_heading(line: str) -> tuple[int, str] | None:
    """A Markdown `# Title ##` line's level and raw title, or None; linear in the line.

    The title is what is left once trailing blanks, then closing #'s, then blanks are cut
    (at least one character, as the regex this replaces found)."""
    opening = _HEADING_OPEN.match(line)
    if opening is None or "\n" in line:
        return None
    level = len(opening.group(1))
    rest = line[opening.end() :]
    title = rest.rstrip(" \t").rstrip("#").rstrip(" \t")
    if title:
        return level, title
    if rest:  # only closing #'s: the first one is the title
        return level, rest[0]
    # Only blanks: the last of two or more is the title; a single blank is no heading.
    return (level, line[-1]) if opening.end() - level >= 2 else None


def clean_heading(text: str) -> str:
    """One heading level as a chunk's heading path holds it: blanks collapsed, a literal
    " > " kept from faking a level, cut at HEADING_MAX_CHARS."""
    # " > " separates levels; keep a literal ">" in a heading from faking a level.
    cleaned = re.sub(r"\s+", " ", text.replace(" > ", " › ")).strip()
    if len(cleaned) > HEADING_MAX_CHARS:
        return cleaned[: HEADING_MAX_CHARS - 1].rstrip() + "…"
    return cleaned


def split_blocks(text: str) -> list[str]:
    """Paragraphs separated by blank lines; a fenced code block is one block."""
    return [block.text for block in split_blocks_at(text)]


def split_blocks_at(text: str) -> list[Block]:
    """`split_blocks`, each block with the lines of `text` it spans."""
    blocks: list[Block] = []
    current: list[str] = []
    first = 0  # the line `current` starts at
    fences = Fences()

    def close(body: str, code: bool = False) -> None:
        blocks.append(Block(body, first, first + body.count("\n"), code))

    quoted = QuotedFence()
    code_from = 0  # where in `current` the quoted fence open in it starts

    def close_quoted() -> None:
        """`current` as the quote's prose before its fence, then the fence: a block of
        code. A fence left with only its opener (a notebook's `> ```python` over code
        written outside the quote) stays in the prose it opened in."""
        nonlocal current, first
        if len(current) - code_from < 2:
            return
        prose = current[:code_from]
        if any(c.strip() for c in prose):
            close("\n".join(prose).strip("\n"))
        first += code_from
        close("\n".join(current[code_from:]), code=True)
        current = []

    for number, line in enumerate(split_lines(text)):
        if not current:
            first = number
        was_open = bool(fences.run)
        code = fences.feed(line)
        if fences.left:  # the line left the list item whose fence never closed
            close("\n".join(current).strip("\n"), code=True)
            current, first, was_open = [], number, False
        # A quoted fence is open only where `Fences` has none; a line that opens one of
        # its own starts with no ">", so it leaves the quote.
        state = quoted.feed(line) if quoted.run or not (was_open or code) else quoted.NONE
        if state == quoted.OPENED:
            code_from = len(current)
        if state in (quoted.OPENED, quoted.INSIDE, quoted.CLOSED):
            current.append(line)
            if state == quoted.CLOSED:
                close_quoted()
            continue
        if state == quoted.LEFT:  # the quote ends, and the fence open in it (CommonMark)
            close_quoted()
            if not current:
                first = number
        if was_open:
            current.append(line)
            if not fences.run:
                close("\n".join(current), code=True)
                current = []
            continue
        if code:  # this line opens a fence
            if any(c.strip() for c in current):
                close("\n".join(current).strip("\n"))
            current, first = [line], number
            continue
        if not line.strip():
            if any(c.strip() for c in current):
                close("\n".join(current).strip("\n"))
            current = []
            continue
        current.append(line.rstrip())
    if quoted.run:
        close_quoted()
    if any(c.strip() for c in current):
        close("\n".join(current).strip("\n"), code=bool(fences.run))
    return blocks


class QuotedFence:
    """A fence inside a block quote (`> ```sh` … `> ````), fed the lines `Fences` reads as
    no code, one at a time. `Fences` needs no quotes to find headings and blank lines (a
    quote's every line starts with ">"), but a block of them is a paragraph: a quoted
    fence's lines were one with the quote's prose, and a block longer than a chunk was cut
    at full stops and joined with spaces ("> echo step 50." / "done; ls"), its later
    pieces with no fence. The fence is open in a quote `depth` markers deep; a closing run
    at that depth closes it, and a line with fewer markers ends the quote and the fence
    (CommonMark: a fence ends with its container; a lazy line is no continuation in it)."""

    NONE, OPENED, INSIDE, CLOSED, LEFT = range(5)

    def __init__(self) -> None:
        self.run = ""  # the open fence's run of ` or ~ ("" when none is open)
        self.depth = 0  # the quote markers before it

    def feed(self, line: str) -> int:
        """What `line` is to a quoted fence: none, its opener, a line inside it, its
        closer, or the line that left its quote."""
        depth, at = _quote_markers(line)
        if self.run:
            if depth < self.depth:
                self.run = ""
                return self.LEFT
            if depth == self.depth and _closes(line[at:], self.run):
                self.run = ""
                return self.CLOSED
            return self.INSIDE
        if not depth:
            return self.NONE
        start = _indentation(line, at)[1]
        opener = opens_fence(line, _FENCE_RUN, start) if start - at <= 3 else None
        if opener is None:
            return self.NONE
        self.run, self.depth = opener.group(1), depth
        return self.OPENED


MAX_QUOTES = 8  # quote markers counted on one line; a fence past them is the quote's text


def _quote_markers(line: str) -> tuple[int, int]:
    """How many block quote markers `line` opens with (`>`, each after at most three
    blanks and followed by an optional one), and the index after them; bounded by
    MAX_QUOTES."""
    depth, at = 0, 0
    for _ in range(MAX_QUOTES):
        start = at
        while at < len(line) and at - start < 3 and line[at] == " ":
            at += 1
        if at == len(line) or line[at] != ">":
            return depth, start
        depth, at = depth + 1, at + 1
        if at < len(line) and line[at] in " \t":
            at += 1
    return depth, at


def is_code(block: str) -> bool:
    """`block` (from `split_blocks`) is fenced code: its first line opens a fence, at any
    indentation or behind a list marker (the block does not show the list item it is in)."""
    return Fences(anywhere=True).feed(block.split("\n", 1)[0])


def sentence_ends(text: str) -> int:
    """How many places `sentence_spans` may cut `text` at (what windowing a long block
    costs: one tokenizer call per sentence, `planner.chunking_cost`)."""
    return sum(1 for _ in _SENTENCE_END.finditer(text))


def split_sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `text` is: (start, end) offsets, surrounding space excluded."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in [*_SENTENCE_END.finditer(text), None]:
        piece = text[start : match.start() if match else len(text)]
        stripped = piece.strip()
        if stripped:
            lead = start + len(piece) - len(piece.lstrip())
            spans.append((lead, lead + len(stripped)))
        if match:
            start = match.end()
    return spans


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for line in text.split("\n"):
        spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


_FENCE_ONLY = re.compile(r"[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*$")  # a bare fence line
# What may stand before a fence's run on its opening line: indentation, quote markers, a
# list item's marker (`- `, `1. `)
_CONTAINER_CHARS = frozenset(" \t>-*+.)0123456789")


def _split_oversized(block: Block, limit: int) -> list[Block]:
    """Cut a block that is larger than a chunk into pieces of at most `limit` chars,
    each with the lines it spans."""
    text = block.text
    if block.code:
        spans = [(start, end, "\n") for start, end in _line_spans(text)]  # whole lines
    else:
        spans = _prose_spans(text, limit)

    counted, line = 0, block.first  # newlines are counted once, as offsets only grow

    def line_at(offset: int) -> int:
        nonlocal counted, line
        if offset < counted:  # not expected (pieces come in order), but never wrong
            counted, line = 0, block.first
        line += text.count("\n", counted, offset)
        counted = offset
        return line

    def piece(body: str, start: int, end: int) -> Block:
        # Only the piece holding the opening fence line counts as code, as when is_code
        # read each piece's first line: the later pieces may be carried as overlap.
        return Block(body, line_at(start), line_at(end), block.code and start == 0)

    pieces: list[Block] = []
    current = ""
    begin = last_end = 0  # where `current` starts and ends in `text`
    for index, (start, end, joiner) in enumerate(spans):
        while end - start > limit:  # a "sentence" with no boundary (e.g. minified text)
            if current:
                pieces.append(piece(current, begin, last_end))
                current = ""
            head_end, rest = _cut(text, start, end, limit)
            pieces.append(piece(text[start:head_end], start, head_end))
            start = rest
        unit = text[start:end]
        candidate = f"{current}{joiner}{unit}" if current else unit
        # A code block's closing fence stays with the lines it closes: alone it was a
        # chunk of "```", with no line of the file (attack53, a 36 KB YAML value).
        closing = (
            block.code
            and index == len(spans) - 1
            and _FENCE_ONLY.match(unit.lstrip(" \t>")) is not None  # a quote's `> ```` too
        )
        if len(candidate) > limit and current and not closing:
            pieces.append(piece(current, begin, last_end))
            current, begin = unit, start
        else:
            if not current:
                begin = start
            current = candidate
        last_end = end
    if current:
        pieces.append(piece(current, begin, last_end))
    return _each_fenced(pieces) if block.code else pieces


def _each_fenced(pieces: list[Block]) -> list[Block]:
    """The pieces of a code block cut at line breaks, each a fenced block of its own: the
    first holds the opening fence, the last the closing one, and a piece between held
    neither, so it read as prose (Doxygen's source listings, one block a file, were
    quoted as sentences with their line numbers run together, "1015 for (;;) { 1016 …";
    newuser55). Each piece without one gets the block's opening line or a closing fence
    of the same run; a piece's lines are still the file's."""
    if len(pieces) < 2:
        return pieces
    opening = pieces[0].text.split("\n", 1)[0]
    fence = _container_fence(opening)
    if fence is None:
        return pieces
    prefix, run = fence
    closing = prefix + run
    opening = _carried_opening(opening, run)
    fenced = []
    for number, piece in enumerate(pieces):
        text = piece.text
        if number > 0:
            text = f"{opening}\n{text}"
        if number < len(pieces) - 1 or not _closes(text.rsplit("\n", 1)[-1], run):
            text = f"{text}\n{closing}"
        fenced.append(replace(piece, text=text))
    return fenced


# An opening fence line longer than this is carried into a code block's later pieces as
# its containers, its run and its info string's first word (cut to INFO_WORD_CHARS).
CARRIED_OPENING_CHARS = 120
INFO_WORD_CHARS = 40


def _carried_opening(opening: str, run: str) -> str:
    """The opening fence line as each later piece of its block repeats it: whole when
    short, else up to its run and the first word of its info string (the language). A
    2,000-character info string (a fence line of attributes, or a file's text run on after
    its ```) had been repeated in every piece: the index held the file ≈ 3 times over."""
    if len(opening) <= CARRIED_OPENING_CHARS:
        return opening
    end = opening.index(run) + len(run)  # (containers hold no ` or ~: the run's first place)
    words = opening[end : end + CARRIED_OPENING_CHARS].split(None, 1)
    head = opening[:end] if end <= CARRIED_OPENING_CHARS else run  # (containers 100 deep)
    return head + (words[0][:INFO_WORD_CHARS] if words else "")


def _container_fence(opening: str) -> tuple[str, str] | None:
    """The opening fence line `opening`'s run of ` or ~ and what a closing fence puts
    before it: its indentation, and the containers it is in as a closing line writes
    them, a quote's `>` kept and a list item's marker as blanks (`- ```sh` closes with
    `  ````, `> ```` with `> ````). A block opened on an item's marker line or in a
    quote had been cut with no fence at all: its later pieces read as prose (attack56)."""
    at = 0
    while at < len(opening) and opening[at] in _CONTAINER_CHARS:
        at += 1
    rest = opening[at:]
    run = rest[: len(rest) - len(rest.lstrip(rest[:1]))] if rest else ""
    if len(run) < 3 or run[0] not in "`~":
        return None
    prefix = "".join(char if char in ">\t" else " " for char in opening[:at])
    return prefix, run


def _closes(line: str, run: str) -> bool:
    """Whether `line` closes a block opened by the fence `run`: the same character, at
    least as many, alone on the line but for blanks and quote markers. A ``` line inside
    a ```` block that never closes is the block's text, not its end."""
    bare = line.lstrip(" \t>").rstrip()
    return len(bare) >= len(run) and bare.count(run[0]) == len(bare)


def _prose_spans(text: str, limit: int) -> list[tuple[int, int, str]]:
    """The units an oversized paragraph is packed from: (start, end, what joins it to the
    unit before). Sentences joined by a space, except in a list: a man page's `.TP`
    options (`- timeout:n — …`, one a line, no blank line between) were cut at full
    stops and joined by spaces, so one piece ran "… capped to 15. - timeout:n — …" and
    the keyless answer's sentences crossed from one option into the next. Each item of
    a bulleted list is a unit of its own on its own line (sentences only inside an item
    longer than a chunk), as Markdown's lists are where they fit a chunk."""
    starts = _item_starts(text)
    if not starts:
        return [(start, end, " ") for start, end in sentence_spans(text)]
    spans: list[tuple[int, int, str]] = []
    for begin, finish in zip([0, *starts], [*starts, len(text)], strict=True):
        # the lead-in above the first item and each item, on a line of its own; an item
        # keeps its indentation (a nested item, a key in a page `man` rendered as text)
        piece = text[begin:finish].rstrip()
        if not piece.strip():
            continue
        if begin == 0:
            begin += len(piece) - len(piece.lstrip())
            piece = piece.lstrip()
        if len(piece) <= limit:
            spans.append((begin, begin + len(piece), "\n"))
            continue
        for index, (start, end) in enumerate(sentence_spans(piece)):
            spans.append((begin + (start if index else 0), begin + end, " " if index else "\n"))
    return spans


def _item_starts(text: str) -> list[int]:
    """Offsets of the lines of `text` after its first that open a bulleted list item
    ("- ", "* ", "+ " after any indentation); one pass, no regex."""
    starts = []
    offset = text.find("\n") + 1
    while offset:
        at = offset
        while at < len(text) and text[at] in " \t":
            at += 1
        if text[at : at + 2] in ("- ", "* ", "+ "):
            starts.append(offset)
        offset = text.find("\n", offset) + 1
    return starts


def _cut(text: str, start: int, end: int, limit: int) -> tuple[int, int]:
    """Where to cut `text[start:end]`, longer than `limit`: at its last space in the first
    `limit` chars (if past half of them), else at `limit`. Returns the end of the head
    (trailing space dropped) and where the rest starts (leading space dropped). A line
    break is a space too: a run of one-word lines (merged headings, a word list) was cut
    inside a word, which then matched no search for either half.

    Offsets only: slicing off the rest at every cut copied the remainder each time, so one
    20 MB sentence (a text without full stops, well inside `max_text_mb`) took time
    quadratic in its length on the daemon's planner thread (8 MB: 6.7 s)."""
    space = max(text.rfind(" ", start, start + limit), text.rfind("\n", start, start + limit))
    cut = start + (space - start if space - start > limit // 2 else limit)
    if space - start <= limit // 2:
        cut = _after_last_break(text, start + limit // 2, cut)
    head_end = start + len(text[start:cut].rstrip())
    found = _NOT_SPACE.search(text, cut, end)
    return head_end, found.start() if found else end


def _after_last_break(text: str, low: int, high: int) -> int:
    """Just past the last character of `text[low:high]` that is no part of a word
    (punctuation: `,` `"` `;` `(` …), else `high`. A line with no space in the second half
    of a chunk (minified JavaScript, a rustdoc `sidebar-items.js`, a JSON array on one
    line) was cut at exactly the chunk's size, inside an identifier (`vdupq_la` |
    `ne_s64`), whose halves then matched no search. The window is read reversed, once per
    cut, and a cut moves on by at least half a chunk: linear in the line."""
    found = _WORD_BREAK.search(text[low:high][::-1])
    return high - found.start() if found else high


ANCHOR_PREFIX = 48


def is_anchor(unit: str) -> bool:
    """A content-defined cut point: about one paragraph in three, decided by its own hash.

    Cutting after anchors (once a chunk is at least half full) instead of purely greedily
    keeps chunk boundaries where they were when an earlier paragraph grows or shrinks:
    the boundaries re-synchronise at the next anchor, so an edit re-embeds only nearby
    chunks instead of every later one in the section.
    """
    # Only the paragraph's opening is hashed, so an edit further in keeps the cut point.
    digest = hashlib.blake2b(unit[:ANCHOR_PREFIX].encode("utf-8"), digest_size=2).digest()
    return int.from_bytes(digest, "big") % 3 == 0


def pack_with_overlap(blocks: list[Block], params: ChunkParams) -> list[Packed]:
    """Pack whole blocks into chunks: cut at the size limit, or at an anchor past half of it.

    Each new chunk starts with ≈ `overlap_tokens` of whole trailing paragraphs from the
    previous one.
    """
    limit = params.target_chars
    # Code stays atomic up to 3 chunks' worth; past that it is cut at line breaks.
    units: list[Block] = []
    for block in blocks:
        cap = limit * 3 if block.code else limit
        units.extend(_split_oversized(block, limit) if len(block.text) > cap else [block])
    chunks: list[tuple[list[Block], int]] = []  # (blocks, how many lead blocks are overlap)
    current: list[Block] = []
    size = 0
    fresh = 0  # blocks in `current` that are not overlap from the previous chunk

    def close() -> None:
        nonlocal current, size, fresh
        chunks.append((current, len(current) - fresh))
        current = _overlap(current, params.overlap_chars)
        size = sum(len(b.text) for b in current) + 2 * max(0, len(current) - 1)
        fresh = 0

    for unit in units:
        added = len(unit.text) + (2 if current else 0)
        if current and fresh and size + added > limit:
            close()
            added = len(unit.text) + (2 if current else 0)
            if size + added > limit:  # overlap would overflow: drop it
                current, size = [], 0
                added = len(unit.text)
        current.append(unit)
        size += added
        fresh += 1
        if size >= limit // 2 and is_anchor(unit.text):
            close()
    if current and fresh:
        chunks.append((current, len(current) - fresh))
    return [
        Packed(
            "\n\n".join(b.text for b in c),
            "\n\n".join(b.text for b in c[carried:]),
            c[0].first,
            c[-1].last,
        )
        for c, carried in chunks
    ]


def _overlap(previous: list[Block], budget: int) -> list[Block]:
    """Trailing whole paragraphs (no code) of `previous` within ≈ `budget` chars."""
    carried: list[Block] = []
    used = 0
    for block in reversed(previous[1:]):  # never carry the whole previous chunk
        if block.code or used + len(block.text) > budget * 1.5:
            break
        carried.insert(0, block)
        used += len(block.text)
        if used >= budget:
            break
    return carried

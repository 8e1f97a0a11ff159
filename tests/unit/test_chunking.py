import itertools

from ragd.ingest.chunking import (
    HEADING_MAX_CHARS,
    UNTITLED,
    ChunkParams,
    chunk_document,
    content_title,
    estimate_tokens,
    split_blocks,
    split_sections,
)
from ragd.ingest.document import split_lines
from ragd.ingest.loaders import Document, parse


def md(text: str, title: str = "doc") -> list:
    return chunk_document(Document(kind="markdown", title=title, text=text, located="lines"))


def test_every_chunk_has_exactly_one_heading_path() -> None:
    chunks = md("# Guide\nintro\n## Setup\nsteps here\n### Linux\napt install\n## Usage\nrun it\n")
    assert [c.heading_path for c in chunks] == [
        "Guide",
        "Guide > Setup",
        "Guide > Setup > Linux",
        "Guide > Usage",
    ]
    assert [c.text for c in chunks] == ["intro", "steps here", "apt install", "run it"]


def test_text_before_first_heading_belongs_to_the_title() -> None:
    chunks = md("Preface words.\n\n# The Title\n\nBody.\n")
    assert chunks[0].heading_path == "The Title"
    # Short, it is read with the title's first paragraph (chunker 109: javadoc's "Package
    # org.apache.commons.lang3" over "# Class BitField" had been a chunk of its own, 49
    # of newuser54's 1,785); a longer text above the title stays a chunk of its own.
    assert [c.text for c in chunks] == ["Preface words.\n\nBody."]
    preface = "A preface of some length. " * 10
    chunks = md(f"{preface}\n\n# The Title\n\nBody.\n")
    assert [c.heading_path for c in chunks] == ["The Title", "The Title"]
    assert chunks[1].text == "Body."
    no_h1 = md("Loose text.\n\n## Section\n\nMore.\n", title="notes")
    assert no_h1[0].heading_path == UNTITLED  # never the file name: a rename keeps it
    assert no_h1[1].heading_path == "Section"


def test_text_before_the_first_of_several_top_headings_is_not_filed_under_it() -> None:
    """nu22 (psutil, held out): HISTORY.rst opens with "Bug tracker at …" over its first
    release, `6.1.0`, and every release is a top heading. The line was filed under 6.1.0,
    so "What is new in psutil 6.1.0?" anchored that one-line chunk and quoted only it."""
    log = "Bug tracker at https://example.org/issues\n\n# 6.1.0\n\n- faster\n\n# 6.0.0\n\n- ports\n"
    chunks = md(log)
    assert chunks[0].text == "Bug tracker at https://example.org/issues"
    assert "6.1.0" not in chunks[0].heading_path
    assert [c.heading_path for c in chunks[1:]] == ["6.1.0", "6.0.0"]


def test_hash_inside_a_fence_is_code_not_a_heading() -> None:
    text = "# Ops\n\n```bash\n# restart the service\nsystemctl restart x\n# done\n```\n\nAfter.\n"
    chunks = md(text)
    assert len(chunks) == 1
    assert chunks[0].heading_path == "Ops"
    assert "# restart the service" in chunks[0].text and "After." in chunks[0].text


def test_code_fence_is_atomic_when_packing() -> None:
    para = "word " * 300  # ≈ 1,500 chars
    code = "```\n" + "\n".join(f"# line {i} " + "x" * 40 for i in range(20)) + "\n```"
    chunks = md(f"# T\n\n{para}\n\n{code}\n\n{para}\n")
    holders = [c for c in chunks if "# line 0" in c.text]
    assert len(holders) == 1
    assert "# line 19" in holders[0].text  # not cut


def test_packing_respects_target_and_overlaps_with_whole_paragraphs() -> None:
    paragraphs = [f"Paragraph {i} says something useful about topic {i}. " * 3 for i in range(40)]
    chunks = md("# Big\n\n" + "\n\n".join(paragraphs))
    params = ChunkParams()
    assert len(chunks) > 3
    for chunk in chunks:
        assert estimate_tokens(chunk.text) <= params.target_tokens * 1.05
        # every piece of every chunk is a whole paragraph
        for piece in chunk.text.split("\n\n"):
            assert piece in paragraphs or piece.strip() in [p.strip() for p in paragraphs]
    for before, after in itertools.pairwise(chunks):
        first = after.text.split("\n\n")[0]
        assert first in before.text  # overlap carried over from the previous chunk
        assert estimate_tokens(first) <= params.overlap_tokens * 1.5


def test_oversized_paragraph_is_split_at_sentence_boundaries() -> None:
    sentences = [f"Sentence number {i} is here." for i in range(200)]
    chunks = md("# Long\n\n" + " ".join(sentences))
    assert len(chunks) >= 2
    for chunk in chunks:
        assert chunk.text.endswith(".")
        assert estimate_tokens(chunk.text) <= ChunkParams().target_tokens


def test_an_oversized_list_is_cut_between_items_each_on_its_own_line() -> None:
    # A tight list (no blank lines) far larger than a chunk: one block, cut into pieces.
    # Each item stays whole on its own line, a nested one with its indentation (the second
    # item's long body is cut only at its own full stops); the lead-in keeps its line.
    items = [f"- item{i} — Sets knob {i}. It is told here at length, twice." for i in range(80)]
    items[1] = "- item1 — " + " ".join(f"Long sentence {j} of item one." for j in range(120))
    items[5] = "  - item5 — A nested item. It is told here at length, twice."
    text = "# Options\n\nThe options:\n" + "\n".join(items) + "\n"
    chunks = md(text)
    lines = split_lines(text)
    assert len(chunks) >= 3
    kept = [line for c in chunks for line in c.fresh.split("\n")]
    for i, item in enumerate(items):
        if i != 1:
            assert item in kept, item  # whole, on a line of its own
    assert not any(" - item" in line.lstrip() for c in chunks for line in c.text.split("\n"))
    assert kept[0] == "The options:"
    for chunk in chunks:
        assert covers(chunk, lines), chunk.lines
        assert estimate_tokens(chunk.text) <= ChunkParams().target_tokens


def test_pdf_chunks_keep_their_page() -> None:
    doc = Document(kind="pdf", title="report", pages=[(1, "First page text."), (2, "Second.")])
    chunks = chunk_document(doc)
    assert [(c.page, c.heading_path) for c in chunks] == [(1, UNTITLED), (2, UNTITLED)]


def test_a_pdf_title_s_footnote_mark_is_not_part_of_it() -> None:
    """LaTeX's \\thanks puts "∗" after a manual's title: every chunk of subcaption's
    manual was headed "The subcaption package∗" (nu52a)."""
    for marked in ("The subcaption package∗", "The subcaption package*†"):
        doc = Document(kind="pdf", title="s", pages=[(1, f"{marked}\nAxel Sommerfeldt\nText.")])
        assert {c.heading_path for c in chunk_document(doc)} == {"The subcaption package"}
    # Only a PDF's: a Markdown or text title keeps what it says.
    assert content_title("Footnotes*\n\ntext") == "Footnotes*"


def test_heading_levels_pop_correctly() -> None:
    sections = split_sections("# A\nx\n### C\ny\n## B\nz\n# D\nw\n", "f")
    assert [s[0] for s in sections] == [("A",), ("A", "C"), ("A", "B"), ("D",)]
    assert [s[2] for s in sections] == [1, 3, 5, 7]  # where each body starts (0-based)


def test_a_heading_with_nothing_under_it_keeps_its_words_in_a_chunk() -> None:
    """A Markdown file that is only its title (a stub note), or a heading straight above
    one of its own level ("## Deprecated" over "## Removed"), held its words in no chunk:
    the file was "indexed: 0 chunks" and no search found it. Its title is its text, as
    plain text's underlined titles are (text_headings)."""
    stub = Document(kind="markdown", title="plan", text="# Walrus migration plan\n")
    assert [(c.heading, c.text) for c in chunk_document(stub)] == [
        (("Walrus migration plan",), "Walrus migration plan")
    ]
    sections = split_sections("# Changes\n## Deprecated\n\n## Removed\n- the winch\n", "f")
    assert [(s[0], [line for line in s[1] if line], s[2]) for s in sections] == [
        (("Changes", "Deprecated"), ["Deprecated"], 1),
        (("Changes", "Removed"), ["- the winch"], 4),
    ]
    # A heading over a section inside it is that section's heading path, not text.
    assert [s[0] for s in split_sections("# A\n## B\nb\n", "f")] == [("A", "B")]


def test_a_long_heading_with_nothing_under_it_keeps_every_word() -> None:
    """Its heading path is cut at HEADING_MAX_CHARS; its text was the cut copy, so the
    words past the cut ("sextant" here) were in no chunk at all."""
    title = " ".join(["provisioning"] * 30) + " sextant"
    text = f"# Log\n\n## {title}\n\n## Next\n\nbody\n"
    chunks = chunk_document(Document(kind="markdown", title="log", text=text))
    assert len(title) > HEADING_MAX_CHARS
    assert [c.text for c in chunks] == [title, "body"]
    assert chunks[0].heading[-1].endswith("…")  # the path's copy is still the cut one


def test_a_long_heading_over_text_keeps_every_word() -> None:
    """The same with text under it (attack63): the words past the cut were only in the
    path's copy, cut, so `kestrel299` was found by no BM25 search. The whole title is its
    section's first line of text, on the heading's own line."""
    title = " ".join(f"kestrel{i}" for i in range(300))
    chunks = md(f"# {title}\n\nThe body of the section says little.\n\n## Short\n\ntext\n")
    assert len(title) > HEADING_MAX_CHARS
    said = " ".join(c.text for c in chunks).split()
    assert set(title.split()) <= set(said) and said.count("kestrel299") == 1
    assert all(c.heading[0].endswith("…") for c in chunks[:-1])
    assert chunks[0].lines == (1, chunks[0].lines[1]) and chunks[-1].text == "text"
    short = md("# A short title\n\nbody\n")  # a title the path holds whole is no text
    assert [(c.heading, c.text) for c in short] == [(("A short title",), "body")]


def test_a_short_lead_above_a_long_title_stays_joined_to_its_text() -> None:
    """A line of badges above the one title is joined to the title's text (chunker
    version 109); once a long title was its section's first line (attack63) the badges
    were a chunk of their own again (review63)."""
    title = " ".join(f"kestrel{i}" for i in range(60))
    chunks = md(f"Badges: build passing\n\n# {title}\n\nThe body of the section.\n")
    assert len(chunks) == 1 and len(title) > HEADING_MAX_CHARS
    assert chunks[0].text.split() == [
        "Badges:",
        "build",
        "passing",
        *title.split(),
        *"The body of the section.".split(),
    ]


def test_a_file_of_bare_headings_makes_as_many_chunks_as_its_text_fills() -> None:
    """79 KB of bare `#` lines made one chunk per heading (thousands), against a few dozen
    for the same bytes of paragraphs: the chunk count followed the headings, not the text.
    Now a run of stubs is packed in blocks of lines, and every word stays in a chunk."""
    size = 40_000
    flat = "".join(f"# Heading number {i}\n" for i in range(4_000))[:size]
    nested = "".join(f"# Part {i}\n## Chapter {i}\n\n### Section {i}\n" for i in range(2_000))
    prose = "".join(f"Paragraph {i} tells of the harbour and its ferries.\n\n" for i in range(900))
    notes = md("# Notes\n\n" + prose[:size])

    def blocks(chunks: list) -> int:  # each block is one embedding window, or more
        return sum(len(split_blocks(c.fresh or c.text)) for c in chunks)

    for outline in (flat, nested[:size]):
        chunks = md(outline)
        assert len(chunks) <= 2 * len(notes)
        assert blocks(chunks) <= blocks(notes)  # not a window per heading either
        titles = {line for c in chunks for line in (c.fresh or c.text).split("\n")}
        assert all(line.lstrip("#").strip() in titles for line in outline.splitlines())
        assert all(c.lines is not None for c in chunks)


def test_up_to_three_stubs_in_a_row_stay_chunks_of_their_own() -> None:
    """Such runs are common in real documents and the eval corpora (marshmallow's index
    has three); they keep the chunks they had. A fourth packs the run under its parent."""
    three = "# API\n\n## Deprecated\n\n## Removed\n\n## Renamed\n\n## Added\n\nThe winch.\n"
    assert [(c.heading_path, c.text) for c in md(three)] == [
        ("API > Deprecated", "Deprecated"),
        ("API > Removed", "Removed"),
        ("API > Renamed", "Renamed"),
        ("API > Added", "The winch."),
    ]
    options = "".join(f"### `--opt-{i}`\n\n" for i in range(4))
    text = f"# CLI\n\n## V8 options\n\nThese pass to V8:\n\n{options}## Next\n\nBody.\n"
    chunks = md(text)
    assert [c.heading_path for c in chunks] == [
        "CLI > V8 options",
        "CLI > V8 options",
        "CLI > Next",
    ]
    assert chunks[1].text == "\n".join(f"`--opt-{i}`" for i in range(4))  # one block
    assert chunks[1].lines == (7, 13)


# -- headings of heading-less text, and locations -------------------------------------


def test_heading_less_text_is_headed_by_its_content_never_its_name() -> None:
    assert content_title("Ferry timetable\n\nBoats leave at nine.\n") == "Ferry timetable"
    assert content_title("\n\nRelease Notes\n=============\nv1 fixed it.\n") == "Release Notes"
    # the first line of a wrapped paragraph, a sentence, a key: value list → neutral label
    assert content_title("This paragraph wraps\nonto a second line.\n") == UNTITLED
    assert content_title("Boats leave at nine.\n\nMore.\n") == UNTITLED
    assert content_title("Metadata-Version: 2.1\nName: x\n") == UNTITLED
    assert content_title("x" * 81 + "\n\nbody\n") == UNTITLED
    assert content_title("") == UNTITLED
    # a list item alone, as an Antora nav.adoc of one entry reads: "- Introduction"
    assert content_title("- Introduction\n") == UNTITLED
    assert content_title("- Unlang\n\n  - Keywords\n") == UNTITLED
    text = b"Harbour notices\n\nThe ferry leaves at nine.\n"
    for name in ("a.txt", "renamed.txt", "deep/er/other-name.txt"):
        chunks = chunk_document(parse(name, text))
        assert [c.heading_path for c in chunks] == ["Harbour notices"]


def covers(chunk, lines: list[str]) -> bool:  # type: ignore[no-untyped-def]
    """The chunk's text, word for word, lies in its line range, and in no smaller one."""
    words = f" {' '.join(chunk.text.split())} "

    def holds(first: int, last: int) -> bool:
        return words in f" {' '.join(' '.join(lines[first - 1 : last]).split())} "

    first, last = chunk.lines
    tight = first == last or not (holds(first + 1, last) or holds(first, last - 1))
    return holds(first, last) and tight


def test_every_chunk_knows_the_lines_it_spans() -> None:
    paragraphs = [f"Paragraph {i} says something useful about topic {i}. " * 3 for i in range(30)]
    body = "\n\n".join(p.strip() for p in paragraphs)
    text = f"# Big\n\nIntro line.\n\n## Part\n\n{body}\n\n```sh\n# not a heading\nls\n```\n"
    chunks = md(text)
    lines = split_lines(text)
    assert len(chunks) > 3
    for chunk in chunks:
        assert covers(chunk, lines), chunk.lines
    assert chunks[0].lines == (3, 3)
    assert chunks[-1].lines[1] == len(lines) - 1  # the closing fence


def test_a_split_paragraph_keeps_the_lines_of_each_piece() -> None:
    # One hard-wrapped paragraph far larger than a chunk, then minified text on one line.
    wrapped = "\n".join(f"Sentence number {i} is on line {i + 1}." for i in range(400))
    text = wrapped + "\n\n" + " ".join(["minified"] * 2000) + "\n"
    chunks = chunk_document(parse("notes.txt", text.encode()))
    lines = split_lines(text)
    assert len(chunks) > 4
    for chunk in chunks:
        assert covers(chunk, lines), chunk.lines
    assert chunks[0].lines[0] == 1
    assert chunks[-1].lines == (402, 402)


def test_an_edit_above_moves_the_lines_not_the_chunks() -> None:
    text = "# Guide\n\nFirst part.\n\n## Setup\n\nRun the installer.\n"
    before = md(text)[-1]
    after = md(text.replace("First part.", "First part.\n\nA new paragraph\nover two lines."))[-1]
    assert (before.heading, before.text) == (after.heading, after.text)  # same chunk id
    assert (before.lines, after.lines) == ((7, 7), (10, 10))


def test_a_tilde_underline_inside_a_code_fence_does_not_end_it() -> None:
    # requests' hooks.py: the module docstring underlines its name with ~~~, and a
    # comment further down starts with "# ". Taken for a fence's end, the ~~~ left that
    # comment read as a Markdown title heading the module's first chunk.
    source = (
        '"""\nrequests.hooks\n~~~~~~~~~~~~~~\n\nThe hooks system.\n"""\nHOOKS = ["response"]\n\n\n'
        "def default_hooks():\n    return {event: [] for event in HOOKS}\n\n\n"
        "# TODO: response is the only one\n\n\n"
        "def dispatch_hook(key, hooks):\n    return hooks\n"
    )
    chunks = chunk_document(parse("hooks.py", source.encode()))
    assert all("TODO" not in c.heading_path for c in chunks)
    assert [c.heading_path for c in chunks][1:] == ["def default_hooks", "def dispatch_hook"]
    markdown = "Intro\n\n```text\n~~~~\n# not a heading\n```\n\n# Real\n\nBody.\n"
    chunks = chunk_document(parse("n.md", markdown.encode()))
    assert [c.heading_path for c in chunks] == ["Real"]  # the short intro joins its text
    assert "# not a heading" in chunks[0].text and "Body." in chunks[0].text


def test_a_longer_fence_holds_the_shorter_fences_of_its_example() -> None:
    # Documentation about Markdown or MyST shows a fence inside a ```` fence. Closed by
    # the inner ```, the example's second half became prose and the outer ```` opened a
    # fence that swallowed the section's next paragraph into a code block.
    example = "````md\n```{note}\nKeep it short.\n\n```\n````"
    text = f"# Notes\n\nWrite a note like this:\n\n{example}\n\nA note renders as a box.\n"
    blocks = split_blocks(text.split("\n", 2)[2])
    assert blocks == ["Write a note like this:", example, "A note renders as a box."]
    # A line with an info string never closes a fence (it is the example's own line).
    assert split_blocks("```\nfirst\n\n```python\nsecond\n```\n\nafter") == [
        "```\nfirst\n\n```python\nsecond\n```",
        "after",
    ]


def test_a_line_opening_with_inline_code_of_backticks_opens_no_fence() -> None:
    # ragd's own docs/formats.md: a paragraph line starts "```` ```{r} ```` stays a code
    # block". A backtick fence's info string holds no backtick (CommonMark), so that is
    # inline code; taken for a ```` fence, which only a bare ```` line closes, it made the
    # rest of the file code and its five later sections vanished as headings.
    text = (
        "# Formats\n\nA fence named\n```` ```{r} ```` stays a code block.\n\n"
        "# Man pages\n\nRead with troff.\n"
    )
    chunks = chunk_document(parse("formats.md", text.encode()))
    assert "Man pages" in [c.heading_path for c in chunks]
    assert split_blocks("```` ```{r} ```` stays.\n\nafter") == ["```` ```{r} ```` stays.", "after"]
    # A ~~~ fence's info string may hold backticks; a ``` fence with a plain one opens.
    assert split_blocks("~~~ `x`\ncode\n\n~~~\n\nafter")[0] == "~~~ `x`\ncode\n\n~~~"
    assert split_blocks("```python\ncode\n\n```\n\nafter")[0] == "```python\ncode\n\n```"


# -- fences inside list items ------------------------------------------------------------


def test_a_fence_inside_a_list_item_is_one_code_block() -> None:
    """CommonMark indents a fence at most three columns past the block it is in; in a list
    item that is the item's content column, so "    ```" under "1. " or "-   " is a fence.
    Read from column 0 it was indented code: its blank lines cut the code into prose
    paragraphs (rust's releases.md: a backtrace's lines joined by spaces at full stops)."""
    code = "    ```python\n    # the ferry leaves\n\n    def leave():\n        return 9\n    ```"
    assert split_blocks(f"1. Install:\n\n{code}\n\n2. Run it.\n") == [
        "1. Install:",
        code,
        "2. Run it.",
    ]
    nested = "        ```\n        x = 1\n\n        y = 2\n        ```"
    assert split_blocks(f"- a\n    - b\n\n{nested}\n\nafter") == ["- a\n    - b", nested, "after"]
    # A fence can open on the item's own marker line.
    marker = "- ```sh\n  echo a\n\n  echo b\n  ```"
    assert split_blocks(f"{marker}\n- next") == [marker, "- next"]


def test_indented_code_outside_a_list_item_is_still_no_fence() -> None:
    # Four columns past its container is indented code (CommonMark), whose ``` is text.
    blocks = split_blocks("Para\n\n    ```\n    one\n\n    two")
    assert blocks == ["Para", "    ```\n    one", "    two"]
    assert split_blocks("- item\n\n      ```\n      x\n\n      y") == [
        "- item",
        "      ```\n      x",
        "      y",
    ]
    # A less indented line ends the item: "    ```" after it is indented code again.
    assert split_blocks("- item\n\nback out\n\n    ```\n    x\n\n    y")[2:] == [
        "    ```\n    x",
        "    y",
    ]


def test_a_fenced_block_in_a_list_item_is_packed_whole_and_never_carried() -> None:
    """Code is atomic up to three chunks' worth and never carried as overlap; taken for
    prose, a long one was cut at its full stops and rejoined with spaces."""
    lines = [f"    step_{i}(). then({i})" for i in range(60)]  # ≈ 1,800 chars with blanks
    body = "\n\n".join("\n".join(lines[i : i + 6]) for i in range(0, 60, 6))
    code = f"    ```python\n{body}\n    ```"
    para = "The harbour opens at dawn and the ferries leave on the hour. " * 20
    chunks = md(f"# Deploy\n\n{para}\n\n- Run:\n\n{code}\n\n{para}\n")
    holders = [c for c in chunks if "step_0()" in c.text]
    assert len(holders) == 1 and code in holders[0].text
    assert all("step_" not in c.text for c in chunks if c is not holders[0])


def test_a_fence_left_open_in_a_list_item_ends_with_the_item() -> None:
    """review17: since fences in list items count (chunker 16), "- ```sh" without its
    closer made the rest of the file code: the headings after it were no headings, and
    their sections one code block under the heading before. A line left of the item's
    content column ends the item, and the fence in it (CommonMark)."""
    text = "# Guide\n\n- ```sh\n  pip install x\n\n## Usage\n\nRun it.\n\n## Config\n\nSet it.\n"
    chunks = md(text)
    assert [c.heading_path for c in chunks] == ["Guide", "Guide > Usage", "Guide > Config"]
    assert chunks[1].text == "Run it."
    tabbed = "-\t```sh\n\techo a\n\nback out\n\n```py\nb\n```\nafter"
    assert split_blocks(tabbed) == ["-\t```sh\n\techo a", "back out", "```py\nb\n```", "after"]
    # A closer at column 0 still closes, and a top-level fence left open still runs on.
    assert split_blocks("- ```\n  a\n```\nafter") == ["- ```\n  a\n```", "after"]
    assert split_blocks("```\na\n\n# b\n\nc") == ["```\na\n\n# b\n\nc"]


def test_each_piece_of_a_split_code_block_is_fenced() -> None:
    """Only the first piece of a code block cut at line breaks held its opening fence and
    only the last its closing one: a piece between read as prose, and Doxygen's source
    listings (one block a file) were quoted as sentences, "1015 for (;;) { 1016 …"
    (newuser55). Each piece is now a fenced block of the block's own fence, and its lines
    are still the file's."""
    lines = [f"    step_{i} = crossing({i})  # the ferry's {i}th step" for i in range(400)]
    text = "# Ferry\n\n~~~~python\n" + "\n".join(lines) + "\n~~~~\n\nAfter it.\n"
    pieces = [chunk for chunk in md(text) if "step_" in chunk.text]
    assert len(pieces) > 2
    for chunk in pieces:
        body = chunk.text[chunk.text.index("~~~~python") :]
        assert body.startswith("~~~~python\n") and body.rstrip().endswith("\n~~~~"), body[-40:]
        assert body.count("~~~~") == 2
        assert chunk.lines is not None
    kept = "\n".join(chunk.text for chunk in pieces)
    assert all(line in kept for line in lines)


def test_each_piece_of_a_code_block_on_an_item_s_line_is_fenced_and_closed_once() -> None:
    """A block opened on a list item's marker line (`- ```sh`) was cut with no fence at
    all: its later pieces read as prose. A ```` block that never closes and whose last
    line is ``` (its text, not its end) left its last piece open (attack56)."""
    lines = [f"  ferry --berth {i} --crossing {i}  # the {i}th crossing" for i in range(400)]
    text = "# Ferry\n\n- ```sh\n" + "\n".join(lines) + "\n  ```\n\nAfter it.\n"
    pieces = [chunk for chunk in md(text) if "--berth" in chunk.text]
    assert len(pieces) > 2
    for chunk in pieces:
        assert chunk.text.startswith("- ```sh\n") and chunk.text.count("```") == 2, chunk.text
        assert chunk.text.split("\n\n")[0].endswith("\n  ```"), chunk.text[-60:]
    assert all(line in "\n".join(chunk.text for chunk in pieces) for line in lines)
    unclosed = "# Ferry\n\n````\n" + "\n".join(lines) + "\n```\n"
    last = [chunk for chunk in md(unclosed) if "--berth" in chunk.text][-1]
    assert last.text.endswith("\n```\n````"), last.text[-40:]


def test_a_fence_in_a_block_quote_is_a_code_block() -> None:
    """A fence inside a quote (`> ```sh` … `> ````) was the quote's prose: one paragraph
    with the note above it, and past a chunk cut at full stops and joined with spaces
    ("> echo step 50." / "done; ls"), its later pieces with no fence (r58). Now it is a
    block of its own, kept whole up to three chunks, each piece fenced past that; a line
    that leaves the quote ends it, and a quote's prose stays prose."""
    lines = [f"> echo step {i}. done; ls -l /tmp/dir{i}" for i in range(250)]
    text = "# Guide\n\n> Note. Run this first.\n>\n> ```sh\n" + "\n".join(lines)
    chunks = md(text + "\n> ```\n\nAfter it.\n")
    assert chunks[0].text == "> Note. Run this first.\n>"
    pieces = [chunk for chunk in chunks if "echo step" in chunk.text]
    assert len(pieces) > 2
    for chunk in pieces:
        code = chunk.text.split("\n\n")[0]
        assert code.startswith("> ```sh\n") and code.endswith("\n> ```"), code[-60:]
        assert all(line.startswith("> ") for line in code.split("\n")), code
    assert all(line in "\n".join(chunk.text for chunk in pieces) for line in lines)
    left = md("# Guide\n\n> ```sh\n> ls\nAfter it. Then more.\n")
    assert [chunk.text for chunk in left] == ["> ```sh\n> ls\n\nAfter it. Then more."]
    lazy = md("# Guide\n\n> Note:\n> ```python\nres = 1\n")  # a notebook's, opener only
    assert [chunk.text for chunk in lazy] == ["> Note:\n> ```python\nres = 1"]
    prose = md("# Guide\n\n> " + "Quoted words. " * 300 + "\n")
    assert all("\n" not in chunk.text for chunk in prose)


def test_a_split_code_block_s_closing_fence_stays_with_its_last_lines() -> None:
    """A code block larger than a chunk is cut at whole lines; when its closing fence
    was the line that did not fit, it became a chunk of its own, "```", holding no line
    of the file (attack53, a 36 KB YAML value). Every size around the limit: no chunk is
    a bare fence, and every chunk holds a line of the file."""
    limit = ChunkParams().target_chars
    line = "y" * 99  # 20 lines and their 19 line breaks: 1,999 characters, 1 under the limit
    assert 20 * len(line) + 19 == limit - 1
    for count in range(60, 125):  # past 3 chunks: cut at line breaks
        chunks = md("# Code\n\n```\n" + "\n".join([line] * count) + "\n```\n")
        assert all(chunk.text.strip("`\n ") for chunk in chunks), count
        assert all(chunk.lines is not None for chunk in chunks), count

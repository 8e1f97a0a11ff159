"""How many of the words an HTML page shows reach the index.

Usage: python bench/html_words.py [-v] [--top N] FOLDER_OR_PAGE [...]

For every `.html`/`.htm`/`.xhtml` file given (a folder: every such file under it), counts
the words a browser shows on the page and the words of the chunks the daemon makes of the
file (`bench/words_kept.chunk_words`: `loaders.parse` + `chunk_document`, in process, as
the parse worker does; overlap and repeated headings not counted), and reports per tree:
the chunks made; kept = Σ over words of min(count shown, count in chunks) / Σ count
shown; "absent", the shown words that occur in no chunk at all (a table of contents
whose lines head sections loses repeats of words that stay; lost text loses words that
are nowhere); and the N files that lose most, with the words they lose.

The shown words are counted by this script alone, with the standard library's
`html.parser` (the reader walks lxml's tree; no code is shared, so a reader that drops
text cannot hide it). The rules:

- Text inside `head`, `script`, `style`, `template`, `noscript` (a browser with scripts
  shows none of it) is not shown; nor is an element with the `hidden` attribute or an
  inline `display:none`, nor the fallback inside `iframe`/`object`/`embed`/`video`/`audio`.
  SVG's `<text>` (and its `tspan`s) is shown; its `title`/`desc`, tooltips and
  descriptions, are not; nor are images (their `alt` appears only when they fail).
- What the reader may leave out as the site's rather than the page's is not counted as
  shown, and the rule names it: `nav`; an element whose `role` is `navigation` or
  `search`; classes `headerlink` (permalink "¶"), `navheader`/`navfooter` (DocBook's
  Prev/Up/Next bars), `nosearch` (what the generator marks as not the page's text),
  `menu-bar` (mdBook's, the book's title above every chapter); Texinfo's Next/Previous/Up
  bar (a `div.header` or `div.nav-panel` that holds a `rel` next, prev or up link and no
  heading: makeinfo's and texi2any's, above a node and below a long one); mdBook's hidden lines of
  an example (`span.boring`, which its script hides until the reader asks);
  Doxygen's: its code tooltips (class `ttc`, hidden by its stylesheet until the pointer rests on a
  name; Haddock's hyperlinked source's `span.annottext` alike), breadcrumbs (`navpath`), footer
  (`address.footer`), banner (the `div#top` around its `div#titlearea`) and its header's links to
  the page's member groups (a `div.summary` in a `div.header`), its lists' icons and arrows
  (`span.icon`, `span.arrow` in a `table.directory`) and detail level buttons (`div.levels`); its
  member labels (`span.mlabel`, "override", "static") are words apart, each drawn as a box of its
  own, and so are a source listing's line numbers (`span.lineno`) from the code after them;
  forms and their controls (`form`, `button`, `select`, `textarea`: search boxes); a
  table of contents *by its name* (classes `toc`, `toctree-wrapper`, `list-of-tables` /
  `-figures` / `-examples` / `-procedures` / `-equations`, both `contents` and `topic`;
  role `doc-toc`; Texinfo's `div.contents` or `div.shortcontents` right after its
  `h2.contents-heading` or `h2.shortcontents-heading`, with that heading) unless it
  holds a heading. A list the reader judges a table of contents by its *shape* alone is
  counted as shown: whether that judgement is right is what this measures.
- Words are runs of letters and digits, lower-cased, compared as multisets (as
  `bench/words_kept.py`); inline elements (`a`, `b`, `code`, `span`, …) join the text
  around them, every other element separates words, as a browser lays them out.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from words_kept import chunk_words, chunks_of, words

SUFFIXES = {".html", ".htm", ".xhtml"}
NOT_SHOWN = {
    "head", "script", "style", "template", "noscript", "iframe", "object", "embed", "video",
    "audio", "title", "desc", "metadata", "form", "button", "select", "textarea", "nav",
}  # fmt: skip
CHROME_ROLES = {"navigation", "search"}
# mdBook's menu bar (the book's title on every chapter) is chrome, and an example's hidden
# lines (`span.boring`) are not shown: mdBook's script hides them until asked.
# Haddock's hyperlinked source hides each name's type (`span.annottext`) until the pointer
# rests on it, as Doxygen's `ttc` tooltips.
CHROME_CLASSES = {
    "headerlink", "navheader", "navfooter", "nosearch", "ttc", "navpath", "menu-bar",
    "annottext",
}  # fmt: skip
NODE_BARS = {"header", "nav-panel"}
NODE_RELS = {"next", "prev", "previous", "up"}
# Texinfo's table of contents: the `div.contents` right after `h2.contents-heading`
# (`shortcontents` alike), the heading with it
TEXINFO_CONTENTS = {"contents-heading": "contents", "shortcontents-heading": "shortcontents"}
NAMED_CONTENTS = {
    "toc", "toctree-wrapper", "list-of-tables", "list-of-figures", "list-of-examples",
    "list-of-procedures", "list-of-equations",
}  # fmt: skip
INLINE = {
    "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font",
    "i", "ins", "kbd", "mark", "nobr", "q", "s", "samp", "small", "span", "strike", "strong",
    "sub", "sup", "time", "tt", "u", "var", "wbr", "tspan", "label",
}  # fmt: skip
VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
    "source", "track", "wbr",
}  # fmt: skip
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.I)


class _Frame:
    """An open element: the text shown inside it so far, and what decides its fate."""

    def __init__(
        self, tag: str, dropped: bool, contents: bool, attrs: dict[str, str] | None = None
    ) -> None:
        self.tag = tag
        self.dropped = dropped  # not shown whatever it holds
        self.contents = contents  # a named table of contents: dropped unless it holds a heading
        self.heading = tag in HEADINGS
        self.classes = set((attrs or {}).get("class", "").split())
        # Doxygen's banner, `div#top`, is known by the `div#titlearea` it holds (at its end)
        self.banner = tag == "div" and (attrs or {}).get("id") == "top"
        # Texinfo's Next/Previous/Up bar: a `div.header` or `div.nav-panel` holding a
        # `rel` next/prev/up link and no heading
        self.node_links = tag == "a" and (attrs or {}).get("rel", "").lower() in NODE_RELS
        self.titlearea = (attrs or {}).get("id") == "titlearea"
        self.parts: list[str] = []


class ShownText(HTMLParser):
    """The text a browser shows, by the rules of the module's docstring."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack = [_Frame("#document", False, False)]
        self.pending_contents = ""  # set at a Texinfo contents heading, until it closes
        self.after_contents_heading = ""  # … then for the next element opened only

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        if tag not in INLINE:
            self.stack[-1].parts.append(" ")
        if tag in VOID:
            return
        if tag in ("p", "li", "dt", "dd", "tr", "td", "th", "option") and self.stack[-1].tag == tag:
            self._close(len(self.stack) - 1)  # an unclosed <p>/<li> closed by the next
        found = {name.lower(): (value or "") for name, value in attrs}
        classes = set(found.get("class", "").split())
        dropped = (
            tag in NOT_SHOWN
            or "hidden" in found
            or bool(_HIDDEN_STYLE.search(found.get("style", "")))
            or found.get("role", "").strip().lower() in CHROME_ROLES
            or not CHROME_CLASSES.isdisjoint(classes)
            or (tag == "address" and "footer" in classes)
            or (tag == "span" and "boring" in classes)
            or (tag == "div" and "summary" in classes and "header" in self.stack[-1].classes)
            or (tag == "div" and "levels" in classes)
            or (tag == "span" and bool(classes & {"icon", "arrow"}) and self._in_directory())
        )
        texinfo_heading = tag in HEADINGS and bool(classes & set(TEXINFO_CONTENTS))
        after_heading, self.after_contents_heading = self.after_contents_heading, ""
        contents = (
            (tag == "div" and bool(after_heading) and after_heading in classes)
            or texinfo_heading
            or not NAMED_CONTENTS.isdisjoint(classes)
            or {"contents", "topic"} <= classes
            or found.get("role", "").strip().lower() == "doc-toc"
        )
        self.stack.append(_Frame(tag, dropped or texinfo_heading, contents, found))
        if texinfo_heading:  # the class the table of contents after it has
            self.pending_contents = TEXINFO_CONTENTS[min(classes & set(TEXINFO_CONTENTS))]

    def _in_directory(self) -> bool:
        """Inside a Doxygen class, file or namespace list (`table.directory`), near."""
        return any(
            frame.tag == "table" and "directory" in frame.classes for frame in self.stack[-6:]
        )

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag.lower() not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower()
        if tag in HEADINGS and self.pending_contents:
            self.after_contents_heading, self.pending_contents = self.pending_contents, ""
        # and Doxygen's labels, each drawn as a box of its own, and its line numbers, each
        # drawn with a margin and a rule before the code
        apart = tag not in INLINE
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                apart = apart or not self.stack[depth].classes.isdisjoint(("mlabel", "lineno"))
                self._close(depth)
                break
        if apart:
            self.stack[-1].parts.append(" ")

    def _close(self, depth: int) -> None:
        """Close the frames from the top down to `depth`, handing each one's text up."""
        while len(self.stack) > depth:
            frame = self.stack.pop()
            parent = self.stack[-1]
            parent.heading = parent.heading or frame.heading
            parent.titlearea = parent.titlearea or frame.titlearea
            parent.node_links = parent.node_links or frame.node_links
            if frame.dropped or (frame.contents and not frame.heading):
                continue
            if frame.banner and frame.titlearea:
                continue
            if frame.node_links and not frame.heading and frame.classes & NODE_BARS:
                continue
            parent.parts.extend(frame.parts)

    def handle_data(self, data: str) -> None:
        self.stack[-1].parts.append(data)

    def text(self) -> str:
        self.close()
        self._close(1)
        return "".join(self.stack[0].parts)


def shown_words(data: bytes) -> Counter[str]:
    declared = re.search(rb"charset=[\"']?([\w-]+)", data[:4096])
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        html = data.decode(encoding, errors="replace")
    except LookupError:
        html = data.decode("utf-8", errors="replace")
    parser = ShownText()
    parser.feed(html)
    return words(parser.text())


def pages(args: list[str]) -> list[tuple[Path, Path]]:
    """(tree, page) for every page named or under a folder named."""
    found = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            found += [
                (path, p) for p in sorted(path.rglob("*")) if p.suffix in SUFFIXES and p.is_file()
            ]
        else:
            found.append((path.parent, path))
    return found


def measure(tree: str, found: list[tuple[Path, Path]], top: int, verbose: bool) -> None:
    shown_total = kept_total = absent_total = added_total = made_total = chunk_total = 0
    losses = []
    for folder, page in found:
        chunks = chunks_of(page)
        shown, got = shown_words(page.read_bytes()), chunk_words(page, chunks)
        chunk_total += len(chunks)
        lost = Counter({w: n - got[w] for w, n in shown.items() if got[w] < n})
        absent = sum(n for w, n in shown.items() if not got[w])
        shown_total += sum(shown.values())
        kept_total += sum(shown.values()) - sum(lost.values())
        absent_total += absent
        added_total += sum(max(0, n - shown[w]) for w, n in got.items())
        made_total += sum(got.values())
        losses.append((sum(lost.values()), absent, str(page.relative_to(folder)), lost))
        if verbose:
            print(f"  {page}: lost {sum(lost.values())} of {sum(shown.values())}")
    share = kept_total / max(shown_total, 1)
    print(
        f"{tree}: {len(found)} pages, {chunk_total} chunks, {kept_total} of {shown_total} "
        f"shown words kept ({share:.2%}); {absent_total} in no chunk; {added_total} of "
        f"{made_total} indexed words not shown (titles, hidden text)"
    )
    for lost_count, absent, name, lost in sorted(losses, key=lambda x: -x[0])[:top]:
        if lost_count:
            sample = dict(lost.most_common(10))
            print(f"  {name}: lost {lost_count} ({absent} in no chunk) {sample}")


def main() -> None:
    args = sys.argv[1:]
    verbose = "-v" in args
    top = 10
    if "--top" in args:
        top = int(args[args.index("--top") + 1])
        del args[args.index("--top") : args.index("--top") + 2]
    for arg in [a for a in args if a != "-v"]:
        measure(arg, pages([arg]), top, verbose)


if __name__ == "__main__":
    main()

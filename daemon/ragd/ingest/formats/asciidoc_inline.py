"""AsciiDoc's inline markup that hides words: attribute references and link macros.

A reader sees `{product}` as the value its `:product:` entry gives, `link:url[the guide]` and
`https://…[the guide]` as "the guide", `image:logo.png[Tide logo]` as its alt text,
`footnote:[More.]` as "More.", `<<install,Installing>>` as "Installing": those are
the words indexed, not the targets (a target is where the text leads, not what it says;
a link with no text of its own shows its target, as Asciidoctor does). Emphasis marks
(`*bold*`, `_italic_`, backticks) are left as written: they cost no words; a `+text+`
passthrough is its text as written, without the pluses a user must not type (`passthroughs`).

A backslash escapes what follows, and is not shown: `\\{product}` is "{product}",
`\\https://example.org[the guide]` the URL and brackets as written, `\\<<id>>` "<<id>>",
`\\*not bold*` "*not bold*" (`formats.asciidoc_quotes`), as Asciidoctor shows them.

Everything here is one forward scan with `str.find`, each bracket's partner found at most
once (`Partner`): a 10 MB line of `[` or `{` costs linear time, where a regex reading
"a target, then `[`" would retry the target at every position of a long word.
"""

from __future__ import annotations

from collections.abc import Callable

from ragd.ingest.formats.mail_links import unshown_address, with_address

# Asciidoctor's built-in character references (the ones prose uses).
BUILT_IN = {
    "empty": "", "blank": "", "sp": " ", "nbsp": " ", "zwsp": "", "wj": "",
    "apos": "'", "quot": '"', "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”",
    "deg": "°", "plus": "+", "brvbar": "¦", "vbar": "|", "amp": "&", "lt": "<", "gt": ">",
    "startsb": "[", "endsb": "]", "caret": "^", "asterisk": "*", "tilde": "~",
    "backslash": "\\", "backtick": "`", "two-colons": "::", "two-semicolons": ";;",
    "cpp": "C++", "pp": "++",
}  # fmt: skip
NAME_MAX_CHARS = 64  # an attribute name longer than this is no reference
VALUE_MAX_CHARS = 1024  # a value longer than this is not substituted
# Where a link macro's target may start; "scheme://…[text]" needs no `link:`.
URL_SCHEMES = ("https://", "http://", "ftp://", "irc://")
LINK_PREFIXES = ("link:", "mailto:", "xref:", "https://", "http://", "ftp://", "irc://", "image:")
# Inline macros whose brackets hold words of the text itself, with no target needed:
# `footnote:[…]` (the note's text), `kbd:[Ctrl+T]`, `btn:[Save]`, `pass:[…]`,
# `menu:File[Save]` ("File > Save").
WORD_MACROS = ("footnote:", "kbd:", "btn:", "pass:", "menu:")
SPAN_MAX_CHARS = 4096  # a `<<…>>` or `[[…]]` longer than this is no reference, link or anchor
OPENERS = "(<\"'*_`"  # punctuation a target may stand right after ("(https://…[x])")


class Attributes:
    """The attribute entries read so far and what their references become.

    Values are expanded when they are defined, as Asciidoctor does; `:b: {a}{a}` over
    `:a: {z}{z}` doubles at every entry, so what substitution may add over a whole
    document is bounded by the document's own size (`budget`): past it, references stay
    as written rather than grow the text without end."""

    def __init__(self, budget: int) -> None:
        self.values: dict[str, str] = {}
        self.budget = budget

    def define(self, name: str, value: str) -> None:
        if name.endswith("!") or name.startswith("!"):
            self.values.pop(name.strip("!"), None)  # `:name!:` unsets
            return
        self.values[name] = self.substitute(value)

    def substitute(self, text: str) -> str:
        """`{name}` replaced by its value (or a built-in character) where one is known."""
        if "{" not in text:
            return text
        out: list[str] = []
        done = 0
        closing = Partner(text, "}")
        start = text.find("{")
        while start >= 0:
            end = closing.after(start)
            if end < 0:
                break
            name = text[start + 1 : end] if end - start <= NAME_MAX_CHARS + 1 else ""
            escaped = _escaped_reference(text, start, name)
            if escaped is not None:
                out += [text[done : escaped[0]], escaped[1]]
                done = end + 1
                start = text.find("{", end + 1)
                continue
            value = self._value(name) if name and _is_name(name) else None
            if value is not None:
                out += [text[done:start], value]
                done = end + 1
                self.budget -= len(value)
                start = text.find("{", end + 1)
            else:
                start = text.find("{", start + 1)
        out.append(text[done:])
        return "".join(out)

    def _value(self, name: str) -> str | None:
        value = self.values.get(name, BUILT_IN.get(name))
        if value is None or len(value) > VALUE_MAX_CHARS or len(value) > self.budget:
            return None
        return value


def _escaped_reference(text: str, start: int, name: str) -> tuple[int, str] | None:
    """For `\\{name}` (or `{name\\}`) at `start`: where its backslash is and "{name}", the
    reference as shown; None for a reference not escaped, or no reference (Asciidoctor's
    names start with a word character)."""
    before = start > 0 and text[start - 1] == "\\"
    after = name.endswith("\\")
    name = name.removesuffix("\\")
    if not (before or after) or not name or not (name[0].isalnum() or name[0] == "_"):
        return None
    return (start - before, "{" + name + "}") if _is_name(name) else None


def _is_name(name: str) -> bool:
    return all(c.isalnum() or c in "-_" for c in name)


class Partner:
    """The next `mark` at or after a position, each found by one `find` at most: the
    scan asks with growing positions, so a cached answer still ahead is reused (a line
    of 100,000 `[` and no `]` is one `find`, not 100,000)."""

    def __init__(self, text: str, mark: str) -> None:
        self.text, self.mark = text, mark
        self.found = -1  # the last answer; -2: none left at all

    def after(self, position: int) -> int:
        if self.found == -2:
            return -1
        if self.found < position:
            self.found = self.first(position)
            if self.found < 0:
                self.found = -2
                return -1
        return self.found

    def first(self, position: int) -> int:
        """The first mark at or after `position` that counts, -1 for none."""
        return self.text.find(self.mark, position)


def shown(text: str, attributes: Attributes) -> str:
    """Text as a reader of the rendered page sees it: attributes substituted, link
    macros and cross references as their text, escaping backslashes taken out (quotes'
    ones first, as Asciidoctor does, by `formats.asciidoc_quotes`); a `+…+` passthrough
    as its text as written, nothing in it substituted (`passthroughs`)."""
    marked, passed = passthroughs(text)
    substituted = attributes.substitute(marked)
    seen = _cross_references(_escaped_urls(_links(_without_anchors(substituted))))
    return _passed_back(seen, passed) if passed else seen


class _PassthroughEnd(Partner):
    """The next `+` that can close a constrained passthrough: after a non-blank, before
    the end or a character that is not a word's (nor another `+`)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, "+")

    def first(self, position: int) -> int:
        text = self.text
        at = text.find("+", position)
        while at >= 0:
            after = text[at + 1 : at + 2]
            if not text[at - 1].isspace() and not (after and (after.isalnum() or after in "_+")):
                return at
            at = text.find("+", at + 1)
        return -1


def passthroughs(text: str) -> tuple[str, list[str]]:
    """`text` with each constrained passthrough, `+text+`, set aside as a NUL-marked
    number (`decode_text` leaves no NUL in a file's text), and the insides set aside:
    Asciidoctor shows them as written, without their pluses, as it takes them out before
    any other substitution (FreeRADIUS titles `=== +%{Packet-Type}+`); a link's text may
    hold one. As in its InlinePassRx: the opening `+` after the start or a character that
    is not a word's, `;`, `:`, a backslash (nor a `+` here), before a non-blank; the inside
    ends in a non-blank, the closing `+` is followed by no word character. `++…++` and
    `+++…+++` are not read (a "C++ or C++" line would lose its pluses). Openings are tried
    left to right and closings found by one forward scan: linear."""
    if "+" not in text:
        return text, []
    out: list[str] = []
    passed: list[str] = []
    ends = _PassthroughEnd(text)
    done = 0
    start = text.find("+")
    while start >= 0:
        before = text[start - 1] if start > 0 else " "
        inside = text[start + 1 : start + 2]
        opens = not (before.isalnum() or before in "_;:\\+")
        if opens and inside and not inside.isspace() and inside != "+":
            end = ends.after(start + 2)
            if end < 0:
                break  # no closing plus anywhere after: none further on either
            out += [text[done:start], f"\0{len(passed)}\0"]
            passed.append(text[start + 1 : end])
            done = end + 1
            start = text.find("+", done)
            continue
        start = text.find("+", start + 1)
    out.append(text[done:])
    return "".join(out), passed


def _passed_back(text: str, passed: list[str]) -> str:
    """The passthroughs set aside by `passthroughs` put back where their marks are left."""
    pieces = text.split("\0")
    for at in range(1, len(pieces), 2):
        number = pieces[at]
        if number.isdigit() and int(number) < len(passed):
            pieces[at] = passed[int(number)]
    return "".join(pieces)


def replace_spans(
    text: str,
    opening: str,
    closing: str,
    shown_as: Callable[[str], str | None],
    escapable: bool = False,
) -> str:
    """Each `opening`…`closing` span (at most SPAN_MAX_CHARS) replaced by what
    `shown_as` makes of its inside; one it answers None for is left as written, and so
    is one after a backslash when `escapable`, less the backslash. Each closing mark is
    found once (`Partner`): linear on a line of openings alone."""
    if opening not in text:
        return text
    out: list[str] = []
    done = 0
    partner = Partner(text, closing)
    start = text.find(opening)
    while start >= 0:
        end = partner.after(start + len(opening))
        if end < 0:
            break
        inside = text[start + len(opening) : end] if end - start <= SPAN_MAX_CHARS else None
        replacement = shown_as(inside) if inside else None
        if replacement is None:
            start = text.find(opening, start + len(opening))
            continue
        if escapable and start > 0 and text[start - 1] == "\\":
            replacement = text[start : end + len(closing)]
            start -= 1
        out += [text[done:start], replacement]
        done = end + len(closing)
        start = text.find(opening, done)
    out.append(text[done:])
    return "".join(out)


def _without_anchors(text: str) -> str:
    """Inline anchors (`[[current]]Version 4.9`, `[[id,label]]`) are no text."""
    return replace_spans(text, "[[", "]]", _anchor, escapable=True)


def _anchor(inside: str) -> str | None:
    name = inside.partition(",")[0]
    if name and (name[0].isalpha() or name[0] in "_:") and _is_name(name.replace(":", "")):
        return ""
    return None


def _links(text: str) -> str:
    """`link:target[text]`, `mailto:a@b[text]`, `xref:doc.adoc#id[text]` and
    `https://…[text]` as their text (their target when the text is empty)."""
    if "[" not in text:
        return text
    out: list[str] = []
    done = 0  # text[:done] is in `out`
    scanned = 0  # blanks before this were looked for already
    word = 0  # where the word holding the current `[` starts (-1: it holds another `[`)
    closing = Partner(text, "]")
    bracket = text.find("[")
    while bracket >= 0:
        blank = max(text.rfind(" ", scanned, bracket), text.rfind("\n", scanned, bracket))
        if blank >= 0:
            word = blank + 1
        scanned = bracket
        end = closing.after(bracket)
        target_at = _target_start(text, word, bracket) if word >= 0 and end >= 0 else -1
        if target_at < 0:
            word = -1  # a target never holds a `[`: this word is no link's
            bracket = text.find("[", bracket + 1)
            continue
        if text[target_at] == "\\":  # escaped: the macro as written, less the backslash
            out += [text[done:target_at], text[target_at + 1 : end + 1]]
        else:
            target = text[target_at:bracket]
            out += [text[done:target_at], _link_text(target, text[bracket + 1 : end])]
        done = scanned = word = end + 1
        bracket = text.find("[", end + 1)
    out.append(text[done:])
    return "".join(out)


def _target_start(text: str, word: int, bracket: int) -> int:
    """Where a link macro's target starts in text[word:bracket] (at the backslash that
    escapes it, when one does), or -1 for none."""
    starts = (word, word + 1) if text[word] in OPENERS else (word,)
    for start in starts:
        at = start + (text[start] == "\\")
        for prefix in LINK_PREFIXES:
            if text.startswith(prefix, at, bracket) and bracket > at + len(prefix):
                return start
        for prefix in WORD_MACROS:
            if text.startswith(prefix, at, bracket):
                return start
    return -1


def _escaped_urls(text: str) -> str:
    """An escaped URL with no `[text]` after it (`\\https://example.org`), shown without
    its backslash; as in Asciidoctor, only where a URL could start (after a blank or an
    opening bracket), so `dir\\https:` keeps it. The bracketed ones `_links` took."""
    out: list[str] = []
    done = 0
    slash = text.find("\\")
    while slash >= 0:
        starts_url = any(text.startswith(scheme, slash + 1) for scheme in URL_SCHEMES)
        if starts_url and (slash == 0 or text[slash - 1].isspace() or text[slash - 1] in "(<[;\"'"):
            out.append(text[done:slash])
            done = slash + 1
        slash = text.find("\\", slash + 1)
    out.append(text[done:])
    return "".join(out)


def _link_text(target: str, inside: str) -> str:
    """What a link shows: its text (attributes after it and the `^` that opens a new
    window left out), else its target; a `mailto:` link's address follows a text that
    does not show it (formats.mail_links)."""
    for prefix in WORD_MACROS:
        if target.startswith(prefix):
            named = target[len(prefix) :]
            return f"{named} > {inside}" if prefix == "menu:" and named else inside
    label = inside
    if "=" in label and "," in label:
        label = label.partition(",")[0]  # `[text,window=_blank]`
    label = label.strip().strip('"').removesuffix("^").strip()
    if not label:
        for prefix in ("link:", "mailto:", "xref:", "image:"):
            target = target.removeprefix(prefix)
        return target
    address = unshown_address(target, label)
    return label if address is None else label + with_address("", address)


def _cross_references(text: str) -> str:
    """`<<id,Text>>` as "Text", `<<id>>` as its id (the title it leads to is elsewhere)."""
    return replace_spans(text, "<<", ">>", _cross_reference, escapable=True)


def _cross_reference(inside: str) -> str | None:
    if inside[0].isspace() or "<<" in inside or "\n\n" in inside:
        return None
    target, _, label = inside.partition(",")
    return label.strip() or target.strip()

"""The headings of a plain-text file, found by their layout (pure, linear in the text).

Plain text has no markup, but two layouts say "this line is a heading" unambiguously:

- an *underlined* title, the convention of READMEs, specs and change logs (and of reST,
  which borrowed it): a short line standing alone above a line of one repeated
  punctuation character, optionally with the same line above it as well::

      Concepts
      --------

  Levels follow the order in which the underline styles first appear, as in reST, so
  ``===`` need not mean the top level. Rules of ``= - ~ ^ * #`` are read loosely (half
  the title's length will do); reST's other adornment characters (`` ` . ' : + " _``
  and the rest of ASCII's punctuation: docutils ships its docs and PEPs as ``.txt``)
  only under docutils' own stricter rule, since plain text draws lines of dots, colons
  and underscores for other reasons (dot leaders, signature lines, ``:::`` separators,
  ASCII art, a Markdown fence closing a one-line block). A block's closing delimiter
  (AsciiDoc's ``----`` in git's ``.txt`` docs: the same rule as the one that opened it,
  alone with text under it) underlines nothing: the line above it is the block's last::

      Hyperlink Targets
      `````````````````
- the *section names of a rendered man page* (``man ls > ls.txt``): a line of capitals at
  the margin (``OPTIONS``, ``SEE ALSO``) whose next line is indented body text. These
  count only when a file has at least two of them, so one shouted line in an e-mail is
  not a section.
- the *titles of a page whose text is indented* (``lynx -dump`` of a web page, as Debian's
  bug tracker and mailing-list guides ship: ``Severity levels`` at the margin, a blank
  line, then the section's text three columns in): a line at the margin that starts with
  a capital, alone between blank lines, over indented text. These count only when a file
  has at least two of them and at most a quarter of its lines of text start at the
  margin, so a README whose prose is at the margin does not turn the sentence before each
  indented example into a title.
- inside a numbered heading, the *subtitles that number themselves in it* (``  5.2.
  Appointment`` under ``5. Project Leader``), at any indent, alone between blank lines.
- the *release lines of a change log*: a line at the margin, alone between blank lines,
  that names a version after the same words as another such line does ("CHANGES FROM
  3.2a TO 3.3" in tmux's, "version 1.34 - Sergey Poznyakoff, 2021-02-13" in tar's,
  "Version 4.3 (19 Jan 2020)" in make's, "* Noteworthy changes in release 1.21.3" in
  wget's, "tmux (3.3a-3) unstable; urgency=medium" in a Debian changelog). Two lines
  sharing those words make the pattern; a lone "Support for autoconf 2.71" is an entry.

A heading line and its rules are not body text; the heading reaches the chunk through its
heading path, as a Markdown ``#`` heading does. Anything that is not clearly a heading
stays text: a file with no headings is chunked as it was before this module existed.
Every test here looks at one line and its neighbours with str methods, never a regex.
"""

from __future__ import annotations

import functools
import itertools
import string
from collections import Counter
from dataclasses import dataclass

# A heading is a title, not a sentence: longer lines are prose that happens to be ruled.
HEADING_MAX_CHARS = 80
CAPS_MAX_CHARS = 40
RULE_CHARS = frozenset("=-~^*#")
# reST's other adornment characters: any of ASCII's punctuation may rule a reST title.
STRICT_RULE_CHARS = frozenset(string.punctuation) - RULE_CHARS
RULE_MIN = 3
# A rule of one of those this short is a Markdown fence (```), an ellipsis (...) or a
# MyST/Pandoc fence (:::) far more often than the underline of a title of three letters.
STRICT_RULE_MIN = 4
# A delimited block's rule (AsciiDoc's `----`); a shorter one is a Markdown rule (`---`).
BLOCK_RULE_MIN = 4
# How far an underline may fall short of its title: authors type them by eye.
UNDERLINE_SHORTFALL = 0.5
# A rule this long and over twice its line's length is a separator between entries.
SEPARATOR_MIN = 40
# Body text of a rendered man page is indented (7 columns for man, 5 or 8 elsewhere).
MAN_BODY_INDENT = 3
MIN_CAPS_HEADINGS = 2
# Section names are words ("SEE ALSO", "EXIT STATUS", "X11 FORWARDING"). Capitals holding
# these are a file's name ("LDP.7", "CPU_SET.3" in man-pages' change log), code ("BEGIN
# {") or a table's header row (columns apart by runs of spaces), and would head everything
# down to the next such line. (A constant alone, "SHAPE_KIND" over its values in an X
# protocol spec, does head what follows it.)
NOT_IN_SECTION_NAMES = frozenset(".={};")
# A title at the margin over indented text: not a field or a placeholder (`Package:
# <name>`), nor a time of day (tzdata's `Release 2025b - 2025-03-22 13:40:46 -0700`), and
# its text at least two columns in (Debian's mailing-list guide indents by two, lynx by three).
NOT_IN_MARGIN_TITLES = NOT_IN_SECTION_NAMES | frozenset(":<>")
MARGIN_BODY_INDENT = 2
MIN_MARGIN_TITLES = 2
MARGIN_SHARE_MAX = 0.25  # of a file's lines of text, at most, may start at the margin
SECTION_NUMBER_MAX = 12  # characters of a margin title's section number (`12.3.4.`)
# A change log's release lines: at least two share the words before their version and
# name different versions, the version within the first RELEASE_PREFIX_MAX characters.
MIN_RELEASES = 2
RELEASE_PREFIX_MAX = 48
CAPTION_WORDS = frozenset(("figure", "table", "example", "listing", "step", "section", "chapter"))


@dataclass(frozen=True)
class Heading:
    line: int  # 0-based line of the title
    first: int  # first line the heading occupies (an overline, if any)
    last: int  # last line it occupies (its underline, if any)
    style: str  # what decides its level: "caps", or the rule's character (+ "over")
    title: str


def rule_char(line: str) -> str | None:
    """The character a rule line repeats (``-----``), or None for anything else."""
    body = line.strip()
    if len(body) < RULE_MIN or body.count(body[0]) != len(body):
        return None
    if body[0] in RULE_CHARS or (body[0] in STRICT_RULE_CHARS and len(body) >= STRICT_RULE_MIN):
        return body[0]
    return None


def _is_blank(lines: list[str], number: int) -> bool:
    return number < 0 or number >= len(lines) or not lines[number].strip()


def _underlined(lines: list[str], number: int) -> Heading | None:
    """The heading whose title is `lines[number]`, when a rule follows it."""
    title = lines[number].strip()
    if not title or len(title) > HEADING_MAX_CHARS or number + 1 >= len(lines):
        return None
    if len(lines[number]) - len(lines[number].lstrip()) > 3 or rule_char(title) is not None:
        return None
    char = rule_char(lines[number + 1])
    rule = len(lines[number + 1].strip())
    if char is None or rule < len(title) * UNDERLINE_SHORTFALL:
        return None
    over = number >= 1 and rule_char(lines[number - 1]) == char
    if char in STRICT_RULE_CHARS and not _adorned_as_rest(lines, number, over):
        return None
    separator = rule >= SEPARATOR_MIN and rule > 2 * len(title) + 10
    if separator and not over and not title.endswith(":"):
        return None  # a page-wide separator under an entry's last line (bash's CHANGES)
    if not any(c.isalnum() for c in title):
        return None
    if "\t" in title or "   " in title:  # columns: a table's header row over its rule
        return None
    before = number - 2 if over else number - 1
    if not _is_blank(lines, before):  # the last line of a paragraph ruled off: not a title
        return None
    first = number - 1 if over else number
    return Heading(number, first, number + 1, char + ("over" if over else ""), title)


def _adorned_as_rest(lines: list[str], number: int, over: bool) -> bool:
    """Whether the title at `lines[number]` passes docutils' rule, which the stricter
    adornment characters must: rules at the margin, at least as long as the title, an
    overline the same as the underline. (The blank line or file start before it is
    `_underlined`'s own test.)"""
    title = lines[number].strip()
    underline = lines[number + 1].rstrip()
    rules = [lines[number - 1].rstrip(), underline] if over else [underline]
    if any(rule[0].isspace() or len(rule) < len(title) for rule in rules):
        return False
    if over:
        return rules[0] == underline
    return not lines[number][0].isspace()  # a title that is only underlined is not inset


def _caps(lines: list[str], number: int) -> Heading | None:
    """A rendered man page's section name at `lines[number]`."""
    line = lines[number]
    title = line.rstrip()
    if not title or title[0].isspace() or len(title) > CAPS_MAX_CHARS:
        return None
    if not title.isupper() or sum(c.isalpha() for c in title) < 2:
        return None
    if "  " in title or not NOT_IN_SECTION_NAMES.isdisjoint(title):
        return None
    if not _is_blank(lines, number - 1) or number + 1 >= len(lines):
        return None
    # The indented body follows at once (a man page) or after one blank line (systemd's
    # NEWS: "CHANGES WITH 252:", a blank line, then the release's indented items).
    body = number + 2 if not lines[number + 1].strip() and number + 2 < len(lines) else number + 1
    after = lines[body]
    indent = len(after) - len(after.lstrip(" "))
    if not after.strip() or indent < MAN_BODY_INDENT:
        return None
    return Heading(number, number, number, "caps", title)


def _margin_title(lines: list[str], number: int) -> Heading | None:
    """A title at the margin of a page whose text is indented, at `lines[number]`: a
    capital first (after its section number, if any), alone between blank lines, indented
    text after the blank below it."""
    title = lines[number].rstrip()
    words = _unnumbered(title)
    if not words or not words[0].isupper() or len(title) > HEADING_MAX_CHARS:
        return None
    if "  " in title or "\t" in title or not NOT_IN_MARGIN_TITLES.isdisjoint(words):
        return None
    if words[-1] == "," or not _is_blank(lines, number - 1) or not _is_blank(lines, number + 1):
        return None
    if number + 2 >= len(lines):
        return None
    after = lines[number + 2]
    if not after.strip() or len(after) - len(after.lstrip(" ")) < MARGIN_BODY_INDENT:
        return None
    return Heading(number, number, number, "margin", title)


def _unnumbered(title: str) -> str:
    """`title` without the section number it starts with (`5. Project Leader`, `A.1.
    Discussion and Amendment`: the Debian constitution's): numbers, or one capital first,
    each followed by a full stop, then a space. A date (`2022-10-30 Jess`) is no number."""
    numbered = _section_number(title)
    if numbered is None or not title.partition(" ")[0].endswith("."):
        return title
    return numbered[1]


def _section_number(title: str) -> tuple[tuple[str, ...], str] | None:
    """(`("5", "2")`, `"Appointment"`) for `5.2. Appointment`; also `5.2 Appointment`
    when the number has parts enough to say it is one (a dot inside); None for no number."""
    number, _, rest = title.partition(" ")
    rest = rest.lstrip(" ")
    if not rest or len(number) > SECTION_NUMBER_MAX:
        return None
    if number.endswith("."):
        number = number[:-1]
    elif "." not in number:
        return None
    first, *others = number.split(".")
    if not (first.isdigit() or (len(first) == 1 and first.isupper())):
        return None
    if not all(part.isdigit() for part in others):
        return None
    return (first, *others), rest


def _text_is_indented(lines: list[str]) -> bool:
    """Whether at most MARGIN_SHARE_MAX of the lines holding text start at the margin."""
    text = at_margin = 0
    for line in lines:
        if line.strip():
            text += 1
            at_margin += not line[0].isspace()
    return at_margin <= text * MARGIN_SHARE_MAX


def _release_prefix(lines: list[str], number: int) -> tuple[str, str] | None:
    """The words before the version a release line names ("changes from " for "CHANGES
    FROM 3.2a TO 3.3"), lower-cased, and the release the line stands for (`_release`);
    None when `lines[number]` is no release line: not at the margin, not alone between
    blank lines, too long, or naming no version (a digit, a dot, a digit) within its
    first RELEASE_PREFIX_MAX characters."""
    line = lines[number].rstrip()
    if not line or line[0].isspace() or len(line) > HEADING_MAX_CHARS or line[-1] == ".":
        return None  # a sentence alone ("Version 1.5 adds monitors.") is an entry
    if not _is_blank(lines, number - 1) or not _is_blank(lines, number + 1):
        return None
    for at in range(min(len(line) - 2, RELEASE_PREFIX_MAX + 1)):
        if line[at].isdigit() and line[at + 1] == "." and line[at + 2].isdigit():
            start = at
            while start > 0 and line[start - 1].isdigit():
                start -= 1
            prefix = line[:start].lower()
            words = prefix.split()
            # A word must come first ("1.1. Overall documentation" is a numbered section;
            # "\x1b[1m1.1." a bold one), and not a caption's ("Figure 2.1. Connecting").
            if not any(a.isalpha() and b.isalpha() for a, b in itertools.pairwise(prefix)):
                return None
            if words and words[0] in CAPTION_WORDS:
                return None
            return prefix, _release(line)
    return None


def _dated_version(lines: list[str], number: int) -> tuple[str, str] | None:
    """A CPAN `Changes` file's release line, a version then its date and nothing else
    ("1.57 2022-10-21", "1.42 (2013/07/25)", "0.35 06/21/2003"), its entries straight
    under it or after a blank line: `_release_prefix` wants a word first and a blank line
    after, and Log::Log4perl's 110 releases were one `(untitled)` section. Keyed by an empty prefix
    and "dated", so these group only with each other; a date is digits with `-` or `/`
    in them, which a numbered section's title ("1.2 Installing") never is."""
    line = lines[number].rstrip()
    if not line or not line[0].isdigit() or len(line) > HEADING_MAX_CHARS:
        return None
    if not _is_blank(lines, number - 1):
        return None
    version, _, date = line.partition(" ")
    date = date.strip().strip("()").strip()
    if "." not in version or not all(c.isdigit() or c in "._" for c in version.rstrip(".")):
        return None
    if not date[:1].isdigit() or " " in date or not ("-" in date or "/" in date):
        return None
    if not all(c.isdigit() or c in "-/" for c in date):
        return None
    return "\0dated", line


def _release(line: str) -> str:
    """The release a line stands for: its words, less a page number set off by a run of
    spaces at its end (a running footer's). Not the version alone: Debian's "gtk+3.0
    (3.24.38-2) unstable" names 3.0 in every release's line."""
    head, gap, tail = line.rstrip().rpartition("  ")
    if gap and tail.isdigit():
        line = head
    return " ".join(line.split())


def _release_lines(lines: list[str]) -> set[int]:
    """The lines that are releases of a change log: those whose words before the version
    other release lines share, standing for at least MIN_RELEASES releases between them.
    One line over and over is no change log: a paged man page's footer ("GNU grep 3.8
    2019-12-29  4" at every page break), a requirement written twice."""
    found = {n: _release_prefix(lines, n) or _dated_version(lines, n) for n in range(len(lines))}
    releases: dict[str, set[str]] = {}
    for release in found.values():
        if release is not None:
            releases.setdefault(release[0], set()).add(release[1])
    return {
        n
        for n, release in found.items()
        if release is not None and len(releases[release[0]]) >= MIN_RELEASES
    }


def written_in_markdown(text: str) -> bool:
    """Is this plain-text file Markdown under another name? Debian installs an upstream
    `CHANGELOG.md` as `changelog.gz` (league/commonmark's, libavif's, iso-codes'), and a
    `README` or `NEWS` without a suffix is often Markdown too: read as text, its `## [2.3.9]
    - 2023-02-15` headings were body text and all of it one `(untitled)` section. Markdown
    when its first line with text is an ATX heading (`# Change Log`) and another one
    stands at the margin after a blank line; a Debian changelog's closing comment ("#
    Older entries have been removed from this changelog.") never opens the file. Nor is
    a file Markdown whose first line runs on in `#` lines that are no headings (groff's
    BUG-REPORT opens with a licence in `#` comments, `#` alone between its paragraphs;
    gnupg's DETAILS with `#+TITLE:`), or names another mode for Emacs (`-*- org -*-`)."""
    lines = text.split("\n")
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is None or not _atx(lines[first]) or _other_mode(lines[first]):
        return False
    after = lines[first + 1] if first + 1 < len(lines) else ""
    if after.startswith("#") and not _atx(after):  # a block of comments, not a heading
        return False
    return any(_atx(lines[n]) and not lines[n - 1].strip() for n in range(first + 2, len(lines)))


def _other_mode(line: str) -> bool:
    """Does the line name an Emacs mode other than Markdown's (`-*- org -*-`)?"""
    _, opened, rest = line.partition("-*-")
    mode, closed, _ = rest.partition("-*-")
    if not (opened and closed):
        return False
    words = mode.replace(":", " ").replace(";", " ").lower().split()
    return bool(words) and not any(word in ("markdown", "gfm") for word in words)


def _atx(line: str) -> bool:
    """`# Title` … `###### Title` at the margin (not `#!/bin/sh`, `#include`, `#`)."""
    marks = len(line) - len(line.lstrip("#"))
    return 1 <= marks <= 6 and line[marks : marks + 1] == " " and bool(line[marks:].strip())


def find_headings(lines: list[str]) -> list[Heading]:
    """Every heading of a plain-text file, in order, none overlapping another."""
    found: list[Heading] = []
    caps: list[Heading] = []
    margin: list[Heading] = []
    releases = _release_lines(lines)
    opened: set[str] = set()  # rules standing as a block's opening delimiter, not closed yet
    number = 0
    while number < len(lines):
        heading = _underlined(lines, number)
        if heading is not None and heading.first == heading.line:
            closing = lines[heading.last].rstrip()
            if closing in opened:  # the block's closing delimiter under its last line
                opened.discard(closing)
                number = heading.last + 1
                continue
        if heading is not None:
            found.append(heading)
            opened.discard(lines[heading.first].rstrip())  # its overline opened nothing
            number = heading.last + 1
            continue
        rule = lines[number].rstrip()
        if rule in opened:  # a closing delimiter after a paragraph, or a blank line
            opened.discard(rule)
        elif _opens_block(lines, number):
            opened.add(rule)
        shouted = _caps(lines, number)
        if shouted is not None:
            caps.append(shouted)
            found.append(shouted)
        elif number in releases:
            # An outline's stars ("* Noteworthy changes in release 1.21.3") are markup.
            title = lines[number].strip().lstrip("*").strip() or lines[number].strip()
            found.append(Heading(number, number, number, "release", title))
        elif (titled := _margin_title(lines, number)) is not None:
            margin.append(titled)
            found.append(titled)
        number += 1
    if len(caps) < MIN_CAPS_HEADINGS:
        found = [heading for heading in found if heading.style != "caps"]
    if margin and (len(margin) < MIN_MARGIN_TITLES or not _text_is_indented(lines)):
        found = [heading for heading in found if heading.style != "margin"]
    return _with_numbered_subtitles(lines, found)


def _with_numbered_subtitles(lines: list[str], found: list[Heading]) -> list[Heading]:
    """`found` and, under each numbered heading, the subtitles that number themselves
    inside it: `  5.1. Powers`, `  5.2. Appointment` under `5. Project Leader` (the Debian
    constitution indents them as it indents its text, so no other layout test sees them),
    `5.2.1.` under `5.2.`. A line counts alone between blank lines, starting with a capital
    after its number, and only when its number extends the heading's or an earlier
    subtitle's of that heading: a list's `1.`, `2.` and a `3.14` in prose never do. Each
    line is looked at once."""
    headed: list[Heading] = []
    for index, heading in enumerate(found):
        headed.append(heading)
        numbered = _section_number(heading.title)
        if numbered is None:
            continue
        end = found[index + 1].first if index + 1 < len(found) else len(lines)
        open_numbers = [numbered[0]]  # the heading's number, then its open subtitles'
        for number in range(heading.last + 1, end):
            subtitle = _numbered_subtitle(lines, number)
            if subtitle is None:
                continue
            parts, title = subtitle
            while open_numbers and open_numbers[-1] != parts[:-1]:
                open_numbers.pop()
            if not open_numbers:
                open_numbers = [numbered[0]]  # not one of this heading's: left as text
                continue
            # Styled by depth under its heading, not by its number's parts: a level is
            # the order a style is first seen in, and `1.2.1.` under a heading `1.2.`
            # seen before `2.1.` under `2.` had made `2.1.1.` rank above `2.1.`, its
            # path "2. Officers > 2.1.1. Appointment", `2.1. Leader` lost from it.
            headed.append(Heading(number, number, number, f"subtitle{len(open_numbers)}", title))
            open_numbers.append(parts)
    return headed


def _numbered_subtitle(lines: list[str], number: int) -> tuple[tuple[str, ...], str] | None:
    """The number and title at `lines[number]` when it reads as a numbered subtitle: alone
    between blank lines, short, its words starting with a capital, no mark of a field or
    a sentence's end."""
    title = lines[number].strip()
    if not title or len(title) > HEADING_MAX_CHARS or "  " in title or "\t" in title:
        return None
    if not _is_blank(lines, number - 1) or not _is_blank(lines, number + 1):
        return None
    numbered = _section_number(title)
    if numbered is None or len(numbered[0]) < 2:
        return None
    words = numbered[1]
    if not words[0].isupper() or not NOT_IN_MARGIN_TITLES.isdisjoint(words) or words[-1] == ",":
        return None
    return numbered[0], title


def _opens_block(lines: list[str], number: int) -> bool:
    """Whether `lines[number]` is a rule that opens a delimited block, as
    AsciiDoc's `----` listing and `....` literal blocks are written in git's `.txt`
    documentation: at the margin, at least BLOCK_RULE_MIN long, a blank line (or the
    file's start) above it and text right below it. The same rule under a line further on
    closes the block: that line is the block's last one (`$ git diff`, `> ib]$ mv …`), not
    a title it underlines."""
    line = lines[number]
    if len(line.strip()) < BLOCK_RULE_MIN or line[0].isspace() or rule_char(line) is None:
        return False
    return _is_blank(lines, number - 1) and not _is_blank(lines, number + 1)


def text_sections(
    lines: list[str], lead: str
) -> list[tuple[tuple[str, ...], list[str], int]] | None:
    """Plain text → [(heading path, body lines, 0-based line of the first body line)], or
    None when the text has no headings (it is then one section, as before).

    Text above the first heading, if any, is headed by `lead` (the document's content
    title). A rendered man page's sections are headed by it too (its ``LS(1)  User
    Commands  LS(1)`` banner), so a section named ``OPTIONS`` still says whose options they
    are; underlined sections are not, since what stands above them is as often the first
    entry of a change log ("Version 2.5.0 to 2.5.1") as a title."""
    headings = find_headings(lines)
    if not headings:
        return None
    top = next((i for i, line in enumerate(lines) if line.strip()), 0)
    banner = headings[0].style == "caps" and headings[0].first > top
    prefix: tuple[str, ...] = (lead,) if banner else ()
    stack: list[tuple[int, str]] = []
    sections: list[tuple[tuple[str, ...], list[str], int]] = []
    if _holds_text(lines, 0, headings[0].first):
        sections.append((prefix or (lead,), lines[: headings[0].first], 0))
    levels = _levels(lines, headings)
    for index, heading in enumerate(headings):
        level = levels[heading.style]
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading.title))
        following = headings[index + 1] if index + 1 < len(headings) else None
        end = following.first if following is not None else len(lines)
        path = prefix + tuple(title for _, title in stack)
        if _holds_text(lines, heading.last + 1, end):
            sections.append((path, lines[heading.last + 1 : end], heading.last + 1))
        elif following is None or levels[following.style] <= level:
            # Nothing under it and no section inside it ("Backward compatibility notes"
            # straight before the next release's title): its title line is its text, or
            # no chunk would hold its words.
            sections.append((path, [lines[heading.line]], heading.line))
    return sections


def _holds_text(lines: list[str], first: int, end: int) -> bool:
    return any(line.strip() for line in lines[first:end])


def _levels(lines: list[str], headings: list[Heading]) -> dict[str, int]:
    """Each heading style's level: the order in which the styles first appear, as in reST,
    unless the text says otherwise. A title with nothing under it but a title of another
    style heads that one ("OVERVIEW" / "=====" straight above "Functions provided" /
    "-----"); when that happens more often than the reverse, its style ranks above the
    other even if the other was seen first (a table of contents, or the newest release's
    subsections, underlined before any release title is)."""
    order = list(dict.fromkeys(heading.style for heading in headings))
    heads: Counter[tuple[str, str]] = Counter()
    for heading, following in itertools.pairwise(headings):
        if heading.style != following.style and not _holds_text(
            lines, heading.last + 1, following.first
        ):
            heads[heading.style, following.style] += 1

    def compare(a: str, b: str) -> int:
        said = heads[b, a] - heads[a, b]
        return said if said else order.index(a) - order.index(b)

    ranked = sorted(order, key=functools.cmp_to_key(compare))
    return {style: level for level, style in enumerate(ranked)}

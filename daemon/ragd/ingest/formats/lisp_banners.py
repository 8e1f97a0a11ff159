"""Clojure's comment headings: the `;;;;` lines at the margin that title the code below.

Clojure's style guide writes a heading as a comment of four semicolons at the margin
(`;;;; CHANNELS`, core.async's `walkthrough.clj`), and three for a top-level comment that
is no heading (`;;; these are down here because they alias core fns`, core.async). Debian's
Clojure jars also head their parts with a banner: a comment whose semicolons close it too
(`;;;;;;;;;;;;;;;;;;;; ops ;;;;;;;;;;;;;;;;`, `;;; clojure.instant ;;;`), or a short comment
under a rule of semicolons, dashes or equals signs, and over another or none
(tools.reader's `;;;;;;;;;;;;` / `;; helpers` / `;;;;;;;;;;;;`, `;;; ------` / `;;;
convenience macros`; core.match's `;; =====` / `;; ## Bind Node`, its Markdown marks left
out).
Any of these heads the forms below it until the next (`formats.code`). Pure: str methods
only, each line looked at once, and its neighbours.
"""

from __future__ import annotations

TITLE_CHARS = 80  # a longer comment is a sentence, not a heading
RULE_SEMICOLONS = 10  # a line of only semicolons at least this long is a rule
_RULE_MARKS = frozenset("-=*~_+# ")


def banners(lines: list[str], in_code: list[bool] | None) -> dict[int, tuple[str, int]]:
    """Each heading's first line (0-based; a rule above it, when it has one) with its
    title and the line after it (past a rule below it). `in_code`: whether each line
    starts in code (a line inside a string is no comment)."""
    found: dict[int, tuple[str, int]] = {}
    for number, line in enumerate(lines):
        if not line.startswith(";;") or (in_code is not None and not in_code[number]):
            continue
        title = _title(line)
        if title is None:
            continue
        above = number > 0 and _is_rule(lines[number - 1])
        below = number + 1 < len(lines) and _is_rule(lines[number + 1])
        body = line.rstrip()
        marks = len(body) - len(body.lstrip(";"))
        closed = marks >= 3 and body.endswith(";;;")
        alone = not _continues(lines, number + 1) and not _continues(lines, number - 1)
        if closed or (alone and (marks >= 4 or above)):
            found[number - 1 if above else number] = (title, number + (2 if below else 1))
    return found


def _title(line: str) -> str | None:
    """The words of a comment line between its semicolons, if they are short enough to
    be a title and hold a letter; None for a rule or a sentence."""
    text = line.strip().strip(";").strip()
    if text.startswith("#"):  # Marginalia's Markdown heading: `;; ## Bind Node`
        text = text.lstrip("#").strip()
    if not text or len(text) > TITLE_CHARS or set(text) <= _RULE_MARKS:
        return None
    if not any(character.isalpha() for character in text):
        return None
    return " ".join(text.split())


def _is_rule(line: str) -> bool:
    """A line of only semicolons (ten or more), or a comment of only dashes or the like."""
    text = line.strip()
    if not text.startswith(";"):
        return False
    rest = text.lstrip(";")
    if not rest:
        return len(text) >= RULE_SEMICOLONS
    return len(rest.strip()) >= 3 and set(rest) <= _RULE_MARKS


def _continues(lines: list[str], number: int) -> bool:
    """Whether line `number` is a comment's text (not a rule): a title beside it would be
    a line of a paragraph."""
    if not 0 <= number < len(lines):
        return False
    line = lines[number].strip()
    return line.startswith(";") and not _is_rule(line) and bool(line.strip(";").strip())

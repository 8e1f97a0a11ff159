"""Org-mode's headlines and links, as a reader of the exported page sees them.

A headline `** TODO [#A] Renew the mooring permit :harbour:admin:` is, for its heading
path, "Renew the mooring permit": the TODO keyword, the priority cookie and the tags are
task state, not title. They change when the task does (TODO → DONE, a tag added), and in
a heading path every change would re-embed every window of the section and change the
citation of every passage under it. They are not dropped: their words go into one line
under the headline ("TODO; priority A; tags: harbour, admin"), a block of its own, so a
search for the tag or the state still finds the section and marking a task done
re-embeds that one line.

A link `[[target][description]]` is its description, `[[target]]` its target (a
`mailto:` link's address follows a description that does not show it, as in the other
readers). One forward scan, each `]]` found once (`replace_spans`): linear on any line.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragd.ingest.formats.asciidoc_inline import replace_spans
from ragd.ingest.formats.mail_links import unshown_address, with_address

DEFAULT_KEYWORDS = frozenset({"TODO", "DONE"})
# The in-buffer settings that declare a file's own keywords (`#+TODO: TODO NEXT | DONE`).
KEYWORD_SETTINGS = ("todo", "seq_todo", "typ_todo")


@dataclass(frozen=True)
class Headline:
    level: int
    title: str
    keyword: str = ""
    priority: str = ""
    tags: tuple[str, ...] = ()
    commented: bool = False  # `* COMMENT Title`: the whole subtree is left out

    def state(self) -> str:
        """The line said under the headline ("" when it has no keyword, priority or tag)."""
        parts = [self.keyword] if self.keyword else []
        if self.priority:
            parts.append(f"priority {self.priority}")
        if self.tags:
            parts.append("tags: " + ", ".join(self.tags))
        return "; ".join(parts)


def headline(line: str, keywords: frozenset[str]) -> Headline | None:
    """`*** TODO [#B] Title :tag:` → Headline; None for any other line."""
    if not line.startswith("*"):
        return None
    level = len(line) - len(line.lstrip("*"))
    if line[level : level + 1] not in (" ", "\t"):  # a line of stars alone is text
        return None
    words = line[level:].split()
    keyword = priority = ""
    if words and words[0] in keywords:
        keyword = words.pop(0)
    if words and len(words[0]) == 4 and words[0].startswith("[#") and words[0].endswith("]"):
        priority = words.pop(0)[2]
    # Org's COMMENT is a word of its own, in capitals, after the keyword and priority
    # ("* COMMENTARY" is a title)
    commented = bool(words) and words[0] == "COMMENT"
    if commented:
        words.pop(0)
    tags: tuple[str, ...] = ()
    if words and _is_tags(words[-1]):
        tags = tuple(t for t in words.pop().split(":") if t)
    title = " ".join(words) or keyword  # "* TODO" alone is headed by its keyword
    return Headline(level, title, keyword, priority, tags, commented)


def _is_tags(word: str) -> bool:
    return (
        len(word) >= 3
        and word[0] == ":"
        and word[-1] == ":"
        and all(c.isalnum() or c in "_@#%:" for c in word)
    )


def declared_keywords(value: str) -> set[str]:
    """The keywords a `#+TODO:` line declares (`TODO NEXT(n) | DONE(d!)`)."""
    return {word.partition("(")[0] for word in value.split() if word != "|"} - {""}


def shown(text: str) -> str:
    """Links as their description (else their target)."""
    return replace_spans(text, "[[", "]]", _link)


def _link(inside: str) -> str:
    target, between, description = inside.partition("][")
    if not between:
        return target.strip()
    label = description.strip()
    address = unshown_address(target, label)
    return label if address is None else label + with_address("", address)

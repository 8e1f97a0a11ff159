"""What a quoted unit brings with it, so that a keyless answer reads as the document does.

A unit chosen by its score is often only part of what answers: a list item without the
lead-in that says what the list is, a code block without the line introducing it, a "This
…" paragraph without the one it refers back to, a lead-in without its list. Each function
here takes the candidates in reading order (candidates.py) and the index of a chosen unit,
and names the neighbours to quote with it — looking only at units of the same file and
section, a bounded number of steps away (MAX_FOLLOWERS), so the work per answer stays
linear in the candidates.
"""

from __future__ import annotations

import re

import numpy as np

from ragd.query import enumeration, option_use, releases
from ragd.query.candidates import Candidate, defines, release_place, term_of
from ragd.query.units import Unit

NEIGHBOUR_WINDOW = 0.1  # the next unit of the same section follows when this close
# … or this close when it states a value (_states_a_value): the unit chosen often names the
# question's terms and the one after it says what they are, in words that resemble the
# question less ("`anchorlink_class`: CSS class(es) used for the link." chosen, the
# `permalink` item after it not). Session 56's tune set, half facts 452 of 549 at 0.1:
# 455/456/456 at 0.3/0.4/0.5 (answers 4.5/6.8/8.6 % longer); for every neighbour 456 at
# 0.3 and 458 at 0.4 (7.5/11 % longer).
STATING_WINDOW = 0.4
BOUNDARY_GAP = 3  # blank lines between a chunk's last line and the next chunk's first
SHORT_LIST_ITEMS = 8  # a list of at most this many items …
SHORT_DEFINITIONS = 4  # … or this many when they define terms ("-S#, --sensors=#: …") …
SHORT_LIST_CHARS = 1000  # … and characters is quoted whole when one of its items is chosen
# (the quote budget: four one-line groups of names, "Math operations: … sqrt …", ran to 900
# characters. Grid 600/800/1000/1200 on the replay: pooled half-facts 363/363/364/364 of
# 416, git's info/exclude and policy's GPLv2 source options gained at 1000, no corpus lower.)
MAX_FOLLOWERS = 40  # how far past a lead-in its list, table or code block is looked for
# A code example without a line introducing it is quoted after its section's opening
# paragraph when that is at most this long: a section's opening sentence says what its
# example shows ("… you can use Schema.validate."), a long introduction mostly adds length.
# Grid 150/250/300/unlimited on the replay: facts gained only on marshmallow (70 → 83 %)
# from 250 up, no corpus lower; 250 is the shortest that keeps them.
OPENING_CHARS = 250
# The paragraph after a list quoted whole is quoted too when at most this long: a remark
# closing the list ("Please report your issue to security@python.org."), not the next
# clause of a licence (a BSD licence's 600-character disclaimer after its conditions).
CLOSING_CHARS = 250
_INTRODUCED = ("item", "row", "code")  # what a lead-in ("… these settings:") introduces
# A paragraph that continues the one before it: "To do so, …", "To enable this, …", "This …",
# "In the former case, …" (etckeeper's README: the steps of "the latter case" are the
# block just above), or carries on its sentence after an ellipsis ("... or within a
# context manager:"), or offers another way than the one before it ("Or if you want
# GitHub-Flavored Markdown, use the … class instead:" after league/commonmark's
# `new CommonMarkConverter(…)` example, which it otherwise kept out as a repeat of its
# lines; "Alternatively, …", "Otherwise, …"). Replayed: nu37 half facts 3 -> 4 of 8.
# "In this mode, …" ("In this example", "In that setup") as "In the former case": Log4perl's
# "In this mode, Log::Log4perl will examine the configuration file … every $delay seconds"
# after its `init_and_watch` block (nu39 half facts 4 -> 5 of 8). Not "In this section, …"
# ("chapter", "guide", "document" …: the part of the document it opens, not the unit before
# it) nor a compound opening "Or-" ("Or-patterns match …"): review68. A fixed lookahead
# before the one word: linear.
_REFERS_BACK = re.compile(
    r"(?:To\s+(?:do\s+so|\w+\s+(?:this|that|these|it))|This|These|That|Those|Such|It"
    r"|In\s+(?:the\s+(?:former|latter)|this|that|either|both|such\s+a)\s+"
    r"(?!(?i:section|chapter|document|guide|tutorial|article|page|manual|book|part|readme"
    r"|post|paper|lesson|file)s?\b)[^\W\d_]+"
    r"|Or(?!-)|Alternatively|Otherwise"
    r"|(?:\.{3}|…)[^\S\n]?(?:or|and|but|then))\b"
)
# "The two most interesting functions for these use-cases are …": a paragraph speaking of
# what the one before it described, by "these"/"those" in its first words (REFERS_WITHIN).
_DEMONSTRATIVE = re.compile(r"\b(?:these|those)\b")
REFERS_WITHIN = 60
# A number on its own ("is 3.", "30 days"), not a piece of a name ("ssh(1)", "sha256") nor
# an index ("master@{2}", "argv[1]"): a "how long …?" answer wants an amount.
_STANDALONE_NUMBER = re.compile(r"(?<![\w({[.-])\d+(?:[.,]\d+)?(?![\w)}\]]|\.\d)")


def with_followers(
    chosen: list[int],
    candidates: list[Candidate],
    scores: np.ndarray,
    wants_number: bool = False,
    asks_a_release: bool = True,
) -> list[int]:
    """`chosen`, each unit with the neighbours that complete it: a list item, table row or
    code block after the lead-in that introduces it ("The daemon reads these settings:");
    a paragraph that refers back ("This is useful when …") after the one it refers to;
    an item of a short list by the whole list, in order ("What's new in 3.3?" is answered
    by the three items under "New features", each alone barely resembling the question);
    a lead-in by the best-scoring item, row or block it introduces, or by the paragraph
    right after it when that is what it introduces (the lead-in says where the answer is,
    not what it is); a sentence of a long paragraph by the next sentence
    ("Sets the number of …"); a paragraph by the next one under the same heading when that
    one scores nearly as well, refers back to it ("To do so, …", "This …"), or, when the
    question wants a number the unit lacks, holds one ("The default value is 3."); and
    past the example right after a paragraph, the paragraph after it when that one scores
    nearly as well (_past_its_example)."""
    out: list[int] = []
    for index in chosen:
        if index in out:  # already quoted as another unit's lead-in or follower
            continue
        opening = _opening_of(index, candidates)
        if opening is not None and opening not in out:
            out.append(opening)
        lead = lead_in_of(index, candidates)
        if lead is None:
            lead = _referent_of(index, candidates)
        if lead is None:
            lead = _option_spoken_of(index, candidates)
        if lead is not None and lead not in out:
            out.append(lead)
        group = _short_list_of(index, candidates, asks_a_release) or [index]
        out.extend(j for j in group if j not in out)
        follower = None if len(group) > 1 else _follower(index, candidates, scores, wants_number)
        if follower is not None and follower not in chosen and follower not in out:
            out.append(follower)
        use = _value_use_of(index, candidates, scores)
        if use is not None and use not in chosen and use not in out:
            out.append(use)
    return out


def with_what_closes_a_list(order: list[int], candidates: list[Candidate]) -> list[int]:
    """`order`, with each lead-in quoted with every item of its list followed by the
    paragraph right after the list, when it is a paragraph of the same section and not
    itself a lead-in: the sentence after a list finishes what the lead-in began. packaging's
    security page quoted "… DO NOT report the issue in any public forum, including (but not
    limited to):" and its three items, not "Please report your issue to
    security@python.org."; attrs', "… `functools.cached_property` … are transformed …:"
    and its items, not "For most users, this should mean that it works transparently."
    A lead-in that is itself an item ("- Update the limits file to include the
    following:") brings none when items follow it: they may be its sub-items or the items
    after it, and the paragraph after them closes the outer list. With only code or rows
    after it (Debian Policy's "Notify the currently installed package:" and its calls) the
    paragraph still finishes the item ("If this works, the upgrade continues.").
    """
    out = list(order)
    for lead in [i for i in order if candidates[i].leads_in]:
        chunk = candidates[lead].chunk
        end = lead + 1
        while (
            end < len(candidates)
            and candidates[end].chunk is chunk
            and candidates[end].unit.kind in _INTRODUCED
        ):
            end += 1
        items = range(lead + 1, end)
        if not items or any(j not in out for j in items) or end >= len(candidates):
            continue
        if candidates[lead].unit.kind == "item" and any(
            candidates[j].unit.kind == "item" for j in items
        ):
            continue
        after = candidates[end]
        if (
            end not in out
            and after.chunk is chunk
            and after.unit.kind == "prose"
            and len(after.unit.text) <= CLOSING_CHARS
            and after.unit.context == candidates[lead].unit.context
            and not after.leads_in
            and not after.unit.instruction
        ):
            out.insert(max(out.index(j) for j in items) + 1, end)
    return out


def with_the_example_continued(order: list[int], candidates: list[Candidate]) -> list[int]:
    """`order`, with the first run of a long code example that a line introduces followed by
    the example's next run, for a question asking what to do: "… we can use similar
    commands as previously to grow the logical volume then the filesystem:" announced
    `lvresize` and `resize2fs`, which fell in the run after the six lines quoted
    (`# pvcreate …`, `# vgextend …`), and that run, mostly output, resembled the question
    too little to be chosen."""
    out = list(order)
    for index in order:
        unit = candidates[index].unit
        if unit.kind != "code" or not unit.led_in:
            continue
        following = _next_unit(index, candidates)
        if following is None or following in out:
            continue
        rest = candidates[following]
        if (
            rest.chunk is candidates[index].chunk
            and rest.unit.kind == "code"
            and not rest.unit.led_in
            and rest.unit.context == unit.context
        ):
            out.insert(out.index(index) + 1, following)
    return out


def _value_use_of(index: int, candidates: list[Candidate], scores: np.ndarray) -> int | None:
    """For a unit defining an option by a placeholder ("-T#, --threads=#: … If # is 0,
    … use the number of physical CPU cores"), the best-scoring other unit that writes it
    with a value ("… via -T0, …"): the definition says what the value means, the use
    what to type. Only in the same file: another program's manual may give the same
    letter another meaning (xz's -T is not zstd's)."""
    here = candidates[index]
    options = option_use.valued_options(here.unit.text)
    if not options:
        return None
    uses = [
        j
        for j, other in enumerate(candidates)
        if j != index
        and other.chunk.source == here.chunk.source
        and option_use.uses_with_value(other.unit.text, options)
    ]
    return max(uses, key=lambda j: scores[j], default=None)


def _short_list_of(index: int, candidates: list[Candidate], asks_a_release: bool) -> list[int]:
    """The items next to the item at `index` in its chunk, when they are few and short;
    none for a change log's entry unless the question names a release: its neighbours
    are other changes of that release ("How do I make etckeeper push each commit?" quoted
    "PUSH_REMOTE can be set to …" with "Ignore fake-hwclock.data." and "Auto-detect the VCS
    setting …" from the same release's list)."""
    here = candidates[index]
    if here.unit.kind != "item" or (here.leads_in and not here.unit.listed):
        return []
    if not asks_a_release and releases.heads_a_release(release_place(here)):
        return []

    def sibling(j: int) -> bool:
        other = candidates[j]
        return (
            other.chunk is here.chunk
            and other.unit.kind == "item"
            and (not other.leads_in or _siblings(other, here))
        )

    first, last = index, index
    while first > 0 and sibling(first - 1) and index - first < SHORT_LIST_ITEMS:
        first -= 1
    while last + 1 < len(candidates) and sibling(last + 1) and last - index < SHORT_LIST_ITEMS:
        last += 1
    run = list(range(first, last + 1))
    size = sum(len(candidates[j].unit.text) for j in run)
    if len(run) > SHORT_LIST_ITEMS or size > SHORT_LIST_CHARS:
        return []
    steps = all(candidates[j].unit.numbered for j in run)
    if len(run) > SHORT_DEFINITIONS and not steps and any(term_of(candidates[j]) for j in run):
        # A manual's options: the one asked about, not its neighbours. A numbered list is
        # a sequence of steps, never options, though a step reads as a term ("2. Install
        # the latest nox: $ pip install nox").
        return []
    return run


def lead_in_of(index: int, candidates: list[Candidate]) -> int | None:
    """The lead-in right before the run of items, rows or code blocks holding `index`.
    An item of the same list as `index` is its sibling, not its lead-in, whatever its
    wording: a BSD licence's "… and the following disclaimer." (an item's own sub-items
    join it, units._Reader.nests)."""
    here = candidates[index]
    if here.unit.kind not in _INTRODUCED:
        return None
    j = index - 1
    while j >= 0 and index - j <= MAX_FOLLOWERS and candidates[j].chunk is here.chunk:
        if candidates[j].leads_in and not _siblings(candidates[j], here):
            return j
        if candidates[j].unit.kind not in _INTRODUCED:
            return None
        j -= 1
    if index - j > MAX_FOLLOWERS:
        return None
    return _lead_in_across_boundary(j + 1, candidates)


def _lead_in_across_boundary(first: int, candidates: list[Candidate]) -> int | None:
    """The lead-in ending the chunk before, for a run of items that opens its chunk: a
    chunk boundary fell between "Each significant line of a crontab entry describes a
    scheduled command with the six (or seven) following fields:" and "the value for the
    minute (from 0 to 59);", and the items were quoted as if nothing introduced them."""
    if candidates[first].unit.led_in:  # a code block holding its introducing line
        return None
    before = previous_unit(first, candidates)
    if before is None or candidates[before].chunk is candidates[first].chunk:
        return None
    lead = candidates[before]
    return before if lead.leads_in and _same_place(lead, candidates[first]) else None


def _same_place(one: Candidate, other: Candidate) -> bool:
    """Two units of one section, across a chunk boundary: the context can differ across
    the cut (a "TIP" box's title before a lead-in is its context; the next chunk starts
    under the heading again), the chunk's heading path then is the same. The same context
    under heading paths neither of which holds the other is two sections sharing a last
    heading ("Guide > Alpha > Example", "Guide > Beta > Example"): "The following settings
    are recommended." ending the first had brought the second's opening paragraph."""
    if one.chunk.heading == other.chunk.heading:
        return True
    return one.unit.context == other.unit.context and _nested(
        one.chunk.heading, other.chunk.heading
    )


def _nested(one: str, other: str) -> bool:
    """One heading path is the other or holds it ("Guide > Alpha", "Guide > Alpha > Use")."""
    return one == other or other.startswith(one + " > ") or one.startswith(other + " > ")


def _siblings(one: Candidate, other: Candidate) -> bool:
    """Two items of one list a lead-in introduces (units.listed_items)."""
    return _listed_item(one) and _listed_item(other)


def _listed_item(candidate: Candidate) -> bool:
    """An item of a list a lead-in introduces: what follows it in the list is its sibling
    (its own sub-items join it), so it introduces nothing however it ends."""
    return candidate.unit.kind == "item" and candidate.unit.listed


def _opening_of(index: int, candidates: list[Candidate]) -> int | None:
    """For a code unit whose example has no line introducing it, the first paragraph of
    its section in its chunk, if short: a tutorial section says in its opening sentence
    what its example shows ("… you can nest the Schema within itself by passing a
    callable"); a piece of the example says it to no one who has not read that. For the
    second run of an example whose first run holds its introducing line, that first run:
    attrs' traceback run was quoted without "If you don't set `kw_only=True`, … you'll
    get an error:" (a later run does not bring it: the whole example crowded out other
    answers when every run did)."""
    here = candidates[index]
    if here.unit.kind != "code":
        return None
    start = index  # the example's first unit: it holds the introducing line, if any
    while start > 0 and candidates[start - 1].chunk is here.chunk:
        if candidates[start - 1].unit.kind != "code":
            break
        start -= 1
    if candidates[start].unit.led_in:
        return start if start == index - 1 else None
    opening = None
    for j in range(start - 1, -1, -1):
        other = candidates[j]
        if other.chunk is not here.chunk or other.unit.context != here.unit.context:
            break
        if other.unit.kind == "prose" and not other.leads_in:
            opening = j
    if opening is None or len(candidates[opening].unit.text) > OPENING_CHARS:
        return None
    return opening


def _referent_of(index: int, candidates: list[Candidate]) -> int | None:
    """The unit right before one that refers back to it ("This is useful when …" after
    "-n, --no-commit …"): without it the quote does not say what "this" is."""
    here = candidates[index]
    if not _refers_back(here.unit.text):
        return None
    before = previous_unit(index, candidates)
    if before is None or not _same_section(candidates[before], here):
        return None
    return before


def _same_section(one: Candidate, other: Candidate) -> bool:
    """Two units of one section: the same context and, across a chunk boundary, the same
    heading path. A context is only the last heading, and "Example", "Usage", "Notes" head
    many sections: "In this section, …" opening "Guide > Beta > Example" had brought the
    last paragraph of "Guide > Alpha > Example", the chunk before it, as what it refers to,
    and that paragraph brought the next section's opening as what follows it."""
    return one.unit.context == other.unit.context and (
        one.chunk is other.chunk or one.chunk.heading == other.chunk.heading
    )


# "… the timestamp file maintained by this option …": a paragraph speaking of the
# definition just above it by a demonstrative and the kind of thing a manual defines.
# Fixed alternatives between word boundaries: linear.
_THIS_OPTION = re.compile(
    r"\b(?:this|that|these|those|the\s+above)\s+"
    r"(?:option|setting|directive|flag|switch|parameter|variable|field|keyword)s?\b",
    re.IGNORECASE,
)


def _refers_back(text: str) -> bool:
    """The paragraph continues the one before it: it opens referring back ("To do so, …",
    "This …") or speaks of "these"/"those" in its first words ("The two most interesting
    functions for these use-cases are Environment.step(), …", after simpy's "In order to
    debug or visualize a simulation, you might want to trace when events are created, …",
    was not quoted with it: 0.47 below)."""
    return bool(_REFERS_BACK.match(text) or _DEMONSTRATIVE.search(text[:REFERS_WITHIN]))


def _option_spoken_of(index: int, candidates: list[Candidate]) -> int | None:
    """The definition item right before a paragraph that speaks of it as "this option"
    ("Use systemctl clean --what=state ... to remove the timestamp file maintained by this
    option from disk." after "Persistent= — …"): a man page continues an item's
    description in a paragraph of its own, and alone the paragraph never names the option
    the user needed."""
    here = candidates[index]
    if here.unit.kind != "prose" or not _THIS_OPTION.search(here.unit.text):
        return None
    before = previous_unit(index, candidates)
    if before is None:
        return None
    item = candidates[before]
    if item.unit.kind != "item" or item.unit.context != here.unit.context:
        return None
    return before if term_of(item) else None


def _follower(
    index: int, candidates: list[Candidate], scores: np.ndarray, wants_number: bool
) -> int | None:
    here = candidates[index]
    if here.leads_in or _opens_announcing(here):
        after = _units_after(index, candidates)
        run = []
        for j in after:
            if candidates[j].unit.kind not in _INTRODUCED:
                break
            run.append(j)
        if not run and after and candidates[after[0]].unit.context == here.unit.context:
            return after[0]  # what it introduces was read as a paragraph: still its answer
        return max(run, key=lambda j: scores[j], default=None)
    following = _next_unit(index, candidates)
    if following is None:
        return None
    unit = candidates[following].unit
    if _shows_use_of(index, following, candidates) or _shows_what_it_names(
        here, candidates[following]
    ):
        return following
    group = here.unit.sentence_of
    if group >= 0 and unit.sentence_of == group and candidates[following].chunk is here.chunk:
        return following
    lacks = wants_number and not _STANDALONE_NUMBER.search(here.unit.text)
    same_place = _same_section(candidates[following], here)
    if lacks and same_place and _STANDALONE_NUMBER.search(unit.text):
        return following
    window = STATING_WINDOW if _states_a_value(unit) else NEIGHBOUR_WINDOW
    close = scores[following] >= scores[index] - window
    if same_place and (close or _refers_back(unit.text)):
        return following
    return _past_its_example(index, following, candidates, scores)


def _states_a_value(unit: Unit) -> bool:
    """The unit gives something to type or read off rather than a description: code, a
    list item or table row, a name in backticks, or a number on its own."""
    return (
        unit.kind in ("code", "item", "row")
        or "`" in unit.text
        or _STANDALONE_NUMBER.search(_past_a_title_number(unit.text)) is not None
    )


# A numbered title read as a paragraph ("2 Winter care", "3.1. Ports"): its number says
# where it sits, not a value, and quoting it after the paragraph before it (a text file's
# next section, its heading unrecognised) answers nothing (review77). One line, no closing
# punctuation: "3 retries are made." states a value. From a run's first digit only, digits and
# dots, then a letter: linear.
_TITLE_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)*\.?[^\S\n]+(?=[^\W\d_])")
TITLE_CHARS = 80


def _past_a_title_number(text: str) -> str:
    """`text` without the number that opens it when it reads as a numbered title."""
    opening = _TITLE_NUMBER.match(text)
    if opening is None or len(text) > TITLE_CHARS or "\n" in text.strip():
        return text
    if text.rstrip()[-1] in ".:;!?":
        return text
    return text[opening.end() :]


# A sentence opening "The following settings …": it announces what comes after it, though
# it says so first and ends in a full stop (crawl's "The following settings are recommended
# to facilitate using crawl in console with a screenreader.", whose settings were read as
# the paragraphs after it). Fixed words and one word: linear. Replayed: nu33 half facts 17
# -> 18 of 30 (that answer 0 -> 2 of 3 facts); kr61 and kr62val no fact changed.
_OPENS_ANNOUNCING = re.compile(r"The[^\S\n]+following[^\S\n]+([\w-]+)")
ANNOUNCING_CHARS = 160  # one sentence, not a paragraph that happens to open so
_PARTS_OF_A_DOCUMENT = frozenset({"section", "sections", "chapter", "chapters", "page", "pages"})


def _opens_announcing(candidate: Candidate) -> bool:
    """A one-sentence prose unit opening "The following …" (not "… section"): it is quoted
    with what it announces, as a lead-in is, but keeps its score (a lead-in's penalty and
    its items' inheritance stay with units ending in a colon)."""
    text = candidate.unit.text.strip()
    opening = _OPENS_ANNOUNCING.match(text)
    return (
        candidate.unit.kind == "prose"
        and opening is not None
        and opening.group(1).lower() not in _PARTS_OF_A_DOCUMENT
        and len(text) <= ANNOUNCING_CHARS
        and ". " not in text
    )


def _units_after(index: int, candidates: list[Candidate]) -> list[int]:
    """Up to MAX_FOLLOWERS units after `index` in its file, in order: on through its chunk
    and into a retrieved chunk that continues it (_next_unit). A lead-in ending its chunk
    ("The most important method here is Environment.run():", simpy) was quoted with
    nothing after it, its three items opening the next chunk, the answer among them."""
    out: list[int] = []
    here = candidates[index]
    j = _next_unit(index, candidates)
    while j is not None and j not in out and len(out) < MAX_FOLLOWERS:
        if candidates[j].chunk is not here.chunk and not _same_place(here, candidates[j]):
            break  # the next chunk opens another section: not what the lead-in introduces
        out.append(j)
        j = _next_unit(j, candidates)
    return out


def _past_its_example(
    index: int, example: int, candidates: list[Candidate], scores: np.ndarray
) -> int | None:
    """The paragraph after the code block that follows a paragraph, when it is of the same
    section and scores within NEIGHBOUR_WINDOW of it: an example between two paragraphs
    does not part them. Jinja's "Switching from Django" says "In Django, methods are called
    implicitly, without parentheses.", shows it, then "In Jinja, using parentheses is
    required for calls, …", the answer, which was not quoted (0.07 below the first, but
    the Django example came between)."""
    here = candidates[index]
    if here.unit.kind != "prose" or candidates[example].unit.kind != "code":
        return None
    beyond = _next_unit(example, candidates)
    if beyond is None:
        return None
    other = candidates[beyond]
    if (
        other.unit.kind == "prose"
        and other.unit.context == here.unit.context
        and scores[beyond] >= scores[index] - NEIGHBOUR_WINDOW
    ):
        return beyond
    return None


# A doctest line: what a docstring's "Usage::" shows being called.
_DOCTEST = re.compile(r"^[^\S\n]*>>>[^\S\n]", re.MULTILINE)


def _shows_use_of(index: int, following: int, candidates: list[Candidate]) -> bool:
    """The unit at `following` is the usage example of the definition at `index`: a
    program's `def utcnow(cls)` and its docstring's first sentence, then, cut into the next
    run, "Usage:: >>> arrow.utcnow()". The definition says what it does, the example how
    it is called."""
    here, there = candidates[index], candidates[following]
    return (
        there.chunk is here.chunk
        and there.unit.kind == "code"
        and defines(here)
        and not _DOCTEST.search(here.unit.text)
        and bool(_DOCTEST.search(there.unit.text))
    )


# A name written as code in prose: dotted ("Field.default_error_messages") or snake_case
# ("pass_original"); not a role's target in angle brackets, nor "i.e." or "e.g." (a dotted
# name's parts are two characters or more). Each part is a run of word characters without
# "_" or ".", so a match has one way through (linear).
_CODE_NAME = re.compile(
    r"(?<![\w.<])[A-Za-z][A-Za-z0-9]+(?:_[A-Za-z0-9]+)*"
    r"(?:\.[A-Za-z_][A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)+"
    r"|(?<![\w.<])[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
)
# A dotted chain of identifiers in code (`ports.harbour.set_fee`): each part a run of word
# characters, parted by single dots, so a match has one way through (linear).
_CODE_CHAIN = re.compile(r"\w+(?:\.\w+)*")
# A name in backticks (`admonition`, `table_of_contents`): a Markdown paragraph writes what
# its example then uses as code even when it is one plain word. No nested repeat: linear.
# Replayed: nu60a half facts 6 -> 7 of 10 ("… the name `admonition`." and its example),
# kr61 234 -> 235 (nu15), kr62val no fact changed. A number in backticks ("The default is
# `0`.") names nothing: any block after it holding that number had been brought (review68).
_BACKTICKED = re.compile(r"`([^`\s]{1,80})`")
# Longer dotted names in prose are not looked for in the example after it (`a.b.c.d` is
# rare as it is): it keeps the look linear in the code's length.
MOST_NAME_PARTS = 6


def _shows_what_it_names(here: Candidate, there: Candidate) -> bool:
    """`there`, the code block right after the paragraph `here` in its section, uses a name
    the paragraph writes as code: the example of what it names. "Field-level error message
    defaults can be set on Field.default_error_messages." is followed by
    `fields.Field.default_error_messages["required"] = …` and `required=True`, which a
    reST paragraph ending in a full stop does not lead into (keyless42)."""
    if here.unit.kind != "prose" or there.unit.kind != "code":
        return False
    if there.chunk is not here.chunk or there.unit.context != here.unit.context:
        return False
    names = {tuple(m.group(0).split(".")) for m in _CODE_NAME.finditer(here.unit.text)}
    names |= {
        tuple(m.group(1).split("."))
        for m in _BACKTICKED.finditer(here.unit.text)
        if _CODE_CHAIN.fullmatch(m.group(1)) and not m.group(1)[0].isdigit()
    }
    names = {name for name in names if len(name) <= MOST_NAME_PARTS}
    return bool(names) and _names_in(there.unit.text, names)


def _names_in(code: str, names: set[tuple[str, ...]]) -> bool:
    """Some name (its dotted parts) is in `code` whole: as consecutive parts of one of its
    dotted chains of identifiers, so `re.sub` is not in `more.subtle` nor `count_berths` in
    `recount_berths` (a substring test took them, fixes42b), while a qualifier before it
    (`fields.Field.default_error_messages`) or an attribute after it is still the name.
    One pass over the code, then one look-up per run of parts of each length named (at
    most MOST_NAME_PARTS lengths of at most that many parts: linear in the code)."""
    chains = [m.group(0).split(".") for m in _CODE_CHAIN.finditer(code)]
    for length in {len(name) for name in names}:
        runs = {tuple(c[i : i + length]) for c in chains for i in range(len(c) - length + 1)}
        if not runs.isdisjoint(names):
            return True
    return False


def _next_unit(index: int, candidates: list[Candidate]) -> int | None:
    """The unit after this one in its file: the next of its chunk, or, for a chunk's last
    unit, the first of a retrieved chunk that continues it (an answer split by a chunk
    boundary: "ServerAliveCountMax Sets …" | "The default value is 3.")."""
    return _adjacent_unit(index, candidates, 1)


def previous_unit(index: int, candidates: list[Candidate]) -> int | None:
    """The unit before this one in its file: the previous of its chunk, or, for a chunk's
    first unit, the last of a retrieved chunk that ends just before it."""
    return _adjacent_unit(index, candidates, -1)


def _adjacent_unit(index: int, candidates: list[Candidate], step: int) -> int | None:
    """The unit `step` (±1) away in its file, across a chunk boundary when the retrieved
    chunk on that side of this one's lines is among the candidates."""
    here = candidates[index].chunk
    near = index + step
    if 0 <= near < len(candidates) and candidates[near].chunk is here:
        return near
    if here.lines is None:
        return None
    for j, candidate in enumerate(candidates):
        chunk = candidate.chunk
        if chunk is here or chunk.source != here.source or chunk.lines is None:
            continue
        inner = j - step  # the unit on the near side of j: outside its chunk at an edge
        at_edge = not 0 <= inner < len(candidates) or candidates[inner].chunk is not chunk
        first, second = (here.lines, chunk.lines) if step > 0 else (chunk.lines, here.lines)
        if at_edge and first[0] < second[0] <= first[1] + BOUNDARY_GAP:
            return j
    return None


def lists(index: int, noun: str | None, candidates: list[Candidate]) -> bool:
    """The unit enumerates what a "which formats …?" question asks for: it holds a lead-in
    naming them and its items ("Supported date formats are:" in a docstring), or it is an
    item or row of a list whose lead-in names them."""
    if noun is None:
        return False
    text = candidates[index].unit.text
    if enumeration.enumerates(text, noun) or enumeration.names_inline(text, noun):
        return True
    lead = lead_in_of(index, candidates)
    return lead is not None and enumeration.introduces(candidates[lead].unit.text, noun)

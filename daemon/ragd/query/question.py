"""One analysis of the question, made once per request and read by every later step.

Support (support.py), the gate (gate.py) and the keyless answerer (extractive.py) all need
the same facts about a question: its content words, those words as the lexical index stems
them, how rare each is in *this* index (IDF), the exact identifiers it names, and the kind
of value it asks for. Deciding them in one place means one tokenisation and one answer to
"does this question ask for a number?".
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from ragd.index.lexical import analyze as index_analyze
from ragd.index.lexical import words_of
from ragd.query.answer_type import asked_type, key_terms
from ragd.query.spelling import respell

# Question scaffolding that says nothing about the topic.
STOP_WORDS = frozenset(
    """a an the is are was were be been being do does did doing done i my me we our us you
    your it its of to in on at for from by with about into over under and or but if then than
    so as what which who whom whose when where why how much many can could should would will
    shall may might must there this that these those any some all each every no not have has
    had get got take make please tell know s""".split()
)
# Narrower than `exact_tokens` on purpose: hyphenated words ("check-in", "man-overboard")
# and bare quantities ("30 kg", "2nd") are ordinary words a passage may phrase differently,
# so they must not be demanded verbatim.
_IDENTIFIER = re.compile(
    # Not after a "." either: a name or number starts where its dotted run does, else
    # every part of "a.a.a.a…" would start a scan of the rest (quadratic). Nor next to a
    # "/": a year in a date ("01/02/2024") or a path's part is an example value, which
    # the documents need not repeat. Each name takes its whole run at once (`*+`, what a
    # lookahead checks first: a digit, an underscore): backtracking into the run to find an
    # end the last lookahead accepts cost n² when a "/" or "-" follows it ("a1111…1/", a
    # question of 4,096 characters: 0.2–0.4 s); now a run next to a "/" is no name at all,
    # where it used to yield its part before a "." ("x9" of "x9.1/").
    r"(?<![\w./-])(?:"
    r"--[^\W\d_][\w-]*+"  # a command-line flag: --force, --dry-run-manifest
    r"|[^\W\d_](?=[\w.-]*?\d)[\w.-]*+"  # starts with a letter, holds a digit: KSF-E417, v3.2.1
    r"|[^\W\d_](?=\w*?_\w)\w*+"  # snake_case name: boarding_cutoff_minutes
    r"|\d+(?:\.\d+)+(?![.\d])"  # a bare dotted version: 2.8.1, 3.3
    r"|(?:19|20)\d\d"  # a year
    r")(?![\w/-])"
)
# Identifiers a question demands, at most: each one is a pattern run over every
# candidate's text, so a pasted list of 841 codes cost 1.1–1.8 s per search (10–18× an
# ordinary one). No question of bench's 972 names more than 3.
MAX_IDENTIFIERS = 16
# Codes, field names, flags and CamelCase settings ("KSF-E417", "boarding_cutoff_minutes",
# "--reprint-since", "-t", "StrictHostKeyChecking"): the encoder barely sees them, so the
# keyless answerer boosts a unit that repeats one (broader than `_IDENTIFIER`).
_EXACT_TOKEN = re.compile(
    # (?<!…): a dotted or dashed name starts where its run of letters and digits does;
    # tried from inside the run too, a long run would be rescanned from every position.
    r"(?:--|(?<![A-Za-z0-9]))[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+|\b\w*\d\w*\b"
    r"|(?<![\w-])-[A-Za-z]\b|\b[A-Za-z][a-z]+(?:[A-Z][a-z0-9]*)+\b"
)
# A word: a letter, then letters and digits, in any script; the run is taken whole (`*+`:
# no backtracking into it). Which words are names — a capital first and a lower-case letter
# in it ("Nushell", "PostgreSQL", "Kraków") or an abbreviation of capitals ("YAML", "GPU"),
# not a sentence's first word — is decided outside the regex.
_WORD_RUN = re.compile(r"\b[^\W\d_][^\W_]*+")
_SENTENCE_END = frozenset(".!?:;")
MAX_NAMES = 16  # names looked up per question (as MAX_IDENTIFIERS)
MAX_NAME_CHARS = 64  # a longer run is no name anyone types (and would fill the warning)
# A question In Title Case capitalises its ordinary words too: no name can be told apart.
# (Of the words not opening a sentence, at least this many, this share capitalised.)
TITLE_CASE_WORDS = 4
TITLE_CASE_SHARE = 0.75
# Wording whose answer is a number, a version, a size or a time: the answer-type check's
# kinds (answer_type.py) plus a few that ask for a number without naming its kind.
_WANTS_NUMBER = re.compile(
    r"\b(?:how\s+(?:much|many|long|large|big|old|often|fast)|which\s+versions?|"
    r"what\s+(?:version|port|size|number|year|date|time|percentage|limit))\b",
    re.IGNORECASE,
)
# Wording whose answer is something to type: a command, an option, a setting.
_WANTS_ACTION = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|to)\b|\bwhich\s+(?:option|flag|command|setting)",
    re.IGNORECASE,
)


class Lexicon(Protocol):
    """What the analysis needs of the lexical index (ragd.index.lexical.TantivyIndex)."""

    def analyze(self, text: str) -> list[str]: ...

    def doc_freqs(self, terms: Iterable[str]) -> tuple[int, dict[str, int]]: ...


@dataclass(frozen=True)
class QuestionAnalysis:
    text: str
    words: tuple[str, ...]  # content words, lower-cased, in order (stop words dropped)
    weights: dict[str, float]  # each word as the index stems it → its IDF in this index
    unseen: float  # share of that weight on terms no chunk of the index holds
    identifiers: tuple[str, ...]  # exact identifiers a passage must hold (support.py)
    exact_tokens: tuple[str, ...]  # codes, flags and names worth boosting in a quote
    asked: str | None  # the kind of value asked for (answer_type.asked_type), if any
    wants_number: bool  # the answer is a number, version, size or time
    wants_action: bool  # the answer is a command, option or setting
    encoder_blind: bool = False  # every word piece is the encoder's unknown one (Thai)
    # Names the question writes (capitalised, not opening a sentence) that no chunk of the
    # index holds: "How do I generate a completion script for Nushell?" on a folder that
    # never mentions Nushell. Off-topic and hard-negative questions name such things far
    # more often than answerable ones (names_unseen in docs/calibration.md).
    unseen_names: tuple[str, ...] = ()

    @property
    def out_of_reach(self) -> bool:
        """Neither retriever can read it: the encoder knows none of its word pieces (a
        script MiniLM's vocabulary lacks, such as Thai: one unknown piece whatever was
        typed) and no indexed chunk holds any of its words. Its closeness to a passage
        read as unknown pieces too says nothing, and no term can be covered."""
        return self.encoder_blind and bool(self.weights) and self.unseen >= 1.0

    @property
    def looks_for_nothing(self) -> bool:
        """No term and no identifier: only stop words, punctuation, symbols or emoji.
        Nothing in it can be covered, named or unseen, and MiniLM reads every emoji and
        most symbols as one unknown word piece, so its vector is the same whatever was
        typed (close to any passage also read as unknown pieces: a line of emoji, CJK)."""
        return not self.weights and not self.identifiers

    def key_terms(self, analyze: Callable[[str], list[str]] = index_analyze) -> set[str]:
        """The weighted terms minus the words that only say which value is wanted."""
        return key_terms(self.weights, analyze)


def analyse(
    question: str, lexicon: Lexicon | None = None, encoder_blind: bool = False
) -> QuestionAnalysis:
    """The question analysed against `lexicon` (IDF from its document frequencies); without
    one every term weighs 1 and none counts as unseen. `encoder_blind`: the embedder reads
    none of its word pieces (Embedder.reads_any_piece)."""
    words = tuple(w for w in words_of(question) if w not in STOP_WORDS)
    stem = lexicon.analyze if lexicon is not None else index_analyze
    terms = list(dict.fromkeys(term for word in words for term in stem(word)))
    unseen_names: tuple[str, ...] = ()
    if lexicon is None:
        weights, unseen = dict.fromkeys(terms, 1.0), 0.0
    else:
        total, freqs = lexicon.doc_freqs(terms)
        total = max(1, total)
        known = _spelled_otherwise(words, [t for t, df in freqs.items() if df == 0], lexicon)
        # A typo is read as the word meant (spelling.py): weighed, covered and seen as it.
        typos = respell(
            [t for t, df in freqs.items() if df == 0 and t not in known], lexicon.doc_freqs
        )
        freqs = dict(typos.get(term, (term, df)) for term, df in freqs.items())
        weights = {t: math.log(1 + (total - df + 0.5) / (df + 0.5)) for t, df in freqs.items()}
        absent = {t for t in weights if freqs[t] == 0 and t not in known}
        missing = sum(weights[t] for t in absent)
        unseen = missing / sum(weights.values()) if weights else 0.0
        unseen_names = tuple(n for n in names_written(question) if _all_in(stem(n), absent))
    asked = asked_type(question)
    return QuestionAnalysis(
        text=question,
        words=words,
        weights=weights,
        unseen=unseen,
        identifiers=tuple(identifiers(question)),
        exact_tokens=_exact_tokens(question),
        asked=asked,
        wants_number=asked is not None or _WANTS_NUMBER.search(question) is not None,
        wants_action=_WANTS_ACTION.search(question) is not None,
        encoder_blind=encoder_blind,
        unseen_names=unseen_names,
    )


def names_written(question: str) -> list[str]:
    """The words `question` writes as names: a capital and at least one lower-case letter
    ("Nushell", "WiFi", "PostgreSQL", "Kraków"), or an abbreviation of two or more
    capitals ("YAML", "GPU", "SHA256"), not opening the question or a sentence of it (where
    any word is capitalised), MAX_NAMES at most, each once; none in a question In Title
    Case or in capitals. Linear: one pass of a regex that takes each run whole, and a look
    a few characters back per word."""
    names: list[str] = []
    inside = titled = shouted = 0  # words not opening a sentence; capitalised; in capitals
    for match in _WORD_RUN.finditer(question):
        word = match.group()
        before = question[max(0, match.start() - 8) : match.start()].rstrip(" \t\n\"'(\u201c")
        if not before or before[-1] in _SENTENCE_END:
            continue  # a sentence's first word
        inside += 1
        if _capitalised(word):
            titled += 1
        elif _abbreviation(word):
            shouted += 1
        else:
            continue
        if len(word) <= MAX_NAME_CHARS and len(names) < MAX_NAMES and word not in names:
            names.append(word)
    if _all_capitalised(inside, titled, inside - shouted) or _all_capitalised(inside, shouted):
        return []
    return names


def _all_capitalised(words: int, capitalised: int, among: int | None = None) -> bool:
    """Are so many of a question's words capitalised that none can be told as a name (In
    Title Case, or IN CAPITALS)? `among`: the words whose capitals are counted, when not
    all are: In Title Case an abbreviation keeps its capitals, so it is left out of the
    share, but not of the count of words (review51: "What Is The GPU Driver?" has four,
    and had read "Driver" as a name once GPU was not counted among them)."""
    among = words if among is None else among
    return words >= TITLE_CASE_WORDS and capitalised >= TITLE_CASE_SHARE * among


def _capitalised(word: str) -> bool:
    return word[0].isupper() and any(c.islower() for c in word)


def _abbreviation(word: str) -> bool:
    """Two or more letters, all capitals ("YAML", "QUIC", "SHA256"; not "I", "A4").
    An abbreviation can be spelled out where the documents mention it ("DRM" for "Digital
    Restrictions Management"), but a question naming one no chunk holds is far more often
    about what the folder lacks: of the questions `make eval` kept, such an abbreviation was
    the only unseen name of 49 hard negatives and 2 off-topic questions, and of 3
    answerable ones (docs/calibration-log.md, 6 Dec 2026)."""
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)  # a script with no case: no


def _all_in(terms: list[str], absent: set[str]) -> bool:
    return bool(terms) and all(t in absent for t in terms)


def _spelled_otherwise(words: Iterable[str], absent: list[str], lexicon: Lexicon) -> set[str]:
    """The `absent` terms that are a name and a number the index holds as separate words
    ("gplv3" where the documents write "GPL-3" or "GPL version 3"): a spelling of words
    the index knows, not unseen vocabulary."""
    if not absent:
        return set()
    parts: dict[str, list[str]] = {}
    for word in words:
        split = name_number(word)
        stems = lexicon.analyze(word)
        if split is not None and len(stems) == 1 and stems[0] in absent:
            parts[stems[0]] = [*lexicon.analyze(split[0]), *lexicon.analyze(split[1])]
    if not parts:
        return set()
    _, freqs = lexicon.doc_freqs({p for group in parts.values() for p in group})
    return {term for term, group in parts.items() if group and all(freqs[p] for p in group)}


def identifiers(question: str) -> list[str]:
    """The exact identifiers a question names, lower-cased, in order, without repeats.

    Two exceptions. A constant's name in capitals (``PINT_REGISTRY``, an environment
    variable) keeps its case, so it is looked for as written, never as the prose words it
    is made of ("Pint registry"). A bare number that is the user's example value, which
    the documents need not repeat, is not demanded: one inside a quoted phrase (a string
    like "2.5 kilograms"), one compared in an expression (``python_version < "3.8"``,
    ``>=1.0``) and one the question introduces as an example ("a version like 2.0.1");
    a name given as an example ("names like test_x[0-1]", "such as en_US") is not either.
    The first MAX_IDENTIFIERS are kept: a question naming hundreds asks about none."""
    examples = iter(_quoted_phrases(question))  # in order, as the matches come
    example = next(examples, None)
    found: list[str] = []
    example_end = -1  # where the last example ended: "like 1.1, 1.2" lists two
    previous: re.Match[str] | None = None  # the identifier before this one, if a version
    for match in _IDENTIFIER.finditer(question):
        while example is not None and example[1] <= match.start():
            example = next(examples, None)
        quoted = example is not None and example[0] <= match.start()
        token = match.group().rstrip(".-")
        listed = (
            example_end >= 0
            and match.start() - example_end < 8
            and _joins_a_list(question[example_end : match.start()])
        )
        if token[:1].isdigit():
            given = quoted or listed or _is_example_operand(question, match.start())
        else:  # a name: the user's own when given as an example ("names like test_x"),
            # unless the example compares it ("a marker like python_version < '3.8'")
            given = (listed or _after_example_word(question, match.start())) and not (
                _compared(question, match.end())
            )
        if given:
            example_end = match.end()
            continue
        if previous is not None and _ordered_pair(question, previous, match):
            # "so v1.10 comes after v1.9": two versions put in order are the user's
            # example of an ordering, not two releases asked about.
            found.remove(previous.group().rstrip(".-").lower())
            previous = None
            continue
        previous = match if is_version(token) else None
        found.append(token if is_constant(token) else token.lower())
    return list(dict.fromkeys(t for t in found if t))[:MAX_IDENTIFIERS]


# What introduces the user's own example value: "a range like >=1.0", "such as 2.0.1".
# ("released as 2.0" names the release: only "such as" introduces an example.)
# "say" only as an aside, "say, 2.0": "What did the docs say 2.0 removed?" asks about 2.0.
# "example" only as "for example" or "example:": "What does Example 2.1 show?" names one.
_EXAMPLE_WORDS = frozenset(
    ("like", "such as", "e.g", "eg", "for example", "for instance", "example:", "say,")
)
_KEEPS_ITS_MARK = frozenset(("say,", "example:"))
# A verb before "like" makes it a comparison of two things asked about, not an example:
# "Does 2.0 behave like 1.9?", "Does it work like 1.x did?".
# Not "looks like": "a wheel that looks like 3.11" gives an example (review18).
_COMPARING_VERBS = frozenset("behave behaves behaved work works worked act acts acted".split())
# Not "!" alone: "!=" ends in "=", and a bare "!" ends an exclamation ("Help! 2.2.0 crashes").
_OPERATOR_CHARS = frozenset("<>=~")
# What may stand between an operator or example word and its number: blanks, brackets and
# opening quotes, straight or typographic (a phone or word processor writes ‘3.8’, «3.8»).
_OPENING_MARKS = " \t\"'([\u201c\u2018\u201e\u00ab"
_LOOK_BACK = 24  # characters before a number: a constant amount of work per identifier


def _is_example_operand(question: str, start: int) -> bool:
    """Is the number at `start` an operand of a comparison (``< "3.8"``, ``>=2.8``) or the
    first thing after a word that introduces an example ("like 2.0.1", "e.g. 1.9")?"""
    before = question[max(0, start - _LOOK_BACK) : start].rstrip(_OPENING_MARKS)
    return before[-1:] in _OPERATOR_CHARS or _after_example_word(question, start)


def _compared(question: str, end: int) -> bool:
    """Does a comparison operator follow the identifier ending at `end`
    (``python_version < "3.8"``, ``os_name=="nt"``)?"""
    after = question[end : end + _LOOK_BACK].lstrip(" \t")
    return after[:1] in _OPERATOR_CHARS or after[:2] == "!="


def _after_example_word(question: str, start: int) -> bool:
    """Is the identifier at `start` the first thing after a word that introduces an
    example ("like 2.0.1", "e.g. 1.9", "such as en_US"), not after a verb of comparison?"""
    before = question[max(0, start - _LOOK_BACK) : start].rstrip(_OPENING_MARKS)
    words = [_bare_word(word) for word in before.split()[-2:]]
    if words[-2:-1] and words[-2] in _COMPARING_VERBS:
        return False  # "Does 2.0 behave like 1.9?" asks about both releases
    return bool(words) and (words[-1] in _EXAMPLE_WORDS or " ".join(words) in _EXAMPLE_WORDS)


def _bare_word(word: str) -> str:
    """A word in lower case without the bracket before it or the stop or colon after it
    ("(e.g." → "e.g"); "say," and "example:" keep theirs, which make them asides."""
    word = word.lower().lstrip(_OPENING_MARKS)
    return word if word in _KEEPS_ITS_MARK else word.rstrip(".,:")


# Two versions put in order: a comparative of order before "than" ("newer than"), or a
# verb of sorting before "after"/"before" ("comes after"). Other comparisons name the two
# releases asked about ("Is 3.0 faster than 2.9?", "removed in 2.0 after 3.0?").
_ORDER_COMPARATIVES = frozenset(
    ("newer", "older", "later", "earlier", "greater", "higher", "lower", "bigger", "smaller")
)
_SORTING_VERBS = frozenset(("comes", "come", "sorts", "sort", "sorted", "goes", "ranks"))


def _ordered_pair(question: str, first: re.Match[str], second: re.Match[str]) -> bool:
    """Are two versions put in order by the few words between them ("1.10 counts as newer
    than 1.9", "v1.10 comes after v1.9"), rather than listed ("after 2.0 and before 3.0")
    or compared on something else ("Is 3.0 faster than 2.9?")?"""
    if second.start() - first.end() > 32 or not is_version(second.group().rstrip(".-")):
        return False
    words = question[first.end() : second.start()].lower().split()
    if not 1 < len(words) <= 4 or "and" in words:
        return False
    last, before = words[-1], words[-2]
    return (last == "than" and before in _ORDER_COMPARATIVES) or (
        last in ("after", "before") and before in _SORTING_VERBS
    )


def is_version(token: str) -> bool:
    """ "1.10", "v1.9": numbers joined by dots, a "v" before them allowed."""
    parts = token.removeprefix("v").removeprefix("V").split(".")
    return len(parts) > 1 and all(part.isdigit() for part in parts)


def _joins_a_list(gap: str) -> bool:
    """Does `gap`, the few characters between two numbers, list them ("1.1, 1.2", "1.9 or
    1.10")?"""
    return gap.strip(" ,'\"") in ("", "or", "and")


def _exact_tokens(question: str) -> tuple[str, ...]:
    """The question's exact tokens as the keyless answer looks for them: lower-cased, but
    a one-letter option keeps its case — `tail -F` is not `tail -f` (nu24: "tail -f vs
    tail -F" folded both into `-f`, and only `-f`'s entry was quoted) — unless the
    question is written in capitals ("WHAT DOES LS -V DO?"), where its case is not the
    user's choice."""
    shouted = not any(c.islower() for c in question) and any(
        len(word) > 1 and word.isalpha() for word in question.split()
    )

    def exact_case(token: str) -> str:
        option = len(token) == 2 and token[0] == "-"
        return token if option and not shouted else token.lower()

    return tuple(dict.fromkeys(map(exact_case, _EXACT_TOKEN.findall(question))))


def is_constant(token: str) -> bool:
    """ALL_CAPS_WITH_UNDERSCORES: how environment variables and constants are written."""
    return "_" in token and token.isupper()


_QUOTES = {'"': '"', "\u201c": "\u201d"}


def _quoted_phrases(question: str) -> list[tuple[int, int]]:
    """The (start, end) of each double-quoted span of the question holding a space: an
    example the user typed ("a string like "2.5 kilograms""). One pass, no regex."""
    spans = []
    opened: tuple[int, str] | None = None
    for at, char in enumerate(question):
        if opened is None and char in _QUOTES:
            opened = (at, _QUOTES[char])
        elif opened is not None and char == opened[1]:
            if " " in question[opened[0] : at]:
                spans.append((opened[0], at))
            opened = None
    return spans


def name_number(piece: str) -> tuple[str, str] | None:
    """("gpl", "3") for "gplv3" or "gpl3": a name of two letters or more, then a number
    (a "v" between them dropped); None for any other shape ("e417", "md5sum")."""
    number = piece.rstrip("0123456789.")
    digits = piece[len(number) :]
    name = number[:-1] if number.endswith("v") and len(number) > 2 else number
    if not digits[:1].isdigit() or len(name) < 2 or not name.isalpha():
        return None
    return name, digits

"""The answer given without an API key: the retrieved units that answer, quoted verbatim.

Nothing is generated, so nothing can be invented. Each retrieved chunk is cut into whole
*units* (`units.py`: a paragraph, a list item, a table row with its header, a code block
or command line with the line introducing it); headings, underlines, link lines and FAQ
questions are never units. Each unit is scored by

* its cosine to the question (the unit embedded with its heading or FAQ question),
* how much of the question's key terms it holds (with its context and heading path),
  each term weighted by how rare it is among the candidates, so "cmake" outweighs
  "build" in "How do I build zstd with CMake?", and less when nearly every file of the
  index holds it ("dateutil" in "Under what license is python-dateutil released?"),
* the support of the chunk it comes from relative to the best chunk's (the gate's own
  statistic: the best-supported chunks are chosen from first), and
* a boost for exact tokens the question names (`KSF-E417`, `--reprint-since`), and
* a boost for units of a file the question names by its name (naming.py: "Under Apache
  2.0, …" → `Apache-2.0.txt`; less when the naming word is in nearly every file), and a
  penalty for units under a heading naming another release than the question does
  ("fixed in 2.14.3?" → not "v2.14.2 > Fixes"), and one
  for a unit of a quotation signed by its author (an epigraph: another's words), and one
  for a licence notice in a program's comments unless licensing is asked about, and one
  for a unit of a program's source when the page holds documents too;

and an item, row or block scores at least what the lead-in introducing it scores, less
INHERIT_GAP (the lead-in matches the question's words, the item holds the answer).

Up to five units are quoted, best first, within a budget of characters, skipping
repeats, a code block's third run and any unit far below the best (but each thing the
question names side by side, "Graylog or Elasticsearch", gets the best unit naming it);
each brings the neighbours that complete it (the lead-in before a list item, row or code
block; the short opening paragraph of its section before a piece of an example no line
introduces; the paragraph a "This …" refers back to; the rest of a short list; the item,
block or paragraph a lead-in introduces, in the next chunk of its file too; the next
sentence, or the next paragraph of the section when it scores nearly as well or refers
back to it).
A unit that addresses the reader as a model ("SYSTEM: …", "ignore previous instructions")
is never the first quote and is labelled wherever it is quoted.

`Confidence` comes from the gate's probability and how much of the question's key terms
the first quoted unit holds, combined by the fitted model in gate_model.py: a quote that
does not mention what was asked about is not an answer, however close its neighbourhood.
When that label is `low` the answer says plainly, before the quotes, that the documents may
not answer the question — the gate's "unsure" (it cannot tell a paraphrase from an absent
answer) is one input of the label, so the warning and the label always agree.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import NamedTuple

import numpy as np

from ragd.index.embedder import PieceFold, PieceVectors
from ragd.index.lexical import analyze
from ragd.ingest.formats.code import COMMENT_OPENERS, LANGUAGES, LINE_COMMENTS
from ragd.query import (
    alternatives,
    enumeration,
    fitting,
    gate_model,
    injection,
    naming,
    option_use,
    releases,
)
from ragd.query.question import STOP_WORDS, QuestionAnalysis, analyse
from ragd.query.soft_coverage import CoverageFold
from ragd.query.support import SupportScorer
from ragd.query.types import Answer, Citation, Confidence, GateDecision, RetrievedChunk
from ragd.query.units import (
    Unit,
    as_fenced_code,
    definition_term,
    leads_in,
    names_term,
    units_of,
)
from ragproto.protocol import REFUSAL_SENTENCE

HEADER = (
    "Extractive answer (no ANTHROPIC_API_KEY set, so these are the passages closest to "
    "your question, quoted from the documents; set ANTHROPIC_API_KEY for the daemon to "
    "get answers written by Claude):"
)
# Said before the quotes exactly when the answer's confidence is `low` (after a gate judged
# the retrieval). It is about the quotes, as the label is, not the documents: beside the
# gate's "pass" (the documents cover the subject) "the documents may not answer" read as a
# contradiction. The warning and the label are one judgement, so "may not answer" never
# stands beside `Confidence: medium`. The label, not the gate's "unsure" verdict, decides:
# it reads the gate's p and also how close the quoted units come to the question, and held
# out 11 of the 13 answers the gate called "unsure" but the label `medium` were right.
UNSURE_NOTE = (
    "These quotes may not answer this question: they are from the passages closest to it, "
    "and nothing shows clearly that they say what you asked."
)
NO_SENTENCE_NOTE = "The retrieved passages contain nothing quotable as an answer; see:"
ONLY_INSTRUCTIONS_NOTE = (
    "The closest passages are instructions addressed to an AI model, not an answer "
    "(they were not followed); see:"
)

# The weights of a unit's score beside its cosine (weight 1): a conditional logit over the
# units of each page, fitted to which unit holds the question's facts on the eleven eval
# corpora (bench/keyless_unit_fit.py; held out one corpus at a time the fitted weights
# vary by about ±0.1 and pick a fact-holding unit first 64 % of the time, against 60 %).
COVERAGE_WEIGHT = 0.9  # the question's key terms in the unit, its context and path
HEADING_WEIGHT = 0.45  # … in where it sits: its file's path, heading path and context
SUPPORT_WEIGHT = 0.45  # its chunk's support relative to the best chunk's
CHUNK_COSINE_WEIGHT = 0.7  # its chunk's best-window cosine: the passage as a whole fits
EXACT_TOKEN_BOOST = 0.1
ANSWER_TYPE_BOOST = 0.3  # "which version …?" wants a number, "how do I …?" a command
NAMED_SOURCE_BOOST = 0.4  # "Under Apache 2.0, …": units of Apache-2.0.txt (naming.py; above
# the fit, which saw few questions naming a file: a file named outranks a wording match)
# …in proportion to the rarest naming word's IDF below COMMON_TERM_IDF (_named). Replayed:
# kr61 half facts 233 -> 234 of 298 (Jinja's loopcontrols, templates.rst named by
# "template"), kr62val 95/117 unchanged, every fact 80 -> 81; no answer loses a fact.
# A unit under a heading naming another release than the question names loses this; one
# under the release it asks about gains it. 0.3 and 0.6 give the same answers on the replay
# (pydantic "fixed in 2.14.3?" and FareDeck "3.2.0" lose the other release's units, no fact
# changes); the smaller keeps it below a named file's boost.
RELEASE_WEIGHT = 0.3
# A definition item whose term is a name the question gives ("http — The http scheme …"
# for "… through an HTTP proxy?"): a manual's entry for the very thing asked about.
DEFINES_NAMED_BOOST = 0.3
# At most this many sentences brought for names the quotes lack (with_the_names_they_lack):
# a question naming 400 settings got 45 quotes, where five is the rule (attack21).
MAX_NAMES_BROUGHT = 2
OUT_OF_RELEASE = 10.0  # below every unit: only quoted when nothing else is left
# "What changed in GnuPG 2.2.17?" asks for the release's list, not for one entry: when the
# heading path and file of the asked release's best-scoring item hold at least this share
# of the question's key-term weight, that section's items are quoted in the file's order
# (a change log puts what matters first) as far as the budget goes, not five by wording.
# Below it the question names something the heading does not ("my status bar colour
# settings stopped working" after tmux 2.9: 0.12) and the entry saying it comes first.
# Replayed: 0.3, 0.4 and 0.5 gain the same held-out answers but for requests 2.32.0
# (0.48, lost at 0.5); 0.3 also reorders psutil 6.0.0's already complete answer.
RELEASE_LIST_PLACE = 0.4
# …and at most this many of its items (the budget ends a list of real entries sooner; a
# section of 200 one-word items would otherwise make the choice 200 rounds long).
# Replayed: 10 and 20 the same answers; 5 leaves GnuPG 2.2.17's second fact out.
MAX_LISTED = 20
LEAD_IN_PENALTY = 0.25  # "The options are:" is quoted with its item, rarely for itself
# A quotation signed by someone (an epigraph, "> … / > —Paul Querna") is another's words
# setting the scene; the section's own text says what it holds.
SIGNED_QUOTATION_PENALTY = 0.5
# For a question asking for a value, a unit whose numbers are the question's own and whose
# words are all the question's says nothing the question does not: `__version__ = "1.3.0"`
# for "Which Python versions does arrow 1.3.0 run on?". (Without a number such a unit may
# be the answer: "pip install pint"; to a yes/no question a restatement is one.)
ECHO_PENALTY = 1.0
# A licence notice in a program's comments (the Apache header over every Go file of cobra)
# is the same words in every file, no answer to what the file does: it was quoted first for
# "Which file of cobra do I use to add an active help message?" (newuser39), its path on
# the page. Unless the question asks about licensing it comes after the file's own code;
# a LICENSE file or a document's licence section is not a program's comment and keeps
# its score.
LICENCE_NOTICE_PENALTY = 0.5
# A unit of a program's source (read as code: its comments, docstrings and statements)
# when the page also holds documents: a project's Readme or manual says how to use it, its
# implementation how it works inside, and commander's JSDoc and typings were quoted over the
# Readme section answering four questions (nu36), packaging's RawMetadata comments over the
# Metadata docstring (nu19). Not an example program (examples/carwash.py is the example a
# question asks about), nor a test, which shows the use too (httpx's `MockTransport`, attrs'
# `asdict` are shown there: a penalty on tests lost answers before, see docs/answers.md),
# nor Rust, whose doc comments the code reader reads as Markdown.
# Grid 0.15/0.2/0.25/0.3 on the replay (half (all)): tuned 101 (63) -> 102 (64) / 104 (65)
# / 104 (65) / 104 (65); held out nine 148 (111) -> 149 (112) / 150 (113) / 150 (111) / 150
# (111) (nu40, nu14b); seven more code folders (httpx, requests, attrs, pint, black,
# structlog, markdown) 175 (149) of 208 -> 176 (149) / 175 (149) / - / 175 (148) (requests
# +1, attrs -1 from 0.2); eval and passing folders unchanged. 0.2: the smallest of the
# tuned side's best. The exemptions were chosen with held-out folders in view.
SOURCE_PENALTY = 0.2
# Folders whose programs show a project in use rather than implement it.
_USE_FOLDERS = frozenset(
    {"examples", "example", "samples", "sample", "demo", "demos", "tests", "test", "testing"}
)
# At most this many runs of one code block are chosen (units.py cuts a long block into runs
# of lines): "How do I check whether the version 2.0.1 satisfies a range like >=1.0,<3?"
# was answered by five runs of one test's table of cases, each holding the question's
# numbers, and the docstring showing `SpecifierSet` (7th) found no place (packaging,
# nu19). The block's later runs still come when a quoted one brings them (a lead-in's
# example continued, with_the_example_continued). Replayed on kr61 (bench/keyless_replay.py):
# 2 and 3 both lift half facts 232 -> 233 and every fact 169 -> 171 of 298, no answer
# loses a fact; held out (kr62val) 2 adds a fact to one answer, 3 changes none.
MAX_BLOCK_RUNS = 2
RELATIVE_WINDOW = 0.6  # a later unit must score nearly as well as the first
NAMED_WINDOW = 0.45  # … nearer when the first holds every exact token the question names
MAX_QUOTES = 5  # units chosen by score (each may bring the neighbour that completes it)
QUOTE_BUDGET = 1000  # characters the chosen units may add up to (the first always goes)
NEIGHBOUR_WINDOW = 0.1  # the next unit of the same section follows when this close
# Chosen units of one section scoring within this of each other are quoted in the section's
# order. Only the order changes, never what is quoted. Grid 0.05/0.1 on the replay: the
# first quote holds a fact 247 → 250 of 416 at both (0.05: 5 better, 2 worse); held out
# (black, pint) 31 → 31 of 58 at 0.05, 30 at 0.1.
READING_ORDER_TIE = 0.05
NEAR_DUPLICATE = 0.95  # cosine above which two units repeat each other (sibling options do not)
# A unit with this share of its lines already quoted is a repeat. Grid 0.34/0.5/0.67/1 on
# the replayed eval retrievals: 0.34–0.67 give the same answers on every corpus (so every
# held-out fold picks within them; 0.5 is their middle), 1 loses a dateutil answer.
REPEATED_LINES = 0.5
# A unit this share of whose word triples (`unit_shingles`) the chosen units hold says
# what they say, wrapped or marked up otherwise: an AsciiDoc `.txt` and the `.html` made
# from it quote one paragraph with other lines, quotes and backticks (newuser51: 5 of 10
# git-doc answers quoted a passage twice). High, so that siblings sharing a sentence's
# frame ("Set this to … to …") are not taken for repeats; not fitted.
REPEATED_WORDS = 0.8
SHINGLE_WORDS = 3
MMR_RELEVANCE_WEIGHT = 0.75
MAX_CANDIDATES = 200  # bounds the embedding work (chunks come best-first)
BOUNDARY_GAP = 3  # blank lines between a chunk's last line and the next chunk's first
SHORT_LIST_ITEMS = 8  # a list of at most this many items …
SHORT_DEFINITIONS = 4  # … or this many when they define terms ("-S#, --sensors=#: …") …
SHORT_LIST_CHARS = 1000  # … and characters is quoted whole when one of its items is chosen
# (the quote budget: four one-line groups of names, "Math operations: … sqrt …", ran to 900
# characters. Grid 600/800/1000/1200 on the replay: pooled half-facts 363/363/364/364 of
# 416, git's info/exclude and policy's GPLv2 source options gained at 1000, no corpus lower.)
MAX_FOLLOWERS = 40  # how far past a lead-in its list, table or code block is looked for
# A key term whose IDF in the whole index is below this weighs proportionally less: the
# project's own name ("python-dateutil", "git") is in nearly every file, so a unit repeating
# it says nothing about what was asked. Grid 0.5/1/2 on the replayed eval retrievals, chosen
# by every held-out fold (1.0: pooled half-facts 84.9 → 85.1 %); above 1 the weighting
# cannot raise a rare incidental word ("treat", "2024") over the candidates' own rarity.
COMMON_TERM_IDF = 1.0
# The gate multiplies a chunk's support by the share of the question's identifiers it
# holds; for ranking units a chunk missing them all keeps this share of its support (the
# paragraph explaining "convert snake_case names to camelCase" need not say "snake_case").
# Grid 0/0.5/1 on the replay: 0.5 lifts marshmallow 65 → 70 % and lowers no corpus (1.0
# costs policy a question); held out, marshmallow's own fold sees a tie (0 and 0.5).
IDENTIFIER_FLOOR = 0.5
# An item, row or block introduced by a lead-in scores at least the lead-in less this.
# Grid 0/0.1/0.2/0.3/0.35 on the replayed eval retrievals: 0.1 and 0.2 best on every
# held-out fold (pooled half-facts 85.1 → 85.6 %, no corpus lower); 0.2 quotes less.
INHERIT_GAP = 0.2
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
PROGRAM_SUFFIXES = frozenset(LANGUAGES)  # a program's source, not a document about it
# …all of it fenced by the code reader but Rust's, whose doc comments it reads as Markdown.
FENCED_SUFFIXES = PROGRAM_SUFFIXES - {".rs"}
STEM_CHARS = 5  # after stemming: "configur"/"configuration" → "confi", "secur"/"security"


Embed = Callable[[list[str]], np.ndarray]
# The embedder's fold_pieces: each text's vector, its word pieces' vectors handed to the
# fold batch by batch (the question's first), from one pass.
EmbedPieces = Callable[[list[str], PieceFold], np.ndarray]

_WORD = re.compile(r"[^\W_]+")
# A hyphen joining two word characters ("sub-classing", "time-out"): one character on
# each side looked at, so linear.
_HYPHEN_INSIDE = re.compile(r"(?<=[^\W_])-(?=[^\W_])")
# A licence notice's words, and a question asking about licensing (both alternations of
# literals: linear).
_LICENCE_NOTICE = re.compile(
    r"copyright|licen[cs]e|spdx-|permission is hereby granted|warrant(?:y|ies)", re.IGNORECASE
)
_ASKS_LICENSING = re.compile(
    r"licen[cs]|copyright|warrant|spdx|permission|open.source|proprietary", re.IGNORECASE
)
# A line of a program's comment: the code reader's openers, its languages' own (Erlang's
# `%%`: EUnit's Apache header was quoted first for "How do I run all the tests of a
# module?", newuser65), and INI's `;` (a settings file's `; Copyright …`), which the code
# reader never needs (formats/code.py says why).
_COMMENT_OPENERS = (
    *COMMENT_OPENERS,
    ";",
    *sorted({opener for openers in LINE_COMMENTS.values() for opener in openers}),
)
_DOCSTRING_FIELDS = (":copyright:", ":license:", ":licence:")  # a module docstring's notice


@dataclass(frozen=True)
class Candidate:
    unit: Unit
    chunk: RetrievedChunk

    @property
    def haystack(self) -> str:
        # The file's path words count: a question naming a project, folder or file
        # ("Flask's config") prefers units from there.
        return self.cased.lower()

    @property
    def cased(self) -> str:
        """The haystack as written, for what must match in its own case (`-F`)."""
        return f"{self.chunk.source}\n{self.chunk.heading}\n{self.unit.search_text}"

    @property
    def place(self) -> str:
        """Where the unit sits: its file's path, its chunk's heading path, its context."""
        return f"{self.chunk.source}\n{self.chunk.heading}\n{self.unit.context}".lower()

    @property
    def leads_in(self) -> bool:
        """A sentence that introduces what follows ("The options are:", "… execute the
        following command.")."""
        return self.unit.kind in ("prose", "item") and leads_in(self.unit.text)


# Words that say how something is asked, not what about (on top of the gate's list).
_FUNCTION_WORDS = STOP_WORDS | frozenset(
    "without another other others instead also just only like via using way ways".split()
)
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
_NUMBER = re.compile(r"\d")
# "The two most interesting functions for these use-cases are …": a paragraph speaking of
# what the one before it described, by "these"/"those" in its first words (REFERS_WITHIN).
_DEMONSTRATIVE = re.compile(r"\b(?:these|those)\b")
REFERS_WITHIN = 60
# A definition's own line: in a code repository the function is what "how do I …?" calls.
_SIGNATURE = re.compile(r"^[^\S\n]*(?:async[^\S\n]+)?(?:def|class)[^\S\n]+\w+", re.MULTILINE)
# A number on its own ("is 3.", "30 days"), not a piece of a name ("ssh(1)", "sha256") nor
# an index ("master@{2}", "argv[1]"): a "how long …?" answer wants an amount.
_STANDALONE_NUMBER = re.compile(r"(?<![\w({[.-])\d+(?:[.,]\d+)?(?![\w)}\]]|\.\d)")
# What a unit holds when it answers "how do I …?" / "which option …?": something to type.
# A prompt's indent stays on its line ([^\S\n]), so blank lines are not rescanned. A
# class's member written plainly ("… via the Environment.now property.": a reST role's
# text, its backticks gone) is something to call, and a file name so written
# ("Tidewatch.toml") a name to type, as either is in backticks; it starts only where no
# word or dot goes before, and no part overlaps the next ("\w" holds no dot), so linear.
# Two look alike and are neither (keyless42): a role's target in angle brackets after its
# title ("the load <Schema.load> method": a link, not what the sentence says to call;
# marshmallow's Sphinx docs hold one in half their sentences, and "Now, the load
# <Schema.load> method return a User instance." outranked the post_load paragraph), and a
# project's own name with a ".py" or ".js" tail ("Coverage.py can annotate …", "Node.js":
# Python's and JavaScript's files are named in lower case; coverage's docs say
# "Coverage.py" in a sentence of every other section).
_ACTION = re.compile(
    r"(?<![\w-])--?[A-Za-z]|`[^`]+`|^[^\S\n]*(?:\$|>>>) "
    r"|(?<![\w.<])[A-Z]\w+\.(?!(?:py|js)\b)[a-z_]\w+\b(?!\.\w)",
    re.MULTILINE,
)


@functools.lru_cache(maxsize=4096)
def stems(text: str) -> frozenset[str]:
    """The content words of `text` as the lexical index stems them ("dogs" → "dog",
    "ferries" and "ferry" → "ferri"), cut to a common prefix for derived forms. Cached: a
    unit's text is stemmed for the key terms' weights, for its coverage and for echoes,
    and the same chunks come back question after question."""
    words = _WORD.findall(text)
    if "-" in text:
        # "sub-classing" is also "subclassing": a question asking why it need not
        # "subclass Process" matched every unit but the one under "No More Sub-classing
        # of Process" (simpy's design notes). Only added: "sub" and "classing" stay.
        words += _WORD.findall(_HYPHEN_INSIDE.sub("", text))
    return frozenset(_stemmed(w.lower() for w in words))


def _stemmed(words: Iterable[str]) -> set[str]:
    kept = (w for w in words if w not in _FUNCTION_WORDS)
    return {term[:STEM_CHARS] for term in analyze(" ".join(kept))}


def candidates_of(chunks: list[RetrievedChunk]) -> list[Candidate]:
    seen: set[str] = set()
    out: list[Candidate] = []
    for chunk in chunks:
        text = as_fenced_code(chunk.text) if _fences_its_code(chunk.source) else chunk.text
        for unit in units_of(text, chunk.heading):
            if unit.text in seen:  # overlapping chunks repeat units; keep the better-ranked
                continue
            seen.add(unit.text)
            out.append(Candidate(unit, chunk))
            if len(out) >= MAX_CANDIDATES:
                return out
    return out


class Scored(NamedTuple):
    candidates: list[Candidate]
    scores: np.ndarray
    vectors: np.ndarray  # unit rows
    coverage: np.ndarray  # the share of the question's key terms each unit holds
    cosines: np.ndarray  # each unit's cosine to the question
    listed: tuple[int, ...] = ()  # the asked release's items, quoted in order (release_list)
    # soft_coverage.py: the question's worst-covered content piece against the units
    # (None without an embedder that gives pieces)
    soft_coverage: float | None = None
    terms: KeyTerms | None = None  # the key terms the coverage was counted by
    question_vector: np.ndarray | None = None


class KeyTerms:
    """The question's content words, each weighted by its rarity among the candidates, and
    less when nearly every file of the index holds it (the project's own name)."""

    def __init__(self, question: QuestionAnalysis, candidates: list[Candidate]) -> None:
        self.terms = _stemmed(question.words)
        bags = [stems(c.haystack) for c in candidates]
        total = len(bags)
        index = _index_weights(question)
        self.weights = {
            term: math.log(1 + (total + 1) / (1 + sum(term in bag for bag in bags)))
            * index.get(term, 1.0)
            for term in self.terms
        }

    def coverage(self, text: str) -> float:
        if not self.weights or sum(self.weights.values()) <= 0:
            return 1.0
        present = stems(text)
        covered = sum(w for t, w in self.weights.items() if t in present)
        return covered / sum(self.weights.values())


def _unit_support(chunk: RetrievedChunk) -> float:
    """The chunk's support as the gate computes it, its identifier factor floored at
    IDENTIFIER_FLOOR: a missing identifier says less about a unit than about a chunk."""
    if chunk.identifiers >= IDENTIFIER_FLOOR:
        return max(0.0, chunk.support)
    return max(0.0, SupportScorer.combine(chunk.cosine, chunk.coverage, IDENTIFIER_FLOOR))


def _inherit_from_lead_ins(
    scores: np.ndarray, unpenalised: np.ndarray, candidates: list[Candidate]
) -> None:
    """An item, row or block scores at least its lead-in's unpenalised score less
    INHERIT_GAP: "For line coverage, these lines are automatically excluded:" matches the
    question, the item "# pragma: no cover" that answers it hardly does, and the lead-in
    alone names no line. The item is then quoted with its lead-in (with_followers).
    When the lead-in scores best of every unit but for the lead-in penalty, its items
    inherit its whole score: the lead-in would have been the first quote, and its list is
    the answer. "What exactly counts as a checkpoint?" (trio): "A checkpoint is two
    things:" is the unit nearest the question (cosine 0.89), its two items came 0.2 below
    it, and a paragraph holding "exactly" (of `recv_exactly`) led and filled the budget."""
    top = float(unpenalised.max()) if len(unpenalised) else 0.0
    for index in range(len(candidates)):
        lead = _lead_in_of(index, candidates)
        if lead is not None:
            gap = 0.0 if unpenalised[lead] >= top else INHERIT_GAP
            scores[index] = max(scores[index], unpenalised[lead] - gap)


def _index_weights(question: QuestionAnalysis) -> dict[str, float]:
    """Each key term's factor from the whole index: 1, less for a term nearly every file
    holds (IDF below COMMON_TERM_IDF); 1 for every term without an index."""
    out: dict[str, float] = {}
    for term, weight in question.weights.items():
        cut = term[:STEM_CHARS]
        out[cut] = max(out.get(cut, 0.0), min(1.0, weight / COMMON_TERM_IDF))
    return out


def choose(
    scores: np.ndarray,
    vectors: np.ndarray,
    limit: int,
    leaders: np.ndarray,
    sizes: np.ndarray | None = None,
    budget: int | None = None,
    lines: list[frozenset[str]] | None = None,
    in_order: tuple[int, ...] = (),
    window: float = RELATIVE_WINDOW,
    stands_in: dict[int, int] | None = None,
    taken: tuple[int, ...] = (),
    shingles: list[frozenset[str]] | None = None,
    blocks: list[int] | None = None,
) -> list[int]:
    """Up to `limit` indices: relevant first, near-duplicates never; the first pick only among
    `leaders` (units that do not address a model); after the first, only units whose
    `sizes` still fit in `budget` characters; with `lines` (each unit's stripped lines),
    never a unit whose lines are mostly quoted already; with `shingles` (each unit's
    word triples), never one whose words are (the same text wrapped otherwise).
    `in_order` (a release's list, release_list) is taken first, in its order, each entry
    that still fits: its entries differ from each other by a hair of score on purpose,
    and the diversity term, which weighs far more, had put the short entries least like
    the first one before the second, so the budget ran out on the list's middle ("What
    changed in 2.32.0?" lost its second entry, `SSLContext`, to the last three).
    `stands_in` maps a sentence offered for a long unit to that unit (fitting.py): never
    first, only while the unit does not fit, and one per unit, which is then never
    quoted whole."""
    if len(scores) == 0 or limit <= 0 or not leaders.any():
        return []
    best = float(scores[leaders].max())
    floor = best - window
    chosen: list[int] = list(taken)
    used = sum(int(sizes[i]) for i in taken) if sizes is not None else 0
    # what the chosen units say, line by line and in word triples: grown with each pick
    quoted_lines = _quoted(lines, chosen)
    quoted_shingles = _quoted(shingles, chosen)
    while len(chosen) < limit:
        pick, pick_score = -1, float("-inf")
        eligible: list[int] = []
        for index in range(len(scores)):
            if index in chosen or (not chosen and not leaders[index]) or scores[index] < floor:
                continue
            if chosen and sizes is not None and budget is not None and used + sizes[index] > budget:
                continue
            if stands_in and not _may_stand_in(index, chosen, stands_in, used, sizes, budget):
                continue
            if _block_is_full(index, blocks, chosen):
                continue
            redundancy = max((float(vectors[index] @ vectors[j]) for j in chosen), default=0.0)
            if (
                redundancy >= NEAR_DUPLICATE
                or _already_quoted(index, lines, quoted_lines, REPEATED_LINES)
                or _already_quoted(index, shingles, quoted_shingles, REPEATED_WORDS)
            ):
                continue
            eligible.append(index)
            score = MMR_RELEVANCE_WEIGHT * float(scores[index])
            score -= (1 - MMR_RELEVANCE_WEIGHT) * redundancy
            if score > pick_score:
                pick, pick_score = index, score
        if pick < 0:
            break
        listed_first = [index for index in in_order if index in eligible]
        if listed_first:
            pick = listed_first[0]
        else:
            pick = _best_of_its_kind(pick, eligible, scores, vectors)
        chosen.append(pick)
        used += int(sizes[pick]) if sizes is not None else 0
        quoted_lines |= _quoted(lines, [pick])
        quoted_shingles |= _quoted(shingles, [pick])
    return chosen


def _block_is_full(index: int, blocks: list[int] | None, chosen: list[int]) -> bool:
    """The unit is a run of a code block MAX_BLOCK_RUNS of whose runs are chosen already."""
    if blocks is None or blocks[index] < 0:
        return False
    return sum(blocks[j] == blocks[index] for j in chosen) >= MAX_BLOCK_RUNS


def code_blocks(candidates: list[Candidate]) -> list[int]:
    """Each unit's code block (the index of its first run), -1 for a unit that is not
    code: a later run of a block (Unit.later_run) is of the block before it in its chunk,
    and a chunk's first code unit, of one context with the last code unit of a retrieved
    chunk that it continues, no line introducing it, is of that one's block (review65: a
    block cut by a chunk boundary counted as two, and four runs of one table of cases
    were chosen; separate examples one after another, the short line between them no
    unit, counted as one, and the third was never chosen)."""
    out = _code_blocks_of_chunks(candidates)
    for index, candidate in enumerate(candidates):
        if out[index] != index or candidate.unit.led_in:
            continue
        before = _previous_unit(index, candidates)
        if (
            before is not None
            and out[before] >= 0
            and candidates[before].chunk is not candidate.chunk
            and candidates[before].unit.context == candidate.unit.context
        ):
            out[index] = before  # resolved to its block's first run below
    for index in range(len(out)):
        # Each link points to a unit of a chunk starting earlier in its file (_previous_unit),
        # so following the links ends, within one step per chunk.
        first = out[index]
        while first >= 0 and out[first] != first:
            first = out[first]
        out[index] = first
    return out


def _code_blocks_of_chunks(candidates: list[Candidate]) -> list[int]:
    """code_blocks within each chunk."""
    out: list[int] = []
    for index, candidate in enumerate(candidates):
        block = -1
        if candidate.unit.kind == "code":
            block = index
            before = candidates[index - 1] if index else None
            if (
                before is not None
                and out[-1] >= 0
                and before.chunk is candidate.chunk
                and candidate.unit.later_run
            ):
                block = out[-1]
        out.append(block)
    return out


def _may_stand_in(
    index: int,
    chosen: list[int],
    stands_in: dict[int, int],
    used: int,
    sizes: np.ndarray | None,
    budget: int | None,
) -> bool:
    """A unit whose sentence is quoted is not quoted again whole, nor by another sentence;
    a sentence stands in for its unit only after the first pick and while the whole unit
    does not fit (fitting.py)."""
    spoken = {stands_in[j] for j in chosen if j in stands_in}
    whole = stands_in.get(index)
    if whole is None:
        return index not in spoken
    if not chosen or whole in chosen or whole in spoken:
        return False
    return sizes is not None and budget is not None and used + int(sizes[whole]) > budget


def quote_window(
    analysis: QuestionAnalysis,
    candidates: list[Candidate],
    scores: np.ndarray,
    leaders: np.ndarray,
) -> float:
    """How far below the first quote a later one may score: RELATIVE_WINDOW, or
    NAMED_WINDOW when the question names exact tokens and the unit quoted first holds them
    all. "What does error KSF-E417 mean?" is answered by the KSF-E417 row; with the wider
    window the table's three other rows, 0.45–0.55 below it, came after it."""
    patterns = _exact_patterns(analysis)
    if not patterns or not leaders.any():
        return RELATIVE_WINDOW
    first = max(np.flatnonzero(leaders), key=lambda i: float(scores[i]))
    if all(pattern.search(candidates[first].cased) for pattern in patterns):
        return NAMED_WINDOW
    return RELATIVE_WINDOW


def every_name_spoken_for(
    chosen: list[int],
    candidates: list[Candidate],
    scores: np.ndarray,
    question: str,
    sizes: np.ndarray,
    limit: int,
) -> list[int]:
    """`chosen`, plus, for each thing the question names side by side ("Graylog or
    Elasticsearch", alternatives.py) that no chosen unit names, the best-scoring unit that
    does, while the quote budget and `limit` allow: a passage about Graylog outscored the
    one about the ELK stack by more than the window, and the answer spoke for one of two."""
    names = alternatives.named_side_by_side(question)
    if len(names) < 2:
        return chosen
    out = list(chosen)
    used = int(sum(sizes[i] for i in out))
    for name in names:
        wanted = stems(name)
        if not wanted or any(wanted <= stems(candidates[i].unit.search_text) for i in out):
            continue
        holding = [
            j
            for j, candidate in enumerate(candidates)
            if j not in out
            and not candidate.unit.instruction
            and used + int(sizes[j]) <= QUOTE_BUDGET
            and wanted <= stems(candidate.unit.search_text)
        ]
        if holding and len(out) < limit:
            best = max(holding, key=lambda j: float(scores[j]))
            out.append(best)
            used += int(sizes[best])
    return out


def _best_of_its_kind(
    pick: int, eligible: list[int], scores: np.ndarray, vectors: np.ndarray
) -> int:
    """The best-scoring eligible unit that repeats `pick` (cosine NEAR_DUPLICATE or more).
    Diversity chose `pick` and its repeats are dropped from then on, so the one quoted
    should be the one that fits the question best: of two doctests alike in shape, MMR's
    tie-break on their likeness to earlier picks is no reason to quote the worse."""
    alike = [j for j in eligible if float(vectors[j] @ vectors[pick]) >= NEAR_DUPLICATE]
    return max(alike, key=lambda j: float(scores[j]), default=pick)


def in_reading_order(
    chosen: list[int], candidates: list[Candidate], scores: np.ndarray
) -> list[int]:
    """`chosen`, with units of one section that score within READING_ORDER_TIE of each
    other in the order the section gives them: "When specified, it will try its best to
    only format these lines." before "It may still format lines outside of the ranges", a
    caveat that scored a hair higher. The set quoted is unchanged, only its order; a unit
    addressing a model is never moved ahead (it must not lead)."""
    out = list(chosen)
    for position in range(len(out)):
        here = candidates[out[position]]
        earlier = [
            later
            for later in range(position + 1, len(out))
            if out[later] < out[position]
            and not candidates[out[later]].unit.instruction
            and candidates[out[later]].chunk is here.chunk
            and candidates[out[later]].unit.context == here.unit.context
            and scores[out[later]] >= scores[out[position]] - READING_ORDER_TIE
        ]
        if earlier:
            first = min(earlier, key=lambda later: out[later])
            out.insert(position, out.pop(first))
    return out


def _quoted(parts: list[frozenset[str]] | None, chosen: list[int]) -> set[str]:
    """The parts (lines, or word triples) of the chosen units, together."""
    return set().union(*(parts[j] for j in chosen)) if parts is not None else set()


def _already_quoted(
    index: int, parts: list[frozenset[str]] | None, quoted: set[str], share: float
) -> bool:
    """At least `share` of the unit's parts (its lines, or its word triples) are among the
    `quoted` ones: overlapping chunks, or two docstrings holding the same example, cut the
    same lines into shifted runs that embed differently but quote the same thing twice."""
    if parts is None or not quoted or not parts[index]:
        return False
    return len(parts[index] & quoted) >= share * len(parts[index])


def unit_shingles(unit: Unit) -> frozenset[str]:
    """A unit's runs of SHINGLE_WORDS words, lower-cased, punctuation and line breaks left
    out (none for a shorter unit)."""
    words = _WORD.findall(unit.text.lower())
    n = SHINGLE_WORDS
    return frozenset(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))


def unit_lines(unit: Unit) -> frozenset[str]:
    """A unit's lines that say something (a letter or digit in them), without their
    indentation; a table row's own line only (every row carries its table's header row;
    an aligned row, units.aligned_rows, is its one line).
    Lines of brackets alone (`],`, `)`) end every parametrized test and call: counted,
    two tests sharing them and one case were repeats of each other."""
    lines = unit.text.splitlines()
    if unit.kind == "row" and len(lines) > 1:
        lines = lines[1:]  # a table's row under its header; an aligned row is one line
    return frozenset(line.strip() for line in lines if _WORD.search(line))


def confidence_for(
    coverage: float, unit_cosine: float, gate: GateDecision | None, soft: float | None = None
) -> tuple[Confidence, float]:
    """(label, chance the answer is right) from the gate's p, how much of the question the
    first quote covers, how close in meaning the closest quotable unit is (`unit_cosine`),
    the units' soft coverage of the question (`soft`) and the retrieval's signals
    (gate_model.answer_probability and gate_model.confidence, fitted by `make eval`).
    Without a gate nothing says the passage holds the question's terms or stands above the
    floor, so the label is never `high`."""
    if gate is None:
        p = gate_model.answer_probability(gate_model.PASS_FROM, coverage, unit_cosine, soft=soft)
        return gate_model.confidence(p, coverage, 0.0, 0.0), round(p, 4)
    p = gate_model.answer_probability(
        gate.probability, coverage, unit_cosine, gate.signals, soft=soft
    )
    best = gate.signals.get("coverage", 0.0)
    unseen = gate_model.names_unseen(gate.signals)
    label = gate_model.confidence(p, coverage, best, gate.margin, names_unseen=unseen)
    return label, round(p, 4)


def unsure_lines(analysis: QuestionAnalysis) -> list[str]:
    """The warning over a `low` answer, naming what the question asks about that the
    documents never mention, when that is why."""
    if not analysis.unseen_names:
        return [UNSURE_NOTE, ""]
    named = ", ".join(f"“{name}”" for name in analysis.unseen_names)
    return [f"No indexed document mentions {named}.", UNSURE_NOTE, ""]


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
        lead = _lead_in_of(index, candidates)
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


def with_the_names_they_lack(
    order: list[int], candidates: list[Candidate], scores: np.ndarray, question: QuestionAnalysis
) -> list[int]:
    """`order`, and for each name the question gives that no quoted unit's own text holds
    ("Windows", "Debian", `-F`; `names_given`), the best-scoring sentence or item naming it
    in the section of a quoted unit (same chunk, same heading or lead-in), right after that
    unit, when it scores within RELATIVE_WINDOW of the best. The quoted lines answered the
    question without its qualifier: for "Windows has no load average. What does psutil
    return for getloadavg there?" the paragraph's "Return the average system load …" was
    quoted and its "Thus, on Windows, … (0.0, 0.0, 0.0) tuple." ranked seventh; systemd's
    README.Debian was quoted for the upstream default, not for Debian's own."""
    out = list(order)
    floor = float(scores.max()) - RELATIVE_WINDOW
    added = 0
    for name in names_given(question, [c.unit.text for c in candidates]):
        if added == MAX_NAMES_BROUGHT:
            break
        if any(name.search(candidates[i].unit.text) for i in out):
            continue
        naming = [
            (j, i)
            for j, candidate in enumerate(candidates)
            if j not in out
            and candidate.unit.kind in ("prose", "item")
            and not candidate.unit.instruction
            and scores[j] >= floor
            and name.search(candidate.unit.text)
            for i in out
            if candidates[i].chunk is candidate.chunk
            and candidates[i].unit.context == candidate.unit.context
        ]
        if naming:
            best, beside = max(naming, key=lambda pair: float(scores[pair[0]]))
            out.insert(out.index(beside) + 1, best)
            added += 1
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


# A word written with a capital: a name ("Windows", "Debian", "RAM") unless it only opens
# a sentence ("Delete all empty directories …").
_CAPITALISED = re.compile(r"\b[A-Z][^\W_]*")


def names_given(question: QuestionAnalysis, texts: list[str]) -> list[re.Pattern[str]]:
    """What the question names, each as a pattern to find it by: its exact tokens that hold
    a letter (`-F` in its case, `KSF-E417`; a number alone, "version 1", names nothing) and
    the content words it capitalises. A word capitalised only because it opens a sentence
    ("Windows has no load average.") counts when `texts` capitalise it inside a sentence at
    least as often as they write it in lower case: "on Windows", never "you can delete"."""
    found = {
        token.lower(): pattern
        for token, pattern in zip(question.exact_tokens, _exact_patterns(question), strict=True)
        if any(ch.isalpha() for ch in token)
    }
    text = question.text
    shouted = text.isupper()  # every word capitalised: capitals name nothing
    for match in () if shouted else _CAPITALISED.finditer(text):
        word = match[0]
        if len(word) < 2 or word.lower() in _FUNCTION_WORDS or word.lower() in found:
            continue
        pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
        if _opens_sentence(text, match.start()) and not _written_as_a_name(pattern, texts):
            continue
        found[word.lower()] = pattern
    return list(found.values())


def defines_what_is_named(analysis: QuestionAnalysis, candidates: list[Candidate]) -> np.ndarray:
    """1 for a definition item or field whose term is a name the question gives: sources.list(5)'s
    "http (apt-transport-http(1)) — … The URI can directly include login information …"
    for "How do I make apt download packages through an HTTP proxy?", where the `https`
    entry, which says "http" as well, scored higher and filled the budget. Only the term's
    own names count ("-f, --force —": `-f` and `--force`; "http (…) —": `http`), not a
    word of its description. A name here is an exact token (`Restart=`, `--force`,
    `LC_ALL`) or a word in capitals ("HTTP", "SSH"): a capitalised word may be a title's
    ("the Debian Users and Groups document" is no question about the `users:` entry)."""
    names = _exact_patterns(analysis)
    for match in _CAPITALISED.finditer(analysis.text):
        word = match[0]
        if len(word) > 1 and word.isupper() and not analysis.text.isupper():
            names.append(re.compile(re.escape(word), re.IGNORECASE))
    out = np.zeros(len(candidates), dtype=np.float32)
    if not names:
        return out
    for index, candidate in enumerate(candidates):
        term = _term_of(candidate)
        heads = [part.split()[0] for part in term.rstrip(" —:").split(", ") if part.split()]
        out[index] = any(pattern.fullmatch(head) for head in heads for pattern in names)
    return out


def _opens_sentence(text: str, start: int) -> bool:
    """The word at `start` is the first of its line or sentence (list markers, quotes and
    brackets before it aside)."""
    line = text[max(0, start - 80) : start].rsplit("\n", 1)[-1]
    before = line.rstrip(" \t\"'`(*-‘“")
    return not before or before[-1] in ".?!:;"


def _written_as_a_name(pattern: re.Pattern[str], texts: list[str]) -> bool:
    """`texts` capitalise the word inside a sentence at least once and at least as often
    as they write it in lower case."""
    inside = lower = 0
    for text in texts:
        for match in pattern.finditer(text):
            if match[0].islower():
                lower += 1
            elif match[0][0].isupper() and not _opens_sentence(text, match.start()):
                inside += 1
    return inside > 0 and inside >= lower


def _exact_patterns(question: QuestionAnalysis) -> list[re.Pattern[str]]:
    """Each exact token as a pattern, in the question's order. A one-letter option keeps
    its case (question._exact_tokens): `-F` is sought as written; every other token in any
    case."""
    return [
        re.compile(rf"(?<![\w-]){re.escape(t)}(?![\w-])", 0 if t != t.lower() else re.IGNORECASE)
        for t in question.exact_tokens
    ]


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
    if not asks_a_release and releases.heads_a_release(_release_place(here)):
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
    if len(run) > SHORT_DEFINITIONS and not steps and any(_term_of(candidates[j]) for j in run):
        # A manual's options: the one asked about, not its neighbours. A numbered list is
        # a sequence of steps, never options, though a step reads as a term ("2. Install
        # the latest nox: $ pip install nox").
        return []
    return run


def _term_of(candidate: Candidate) -> str:
    """The term of the definition the unit belongs to: carried from its item when it is a
    later sentence of one, else the one it opens with ("" for none)."""
    unit = candidate.unit
    return unit.term or definition_term(unit.text, unit.kind)


def _lead_in_of(index: int, candidates: list[Candidate]) -> int | None:
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
    before = _previous_unit(first, candidates)
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
    before = _previous_unit(index, candidates)
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
    before = _previous_unit(index, candidates)
    if before is None:
        return None
    item = candidates[before]
    if item.unit.kind != "item" or item.unit.context != here.unit.context:
        return None
    return before if _term_of(item) else None


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
    close = scores[following] >= scores[index] - NEIGHBOUR_WINDOW
    if same_place and (close or _refers_back(unit.text)):
        return following
    return _past_its_example(index, following, candidates, scores)


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
        and _defines(here)
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


def _previous_unit(index: int, candidates: list[Candidate]) -> int | None:
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


def _holds(candidate: Candidate, answer: re.Pattern[str]) -> bool:
    """The unit holds the kind of answer asked for. A document's code holds a number, a
    program's lines only one written in them; for an action only code a line introduces
    ("To measure branch coverage, run:") or that is typed (a prompt, an option): a
    program's own lines show how it works, not what to do, and lines a lead-in calls output
    ("This would result in the following lines to be printed:") show what happened, not
    what to type."""
    unit = candidate.unit
    if unit.kind == "code" and answer is _NUMBER:
        # A document's code block sets a value (its example); a program's lines hold the
        # number only when they write one: `platform.python_version()` checks the running
        # interpreter, it says nothing of which versions are supported.
        return not _of_a_program(candidate) or bool(_NUMBER.search(unit.text))
    if unit.kind == "code" and answer is _ACTION and _announces_output(unit):
        return False
    if unit.kind == "code" and (unit.led_in or _defines(candidate)):
        return True
    if unit.kind == "code" and answer is _ACTION and _of_a_program(candidate):
        # A program's body is not something to type, whatever it holds: JavaScript's
        # template literals are backticks and its option strings "--no-foo", so
        # commander's `} else if (err.code === 'EACCES') { throw new Error(`…`) }` took the
        # boost and the Readme's "By default, Commander calls `process.exit` …" did not
        # make the answer (nu36).
        return False
    return bool(answer.search(unit.text))


# A heading over examples: "Examples", "# example", "Example configuration"; not
# "Example 10.6" (units.py reads a numbered example's title as a heading of its own), nor
# "Usage" (a section of prose and code alike).
_EXAMPLES_HEADING = re.compile(r"^[^\S\n]*examples?\b(?![^\S\n]*\d)", re.IGNORECASE)


def _an_example_of(asked: set[str], candidate: Candidate) -> bool:
    """A document's code under a heading of examples that writes one of the question's
    content words (`asked`, stemmed): ikiwiki's calendar.mdwn lists `[[!calendar
    type="month" …]]` under "# examples" with no line introducing it, and "How do I add a
    calendar …?" quoted four sentences about the calendar instead. An example that writes
    none of the asked words (a sample program under "Example" whose coverage is measured)
    shows how something works, not what to type; nor do a program's code, or lines a
    lead-in calls output (_announces_output)."""
    unit = candidate.unit
    return (
        bool(asked)
        and unit.kind == "code"
        and _EXAMPLES_HEADING.match(unit.context) is not None
        and not _of_a_program(candidate)
        and not _announces_output(unit)
        and bool(asked & stems(unit.text))
    )


# A lead-in announcing what a program printed: "Running this gives you:", "This would
# result in the following lines:", "… which prints:". Not "output" or "printed" alone:
# "… that outputs only JSON, configure:", "a fixture to capture log output could look like
# this:" and "Quantities can be easily printed:" introduce code to type.
_OUTPUT_LEAD = re.compile(
    r"\b(?:(?:would|will|should)\s+result|results\s+in|gives\s+you"
    r"|you(?:'ll|\s+will|\s+should)\s+see|(?:this|it|which)\s+(?:prints|outputs|produces)"
    r"|the\s+following\s+(?:lines|output))\b",
    re.IGNORECASE,
)


def _announces_output(unit: Unit) -> bool:
    """A code unit whose lead-in says it is output."""
    if not unit.led_in:
        return False
    lead = unit.text.split("\n", 1)[0]
    return bool(_OUTPUT_LEAD.search(lead))


def _lists(index: int, noun: str | None, candidates: list[Candidate]) -> bool:
    """The unit enumerates what a "which formats …?" question asks for: it holds a lead-in
    naming them and its items ("Supported date formats are:" in a docstring), or it is an
    item or row of a list whose lead-in names them."""
    if noun is None:
        return False
    text = candidates[index].unit.text
    if enumeration.enumerates(text, noun) or enumeration.names_inline(text, noun):
        return True
    lead = _lead_in_of(index, candidates)
    return lead is not None and enumeration.introduces(candidates[lead].unit.text, noun)


def _release_of(named: set[str], asked: set[str], candidates: list[Candidate]) -> np.ndarray:
    """−1 for a unit under a heading naming a release other than every one the question
    names ("What was fixed in 2.14.3?": units under "v2.14.2 > Fixes"), +1 for a unit under
    the heading of a release it asks about ("What changed in urllib3 2.2.0?": the items
    under "2.2.0 (2024-01-30)", not 2.0.0's pointer to the migration guide), else 0.
    `named`, `asked`: _named_and_asked's."""
    if not named:
        return np.zeros(len(candidates))
    return np.array(
        [
            -1.0 if releases.another(named, where) else float(releases.headed_by(asked, where))
            for where in map(_release_place, candidates)
        ],
        dtype=np.float32,
    )


def _named_and_asked(
    analysis: QuestionAnalysis, candidates: list[Candidate]
) -> tuple[set[str], set[str]]:
    """The releases the question names (releases.named) and, of those, the ones it asks
    about (releases.demanded)."""
    named = releases.named(analysis.text, sorted({c.chunk.heading for c in candidates}))
    return named, releases.demanded(analysis.identifiers, named) if named else set()


def _release_place(candidate: Candidate) -> str:
    return f"{candidate.chunk.heading}\n{candidate.unit.context}"


def release_list(
    candidates: list[Candidate],
    scores: np.ndarray,
    release: np.ndarray,
    terms: KeyTerms,
    asked: set[str],
) -> tuple[int, ...]:
    """The list items of each asked release's section, in the file's order, when the
    question asks for that list as a whole: the best-scoring item under the release
    (`release` +1) sits where (heading path, file, context) holds RELEASE_LIST_PLACE of the
    question's key terms. "Which bugs were fixed in pytest 8.3.3?" quoted four of the eight
    entries under "pytest 8.3.3 > Bug fixes", those whose words happened to be nearest the
    question's; another section of the same release ("Fixes" beside "Changes") is not its
    list. Two releases asked ("… in 3.1.1 and 3.1.2?") are two lists, taken in turn (the
    first of each, the second of each, …): one after the other, the first one's entries
    took the whole budget and the other release was not quoted at all (review22). Empty
    when there is no such section or fewer than two items."""
    items = [i for i, c in enumerate(candidates) if release[i] > 0 and c.unit.kind == "item"]
    if len(items) < 2:
        return ()
    sections: dict[tuple[str, str], tuple[float, list[int]]] = {}
    for version in sorted(asked):
        own = [i for i in items if releases.headed_by({version}, _release_place(candidates[i]))]
        if not own:
            continue
        best = max(own, key=lambda i: float(scores[i]))
        where = (candidates[best].chunk.source, candidates[best].chunk.heading)
        if where in sections or terms.coverage(candidates[best].place) < RELEASE_LIST_PLACE:
            continue
        section = [
            i for i in items if (candidates[i].chunk.source, candidates[i].chunk.heading) == where
        ]
        # Candidates come chunk by chunk in the page's order, each chunk's units in its
        # own: two chunks of the section are put in the file's order where their lines are
        # known.
        in_order = sorted(section, key=lambda i: (_first_line(candidates[i].chunk), i))
        sections[where] = (float(scores[best]), in_order)
    lists = [listed for _, listed in sorted(sections.values(), key=lambda s: -s[0])]
    taken_in_turn = [
        listed[n]
        for n in range(max(map(len, lists), default=0))
        for listed in lists
        if n < len(listed)
    ]
    return tuple(taken_in_turn) if len(taken_in_turn) > 1 else ()


def _first_line(chunk: RetrievedChunk) -> int:
    return chunk.lines[0] if chunk.lines else 0


def _echoes(analysis: QuestionAnalysis, candidates: list[Candidate]) -> np.ndarray:
    """1 for a unit that only repeats a number the question names, in the question's own
    words, when the question asks for a value ("which versions", "how many"):
    `__version__ = "1.3.0"` restates the release "Which Python versions does arrow 1.3.0
    run on?" names and holds no other number. A command made of the question's words
    ("pip install pint") holds no number and may well be the answer; so may a restatement
    of a yes/no question ("Does it require Python 3.8?" / "Requires Python 3.8.")."""
    if not analysis.wants_number:
        return np.zeros(len(candidates), dtype=np.float32)
    asked = _stemmed(analysis.words)
    echoes = []
    for candidate in candidates:
        own = stems(candidate.unit.text)
        numbered = any(term[:1].isdigit() for term in own)
        echoes.append(numbered and own <= asked)
    return np.array(echoes, dtype=np.float32)


def _source_beside_documents(candidates: list[Candidate]) -> np.ndarray:
    """1 for a unit of a program's source that is not an example or a test, when the page
    holds units of anything else too (a Readme, a manual, an example): 0 for every unit of
    a page of source alone, where there is nothing to prefer."""
    source = np.array(
        [
            _fences_its_code(c.chunk.source)
            and not _USE_FOLDERS.intersection(PurePath(c.chunk.source.lower()).parts[:-1])
            for c in candidates
        ],
        dtype=np.float32,
    )
    return np.zeros(len(candidates), dtype=np.float32) if source.all() else source


def _licence_notices(analysis: QuestionAnalysis, candidates: list[Candidate]) -> np.ndarray:
    """1 for a unit of a program's comments that holds a licence notice's words
    (`// Licensed under the Apache License, …`), when the question does not ask about
    licensing."""
    if _ASKS_LICENSING.search(analysis.text):
        return np.zeros(len(candidates), dtype=np.float32)
    return np.array(
        [_of_a_program(c) and _is_licence_notice(c.unit.text) for c in candidates],
        dtype=np.float32,
    )


def _is_licence_notice(text: str) -> bool:
    """A licence's words in the unit's comment lines (or a docstring's `:license:` and
    `:copyright:` fields, as Pallets' and requests' modules carry their notice) and in
    none of its code, and more such lines than values the code sets. Code that names a
    licence beside a comment is no notice: packaging's header over `__version__ = "21.3"`
    and `__license__ = …` in one unit, or a `setup.cfg` table's `version = 21.3` and
    `license = …` under a `#` line, is the answer to "which version is this?" and was put
    after the file's other code; so is a copyright line over `__version__ = "1.2.3"`."""
    notices = values = 0
    for line in text.splitlines():
        stripped = line.strip()
        commented = stripped.startswith(_COMMENT_OPENERS) or stripped.lower().startswith(
            _DOCSTRING_FIELDS
        )
        if _LICENCE_NOTICE.search(line) is not None:
            if not commented:
                return False  # (code naming a licence: `license = "MIT"`)
            notices += 1
        elif not commented and _sets_a_value(stripped):
            values += 1
    return notices > values


def _sets_a_value(line: str) -> bool:
    """Does a line of code set a name (`__version__ = "1.2.3"`, `const Version = "2"`,
    `version: str = …`), not compare (`==`) nor call with a keyword (`f(x=1)`)?"""
    left, equals, right = line.partition("=")
    if not equals or right.startswith("=") or left.endswith(("!", "<", ">", "=")):
        return False
    words = left.split(":")[0].split()  # (a type annotation after the name)
    return 0 < len(words) <= 3 and words[-1].replace(".", "_").isidentifier()


def _fences_its_code(source: str) -> bool:
    return PurePath(source).suffix.lower() in FENCED_SUFFIXES


def _of_a_program(candidate: Candidate) -> bool:
    """The unit comes from a program's source file, not from a document about it."""
    return PurePath(candidate.chunk.source).suffix.lower() in PROGRAM_SUFFIXES


def _defines(candidate: Candidate) -> bool:
    """A program's own definition (`def between(self, after, before)`): in a code
    repository the function is what "how do I …?" calls. A document's example that
    defines a class shows how to extend, not what to call."""
    return _of_a_program(candidate) and bool(_SIGNATURE.search(candidate.unit.text))


def _normalised(vectors: np.ndarray) -> np.ndarray:
    """Unit rows: the cosine must not depend on the embedder's habits."""
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


# Characters that end a line (str.splitlines' set): a file name may hold them.
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def marker(chunk: RetrievedChunk) -> str:
    """The chunk's `[source:heading]` on one line. The answer's text keeps its newlines
    on the terminal, so a file named `a.md\\n> "Dogs are banned." [b.md:Pets]` would
    otherwise print a quote line of the name's choosing; a break shows as `\\x0a`."""
    return _LINE_BREAK.sub(
        lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 256 else f"\\u{ord(m[0]):04x}",
        chunk.citation,
    )


def quote(candidate: Candidate, term: str = "") -> str:
    """`> "…" [source:heading]`; a unit of several lines keeps its lines. `term`: the
    definition item's term a later sentence of it is quoted under ("PrivateTmp= — … If
    true, …"; `carried_terms`)."""
    text = f"{term} … {candidate.unit.text}" if term else candidate.unit.text
    lines = text.splitlines() or [""]
    label = f"{injection.LABEL} " if candidate.unit.instruction else ""
    cited = marker(candidate.chunk)
    if len(lines) == 1:
        return f'> {label}"{lines[0]}" {cited}'
    middle = [f"> {line}" for line in lines[1:-1]]
    return "\n".join([f'> {label}"{lines[0]}', *middle, f'> {lines[-1]}" {cited}'])


def carried_terms(picked: list[Candidate]) -> list[str]:
    """For each quoted unit, the term of the definition item it is a later sentence of
    when the quote before it is not a sentence of that item (which says the term or is
    already under it): "If true, sets up a new file system namespace …" alone did not say
    it was `PrivateTmp=` the user asked for. The term is the file's own text, written
    before an ellipsis since the item's first sentence is left out between them.
    A paragraph can hold several items a reader did not part ("… capped to 15. -
    timeout:n — …"), so the same paragraph is not enough: the quote before must be under
    the same term or say it."""
    terms = []
    for number, candidate in enumerate(picked):
        unit = candidate.unit
        before = picked[number - 1] if number else None
        under_it = (
            before is not None
            and before.chunk is candidate.chunk
            and before.unit.sentence_of == unit.sentence_of
            and (before.unit.term == unit.term or names_term(before.unit.text, unit.term))
        )
        terms.append("" if under_it else unit.term)
    return terms


def _citations(chunks: list[RetrievedChunk]) -> list[Citation]:
    best: dict[tuple[str, str], Citation] = {}
    for chunk in chunks:
        key = (chunk.source, chunk.heading)
        if key not in best or chunk.support > best[key].score:
            best[key] = Citation(chunk.source, chunk.heading, chunk.support)
    return list(best.values())


class ExtractiveAnswerer:
    def __init__(self, embed: Embed, embed_pieces: EmbedPieces | None = None) -> None:
        # e.g. `lambda texts: embedder.embed(texts, lane="query")`; with `embed_pieces`
        # (the embedder's fold_pieces) the units are embedded by it instead, once, and
        # their pieces give the answer's soft coverage of the question (soft_coverage.py).
        self._embed = embed
        self._embed_pieces = embed_pieces

    def answer(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        max_sentences: int = MAX_QUOTES,
        gate: GateDecision | None = None,
        analysis: QuestionAnalysis | None = None,
        query_vector: np.ndarray | None = None,
        query_pieces: PieceVectors | None = None,
    ) -> Answer:
        """`analysis`, `query_vector` and `query_pieces`: the retriever's (RetrievalResult),
        so the question is analysed and embedded once per ask; made here when the caller
        has none."""
        analysis = analysis or analyse(question)
        scored = self.scored(question, chunks, analysis, query_vector, query_pieces)
        if scored is None:
            return self._pointing_at(chunks, NO_SENTENCE_NOTE)
        candidates, scores, unit_vectors, coverage, cosines, listed, soft = scored[:7]
        leaders = np.array([not c.unit.instruction for c in candidates])
        # A release's list is quoted as far as the budget goes, not five entries of it.
        limit = max(max_sentences, min(len(listed), MAX_LISTED))
        window = quote_window(analysis, candidates, scores, leaders)
        chosen = self._chosen(scored, leaders, limit, window)
        offered = self._sentences_offered(analysis, scored, chosen, leaders, window)
        if offered:
            # A long unit left out for the budget stands in by one of its sentences
            # (fitting.py): chosen again with them, a chosen sentence takes its unit's place.
            whole = len(candidates)
            candidates = [*candidates, *(c for _, c, _, _ in offered)]
            scores = np.concatenate([scores, [score for _, _, score, _ in offered]])
            unit_vectors = np.vstack([unit_vectors, *(v[None, :] for _, _, _, v in offered)])
            stands_in = {whole + k: parent for k, (parent, _, _, _) in enumerate(offered)}
            extended = scored._replace(candidates=candidates, scores=scores, vectors=unit_vectors)
            leaders = np.array([not c.unit.instruction for c in candidates])
            chosen = self._chosen(extended, leaders, limit, window, stands_in, tuple(chosen))
            for position, index in enumerate(chosen):
                if index in stands_in:
                    parent = stands_in[index]
                    candidates[parent], scores[parent] = candidates[index], scores[index]
                    unit_vectors[parent] = unit_vectors[index]
                    chosen[position] = parent
            candidates, scores = candidates[:whole], scores[:whole]
            unit_vectors, leaders = unit_vectors[:whole], leaders[:whole]
        sizes = np.array([len(c.unit.text) for c in candidates])
        if not chosen:
            return self._pointing_at(chunks, ONLY_INSTRUCTIONS_NOTE)
        chosen = every_name_spoken_for(
            chosen, candidates, scores, analysis.text, sizes, max_sentences
        )
        shown = in_reading_order(chosen, candidates, scores)
        asks_a_release = bool(releases.named(analysis.text))
        order = with_followers(shown, candidates, scores, analysis.wants_number, asks_a_release)
        order = with_the_names_they_lack(order, candidates, scores, analysis)
        order = with_what_closes_a_list(order, candidates)
        if analysis.wants_action:
            order = with_the_example_continued(order, candidates)
        picked = [candidates[i] for i in order]
        covered = float(coverage[chosen[0]])
        # The closest unit, quoted or not: a passage about the question's subject that
        # lacks what it asks for has no unit that says it (a hard negative's best unit sits
        # further from the question than a right answer's, on every eval corpus).
        closest = float(cosines.max())
        # ...and how much of the question that unit holds: a hard negative's closest unit
        # is on its subject but lacks the term that makes it a different question.
        closest_covers = float(coverage[int(np.argmax(cosines))])
        label, p = confidence_for(covered, closest, gate, soft)
        unsure = unsure_lines(analysis) if gate is not None and label == "low" else []
        return Answer(
            text="\n".join([HEADER, "", *unsure, *map(quote, picked, carried_terms(picked))]),
            citations=_citations([c.chunk for c in picked]),
            confidence=label,
            refused=False,
            mode="extractive",
            probability=p,
            quote_coverage=round(covered, 4),
            unit_cosine=round(closest, 4),
            unit_coverage=round(closest_covers, 4),
            soft_coverage=None if soft is None else round(soft, 4),
        )

    @staticmethod
    def _chosen(
        scored: Scored,
        leaders: np.ndarray,
        limit: int,
        window: float,
        stands_in: dict[int, int] | None = None,
        taken: tuple[int, ...] = (),
    ) -> list[int]:
        candidates = scored.candidates
        return choose(
            scored.scores,
            scored.vectors,
            limit,
            leaders,
            np.array([len(c.unit.text) for c in candidates]),
            QUOTE_BUDGET,
            [unit_lines(c.unit) for c in candidates],
            in_order=scored.listed,
            window=window,
            stands_in=stands_in,
            taken=taken,
            shingles=[unit_shingles(c.unit) for c in candidates],
            blocks=code_blocks(candidates),
        )

    def _sentences_offered(
        self,
        analysis: QuestionAnalysis,
        scored: Scored,
        chosen: list[int],
        leaders: np.ndarray,
        window: float,
    ) -> list[tuple[int, Candidate, float, np.ndarray]]:
        """The sentences of the best long units within the window left out of `chosen`
        (fitting.py), each with its unit's index, its score and its vector. A sentence
        scores as its unit does, less what its cosine, key terms, exact tokens and answer
        type lose against the whole: "… defaults to 90 days." keeps the number a "how
        long …?" asks for, the sentence before it does not."""
        candidates, scores = scored.candidates, scored.scores
        if len(chosen) < 1 or scored.terms is None or scored.question_vector is None:
            return []
        floor = float(scores[leaders].max()) - window
        left_out = [
            int(i)
            for i in np.argsort(-scores, kind="stable")
            if scores[i] >= floor
            and int(i) not in chosen
            and leaders[i]
            and not candidates[i].leads_in
            and fitting.splits(candidates[i].unit)
        ][: fitting.FITTED_UNITS]
        pairs = [
            (i, Candidate(unit, candidates[i].chunk))
            for i in left_out
            for unit in fitting.sentences_of(candidates[i].unit)
        ]
        if not pairs:
            return []
        vectors = self._vectors([c.unit.search_text for _, c in pairs])
        wanted = [
            answer
            for asks, answer in ((analysis.wants_number, _NUMBER), (analysis.wants_action, _ACTION))
            if asks
        ]

        def worth(c: Candidate) -> float:
            assert scored.terms is not None
            exact = self._exact_share(analysis, [c])[0]
            typed = any(_holds(c, p) for p in wanted)
            return (
                COVERAGE_WEIGHT * scored.terms.coverage(c.haystack)
                + EXACT_TOKEN_BOOST * float(exact)
                + ANSWER_TYPE_BOOST * typed
            )

        whole = {i: worth(candidates[i]) for i in left_out}  # each unit's, once for its sentences
        out = []
        for (i, c), vector in zip(pairs, vectors, strict=True):
            lost = float(scored.cosines[i] - vector @ scored.question_vector)
            score = float(scores[i]) - lost - (whole[i] - worth(c))
            out.append((i, c, score, vector))
        return out

    def scored(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        analysis: QuestionAnalysis,
        query_vector: np.ndarray | None = None,
        query_pieces: PieceVectors | None = None,
    ) -> Scored | None:
        """Every quotable unit of `chunks` with its score, its unit vector and the share
        of the question's key terms it covers; None when nothing is quotable."""
        candidates = candidates_of(chunks)
        if not candidates:
            return None
        texts = [c.unit.search_text for c in candidates]
        # The question is embedded here, first in the units' batch, only when the
        # retriever's pass did not give what this answer reads: its vector, and its pieces
        # when the soft coverage is measured.
        with_pieces = self._embed_pieces is not None
        question_first = query_vector is None or (with_pieces and query_pieces is None)
        batch = [question, *texts] if question_first else texts
        soft = None
        if self._embed_pieces is None:
            vectors = self._vectors(batch)
        else:
            # Each batch's pieces folded into the soft coverage as it is encoded and
            # dropped: an ask holds one batch of them, never every unit's at once.
            fold = CoverageFold(None if question_first else query_pieces)

            def take(index: int, pieces: PieceVectors) -> None:
                if question_first and index == 0:
                    fold.ask(pieces)
                else:
                    fold.add(pieces)

            vectors = _normalised(np.asarray(self._embed_pieces(batch, take), np.float32))
            soft = fold.result()
        unit_vectors = vectors[1:] if question_first else vectors
        if query_vector is None:
            question_vector = vectors[0]
        else:
            question_vector = _normalised(query_vector[None, :])[0]
        terms = KeyTerms(analysis, candidates)
        coverage = np.array([terms.coverage(c.haystack) for c in candidates])
        cosines = unit_vectors @ question_vector
        scores = cosines + COVERAGE_WEIGHT * coverage
        scores += SUPPORT_WEIGHT * self._relative_support(candidates)
        scores += EXACT_TOKEN_BOOST * self._exact_share(analysis, candidates)
        scores += ANSWER_TYPE_BOOST * self._answer_type(analysis, candidates)
        scores += NAMED_SOURCE_BOOST * self._named(analysis, candidates)
        scores += DEFINES_NAMED_BOOST * defines_what_is_named(analysis, candidates)
        scores += HEADING_WEIGHT * np.array([terms.coverage(c.place) for c in candidates])
        scores += CHUNK_COSINE_WEIGHT * np.array([c.chunk.cosine for c in candidates])
        named, asked = _named_and_asked(analysis, candidates)
        release = _release_of(named, asked, candidates)
        scores += RELEASE_WEIGHT * release
        listed = release_list(candidates, scores, release, terms, asked)
        top = max((float(scores[i]) for i in listed), default=0.0)
        for position, index in enumerate(listed):
            # the best item's score, a hair less for each item after it: the file's order
            scores[index] = top - 1e-3 * position
        if (release > 0).any():
            # The asked release's own section is here: another release's units are no
            # answer to it, however close their words ("Read the v2.0 migration guide…"
            # for "What changed in 2.2.0?"), so they come last.
            scores -= OUT_OF_RELEASE * (release < 0)
        scores -= ECHO_PENALTY * _echoes(analysis, candidates)
        signed = np.array([c.unit.attributed for c in candidates], dtype=np.float32)
        scores -= SIGNED_QUOTATION_PENALTY * signed
        scores -= LICENCE_NOTICE_PENALTY * _licence_notices(analysis, candidates)
        scores -= SOURCE_PENALTY * _source_beside_documents(candidates)
        unpenalised = scores.copy()
        scores -= LEAD_IN_PENALTY * np.array([c.leads_in for c in candidates], dtype=np.float32)
        _inherit_from_lead_ins(scores, unpenalised, candidates)
        return Scored(
            candidates,
            scores,
            unit_vectors,
            coverage,
            cosines.copy(),
            listed,
            soft,
            terms,
            question_vector,
        )

    def _vectors(self, texts: list[str]) -> np.ndarray:
        return _normalised(np.asarray(self._embed(texts), np.float32))

    @staticmethod
    def _relative_support(candidates: list[Candidate]) -> np.ndarray:
        support = np.array([_unit_support(c.chunk) for c in candidates])
        best = float(support.max())
        return support / best if best > 0 else np.zeros(len(candidates))

    @staticmethod
    def _answer_type(analysis: QuestionAnalysis, candidates: list[Candidate]) -> np.ndarray:
        """1 for a unit holding what the question asks for: a number for "how many …?",
        a command or option for "how do I …?" (code only when a line introduces it, it is
        typed at a prompt, it is a program's own definition, _holds, or it is an example
        of what the question asks about, _an_example_of)."""
        pairs = ((analysis.wants_number, _NUMBER), (analysis.wants_action, _ACTION))
        wanted = [answer for asks, answer in pairs if asks]
        noun = enumeration.listed_noun(analysis.text)
        if not wanted and noun is None:
            return np.zeros(len(candidates))
        asked = _stemmed(analysis.words) if analysis.wants_action else set()
        return np.array(
            [
                any(_holds(c, p) for p in wanted)
                or _lists(i, noun, candidates)
                or _an_example_of(asked, c)
                for i, c in enumerate(candidates)
            ],
            dtype=np.float32,
        )

    @staticmethod
    def _named(analysis: QuestionAnalysis, candidates: list[Candidate]) -> np.ndarray:
        """For a unit from a file the question names by its file or folder name, 1, less
        when every word naming it is one nearly every file of the index holds (its IDF
        below COMMON_TERM_IDF, as for the key terms): "how do I load my templates from a
        folder …?" named Jinja's templates.rst, whose units then led the answer, while
        "template" is in nearly every file there (IDF 0.59) and the answer was api.rst's;
        1 again when the question writes the file's name out ("templates.rst"); 0 for
        every other unit."""
        terms = naming.question_terms(analysis.words)
        named = naming.named_sources(terms, (c.chunk.source for c in candidates))
        share = {
            source: 1.0
            if naming.written_out(analysis.text, source)
            else max(
                min(1.0, analysis.weights.get(word, COMMON_TERM_IDF) / COMMON_TERM_IDF)
                for word in words
            )
            for source, words in named.items()
        }
        return np.array([share.get(c.chunk.source, 0.0) for c in candidates], dtype=np.float32)

    @staticmethod
    def _exact_share(analysis: QuestionAnalysis, candidates: list[Candidate]) -> np.ndarray:
        tokens = analysis.exact_tokens
        if not tokens:
            return np.zeros(len(candidates))
        patterns = _exact_patterns(analysis)
        return np.array(
            [sum(bool(p.search(c.cased)) for p in patterns) / len(tokens) for c in candidates]
        )

    @staticmethod
    def _pointing_at(chunks: list[RetrievedChunk], note: str) -> Answer:
        if not chunks:
            # Only reachable if called past the gate with nothing retrieved.
            return Answer(text=REFUSAL_SENTENCE, refused=True, mode="extractive")
        top = chunks[:3]
        lines = [HEADER, "", note, *(f"- {marker(chunk)}" for chunk in top)]
        # Nothing is quoted, so there is no answer to be right: the estimate is 0, not the
        # gate's chance that the documents answer (`low` beside "p 0.97" read as a contradiction).
        return Answer(
            text="\n".join(lines),
            citations=_citations(top),
            confidence="low",
            mode="extractive",
            probability=0.0,
        )

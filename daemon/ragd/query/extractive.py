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
each brings the neighbours that complete it (companions.py: the lead-in before a list item,
row or code block; the short opening paragraph of its section before a piece of an example no line
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

import math
import re
from collections.abc import Callable
from pathlib import PurePath
from typing import NamedTuple

import numpy as np

from ragd.index.embedder import PieceFold, PieceVectors
from ragd.ingest.formats.code import COMMENT_OPENERS, LINE_COMMENTS
from ragd.query import (
    alternatives,
    enumeration,
    fitting,
    gate_model,
    injection,
    naming,
    releases,
)
from ragd.query.candidates import (
    FUNCTION_WORDS,
    STEM_CHARS,
    WORD,
    Candidate,
    candidates_of,
    defines,
    fences_its_code,
    of_a_program,
    release_place,
    stemmed,
    stems,
    term_of,
)
from ragd.query.companions import (
    lead_in_of,
    lists,
    previous_unit,
    with_followers,
    with_the_example_continued,
    with_what_closes_a_list,
)
from ragd.query.question import QuestionAnalysis, analyse
from ragd.query.soft_coverage import CoverageFold
from ragd.query.support import SupportScorer
from ragd.query.types import Answer, Citation, Confidence, GateDecision, RetrievedChunk
from ragd.query.units import (
    Unit,
    names_term,
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


Embed = Callable[[list[str]], np.ndarray]
# The embedder's fold_pieces: each text's vector, its word pieces' vectors handed to the
# fold batch by batch (the question's first), from one pass.
EmbedPieces = Callable[[list[str], PieceFold], np.ndarray]

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


_NUMBER = re.compile(r"\d")
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
        self.terms = stemmed(question.words)
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
        lead = lead_in_of(index, candidates)
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
        before = previous_unit(index, candidates)
        if (
            before is not None
            and out[before] >= 0
            and candidates[before].chunk is not candidate.chunk
            and candidates[before].unit.context == candidate.unit.context
        ):
            out[index] = before  # resolved to its block's first run below
    for index in range(len(out)):
        # Each link points to a unit of a chunk starting earlier in its file (previous_unit),
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
    words = WORD.findall(unit.text.lower())
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
    return frozenset(line.strip() for line in lines if WORD.search(line))


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
        if len(word) < 2 or word.lower() in FUNCTION_WORDS or word.lower() in found:
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
        term = term_of(candidate)
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
        return not of_a_program(candidate) or bool(_NUMBER.search(unit.text))
    if unit.kind == "code" and answer is _ACTION and _announces_output(unit):
        return False
    if unit.kind == "code" and (unit.led_in or defines(candidate)):
        return True
    if unit.kind == "code" and answer is _ACTION and of_a_program(candidate):
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
        and not of_a_program(candidate)
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
            for where in map(release_place, candidates)
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
        own = [i for i in items if releases.headed_by({version}, release_place(candidates[i]))]
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
    asked = stemmed(analysis.words)
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
            fences_its_code(c.chunk.source)
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
        [of_a_program(c) and _is_licence_notice(c.unit.text) for c in candidates],
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
        asked = stemmed(analysis.words) if analysis.wants_action else set()
        return np.array(
            [
                any(_holds(c, p) for p in wanted)
                or lists(i, noun, candidates)
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

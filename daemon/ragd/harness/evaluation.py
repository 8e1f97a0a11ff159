"""The eval harness: retrieval quality and gate calibration over a questions file.

Questions file (JSON Lines), one object per line::

    {"question": "What does KSF-E417 mean?", "answerable": true,
     "expected": [{"source": "faredeck-admin-guide.md", "heading": "… > Error Codes"}],
     "kind": "exact_token"}

`kind` (optional) is one of plain, exact_token, stemming, off_topic, hard_negative.
An expected section matches a result from that source whose heading path is the given one
or lies under it (`""`: anywhere in the file); `contains` (optional) also asks that the
result's text holds that string, for sections so long that many chunks share the heading.
`facts` (answerable, optional) are short strings a good answer contains. `absent`
(hard negatives) are regular expressions that must match nowhere in the corpus: the
proof, re-checked by `absence_violations` on every run, that the answer is not there.
For each retrieval mode (vector, bm25, hybrid) the harness reports hit@5 of expected
sections, the gate's support statistic for answerable vs unanswerable questions and
their separation (weakest answerable minus strongest unanswerable), false accepts and
false refusals at the floor, and exact-token hits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragd.ingest.chunking import clean_heading
from ragd.ingest.heading_text import rendered_title
from ragd.query.support import SupportScorer

MODES = ("vector", "bm25", "hybrid")
# The targets on every corpus, held out (docs/calibration.md): shares of off-topic questions
# refused (at least) and answerable ones refused (at most); hard negatives not passed as
# clearly supported (refused or "unsure", at least); hit@5; keyless answers holding at least
# half their facts; answers labelled high that hold every fact; right answers labelled
# medium or high; hard negatives the gate let through labelled low.
TARGETS = {
    "off_topic": 1.0,
    "false_refusals": 0.03,
    "hard_negatives": 0.40,
    "hit_at_5": 0.90,
    "half_facts": 0.80,
    "high_right": 0.90,
    "right_confident": 0.60,
    "hard_low": 0.80,
}
SearchFn = Callable[[str, str], dict[str, Any]]  # (question, mode) → search reply data


@dataclass(frozen=True)
class Expected:
    source: str
    heading: str
    contains: str | None = None

    def chunked_headings(self) -> tuple[str, ...]:
        """The expected heading path as the chunker writes it (each level cut at
        HEADING_MAX_CHARS), so a question file written from the document's own long
        heading still names the chunks under it: as written, and with each level as a
        Markdown heading renders (`[Starlette](https://…)` → "Starlette", since chunker
        59), so a frozen question file written from the raw path still names its section."""
        if not self.heading:
            return ()
        levels = self.heading.split(" > ")
        written = " > ".join(clean_heading(level) for level in levels)
        rendered = " > ".join(clean_heading(rendered_title(level)) for level in levels)
        return (written,) if rendered == written else (written, rendered)

    def matches(self, source: str, heading: str, text: str = "") -> bool:
        if source != self.source:
            return False
        wanted = self.chunked_headings()
        if wanted and not any(
            _under(heading, w) or _under(_below_title(heading), w) for w in wanted
        ):
            return False
        return self.contains is None or self.contains.lower() in text.lower()


def _under(heading: str, wanted: str) -> bool:
    return heading == wanted or heading.startswith(wanted + " > ")


def _below_title(heading: str) -> str:
    """The heading path without its first level: a question file names a section as the
    reader sees it ("License"), and a file's own title above every section ("PyYAML",
    underlined in Markdown and read as a title since the chunker reads setext headings) is
    not part of that name."""
    return heading.partition(" > ")[2]


@dataclass(frozen=True)
class Question:
    question: str
    answerable: bool
    expected: tuple[Expected, ...]
    kind: str = "plain"
    facts: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()

    def found_in(self, results: list[dict[str, Any]]) -> bool:
        """Does any of these search results hold an expected section?"""
        return any(
            e.matches(r["source"], r["heading"], r.get("text", ""))
            for r in results
            for e in self.expected
        )


def load_questions(path: Path) -> list[Question]:
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            questions.append(
                Question(
                    question=str(raw["question"]),
                    answerable=bool(raw["answerable"]),
                    expected=tuple(
                        Expected(str(e["source"]), str(e["heading"]), e.get("contains"))
                        for e in raw.get("expected", [])
                    ),
                    kind=str(raw.get("kind", "plain")),
                    facts=tuple(str(f) for f in raw.get("facts", [])),
                    absent=tuple(str(a) for a in raw.get("absent", [])),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path.name}:{number}: not a valid question ({exc})") from None
    return questions


def document_text(path: Path) -> str:
    """The text the indexer would see in a file (a PDF's pages too), or "" if it skips it."""
    from ragd.ingest.loaders import SkipFile, parse

    try:
        document = parse(path.name, path.read_bytes())
    except SkipFile:
        return ""
    return "\n".join([document.text, *(text for _, text in document.pages)])


def absence_violations(
    corpus: Path, questions: list[Question], require_absent: bool = True
) -> list[str]:
    """Hard negatives whose `absent` pattern does occur in the corpus (should be none).

    A hard negative is only a fair test if the answer really is missing; the patterns are
    searched case-insensitively in every file's text, so an edit to the corpus or to a
    question that makes the answer present is caught here instead of scoring as a "failure"
    of the gate. `require_absent`: a hard negative with no pattern is a problem too (not
    for a new user's questions, whose writer checked each absent with grep).
    """
    texts = [document_text(p) for p in sorted(corpus.rglob("*")) if p.is_file()]
    problems = []
    for q in questions:
        if require_absent and q.kind == "hard_negative" and not q.absent:
            problems.append(f"hard negative without an absence check: {q.question}")
        for pattern in q.absent:
            regex = re.compile(pattern, re.IGNORECASE)
            if any(regex.search(text) for text in texts):
                problems.append(f"{q.question!r}: /{pattern}/ occurs in the corpus")
    return problems


STATISTICS = {
    # the gate's statistic (see ragd/query/support.py)
    "support": lambda data: float(data["gate"]["support"]),
    # the same without the identifier check: cosine ⊕ lexical coverage alone
    "cos+cov": lambda data: max(
        (
            SupportScorer.combine(float(r.get("cosine", 0.0)), float(r.get("coverage", 0.0)))
            for r in data["results"]
        ),
        default=0.0,
    ),
    # the starting point: the best cosine of any candidate
    "cosine": lambda data: max((float(r.get("cosine", 0.0)) for r in data["results"]), default=0.0),
}


@dataclass
class ModeReport:
    mode: str
    statistic: str = "support"
    hits: int = 0
    answerable: int = 0
    exact_hits: int = 0
    exact_total: int = 0
    answerable_support: list[tuple[float, str]] = field(default_factory=list)
    unanswerable_support: list[tuple[float, str, str]] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    @property
    def hit_at_5(self) -> float:
        return self.hits / self.answerable if self.answerable else 0.0

    def weakest_answerable(self) -> float:
        return min((s for s, _ in self.answerable_support), default=0.0)

    def strongest_unanswerable(self, kinds: tuple[str, ...] | None = None) -> float:
        return max(
            (s for s, _, k in self.unanswerable_support if kinds is None or k in kinds),
            default=0.0,
        )

    def separation(self, kinds: tuple[str, ...] | None = None) -> float:
        """Weakest answerable minus strongest unanswerable (of the given kinds)."""
        return self.weakest_answerable() - self.strongest_unanswerable(kinds)

    def false_accepts(self, floor: float, kinds: tuple[str, ...] | None = None) -> list[str]:
        return [
            q
            for s, q, k in self.unanswerable_support
            if s >= floor and (kinds is None or k in kinds)
        ]

    def false_refusals(self, floor: float) -> list[str]:
        return [q for s, q in self.answerable_support if s < floor]

    def summary(self, floor: float) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "statistic": self.statistic,
            "hit_at_5": round(self.hit_at_5, 3),
            "exact_token_hits": f"{self.exact_hits}/{self.exact_total}",
            "weakest_answerable": round(self.weakest_answerable(), 3),
            "strongest_unanswerable": round(self.strongest_unanswerable(), 3),
            "strongest_off_topic": round(self.strongest_unanswerable(("off_topic",)), 3),
            "separation": round(self.separation(), 3),
            "separation_off_topic": round(self.separation(("off_topic",)), 3),
            "false_accepts": len(self.false_accepts(floor)),
            "false_accepts_off_topic": len(self.false_accepts(floor, ("off_topic",))),
            "false_refusals": len(self.false_refusals(floor)),
        }


def evaluate(
    search: SearchFn,
    questions: list[Question],
    statistic: str = "support",
    modes: Sequence[str] = MODES,
) -> dict[str, ModeReport]:
    """Each question searched in each of `modes` (`render` needs all of MODES)."""
    score = STATISTICS[statistic]
    reports = {mode: ModeReport(mode, statistic) for mode in modes}
    for q in questions:
        for mode in modes:
            data = search(q.question, mode)
            report = reports[mode]
            support = score(data)
            if q.answerable:
                report.answerable += 1
                report.answerable_support.append((support, q.question))
                hit = q.found_in(data["results"][:5])
                report.hits += hit
                if not hit:
                    report.misses.append(q.question)
                if q.kind == "exact_token":
                    report.exact_total += 1
                    report.exact_hits += hit
            else:
                report.unanswerable_support.append((support, q.question, q.kind))
    return reports


def suggest_floor(report: ModeReport) -> float:
    """Midway between the strongest off-topic question and the weakest answerable one."""
    return round(
        (report.weakest_answerable() + report.strongest_unanswerable(("off_topic",))) / 2, 3
    )


COLUMNS = (
    ("mode", "mode", "{:<8}"),
    ("stat", "statistic", "{:<8}"),
    ("hit@5", "hit_at_5", "{:>6.3f}"),
    ("exact", "exact_token_hits", "{:>6}"),
    ("weakest ans", "weakest_answerable", "{:>11.3f}"),
    ("max off-topic", "strongest_off_topic", "{:>13.3f}"),
    ("max unans", "strongest_unanswerable", "{:>9.3f}"),
    ("sep off-topic", "separation_off_topic", "{:>+13.3f}"),
    ("sep all", "separation", "{:>+7.3f}"),
    ("FA off-topic", "false_accepts_off_topic", "{:>12}"),
    ("FA all", "false_accepts", "{:>6}"),
    ("FR", "false_refusals", "{:>3}"),
)


def table(reports: list[ModeReport], floor: float) -> str:
    widths = [len(fmt.format(0 if "f" in fmt else "")) for _, _, fmt in COLUMNS]
    head = " ".join(
        name.rjust(w) if i > 1 else name.ljust(w)
        for i, ((name, _, _), w) in enumerate(zip(COLUMNS, widths, strict=True))
    )
    lines = [head, "-" * len(head)]
    for report in reports:
        s = report.summary(floor)
        lines.append(" ".join(fmt.format(s[key]) for _, key, fmt in COLUMNS))
    return "\n".join(lines)


def render(
    reports: dict[str, ModeReport],
    floor: float,
    baselines: Sequence[dict[str, ModeReport]] = (),
) -> str:
    rows = [reports[m] for m in MODES]
    for baseline in baselines:
        rows += [baseline[m] for m in MODES]
    lines = [table(rows, floor)]
    hybrid = reports["hybrid"]
    lines.append(
        f"\nfloor {floor:.3f} (calibration suggests {suggest_floor(hybrid):.3f}: midway "
        "between the strongest off-topic and the weakest answerable question)"
    )
    for q in hybrid.false_accepts(floor):
        lines.append(f"  false accept: {q}")
    for q in hybrid.false_refusals(floor):
        lines.append(f"  false refusal: {q}")
    for q in hybrid.misses:
        lines.append(f"  hybrid miss@5: {q}")
    return "\n".join(lines)


# -- running against a real daemon -------------------------------------------------------
def gate_failures(
    questions: list[Question],
    search: Callable[[str], dict[str, Any]],
    false_refusals: float = TARGETS["false_refusals"],
) -> list[str]:
    """The targets (docs/calibration.md) on one corpus, judged by the gate's own decision;
    `false_refusals`: the share allowed, when a guard holds a corpus to what `make eval`
    measured rather than to a target it does not meet."""

    def refused(q: Question) -> bool:
        return not search(q.question)["gate"]["passed"]

    def held(q: Question) -> bool:  # refused, or answered with "may not answer"
        return search(q.question)["gate"]["verdict"] != "pass"

    answerable = [q for q in questions if q.answerable]
    off_topic = [q for q in questions if q.kind == "off_topic"]
    hard = [q for q in questions if q.kind == "hard_negative"]
    failures = [f"off-topic question passed: {q.question}" for q in off_topic if not refused(q)]
    wrongly = [q.question for q in answerable if refused(q)]
    if len(wrongly) > false_refusals * len(answerable):
        failures.append(f"false refusals {len(wrongly)}/{len(answerable)}: {wrongly}")
    kept = sum(held(q) for q in hard)
    if kept < TARGETS["hard_negatives"] * len(hard):
        failures.append(f"hard negatives refused or unsure {kept}/{len(hard)}")
    hits = sum(q.found_in(search(q.question)["results"][:5]) for q in answerable)
    if hits < TARGETS["hit_at_5"] * len(answerable):
        failures.append(f"hit@5 {hits}/{len(answerable)}")
    return failures


def run_against_daemon(corpus: Path, questions_path: Path, floor: float | None) -> int:
    """Index `corpus` with a private `ragd serve`, run the questions, print the tables."""
    import sys
    import tempfile

    from ragd.harness.private_daemon import PrivateDaemon, PrivateDaemonError

    questions = load_questions(questions_path)
    with tempfile.TemporaryDirectory(prefix="ragd-eval-") as tmp:
        daemon = PrivateDaemon.in_folder([corpus.absolute()], Path(tmp), ["--log-level", "WARNING"])
        daemon.persistent = True

        def search(question: str, mode: str) -> dict[str, Any]:
            return daemon.call("search", query=question, mode=mode, top_k=5)

        try:
            with daemon.indexed(timeout=300) as status:
                applied = (
                    floor
                    if floor is not None
                    else float(daemon.call("search", query="ping")["gate"]["floor"])
                )
                reports = evaluate(search, questions)
                baselines = [evaluate(search, questions, s) for s in ("cos+cov", "cosine")]
                failures = gate_failures(questions, lambda q: search(q, "hybrid"))
        except PrivateDaemonError as exc:
            print(f"{exc}\n{daemon.log()}", file=sys.stderr)
            return 2
    print(
        f"{len(questions)} questions ({sum(q.answerable for q in questions)} answerable) "
        f"over {status.get('files')} files, {status.get('chunks')} chunks\n"
    )
    print(render(reports, applied, baselines))
    for failure in failures:
        print(f"GUARD FAILED: {failure}")
    return 1 if failures else 0

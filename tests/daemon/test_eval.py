"""The quality guard: retrieval, the gate and keyless answers against their targets.

Two corpora are guarded in `make test` (docs/calibration.md has the method and the full
cross-corpus table that `make eval` prints):

* sample_corpus, through a real daemon whose floor was learned with the shipped margin
  (fitted on the real-document corpora only, so held out from this one);
* one real-document corpus built from this machine's pinned Debian docs, indexed in this
  process with the daemon's own code, with the margin and vocabulary limit fitted on the
  *other* corpora's measurements (bench/corpora/measured.json, kept by `make eval`).

Each fails when a target slips: an off-topic question passes, more than 2 % of the
answerable questions are refused, fewer than 40 % of the hard negatives are refused,
hybrid hit@5 drops below 0.90 or (real corpus) fewer than 70 % of the keyless answers
hold their question's facts. The identifier check must keep paying for itself: fewer
hybrid false accepts than cosine ⊕ coverage alone, and no false refusal it adds.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from bench.corpora import CORPORA, CorpusUnavailable, by_name, question_problems

from ragd.harness import crosseval
from ragd.harness.crosseval import CorpusRun
from ragd.harness.evaluation import evaluate, gate_failures, load_questions, render
from tests.support.daemon import REPO, Daemon

if TYPE_CHECKING:
    from ragd.index.embedder import MiniLMEmbedder

QUESTIONS = REPO / "bench" / "questions.jsonl"
MEASURED = REPO / "bench" / "corpora" / "measured.json"
# The cheapest real corpus that exercises every check: man pages, a FAQ, READMEs in
# Markdown and plain text; its hard negatives are caught by the answer-type check.
GUARDED = "compression"


def test_questions_file_meets_its_own_spec() -> None:
    questions = load_questions(QUESTIONS)
    kinds = [q.kind for q in questions]
    assert len(questions) >= 40
    assert sum(not q.answerable for q in questions) >= 12
    assert kinds.count("hard_negative") >= 6
    assert kinds.count("exact_token") >= 8
    assert kinds.count("stemming") >= 4
    assert all(q.expected for q in questions if q.answerable)


def test_quality_guard_on_sample_corpus(sample_daemon: Daemon) -> None:
    """The targets of docs/calibration.md on the sample corpus, with the floor the daemon
    learned for it: its margin was fitted on the other (real-document) corpora only."""
    questions = load_questions(QUESTIONS)
    sample_daemon.wait_floor_settled()
    replies: dict[tuple[str, str], dict] = {}  # type: ignore[type-arg]

    def search(question: str, mode: str) -> dict:  # type: ignore[type-arg]
        if (question, mode) not in replies:
            replies[question, mode] = sample_daemon.search(question, 5, mode=mode)
        return replies[question, mode]

    reports = evaluate(search, questions)
    floor = search("x", "hybrid")["gate"]["floor"]
    failures = gate_failures(questions, lambda q: search(q, "hybrid"))
    assert not failures, render(reports, floor) + "\n" + "\n".join(failures)
    # The improved statistic must beat the starting point it replaced.
    baseline = evaluate(search, questions, "cosine")
    assert reports["hybrid"].separation(("off_topic",)) > baseline["hybrid"].separation(
        ("off_topic",)
    )
    # The identifier check (a factor on cosine ⊕ coverage) must refuse something more.
    without = evaluate(search, questions, "cos+cov")["hybrid"]
    assert len(reports["hybrid"].false_accepts(floor)) < len(without.false_accepts(floor))
    assert len(reports["hybrid"].false_refusals(floor)) <= len(without.false_refusals(floor))


def test_eval_loader_rejects_malformed_lines(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"question": "x"}\n')
    try:
        load_questions(bad)
    except ValueError as exc:
        assert "q.jsonl:1" in str(exc)
    else:
        raise AssertionError("malformed question accepted")


@pytest.fixture(scope="module")
def guarded_run(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> CorpusRun:
    corpus = by_name(GUARDED)
    tmp = tmp_path_factory.mktemp("guard")
    try:
        folder = corpus.build(tmp / "corpora")
    except CorpusUnavailable as exc:
        pytest.fail(f"the {GUARDED!r} evaluation corpus cannot be built: {exc}", pytrace=False)
    problems = question_problems(folder, corpus.questions)
    assert not problems, "\n".join(problems)
    return crosseval.measure(GUARDED, folder, corpus.questions, tmp / "index", embedder)


def test_targets_on_a_real_corpus_with_a_held_out_fit(guarded_run: CorpusRun) -> None:
    """Every target, keyless fact presence included, on documents nobody here wrote, with
    the margin and vocabulary limit fitted on the other corpora (as `make eval` does)."""
    kept = crosseval.load_measurements(MEASURED)
    asked = {c.name for c in CORPORA if c.has_questions()}
    assert asked <= set(kept), "re-run `make eval` to measure every corpus"
    fitted = crosseval.fit(crosseval.training_runs(list(kept.values()), GUARDED))
    result = crosseval.row(guarded_run, fitted)
    assert not result.misses(), (
        crosseval.render([result])
        + f"\n(bank 95th percentile here {guarded_run.null:.3f}, when `make eval` last ran "
        f"{kept[GUARDED].null:.3f}: if the statistic changed, re-run `make eval`)"
    )
    assert result.facts == result.facts, "the guarded corpus's questions name no facts"


def test_kept_measurements_fit_as_the_live_ones(guarded_run: CorpusRun) -> None:
    """What `make eval` keeps is all the fit needs: the kept form fits to the same values."""
    kept = crosseval.from_json(GUARDED, crosseval.to_json(guarded_run))
    assert crosseval.fit([kept]) == crosseval.fit([guarded_run])
    assert [a.passes(0.3, 0.5) for a in kept.asked] == [
        a.passes(0.3, 0.5) for a in guarded_run.asked
    ]

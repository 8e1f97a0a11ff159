# ragd — every target sets up what it needs; re-running reuses .venv.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install lock run test test-fast test-stress check lint eval bench bench-scale bench-scale-real clean

install: $(STAMP)

# torch is pinned and installed first: an unpinned resolve pulls a multi-GB CUDA build.
# Everything else installs at the versions in constraints.txt, the set `make test` passed
# with, so a release published upstream cannot change a fresh clone's behaviour unseen.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

# Re-resolve every dependency to its newest release and rewrite constraints.txt (nothing is
# installed); then `make test`, and commit the file if it passes.
lock: $(STAMP)
	$(BIN)/python .ci/lock.py

run: $(STAMP)
	$(BIN)/ragd serve sample_corpus --data-dir .data

# Lint, format, types and the systemd unit; `make test` runs the same beside the tests.
LINT = $(BIN)/ruff check shared client daemon tests bench .ci/lock.py \
	&& $(BIN)/ruff format --check shared client daemon tests bench .ci/lock.py \
	&& $(BIN)/mypy shared/ragproto client/ragcli daemon/ragd \
	&& systemd/verify-unit.sh $(BIN)/ragd

check: $(STAMP)
	$(LINT)

# Every tier: tests/unit (no model, no daemon), tests/component (the real model and
# stores in-process), tests/daemon (real ragd, rag and chroma processes).
# Two workers, one test file each at a time (--dist loadfile): a module's shared daemon
# starts once, and its tests keep their order. Most of the suite waits on daemon
# processes, so two workers use both cores. TEST_WORKERS=0 runs in one process.
# Files are handed out longest first (tests/conftest.py, tests/support/schedule.py), so
# the last ones are short and neither worker idles long at the end;
# --no-loadscope-reorder keeps that order (xdist would put the files with most tests first).
# The seconds per file are a past run's, in tests/file_seconds.json (a file not in it is
# taken as the longest); refresh them after the suite changes shape:
#   PYTEST_ADDOPTS=--junitxml=/tmp/times.xml make test
#   .venv/bin/python -m tests.support.schedule /tmp/times.xml
# --durations=15 lists the slowest set-ups and tests, so the next cut starts from numbers.
# `RAGD_TEST_TMPDIR=/dev/shm make test` puts the tests' folders on a tmpfs (every sync
# returns at once): it helps while other work loads the disk, not on a quiet machine.
# Not yet at ~8 minutes: a clean clone's pytest took 579 s on a quiet machine (3,525 tests,
# 7 Dec 2026, main 83ff6650; 3,455 in 579 s at 1c7620de). The pytest command of 7 Dec 2026 (testtime73, installed, the
# content cache off) took 1,069 s and 752 CPU s at a mean load of 6.4 (`/usr/bin/time -v`,
# lint beside it), 713 CPU s in the files with 190 daemon starts (`RAGD_CPU_PER_FILE=DIR
# make test`, which also lists each test's starts); on /dev/shm at a load of 2.5, 711 s
# and 710 CPU s (docs/performance.md, "The test suite"). testtime75's run (load 6.8): 3,455
# tests, 764 CPU s; four files shortened by ≈ 46 worker-seconds, about what six new files
# added. Tests whose full size is not each run's promise keep a short variant here and the
# full one in `make test-stress` (-m stress). The eval guard's in-process corpus
# (≈ 45 CPU s) is kept between runs under a content key (tests/support/content_cache.py): a
# checkout whose daemon code and packages have not changed since its last run skips it.
# `make check` runs beside the tests rather than before them: on a fresh clone it is mostly a
# cold mypy (≈ 14 CPU s on one core; 30–40 s of wall clock ahead of the tests at a load of
# 5–9), and the tests leave a core idle while they wait on daemons. Its output is printed
# after the tests' and either failing fails `make test`.
# pytest rewrites every test module's asserts at collection, in each worker (≈ 15 CPU s a
# worker), and keeps the rewritten modules in __pycache__ unless PYTHONDONTWRITEBYTECODE is
# set (this machine's environment sets it): the tests run without it, so a checkout that ran
# them before collects in ≈ 5 CPU s (`pytest --collect-only`: 14.6 → 4.8 CPU s, load 5).
PYTEST = env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest
TEST_WORKERS ?= 2
test: $(STAMP)
	@lint_log=$$(mktemp); \
	( $(LINT) ) > "$$lint_log" 2>&1 & lint=$$!; \
	$(PYTEST) -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15; \
	tests=$$?; wait $$lint; checked=$$?; \
	echo "--- make check (run beside the tests) ---"; cat "$$lint_log"; rm -f "$$lint_log"; \
	if [ $$checked -ne 0 ]; then echo "make test: make check failed (above)"; fi; \
	[ $$tests -eq 0 ] && [ $$checked -eq 0 ]

# The unit and component tiers: no daemon process, the real model and stores in-process.
test-fast: $(STAMP)
	$(PYTEST) -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder tests/unit tests/component

# The full-size crash, load and hostile-file variants (10,000-file burst, 1,000-file ingests,
# three files of short lines chunked beside a note): 34 tests.
test-stress: $(STAMP)
	$(PYTEST) -q -m stress

# The gate and keyless answers on sample_corpus and four real-document corpora built from
# this machine's pinned Debian docs, leave-one-corpus-out (docs/calibration.md).
eval: $(STAMP)
	$(BIN)/python bench/crosseval.py

bench: $(STAMP)
	$(BIN)/python bench/run.py
	$(BIN)/python bench/load.py

# ≥ 100,000 chunks: index size, RSS, search p50/p99, start-up, reconcile, HNSW recall.
bench-scale: $(STAMP)
	$(BIN)/python bench/scale.py $(SCALE_ARGS)

# Real documents (this machine's /usr/share/doc texts), every vector from the real model,
# embedded ChromaDB and a `chroma run` server; ≈ 36 min per mode at 20,000 chunks on 2 quiet cores.
bench-scale-real: $(STAMP)
	$(BIN)/python bench/scale.py --phases real --out bench/out/scale-real.json $(SCALE_ARGS)

clean:
	rm -rf $(VENV) .data bench/out

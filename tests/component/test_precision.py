"""`embed_precision = "auto"`: the per-machine rule, the CPU flags, the real measurement,
and its per-machine cache in the user's cache folder.

No test asserts a speed: timings are injected into the pure rule (`decide`), and the real
measurement is only checked for what it must report, whichever precision wins here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from ragd.index import machine, machine_cache, precision
from ragd.index.precision import Decision, Measurement, choose, decide


def measured(
    f32: float = 1.0,
    bf16: float = 0.5,
    cosine: float = 0.9999,
    same: bool = True,
    pieces: float | None = 0.9999,
) -> Measurement:
    return Measurement(f32, bf16, cosine, same, 200, min_piece_cosine=pieces)


@pytest.mark.parametrize(
    ("m", "chosen", "because"),
    [
        (measured(1.0, 0.5), "bfloat16", "2.00× float32"),  # twice as fast, agrees
        (measured(1.0, 1.7), "float32", "needs ≥ 1.05×"),  # slower (the 0.59× machine)
        (measured(1.0, 0.99), "float32", "needs ≥ 1.05×"),  # within noise: not worth it
        (measured(1.0, 0.5, cosine=0.998), "float32", "min cosine 0.99800 < 0.999"),
        (measured(1.0, 0.5, same=False), "float32", "changed a probe search's top-5"),
        # The sentence vectors agree, a word piece does not: the soft coverage reads it.
        (measured(1.0, 0.5, pieces=0.998), "float32", "pieces' min cosine 0.99800 < 0.999"),
        (measured(1.0, 0.5, pieces=None), "float32", "pieces' min cosine not measured"),
    ],
)
def test_decide_keeps_bfloat16_only_if_faster_and_equivalent(
    m: Measurement, chosen: str, because: str
) -> None:
    decision = decide(m)
    assert decision.precision == chosen
    assert because in decision.reason
    assert decision.measurement == m


@pytest.mark.parametrize(
    ("f32", "bf16", "clear"),
    [
        ([0.20, 0.18, 0.22], [0.30, 0.27, 0.33], True),  # bfloat16 1.5× slower in every block
        ([0.20, 0.18, 0.22], [0.12, 0.10, 0.13], True),  # ≈ 1.7× faster in every block
        ([0.20, 0.18, 0.22], [0.30, 0.20, 0.33], False),  # one block only 1.11× slower
        ([0.20, 0.18, 0.22], [0.12, 0.15, 0.13], False),  # one block 1.2× faster: < 1.26
        ([0.20, 0.18, 0.22], [0.30, 0.10, 0.33], False),  # the blocks disagree
        ([0.20, 0.18, 0.22], [0.21, 0.17, 0.22], False),  # a tie: more rounds decide
    ],
)
def test_one_round_settles_the_speed_only_beyond_the_margin_in_every_block(
    f32: list[float], bf16: list[float], clear: bool
) -> None:
    assert precision.clear_at_once({"float32": f32, "bfloat16": bf16}) is clear


def test_probe_text_is_a_dozen_varied_windows() -> None:
    texts = precision.probe_texts()
    assert len(texts) == precision.PROBE_WINDOWS
    assert len(set(texts)) == len(texts)
    lengths = sorted(len(t.split()) for t in texts)
    assert lengths[0] >= 12 and lengths[-1] > 3 * lengths[0]  # varied


THIS_CPU = machine.this_cpu()
NATIVE = machine.Cpu("Test CPU with bf16", THIS_CPU.flags | {"avx512_bf16"})


def cpuinfo(name: str, flags: str) -> str:
    """/proc/cpuinfo text of a two-processor machine (only the first one is read)."""
    one = f"processor\t: 0\nvendor_id\t: X\nmodel name\t: {name}\nflags\t\t: {flags}\n\n"
    return one + one.replace(": 0", ": 1")


def test_cpuinfo_text_gives_the_name_and_whether_bfloat16_is_native() -> None:
    zen3 = machine.Cpu.parse(cpuinfo("AMD EPYC 7B13", "fpu sse2 avx avx2 fma"))
    assert zen3.name == "AMD EPYC 7B13" and "avx2" in zen3.flags
    assert not zen3.native_bf16
    assert machine.Cpu.parse(cpuinfo("Zen 4", "avx2 avx512f avx512_bf16")).native_bf16
    assert machine.Cpu.parse(cpuinfo("Sapphire Rapids", "avx512f amx_bf16 amx_tile")).native_bf16
    here = Path("/proc/cpuinfo").read_text()
    assert THIS_CPU.native_bf16 == ("avx512_bf16" in here or "amx_bf16" in here)


class Counting:
    """Stands in for the measurement in cache tests: records calls, returns a fixed result."""

    def __init__(self, m: Measurement) -> None:
        self.m = m
        self.calls = 0

    def __call__(self, _embedder: object, texts: Sequence[str], _cancelled: object) -> Measurement:
        self.calls += 1
        return self.m


def test_no_native_bfloat16_means_float32_at_once_without_measuring(
    tmp_path: Path, embedder
) -> None:  # type: ignore[no-untyped-def]
    probe = Counting(measured(1.0, 0.5))  # would pick bfloat16 if it were ever asked
    zen3 = machine.Cpu.parse(cpuinfo("AMD EPYC 7B13", "fpu sse2 avx avx2 fma"))
    cache = tmp_path / "cache" / precision.CACHE_FILE
    decision = choose(embedder, cpu=zen3, cache=cache, texts=["x"] * 30, measure_fn=probe)
    assert decision == Decision("float32", precision.NO_NATIVE_BF16)
    assert "no native bfloat16 (no avx512_bf16/amx_bf16)" in decision.reason
    assert probe.calls == 0 and not cache.exists()
    assert precision.settled(embedder.model_id, zen3, cache) == decision


def test_a_shutdown_during_the_measurement_caches_nothing(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    cache = tmp_path / precision.CACHE_FILE
    with pytest.raises(precision.Cancelled):
        choose(embedder, NATIVE, cache, texts=precision.probe_texts(30), cancelled=lambda: True)
    assert not cache.exists()


@pytest.fixture(scope="module")
def real_measurement(embedder) -> Measurement:  # type: ignore[no-untyped-def]
    return precision.measure(embedder, precision.probe_texts(12))


def test_real_measurement_compares_both_precisions(real_measurement: Measurement, embedder) -> None:  # type: ignore[no-untyped-def]
    m = real_measurement
    assert m.windows == 12
    assert m.float32_s > 0 and m.bfloat16_s > 0
    # autocast bf16 on MiniLM is close to float32 everywhere it runs (bench section g: 0.9999)
    assert 0.99 < m.min_cosine <= 1.0 + 1e-6
    # ...and so are its word pieces, each compared where they decide (this machine:
    # 0.99993, performance.md)
    if decide(dataclasses.replace(m, min_piece_cosine=1.0)).precision == "bfloat16":
        assert m.min_piece_cosine is not None and 0.99 < m.min_piece_cosine <= 1.0 + 1e-6
    else:
        assert m.min_piece_cosine is None
    assert decide(m).precision in ("float32", "bfloat16")
    assert embedder.precision == "float32", "measuring must not switch the shared embedder"


def test_the_measurement_stops_after_one_round_only_when_that_settles_the_speed(
    real_measurement: Measurement,
) -> None:
    """A single round is only trusted when every block was beyond the margin, so the
    whole sums are too; the agreement checks ran on the same windows either way."""
    m = real_measurement
    assert m.rounds in (1, precision.ROUNDS)
    if m.rounds == 1:
        margin = precision.CLEAR_MARGIN
        assert m.speedup < 1 / margin or m.speedup > margin * precision.MIN_SPEEDUP
        assert decide(m).precision == ("bfloat16" if m.speedup > 1 else "float32") or (
            m.min_cosine < precision.MIN_COSINE
            or not m.same_top10
            or (m.min_piece_cosine or 0.0) < precision.MIN_PIECE_COSINE
        )


def test_the_measurement_counts_cpu_time_not_a_busy_neighbour(embedder) -> None:  # type: ignore[no-untyped-def]
    """Processes spinning on every core slow the measurement's wall clock, not its CPU
    time: the measured ratio of the precisions barely moves.

    One measurement here is a single block timed once (it settles after one round), and a
    VM's CPU time wanders ±25 % call to call with no neighbour at all (0.23–0.37 s for the
    same float32 block, back to back). So calm and busy measurements alternate, three of
    each, and each precision keeps its fastest, as the measurement keeps each block's
    fastest round: neighbours can only slow a run, never speed one up. Measured on 2 cores
    beside a third spinner: each side's shift within 0.96–1.07 over 16 trials; a single
    pair had strayed to 0.67 and 1.36 (CI, stop 56). Beside a helper's work as well as the
    spinners (session 55's CI rehearsal), bfloat16's shift was 1.33 once: contention for
    the cores' caches costs CPU time too. Shifts out of bounds are measured again, at most
    twice, as test_regex_linear does: noise passes on a later try, while a measurement
    that read the wall clock would shift on every try."""
    texts = precision.probe_texts(precision.BLOCK)
    tries = []
    for _ in range(3):
        shifts = _busy_shifts(embedder, texts)
        ratio_shift = shifts["float32_s"] / shifts["bfloat16_s"]
        tries.append((shifts, ratio_shift))
        if all(0.8 < s < 1.25 for s in shifts.values()) and 0.8 < ratio_shift < 1.25:
            return
    raise AssertionError(f"shifted on every try: {tries}")


def _busy_shifts(embedder, texts: list[str]) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Each precision's fastest time beside spinners on every core over its fastest
    alone, three of each alternating."""
    calm: list[Measurement] = []
    busy: list[Measurement] = []
    spin = [sys.executable, "-c", "while True: pass"]
    for _ in range(3):
        calm.append(precision.measure(embedder, texts))
        neighbours = [subprocess.Popen(spin) for _ in range(os.cpu_count() or 2)]
        try:
            busy.append(precision.measure(embedder, texts))
        finally:
            for n in neighbours:
                n.kill()
                n.wait()
    return {
        p: min(getattr(m, p) for m in busy) / min(getattr(m, p) for m in calm)
        for p in ("float32_s", "bfloat16_s")
    }


def test_decision_is_cached_per_machine_in_one_file_for_every_data_dir(
    tmp_path: Path, embedder
) -> None:  # type: ignore[no-untyped-def]
    cache = tmp_path / "xdg" / "ragd" / precision.CACHE_FILE
    probe = Counting(measured(1.0, 0.5))
    first = choose(embedder, NATIVE, cache, texts=["x"] * 30, measure_fn=probe)
    again = choose(embedder, NATIVE, cache, texts=["x"] * 30, measure_fn=probe)
    assert probe.calls == 1
    assert first == again and again.precision == "bfloat16"
    entries = json.loads(cache.read_text())["machines"]
    assert [e["machine"] for e in entries] == [machine.identity(NATIVE, embedder.model_id)]
    assert entries[0]["machine"]["cpu"] == "Test CPU with bf16" and entries[0]["machine"]["torch"]


def test_another_machine_measures_again_and_both_are_kept(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    cache = tmp_path / precision.CACHE_FILE
    probe = Counting(measured(1.0, 0.5))
    choose(embedder, NATIVE, cache, texts=["x"] * 30, measure_fn=probe)
    probe.m = measured(1.0, 1.7)  # the other CPU: bfloat16 is slower there
    other = machine.Cpu("Some Other CPU", frozenset({"avx512_bf16", "avx512f"}))
    decision = choose(embedder, other, cache, texts=["x"] * 30, measure_fn=probe)
    assert probe.calls == 2 and decision.precision == "float32"
    assert choose(embedder, other, cache, measure_fn=probe) == decision
    assert choose(embedder, NATIVE, cache, measure_fn=probe).precision == "bfloat16"
    assert probe.calls == 2
    assert len(json.loads(cache.read_text())["machines"]) == 2


def test_an_unreadable_cache_or_failing_bfloat16_falls_back_safely(
    tmp_path: Path, embedder
) -> None:  # type: ignore[no-untyped-def]
    cache = tmp_path / precision.CACHE_FILE
    cache.write_text("{not json")

    def broken(_embedder: object, _texts: Sequence[str], _cancelled: object) -> Measurement:
        raise RuntimeError("no bf16 kernels")

    decision = choose(embedder, NATIVE, cache, texts=["x"] * 30, measure_fn=broken)
    assert decision == Decision("float32", "bfloat16 failed here: no bf16 kernels")
    assert precision.settled(embedder.model_id, NATIVE, cache) == decision  # cached now


def test_a_cached_bfloat16_decision_made_before_the_piece_check_is_measured_again(
    tmp_path: Path, embedder
) -> None:  # type: ignore[no-untyped-def]
    """A machine that settled on bfloat16 when only the sentence vectors were compared has
    never had its word pieces checked: its cached decision is not trusted, a float32 one
    (which mixes nothing) is."""
    cache = tmp_path / precision.CACHE_FILE
    key = machine.identity(NATIVE, embedder.model_id)
    old = Decision("bfloat16", "2.00× float32", measured(pieces=None))
    machine_cache.write(cache, key, old.to_json())
    assert precision.settled(embedder.model_id, NATIVE, cache) is None
    probe = Counting(measured(1.0, 0.5))
    assert choose(embedder, NATIVE, cache, texts=["x"] * 30, measure_fn=probe).precision == (
        "bfloat16"
    )
    assert probe.calls == 1 and precision.settled(embedder.model_id, NATIVE, cache) is not None
    kept = Decision("float32", "slower", measured(1.0, 1.7, pieces=None))
    machine_cache.write(cache, key, kept.to_json())
    assert precision.settled(embedder.model_id, NATIVE, cache) == kept

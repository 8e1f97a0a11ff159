"""`embed_precision = "auto"`: the per-machine rule, the real measurement, and its cache.

No test asserts a speed: timings are injected into the pure rule (`decide`), and the real
measurement is only checked for what it must report, whichever precision wins here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from ragd.index import precision
from ragd.index.precision import Decision, Measurement, choose, decide, machine_identity


def measured(f32: float = 1.0, bf16: float = 0.5, cosine: float = 0.9999, same: bool = True):
    return Measurement(f32, bf16, cosine, same, 200)


@pytest.mark.parametrize(
    ("m", "chosen", "because"),
    [
        (measured(1.0, 0.5), "bfloat16", "2.00× float32"),  # twice as fast, agrees
        (measured(1.0, 1.7), "float32", "needs ≥ 1.05×"),  # slower (the 0.59× machine)
        (measured(1.0, 0.99), "float32", "needs ≥ 1.05×"),  # within noise: not worth it
        (measured(1.0, 0.5, cosine=0.998), "float32", "min cosine 0.99800 < 0.999"),
        (measured(1.0, 0.5, same=False), "float32", "changed a probe search's top-10"),
    ],
)
def test_decide_keeps_bfloat16_only_if_faster_and_equivalent(
    m: Measurement, chosen: str, because: str
) -> None:
    decision = decide(m)
    assert decision.precision == chosen
    assert because in decision.reason
    assert decision.measurement == m


def test_probe_text_is_a_few_hundred_varied_windows() -> None:
    texts = precision.probe_texts()
    assert len(texts) == precision.PROBE_WINDOWS
    assert len(set(texts)) == len(texts)
    lengths = sorted(len(t.split()) for t in texts)
    assert lengths[0] >= 12 and lengths[-1] > 2 * lengths[len(lengths) // 2]  # varied


def test_a_shutdown_during_the_measurement_caches_nothing(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(precision.Cancelled):
        choose(embedder, tmp_path, texts=precision.probe_texts(30), cancelled=lambda: True)
    assert not (tmp_path / precision.CACHE_FILE).exists()


@pytest.fixture(scope="module")
def real_measurement(embedder) -> Measurement:  # type: ignore[no-untyped-def]
    return precision.measure(embedder, precision.probe_texts(12))


def test_real_measurement_compares_both_precisions(real_measurement: Measurement, embedder) -> None:  # type: ignore[no-untyped-def]
    m = real_measurement
    assert m.windows == 12
    assert m.float32_s > 0 and m.bfloat16_s > 0
    # autocast bf16 on MiniLM is close to float32 everywhere it runs (bench section g: 0.9999)
    assert 0.99 < m.min_cosine <= 1.0 + 1e-6
    assert decide(m).precision in ("float32", "bfloat16")
    assert embedder.precision == "float32", "measuring must not switch the shared embedder"


class Counting:
    """Stands in for the measurement in cache tests: records calls, returns a fixed result."""

    def __init__(self, m: Measurement) -> None:
        self.m = m
        self.calls = 0

    def __call__(self, _embedder: object, texts: Sequence[str], _cancelled: object) -> Measurement:
        self.calls += 1
        return self.m


def test_decision_is_cached_with_the_machine_and_reused(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    probe = Counting(measured(1.0, 0.5))
    first = choose(embedder, tmp_path, texts=["x"] * 30, measure_fn=probe)
    again = choose(embedder, tmp_path, texts=["x"] * 30, measure_fn=probe)
    assert probe.calls == 1
    assert first == again and again.precision == "bfloat16"
    cache = json.loads((tmp_path / precision.CACHE_FILE).read_text())
    assert cache["machine"] == machine_identity(embedder.model_id)
    assert cache["machine"]["cpu"] and cache["machine"]["torch"]


def test_a_different_cpu_measures_again(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    here = machine_identity(embedder.model_id)
    probe = Counting(measured(1.0, 0.5))
    choose(embedder, tmp_path, texts=["x"] * 30, identity=here, measure_fn=probe)
    probe.m = measured(1.0, 1.7)  # the other CPU: bfloat16 is slower there
    moved = {**here, "cpu": "Some Other CPU", "cpu_flags": "0123456789abcdef"}
    decision = choose(embedder, tmp_path, texts=["x"] * 30, identity=moved, measure_fn=probe)
    assert probe.calls == 2
    assert decision.precision == "float32"
    assert choose(embedder, tmp_path, identity=moved, measure_fn=probe) == decision
    assert probe.calls == 2


def test_an_unreadable_cache_or_failing_bfloat16_falls_back_safely(
    tmp_path: Path, embedder
) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / precision.CACHE_FILE).write_text("{not json")

    def broken(_embedder: object, _texts: Sequence[str], _cancelled: object) -> Measurement:
        raise RuntimeError("no bf16 kernels")

    decision = choose(embedder, tmp_path, texts=["x"] * 30, measure_fn=broken)
    assert decision == Decision("float32", "bfloat16 failed here: no bf16 kernels")

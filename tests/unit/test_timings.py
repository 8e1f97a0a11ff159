"""The timing constants' testing seam (ragd/core/timings.py): the production values stay
as they are, and RAGD_TEST_TIMINGS is read once, checked, and says what is wrong in one line."""

from __future__ import annotations

import logging

import pytest

from ragd.core import timings
from ragd.core.timings import DEFAULTS, ENV, Timings, TimingsError, parse
from ragd.ingest.work_queue import WorkQueue


def test_the_production_timings_are_the_values_the_daemon_was_measured_with() -> None:
    assert (
        Timings(read_stall_s=20.0, read_timeout_s=5.0, probe_timeout_s=2.0, change_cap_s=3.0)
        == DEFAULTS
    )
    assert timings.NAMES == ("read_stall_s", "read_timeout_s", "probe_timeout_s", "change_cap_s")


def test_no_variable_or_an_empty_one_keeps_every_default() -> None:
    assert parse("") == DEFAULTS
    assert parse(" , ") == DEFAULTS


def test_named_timings_are_overridden_and_the_rest_kept() -> None:
    got = parse("read_stall_s=3, probe_timeout_s = 0.5,")
    assert got == Timings(read_stall_s=3.0, read_timeout_s=5.0, probe_timeout_s=0.5)
    assert parse("change_cap_s=1,change_cap_s=2").change_cap_s == 2.0  # the last one wins


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("read_stal_s=3", "no timing is called 'read_stal_s' (known: read_stall_s, "),
        ("=3", "no timing is called ''"),
        ("read_stall_s", "read_stall_s must be a number of seconds greater than 0"),
        ("read_stall_s=", "got 'read_stall_s='"),
        ("read_stall_s=fast", "got 'read_stall_s=fast'"),
        ("read_stall_s=0", "greater than 0 and at most 3600"),
        ("read_stall_s=-1", "greater than 0"),
        ("read_stall_s=nan", "greater than 0"),
        ("read_stall_s=inf", "at most 3600"),
        ("read_stall_s=3601", "at most 3600"),
    ],
)
def test_a_wrong_name_or_value_is_one_line_naming_it(text: str, said: str) -> None:
    with pytest.raises(TimingsError) as raised:
        parse(text)
    line = str(raised.value)
    assert line.startswith(f"environment variable {ENV}: ") and said in line
    assert "\n" not in line


def test_load_reads_once_and_logs_what_it_overrides(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(timings, "_current", [])
    with caplog.at_level(logging.WARNING, logger="ragd"):
        loaded = timings.load({ENV: "read_timeout_s=1.5"})
    assert loaded.read_timeout_s == 1.5 and timings.current() is loaded
    assert f"testing seam {ENV} overrides timings: read_timeout_s=1.5 s" in caplog.text
    # Read once: a later change of the environment changes nothing in this process.
    assert timings.load({ENV: "read_timeout_s=4"}) is loaded
    # Code reads it at the point of use: a queue made now caps at the value in force.
    assert WorkQueue(debounce_s=0).max_delay_s == DEFAULTS.change_cap_s
    monkeypatch.setattr(timings, "_current", [parse("change_cap_s=0.5")])
    assert WorkQueue(debounce_s=0).max_delay_s == 0.5
    assert WorkQueue(debounce_s=0, max_delay_s=9).max_delay_s == 9


def test_defaults_log_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(timings, "_current", [])
    with caplog.at_level(logging.DEBUG, logger="ragd"):
        assert timings.load({}) == DEFAULTS
    assert ENV not in caplog.text

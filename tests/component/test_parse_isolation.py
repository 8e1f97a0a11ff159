"""The parse workers (issue 10, item 3) and the keys of undecodable names (item 8), without
a daemon: each fault a file can cause in a parser costs that file, with a reason, and the
next file is parsed by a fresh worker."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.core.names import clashes, disk_path, name_key
from ragd.ingest.loaders import SkipFile, parse
from ragd.ingest.parse_pool import ParseLimits, ParsePool
from tests.support.daemon import wait_for
from tests.support.outlined_pdf import outlined_pdf
from tests.support.pdf_bomb import shared_stream_pdf
from tests.support.slow_parse import slow_parse_env

# The time limit of every parse but the one a test means to kill: it only bounds a hang.
# A fresh worker's start (an interpreter, the loaders, the reader's import: 0.24 CPU s)
# counts against it, and took 2.5-2.9 s of wall time on a loaded 2-core machine: under a
# 1 s limit the file after a killed parse was "parsing took longer than 1 s" 10 runs in 10.
GENEROUS = ParseLimits(timeout_s=120, memory_mb=256, max_text_chars=100_000)


class Limits:
    """The limits in force, as a reload changes them: the pool asks at each parse."""

    def __init__(self) -> None:
        self.now = GENEROUS

    def __call__(self) -> ParseLimits:
        return self.now


@pytest.fixture
def limits() -> Limits:
    return Limits()


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch, limits: Limits) -> Iterator[ParsePool]:
    for name, value in slow_parse_env("slow-*", 3600).items():
        monkeypatch.setenv(name, value)  # the workers inherit it
    pool = ParsePool(limits)
    yield pool
    pool.close()


def assert_still_parses(pool: ParsePool) -> None:
    assert pool.parse("ok.md", b"# Fine\n\nstill parsing").text == "# Fine\n\nstill parsing"


def test_a_parse_over_the_time_limit_is_killed(pool: ParsePool, limits: Limits) -> None:
    limits.now = ParseLimits(timeout_s=1)  # a reload: the next parse has the new limit
    with pytest.raises(SkipFile, match=r"^parsing took longer than 1 s \(parse_timeout_s\)$"):
        pool.parse("slow-a.md", b"# Slow\n\ntext")
    limits.now = GENEROUS  # (the next file's limit bounds only a hang: see GENEROUS)
    assert_still_parses(pool)


def test_a_parse_over_the_memory_limit_costs_only_that_file(pool: ParsePool) -> None:
    with pytest.raises(SkipFile, match=r"^out of memory while parsing \(limit 256 MB"):
        pool.parse("big.txt", b"word " * (60 * 1024 * 1024))  # 300 MB > 256 MB
    assert_still_parses(pool)


def test_a_reader_out_of_memory_costs_its_worker_too() -> None:
    """docutils on 3,000 nested block quotes (4.5 MB) runs out of memory; the rst reader
    turns that into a reason. Before, the worker kept its spent heap and the next file
    it took failed: a 5 MB Markdown file "out of memory" (1 GB limit), or the worker
    died under a 1 MB one (256 MB), and that innocent file was held until it changed."""
    pool = ParsePool(lambda: ParseLimits(timeout_s=60, memory_mb=256), workers=1)
    try:
        nested = "Title\n=====\n\n" + "".join(" " * i + "x\n\n" for i in range(3000))
        with pytest.raises(SkipFile, match=r"^reStructuredText too large to read in memory$"):
            pool.parse("nested.rst", nested.encode())
        spent = pool._workers[0].proc
        assert pool.parse("next.md", b"# Next\n\n" + b"word " * 200_000).title == "next"
        assert pool._workers[0].proc is not spent  # a fresh process parsed it
        # The worker's own MemoryError: the next file never meets the exiting process
        # (before: "the parser exited with status 0" when it was the only worker).
        with pytest.raises(SkipFile, match=r"^out of memory while parsing"):
            pool.parse("big.txt", b"word " * (60 * 1024 * 1024))
        assert_still_parses(pool)
    finally:
        pool.close()


def test_a_worker_that_dies_mid_parse_is_a_reason_and_is_replaced(pool: ParsePool) -> None:
    ticket = pool.submit("slow-b.md", b"# Slow\n\ntext")
    wait_for(lambda: ticket.started is not None, 30, "the parse to start")
    victim = next(w.proc for w in pool._workers if w.proc is not None and w.proc.poll() is None)
    os.kill(victim.pid, signal.SIGKILL)
    with pytest.raises(SkipFile, match="killed by SIGKILL"):
        ticket.result()
    assert_still_parses(pool)


def test_a_cancelled_parse_frees_its_worker(pool: ParsePool) -> None:
    tickets = [pool.submit(f"slow-{i}.md", b"text") for i in range(2)]  # both workers busy
    wait_for(lambda: all(t.started for t in tickets), 30, "both parses to start")
    for ticket in tickets:
        ticket.cancel()
    assert_still_parses(pool)


def test_extracted_text_is_capped(pool: ParsePool) -> None:
    with pytest.raises(SkipFile, match=r"too much text \(over the 0\.09537 MB max_text_mb cap\)"):
        pool.parse("long.txt", b"word " * 30_000)


def test_a_small_pdf_that_expands_stops_at_the_cap() -> None:
    import io

    from pypdf import PdfReader

    data = shared_stream_pdf(pages=40, lines=600, token="bombtoken")
    reader = PdfReader(io.BytesIO(data))
    contents = {page.raw_get("/Contents").idnum for page in reader.pages}
    assert len(data) < 32 * 1024 and len(reader.pages) == 40 and len(contents) == 1
    with pytest.raises(SkipFile, match="too much text"):
        parse("bomb.pdf", data, max_text_chars=100_000)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        (b"plain.md", "plain.md"),
        (b"caf\xe9.md", "caf\\xe9.md"),
        (b"back\\slash.md", "back\\slash.md"),  # valid UTF-8: its own key
        (b"back\\slash \xff.md", "back\\\\slash \\xff.md"),  # undecodable: \ doubled
        (b"dir\xfe/inner.md", "dir\\xfe/inner.md"),
    ],
)
def test_names_that_are_not_utf8_get_a_printable_key_and_are_found_again(
    tmp_path: Path, raw: bytes, key: str
) -> None:
    name = os.fsdecode(raw)
    assert name_key(name) == key
    key.encode("utf-8")  # storable
    target = os.path.join(os.fsencode(tmp_path), raw)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w") as handle:
        handle.write("x")
    assert os.fsencode(disk_path(str(tmp_path), key)) == target
    assert not clashes(str(tmp_path), key, name)


def test_a_name_spelling_another_names_escape_is_a_clash(tmp_path: Path) -> None:
    (tmp_path / "caf\\xe9.md").write_text("literal backslash")
    odd = os.fsdecode(b"caf\xe9.md")
    assert clashes(str(tmp_path), name_key(odd), odd)


def test_a_docbook_chapter_reads_the_dtd_beside_it_in_the_worker(
    pool: ParsePool, tmp_path: Path
) -> None:
    """The worker is given the file's folder (and reads only there); an entity bomb costs
    its file one line, and the next file is read by the same pool."""
    (tmp_path / "local.dtd").write_text('<!ENTITY app "GnuCash">\n')
    chapter = (
        b'<!DOCTYPE chapter SYSTEM "local.dtd">\n'
        b"<chapter><title>&app;</title><para>Run &app;.</para></chapter>"
    )
    assert "Run GnuCash." in pool.parse("ch.xml", chapter, str(tmp_path)).text
    levels = '<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, 10)
    )
    bomb = f"<!DOCTYPE chapter [{levels}]><chapter><para>&l9;</para></chapter>".encode()
    with pytest.raises(SkipFile, match="beyond the XML parser's limits"):
        pool.parse("lol.xml", bomb, str(tmp_path))
    assert "Run GnuCash." in pool.parse("ch.xml", chapter, str(tmp_path)).text


def test_a_pdfs_outline_comes_back_from_the_worker(pool: ParsePool) -> None:
    # The outline crosses the worker's pipe as JSON and comes back as tuples, titles too.
    data = outlined_pdf([(["Guide", "1 Start »", "Go."], [("1 Start »", 0)])])
    doc = pool.parse("guide.pdf", data)
    assert doc.outline == [(1, 0, "1 Start »")] == parse("guide.pdf", data).outline

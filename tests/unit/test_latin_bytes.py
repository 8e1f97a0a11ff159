"""A text that is UTF-8 but for a few bytes of an 8-bit Latin encoding reads those bytes
as the letters they are (`ingest/document._not_utf8`): make's NEWS credits `Klaus K\\xe4mpf`,
ed's AUTHORS `Fran\\xe7ois`, and the name had been `K\\ufffdmpf`, found by no one typing
it. Bytes of another script's 8-bit encoding are not made into wrong Latin letters."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType

from ragd.ingest.document import decode_text
from ragd.ingest.loaders import parse
from tests.support.growth import GROWTH_LIMIT, growth_ratio


def test_latin_bytes_in_utf8_text_are_read_as_their_letters() -> None:
    data = "Übersicht ✓\n".encode() + b"This port was done by Klaus K\xe4mpf and Fran\xe7ois.\n"
    text, notes = decode_text(data)
    assert text == "Übersicht ✓\nThis port was done by Klaus Kämpf and François.\n"
    assert notes == ["invalid UTF-8 at byte 44: 2 byte(s) read as Windows-1252"]


def test_a_whole_latin_1_file_is_read_as_latin_text() -> None:
    source = "Le café est servi à huit heures. Ça coûte 2 € pour les étudiants.\n" * 20
    doc = parse("notes.md", source.encode("windows-1252"))
    assert doc.text == source
    assert "\ufffd" not in doc.text


def test_another_scripts_8bit_text_is_replaced_not_misread() -> None:
    greek = "Καλώς ήρθατε στον οδηγό του Vim."
    text, notes = decode_text(greek.encode("iso-8859-7"))
    assert set(text) == set("\ufffd Vim.")  # no Latin letter made up
    assert notes == ["invalid UTF-8 at byte 0: 23 character(s) replaced"]
    # Sparse enough to pass the density check, a Greek word is still a run of high bytes.
    mixed = b"The word " + "λόγος".encode("iso-8859-7") + b" means word." + b" plain" * 20
    text, notes = decode_text(mixed)
    assert text.startswith("The word \ufffd\ufffd\ufffd\ufffd\ufffd means word.")
    assert notes == ["invalid UTF-8 at byte 9: 5 character(s) replaced"]


def test_latin_and_replaced_bytes_are_both_counted() -> None:
    text, notes = decode_text(b"na\xefve \x81 and r\xe9sum\xe9 in a line of plain words")
    assert text == "naïve \ufffd and résumé in a line of plain words"
    assert notes == [
        "invalid UTF-8 at byte 2: 3 byte(s) read as Windows-1252, 1 character(s) replaced"
    ]


def test_reading_stray_bytes_is_linear_in_the_text() -> None:
    def text(lines: int) -> bytes:
        return b"caf\xe9 na\xefve r\xe9sum\xe9 and some plain words around them\n" * lines

    assert growth_ratio(decode_text, text(2_000), text(8_000)) < GROWTH_LIMIT


def test_a_russian_8bit_comment_in_code_makes_no_latin_letters() -> None:
    # Source code commented in Windows-1251 or KOI8-R: sparse enough to pass the density
    # check, and its one- and two-letter words (`и`, `в`, `не`, `то`) are runs of one or
    # two high bytes: they had become `è`, `â`, `íå`, `òî` among the U+FFFD of the rest.
    comment = "# Если файл не найден, то пишем в лог и выходим"
    code = "\n".join(f"value_{n} = compute(value_{n - 1}, limit={n})" for n in range(1, 12))
    for encoding in ("windows-1251", "koi8-r"):
        data = (code + "\n" + comment + "\n" + code + "\n").encode(encoding)
        text, notes = decode_text(data)
        assert set(text[len(code) :].split("\n")[1]) <= set("\ufffd #,")
        assert text.split("\n")[:11] == code.split("\n")
        assert "Windows-1252" not in notes[0]


def test_a_chinese_8bit_word_makes_no_latin_letters() -> None:
    # GBK, a menu file mostly ASCII (vim's menu_chinese_gb.936.vim): a character alone,
    # two bytes (`如(&O)`), had become two Latin letters (`Èç`) where the words of two or
    # more characters, runs of four bytes or more, were replaced.
    words = ("打开", "如", "文件", "帮助", "例", "编辑")
    lines = [f"menutrans &Open{n}<Tab>:e {word}(&O)" for n, word in enumerate(words, 1)]
    data = "\n".join(lines * 8).encode("gbk")
    text, notes = decode_text(data)
    assert not any("\u00a0" <= char <= "\u00ff" for char in text)
    assert "\ufffd" in text and "Windows-1252" not in notes[0]


def _bytecodes(run: Callable[[], object]) -> int:
    """How many Python bytecodes `run()` executes (its own frame's excepted)."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: object) -> Callable[..., object]:
        nonlocal count
        frame.f_trace_opcodes = True
        count += event == "opcode"
        return tracer

    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return count


def test_a_stray_byte_costs_a_table_lookup_not_a_python_loop() -> None:
    # Each stray byte had cost a call of a Python codec error handler, which looked at its
    # neighbours in a Python loop: a 20 MB text with one stray byte in five took 14 s to
    # read (0.3 s replaced), in the parse worker and in `get`'s line reads, where the
    # 5 s deadline then blamed "a stalled network mount". Counted in bytecodes, not time.
    def text(strays: int) -> bytes:
        plain = b"plain words\n" * 1_000  # the same first 8 KiB (`looks_binary`'s sample)
        return plain + b"caf\xe9 na\xefve r\xe9sum\xe9 " * (strays // 4)

    few, many = (
        _bytecodes(lambda: decode_text(text(40))),
        _bytecodes(lambda: decode_text(text(4_000))),
    )
    assert (many - few) / (4_000 - 40) <= 8  # bytecodes a stray byte: 139 before, 6 now

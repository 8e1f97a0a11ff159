"""An option defined by a placeholder, and where the documents write it with a value."""

from __future__ import annotations

from ragd.query.option_use import uses_with_value, valued_options


def test_an_entry_taking_a_value_names_its_options() -> None:
    assert valued_options("-T#, --threads=#: Compress using # working threads.") == (
        "-T",
        "--threads",
    )
    assert valued_options("`--depth=N`, `-d`: How deep to look.") == ("--depth", "-d")
    assert valued_options("--adapt[=min=#,max=#]: adapt the level.") == ("--adapt",)


def test_a_flag_or_a_sentence_defines_nothing_to_fill_in() -> None:
    assert valued_options("-q, --quiet: print nothing.") == ()
    assert valued_options("Use -T0 to detect the number of cores.") == ()
    assert valued_options("The -T# option sets the threads.") == ()


def test_a_use_writes_the_option_with_a_number() -> None:
    options = ("-T", "--threads")
    assert uses_with_value("When using a default amount of threads via -T0, choose …", options)
    assert uses_with_value("Run it with --threads=4 on a laptop.", options)
    assert not uses_with_value("-T#, --threads=#: Compress using # threads.", options)
    # Another option that merely starts with the same letters is no use of it.
    assert not uses_with_value("--threads-max=3 caps them; NO-T0 is a name.", options)

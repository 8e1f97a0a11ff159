"""Perl modules and scripts (formats.perl, formats.pod, formats.pod_inline): the POD read
as documentation under its headings, the code split at `package` and `sub` (newuser42:
Log::Log4perl's `.pm` files were not indexed, and its `FAQ.pm`, let in by `faq.*`, was
one `(untitled)` block quoting `=head2` and `C<…>` as written)."""

from __future__ import annotations

import fnmatch
import re

from ragd.core.config import CODE_PATTERNS
from ragd.ingest.formats import module_name
from ragd.ingest.formats.pod_inline import shown
from ragd.ingest.loaders import parse
from tests.support.code_sections import assert_every_line_kept, sections_of

MODULE = b"""#!/usr/bin/perl
# Tide::Gauge -- reads the harbour tide gauge.
package Tide::Gauge;

use strict;
our $VERSION = '0.3';

=head1 METHODS

=head2 new

Makes a gauge for one B<berth>; see L<Tide::Berth/"Opening hours">.

=cut

# The berth number is checked here.
sub new {
    my ($class, %args) = @_;
    return bless {%args}, $class;
}

sub level { return $_[0]{level} }

1;

__END__

=head1 NAME

Tide::Gauge - water levels at the quay

=head1 SYNOPSIS

    my $gauge = Tide::Gauge->new(berth => 3);

    print $gauge->level;

=head1 OPTIONS

=over 4

=item C<< interval => SECONDS >>

How often the float is read; never below 30E<nbsp>seconds.

=item *

Readings are kept X<history>for a week.

=back

=begin html

<p>hidden markup words</p>

=end html

=for comment internal note words

=for text plain reader words

=head1 AUTHOR

Ann Ferry E<lt>ann@example.orgE<gt>

=cut
"""

MARKUP = {"head1", "head2", "over", "4", "item", "back", "begin", "end", "for", "cut"}
MARKUP |= {"B", "C", "E", "L", "X", "lt", "gt", "nbsp", "html", "comment", "text", "p"}
LEFT_OUT = {"hidden", "markup", "words", "internal", "note", "history"}


def _document_text(name: str, data: bytes) -> str:
    return parse(name, data).text


def test_every_word_of_the_module_is_kept_but_its_markup() -> None:
    text = _document_text("Gauge.pm", MODULE)
    indexed = set(re.findall(r"\w+", text))
    # A formatting code's letter is markup, not the end of the word before it (`30E<nbsp>`).
    source = set(re.findall(r"\w+", re.sub(r"[BCEILXZ]<", " <", MODULE.decode())))
    assert source - indexed <= MARKUP | LEFT_OUT
    assert "hidden" not in text and "internal note" not in text
    assert "plain reader words" in text


def test_code_is_cut_at_its_package_and_subs_and_pod_at_its_headings() -> None:
    sections = sections_of("Gauge.pm", MODULE)
    paths = list(sections)
    assert paths[0] == "package Tide::Gauge"  # with the comments above it
    assert "package Tide::Gauge > METHODS > new" in paths
    new, level = "package Tide::Gauge > sub new", "package Tide::Gauge > sub level"
    assert new in paths and level in paths
    assert "The berth number is checked here." in sections[new] and "bless" in sections[new]
    pod = ["NAME", "SYNOPSIS", "OPTIONS", "AUTHOR"]
    assert paths[-4:] == [f"package Tide::Gauge > {title}" for title in pod]


def test_an_item_heads_the_paragraph_under_it_and_examples_stay_one_block() -> None:
    sections = sections_of("Gauge.pm", MODULE)
    options = sections["package Tide::Gauge > OPTIONS"]
    assert "interval => SECONDS — How often the float is read" in options
    assert "Readings are kept for a week." in options
    synopsis = sections["package Tide::Gauge > SYNOPSIS"]
    assert synopsis.count("```") == 2 and "print $gauge->level;" in synopsis
    assert "Ann Ferry <ann@example.org>" in sections["package Tide::Gauge > AUTHOR"]


def test_formatting_codes_are_the_words_perldoc_shows() -> None:
    assert shown("B<I<bold italic>> and C<< $a->b >>") == "bold italic and $a->b"
    assert shown('see L<Tide::Berth/"Opening hours">') == 'see "Opening hours" in Tide::Berth'
    assert shown("L<the docs|https://example.org/x>") == "the docs <https://example.org/x>"
    assert shown("L<Tide::Berth>, L</Tides>") == 'Tide::Berth, "Tides"'
    assert shown("E<gt>E<lt>E<verbar>E<0x41>E<101>E<eacute>E<nosuch>") == "><|AeéE<nosuch>"
    assert shown("X<index>Z<>kept") == "kept"
    assert shown("C<never closed and B<bold>") == "C<never closed and bold"
    assert shown("a > b, 2 >> 1, Foo<bar>") == "a > b, 2 >> 1, Foo<bar>"


def test_a_script_with_no_pod_is_code_at_its_own_lines() -> None:
    script = (
        b"#!/usr/bin/perl\nuse strict;\n\n# Reads one line.\n"
        b"sub read_one {\n  return <STDIN>;\n}\n\nprint read_one();\n"
    )
    assert_every_line_kept("tide.pl", script)
    assert "sub read_one" in sections_of("tide.pl", script)


def test_after_end_no_line_is_a_definition() -> None:
    data = b"package A;\nsub a { 1 }\n__DATA__\nsub not_code here\n"
    assert "sub not_code" not in sections_of("a.pm", data)


def test_perl_files_are_indexed_and_read_as_perl_even_when_named_like_a_faq() -> None:
    for name in ("FAQ.pm", "script.pl", "perlintro.pod"):
        assert any(fnmatch.fnmatchcase(name.lower(), p) for p in CODE_PATTERNS), name
        assert module_name(name) == "perl"
    text = _document_text("FAQ.pm", b"1;\n__END__\n\n=head2 Why?\n\nBecause C<it> is.\n")
    assert "# Why?" in text and "Because it is." in text and "=head2" not in text

"""A documented object at a C or C++ header's top is part of its API, as a documented
prototype is: a header-only library's ready-made values (CLI11 2.1.2's validators,
`CLI::ExistingFile`, `CLI::NonNegativeNumber`; held out as nu62a) had been read into the
class above them, or headed as functions (newuser62)."""

from __future__ import annotations

from tests.support.code_sections import assert_every_line_kept
from tests.support.code_sections import sections_of as _sections

# Written here in the shape of a header-only library's validators.
HEADER = b"""#pragma once
#include <string>

namespace harbour {
namespace detail {

/// Checks that a berth exists
class BerthValidator : public Validator {
  public:
    BerthValidator() : Validator("BERTH") {}
};

}  // namespace detail

/// Check that the berth named exists (returns an error message if not)
const detail::BerthValidator ExistingBerth;

/// Check for a tide height in metres, 0 to 12 inclusive
const Range TideHeight(0.0, 12.0, "TIDE");

/// Check for a positive number of hours
const Range PositiveHours((std::numeric_limits<double>::min)(), 24.0);

/// How many berths a harbour may have
constexpr int kMaxBerths = 64;

/// Parses a berth's name
Berth parse_berth(const std::string &name);

class Quay;
typedef int berth_id;
int a, b;

}  // namespace harbour
"""

HEADINGS = [
    "(untitled)",
    "class BerthValidator",
    "class BerthValidator > BerthValidator()",
    "ExistingBerth",
    "TideHeight",
    "PositiveHours",
    "kMaxBerths",
    "parse_berth()",
]


def test_a_documented_object_is_headed_by_its_name_not_as_the_class_above() -> None:
    sections = _sections("harbour.hpp", HEADER)
    assert list(sections) == HEADINGS
    assert "const detail::BerthValidator ExistingBerth;" in sections["ExistingBerth"]
    assert "ExistingBerth" not in sections["class BerthValidator > BerthValidator()"]
    # built with arguments, not a function: its name alone, with its comment
    assert "tide height in metres" in sections["TideHeight"]
    assert "numeric_limits" in sections["PositiveHours"]
    # a forward declaration, a typedef and two names declared at once head nothing
    assert "class Quay;" in sections["parse_berth()"]
    assert "int a, b;" in sections["parse_berth()"]
    assert_every_line_kept("harbour.hpp", HEADER)


def test_an_object_under_no_doc_comment_heads_nothing() -> None:
    # none above it, a plain comment (a remark, or code commented out), or one ending
    # a line of code
    source = (
        b"class Tide {\n  int height;\n};\n\nconst Tide Spring(12.0);\nint berths = 3;\n"
        b"/* int old_berths; */\nint moorings = 2;\n// moorings\nint buoys = 4;\n"
        b"int quays; /** quays */\nint ferries;\n"
    )
    assert list(_sections("tide.h", source)) == ["class Tide"]


def test_a_banner_of_stars_is_no_doc_comment_its_title_heads_the_group() -> None:
    # `/*****` and `////` boxes are no doc comment (Doxygen's are `/**` and `///` only): a
    # box titling a group of exported names had been read as the first name's doc comment,
    # and the title lost: xmlsec 1.2.37's strings.h, 31 titles, "AES strings" headed
    # `xmlSecNameAESKeyValue` (review64).
    source = (
        b"#include <xmlsec/exports.h>\n\n"
        b"/*************************************************************************\n"
        b" *\n * Global Namespaces\n *\n"
        b" ************************************************************************/\n"
        b"XMLSEC_EXPORT_VAR const xmlChar xmlSecNs[];\n"
        b"XMLSEC_EXPORT_VAR const xmlChar xmlSecDSigNs[];\n\n"
        b"////////////////////////////////////////////////////////////////////////\n"
        b"// AES strings\n"
        b"////////////////////////////////////////////////////////////////////////\n"
        b"XMLSEC_EXPORT_VAR const xmlChar xmlSecNameAESKeyValue[];\n"
        b"XMLSEC_EXPORT_VAR const xmlChar xmlSecNameAES128Cbc[];\n\n"
        b"/** The empty string. */\n"
        b"XMLSEC_EXPORT_VAR const xmlChar xmlSecStringEmpty[];\n"
    )
    headings = list(_sections("strings.h", source))
    assert "xmlSecNs" not in headings and "xmlSecNameAESKeyValue" not in headings
    assert "Global Namespaces" in headings and headings[-1] == "xmlSecStringEmpty"


def test_a_documented_table_with_a_brace_initializer_heads_its_section() -> None:
    # `static const int depths[1000] = {` opens a brace as a body does: it had been read
    # as no statement at all, its doc comment and its 1,000 entries in the section of the
    # prototype above, and the next documented object's comment went on with it (review64).
    entries = "".join(f"  {n},\n" for n in range(1_000))
    source = (
        "/** Parse a quay's name. */\nint parse_quay(const char *name);\n\n"
        "/// Depth of each berth, in centimetres.\n"
        f"static const int depths[1000] = {{\n{entries}}};\n\n"
        '/** Quays by name. */\nconst struct quay quays[] = {\n  { "north", 1 },\n};\n\n'
        "int undocumented[] = {\n  1,\n};\n"
    ).encode()
    sections = _sections("depths.h", source)
    assert list(sections) == ["parse_quay()", "depths", "quays"]
    assert "Depth of each berth" in sections["depths"] and "999," in sections["depths"]
    assert "int undocumented[]" in sections["quays"]
    assert_every_line_kept("depths.h", source)

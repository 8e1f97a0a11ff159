"""Java, C#, C and C++: their types and functions, and a type's members, as headings.

A statement at a file's top (namespaces and `extern "C"` blocks see through) or in a
type's body (`formats.c_family_lexer` hands them over, strings and comments taken out) is
a definition when its code reads as one:

- a type: `class`, `interface`, `enum`, `record`, `@interface`, `struct`, `union` and a
  name, then its `{` (a forward declaration `class Foo;` is none), past modifiers,
  annotations (`@Deprecated`), attributes (`[Serializable]`, `[[nodiscard]]`) and
  `template <…>`; headed `class TypeManager`, `struct buffer_info`. C's `typedef struct {
  … } name_t;` is headed by the name after its `}`.
- a function: a name and its parameters, the first such pair that is followed by the end
  of the statement or by what may follow a parameter list (`const`, `noexcept`,
  `override`, `throws`, `where`, `->`, `=>`, a constructor's `:` initializers), then its
  `{`; headed by its name, `parse_args()`, `Foo::bar()`, `operator==()`. A C prototype
  (`int parse(char *);`), a call (`if (x) {`, `MACRO(a) int f() {` is `f`'s), an
  initializer (`static PyMethodDef methods[] = {`) and a macro's name are none, but a C or
  C++ prototype at the top with a comment right above it is headed by its name: in a
  header it is the API, its comment the documentation (lz4.h's `LZ4_compress_default()`;
  they had been `(untitled)`, or the struct or union above them). In a Java
  or C# type, a method ended by `;` is a member too (an interface's or an abstract
  method, C#'s `extern` one, an expression-bodied `=> x;`); in a C++ class, a prototype
  is not (its definition is, where it is written).

A type at the top holds members, one level below it (`class TypeManager > findClass()`,
a constructor `class Foo > Foo()`, a nested type `class Outer > class Inner`, whose own
members stay in it). A function with no return type in a type is its constructor only
(its name is the type's): a Java enum constant's body `RED("r") {` is none. In a C# type,
a property, an indexer or an event with accessor bodies is a member too (`class Berth >
property Weeks`, `this[]`, `event Docked`): an auto-property `{ get; set; }` had been read
into the method above it. One on a single line starts a section only after a method (a
run of them stays one section under the first: `_breaks_away`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ragd.ingest.formats.c_family_lexer import (
    C_LANGUAGES,
    NAMESPACE,
    TYPE,
    Statement,
    line_of,
    statements,
)

FUNCTION = "function"
TYPE_KINDS = frozenset(("class", "struct", "interface", "enum", "record", "union"))
MODIFIERS = frozenset(
    (
        "public private protected internal static final abstract synchronized native "
        "strictfp default sealed transient volatile extern unsafe override virtual new "
        "async partial readonly explicit implicit inline constexpr consteval constinit "
        "friend typedef export mutable register thread_local __inline __forceinline "
        "ref file required"
    ).split()
)
# A word before parentheses that makes them no parameter list.
NOT_NAMES = frozenset(
    (
        "if for while switch catch return sizeof alignof new delete throw using lock fixed "
        "foreach synchronized typeof nameof default checked unchecked do try else case "
        "when assert static_assert _Static_assert decltype defined typeid __attribute__ "
        "__declspec alignas _Alignas noexcept super this base void"
    ).split()
)
# What may stand right after a parameter list's `)` in a definition or declaration.
AFTER_PARAMETERS = frozenset(
    (
        "const noexcept override final volatile throws throw where -> : => & && mutable "
        "requires __attribute__ try default"
    ).split()
)
# Words in front of a name that make the statement no definition: a call, an expression.
NOT_PREFIX = frozenset(("return", "new", "throw", "else", "case", "goto", ".", "->", ",", "="))
ATTRIBUTE_CALLS = frozenset(("__attribute__", "__declspec", "alignas", "_Alignas"))
# What follows a type's name: its `{`, a base (`:`, `extends`), its parameters (`<`, a
# record's `(`).
AFTER_TYPE_NAME = frozenset(("<", ":", "extends", "implements", "permits", "final", "where"))

TYPE_PUNCTUATION = frozenset("<>,?[].")  # in a C# member's type: `List<int?>[]`, `IFoo.`

_WORD = re.compile(
    r"operator\b\s*(?:\(\s*\)|\[\s*\]|[^\w\s(]{1,3}|\w+)|[A-Za-z_$][\w$]*|::|->|=>|&&|\S"
)
_IDENTIFIER = re.compile(r"[A-Za-z_$]")
_TAIL_NAME = re.compile(r"\}[ \t]*(?:\*[ \t]*)?([A-Za-z_]\w*)")  # `} name_t;`


@dataclass(frozen=True)
class Definition:
    line: int  # 0-based line of its first code (its doc comment is found above it)
    heading: str
    member: bool  # one level below the type above it
    end_line: int | None  # a type's closing brace line
    accessors: bool = False  # a C# property, indexer or event


@dataclass(frozen=True)
class _Found:
    heading: str
    name: str  # a type's name (a member with no return type must bear it)
    anonymous: bool = False  # `typedef struct {`: named after its `}`
    first_word: int = 0  # of the statement's words: where the definition starts
    lines_in: int = 0  # lines from the statement's start to that word
    accessors: bool = False  # a C# property, indexer or event (`_accessors`)
    prototype: bool = False  # a C or C++ declaration at the top: a heading if documented
    doc_comment: bool = False  # ... by a doc comment only (`///`, `/**`): an object


PROSE_SHARE = 0.3  # of a `.cs` file's lines ending like code, under which it is prose
PROSE_LINES = 10  # ... counted over at least this many lines
_CODE_ENDINGS = frozenset(";{}),:]=")


def written_as_prose(text: str) -> bool:
    """Is this `.cs` file Czech text (its language code: vim's `tutor.cs`, groff's
    `hyphen.cs`), not C#? Nearly every line of C# that is no comment or directive ends a
    statement, opens or closes a block or continues a list (`;`, `{`, `}`, `)`, `,` …):
    two thirds or more in each of pythonnet's 150 files; 13 % of the vim tutor's lines do,
    0.2 % of groff's hyphenation patterns."""
    counted = code = 0
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("//", "/*", "*", "#")):
            continue
        counted += 1
        code += stripped[-1] in _CODE_ENDINGS or stripped[0] in "[{}"
    return counted >= PROSE_LINES and code < PROSE_SHARE * counted


def outline(lines: list[str], language: str, comments: list[int] | None = None) -> list[Definition]:
    """The definitions of the file whose lines are `lines`, in order. `comments`, if
    given, is extended by the 0-based lines where a comment between statements at the
    top (or in a namespace) opens, in order: where a banner may be (formats.c_banners)."""
    text = "\n".join(lines)
    starts, position = [], 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1

    def classify(code: str, terminator: str, owner: Statement | None) -> tuple[str, object] | None:
        owner_name = (
            owner.found.name if owner is not None and isinstance(owner.found, _Found) else None
        )
        return _classify(code, terminator, language, owner, owner_name)

    definitions: list[Definition] = []
    floor = 0  # the line after the last definition read: no comment above one reaches it
    opened: list[int] = []  # where the lexer found comments between statements at the top
    for statement in statements(text, language, classify, opened):
        found = statement.found
        if not isinstance(found, _Found):
            continue
        heading = found.heading
        end_line = None if statement.close is None else line_of(starts, statement.close)
        if found.anonymous:
            tail = _TAIL_NAME.match(text, statement.close) if statement.close is not None else None
            if tail is None:
                continue
            heading = f"{heading} {tail.group(1)}"
        first = line_of(starts, statement.start) + found.lines_in
        if found.prototype:
            # documented above the lines of code it opens with, if any (`LZ4_DEPRECATED(…)`
            # on the line before `LZ4LIB_API int LZ4_decompress_fast(…);`), which go with it
            lead = _leading_code(lines, first, max(floor, line_of(starts, statement.start)))
            documented = _documented(lines, lead, floor) and (
                not found.doc_comment or _doc_marked(lines, lead, floor)
            )
            floor = max(floor, first + 1)
            if not documented:
                continue  # a forward declaration, or one of a run under one comment
            first = lead
        floor = max(floor, first + 1)
        if found.accessors and _one_line(lines[first]) and not _breaks_away(definitions):
            continue  # `int Size { get; set; }` stays with the type or property above it
        definitions.append(Definition(first, heading, statement.member, end_line, found.accessors))
    if comments is not None:
        comments.extend(line_of(starts, position) for position in opened)
    return definitions


def _documented(lines: list[str], first: int, floor: int) -> bool:
    """Whether a comment that says something ends right above line `first` (0-based): the
    declaration's documentation (`/*! LZ4_compress_default() : … */`, `/// …`). A
    declaration's own trailing comment (`int f(void); /**< … */`) documents it, not the
    one below it, and a number alone (Tcl's `/* 449 */` above each of its 633 stubs) is
    no documentation. The comment is looked for from `first` up to `floor` only (the
    definition before): each line is looked at once, however the comments are shaped."""
    number = first - 1
    above = lines[number].strip() if number >= floor else ""
    if above.startswith("//"):
        while number >= floor and lines[number].lstrip().startswith("//"):
            if _says_something(lines[number]):
                return True
            number -= 1
        return False
    said = False
    while above.endswith("*/") and number >= floor:
        line = lines[number].strip()
        said = said or _says_something(line)
        if "/*" in line:
            return said and line.startswith("/*")  # else code with a comment after it
        number -= 1
    return False


def _doc_marked(lines: list[str], first: int, floor: int) -> bool:
    """Whether the comment right above line `first` (0-based) is a doc comment, `///` or
    `//!`, `/**` or `/*!`: a plain one above an object is as often a remark on the code
    around it, or code commented out. Looked for up to `floor` only, as `_documented`."""
    number = first - 1
    if number < floor:
        return False
    if lines[number].strip().startswith("//"):
        return _DOC_LINE.match(lines[number].strip()) is not None
    while number >= floor:
        line = lines[number].strip()
        if "/*" in line:
            return _DOC_BLOCK.match(line) is not None
        number -= 1
    return False


# A doc comment's opening, as Doxygen reads one: `///` or `//!`, `/**` or `/*!`, and not a
# banner, `////…` or `/*****…` (nor `/**/`): a box of stars titling a group of names is
# a plain comment. xmlsec 1.2.37's strings.h titles 31 groups so ("AES strings"), and
# each title had been lost to the group's first name (`xmlSecNameAESKeyValue`) (review64).
_DOC_LINE = re.compile(r"//(?:/(?!/)|!)")
_DOC_BLOCK = re.compile(r"/\*(?:\*(?![*/])|!)")


def _leading_code(lines: list[str], first: int, top: int) -> int:
    """Line `first` (0-based), moved up over the lines of code right above it, never above
    `top` (where its statement starts): a blank line, a comment or a directive ends them,
    so macro calls a blank line away (OpenSSL's `DECLARE_ASN1_FUNCTIONS(…)` runs, a
    statement with the prototype after them) are not its own."""
    while first > top and (above := lines[first - 1].strip()):
        if above.startswith(("/*", "*", "//", "#")):
            break
        first -= 1
    return first


def _says_something(line: str) -> bool:
    return any(char.isalpha() for char in line)


def _one_line(line: str) -> bool:
    """Whether a member's braces open and close on its line (`{ get; set; }`)."""
    return "{" in line and line.count("{") == line.count("}")


def _breaks_away(definitions: list[Definition]) -> bool:
    """Whether a one-line C# property starts a section of its own: only after a member
    that is no property (it would be cited as that method otherwise). A class of 100
    `{ get; set; }` lines (pythonnet's TypeOffset) stays a few sections, not 100 of
    one line each."""
    return bool(definitions) and definitions[-1].member and not definitions[-1].accessors


def _classify(
    code: str, terminator: str, language: str, owner: Statement | None, owner_name: str | None
) -> tuple[str, object] | None:
    matches = list(_WORD.finditer(code))
    words = [m.group() for m in matches]
    if not words:
        return None
    role, found = TYPE, None
    if terminator == "{":
        if _is_namespace(words):
            return NAMESPACE, None
        found = _type(words, language)
        if found is None and owner is None and language in C_LANGUAGES and words[-1] == "=":
            # a table's brace initializer, no body: `static const int depths[1000] = {`
            # had been no statement, its doc comment and entries read into the section
            # above (review64); a heading only if documented (`outline`)
            found = _object(words)
            return None if found is None else _located(FUNCTION, found, matches, code)
    elif owner is None and language in C_LANGUAGES:
        found = _prototype(words, language)  # a heading only if documented (`outline`)
        return None if found is None else _located(FUNCTION, found, matches, code)
    elif owner is None or language in C_LANGUAGES:
        return None  # a field, a forward declaration, a C++ class's prototype
    if found is None:
        role, found = FUNCTION, _function(words, language, owner_name, at_top=owner is None)
    if found is None and terminator == "{" and owner is not None and language == "csharp":
        found = _accessors(words)  # its `get`/`set` bodies read as a function's
    if found is None:
        return None
    return _located(role, found, matches, code)


def _located(
    role: str, found: _Found, matches: list[re.Match[str]], code: str
) -> tuple[str, object]:
    """`found` with the lines from its statement's start to its first word."""
    begin = matches[found.first_word].start() if found.first_word < len(matches) else 0
    return role, replace(found, lines_in=code.count("\n", 0, begin))


def _prototype(words: list[str], language: str) -> _Found | None:
    """A function a C or C++ statement at the top declares (`LZ4LIB_API int
    LZ4_compress_default(const char* src, …);`), or None: a statement that is one call
    (a macro's, `STATIC_ASSERT(sizeof(long) >= 4);`, `module_init(f);`), a name in
    capitals (a macro's) or a typedef
    (`typedef STACK_OF(X509_EXTENSION) X509_EXTENSIONS;`) declares none."""
    found = _function(words, language, None, at_top=True)
    if found is None:
        return _object(words)
    if found.name in NOT_NAMES:
        return None
    if _is_macro(found.name):
        # a macro's call, not a function: valgrind's `extern Int VG_(clo_verbosity);`
        # and the `PRINTF_CHECK(1, 2)` ending `VG_(printf) (…)` had headed sections
        return None
    start = _past_prefix(words, found.first_word)  # past the macro calls before it
    if words[start] == found.name or "typedef" in words[found.first_word : start]:
        return None
    if words[start + 1 : start + 2] == ["("] and _group_end(words, start + 1) == len(words):
        return None
    if _constructed(words, found):
        # an object built with arguments, no function: CLI11's `const Range
        # NonNegativeNumber((std::numeric_limits<double>::max)(), "NONNEGATIVE");` had
        # been headed `NonNegativeNumber()`
        return replace(found, heading=found.heading.removesuffix("()"), prototype=True)
    return replace(found, prototype=True)


# Words a declaration at the top opens with that make it declare no object.
NOT_OBJECTS = frozenset(
    ("typedef", "using", "namespace", "template", "friend", "static_assert", "return", "goto")
)
# What may stand in an object's type and name: `const std::map<std::string, int> *name`.
_DECLARATOR_PUNCTUATION = frozenset(("::", "<", ">", ",", "*", "&", "&&"))


def _object(words: list[str]) -> _Found | None:
    """An object a C or C++ statement at the top declares with no parentheses before its
    initializer (`const detail::ExistingFileValidator ExistingFile;`, `extern int
    verbosity;`, `constexpr int kMaxBerths = 64;`), headed by its name when a doc comment
    is right above it (`outline`): CLI11's `CLI::ExistingFile`, under `/// Check for
    existing file`, had been read into the `class IPV4Validator` above it. None for a
    forward declaration (`class Foo;`), several names (`int a, b;`), a macro's name, a
    typedef or a template."""
    start = _past_prefix(words, 0)
    end = len(words) - (words[-1:] == [";"])
    for index in range(start, end):
        if words[index] in ("=", "{", "["):
            end = index
            break
    if NOT_OBJECTS & set(words[:end]):
        return None  # `typedef` and `template <…>` are skipped as modifiers are
    while start < end and _is_macro(words[start]):
        start += 1  # `__BEGIN_DECLS`, `XMLPUBVAR`
    declared = words[start:end]
    if len(declared) < 2:
        return None
    if declared[0] in TYPE_KINDS and len([w for w in declared if not _is_macro(w)]) == 2:
        return None  # `class Foo;`, `class EXPORT_MACRO Foo;`
    depth = 0
    for word in declared:
        if word == "<":
            depth += 1
        elif word == ">":
            depth -= 1
        elif (word == "," and depth == 0) or not (
            _IDENTIFIER.match(word) or word in _DECLARATOR_PUNCTUATION
        ):
            return None
    name = declared[-1]
    if not _IDENTIFIER.match(name) or name in NOT_NAMES or _is_macro(name) or depth != 0:
        return None
    return _Found(name, name, False, start, prototype=True, doc_comment=True)


def _constructed(words: list[str], found: _Found) -> bool:
    """Whether what follows the name `found` names is an object's arguments, not a
    parameter list: it opens with a literal (a string, a character, a number) or a
    parenthesis, which no parameter does."""
    for index in range(found.first_word, len(words) - 1):
        if words[index] == found.name and words[index + 1] == "(":
            argument = words[index + 2 : index + 3]
            return bool(argument) and (argument[0] in ('"', "'", "(") or argument[0][:1].isdigit())
    return False


def _is_namespace(words: list[str]) -> bool:
    """`namespace a::b {`, `inline namespace v1 {`, `namespace {`, `extern "C" {`."""
    first = 1 if words[0] in ("inline", "export") else 0
    if words[first : first + 1] == ["namespace"]:
        return True
    return words[0] == "extern" and words[1:] == ['"', '"']


def _type(words: list[str], language: str) -> _Found | None:
    begin = _past_macros(words, _past_labels(words))
    start = _past_prefix(words, begin)
    index = start
    if words[index : index + 2] == ["@", "interface"]:
        kind, index = "@interface", index + 2
    elif index < len(words) and words[index] in TYPE_KINDS:
        kind, index = words[index], index + 1
        if (
            kind in ("enum", "record")
            and index < len(words)
            and words[index] in ("class", "struct")
        ):
            index += 1
    else:
        return None
    index = _past_decorations(words, index)
    if index >= len(words) or words[index] in (":", "final"):
        return _Found(kind, "", True, begin) if "typedef" in words[:start] else None
    name = words[index]
    if not _IDENTIFIER.match(name):
        return None
    while words[index + 1 : index + 2] == ["::"] and index + 2 < len(words):
        index += 2
        name = words[index]
    after = words[index + 1] if index + 1 < len(words) else None
    if (
        after is None
        or after in AFTER_TYPE_NAME
        or (after == "(" and language in ("java", "csharp"))
    ):
        return _Found(f"{kind} {name}", name, False, begin)
    return None


def _past_macros(words: list[str], index: int) -> int:
    """Past macro calls in capitals that end no statement (no `;` after them), before
    what the statement defines: `PYBIND11_NAMESPACE_BEGIN(detail)`, a run of
    `PYBIND11_RUNTIME_EXCEPTION(key_error, PyExc_KeyError)` lines."""
    while (
        index + 1 < len(words)
        and _is_macro(words[index])
        and words[index + 1] == "("
        and (after := _group_end(words, index + 1)) < len(words)
    ):
        index = after
    return index


def _past_labels(words: list[str]) -> int:
    """Past C++'s access labels opening a statement (`public:`): the definition's section
    starts after them, so the comment between a label and what it documents stays with it."""
    index = 0
    while words[index : index + 1] in (["public"], ["private"], ["protected"]) and words[
        index + 1 : index + 2
    ] == [":"]:
        index += 2
    return index


def _is_macro(word: str) -> bool:
    return word.isupper() and _IDENTIFIER.match(word) is not None


def _past_prefix(words: list[str], index: int) -> int:
    """Past modifiers, annotations, attributes, `template <…>` and access labels."""
    while index < len(words):
        word = words[index]
        if word == "@" and words[index + 1 : index + 2] != ["interface"]:
            index += 2
            while words[index : index + 1] == ["."] and index + 1 < len(words):
                index += 2  # @java.lang.Deprecated
            if words[index : index + 1] == ["("]:
                index = _group_end(words, index)
        elif word == "[":
            index = _group_end(words, index)
        elif (word == "template" and words[index + 1 : index + 2] == ["<"]) or (
            word in ATTRIBUTE_CALLS and words[index + 1 : index + 2] == ["("]
        ):
            index = _group_end(words, index + 1)
        elif word in ("public", "private", "protected") and words[index + 1 : index + 2] == [":"]:
            index += 2  # C++'s access label, which the next member's statement takes in
        elif word in MODIFIERS:
            index += 1
        else:
            return index
    return index


def _past_decorations(words: list[str], index: int) -> int:
    """Past what may stand between a type's keyword and its name: `[[deprecated]]`,
    `alignas(16)`, an export macro in capitals (`class PYBIND11_EXPORT error {`)."""
    while index < len(words):
        word = words[index]
        if word == "[":
            index = _group_end(words, index)
        elif word in ATTRIBUTE_CALLS and words[index + 1 : index + 2] == ["("]:
            index = _group_end(words, index + 1)
        elif (
            _is_macro(word)
            and index + 1 < len(words)
            and _IDENTIFIER.match(words[index + 1])
            and words[index + 1] not in AFTER_TYPE_NAME
        ):
            index += 1
        else:
            return index
    return index


def _group_end(words: list[str], index: int) -> int:
    """Past the group `words[index]` opens (`(`, `[` or `<`), nested ones counted."""
    opening = words[index]
    closing = {"(": ")", "[": "]", "<": ">"}[opening]
    depth = 0
    for position in range(index, len(words)):
        if words[position] == opening:
            depth += 1
        elif words[position] == closing:
            depth -= 1
            if depth == 0:
                return position + 1
    return len(words)


def _function(
    words: list[str], language: str, owner_name: str | None, at_top: bool
) -> _Found | None:
    """The function the statement `words` defines or declares, or None."""
    start = _past_prefix(words, 0)
    index, angles, begin = start, 0, _past_labels(words)
    while index < len(words):
        word = words[index]
        if angles == 0 and word in NOT_PREFIX:
            return None
        if word == "<":
            angles += 1
        elif word == ">":
            angles = max(0, angles - 1)
        elif word == "[":
            index = _group_end(words, index)
            continue
        elif word == "(":
            after = _group_end(words, index)
            name_at = _name_before(words, index, start)
            if angles == 0 and name_at is not None and _ends_signature(words, after):
                return _named(words, name_at, index, begin, language, owner_name, at_top)
            if angles == 0 and index and _is_macro(words[index - 1]) and after < len(words):
                begin = after  # `MACRO(x)` ending no statement
            index = after
            continue
        index += 1
    return None


def _name_before(words: list[str], paren: int, floor: int) -> int | None:
    """Where the name right before the `(` at `paren` starts (`Foo::bar`, `~Foo`,
    `IFoo.Dispose`), or None when no name stands there."""
    last = paren - 1
    if last < floor or not _IDENTIFIER.match(words[last]) or words[last] in NOT_NAMES:
        return None
    if words[last - 1 : last] == ["@"]:
        return None  # an annotation's arguments
    first = last
    while (
        first - 2 >= floor
        and words[first - 1] in ("::", ".")
        and _IDENTIFIER.match(words[first - 2])
    ):
        first -= 2
    if first - 1 >= floor and words[first - 1] == "~":
        first -= 1
    return first


# Attribute macros a declaration may end with, at most: glibc's `realloc (…) __THROW
# __attribute_warn_unused_result__ __attribute_alloc_size__ ((2))`, four with
# `reallocarray`'s `__attr_dealloc_free`. Bounded, so each `(` is judged in bounded work.
TRAILING_MACROS_MAX = 6


def _ends_signature(words: list[str], after: int) -> bool:
    """Whether the parameter list ending before `after` ends the signature: nothing, a
    qualifier, or macros to the statement's end, each with or without its arguments
    (`swap(…) _GLIBCXX_NOEXCEPT_IF(…)`, glibc's `memcpy (…) __THROW __nonnull ((1, 2))`:
    one macro alone was taken, so a prototype at the top was headed `__nonnull()`)."""
    if after >= len(words) or words[after] in AFTER_PARAMETERS:
        return True
    for _ in range(TRAILING_MACROS_MAX):
        if not _is_attribute_macro(words[after]):
            return False
        after += 1
        if words[after : after + 1] == ["("]:
            after = _group_end(words, after)
        if after >= len(words):
            return True
    return False


def _is_attribute_macro(word: str) -> bool:
    """A macro's name (`PRINTF_CHECK`, `__THROW`) or a name reserved to the compiler and
    its library (`__nonnull`, `__wur`, `__attr_access`): no function's name in a header."""
    return _is_macro(word) or (word.startswith("__") and _IDENTIFIER.match(word) is not None)


def _accessors(words: list[str]) -> _Found | None:
    """C#'s property, indexer or event with accessors, the statement before its `{`:
    `public int Weeks`, `public Berth this[int index]`, `public event EventHandler Docked`
    (headed `property Weeks`, `this[]`, `event Docked`; an explicit `int IFoo.Weeks` by its
    own name). A field's initializer (`= new Foo {`) or anything with parentheses (a call,
    a tuple type) is none."""
    start = _past_prefix(words, 0)
    rest = words[start:]
    if len(rest) < 2 or any(word in ("=", "(", ")", ";", "=>") for word in rest):
        return None
    if rest[-1] == "]":  # an indexer: `Type this[…]`
        at = rest.index("[") if "[" in rest else 0
        if at >= 2 and rest[at - 1] == "this" and _group_end(rest, at) == len(rest):
            return _Found("this[]", "this", False, start + at - 1, accessors=True)
        return None
    name = rest[-1]
    kind = "event" if rest[0] == "event" else "property"
    shape = rest[1:-1] if kind == "event" else rest[:-1]
    if not _IDENTIFIER.match(name) or not shape or name in NOT_NAMES:
        return None
    if not all(_IDENTIFIER.match(word) or word in TYPE_PUNCTUATION for word in shape):
        return None
    if shape[-1] == ".":
        shape = shape[:-2]  # an explicit interface's name before the member's
    if not shape or not _IDENTIFIER.match(shape[0]) or shape[0] in NOT_PREFIX:
        return None
    return _Found(f"{kind} {name}", name, False, start, accessors=True)


def _named(
    words: list[str],
    first: int,
    paren: int,
    start: int,
    language: str,
    owner_name: str | None,
    at_top: bool,
) -> _Found | None:
    wrapped = words[paren + 2 : paren + 3] == ["("] and _IDENTIFIER.match(words[paren + 1])
    if wrapped and (words[first].startswith("__") or _is_macro(words[first])):
        first, paren = paren + 1, paren + 2  # glibc's `__NTH (name (params))`
    name = "".join(" ".join(word.split()) for word in words[first:paren])
    bare = name.rsplit("::", 1)[-1].rsplit(".", 1)[-1].lstrip("~")
    returned = words[_past_prefix(words, start) : first]  # past annotations, modifiers
    returns = any(_IDENTIFIER.match(word) and word not in MODIFIERS for word in returned)
    if at_top and language in ("java", "csharp"):
        return None  # no functions outside a type (C#'s top-level statements are code)
    if not returns and owner_name is not None and bare != owner_name:
        return None  # no return type: a constructor, else a call or an enum constant
    if "." in name and language != "csharp":
        return None
    if "delegate" in words[start:first]:
        return _Found(f"delegate {name}", bare, False, start)
    return _Found(f"{name}()", bare, False, start)

"""Java, C#, C and C++ are cut at their types and functions, a type again at its members.

Each file had been one `(untitled)` section (chunker version 71): JPype's 1,000-line
`TypeManager.java`, cffi's 7,000-line `_cffi_backend.c` were cited by line numbers only.
Now a type is headed `class TypeManager`, its methods `class TypeManager > findClass()`,
a C function `b_typeoffsetof()`, with the doc comment above each kept with it; a
prototype, a call, an initializer, a string, a comment or a macro heads nothing
(formats/c_family.py, c_family_lexer.py)."""

from __future__ import annotations

import pytest

from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse
from tests.support.code_sections import assert_every_line_kept
from tests.support.code_sections import sections_of as _sections

MANAGER_JAVA = b"""package org.harbour;

import java.util.List;

/**
 * Keeps the berths of one harbour.
 */
@SuppressWarnings("unchecked")
public class BerthManager extends Base implements Closeable
{
  private final List<Berth> berths = new ArrayList<>();
  private static final String HELP = "class Decoy { void lure() {} }";

  public BerthManager(int size)
  {
    super(size);
  }

  /**
   * Finds a free berth for a vessel.
   *
   * @param length the vessel's length
   */
  @Override
  public synchronized <T extends Vessel> Berth findBerth(T vessel, int length)
      throws HarbourException
  {
    Runnable r = new Runnable() {
      public void run() { tidy(); }
    };
    if (length > 0) {
      return berths.get(0);
    }
    return null;
  }

  // void retired() { }

  public enum Tide {
    HIGH("h") { String mark() { return "H"; } },
    LOW("l");
    Tide(String code) {}
  }
}

interface Dock {
  /** How deep the dock is. */
  int depth(int tide);
}
"""

RUNTIME_CS = b"""using System;

namespace Harbour.Runtime
{
    /// <summary>The harbour's runtime.</summary>
    [Serializable]
    public static partial class Runtime
    {
        private static string banner = @"public void Verbatim() {
        }";

        /// <summary>Starts the runtime.</summary>
        public static void Initialize(bool sigint = true)
        {
            Console.WriteLine("void Fake() {");
        }

        internal static int Count() => berths.Length;

        [DllImport("libharbour")]
        internal static extern int OpenDock(IntPtr name);

        public int Depth { get { return depth; } }

        public delegate void Moored(int berth);
    }
}
"""

BACKEND_C = b"""#include <Python.h>

#define BERTH_MAX(a, b) \\
    static int helper(int x) { return a; }

/* struct decoy { int x; }; */

typedef struct {
    int length;
} vessel_t;

struct harbour {
    int berths;
};

static int count_berths(struct harbour *h);   /* a prototype */

static const char *names[] = {
    "first", "second",
};

/* Counts the berths.
   Returns how many there are. */
static int
count_berths(struct harbour *h)
{
    if (h == NULL) {
        return -1;
    }
    return h->berths;
}

#if 0
int disabled_function(void) {
#endif

#ifdef _WIN32
static int open_dock(void) {
    return 1;
}
#else
static int open_dock(void) {
    return 0;
}
#endif

/* glibc's way to mark a function that throws nothing */
extern int
__NTH (berth_is_free (int berth))
{
    return 1;
}

PyMODINIT_FUNC
PyInit_harbour(void)
{
    char c = '{';
    return PyModule_Create(&module);
}
"""

BINDINGS_HPP = b"""#pragma once

namespace harbour {
namespace detail {

/// A berth's handle.
template <typename T>
class PYBIND11_EXPORT handle : public object_api<handle> {
public:
    handle() = default;
    explicit handle(T *ptr) : m_ptr(ptr), m_count{0} {}
    void release();
    bool operator==(const handle &other) const { return m_ptr == other.m_ptr; }
    const char *name() const { return R"raw(void inside_raw() {})raw"; }

private:
    T *m_ptr;
};

int prototype_only(int x);

} // namespace detail

inline void swap(handle &a, handle &b) HARBOUR_NOEXCEPT_IF(true) {
}

void handle::release() {
    long big = 1'000'000;
    m_ptr = nullptr;
}

} // namespace harbour
"""


def test_a_java_class_is_headed_by_its_name_and_each_method_by_its_own() -> None:
    sections = _sections("BerthManager.java", MANAGER_JAVA)
    assert list(sections) == [
        "package org.harbour",
        "class BerthManager",
        "class BerthManager > BerthManager()",
        "class BerthManager > findBerth()",
        "class BerthManager > enum Tide",
        "interface Dock",
        "interface Dock > depth()",
    ]
    assert "package org.harbour;" in sections["package org.harbour"]
    assert "Keeps the berths of one harbour." in sections["class BerthManager"]
    assert "@SuppressWarnings" in sections["class BerthManager"]
    method = sections["class BerthManager > findBerth()"]
    # Its Javadoc and annotation go with it; an anonymous class's method stays in it.
    assert "Finds a free berth for a vessel." in method
    assert "@Override" in method
    assert "public void run()" in method
    # An enum constant's body and the enum's constructor stay in the enum.
    assert 'String mark() { return "H"; }' in sections["class BerthManager > enum Tide"]
    assert "How deep the dock is." in sections["interface Dock > depth()"]


def test_java_strings_and_comments_head_nothing() -> None:
    headings = " ".join(_sections("BerthManager.java", MANAGER_JAVA))
    assert "Decoy" not in headings and "lure" not in headings  # in a string
    assert "retired" not in headings  # a commented-out method
    assert "run()" not in headings  # an anonymous class's, inside a method


def test_csharp_members_under_their_type_and_literals_head_nothing() -> None:
    sections = _sections("Runtime.cs", RUNTIME_CS)
    assert list(sections) == [
        "namespace Harbour.Runtime",
        "class Runtime",
        "class Runtime > Initialize()",
        "class Runtime > Count()",
        "class Runtime > OpenDock()",
        "class Runtime > property Depth",
        "class Runtime > delegate Moored",
    ]
    assert "The harbour's runtime." in sections["class Runtime"]
    assert "[Serializable]" in sections["class Runtime"]
    assert "Starts the runtime." in sections["class Runtime > Initialize()"]
    assert '[DllImport("libharbour")]' in sections["class Runtime > OpenDock()"]
    # The namespace heads the file's preamble (its line and usings), not the types in it.
    assert "namespace Harbour.Runtime" in sections["namespace Harbour.Runtime"]


def test_csharp_properties_indexers_and_events_are_members() -> None:
    # Each had been read into the method above it: `Names { get; init; }` cited as Dock().
    # A run of one-line properties stays one section (pythonnet's TypeOffset: 100 lines).
    source = b"""namespace Harbour
{
    public class Berth : IBerth
    {
        private readonly Dictionary<string, int> tides = new Dictionary<string, int> {
            ["high"] = 2,
        };
        public int Low { get; set; }

        public void Dock(Ship ship)
        {
            ship.Tie();
        }

        public List<string>? Names { get; init; }
        public int Width { get; init; }

        /// <summary>How many weeks the berth is let for.</summary>
        public int Weeks
        {
            get { return weeks; }
            set { weeks = value; }
        }

        int IBerth.Depth
        {
            get { return 4; }
        }

        public Berth this[int index]
        {
            get { return null; }
        }

        public event EventHandler Docked
        {
            add { }
            remove { }
        }
    }
}
"""
    sections = _sections("Berth.cs", source)
    assert list(sections)[1:] == [
        "class Berth",
        "class Berth > Dock()",
        "class Berth > property Names",
        "class Berth > property Weeks",
        "class Berth > property Depth",
        "class Berth > this[]",
        "class Berth > event Docked",
    ]
    assert "How many weeks the berth is let for." in sections["class Berth > property Weeks"]
    assert '["high"] = 2' in sections["class Berth"]  # a field's initializer is no member
    assert "int Low { get; set; }" in sections["class Berth"]
    assert "int Width { get; init; }" in sections["class Berth > property Names"]


def test_c_functions_are_headed_not_prototypes_macros_or_initializers() -> None:
    sections = _sections("backend.c", BACKEND_C)
    assert list(sections) == [
        "(untitled)",
        "struct vessel_t",
        "struct harbour",
        "count_berths()",
        "open_dock()",
        "berth_is_free()",
        "PyInit_harbour()",
    ]
    assert "#define BERTH_MAX" in sections["(untitled)"]  # a macro's body heads nothing
    counted = sections["count_berths()"]
    assert "Counts the berths." in counted  # the comment above, and the return type's line
    assert "static int\ncount_berths(struct harbour *h)\n{" in counted
    # The prototype and the initializer stay with the struct before them.
    assert "a prototype" in sections["struct harbour"]
    assert '"first", "second"' in sections["struct harbour"]
    # `#if 0` and the `#else` branch: read, not headed; the braces stay balanced.
    assert "disabled_function" in counted
    assert "return 0;" in sections["open_dock()"]
    # glibc's `__NTH (name (params))`: the name inside, with the comment above it.
    assert "glibc's way" in sections["berth_is_free()"]


def test_cpp_classes_namespaces_and_qualified_definitions() -> None:
    sections = _sections("bindings.hpp", BINDINGS_HPP)
    assert list(sections) == [
        "(untitled)",
        "class handle",
        "class handle > handle()",
        "class handle > operator==()",
        "class handle > name()",
        "swap()",
        "handle::release()",
    ]
    assert "A berth's handle." in sections["class handle"]
    assert "template <typename T>" in sections["class handle"]
    # `handle() = default;` and `void release();` are declarations: the constructor's
    # section starts at its definition, and the prototype after the class heads nothing.
    constructor = sections["class handle > handle()"]
    assert "explicit handle(T *ptr)" in constructor
    assert "inside_raw" in sections["class handle > name()"]
    assert "int prototype_only(int x);" in sections["class handle"]
    assert "1'000'000" in sections["handle::release()"]
    # A macro call after the parameters (`HARBOUR_NOEXCEPT_IF(true)`) names nothing.
    assert "inline void swap" in sections["swap()"]


@pytest.mark.parametrize("name", ["bindings.cxx", "bindings.hh", "bindings.hxx"])
def test_the_other_cpp_suffixes_are_included_and_read_as_cpp(name: str) -> None:
    """`.cxx` (LLVM, ROOT, VTK), `.hh` and `.hxx` were neither included by default nor,
    when included, read as C++: a file was one `(untitled)` section (fixes42)."""
    assert PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS).includes(f"src/{name}")
    assert list(_sections(name, BINDINGS_HPP)) == list(_sections("bindings.hpp", BINDINGS_HPP))


def test_every_line_of_a_c_file_is_kept_once_at_its_own_line_number() -> None:
    assert_every_line_kept("backend.c", BACKEND_C)


def test_hostile_files_still_read_whole() -> None:
    """An unclosed comment or string, 10,000 unclosed braces, CR-only line ends: every
    word is kept and the definitions outside the hostile part are still found."""
    unclosed = b"int before(void) {\n}\n/* never closed\nint after(void) {\n}\n"
    assert list(_sections("a.c", unclosed)) == ["before()", "after()"]
    braces = b"{" * 10_000 + b"\nint f(void) {}\n"
    assert "int f(void)" in "".join(_sections("b.c", braces).values())
    cr_only = MANAGER_JAVA.replace(b"\n", b"\r")
    assert list(_sections("C.java", cr_only)) == list(_sections("C.java", MANAGER_JAVA))
    string = b'char *s = "never closed;\n;\nint later(void) {\n}\n'
    assert "later()" in _sections("d.c", string)  # the string ends with its line


CZECH_TUTOR = """===============================================================================
=    V í t e j t e   v   t u t o r i a l u   V I M       -    Verze 1.5       =
===============================================================================

     Vim je velmi výkonný editor, který má příliš mnoho příkazů na to, aby
     mohly být všechny vysvětlené ve výuce jako tato. Tato výuka obsahuje
     dostatečné množství příkazů na to, aby bylo možné používat Vim jako
     víceúčelový editor.

     Přibližný čas potřebný ke zvládnutí této výuky je 25-30 minut, záleží
     na tom, kolik času strávíte přezkušováním.

     Příkazy v lekcích upravují text. Vytvoř kopii tohoto souboru pro
     procvičování (při startu "vimtutor" je již toto kopie).

     Je důležité pamatovat, že tato výuka je vytvořena pro výuku používáním.
     To znamená, že je potřeba si příkazy vyzkoušet pro jejich správné
     naučení. Pokud si jen čteš text, příkazy zapomeneš!
"""


@pytest.mark.parametrize("encoding", ["utf-8", "iso-8859-2"])
def test_a_czech_text_named_cs_is_read_as_text_not_csharp(encoding: str) -> None:
    """`.cs` is also Czech's code: vim's `tutor.cs` was one `(untitled)` block of C#."""
    document = parse("tutor.cs", CZECH_TUTOR.encode(encoding))
    assert document.kind in ("text", "markdown")
    assert "```" not in document.text
    if encoding == "utf-8":
        assert "Vim je velmi výkonný editor" in document.text
    # C# stays C#, however short its lines.
    assert "```csharp" in parse("Runtime.cs", RUNTIME_CS).text


def test_a_csharp_files_usings_are_headed_by_its_namespace() -> None:
    # pythonnet's 55 runtime files each opened with an `(untitled)` section: their
    # `using` lines and namespace, before or inside a block namespace or above C# 10's
    # file-scoped one (newuser75). A namespace in a comment names nothing.
    block = b"""// Copyright: see namespace Wrong.Place in the licence
/* namespace Also.Wrong
   is in a comment */
namespace Python.Runtime.Codecs
{
    using System;
    using System.Linq;

    /// <summary>Decodes Python lists.</summary>
    public class ListDecoder : IPyObjectDecoder
    {
        public bool CanDecode(PyType objectType, Type targetType) => false;
    }
}
"""
    sections = _sections("ListDecoder.cs", block)
    assert list(sections) == [
        "namespace Python.Runtime.Codecs",
        "class ListDecoder",
        "class ListDecoder > CanDecode()",
    ]
    assert "using System.Linq;" in sections["namespace Python.Runtime.Codecs"]
    scoped = b"""namespace Python.Runtime;

using System;

public interface IPyObjectEncoder
{
    bool CanEncode(Type type);
}
"""
    assert next(iter(_sections("IPyObjectEncoder.cs", scoped))) == "namespace Python.Runtime"
    # Usings and no namespace: nothing to name the preamble by.
    bare = b"using System;\n\npublic class Py\n{\n    public static void Import() { }\n}\n"
    assert next(iter(_sections("Py.cs", bare))) == "(untitled)"

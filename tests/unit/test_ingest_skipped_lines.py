"""`rag ingest`'s reasons for what it skipped: only what it was asked to read, and at most
a few lines (`rag status` lists the rest)."""

from __future__ import annotations

from ragcli.render import SKIPPED_SHOWN, root_summary, skipped_lines
from ragcli.render import status as render_status
from ragproto.sizes import counted


def status(roots: list[str], sources: list[str]) -> dict[str, object]:
    return {
        "roots": [{"name": r, "files": 1, "chunks": 1} for r in roots],
        "errors": [{"source": s, "reason": "empty file"} for s in sources],
    }


def status_lines(data: dict[str, object]) -> list[str]:
    """`rag status` of an idle daemon with these roots, errors and files without text."""
    return render_status(
        data
        | {
            "state": "idle", "files": 1, "chunks": 1, "pending": 0, "model": "m",
            "embeddings": {"computed": 0, "reused": 0}, "version": "v", "uptime_s": 1.0,
            "socket": "s", "answers": "extractive",
        }
    ).splitlines()  # fmt: skip


def test_a_file_or_folder_gets_its_own_reasons_only() -> None:
    data = status(["notes"], ["a/x.md", "a/y.md", "ab.md", "b/z.md"])
    assert skipped_lines(data, "notes", "a/x.md") == ["skipped a/x.md: empty file"]
    assert skipped_lines(data, "notes", "a") == [
        "skipped a/x.md: empty file",
        "skipped a/y.md: empty file",
    ]  # not `ab.md`, which only starts with the same letter
    assert len(skipped_lines(data, "notes", "notes")) == 4  # the whole root


def test_with_several_roots_a_root_gets_the_reasons_under_its_name() -> None:
    data = status(["notes", "work"], ["notes/x.md", "work/y.md"])
    assert skipped_lines(data, "work", "work") == ["skipped work/y.md: empty file"]


def test_many_reasons_are_cut_to_a_few_and_a_count() -> None:
    data = status(["notes"], [f"n{i}.md" for i in range(SKIPPED_SHOWN + 3)])
    lines = skipped_lines(data, "notes", "notes")
    assert len(lines) == SKIPPED_SHOWN + 1
    assert lines[-1] == "… and 3 more (`rag status` lists them)"


def test_files_with_no_text_are_skipped_lines_and_a_status_row_not_errors() -> None:
    data = status(["notes"], ["broken.pdf"]) | {
        "no_text": [{"source": f"pkg{i}/__init__.py", "reason": "empty file"} for i in range(7)],
        "no_text_files": 7,
    }
    assert skipped_lines(data, "notes", "pkg3/__init__.py") == [
        "skipped pkg3/__init__.py: empty file"
    ]
    assert root_summary(data, "notes").endswith("(8 skipped)")
    shown = status_lines(data)
    assert "no text    7 files skipped: nothing to index" in shown
    assert shown.count("  pkg0/__init__.py") == 1 and "  pkg6/__init__.py" not in shown
    assert "  … and 2 more (`rag status --json` lists them)" in shown
    assert "errors     1" in shown and "  broken.pdf: empty file" in shown


def test_a_count_of_files_with_no_text_has_a_thousands_separator() -> None:
    """The row wrote its own plural: `1200 files skipped`, where every other count of
    `rag status` reads `1,200 files`."""
    data = status(["notes"], []) | {
        "no_text": [{"source": f"pkg{i}/__init__.py", "reason": "empty file"} for i in range(9)],
        "no_text_files": 1_200,
    }
    shown = status_lines(data)
    assert f"no text    {counted(1_200, 'file')} skipped: nothing to index" in shown
    assert f"  … and {1_200 - SKIPPED_SHOWN:,} more (`rag status --json` lists them)" in shown
    assert "no text    1,200 files skipped: nothing to index" in shown


def test_the_skipped_types_row_and_an_ingest_summary_separate_thousands() -> None:
    """Both wrote a bare count (`1200 .log`, `(1200 skipped)`), where every other count
    of the client reads `1,200`."""
    data = status(["notes"], []) | {"skipped_types": {".log": 1_200, ".bin": 3}}
    assert "skipped    1,200 .log, 3 .bin (file types not indexed; see `include`)" in status_lines(
        data
    )
    many = status(["notes"], [f"n{i}.md" for i in range(1_200)])
    assert root_summary(many, "notes").endswith("(1,200 skipped)")


def with_types(data: dict[str, object], *types: dict[str, int]) -> dict[str, object]:
    """`data` whose roots (in order) left out files of these types."""
    roots = data["roots"]
    assert isinstance(roots, list)
    return data | {"roots": [r | {"skipped_types": t} for r, t in zip(roots, types, strict=True)]}


def test_an_ingest_summary_names_the_types_its_root_left_out() -> None:
    """`rag ingest` said "(1 skipped)" for a file with an error and nothing of a
    `notes.numbers` beside it, which only `rag status`'s skipped row named."""
    data = with_types(status(["notes"], ["broken.pdf"]), {".numbers": 1})
    assert root_summary(data, "notes") == (
        "indexed notes: 1 file, 1 chunk (1 skipped; 1 file of a type not indexed: .numbers)"
    )
    many = with_types(status(["notes"], []), {".log": 1_200, ".bin": 3, ".a": 1, ".b": 1})
    assert root_summary(many, "notes").endswith(
        "(0 skipped; 1,205 files of types not indexed: .log, .bin, .a, …)"
    )


def test_an_ingest_summary_names_only_its_own_roots_types() -> None:
    data = with_types(status(["notes", "work"], []), {}, {".numbers": 2})
    assert root_summary(data, "notes").endswith("(0 skipped)")
    assert root_summary(data, "work").endswith(
        "(0 skipped; 2 files of a type not indexed: .numbers)"
    )

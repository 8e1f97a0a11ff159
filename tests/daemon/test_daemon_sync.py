"""The real daemon stays in sync with the disk: saves, editor saves, renames, moves, deletes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragproto.errors import OutsideRoots
from tests.support.daemon import Daemon, wait_for


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("sync")
    root = tmp / "notes"
    root.mkdir()
    (root / "seed.md").write_text("# Seed\n\nThe seed document mentions zanzibar.\n")
    daemon = Daemon(tmp, [root]).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


def root_of(d: Daemon) -> Path:
    return d.roots[0]


def indexed_count(d: Daemon, label: str) -> int:
    return d.log().count(f"indexed {label}:")


def test_new_file_becomes_searchable(live: Daemon) -> None:
    (root_of(live) / "fresh.md").write_text("# Fresh\n\nQuokkatoken lives here.\n")
    hit = live.wait_searchable("quokkatoken", "fresh.md")
    assert hit["heading"] == "Fresh"


def test_editor_style_atomic_save_reindexes_once(live: Daemon) -> None:
    target = root_of(live) / "atomic.md"
    target.write_text("# Atomic\n\nOld content about walrusium.\n")
    live.wait_searchable("walrusium", "atomic.md")
    live.wait_idle()
    before = indexed_count(live, "atomic.md")
    tmp = root_of(live) / ".atomic.md.tmp"
    tmp.write_text("# Atomic\n\nNew content about narwhalite.\n")
    os.replace(tmp, target)
    live.wait_searchable("narwhalite", "atomic.md")
    live.wait_idle()
    assert indexed_count(live, "atomic.md") == before + 1
    assert "atomic.md" not in live.sources("walrusium")
    assert all(".tmp" not in s for s in live.sources("narwhalite"))


def test_hundred_rapid_writes_coalesce_into_one_reindex(live: Daemon) -> None:
    target = root_of(live) / "burst.md"
    for i in range(100):
        target.write_text(f"# Burst\n\nVersion {i} of the burst file, token burstmarker.\n")
    live.wait_searchable("burstmarker", "burst.md")
    live.wait_idle()
    assert indexed_count(live, "burst.md") == 1
    assert "Version 99" in live.search("burstmarker")["results"][0]["text"]


def test_delete_removes_every_chunk(live: Daemon) -> None:
    target = root_of(live) / "doomed.md"
    target.write_text("# Doomed\n\nEphemeraltoken content.\n")
    live.wait_searchable("ephemeraltoken", "doomed.md")
    files_before = live.wait_idle()["files"]
    target.unlink()
    wait_for(lambda: "doomed.md" not in live.sources("ephemeraltoken"), 30, "delete to apply")
    assert live.wait_idle()["files"] == files_before - 1


def test_rename_relabels_without_computing_embeddings(live: Daemon) -> None:
    src = root_of(live) / "before-name.md"
    src.write_text("# Renamed\n\nPangolinium facts.\n\nA second paragraph.\n")
    live.wait_searchable("pangolinium", "before-name.md")
    computed = live.wait_idle()["embeddings"]["computed"]
    (root_of(live) / "sub").mkdir(exist_ok=True)
    src.rename(root_of(live) / "sub" / "after-name.md")
    live.wait_searchable("pangolinium", "sub/after-name.md")
    # inotify reports the source end of a move into a brand-new folder a little later
    wait_for(lambda: live.sources("pangolinium") == ["sub/after-name.md"], 30, "old label gone")
    status = live.wait_idle()
    assert status["embeddings"]["computed"] == computed


def test_renaming_heading_less_text_computes_no_embeddings(live: Daemon) -> None:
    # No headings, and a first line that is no title: the heading path must not be the
    # file name, or the move below would re-embed every paragraph.
    src = root_of(live) / "loose-notes.txt"
    paragraphs = [f"Paragraph {i} on capybaraite and its uses in case {i}." for i in range(6)]
    src.write_text("\n\n".join(paragraphs) + "\n")
    live.wait_searchable("capybaraite", "loose-notes.txt")
    status = live.wait_idle()
    hit = live.search("capybaraite case 3")["results"][0]
    assert hit["heading"] == "(untitled)" and hit["lines"] == [1, 11]
    (root_of(live) / "archive").mkdir(exist_ok=True)
    src.rename(root_of(live) / "archive" / "renamed-notes.txt")
    wait_for(lambda: live.sources("capybaraite") == ["archive/renamed-notes.txt"], 30, "the move")
    after = live.wait_idle()
    assert after["embeddings"]["computed"] == status["embeddings"]["computed"]
    assert after["embeddings"]["reused"] > status["embeddings"]["reused"]
    moved = live.search("capybaraite case 3")["results"][0]
    assert (moved["heading"], moved["lines"]) == ("(untitled)", [1, 11])


def test_rename_updates_path_words_and_scope_without_computing_embeddings(live: Daemon) -> None:
    root = root_of(live)
    (root / "quollshelf").mkdir()
    src = root / "quollshelf" / "numbatNotes.md"
    src.write_text("# Marsupials\n\nThe marsupial eats termitesia daily.\n")
    live.wait_searchable("termitesia", "quollshelf/numbatNotes.md")

    def by_path_word(word: str) -> list[str]:  # the text never holds these words
        return [r["source"] for r in live.search(word, 20, mode="bm25")["results"]]

    assert by_path_word("quollshelf") == ["quollshelf/numbatNotes.md"]
    assert by_path_word("numbat") == ["quollshelf/numbatNotes.md"]  # camelCase stem, stemmed
    computed = live.wait_idle()["embeddings"]["computed"]
    (root / "bilbyden").mkdir()
    src.rename(root / "bilbyden" / "numbatNotes.md")
    wait_for(lambda: by_path_word("bilbyden") == ["bilbyden/numbatNotes.md"], 30, "new path")

    def old_folder_refused() -> bool:
        try:
            live.search("termitesia", **{"in": [str(root / "quollshelf")]})
        except OutsideRoots:
            return True
        return False

    # The writer commits tantivy first and the manifest (which scopes read) last, by design
    # (daemon/ragd/index/writer.py): the path words can be gone a moment before the old
    # folder stops holding the file, so both are waited for, then checked.
    wait_for(
        lambda: by_path_word("quollshelf") == [] and old_folder_refused(),
        30,
        "old path words and the old folder's scope gone",
    )
    scoped = live.search("termitesia", **{"in": [str(root / "bilbyden")]})["results"]
    assert [r["source"] for r in scoped] == ["bilbyden/numbatNotes.md"]
    with pytest.raises(OutsideRoots, match="nothing is indexed there"):  # the old folder
        live.search("termitesia", **{"in": [str(root / "quollshelf")]})
    assert live.wait_idle()["embeddings"]["computed"] == computed


def test_an_edit_above_a_chunk_moves_its_lines_and_embeds_only_the_edit(live: Daemon) -> None:
    target = root_of(live) / "shifting.md"
    intro = "# Shifting\n\nAn opening paragraph.\n\n## Later\n\n"
    target.write_text(intro + "The okapiberry section stays put.\n")
    hit = live.wait_searchable("okapiberry", "shifting.md")
    assert hit["lines"] == [7, 7]
    computed = live.wait_idle()["embeddings"]["computed"]
    target.write_text(
        intro.replace("paragraph.", "paragraph.\n\nNew text\nabove it.")
        + ("The okapiberry section stays put.\n")
    )
    wait_for(lambda: live.search("okapiberry")["results"][0]["lines"] == [10, 10], 30, "re-sync")
    assert live.wait_idle()["embeddings"]["computed"] == computed + 1  # the new paragraph only
    lines = target.read_text().split("\n")
    assert lines[10 - 1] == "The okapiberry section stays put."


def test_move_out_is_a_delete_and_move_in_is_a_create(live: Daemon) -> None:
    outside = live.tmp / "outside"
    outside.mkdir(exist_ok=True)
    inside = root_of(live) / "traveller.md"
    inside.write_text("# Traveller\n\nNomadtoken wanders.\n")
    live.wait_searchable("nomadtoken", "traveller.md")
    shutil.move(inside, outside / "traveller.md")
    wait_for(lambda: "traveller.md" not in live.sources("nomadtoken"), 30, "move-out")
    shutil.move(outside / "traveller.md", root_of(live) / "back.md")
    live.wait_searchable("nomadtoken", "back.md")


def test_folder_moved_out_prunes_everything_under_it(live: Daemon) -> None:
    folder = root_of(live) / "project"
    folder.mkdir()
    for i in range(3):
        (folder / f"p{i}.md").write_text(f"# P{i}\n\nFoldertoken number {i}.\n")
    wait_for(lambda: len(live.sources("foldertoken")) == 3, 30, "folder files")
    shutil.move(folder, live.tmp / "project-moved")
    wait_for(lambda: not live.sources("foldertoken"), 30, "folder prune")


def test_new_subfolder_full_of_files_is_picked_up(live: Daemon) -> None:
    staging = live.tmp / "staging"
    (staging / "deep" / "er").mkdir(parents=True)
    for i in range(5):
        (staging / "deep" / "er" / f"f{i}.md").write_text(f"# F{i}\n\nSubfoldertoken {i}.\n")
    shutil.move(staging, root_of(live) / "arrived")
    wait_for(lambda: len(live.sources("subfoldertoken")) == 5, 30, "moved-in folder")
    made = root_of(live) / "made-here"
    made.mkdir()
    (made / "g.md").write_text("# G\n\nMadeheretoken.\n")
    live.wait_searchable("madeheretoken", "made-here/g.md")


def test_ignored_names_are_never_indexed(live: Daemon) -> None:
    root = root_of(live)
    (root / ".hidden.md").write_text("# H\n\nSecrettoken.\n")
    (root / "swap.md.swp").write_text("Secrettoken.\n")
    (root / "image.png").write_bytes(b"\x89PNG secrettoken")
    (root / "visible.md").write_text("# V\n\nSecrettoken visible.\n")
    live.wait_searchable("secrettoken", "visible.md")
    live.wait_idle()
    assert live.sources("secrettoken") == ["visible.md"]


def test_bulk_folders_are_never_indexed(live: Daemon) -> None:
    root = root_of(live)
    for rel in ("node_modules/pkg/README.md", ".venv/lib/x.md", "src/__pycache__/x.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# B\n\nBulktoken.\n")
    (root / "src" / "real.md").write_text("# R\n\nBulktoken real.\n")
    live.wait_searchable("bulktoken", "src/real.md")
    live.wait_idle()
    assert live.sources("bulktoken") == ["src/real.md"]


def test_ignore_files_apply_live_and_are_counted(live: Daemon) -> None:
    folder = root_of(live) / "ignoring"
    (folder / "sub").mkdir(parents=True)
    (folder / "kept.md").write_text("# Kept\n\nIgnoretoken kept.\n")
    (folder / "sub" / "drop.md").write_text("# Drop\n\nIgnoretoken dropped.\n")
    (folder / "sub" / "back.md").write_text("# Back\n\nIgnoretoken back.\n")
    everything = ["ignoring/kept.md", "ignoring/sub/back.md", "ignoring/sub/drop.md"]
    wait_for(lambda: sorted(live.sources("ignoretoken")) == everything, 30, "three files")
    before = live.wait_idle()["ignored"]["files"]
    # Saving ignore files prunes what they exclude; the nested `!` keeps back.md.
    (folder / ".gitignore").write_text("sub/*\n")
    (folder / "sub" / ".ragignore").write_text("!back.md\n")
    kept = ["ignoring/kept.md", "ignoring/sub/back.md"]
    wait_for(lambda: sorted(live.sources("ignoretoken")) == kept, 30, "drop.md pruned")
    status = live.wait_idle()
    assert status["ignored"]["files"] == before + 1
    human = [line for line in live.rag("status").stdout.splitlines() if line.startswith("ignored")]
    assert human and f" {status['ignored']['files']} file" in human[0]
    assert live.rag_json("status")["ignored"] == status["ignored"]
    # Removing the pattern lets the file in again.
    (folder / ".gitignore").unlink()
    wait_for(lambda: sorted(live.sources("ignoretoken")) == everything, 30, "drop.md back")
    assert live.wait_idle()["ignored"]["files"] == before


def test_every_reply_carries_pending_and_sources_are_relative(live: Daemon) -> None:
    from ragcli.transport import Connection

    conn = Connection(str(live.socket))
    replies = list(conn.stream("search", {"query": "zanzibar"}, 10))
    conn.close()
    assert all("pending" in r for r in replies)
    data = replies[-1]["data"]
    assert data["results"][0]["source"] == "seed.md"
    assert str(live.tmp) not in str(data)

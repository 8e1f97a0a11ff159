"""A file's reason in `rag status` errors goes when the file does, even while the daemon
was down. A file that could not be indexed has no row among the indexed files, so the
start-up walk, which prunes the rows it does not find, never looked at its reason: an
error for a file deleted (or no longer included) while the daemon was stopped was listed
for ever."""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon

BINARY = bytes(range(256)) * 64  # not text, whatever the name says


def errors(d: Daemon) -> set[str]:
    return {e["source"] for e in d.status()["errors"]}


def write_config(path: Path, include: list[str]) -> None:
    path.write_text("include = [" + ", ".join(f'"{glob}"' for glob in include) + "]\n")


def test_errors_of_files_gone_or_left_out_while_stopped_are_dropped(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "good.md").write_text("# Good\n\nThe capstan holds zebratoken.\n")
    (root / "broken.md").write_bytes(BINARY)  # deleted while stopped
    (root / "sub" / "broken.md").write_bytes(BINARY)  # its folder deleted while stopped
    (root / "kept.md").write_bytes(BINARY)  # still there: still an error
    (root / "dump.dat").write_bytes(BINARY)  # left out of `include` while stopped
    config = tmp_path / "config.toml"
    write_config(config, ["*.md", "*.dat"])
    daemon = Daemon(tmp_path, [root], env={"RAG_CONFIG": str(config)}).start()
    try:
        daemon.wait_idle()
        assert errors(daemon) == {"broken.md", "sub/broken.md", "kept.md", "dump.dat"}
        daemon.stop()
        (root / "broken.md").unlink()
        (root / "sub" / "broken.md").unlink()
        (root / "sub").rmdir()
        write_config(config, ["*.md"])
        daemon.start()
        daemon.wait_idle()
        assert errors(daemon) == {"kept.md"}
        assert daemon.sources("zebratoken") == ["good.md"]
    finally:
        daemon.stop()

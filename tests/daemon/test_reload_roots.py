"""Roots a configuration reload (SIGHUP) adds: other names for a watched folder, and a
folder inside a watched root.

`rag ingest` of a watched folder under another name re-reads it there; the configuration
did not: each spelling of `docs` it listed (`docs/`, a link to it, `docs/../docs`, a link
into it) became a root of its own, listed with 0 files and remembered, and with more than
one root every source label gained a folder prefix (`docs/p.md`, where it was `p.md`).
And a reload adding `docs/inner` beside `docs` left each of inner's files indexed twice,
as `docs/inner/x.md` and `inner/x.md`.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for
from tests.support.reload import Reloader, toml


def test_a_reload_adds_no_second_name_and_an_inner_root_takes_its_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "inner").mkdir(parents=True)
    (docs / "p.md").write_text("# Pumps\n\nThe quorbling pump runs at 42 bar.\n")
    (docs / "inner" / "x.md").write_text("# Valves\n\nThe snarfle valve opens at dawn.\n")
    link = tmp_path / "docs-link"
    link.symlink_to(docs)
    config = tmp_path / "ragd.toml"
    base = {"roots": [str(docs)]}
    config.write_text(toml(base))
    daemon = Daemon(tmp_path / "t", [], extra_args=["--config", str(config)]).start()
    reload = Reloader(daemon, config, base)
    try:
        daemon.wait_idle()
        assert daemon.sources("quorbling") == ["p.md"]

        others = [f"{docs}/", str(link), f"{docs}/inner/../../docs", f"{link}/inner"]
        said = reload(roots=[str(docs), *others])
        assert said.count("under another name") == 3, said  # `docs/` is docs, as written
        roots = daemon.wait_idle()["roots"]
        assert [r["name"] for r in roots] == ["docs"], roots
        assert daemon.sources("quorbling") == ["p.md"]  # one root: labels unchanged

        reload(roots=[str(docs), str(docs / "inner")])
        roots = daemon.wait_idle()["roots"]
        assert [r["name"] for r in roots] == ["docs", "inner"], roots
        wait_for(lambda: daemon.sources("snarfle") == ["inner/x.md"], 30, "inner's file, once")

        # A start with every name in the configuration: the same two roots.
        config.write_text(toml({"roots": [str(docs), *others, str(docs / "inner")]}))
        assert daemon.stop() == 0, daemon.log_tail()
        daemon.start()
        roots = daemon.wait_idle()["roots"]
        assert [r["name"] for r in roots] == ["docs", "inner"], roots
        assert daemon.sources("snarfle") == ["inner/x.md"]
        assert daemon.sources("quorbling") == ["docs/p.md"]
    finally:
        daemon.stop()

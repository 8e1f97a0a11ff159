"""Paths in the index: folder and file names are searchable, and `--in PATH` scopes a
question or a search to folders or files (issue 19.3, 22.2) — on a real daemon, real model.

Two projects hold near-identical change logs whose text never names the project: only
the folder tells them apart. A second root holds a manual whose answer no project has.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.index.chunk_paths import path_words, scope_keys
from ragproto.errors import BadRequest, OutsideRoots
from ragproto.protocol import REFUSAL_SENTENCE
from tests.support.daemon import BIN, Daemon
from tests.support.fake_anthropic import FakeAnthropic

CHANGES = """# Changes

## Version {version}

Released 2021-05-11.

- Added support for asynchronous view functions and error handlers.
- The command line loader reads settings from a dotenv file when {detail} is installed.
- Dropped support for Python 2 and 3.5.
"""

MANUAL = """# Zephyr Boiler Manual

## Capacity

The Zephyr boiler's hot water cylinder holds 180 litres and reheats in 40 minutes.
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("scope")
    projects, manuals = tmp / "projects", tmp / "alias" / "manuals"
    for name, version, detail in (("flask", "2.0.0", "python-dotenv"), ("click", "8.0.0", "it")):
        (projects / name / "docs").mkdir(parents=True)
        (projects / name / "docs" / "CHANGES.md").write_text(
            CHANGES.format(version=version, detail=detail)
        )
    # The manuals root is watched through a symlink (`alias` → `shelf`), as a root under
    # a linked home or mount is: a scope may name it either way.
    (tmp / "shelf" / "manuals").mkdir(parents=True)
    (tmp / "alias").symlink_to(tmp / "shelf")
    (manuals / "zephyr-boiler.md").write_text(MANUAL)
    (tmp / "projects-link").symlink_to(projects)
    daemon = Daemon(tmp, [projects, manuals]).start()
    daemon.wait_idle()
    daemon.wait_floor_settled()
    yield daemon
    daemon.stop()


def run_rag(d: Daemon, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "rag"), *args],
        env=d.env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd or d.tmp,
    )


def search_json(d: Daemon, *args: str, cwd: Path | None = None) -> dict:  # type: ignore[type-arg]
    result = run_rag(d, "search", "--json", *args, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


# -- what the indexes keep of a path ------------------------------------------------------
def test_path_words_split_folders_stem_and_camel_case() -> None:
    words = path_words("/home/u/webProjects", "flask/docs_src/changeLog-2.0.rst")
    assert words.split() == ["web", "Projects", "flask", "docs", "src", "change", "Log", "2", "0"]
    assert path_words("/r", "HTTPServer.md").split() == ["r", "HTTP", "Server"]


def test_scope_keys_name_the_root_each_folder_and_the_file() -> None:
    keys = scope_keys("/r", "a/b/c.md")
    assert len(keys) == 4 and len(set(keys)) == 4
    assert keys[0] == scope_keys("/r", "x.md")[0]  # the same root key
    assert keys[1] == scope_keys("/r", "a/z.md")[1]  # the same folder key
    assert "/r" not in "".join(keys)  # no absolute path reaches a vector-store server


# -- paths are searchable -----------------------------------------------------------------
@pytest.mark.parametrize("project", ["flask", "click"])
def test_a_question_naming_a_project_prefers_its_folder(live: Daemon, project: str) -> None:
    data = search_json(live, f"Which {project.title()} release added async views?")
    top = data["results"][0]
    assert top["source"] == f"projects/{project}/docs/CHANGES.md", data["results"]
    rival = "click" if project == "flask" else "flask"
    other = next(r for r in data["results"] if r["source"].startswith(f"projects/{rival}/"))
    assert top["coverage"] > other["coverage"]  # the folder name counts as covered


# -- --in PATH ----------------------------------------------------------------------------
def test_scoped_search_returns_only_in_scope_sources_and_echoes_the_scope(live: Daemon) -> None:
    click = live.roots[0] / "click"
    data = search_json(live, "--in", str(click), "--top-k", "10", "Flask release async views")
    assert data["scope"] == ["projects/click"]
    assert data["results"], data
    assert {r["source"] for r in data["results"]} == {"projects/click/docs/CHANGES.md"}
    unscoped = search_json(live, "--top-k", "10", "Flask release async views")
    assert unscoped["scope"] is None
    assert len({r["source"] for r in unscoped["results"]}) == 3


def test_both_retrievers_filter_before_fusion(live: Daemon) -> None:
    manual = live.roots[1] / "zephyr-boiler.md"
    for mode in ("vector", "bm25"):
        # The change logs hold the query's words; in scope is only the manual.
        data = search_json(live, "--mode", mode, "--in", str(manual), "async views dotenv")
        sources = {r["source"] for r in data["results"]}
        assert sources <= {"manuals/zephyr-boiler.md"}, (mode, sources)
    vector = search_json(live, "--mode", "vector", "--in", str(manual), "async views dotenv")
    assert vector["results"] and vector["results"][0]["vector_rank"] == 1


def test_relative_paths_and_labels_resolve(live: Daemon) -> None:
    here = search_json(live, "--in", "flask", "async views", cwd=live.roots[0])
    assert here["scope"] == ["projects/flask"]
    label = search_json(live, "--in", "manuals", "--in", "projects/click/docs", "boiler")
    assert label["scope"] == ["manuals", "projects/click/docs"]
    parent = search_json(live, "--in", str(live.tmp), "boiler")  # a folder holding both roots
    assert sorted(parent["scope"]) == ["manuals", "projects"]


def test_symlinks_to_roots_and_inside_them_resolve(live: Daemon) -> None:
    """The manuals root is watched as alias/manuals (alias → shelf): its physical path,
    a shell standing in it (whose working directory is physical), and a link to the
    projects root all name the same scope as the path the root was given by."""
    physical = live.tmp / "shelf" / "manuals"
    assert search_json(live, "--in", str(physical), "boiler")["scope"] == ["manuals"]
    assert search_json(live, "--in", ".", "boiler", cwd=live.roots[1])["scope"] == ["manuals"]
    linked = live.tmp / "projects-link" / "flask"
    data = search_json(live, "--in", str(linked), "--top-k", "10", "async views")
    assert data["scope"] == ["projects/flask"]
    assert {r["source"] for r in data["results"]} == {"projects/flask/docs/CHANGES.md"}
    via_parent = search_json(live, "--in", str(live.tmp / "projects-link" / ".."), "boiler")
    assert sorted(via_parent["scope"]) == ["manuals", "projects"]


def test_a_scoped_ask_whose_answer_lies_outside_is_refused(live: Daemon) -> None:
    question = "How many litres does the Zephyr boiler's hot water cylinder hold?"
    answered = json.loads(run_rag(live, "ask", "--json", question).stdout)
    assert not answered["refused"] and "180 litres" in answered["answer"]
    scoped = run_rag(live, "ask", "--json", "--show-sources", "--in", str(live.roots[0]), question)
    assert scoped.returncode == 0, scoped.stderr
    reply = json.loads(scoped.stdout)
    assert reply["refused"] and reply["mode"] == "refused"
    assert all(s["source"].startswith("projects/") for s in reply["sources"])
    assert "learned" in scoped.stderr  # the learned floor judged the in-scope chunks


def test_chat_keeps_its_scope_for_every_question(live: Daemon) -> None:
    question = "How many litres does the Zephyr boiler's hot water cylinder hold?"
    lines = f"{question}\n{question}\n/exit\n"
    inside = live.rag("chat", "--in", str(live.roots[1]), input=lines)
    assert inside.returncode == 0, inside.stderr
    assert inside.stdout.count("180 litres") >= 2
    outside = live.rag("chat", "--in", str(live.roots[0]), input=lines)
    assert outside.returncode == 0 and "180" not in outside.stdout
    assert outside.stdout.count(REFUSAL_SENTENCE) == 2
    nowhere = live.rag("chat", "--in", "/nonexistent-root", input=lines)
    assert nowhere.returncode == 2 and "not inside a watched root" in nowhere.stderr


def test_the_learned_floor_applies_to_a_scoped_search(live: Daemon) -> None:
    floor = live.call("stats")["retrieval"]["floor"]
    data = search_json(live, "--in", str(live.roots[1]), "Zephyr boiler capacity in litres")
    assert data["gate"]["floor_origin"] == floor["origin"] == "learned"
    assert data["gate"]["floor"] == floor["value"]
    assert data["gate"]["passed"]


def test_a_path_outside_every_root_is_a_usage_error_naming_the_roots(live: Daemon) -> None:
    outside = live.tmp / "data"
    result = run_rag(live, "search", "--in", str(outside), "boiler")
    assert result.returncode == 2, result.stderr
    assert "projects" in result.stderr and "manuals" in result.stderr
    assert result.stderr.count("\n") == 1
    # No absolute path leaves the daemon (a tcp:// or MCP peer learns no folder layout);
    # the client names the path it sent itself.
    with pytest.raises(OutsideRoots) as refused:
        live.search("boiler", **{"in": [str(outside)]})
    assert str(live.tmp) not in str(refused.value) and "--in data:" in str(refused.value)
    assert result.stderr.startswith(f"rag: --in {outside}: not inside a watched root")
    bad_label = run_rag(live, "ask", "--in", "nosuchroot/docs", "boiler?")
    assert bad_label.returncode == 2 and "not inside a watched root" in bad_label.stderr
    assert live.call("ping")["state"] == "idle"  # and the daemon keeps serving


def test_a_scope_under_which_nothing_is_indexed_is_a_usage_error(live: Daemon) -> None:
    """A typo, another letter case or an ignored file inside a root would otherwise be
    searched as an empty scope and refused as if the documents did not say."""
    (live.roots[0] / "flask" / "docs" / "notes.tmp").write_text("scratch")  # not a document
    for scope in (
        "projects/Flask",
        "projects/flask/doc",  # a prefix of `docs`, not a folder
        str(live.roots[0] / "flask" / "docs" / "notes.tmp"),
        str(live.roots[0] / "nosuch"),
    ):
        result = run_rag(live, "ask", "--in", scope, "Which release added async views?")
        assert result.returncode == 2, (scope, result.stdout, result.stderr)
        assert "nothing is indexed there" in result.stderr and result.stderr.count("\n") == 1
        if not scope.endswith("nosuch"):  # that one is said to be missing instead
            assert "`rag ingest` of that path says why" in result.stderr
        assert str(live.tmp) not in result.stderr
    # ... and it does: the ignored file is named with its reason
    told = run_rag(live, "ingest", str(live.roots[0] / "flask" / "docs" / "notes.tmp"))
    assert "notes.tmp: not indexed: its name is a temporary file's" in told.stdout + told.stderr
    ok = search_json(live, "--in", "projects/flask/docs/CHANGES.md", "--in", "projects", "async")
    assert ok["scope"] == ["projects/flask/docs/CHANGES.md", "projects"]


def test_a_missing_path_typed_in_a_folder_of_a_root_is_said_missing_there(live: Daemon) -> None:
    """`rag search --in nosuchdir` typed in a folder inside a root: not there, it goes as
    written, named no root as a label, and was said to be "not inside a watched root"."""
    here = live.roots[0] / "flask"
    for scope, shown in (("nosuchdir", "flask/nosuchdir"), ("../click/doc", "click/doc")):
        result = run_rag(live, "search", "--in", scope, "async", cwd=here)
        assert result.returncode == 2, (scope, result.stdout, result.stderr)
        assert result.stderr == (
            f"rag: --in projects/{shown}: nothing is indexed there (no such folder or file "
            "under root projects)\n"
        )
    # Typed outside every root, the same name is outside them still.
    outside = run_rag(live, "search", "--in", "nosuchdir", "async", cwd=live.tmp)
    assert outside.returncode == 2 and "not inside a watched root" in outside.stderr
    found = search_json(live, "--in", "docs", "async", cwd=here)  # a folder that is there
    assert found["scope"] == ["projects/flask/docs"]


def test_a_malformed_scope_is_a_bad_request(live: Daemon) -> None:
    linked_nul = str(live.tmp / "projects-link" / "fla\0sk")  # the symlink path resolves
    for bad in ("flask", [3], [""], ["x"] * 33, [linked_nul], ["projects/fla\0sk"]):
        with pytest.raises(BadRequest, match="'in'"):
            live.search("boiler", **{"in": bad})


def test_an_index_from_the_previous_version_rebuilds_without_embedding(tmp_path: Path) -> None:
    """A data dir whose tantivy index and fingerprint predate path words and scope keys
    (lexical schema 1, vectors without metadata) is rebuilt at start-up from the cached
    embeddings: searchable by path and by scope, and nothing is embedded again."""
    import tantivy

    from ragd.index.manifest import Manifest

    root = tmp_path / "notes"
    (root / "wombatdocs").mkdir(parents=True)
    (root / "wombatdocs" / "burrows.md").write_text("# Burrows\n\nTunnels run 30 metres.\n")
    daemon = Daemon(tmp_path, [root]).start()
    computed_first = daemon.wait_idle()["embeddings"]["computed"]
    daemon.stop()
    data = tmp_path / "data"
    manifest = Manifest(data / "manifest.sqlite3")
    old = json.loads(manifest.get_meta("fingerprint") or "{}")
    old["lexical_schema"] = 1
    del old["dense_metadata"]
    manifest.set_meta("fingerprint", json.dumps(old, sort_keys=True))
    manifest.close()
    shutil.rmtree(data / "tantivy")
    schema = tantivy.SchemaBuilder()
    for field in ("source", "heading", "text"):
        schema.add_text_field(field, stored=False, tokenizer_name="en_stem")
    schema.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    (data / "tantivy").mkdir()
    tantivy.Index(schema.build(), path=str(data / "tantivy"))
    daemon.start()
    try:
        status = daemon.wait_idle()
        assert computed_first > 0 and status["embeddings"]["computed"] == 0
        assert "older schema" in daemon.log()
        hits = daemon.search("wombatdocs", mode="bm25")["results"]
        assert [h["source"] for h in hits] == ["wombatdocs/burrows.md"]
        scoped = daemon.search("tunnels", mode="vector", **{"in": [str(root / "wombatdocs")]})
        assert [h["source"] for h in scoped["results"]] == ["wombatdocs/burrows.md"]
    finally:
        daemon.stop()


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture(scope="module")
def one_root(tmp_path_factory: pytest.TempPathFactory, fake: FakeAnthropic) -> Iterator[Daemon]:
    """A keyed daemon on one root, `docs`, holding appliance manuals in `boilers/` and
    `kettles/` and a folder named like the root, `docs/` (the next two tests)."""
    tmp = tmp_path_factory.mktemp("one-root")
    root = tmp / "docs"
    for folder in ("boilers", "kettles", "docs"):
        (root / folder).mkdir(parents=True)
    (root / "boilers" / "zephyr.md").write_text(MANUAL)
    (root / "kettles" / "orca.md").write_text(
        "# Orca Kettle\n\n## Boiling\n\nThe Orca kettle takes 150 seconds to boil 1.7 litres.\n"
    )
    (root / "docs" / "guide.md").write_text("# Guide\n\nThe wombat guide covers burrows.\n")
    (root / "intro.md").write_text("# Intro\n\nThe wombat intro covers diet.\n")
    config = tmp / "config.toml"
    config.write_text(f'anthropic_base_url = "{fake.base_url}"\napi_max_retries = 0\n')
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-real-key"}
    daemon = Daemon(tmp, [root], env=env, extra_args=["--config", str(config)]).start()
    daemon.wait_idle()
    daemon.wait_floor_settled()
    yield daemon
    daemon.stop()


def test_a_chat_session_that_changes_scope_shows_the_model_no_earlier_passages(
    one_root: Daemon, fake: FakeAnthropic
) -> None:
    """A session's earlier turns go to the model with their passages; a turn under another
    scope (a protocol client may change `in` mid-session) must not carry passages from
    outside its own scope."""
    root = one_root.roots[0]
    for _ in range(2):
        fake.reply_text("It says so.\nConfidence: high")
    first = one_root.call(
        "ask",
        question="How many litres does the Zephyr boiler's cylinder hold?",
        session="s1",
    )
    assert not first["refused"], ("first", first["gate"]["reason"])
    second = one_root.call(
        "ask",
        question="How many seconds does the Orca kettle take to boil?",
        session="s1",
        **{"in": [str(root / "kettles")]},
    )
    assert not second["refused"], ("second", second["gate"]["reason"])
    assert "180 litres" in json.dumps(fake.requests[-2].body)  # the first turn's passage
    assert "180 litres" not in json.dumps(fake.requests[-1].body)
    assert "150 seconds" in json.dumps(fake.requests[-1].body)


def test_with_one_root_a_label_naming_a_folder_like_the_root_means_that_folder(
    one_root: Daemon, tmp_path: Path
) -> None:
    """One root `docs` holding a folder `docs/`: results show `docs/guide.md`, so `--in
    docs` (a label: no such path where the user stands) means that folder, as shown."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    data = search_json(one_root, "--in", "docs", "--top-k", "10", "wombat", cwd=elsewhere)
    assert {r["source"] for r in data["results"]} == {"docs/guide.md"}, data
    assert data["scope"] == ["docs"]

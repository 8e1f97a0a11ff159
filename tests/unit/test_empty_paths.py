"""An empty path is refused in one line, never read as the working folder.

`os.path.abspath("")` and `Path("")` are the working folder, so `rag ingest "$DIR"` with DIR
unset added whatever folder the script stood in as a root (by hand: `rag ingest ""` from
/tmp/a17 printed `watching new root a17` and indexed 172 files), and `ragd serve "$NOTES"`
served the folder it was started in (under systemd, the home folder).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.daemon import base_env

CLIENT = "import sys; from ragcli.main import main; sys.exit(main())"
GUARD_S = 60.0  # only for the broken behaviour: a daemon that serves


def test_rag_ingest_of_an_empty_path_is_refused_before_looking_for_the_daemon(
    tmp_path: Path,
) -> None:
    env = os.environ | {"RAG_SOCKET": str(tmp_path / "nobody-listens.sock")}
    done = subprocess.run(
        [sys.executable, "-c", CLIENT, "ingest", ""],
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr  # before: 3, not running (it went looking)
    assert "the path is empty" in done.stderr and "rag ingest ." in done.stderr
    assert done.stderr.count("\n") == 1


def test_rag_forget_of_an_empty_root_is_refused_before_looking_for_the_daemon(
    tmp_path: Path,
) -> None:
    env = os.environ | {"RAG_SOCKET": str(tmp_path / "nobody-listens.sock")}
    for root in ("", " "):
        done = subprocess.run(
            [sys.executable, "-c", CLIENT, "forget", root],
            env=env,
            capture_output=True,
            text=True,
            timeout=GUARD_S,
            cwd=tmp_path,
        )
        assert done.returncode == 2, done.stderr  # before: 3, not running (it went looking)
        assert "the root is empty" in done.stderr and done.stderr.count("\n") == 1


def test_an_empty_in_path_is_refused_before_looking_for_the_daemon(tmp_path: Path) -> None:
    # `rag search q --in "$DIR"` with DIR unset: with a daemon it was exit 5 ("request
    # rejected") and the wire's "'in' must be a non-empty string"; with none, exit 3.
    env = os.environ | {"RAG_SOCKET": str(tmp_path / "nobody-listens.sock")}
    commands = (["search", "pumps"], ["ask", "pumps"], ["search", "pumps", "--in", "."], ["chat"])
    for command in commands:
        done = subprocess.run(
            [sys.executable, "-c", CLIENT, *command, "--in", ""],
            env=env,
            capture_output=True,
            text=True,
            timeout=GUARD_S,
            cwd=tmp_path,
        )
        assert done.returncode == 2, (command, done.stderr)
        assert "--in: the path is empty" in done.stderr and "--in ." in done.stderr
        assert done.stderr.count("\n") == 1


def test_ragd_serve_of_an_empty_root_is_refused(tmp_path: Path) -> None:
    here = tmp_path / "where-it-was-started"
    here.mkdir()
    (here / "private.md").write_text("# Private\n\nNot meant to be indexed.\n")
    data = tmp_path / "data"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragd",
            "serve",
            "",
            "--data-dir",
            str(data),
            "--socket",
            str(tmp_path / "s.sock"),
        ],
        env=base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=GUARD_S,  # before: it served `here`, until this ran out
        cwd=here,
    )
    assert done.returncode == 2, done.stderr
    assert "empty text" in done.stderr and "ragd serve ." in done.stderr
    assert done.stderr.strip().count("\n") == 0
    assert not data.exists()


def _ragd(tmp_path: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragd", *argv],
        env=base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=GUARD_S,
        cwd=cwd,
    )


def test_an_empty_data_dir_is_refused_and_the_working_folder_untouched(tmp_path: Path) -> None:
    # Before: `ragd reset --data-dir ""` in a folder holding a `chroma/` of the user's
    # deleted it, made the folder 700 and wrote manifest.sqlite3 and ragd.lock there;
    # `ragd serve` made it private and indexed into it.
    here = tmp_path / "a-project"
    (here / "chroma").mkdir(parents=True)
    (here / "chroma" / "mine.txt").write_text("the user's own")
    here.chmod(0o755)
    root = tmp_path / "notes"
    root.mkdir()
    for argv in (
        ["reset", "--data-dir", ""],
        ["check", "--data-dir", ""],
        ["serve", str(root), "--data-dir", "", "--socket", str(tmp_path / "s.sock")],
    ):
        done = _ragd(tmp_path, here, *argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert "--data-dir: key 'data_dir' holds an empty path" in done.stderr, done.stderr
        assert done.stderr.strip().count("\n") == 0
    assert (here / "chroma" / "mine.txt").read_text() == "the user's own"
    assert sorted(p.name for p in here.iterdir()) == ["chroma"]
    assert here.stat().st_mode & 0o777 == 0o755


def test_an_empty_root_in_the_config_file_is_refused_naming_it(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('roots = [""]\n')  # before: served the folder ragd started in
    done = _ragd(
        tmp_path,
        tmp_path,
        "serve",
        "--config",
        str(config),
        "--data-dir",
        str(tmp_path / "data"),
        "--socket",
        str(tmp_path / "s.sock"),
    )
    assert done.returncode == 2, done.stderr
    assert f"{config}: key 'roots' holds an empty path" in done.stderr
    assert not (tmp_path / "data").exists()


def test_a_reset_of_a_folder_ragd_did_not_make_deletes_nothing(tmp_path: Path) -> None:
    # `ragd reset --data-dir ~/some-project` (a typo; a project using ChromaDB itself):
    # before, its own chroma/ was deleted and a manifest written into it.
    project = tmp_path / "a-project"
    (project / "chroma").mkdir(parents=True)
    (project / "chroma" / "mine.txt").write_text("the user's own")
    (project / "README.md").write_text("# A project\n")
    done = _ragd(tmp_path, tmp_path, "reset", "--data-dir", str(project))
    assert done.returncode == 2, done.stderr
    assert "holds no ragd index" in done.stderr and "chroma/" in done.stderr
    assert done.stderr.strip().count("\n") == 0
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "chroma"]
    assert (project / "chroma" / "mine.txt").exists()
    # ragd's own data dir (here: one a daemon would have made) is still reset.
    data = tmp_path / "data"
    data.mkdir()
    (data / "chroma").mkdir()
    (data / "ragd.lock").write_text("{}")
    assert _ragd(tmp_path, tmp_path, "reset", "--data-dir", str(data)).returncode == 0
    assert not (data / "chroma").exists() and (data / "manifest.sqlite3").exists()


def test_an_empty_socket_flag_is_the_default_as_the_client_reads_it(tmp_path: Path) -> None:
    """`ragd serve --socket "$SOCK"` with SOCK unset listened on the working folder's path
    ("cannot listen on ipc:///…: Is a directory") while `rag --socket ""` and an empty
    RAG_SOCKET mean the default: now the daemon reads it as the default too."""
    from ragd.core.config import load_settings

    env = {"XDG_RUNTIME_DIR": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "none")}
    given, origins = load_settings(flags={"socket": ""}, environ=env)
    default, _ = load_settings(environ=env)
    assert given.socket == default.socket and origins["socket"] == "default"


def test_rag_ask_with_an_empty_model_is_a_usage_error(tmp_path: Path) -> None:
    """attack48: `rag ask --model ""` reached the model's API and came back as its error
    (exit 5), where every other bad option is a usage error (exit 2)."""
    env = os.environ | {"RAG_SOCKET": str(tmp_path / "nobody-listens.sock")}
    done = subprocess.run(
        [sys.executable, "-c", CLIENT, "ask", "--model", " ", "how long is a return valid?"],
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert done.returncode == 2, done.stderr  # before: 3 here (it went looking), 5 live
    assert "argument --model: a model name, not empty" in done.stderr

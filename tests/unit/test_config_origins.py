"""`ragd config`'s comment on each line names where the value came from and the
environment variable that sets it, each once: a value from the environment printed
`# env RAG_SOCKET (RAG_SOCKET)`."""

from __future__ import annotations

from pathlib import Path

from ragd.core.config import FIELDS, describe, env_name, load_settings


def test_every_line_names_its_origin_and_its_variable_once(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("support_floor = 0.5\n", encoding="utf-8")
    environ = {"RAG_SOCKET": f"ipc://{tmp_path / 'ragd.sock'}", "RAG_TOP_K": "7"}
    settings, origins = load_settings(config, {"data_dir": str(tmp_path / "data")}, environ=environ)
    lines = {line.split(" = ")[0]: line for line in describe(settings, origins)}
    assert set(lines) == set(FIELDS)
    for key, line in lines.items():
        comment = line.partition("  # ")[2]
        assert comment.count(env_name(key)) == 1, line
        assert comment.startswith(origins[key]), line
    assert lines["socket"].endswith("  # env RAG_SOCKET")
    assert lines["top_k"] == "top_k = 7  # env RAG_TOP_K"
    assert lines["support_floor"].endswith(f"  # file {config} (RAG_SUPPORT_FLOOR)")
    assert lines["data_dir"].endswith("  # flag --data-dir (RAG_DATA_DIR)")
    assert lines["debounce_ms"].endswith("  # default (RAG_DEBOUNCE_MS)")

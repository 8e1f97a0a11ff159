"""A project's settings files (pyproject.toml, setup.cfg, tox.ini, YAML) are indexed by
default, each TOML or INI table its own section: "which Pythons does it support?" is
answered by `requires-python` in pyproject.toml, which a code repository's README may
state wrongly (arrow 1.3.0's says 3.6+)."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse
from tests.support.code_sections import assert_every_line_kept

PYPROJECT = b"""\
[build-system]
requires = ["setuptools>=77"]

[project]
name = "arrowish"
requires-python = ">=3.8"

[[tool.mypy.overrides]]
module = "tests.*"
"""

SETUP_CFG = b"""\
[metadata]
name = arrowish

[options]
python_requires = >=3.8
"""


def headings(name: str, data: bytes) -> dict[str, str]:
    return {" > ".join(c.heading): c.text for c in chunk_document(parse(name, data))}


def test_each_toml_table_is_a_section_holding_its_lines() -> None:
    sections = headings("pyproject.toml", PYPROJECT)
    assert set(sections) == {"[build-system]", "[project]", "[[tool.mypy.overrides]]"}
    assert 'requires-python = ">=3.8"' in sections["[project]"]


def test_an_ini_file_is_split_at_its_sections() -> None:
    sections = headings("setup.cfg", SETUP_CFG)
    assert set(sections) == {"[metadata]", "[options]"}
    assert "python_requires = >=3.8" in sections["[options]"]


@pytest.mark.parametrize(
    "name",
    ["pyproject.toml", "setup.cfg", "tox.ini", "mkdocs.yml", "compose.yaml", "mongod.conf.j2"],
)
def test_settings_files_are_included_by_default(name: str) -> None:
    default = PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS)
    assert default.accepts(PurePosixPath("project") / name)


def test_a_template_is_read_as_the_file_it_renders_to() -> None:
    """Ansible's `templates/` had not been indexed at all (newuser52, newuser53: 12 and 19
    `.j2` files, the configuration each role writes); a template is read by the suffix
    before its own, so `values.yaml.j2` is headed by its keys as YAML is."""
    values = (
        b"replicas: 3\n{% if tls %}\ntls:\n  cert: {{ cert_path }}\n{% endif %}\n"
        + (b"# padding so the keys are not one small group\n" * 20)
        + b"port: {{ mongod_port }}\n"
    )
    assert set(headings("values.yaml.j2", values)) == {"replicas, tls", "port"}
    conf = headings("mongod.conf.jinja2", b"net:\n  port: {{ mongod_port }}\n")
    assert list(conf) == ["(untitled)"]
    assert "port: {{ mongod_port }}" in conf["(untitled)"]


def test_a_template_s_tag_lines_do_not_open_yaml_flow_mappings() -> None:
    """`{# … #}` is a flow mapping to YAML, left open by the comment's `#`: a template
    opening with a Jinja comment had no heading at all (attack53b). Lines holding only
    tags are read as blank for the outline, and kept in the text."""
    padding = b"# padding so the keys are not one small group\n" * 20
    for opening in (b"{# managed by Ansible #}\n", b"{#\n  managed by Ansible\n#}\n"):
        values = opening + b"replicas: 3\n{% if tls %}\n" + padding + b"port: 27017\n"
        sections = headings("values.yaml.j2", values)
        assert set(sections) == {"replicas", "port"}
        assert "managed by Ansible" in sections["replicas"]
        assert_every_line_kept("values.yaml.j2", values)


def test_a_template_of_a_document_is_read_by_that_document_s_reader() -> None:
    """`usage.md.j2` had been read as one block of code (attack53b's leftover; a
    `README.md.j2` was read as Markdown, by its name): a templated page is Markdown,
    headed by its headings; its tags stay words of its text.
    A template of a settings file or of XML is still read as code (the test above)."""
    readme = b"# {{ role_name }}\n\nInstall it with {{ tool }}.\n\n## Usage\n\n{% if x %}Run.\n"
    sections = headings("usage.md.j2", readme)
    assert list(sections) == ["{{ role_name }}", "{{ role_name }} > Usage"]
    assert "{% if x %}Run." in sections["{{ role_name }} > Usage"]
    page = b"<html><body><h1>Guide</h1><p>Set {{ port }} first.</p></body></html>"
    assert list(headings("guide.html.j2", page)) == ["Guide"]
    assert list(headings("pom.xml.j2", b"<project><a>{{ v }}</a></project>")) == ["(untitled)"]

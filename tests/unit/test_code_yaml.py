"""YAML is headed by its keys and named items (formats.yaml_outline).

Every `.yml` of the Ansible collection community.zabbix had been one `(untitled)` section:
a role's defaults, its tasks, its molecule scenarios, all cited as `file:(untitled)`
(newuser52). Keys and the names of tasks and steps now head what they hold; a long entry
is split again at its own children; small entries share a section named by the first of
them; a file of several documents is headed per document."""

from __future__ import annotations

from ragd.ingest.formats import yaml_outline
from tests.support.code_sections import assert_every_line_kept, sections_of

DEFAULTS = b"""---
# Which major version of the agent to install.
zabbix_agent_version: 6.0
zabbix_agent_package_state: present
zabbix_agent_listenport: 10050

# The servers allowed to connect, and the address the agent listens on. Leave the
# address empty to listen on every interface of the host; give a list to limit it.
zabbix_agent_server: 192.0.2.10
zabbix_agent_listenip:
""" + b"".join(
    f"# Setting {n}, documented at length so that it is not small: {'words ' * 110}\n"
    f"zabbix_agent_setting_{n}: {n}\n".encode()
    for n in range(3)
)

TASKS = (
    b"""---
- name: "Windows | Set default architecture"
  set_fact:
    windows_arch: 32
"""
    + b"".join(
        f"""
- name: "Windows | Step {n}"
  win_shell: |
    name: not a key, a line of the script
    - name: not an item either
    Write-Output "{"padding " * 70}"
""".encode()
        for n in range(2)
    )
    + b"""
- when: zabbix_agent2
  name: Install the second agent
  win_package:
    path: "{{ zabbix_win_download_link }}"
    arguments: "{{ 'x' * 600 }}" padding padding padding padding padding padding padding
"""
)


def test_a_role_s_defaults_are_headed_by_their_keys_with_their_comments() -> None:
    sections = sections_of("main.yml", DEFAULTS)
    small = "zabbix_agent_version, zabbix_agent_package_state, zabbix_agent_listenport, …"
    assert small in sections  # small entries share a section, named by the first three
    assert "zabbix_agent_server: 192.0.2.10" in sections[small]
    assert "zabbix_agent_listenip:" in sections[small]
    assert "Which major version" in sections[small]  # the opening `---` and comment too
    for n in range(3):
        text = sections[f"zabbix_agent_setting_{n}"]
        assert text.count(f"# Setting {n}, documented") == 1  # its comment above, with it
        assert f"zabbix_agent_setting_{n}: {n}" in text
    assert_every_line_kept("main.yml", DEFAULTS)


def test_tasks_are_headed_by_their_names_and_a_block_scalar_heads_nothing() -> None:
    sections = sections_of("Windows.yml", TASKS)
    assert set(sections) == {
        "Windows | Set default architecture",
        "Windows | Step 0",
        "Windows | Step 1",
        "Install the second agent",  # its `name:` is not on its `- ` line
    }
    assert "- name: not an item either" in sections["Windows | Step 1"]
    assert "win_package" in sections["Install the second agent"]
    assert_every_line_kept("Windows.yml", TASKS)


WORKFLOW = b"""name: CI
on: [push, pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make check
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
""" + b"".join(
    f"""      - name: Run suite {n}
        run: |
          pytest -q tests/part{n} {"--flag " * 100}
""".encode()
    for n in range(3)
)


def test_a_long_entry_is_split_at_its_children_and_theirs() -> None:
    """`jobs` is longer than a chunk: its jobs head their lines one level down, and the
    long job `test` its steps another level down; `runs-on:`, one line before the job's
    first block, stays with the job's own line."""
    sections = sections_of("ci.yml", WORKFLOW)
    assert "jobs > lint" in sections
    assert "jobs > test" in sections
    assert "runs-on:" in sections["jobs > test"]
    assert "python:" in sections["jobs > test > strategy"]
    assert "jobs > test > steps > Run suite 2" in sections
    assert "pytest -q tests/part2" in sections["jobs > test > steps > Run suite 2"]
    assert_every_line_kept("ci.yml", WORKFLOW)


MANIFESTS = b"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 3
---
# The service in front of it.
apiVersion: v1
kind: Service
metadata:
  labels:
    app: web
  name: web-front
spec:
  ports:
    - port: 80
---
name: settings without a kind
---
just: one
"""


def test_each_document_of_a_file_is_headed_by_what_it_holds() -> None:
    sections = sections_of("web.yaml", MANIFESTS)
    assert list(sections) == [
        "Deployment web",
        "Service web-front",
        "settings without a kind",
        "document 4",
    ]
    assert "# The service in front of it." in sections["Service web-front"]
    assert_every_line_kept("web.yaml", MANIFESTS)


def test_a_key_over_its_headed_child_is_read_with_it() -> None:
    """`sign_keys:` alone would be a chunk of one line; it goes with its first child."""
    body = "".join(
        f'  "{n}":\n' + "    bullseye:\n      sign_key: E709712C\n" * 30 for n in (64, 62)
    )
    sections = sections_of("zabbix.yml", b"---\nsign_keys:\n" + body.encode())
    assert list(sections) == ["sign_keys > 64", "sign_keys > 62"]
    assert sections["sign_keys > 64"].startswith("```yaml\n---\nsign_keys:\n")


def test_what_is_not_a_key_heads_nothing() -> None:
    """Scalar items, a URL's colon, a Helm template's lines, a flow mapping, an empty
    file: nothing there is a key, so nothing there is a heading."""
    text = b"- one\n- two\nhttp://example.com/x\n{{- if .Values.on }}\n{a: 1}\n'unclosed: x\n"
    assert set(sections_of("odd.yml", text)) == {"(untitled)"}
    assert set(sections_of("comments.yml", b"---\n# only a comment\n")) == {"(untitled)"}
    assert yaml_outline._value("'" + "x" * 500 + "'").endswith("…")


def test_a_chain_of_keys_over_headed_children_is_read_with_the_first_child() -> None:
    """An Ansible changelog: `0.1.0:` over `changes:` over `bugfixes:`; neither of the two
    lines is a chunk of its own (the second had been: `releases > 0.1.0`, 30 characters)."""
    fixes = "".join(f"      - fix number {n} of the agent role {'x' * 60}\n" for n in range(30))
    text = f"ancestor: null\nreleases:\n  0.1.0:\n    changes:\n      bugfixes:\n{fixes}"
    text += "      minor_changes:\n" + fixes.replace("fix number", "change number")
    text += "  0.2.0:\n    release_date: '2021-01-01'\n"
    sections = sections_of("changelog.yaml", text.encode())
    assert list(sections) == [
        "ancestor",
        "releases > 0.1.0 > changes > bugfixes",
        "releases > 0.1.0 > changes > minor_changes",
        "releases > 0.2.0",
    ]
    assert sections["releases > 0.1.0 > changes > bugfixes"].startswith(
        "```yaml\nreleases:\n  0.1.0:\n    changes:\n      bugfixes:\n"
    )


def _containers(indent: str) -> str:
    return "".join(
        f"{indent}- name: c{n}\n{indent}  image: registry.example/c{n}:{'1' * 60}\n"
        f"{indent}  args: [{', '.join(['--flag'] * 70)}]\n"
        for n in range(4)
    )


def test_a_sequence_at_its_key_s_own_indent_is_that_key_s() -> None:
    """`containers:` over `- name: web` at the same indent (kubectl's and PyYAML's own
    style; 253 of this machine's 4,477 YAML files): the items are the key's, so they are
    cited under it, not as its siblings (`spec > c0`, the `containers` lost)."""
    manifest = "spec:\n  containers:\n" + _containers("  ") + "  volumes:\n" + _containers("  ")
    sections = sections_of("pod.yaml", manifest.encode())
    assert "spec > containers > c0" in sections
    assert "spec > volumes > c3" in sections
    assert "spec > c0" not in sections
    assert sections["spec > containers > c0"].startswith("```yaml\nspec:\n  containers:\n")
    assert_every_line_kept("pod.yaml", manifest.encode())


def test_an_item_s_keys_stand_where_its_first_key_does() -> None:
    """`- help_text:` whose own lines stand deeper: the item's other keys are at the
    column of `help_text`, and `arguments > params` is cited so, not `params` alone."""
    command = (
        "- help_text:\n    brief: Create a connection.\n    description: |\n"
        + "      Words of the description.\n" * 20
        + "  command_type: CREATE\n  arguments:\n    resource:\n      help_text: The connection.\n"
        + "    params:\n"
        + _containers("    ")
    )
    sections = sections_of("create.yaml", command.encode())
    assert "help_text > arguments > params > c0" in sections
    assert not any(path.startswith("help_text > params") for path in sections)
    assert_every_line_kept("create.yaml", command.encode())


def test_a_chain_of_keys_each_over_one_key_is_read_with_the_first_that_holds_more() -> None:
    """`spec:`, `template:`, `spec:` each over the next alone: no chunk of their three
    lines, headed `spec > template`."""
    manifest = "spec:\n  template:\n    spec:\n      containers:\n" + _containers("      ")
    sections = sections_of("deploy.yaml", manifest.encode())
    assert "spec > template" not in sections
    assert sections["spec > template > spec > containers"].startswith("```yaml\nspec:\n")


def _padding(indent: str, lines: int = 30) -> str:
    return "".join(f"{indent}setting_{n}: {'x' * 70}\n" for n in range(lines))


def test_no_line_of_a_scalar_heads_anything_whatever_it_looks_like() -> None:
    """Lines of a block scalar behind a tag or an anchor (`&usage |`), of a scalar item
    (`- |`, its lines two columns in), of a quoted scalar and of a flow collection over
    several lines are text: none of their `key:` lines is a heading (each had been)."""
    usage = "    Usage:\n      name: the command\n      options:\n        --all\n"
    words = _padding("    ").replace(":", "")
    text = (
        "anchored:\n  help: &usage |\n" + usage + _padding("    ")
        + "tagged:\n  help: !!str |\n" + usage + _padding("    ")
        + "script:\n  - |\n    echo:\n      name: inside\n" + _padding("    ")
        + 'quoted:\n  help: "Usage:\n    name: the command\n    options:\n      --all\n'
        + words + '    end"\n' + "flow:\n  args: {\n    name: the command,\n    options: {\n"
        + "      all: true },\n" + _padding("    ").replace("\n", ",\n") + "  }\n"
    )  # fmt: skip
    sections = sections_of("cli.yml", text.encode())
    names = {name for path in sections for level in path.split(" > ") for name in level.split(", ")}
    assert not names & {"Usage", "name", "options", "echo", "all", "setting_0"}, names
    assert_every_line_kept("cli.yml", text.encode())


def test_a_script_s_last_comment_stays_with_the_script() -> None:
    """`# done` ends `run: |`: it is text of the script, not the comment above `deploy`."""
    workflow = "build:\n  run: |\n    make\n" + _padding("    ") + "    # done\ndeploy:\n"
    workflow += _padding("  ")
    sections = sections_of("ci.yml", workflow.encode())
    assert "# done" in sections["build"]
    assert sections["deploy"].startswith("```yaml\ndeploy:")


def test_names_read_as_yaml_reads_them() -> None:
    """A task's name folded over lines (`name: >-`), a ` #` inside quotes, quotes escaped
    inside quotes, a tag before a value, and `metadata.name` beside `labels: name:`: each
    had headed its section as written (`>-`, `"Step`, `it''s here`, `!!str Upgrade`,
    `Deployment lbl`)."""
    tasks = "".join(
        f"- name: {name}\n  shell: echo {'x' * 600}\n"
        for name in (">-\n    Install the agent\n    on every host", '"Step #2 of it"',
                     "'it''s here'", '"caf\\xE9 \\"now\\""', "!!str Upgrade # soon")
    )  # fmt: skip
    assert list(sections_of("tasks.yml", tasks.encode())) == [
        "Install the agent",
        "Step #2 of it",
        "it's here",
        'café "now"',
        "Upgrade",
    ]
    manifests = "kind: Deployment\nmetadata:\n  labels:\n    name: lbl\n  name: web\n---\n"
    manifests += "kind: Service\nmetadata:\n  name: front\n"
    assert list(sections_of("web.yaml", manifests.encode())) == ["Deployment web", "Service front"]


def test_a_complex_key_heads_its_own_value() -> None:
    """A key written `? key` over `: value` (PyYAML writes a key longer than 128
    characters so: gcloud's `v1_resources.yaml`) was no entry: its value was read into
    the key above and cited under it (r58). It heads its lines, by the key as its `? `
    line writes it, or by a block scalar's first line; a `: ` line is no key."""
    text = (
        "berths:\n"
        + _padding("  ")
        + "? [north pier, south pier]\n: tides:\n"
        + _padding("    ")
        + "? |\n  ferries that sail\n  at night\n: lanterns:\n"
        + _padding("    ")
        + "last: 1\n"
    )
    sections = sections_of("harbour.yaml", text.encode())
    assert sections["[north pier, south pier]"].startswith("```yaml\n? [north pier")
    assert sections["ferries that sail"].startswith("```yaml\n? |\n")
    assert "? [north" not in sections["berths"]
    assert_every_line_kept("harbour.yaml", text.encode())

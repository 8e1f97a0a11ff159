"""`python -m ragd` is the `ragd` command."""

from ragd.cli.main import run

run()

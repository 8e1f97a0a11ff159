"""`python -m ragd` is the `ragd` command."""

from ragd.main import run

run()

"""The `ragd` command (typer) and the systemd unit it installs."""

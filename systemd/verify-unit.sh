#!/bin/sh
# Check the user unit the way systemd will load it: `systemd-analyze --user verify` on the
# unit rendered for this installation (the template's %h/.local/bin/ragd need not exist on
# this machine, and verify insists that ExecStart does). systemd-analyze exits 0 on unknown
# keys and unparsable values, only warning, so any output at all fails the check.
#   usage: systemd/verify-unit.sh .venv/bin/ragd
set -eu
ragd=${1:?usage: verify-unit.sh PATH/TO/ragd}
if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "systemd-analyze missing: installing the systemd package" >&2
    apt-get update -qq && apt-get install -y -qq systemd >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/run" "$tmp/home"
clean_env() { env -i PATH="$PATH" HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/run" "$@"; }
clean_env "$ragd" install-service --print >"$tmp/ragd.service"
if ! out=$(clean_env systemd-analyze --user verify "$tmp/ragd.service" 2>&1) || [ -n "$out" ]; then
    echo "$out" >&2
    echo "systemd-analyze --user verify failed on the rendered unit:" >&2
    cat -n "$tmp/ragd.service" >&2
    exit 1
fi
echo "systemd-analyze --user verify: ragd.service OK ($(systemd-analyze --version | head -n1))"

#!/usr/bin/env bash
# Installs the .deb that build.sh made, checks it as an operator would, then purges it and
# checks that the user's data stayed. Run as root on a Debian machine (CI does).
#   packaging/linux/check-deb.sh [path/to/retryscope.deb]
# Needs: lintian, desktop-file-utils, man-db (CI's apt step installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
deb=${1:-$(ls -t target/debian/retryscope_*.deb | head -n1)}
echo "-- package: $deb"

echo "-- lintian (errors fail; warnings and their tags are listed)"
# As root, lintian prints "running with root privileges is not recommended!": harmless here.
lintian --fail-on error --tag-display-limit 0 "$deb"

echo "-- dpkg -i"
dpkg -i "$deb"
# The declared Depends are on the machine now; dpkg would have stopped otherwise.
dpkg -s retryscope | grep -E '^(Status|Version|Depends):'

echo "-- desktop-file-validate"
desktop-file-validate /usr/share/applications/retryscope.desktop
for icon in scalable/apps/retryscope.svg 48x48/apps/retryscope.png 128x128/apps/retryscope.png \
  256x256/apps/retryscope.png; do
  test -s "/usr/share/icons/hicolor/$icon" || { echo "missing icon $icon"; exit 1; }
done
test -s /usr/share/retryscope/profiles/azure-sdk.json
test -s /usr/share/bash-completion/completions/retryscope
test -s /usr/share/zsh/vendor-completions/_retryscope
test -s /usr/share/fish/vendor_completions.d/retryscope.fish
test -s /usr/share/doc/retryscope/copyright

echo "-- retryscope --version (the installed binary)"
version=$(/usr/bin/retryscope --version)
echo "$version"
[[ "$version" =~ ^retryscope\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-f]{7,}\)$ ]] ||
  { echo "--version does not name a version and a commit: $version"; exit 1; }

echo "-- man retryscope"
man -P cat retryscope 2>/dev/null | head -n 12
man -P cat retryscope 2>/dev/null | grep -q 'retryscope - Retry flaky HTTP APIs' ||
  { echo "man retryscope does not render"; exit 1; }
man -P cat retryscope-run 2>/dev/null | grep -q -- '--builtin' ||
  { echo "man retryscope-run does not render"; exit 1; }

echo "-- retryscope run against retryscope demo-server (127.0.0.1), as a user with a home"
home=$(mktemp -d)
export HOME="$home" XDG_DATA_HOME="" XDG_CONFIG_HOME=""
unset RETRYSCOPE_DATA_DIR RETRYSCOPE_LOG_LEVEL
server_log="$home/demo.log"
/usr/bin/retryscope demo-server --port 0 >"$server_log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
base=""
for _ in $(seq 1 50); do
  base=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$server_log" | head -n1 || true)
  [ -n "$base" ] && break
  sleep 0.1
done
[ -n "$base" ] || { echo "the demo server did not start"; cat "$server_log"; exit 1; }
echo "demo server: $base"
/usr/bin/retryscope run --builtin azure-sdk "$base/status/503?times=2"
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
trap - EXIT
data="$home/.local/share/retryscope"
test -s "$data/history.sqlite3" || { echo "the run was not recorded in $data"; ls -la "$data" || true; exit 1; }
/usr/bin/retryscope history list | head -n 3

echo "-- dpkg --purge: the package goes, the user's data stays"
dpkg --purge retryscope
if command -v retryscope >/dev/null 2>&1 || [ -e /usr/bin/retryscope ]; then
  echo "retryscope is still installed after the purge"; exit 1
fi
test -e /usr/share/applications/retryscope.desktop && { echo "desktop file left behind"; exit 1; }
test -s "$data/history.sqlite3" || { echo "the purge removed the user's history: $data"; exit 1; }
ls "$data"
rm -rf "$home"
echo "-- .deb checks passed"

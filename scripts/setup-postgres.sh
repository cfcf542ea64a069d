#!/usr/bin/env bash
# A Postgres server for the tests that need one (test/fixtures/postgres.ts starts throw-away
# clusters from these binaries): finds Debian's server binaries, installs Debian's `postgresql`
# when they are missing and we are root with apt-get, and says what is missing otherwise.
# Prints the bin directory on stdout. Called by scripts/test.sh; safe to run again.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/find-or-install.sh"

find_pg_bin() {
  if [ -n "${ERRANDS_PG_BIN:-}" ]; then
    if [ -x "$ERRANDS_PG_BIN/postgres" ] && [ -x "$ERRANDS_PG_BIN/initdb" ]; then echo "$ERRANDS_PG_BIN"; return 0; fi
    return 1
  fi
  # The newest major version first (sort -V orders 9.6 < 15 < 16).
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ]; then echo "$dir"; return 0; fi
  done
  return 1
}

if [ -n "${ERRANDS_PG_BIN:-}" ] && ! find_pg_bin >/dev/null; then
  echo "errands: ERRANDS_PG_BIN is set to '$ERRANDS_PG_BIN', which holds no postgres and initdb binaries." >&2
  exit 1
fi
# The package's own cluster is not wanted: the tests start their own, in temp dirs.
stop_package_clusters() {
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    for version in $(ls /etc/postgresql 2>/dev/null); do pg_ctlcluster "$version" main stop >/dev/null 2>&1 || true; done
  fi
}
bin=$(find_or_install find_pg_bin postgresql \
  "no Postgres server found in /usr/lib/postgresql/*/bin. Install one (Debian/Ubuntu: 'sudo apt-get install postgresql') or set ERRANDS_PG_BIN to the directory holding postgres and initdb." \
  stop_package_clusters) || exit
# Postgres refuses to run as root: a root test run starts it as the `postgres` user, which Debian's package creates.
if [ "$(id -u)" = "0" ] && ! id -u postgres >/dev/null 2>&1; then
  echo "errands: running as root, but there is no 'postgres' user to run the test Postgres as (Debian's postgresql package creates it)." >&2
  exit 1
fi
echo "$bin"

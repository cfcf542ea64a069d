#!/usr/bin/env bash
# Finding a system binary the tests or the engine need, and installing Debian's package for it
# when it is missing and we may (root with apt-get). Sourced by setup.sh (Chromium) and
# setup-postgres.sh (the Postgres server), which looked for and installed theirs the same way.
#
#   find_or_install <finder> <package> <what to say when missing> [<after install>]
#
# <finder> is a function that prints what it found and fails when it finds nothing; it runs
# again after the install. <after install> is an optional function run right after apt-get.
# Prints what the finder found; says "errands: <what to say>" on stderr and fails otherwise.
#
#   chromium=$(find_or_install find_chromium chromium "no Chromium found. …") || exit

find_or_install() {
  local finder=$1 package=$2 missing=$3 after=${4:-}
  if "$finder"; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "errands: installing Debian's $package (apt-get install -y $package)…" >&2
    # A failed install stops here, with apt-get's own words and status, as it did before.
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package") >&2 || return
    if [ -n "$after" ]; then "$after"; fi
  fi
  if "$finder"; then return 0; fi
  echo "errands: $missing" >&2
  return 1
}

#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (never a downloaded browser: the closed network
# cannot fetch one, and apt's is patched and signed) and
# prints its path. Idempotent: does nothing when /usr/bin/chromium exists.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  echo "chromium: present at $CHROMIUM"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "chromium: installing Debian chromium (about 2 minutes)"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium
if [ ! -x "$CHROMIUM" ]; then
  echo "chromium: install finished but $CHROMIUM is missing" >&2
  exit 1
fi
echo "chromium: installed at $CHROMIUM"

#!/usr/bin/env bash
# The headless browser of tests/integration/test_live_page_browser.py: Debian's chromium and its matching
# chromedriver, installed with apt-get when either is missing (idempotent; quiet unless it has to install).
# Needs root (or passwordless sudo) and a reachable Debian mirror; without them it says so and exits 1.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
  exit 0
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
    echo "ensure-chromium: chromium/chromedriver missing and not root (no passwordless sudo): install chromium chromium-driver" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null; then
  echo "ensure-chromium: chromium/chromedriver missing and no apt-get here: install Chromium and its chromedriver" >&2
  exit 1
fi
echo "ensure-chromium: installing chromium chromium-driver (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
command -v chromium >/dev/null && command -v chromedriver >/dev/null

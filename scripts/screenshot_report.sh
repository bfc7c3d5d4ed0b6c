#!/usr/bin/env bash
# Take a headless-browser screenshot of a built report, to check by eye that tables and plots render.
#
#   scripts/screenshot_report.sh REPORT_HTML [OUT_PNG] [WIDTH,HEIGHT]
#
# Example:
#   bench report results/run.jsonl --out /tmp/report
#   scripts/screenshot_report.sh /tmp/report/report.html /tmp/report-shot.png 1200,2000
#
# Installs Debian's chromium with apt-get when no chromium is on PATH (needs root, as on the project's
# machines and in CI). The browser runs with a throwaway profile and without background network traffic;
# --no-sandbox is needed because it runs as root.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 3 ]]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi

report_html=$(realpath "$1")
out_png=$(realpath -m "${2:-report-screenshot.png}")
window_size=${3:-1200,2000}

if [[ ! -f "$report_html" ]]; then
  echo "screenshot_report: no such file: $report_html" >&2
  exit 2
fi

browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$(command -v "$candidate")
    break
  fi
done
if [[ -z "$browser" ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "screenshot_report: chromium is missing and installing it needs root" >&2
    exit 1
  fi
  echo "screenshot_report: installing chromium from Debian" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >&2
  browser=$(command -v chromium)
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars --log-level=3 \
  --user-data-dir="$profile" --screenshot="$out_png" --window-size="$window_size" \
  "file://$report_html" >&2

if [[ ! -s "$out_png" ]]; then
  echo "screenshot_report: chromium wrote no screenshot to $out_png" >&2
  exit 1
fi
echo "$out_png"

#!/usr/bin/env bash
# `nicsim report` in a real browser (ctest report_browser): writes the report of the tiny seed
# (tests/report/tiny), renders it with headless Chromium (Debian's chromium, installed by
# ./setup.sh), checks the DOM Chromium built (every section, every plot's series drawn, no script,
# no broken image), that Chromium logged no console error, that the screenshot is not blank, and
# that a second report (which reuses the runs) has the same bytes apart from the 'generated' line.
# Exit 77 (ctest: skipped) with the reason only when Chromium is not installed or cannot start.
#
#   browser_test.sh NICSIM_BIN SOURCE_DIR [WORK_DIR]
set -euo pipefail
bin=$1
src=$2
work=${3:-$(mktemp -d)}
rm -rf "$work/r" "$work/r2" "$work/profile"
mkdir -p "$work"
cd "$src"

"$bin" report tests/report/tiny --out "$work/r" --jobs 2 2>"$work/report.err" || {
  rc=$?
  # Exit 1 = written, a run failed: that is a failure of this test too.
  cat "$work/report.err" >&2
  echo "report_browser: nicsim report exited $rc" >&2
  exit 1
}
page=$work/r/index.html
test -s "$page"

chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $chromium ]]; then
  echo "SKIPPED: chromium is not installed (./setup.sh installs Debian's chromium for this test)"
  exit 77
fi
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --disable-extensions --hide-scrollbars
       --user-data-dir="$work/profile" --enable-logging=stderr --v=0)
url="file://$page"
if ! timeout 60 "$chromium" "${flags[@]}" --dump-dom "$url" >"$work/dom.html" 2>"$work/chromium-dom.err" ||
   [[ ! -s $work/dom.html ]]; then
  echo "SKIPPED: chromium cannot run here:"
  tail -5 "$work/chromium-dom.err"
  exit 77
fi
python3 tests/report/check_page.py dom "$work/dom.html"
# A console error (a script error, a failed load) is reported by Chromium's logging as CONSOLE.
if grep -E 'CONSOLE.*(ERROR|Uncaught|Failed to load)|:ERROR:CONSOLE' "$work/chromium-dom.err"; then
  echo "report_browser: console errors while rendering the page" >&2
  exit 1
fi
timeout 60 "$chromium" "${flags[@]}" --window-size=1280,1600 --screenshot="$work/shot.png" "$url" \
  >/dev/null 2>"$work/chromium-shot.err"
python3 tests/report/check_page.py png "$work/shot.png"

# Same results, same page: the second report reuses every run (OUT/runs).
"$bin" report tests/report/tiny --out "$work/r2" --reuse "$work/r/runs" --jobs 2 2>"$work/report2.err"
grep -q "finished runs reused" "$work/report2.err" || { cat "$work/report2.err" >&2; echo "report_browser: the runs were not reused" >&2; exit 1; }
python3 tests/report/check_page.py same "$page" "$work/r2/index.html"
echo "report_browser: ok ($work)"

#!/bin/sh
# Regenerates docs/img/flamegraph-*.png: the demo workload recorded with
# -g, its flame graph opened in headless chromium (tests/lib/webdriver.py),
# as it opens, zoomed into main, and searched for "sort".
#   sh scripts/screenshots.sh [BUILD]
set -e
BUILD=$(cd "${1:-build}" && pwd)
T=$(mktemp -d /tmp/pkshots.XXXXXX)
trap 'rm -rf "$T"' EXIT
(cd "$T" && "$BUILD/perfkit" record -q -g -- "$BUILD/workloads/demo" \
	> /dev/null && "$BUILD/perfkit" report --format=flamegraph \
	-o demo.svg)
mkdir -p docs/img
HOME=$T python3 - "$T/demo.svg" docs/img <<'PY'
import os
import sys
sys.path.insert(0, 'tests/lib')
from webdriver import Browser
svg, out = os.path.abspath(sys.argv[1]), sys.argv[2]
b = Browser(size=(1220, 760))
try:
    b.open('file://' + svg)
    b.screenshot(os.path.join(out, 'flamegraph.png'))
    b.click(b.find("//*[local-name()='g' and @class='f']"
                   "[*[local-name()='title' and starts-with(text(), 'main (')]]"))
    b.screenshot(os.path.join(out, 'flamegraph-zoomed.png'))
    b.click(b.find("//*[@id='unzoom']"))
    b.click(b.find("//*[@id='search']"))
    b.prompt('sort')
    b.screenshot(os.path.join(out, 'flamegraph-search.png'))
finally:
    b.close()
PY
echo "docs/img: flamegraph.png flamegraph-zoomed.png flamegraph-search.png"

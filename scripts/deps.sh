#!/bin/sh
# Installs the Debian packages perfkit's build, tests and benchmarks need,
# only when one is missing. Idempotent; silent when nothing is missing.
#   build:      gcc make pkg-config libelf-dev libdw-dev libzstd-dev zlib1g-dev
#               liblzma-dev libbz2-dev (archives: perfkit links them statically)
#               libzydis-dev (x86 instruction decoding for the PT flow decoder)
#               libtraceevent-dev (tracepoint print formats)
#   tests:      clang (libFuzzer, sanitizers) linux-perf trace-cmd libipt-dev
#               (reference tools for differential tests; libipt is never linked
#               into perfkit) util-linux (setpriv) procps chromium
#               chromium-driver (flame graphs clicked and searched in a
#               headless browser) golang-go (go tool pprof reads the pprof
#               exports)
#   bench:      qemu-user busybox-static (../shared/tools/ptgen makes the
#               Intel PT streams of real runs that the PT benchmark decodes)
set -e
PKGS="gcc make pkg-config libelf-dev libdw-dev libzstd-dev zlib1g-dev
      liblzma-dev libbz2-dev
      libzydis-dev libtraceevent-dev clang linux-perf trace-cmd libipt-dev
      util-linux procps qemu-user busybox-static chromium chromium-driver
      golang-go"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "deps.sh: missing packages:$missing (run as root to install)" >&2
    exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
apt-get install -y -qq --no-install-recommends $missing >/tmp/perfkit-deps.log 2>&1 ||
    { cat /tmp/perfkit-deps.log >&2; exit 1; }

#!/usr/bin/env bash
# Installs the Debian packages the project needs when they are missing (as root, or via sudo):
# the sandbox, the browser, npm and the bots' toolchains (g++, rustc, go, node, a JDK 17).
#   --with-redis   also the Redis server (the test suite's broker; `make test` passes it)
set -euo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# The sandbox's system-call filter is compiled with libseccomp (through the pyseccomp package).
/sbin/ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || missing+=(libseccomp2)
# strip (binutils) takes the debug sections out of the interpreter's copy each sandbox gets
# (libpython built from source: 22 MB with them, 6 MB without); without it the copies are larger.
command -v strip >/dev/null 2>&1 || missing+=(binutils)
# The browser tests drive Debian's Chromium through the playwright package (never `playwright install`).
[ -x /usr/bin/chromium ] || missing+=(chromium)
# Bots in other languages than Python are built and run with Debian's toolchains (DESIGN.md, "Bot
# protocol"): the absolute paths, since a rustc or go elsewhere on PATH (rustup, ~/go) is not the one
# the sandbox presents to a build.
[ -x /usr/bin/g++ ] || missing+=(g++)
[ -x /usr/bin/rustc ] || missing+=(rustc)
[ -x /usr/bin/go ] || missing+=(golang-go)
[ -x /usr/bin/node ] || missing+=(nodejs)
[ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/javac ] || missing+=(openjdk-17-jdk-headless)
# npm installs the pinned front-end libraries (package-lock.json), e.g. the charts' uPlot.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ "${1:-}" = "--with-redis" ]; then
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null

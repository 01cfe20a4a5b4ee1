#!/usr/bin/env bash
# Make sure e2fsprogs' FUSE driver (`fuse2fs`) exists for the tests and benchmarks whose simulated
# servers mount their volumes, and print its path.
#
# Use Debian's `fuse2fs` package: install it when it is missing (as root, or through sudo). The
# simulated servers also need /dev/fuse: say so when it cannot be opened. Every step says what it
# did on stderr; the only thing on stdout is fuse2fs's path. Under CI=true a fuse2fs that cannot be
# installed is a failure.
set -euo pipefail

say() { echo "fuse2fs: $*" >&2; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root for: $*"; return 1; fi
}

found=$(PATH="$PATH:/usr/sbin:/sbin" command -v fuse2fs || true)
if [ -z "$found" ]; then
    say "fuse2fs missing: installing the Debian fuse2fs package"
    if ! { as_root apt-get update -q >&2 &&
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends fuse2fs >&2; }; then
        say "could not install fuse2fs"
        if [ "${CI:-}" = "true" ]; then exit 1; fi
        exit 0
    fi
    found=$(PATH="$PATH:/usr/sbin:/sbin" command -v fuse2fs)
else
    say "fuse2fs present"
fi
if ! { : <>/dev/fuse; } 2>/dev/null; then
    say "/dev/fuse cannot be opened: simulated servers will have no disks"
fi
echo "$found"

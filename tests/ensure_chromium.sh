#!/usr/bin/env bash
# Make sure a headless Chromium the status page test can drive exists, and print its path.
#
# Unless RECONCILER_TEST_CHROMIUM names a browser, use Debian's `chromium` package: install it when
# it is missing (as root, or through sudo). Every step says what it did on stderr; the only thing on
# stdout is the browser's path. Under CI=true a browser that cannot be installed is a failure.
set -euo pipefail

say() { echo "chromium: $*" >&2; }

if [ -n "${RECONCILER_TEST_CHROMIUM:-}" ]; then
    say "using RECONCILER_TEST_CHROMIUM as given"
    echo "$RECONCILER_TEST_CHROMIUM"
    exit 0
fi

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root for: $*"; return 1; fi
}

found=$(command -v chromium || true)
if [ -z "$found" ]; then
    say "browser missing: installing the Debian chromium package"
    if ! { as_root apt-get update -q >&2 &&
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >&2; }; then
        say "could not install chromium"
        if [ "${CI:-}" = "true" ]; then exit 1; fi
        exit 0
    fi
    found=$(command -v chromium)
else
    say "browser present"
fi
echo "$found"

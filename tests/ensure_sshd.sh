#!/usr/bin/env bash
# Make sure OpenSSH's server (`sshd`) exists for the tests and benchmarks whose simulated servers
# accept ssh connections, and print its path.
#
# Use Debian's `openssh-server` package: install it when it is missing (as root, or through sudo),
# without starting the host's own ssh service. Every step says what it did on stderr; the only
# thing on stdout is sshd's path. Under CI=true an sshd that cannot be installed is a failure.
set -euo pipefail

say() { echo "sshd: $*" >&2; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root for: $*"; return 1; fi
}

found=$(PATH="$PATH:/usr/sbin:/sbin" command -v sshd || true)
if [ -z "$found" ]; then
    say "sshd missing: installing the Debian openssh-server package (its service not started)"
    # RUNLEVEL=1 keeps invoke-rc.d from starting the host's ssh service on install
    if ! { as_root apt-get update -q >&2 &&
        as_root env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 \
            apt-get install -y -q --no-install-recommends openssh-server >&2; }; then
        say "could not install openssh-server"
        if [ "${CI:-}" = "true" ]; then exit 1; fi
        exit 0
    fi
    found=$(PATH="$PATH:/usr/sbin:/sbin" command -v sshd)
else
    say "sshd present"
fi
echo "$found"

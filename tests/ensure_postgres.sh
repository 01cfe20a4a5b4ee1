#!/usr/bin/env bash
# Make sure a PostgreSQL the test suite can use exists, and print the URL to reach it.
#
# Unless RECONCILER_TEST_DATABASE_URL names a server, use this machine's own: install the Debian
# server when it is missing (as root), start the cluster when it is down, create a superuser role
# for the current OS user when there is none, and connect over the Unix socket with peer
# authentication, so no password is stored anywhere. Every step is idempotent and says what it did
# on stderr; the only thing on stdout is the URL.
set -euo pipefail

say() { echo "postgres: $*" >&2; }

if [ -n "${RECONCILER_TEST_DATABASE_URL:-}" ]; then
    say "using RECONCILER_TEST_DATABASE_URL as given"
    echo "$RECONCILER_TEST_DATABASE_URL"
    exit 0
fi

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root for: $*"; return 1; fi
}

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    say "server binaries missing: installing the Debian postgresql package"
    as_root apt-get update -q >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2
else
    say "server binaries present"
fi

version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {found = 1} END {exit !found}'; then
    say "no cluster $version/main: creating it"
    as_root pg_createcluster "$version" main >&2
fi

status=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $4}')
if [ "$status" = "online" ]; then
    say "cluster $version/main already running"
else
    say "starting cluster $version/main"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2
fi

socket_dir=/var/run/postgresql
user=$(id -un)
for _ in $(seq 1 50); do
    if pg_isready -q -h "$socket_dir"; then break; fi
    sleep 0.2
done
has_role=$(as_root runuser -u postgres -- psql -h "$socket_dir" -d postgres -tAc \
    "SELECT 1 FROM pg_roles WHERE rolname = '$user'" 2>/dev/null || true)
if [ "$has_role" = "1" ]; then
    say "role $user exists"
else
    say "creating superuser role $user"
    as_root runuser -u postgres -- createuser -h "$socket_dir" -s "$user" >&2
fi

if psql -h "$socket_dir" -d postgres -tAc "SELECT 1" >/dev/null; then
    say "peer authentication over $socket_dir works for $user"
else
    say "cannot connect as $user over $socket_dir"
    exit 1
fi
echo "postgresql+psycopg:///postgres?host=$socket_dir"

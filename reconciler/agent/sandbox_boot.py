"""A sandbox's boot inside its namespaces, in one interpreter: its root, first boot, listeners.

Every machine's boot starts Python inside its namespaces before its root becomes the root; each
interpreter started costs as much as the work it does. So one start does all three steps, each
module keeping its own idea:

- the server's root (`sandbox_root.build`), with the Unix sockets to bind in (`--bind`);
- with `--boot SPEC BOOTED`, the first boot (`sandbox_first_boot`) when SPEC differs from BOOTED,
  the copy of the spec last applied;
- with `--listen FD ADDRESS:PORT...` (a resident machine), its listeners handed to the host over
  FD (`sandbox_listeners`), bound before the launcher gives its loopback those addresses.

Run by path with the standard library only (`python -I -S sandbox_boot.py ROOT RUN [--bind
SOCKET]... [--boot SPEC BOOTED] [--listen FD ADDRESS:PORT...]`): the package's root is put on
the path so its siblings import as themselves. Exit 0 once done (the tree's path on stdout), 125
otherwise (the reason on stderr).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from reconciler.agent import sandbox_first_boot, sandbox_listeners, sandbox_root


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except OSError:
        return None


def boot(tree: str, spec_path: str, booted: str) -> int:
    """First boot on `tree`, unless the spec is the one last applied."""
    spec = _read(spec_path)
    if spec is not None and spec == _read(booted):
        return 0
    return sandbox_first_boot.main([tree, spec_path, booted])


def main(arguments: list[str]) -> int:
    root, run, rest = arguments[0], arguments[1], arguments[2:]
    sockets, booting, listening = [], [], []
    while rest:
        if rest[0] == "--bind":
            sockets.append(rest[1])
            rest = rest[2:]
        elif rest[0] == "--boot":
            booting, rest = rest[1:3], rest[3:]
        elif rest[0] == "--listen":
            listening, rest = rest[1:], []
        else:
            print(f"sandbox: boot: what is {rest[0]!r}?", file=sys.stderr)
            return 125
    try:
        tree = sandbox_root.build(root, run, sockets)
    except OSError as error:
        print(f"sandbox: {error}", file=sys.stderr)
        return 125
    if booting and boot(tree, *booting) != 0:
        return 125
    if listening and sandbox_listeners.main(listening) != 0:
        return 125
    print(tree)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A sandbox's boot inside its namespaces, in one interpreter: its root, first boot, listeners,
identity, and its entry into the root.

Every boot runs Python inside its namespaces before its root becomes the root; each interpreter
or command started costs as much as the work it does. So one interpreter does every step (a
sandbox for one command starts it; a resident machine's is forked from the machines' starter,
`sandbox_starter`, which calls `main`), each module keeping its own idea:

- the server's root (`sandbox_root.build`), with the Unix sockets to bind in (`--bind`);
- with `--boot SPEC BOOTED`, the first boot (`sandbox_first_boot`) when SPEC differs from BOOTED,
  the copy of the spec last applied;
- with `--listen FD ADDRESS:PORT...` (a resident machine), its listeners handed to the host over
  FD (`sandbox_listeners`), bound before loopback is given those addresses;
- with `--name NAME`, its host name; with `--hide DIRECTORY`, the fleet's state hidden, the run
  bound back in (`sandbox_entry`);
- the tree made the root, the host's detached (`sandbox_entry.enter`);
- with `--loopback ADDRESSES ADDRESS`, loopback up holding ADDRESS, the comma-separated
  ADDRESSES (its neighbours') local by routes (either may be empty; an address of 127/8 is
  loopback's already) (`sandbox_loopback`).

Run by path with the standard library only (`python -I -S sandbox_boot.py ROOT RUN [--bind
SOCKET]... [--boot SPEC BOOTED] [--name NAME] [--hide DIRECTORY] [--loopback ADDRESSES ADDRESS]
[--listen FD ADDRESS:PORT...]`): the package's root is put on the path so its siblings import as
themselves. Exit 0 once done, 125 otherwise (the reason on stderr).
"""

from __future__ import annotations

import gc
import os
import sys

if __name__ == "__main__":  # run by path; imported (for its path, its functions), it changes nothing
    gc.disable()  # a short life making few cycles: collecting them would cost more than they hold
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from reconciler.agent import (
    sandbox_entry,
    sandbox_first_boot,
    sandbox_listeners,
    sandbox_loopback,
    sandbox_root,
)


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


class Options:
    """The boot's arguments, as the launcher or the machines' starter gives them."""

    def __init__(self, arguments: list[str]) -> None:
        self.root, self.run, rest = arguments[0], arguments[1], arguments[2:]
        self.sockets: list[str] = []
        self.booting: list[str] = []
        self.listening: list[str] = []
        self.name, self.hidden = "", ""
        self.view: str | None = None
        self.loopback: list[str] | None = None
        self.neighbours: list[str] = []
        while rest:
            if rest[0] == "--bind":
                self.sockets.append(rest[1])
                rest = rest[2:]
            elif rest[0] == "--boot":
                self.booting, rest = rest[1:3], rest[3:]
            elif rest[0] == "--name":
                self.name, rest = rest[1], rest[2:]
            elif rest[0] == "--hide":
                self.hidden, rest = rest[1], rest[2:]
            elif rest[0] == "--view":
                self.view, rest = rest[1], rest[2:]
            elif rest[0] == "--loopback":
                self.neighbours = [address for address in rest[1].split(",") if address]
                self.loopback = [] if not rest[2] or rest[2].startswith("127.") else [rest[2]]
                rest = rest[3:]
            elif rest[0] == "--listen":
                self.listening, rest = rest[1:], []
            else:
                raise ValueError(f"sandbox: boot: what is {rest[0]!r}?")


def start(options: Options, tree: str) -> None:
    """The machine's identity, its root entered, its loopback: the steps after its listeners."""
    if options.name:
        sandbox_entry.name(options.name)
    if options.hidden:
        sandbox_entry.hide(tree, options.hidden, options.root, options.run)
    sandbox_entry.enter(tree, options.root)
    if options.loopback is not None:
        sandbox_loopback.set_up(options.loopback, options.neighbours)


def main(arguments: list[str]) -> int:
    try:
        options = Options(arguments)
    except (ValueError, IndexError) as error:
        print(error, file=sys.stderr)
        return 125
    try:
        tree = sandbox_root.build(options.root, options.run, options.sockets, options.view)
    except OSError as error:
        print(f"sandbox: {error}", file=sys.stderr)
        return 125
    if options.booting and boot(tree, *options.booting) != 0:
        return 125
    if options.listening and sandbox_listeners.main(options.listening) != 0:
        return 125
    try:
        start(options, tree)
    except OSError as error:
        print(f"sandbox: {error}", file=sys.stderr)
        return 125
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

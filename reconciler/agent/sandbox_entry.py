"""The last steps of a sandbox's boot, once its tree is built: its identity, then its root.

Run inside the sandbox's namespaces by `sandbox_boot`, in the boot's one interpreter rather than
as a command each (every machine's boot does them):

- `name`: the UTS namespace's host name, set at every boot (first boot writes /etc/hostname);
- `hide`: the fleet's state directory beneath an empty file system, the run's directory bound
  back in at its own path, so a machine sees nothing of the fleet's state but its own run;
- `enter`: the tree made the root (`pivot_root`, which moves the launcher's shell or the keeper too: every
  process of the mount namespace whose root was the host's), the host's root detached.
"""

from __future__ import annotations

import os

from reconciler.agent.sandbox_libc import LIBC, Long
from reconciler.agent.sandbox_root import MS_BIND, mount

MNT_DETACH = 2
# pivot_root(2) has no C library wrapper: its system call number, by machine
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}


def name(hostname: str) -> None:
    encoded = hostname.encode()
    LIBC.call("sethostname", encoded, len(encoded))


def hide(tree: str, hidden: str, root: str, run: str) -> None:
    """`hidden` (holding the server's `root` and `run`) beneath an empty file system, but `run`."""
    mount("hidden", f"{tree}{hidden}", "tmpfs", 0, "mode=0700")
    os.makedirs(f"{tree}{root}/.host", exist_ok=True)
    os.makedirs(f"{tree}{run}", exist_ok=True)
    mount(run, f"{tree}{run}", None, MS_BIND)


def enter(tree: str, root: str) -> None:
    """Make `tree` the root, the host's (put under `root`/.host first) detached."""
    os.chdir(tree)
    number = PIVOT_ROOT.get(os.uname().machine)
    if number is None:  # an unlisted machine: the command's own pivot_root
        pid = os.posix_spawnp("pivot_root", ["pivot_root", ".", f".{root}/.host"], dict(os.environ))
        if os.waitpid(pid, 0)[1] != 0:
            raise OSError(f"pivot_root into {tree} failed")
    else:
        LIBC.call("syscall", Long(number), b".", f".{root}/.host".encode())
    os.chdir("/")
    LIBC.call("umount2", f"{root}/.host".encode(), MNT_DETACH)

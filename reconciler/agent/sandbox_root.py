"""The sandbox's file system: the host's, seen through a writable layer a server keeps for itself.

A VM's root file system is its own: a script may write `/hello` or `/etc/motd`, and what one
deployment wrote, the next one on the same server finds. The sandbox gives each server that: a
root directory of its own (`ROOT`, under the server's state directory) holding `tree`, the new
root, and `upper` and `work`, the layers overlayfs writes to. In the sandbox's mount namespace:

- where the machines' starter could make a view of the host's root file system without the mounts
  on it (`host_view`: it runs as the host's root), the tree is one overlay: that view below, the
  server's `upper` above. A script's writes land in `upper`; the host's files are never changed.
  A top-level directory that is a file system of its own (or a file mounted there) is laid over
  it as below, its layers under `apart`; one that holds other mounts is bound read-only, every
  mount under it too, as the host shows it;
- elsewhere (a daemon that is not root), every directory at the top of the host's root is an
  overlay: the host's directory below, the server's `upper/<name>` above, so the same `upper`
  serves both ways. A directory overlayfs refuses (one holding other mounts, which a user
  namespace may not see beneath) is bound read-only instead, every mount under it too; the host's
  top-level symbolic links (`/bin -> usr/bin`) are made again in `tree`, its top-level files bound
  read-only, and what a script writes at the top (`/hello`) lands in `tree` itself;
- `/proc` is the sandbox's own (its PID namespace's processes only), `/sys` the host's, both
  with the kernel's settings read-only (`/proc/sys`, `/sys`: the kernel is the host's, and a
  user namespace's root may be the host's own user), and `/dev` a fresh one: the usual character
  devices bound from the host, its own pseudo-terminals and shared memory;
- a server given disks (`sandbox_disks`: its root directory holds `DEVICES` and `PARTITIONS`)
  has that directory, bound from the host, as its /dev and that file as its /proc/partitions, so
  a disk the daemon plugs while a script runs appears at once; its root then holds the guest's
  file system helpers too (`guest_filesystems`: mount(8) mounts such a disk with fuse2fs);
- the server's root directory itself is hidden beneath an empty file system, so the layers are
  never reached through the overlay built on them, and the run's directory is bound back in at
  its own path, written straight through (the script's outputs are read there).

The launcher then makes `tree` the root (`pivot_root`) and detaches the host's: nothing the script
runs can reach the host's writable mounts again. Removing the server's state directory removes its
layers (`remove_tree` clears the permissions overlayfs leaves on its work directories).

Run inside the sandbox's namespaces with the standard library only, by `sandbox_boot` (`build`:
the tree's path once it is ready, OSError otherwise).
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING

from reconciler.agent.sandbox_libc import LIBC, UnsignedLong

if TYPE_CHECKING:
    from reconciler.agent.owned_directories import OwnedDirectory

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
MS_SLAVE = 1 << 19
CLONE_NEWNS = 0x00020000
VIEW_PREFIX = "machines-view-"  # the host view's directory, under the temporary directory
MS_RELATIME = 1 << 21
# statvfs's flags that a remount must keep (a user namespace may not clear locked ones)
KEPT_FLAGS = {
    os.ST_NOSUID: MS_NOSUID,
    os.ST_NODEV: MS_NODEV,
    os.ST_NOEXEC: MS_NOEXEC,
    os.ST_NOATIME: MS_NOATIME,
    os.ST_NODIRATIME: MS_NODIRATIME,
    os.ST_RELATIME: MS_RELATIME,
}
OWN = ("proc", "sys", "dev")
KERNEL_SETTINGS = ("sys", "sysrq-trigger")  # under /proc
CHARACTER_DEVICES = ("null", "zero", "full", "random", "urandom", "tty", "fuse")
DEVICES = "dev"  # under a server's root directory: its hot-pluggable /dev, when it has disks
PARTITIONS = "partitions"  # beside it: its /proc/partitions
GUEST_FILESYSTEMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest_filesystems.py")
GUEST_HELPERS = ("mount.ext2", "mount.ext3", "mount.ext4", "umount.fuse")  # guest_filesystems.HELPERS
DEVICE_LINKS = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
    "ptmx": "pts/ptmx",
}


def mount(source: str, target: str, kind: str | None, flags: int, options: str | None = None) -> None:
    try:
        LIBC.call(
            "mount",
            source.encode(),
            target.encode(),
            kind.encode() if kind else None,
            UnsignedLong(flags),
            options.encode() if options else None,
        )
    except OSError as error:
        raise OSError(error.errno, f"mount {source} on {target}: {os.strerror(error.errno or 0)}") from None


def bind_read_only(source: str, target: str) -> None:
    """Bind `source` (and every mount beneath it) at `target`, all of them read-only."""
    mount(source, target, None, MS_BIND | MS_REC)
    for point in mounts_under(target):
        kept = os.statvfs(point).f_flag
        flags = sum(flag for st, flag in KEPT_FLAGS.items() if kept & st)
        mount("none", point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)


def mounts_under(target: str) -> list[str]:
    """The mount points at `target` and beneath it, outermost first."""
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8") as mountinfo:
        for line in mountinfo:
            point = line.split()[4].replace("\\040", " ")
            if point == target or point.startswith(target.rstrip("/") + "/"):
                points.append(point)
    return points


def overlay(lower: str, root: str, name: str, target: str) -> None:
    upper, work = os.path.join(root, "upper", name), os.path.join(root, "work", name)
    os.makedirs(upper, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    mount("overlay", target, "overlay", 0, f"userxattr,lowerdir={lower},upperdir={upper},workdir={work}")


def touch(path: str) -> None:
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))


def host_mounts(view: str | None = None) -> tuple[set[str], set[str]]:
    """The names at the top of the host's root that hold other mounts (overlayfs refuses them in
    a user namespace: the mounts beneath are locked) and those that are mounts themselves, read
    once from the mount table; the host's `view` (the starter's own mount) is not one of them."""
    holding, mounted = set(), set()
    with open("/proc/self/mountinfo", encoding="utf-8") as mountinfo:
        for line in mountinfo:
            point = line.split()[4].replace("\\040", " ")
            if point == view:
                continue
            parts = point.split("/")
            if len(parts) > 2 and parts[1]:
                holding.add(parts[1])
            elif len(parts) == 2 and parts[1]:
                mounted.add(parts[1])
    return holding, mounted


def host_view() -> OwnedDirectory | None:
    """The host's root file system alone (no mount on it), bound in a mount namespace this process
    enters, for the machines it forks to lay their overlay on; None where it may not be made (a
    user namespace's root may not bind what would uncover the mounts' hidden directories), or
    where the temporary directory, which holds it, is on a file system of its own (the view's
    mount would then be locked beneath that directory, and overlayfs would refuse it).

    Run by the machines' starter as it starts, which lives until its machines are gone, then
    `drop_view`; its directory is removed by the next starter if it was killed (`owned_directories`)."""
    if os.geteuid() != 0:
        return None
    import tempfile  # the starter's alone, as the next: boots need neither

    from reconciler.agent.owned_directories import OwnedDirectory

    if tempfile.gettempdir().split("/")[1] in host_mounts()[1]:
        return None

    try:
        view = OwnedDirectory(VIEW_PREFIX, shallow=True)
    except OSError:
        return None
    try:
        LIBC.call("unshare", CLONE_NEWNS)
        mount("none", "/", None, MS_REC | MS_SLAVE)  # the host's mounts reach here, none goes back
        mount("/", str(view.path), None, MS_BIND)  # not recursive: the root file system alone
    except OSError:
        view.remove()
        return None
    try:
        mount("none", str(view.path), None, MS_PRIVATE)  # nor does a mount the host makes later
    except OSError:
        drop_view(view)
        return None
    return view


def drop_view(view: OwnedDirectory) -> None:
    """Unbind the host's view, then remove its directory; one that could not be unbound is left
    to the next starter's sweep (which sees it, from the host's mounts, as the empty directory)."""
    try:
        LIBC.call("umount2", str(view.path).encode(), MNT_DETACH)
    except OSError:
        return
    view.remove()


def top_level(entry: os.DirEntry[str], root: str, tree: str, refused: set[str] | None = None) -> None:
    """One entry of the host's root, as the sandbox's root shows it; `refused`: the directories
    overlayfs would refuse (bound read-only without trying, which costs a mount and a kernel warning)."""
    target = os.path.join(tree, entry.name)
    if os.path.islink(target) and not entry.is_symlink():
        os.unlink(target)  # a link a script left where the host has something else now: never followed
    if entry.is_symlink():
        if not os.path.lexists(target):
            os.symlink(os.readlink(entry.path), target)
    elif entry.is_dir():
        if os.path.lexists(target) and not os.path.isdir(target):
            return  # the server's own file stands where the host has a directory
        os.makedirs(target, exist_ok=True)
        if entry.name in OWN:
            return
        if refused is not None and entry.name in refused:
            bind_read_only(entry.path, target)
            return
        try:
            overlay(entry.path, root, entry.name, target)
        except OSError:
            bind_read_only(entry.path, target)
    elif entry.is_file():
        if os.path.lexists(target) and not os.path.isfile(target):
            return  # the server's own directory stands where the host has a file
        touch(target)
        bind_read_only(entry.path, target)


def own_proc(target: str) -> None:
    """The sandbox's own /proc, its kernel settings read-only: the kernel is the host's."""
    try:
        mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        bind_read_only("/proc", target)
        return
    for name in KERNEL_SETTINGS:
        if os.path.exists(f"{target}/{name}"):
            bind_read_only(f"{target}/{name}", f"{target}/{name}")


def own_dev(target: str, root: str) -> None:
    """A fresh /dev: the usual character devices bound from the host, its own pts and shm; kept
    in the server's devices directory when it has disks, else in memory."""
    devices = os.path.join(root, DEVICES)
    if os.path.isdir(devices):
        mount(devices, target, None, MS_BIND)
        kept = os.statvfs(target).f_flag
        flags = sum(flag for st, flag in KEPT_FLAGS.items() if kept & st)
        mount("none", target, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NOEXEC | flags)  # as a tmpfs /dev
    else:
        mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755")
    for name in CHARACTER_DEVICES:
        host = os.path.join("/dev", name)
        if os.path.exists(host) and stat.S_ISCHR(os.stat(host).st_mode):
            touch(os.path.join(target, name))
            mount(host, os.path.join(target, name), None, MS_BIND)
    for name, points_to in DEVICE_LINKS.items():
        if not os.path.lexists(os.path.join(target, name)):
            os.symlink(points_to, os.path.join(target, name))
    for name in ("pts", "shm"):
        os.makedirs(os.path.join(target, name), exist_ok=True)
    terminals = "newinstance,ptmxmode=0666,mode=0620"
    mount("devpts", os.path.join(target, "pts"), "devpts", MS_NOSUID | MS_NOEXEC, terminals)
    mount("tmpfs", os.path.join(target, "shm"), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")


def give_disks(root: str, tree: str) -> None:
    """The server's partitions list over its /proc's, and mount(8)'s helpers for its disks' file
    systems in its root (where the root's /sbin takes no file, its disks stay unmountable)."""
    # only a server with disks needs these (each imports `re`): every machine's boot runs this file
    import shlex
    import shutil

    mount(os.path.join(root, PARTITIONS), f"{tree}/proc/partitions", None, MS_BIND)
    if shutil.which("fuse2fs") is None:
        return
    python, helpers = shlex.quote(sys.executable), shlex.quote(GUEST_FILESYSTEMS)
    shim = f'#!/bin/sh\nexec {python} -I -S {helpers} "${{0##*/}}" "$@"\n'
    for name in GUEST_HELPERS:
        try:
            with open(f"{tree}/sbin/{name}", "w", encoding="utf-8") as helper:
                helper.write(shim)
            os.chmod(f"{tree}/sbin/{name}", 0o755)
        except OSError:
            return


def whole(view: str, root: str, tree: str) -> bool:
    """The tree as one overlay on the host's view; whether overlayfs took it."""
    upper, work = os.path.join(root, "upper"), os.path.join(root, "work-whole")
    os.makedirs(upper, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    try:
        mount("overlay", tree, "overlay", 0, f"userxattr,lowerdir={view},upperdir={upper},workdir={work}")
    except OSError:
        return False
    return True


def build(root: str, run: str, sockets: list[str], view: str | None = None) -> str:
    holding, mounted = host_mounts(view)  # the host's, before the tree's own
    tree = os.path.join(root, "tree")
    os.makedirs(tree, exist_ok=True)
    if view is not None and whole(view, root, tree):
        apart = os.path.join(root, "apart")  # layers of their own: never inside the tree's
        for entry in os.scandir("/"):
            if entry.name in (holding | mounted) - set(OWN):
                top_level(entry, apart, tree, holding)
    else:
        mount(tree, tree, None, MS_BIND)  # pivot_root asks for a mount point
        for entry in os.scandir("/"):
            top_level(entry, root, tree, holding)
    own_proc(f"{tree}/proc")
    bind_read_only("/sys", f"{tree}/sys")
    own_dev(f"{tree}/dev", root)
    if os.path.isfile(os.path.join(root, PARTITIONS)):
        give_disks(root, tree)
    mount("tmpfs", f"{tree}{root}", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700")
    os.makedirs(f"{tree}{run}", exist_ok=True)
    mount(run, f"{tree}{run}", None, MS_BIND)
    for socket in sockets:  # a Unix socket is reached by its own inode, not through an overlay
        mount(socket, f"{tree}{socket}", None, MS_BIND)
    os.mkdir(f"{tree}{root}/.host")  # where pivot_root puts the host's root, to be detached
    return tree

"""A directory whose subdirectories are hierarchies of their own: the fleet's state directory.

Every server's directory holds its sandbox's layers, and a machine's boot makes and removes a
hundred or so inodes there (the root's mount points and layers, and overlayfs's checks of its
work directory at every mount). ext4 places a new directory's inodes near its parent's, so every
server's land in the one block group of the fleet's state directory; and without a journal it
allocates an inode by walking past every inode freed in that group in the last minute. A
thousand machines booting side by side then pay for one another's deletions, more the more of
them there are.

The file system's own hint for this is the "top of directory hierarchies" flag (`chattr +T`):
the subdirectories of a directory carrying it are unrelated, and ext4 spreads them over its
groups (the Orlov allocator), each server's directory with its own. On a file system without
the flag nothing changes, and nothing is said: it is a placement hint, not a need.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
from pathlib import Path

FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_TOPDIR_FL = 0x00020000


def mark_top_of_hierarchies(directory: Path) -> None:
    """Make `directory` (created if need be) spread its subdirectories over the file system."""
    directory.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            flags = struct.unpack("I", fcntl.ioctl(descriptor, FS_IOC_GETFLAGS, b"\0" * 4))[0]
            if not flags & FS_TOPDIR_FL:
                fcntl.ioctl(descriptor, FS_IOC_SETFLAGS, struct.pack("I", flags | FS_TOPDIR_FL))
        finally:
            os.close(descriptor)

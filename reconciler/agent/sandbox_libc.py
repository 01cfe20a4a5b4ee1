"""The C library's calls a sandbox's boot makes (mount, umount2, sethostname, syscall), through
`_ctypes` alone.

Every machine's boot runs in an interpreter of its own, and importing `ctypes` (dozens of classes
made at import) costs that boot more than every call it then makes; the C module beneath it is
enough to call a C function by name with bytes, integers and unsigned longs. Standard library's C
modules only: this runs inside the sandbox by path.
"""

from __future__ import annotations

import _ctypes
import os


class _Int(_ctypes._SimpleCData):  # type: ignore[type-arg]  # ctypes.c_int, as ctypes makes it
    _type_ = "i"


class UnsignedLong(_ctypes._SimpleCData):  # type: ignore[type-arg]  # ctypes.c_ulong
    _type_ = "L"


class Long(_ctypes._SimpleCData):  # type: ignore[type-arg]  # ctypes.c_long
    _type_ = "l"


class _Function(_ctypes.CFuncPtr):  # a C function returning int, errno kept
    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = _Int


class _Library:
    """The C library the interpreter runs on (what `ctypes.CDLL(None)` opens)."""

    def __init__(self) -> None:
        self._handle = _ctypes.dlopen(None, os.RTLD_LOCAL)  # type: ignore[arg-type]  # the program itself
        self._functions: dict[str, _Function] = {}

    def call(self, name: str, *arguments: object) -> int:
        """Call `name`; its result, or OSError with the C library's errno when it is -1."""
        function = self._functions.get(name)
        if function is None:
            function = self._functions[name] = _Function((name, self))  # type: ignore[arg-type]  # as CDLL
        result: int = function(*arguments)
        if result == -1:
            number = _ctypes.get_errno()
            raise OSError(number, f"{name}: {os.strerror(number)}")
        return result


LIBC = _Library()

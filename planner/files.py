"""Reading a file the user names (a scenario, a config.json, a safetensors index): a regular file, opened without
blocking so a named pipe cannot hang, read up to a limit so a huge file cannot exhaust memory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

KINDS = {stat.S_ISDIR: "a folder", stat.S_ISFIFO: "a named pipe", stat.S_ISCHR: "a character device",
         stat.S_ISBLK: "a block device", stat.S_ISSOCK: "a socket"}  # what a path that is not a regular file is


def read_bytes(path: Path, source: str, *, limit: int, regular: str, at_most: str, error: type[Exception]) -> bytes:
    """The file's bytes, at most `limit`; else `error` with one line naming `source`, what is wrong and the rule:
    "`regular` must be a regular file", "`at_most` may be at most N MB (N bytes)"."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise error([f"{source}: cannot read the file: {exc.strerror or exc}"]) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((kind for is_kind, kind in KINDS.items() if is_kind(mode)), "a special file")
            raise error([f"{source}: not a regular file ({kind}): {regular} must be a regular file"])
        with open(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise error([f"{source}: cannot read the file: {exc.strerror or exc}"]) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise error([f"{source}: the file is larger than {limit // 2**20} MB: {at_most} may be at most"
                     f" {limit // 2**20} MB ({limit:,} bytes)"])
    return data


def utf8_text(data: bytes, source: str, *, rule: str, error: type[Exception]) -> str:
    """The bytes as UTF-8 text; else `error` with one line naming `source`, the line and byte, and `rule` (what the
    file must be)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise error([f"{source}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}): {rule}"]) from None

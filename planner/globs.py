"""Glob patterns over the file system, as `planner batch` paths and benchmark file entries use them: `*`, `?` and
`[…]` within a name, `**` for a folder and every folder below it. Names starting with a dot match only a pattern
that starts with one, and `**` does not enter such folders, as in Python's glob.

Why not glob.glob: under `**` it follows a symbolic link back up the tree again and again (two such links make
the walk exponential: a batch never finished), and it has no bound on a large tree. Here a `**` walk enters each
folder once, however many links lead to it, and any pattern stops after MAX_ENTRIES folder entries, with a
message that says so.
"""

from __future__ import annotations

import fnmatch
import glob
import os

# Folder entries one pattern may look through: a `**` over a home folder or / would otherwise run for minutes, and
# a folder of scenarios or benchmark logs holds far fewer.
MAX_ENTRIES = 100_000
LOOKED_STEP = 100  # entries between two words to a progress bar


class GlobError(ValueError):
    """A pattern that looked through more than MAX_ENTRIES folder entries: `problem` says so in words."""

    def __init__(self, pattern: str, problem: str):
        from planner.scenario.errors import cut

        self.pattern, self.problem = pattern, problem
        super().__init__(f"{cut(pattern)}: {problem}")


def has_magic(pattern: str) -> bool:
    return glob.has_magic(pattern)


def matches(pattern: str, looked=None) -> list[str]:
    """The paths that match `pattern`, sorted, spelled as the pattern spells them (relative stays relative);
    `looked(n)`, when given, is told of every LOOKED_STEP folder entries looked through (a progress bar)."""
    walk = _Walk(pattern, looked)
    parts = pattern.split(os.sep)
    start = os.sep if pattern.startswith(os.sep) else ""
    if start:
        parts = parts[1:]
    return sorted(set(walk.expand(start, parts)) - {""})


class _Walk:
    """One pattern's walk: the folder entries seen so far, counted against MAX_ENTRIES."""

    def __init__(self, pattern: str, looked=None):
        self.pattern, self.looked = pattern, looked
        self.seen = 0

    def expand(self, folder: str, parts: list[str]):
        """The paths below `folder` that match the pattern's remaining parts."""
        if not parts:
            yield folder
            return
        part, rest = parts[0], parts[1:]
        if part == "**":
            for below, entries in self._folders(folder):
                yield from self.expand(below, rest)
                if not rest:  # a last ** names the files below too
                    yield from (os.path.join(below, name) for name, is_folder in entries
                                if not is_folder and not name.startswith("."))
        elif part == "":  # a trailing or doubled separator: folders only, as glob does
            if not rest and os.path.isdir(folder or os.curdir):
                yield os.path.join(folder, "")
            elif rest:
                yield from self.expand(folder, rest)
        elif has_magic(part):
            for name, is_folder in self._entries(folder):
                if (is_folder or not rest) and _name_matches(name, part):
                    yield from self.expand(os.path.join(folder, name), rest)
        else:
            path = os.path.join(folder, part)
            if rest and os.path.isdir(path) or not rest and os.path.lexists(path):
                yield from self.expand(path, rest)

    def _entries(self, folder: str) -> list[tuple[str, bool]]:
        """(name, is a folder) of each entry in `folder`, links to folders counted as folders; [] when it cannot be
        read."""
        found = []
        try:
            with os.scandir(folder or os.curdir) as entries:
                for entry in entries:
                    self._count()
                    try:
                        found.append((entry.name, entry.is_dir()))
                    except OSError:
                        found.append((entry.name, False))
        except OSError:
            return []
        return found

    def _folders(self, top: str) -> list[tuple[str, list[tuple[str, bool]]]]:
        """`top` and every folder below it, each once (by device and inode), hidden ones left out; with each, its
        entries."""
        found, seen, stack = [], set(), [top]
        while stack:
            folder = stack.pop()
            try:
                info = os.stat(folder or os.curdir)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            entries = self._entries(folder)
            found.append((folder, entries))
            stack += [os.path.join(folder, name) for name, is_folder in reversed(entries)
                      if is_folder and not name.startswith(".")]
        return found

    def _count(self) -> None:
        self.seen += 1
        if self.looked is not None and self.seen % LOOKED_STEP == 0:
            self.looked(LOOKED_STEP)
        if self.seen > MAX_ENTRIES:
            raise GlobError(self.pattern, f"the pattern looked through more than {MAX_ENTRIES:,} folder entries, the "
                                          f"most one pattern may: name a smaller folder, or fewer levels than **")


def _name_matches(name: str, part: str) -> bool:
    if name.startswith(".") and not part.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, part)

"""Read a scenario file into plain data and a map of key path → line, refusing what a scenario never needs.

Only a regular UTF-8 file of at most 1 MB is read, of characters YAML allows in a file (no C0 controls but tab
and line ends, no DEL, U+FFFE or U+FFFF); a key or value written with an escape ("\x01") obeys the same rule.
Plain values follow YAML 1.2's core schema: only true/false are booleans, 1:30 and yes stay text, 15.6e12 is a
number; a whole number with a leading zero (010: 8 in YAML 1.1, 10 in 1.2) and a number that is not finite (.inf,
.nan, 1e400) are refused. Keys are text and given once; anchors, aliases and tags are refused, and nesting stops at
20 levels.

Why PyYAML's event parser and a builder of our own: the data is built from the parser's events in one pass with an
explicit stack, so an anchor or a 21st level stops it at once (an alias bomb at its first anchor, deep nesting
without recursion), every problem knows its key path, and the line map costs no second walk (the old one walked
every alias path). ruamel.yaml (YAML 1.2) was tried too and not taken: it reads 010 as 10, .inf and 1e400 as inf and
~ as a key, raises RecursionError on 5,000 nested [, is several times slower on large files, and has no switch to
refuse aliases, so the same checks would be needed on top of a new dependency. benchmarks/README.md has the figures.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from planner.files import read_bytes, utf8_text
from planner.scenario.errors import cut, quoted

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 20
NOT_FINITE = "numbers must be finite (at most about 1.8e308)"
DEEPER = f"nested deeper than {MAX_DEPTH} levels: a scenario nests at most {MAX_DEPTH} levels"

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser where installed; only events are used
# YAML 1.2 core schema (yaml.org/spec/1.2.2, 10.3.2), for plain (unquoted) values
_NULL = re.compile(r"null|Null|NULL|~|")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_LEADING_ZERO = re.compile(r"[-+]?0[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_NOT_FINITE = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
_NOT_TEXT = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")  # YAML's


class YAMLFileError(Exception):
    """A file that cannot be read as a scenario; `problems` holds one line per problem: file:line: key: what."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def read(path: str | Path) -> tuple[Any, dict[tuple, int]]:
    """The file's data (None when empty) and each key path's 1-based line; list items are keyed by index."""
    source = str(path)
    text = _read_text(Path(path), source)
    builder = _Builder(source)
    try:
        for event in yaml.parse(text, Loader=_Loader):
            builder.add(event)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "maximum nesting depth" in problem:  # newer libyaml scans a deep flow collection before its events
            raise YAMLFileError([f"{where}: {DEEPER}"]) from None
        raise YAMLFileError([f"{where}: YAML syntax error: {problem}"]) from None
    if builder.problems:
        raise YAMLFileError(builder.problems)
    return builder.data, builder.lines


def _read_text(path: Path, source: str) -> str:
    """The file's text: a regular file (opened without blocking, so a named pipe cannot hang), ≤ MAX_BYTES, UTF-8."""
    data = read_bytes(path, source, limit=MAX_BYTES, regular="a scenario", at_most="a scenario file",
                      error=YAMLFileError)
    text = utf8_text(data, source, rule="a scenario file must be UTF-8", error=YAMLFileError)
    bad = _NOT_TEXT.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise YAMLFileError([f"{source}:{line}: character U+{ord(bad.group()):04X} is not allowed:"
                             " a scenario file is plain text"])
    return text


def plain_value(text: str) -> Any:
    """A plain (unquoted) value as YAML 1.2's core schema reads it; ValueError for a number this tool refuses."""
    if _NULL.fullmatch(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _LEADING_ZERO.fullmatch(text):
        raise ValueError("a whole number with a leading zero is octal in YAML 1.1:"
                         " write it without the leading zero, or in quotes for text")
    if _INT.fullmatch(text):
        number = int(text, 0) if text[:2] in ("0o", "0x") else int(text) if len(text) < 400 else math.inf
        if abs(number) > sys.float_info.max:  # the engine computes in floats
            raise ValueError(NOT_FINITE)
        return number
    if _NOT_FINITE.fullmatch(text) or _FLOAT.fullmatch(text) and not math.isfinite(float(text)):
        raise ValueError(NOT_FINITE)
    return float(text) if _FLOAT.fullmatch(text) else text


def _key_text(path: tuple) -> str:
    return cut(".".join(str(p + 1) if isinstance(p, int) else p for p in path)) or "(top level)"


def not_text(text: str) -> str | None:
    """The first character a scenario file may not hold (raw or written as an escape such as "\\x01"), as U+XXXX;
    None when there is none."""
    bad = _NOT_TEXT.search(text)
    return f"U+{ord(bad.group()):04X}" if bad else None


class _Builder:
    """Builds plain data from parser events with an explicit stack of open mappings and lists."""

    def __init__(self, source: str):
        self.source = source
        self.data: Any = None
        self.lines: dict[tuple, int] = {}
        self.problems: list[str] = []
        self.stack: list[list] = []  # [container, its key path, the key waiting for its value (mappings)]
        self.documents = 0

    def add(self, event: yaml.Event) -> None:
        line = event.start_mark.line + 1
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise self._stop(line, None, "a second YAML document (---): a scenario file holds one document")
            return
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.stack.pop()
            return
        if not isinstance(event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent,
                                  yaml.AliasEvent)):
            return  # stream and document ends
        top = self.stack[-1] if self.stack else None
        if top is not None and isinstance(top[0], dict) and top[2] is None:
            self._add_key(event, top, line)
            return
        if top is None:
            path = ()
        elif isinstance(top[0], dict):
            path = top[1] + (top[2],)
        else:
            path = top[1] + (len(top[0]),)
            self.lines[path] = line
        self._refuse_anchors_and_tags(event, path, line)
        if isinstance(event, yaml.ScalarEvent):
            value = self._scalar(event, path, line)
        else:
            if len(self.stack) >= MAX_DEPTH:
                raise self._stop(line, path, DEEPER)
            value = {} if isinstance(event, yaml.MappingStartEvent) else []
        if top is None:
            self.data = value
        elif isinstance(top[0], dict):
            top[0][top[2]] = value
            top[2] = None
        else:
            top[0].append(value)
        if isinstance(value, (dict, list)):
            self.stack.append([value, path, None])

    def _add_key(self, event: yaml.Event, top: list, line: int) -> None:
        """A mapping's key: text, given once; a problem is noted and the key's text kept, so reading goes on."""
        if not isinstance(event, yaml.ScalarEvent):
            self._refuse_anchors_and_tags(event, top[1], line)
            raise self._stop(line, top[1], "a key that is a list or a mapping: keys must be text"
                                           " (names such as gpus or memory)")
        character = not_text(event.value)
        if character:
            raise self._stop(line, top[1], f"the key {quoted(event.value)} holds character {character} (written as an "
                                           f"escape): keys, like the whole file, are plain text")
        path = top[1] + (event.value,)
        self._refuse_anchors_and_tags(event, path, line)
        try:
            key = plain_value(event.value) if event.implicit[0] else event.value
        except ValueError:
            key = 0.0  # a number nonetheless
        if not isinstance(key, str):
            kind = "null" if key is None else "a boolean" if isinstance(key, bool) else "a number"
            self.problems.append(f"{self.source}:{line}: {_key_text(path)}: the key is {kind}:"
                                 " keys must be text (names such as gpus or memory)")
        elif path in self.lines:
            self.problems.append(f"{self.source}:{line}: {_key_text(path)}: key given twice: give each key once")
        self.lines[path] = line
        top[2] = event.value

    def _refuse_anchors_and_tags(self, event: yaml.Event, path: tuple, line: int) -> None:
        if isinstance(event, yaml.AliasEvent) or event.anchor is not None:
            raise self._stop(line, path, "anchors and aliases (&name, *name) are not allowed:"
                                         " write each value out in full")
        if event.tag is not None:
            tag = event.tag.replace("tag:yaml.org,2002:", "!!")
            raise self._stop(line, path, f"the tag {tag} is not allowed: write plain values, without tags")

    def _scalar(self, event: yaml.ScalarEvent, path: tuple, line: int) -> Any:
        """A plain value as YAML 1.2's core schema reads it; a quoted value is text; a refused value is noted."""
        character = not_text(event.value)
        if character:
            self.problems.append(f"{self.source}:{line}: {_key_text(path)}: value {quoted(event.value)} holds "
                                 f"character {character} (written as an escape): a scenario file is plain text, "
                                 f"escapes included")
            return ""
        if not event.implicit[0]:
            return event.value
        try:
            return plain_value(event.value)
        except ValueError as exc:
            self.problems.append(f"{self.source}:{line}: {_key_text(path)}: value {cut(event.value)} is not allowed:"
                                 f" {exc}")
            return event.value

    def _stop(self, line: int, path: tuple | None, what: str) -> YAMLFileError:
        key = "" if path is None else f" {_key_text(path)}:"
        return YAMLFileError(self.problems + [f"{self.source}:{line}:{key} {what}"])

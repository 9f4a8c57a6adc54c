"""Files into a scratch index in bulk: one ``git hash-object`` for all the blobs and
``update-index`` calls of many entries each, where a pair of git processes per file made
committing a generated workspace (hundreds of files) launch hundreds of processes."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import git

# Bytes of arguments per update-index call: below Windows' 32,767-character command line,
# far below Linux's ARG_MAX. A call stages a few hundred entries.
ARGV_BUDGET = 30_000


def write_blobs(g: git.Git, files: Sequence[Path], *, env: Mapping[str, str]) -> list[str]:
    """Write ``files``' contents (as they are: no filters) as blobs; their ids, in order."""
    if not files:
        return []
    with tempfile.TemporaryFile() as paths:
        paths.write(b"".join(_c_quoted(os.fsencode(file)) + b"\n" for file in files))
        paths.seek(0)
        out = str(g.hash_object("-w", "--no-filters", "--stdin-paths", istream=paths, env=env))
    shas = out.split()
    if len(shas) != len(files):  # git exits non-zero first; this guards the pairing
        raise git.GitCommandError(["git", "hash-object", "--stdin-paths"], 0, out)
    return shas


def stage(
    g: git.Git,
    *,
    remove: Iterable[str] = (),
    add: Iterable[tuple[str, str, str]] = (),
    env: Mapping[str, str],
) -> None:
    """Remove the paths ``remove`` from the index, then add ``add`` ((mode, blob, path)).

    ``--cacheinfo`` (not ``--index-info``, which would quietly drop a path git refuses and
    let a file replace a folder that is still in the index) keeps what one call per file
    did: such a path fails the call. Removals go first so a folder replaced by a file whose
    entries are all removed stages in any order."""
    # after "--" every argument is a path, even one starting with "-"
    for chunk in _chunks(([path] for path in remove), lead=["--force-remove", "--"]):
        g.update_index(*chunk, env=env)
    additions = (["--cacheinfo", f"{mode},{sha},{path}"] for mode, sha, path in add)
    for chunk in _chunks(additions, lead=["--add"]):
        g.update_index(*chunk, env=env)


def _chunks(groups: Iterable[list[str]], *, lead: list[str]) -> Iterator[list[str]]:
    """``lead`` followed by as many argument ``groups`` as fit :data:`ARGV_BUDGET`."""
    chunk: list[str] = []
    size = 0
    for group in groups:
        cost = sum(len(os.fsencode(arg)) + 1 for arg in group)
        if chunk and size + cost > ARGV_BUDGET:
            yield [*lead, *chunk]
            chunk, size = [], 0
        chunk += group
        size += cost
    if chunk:
        yield [*lead, *chunk]


def _c_quoted(path: bytes) -> bytes:
    """``path`` as git reads a C-style quoted line (``--stdin-paths``): any name, even one
    holding a newline, a trailing carriage return or a leading quote."""
    out = bytearray(b'"')
    for byte in path:
        if byte in b'"\\':
            out += b"\\" + bytes([byte])
        elif byte < 0x20 or byte == 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')

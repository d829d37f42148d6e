"""Git history as ``CommitRecorded`` events: the backfill stream and the one-commit hook path.

Why it exists: history is codememory's temporal layer (what changed together, when, by whom, which
symbols), and it must be read fast enough to backfill thousands of commits at install time. So the
whole range comes from ONE ``git log --reverse -M -p -U0`` process read as a stream, and file
contents for symbol attribution come from ONE long-lived ``git cat-file --batch``; there is never a
process per commit.

Decisions:
- Oldest first. Renames are detected (``-M``) and recorded as status ``renamed`` with ``old_path``.
- Merge commits keep all parents; their ``files`` are the diff against the FIRST parent
  (``--diff-merges=first-parent``), i.e. what the merge brought into the mainline branch.
- The message is the subject line only, passed through ``codememory.redaction.clean_text`` so a
  secret pasted in a commit message never reaches the log. ``author`` is the name, never the email.
- ``symbols`` (when a provider is given) are the qualnames whose spans in the NEW file version
  intersect the commit's changed new-side lines; deleted files have none.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

from codememory.events import CommitRecorded, FileChange
from codememory.githistory.errors import UnknownRevisionError
from codememory.githistory.gitproc import BlobReader, git_dir_of, resolve, stream_lines
from codememory.githistory.patch import LOG_FORMAT, RawCommit, RawFile, parse_log
from codememory.githistory.symbols import SymbolSpans, supports, touched
from codememory.redaction import clean_text

Status = Literal["added", "modified", "deleted", "renamed"]

_LOG_ARGS = [
    "log",
    "--reverse",
    "-M",
    "--diff-merges=first-parent",
    "-p",
    "-U0",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    f"--format={LOG_FORMAT}",
]


_STATUS: dict[str, Status] = {
    "added": "added",
    "modified": "modified",
    "deleted": "deleted",
    "renamed": "renamed",
}


def head_commit(root: Path) -> str:
    """Full sha of ``HEAD`` in the repository at ``root``."""
    return resolve(root, "HEAD")


def read_history(
    root: Path,
    repo: str,
    *,
    since: str | None = None,
    until: str = "HEAD",
    symbols_of: SymbolSpans | None = None,
) -> Iterator[CommitRecorded]:
    """Every commit reachable from ``until`` (and not from ``since``), oldest first, as a stream.

    ``since`` is exclusive (the last commit already recorded), like ``git log since..until``.
    """
    git_dir_of(root)
    resolve(root, until)
    if since is not None:
        resolve(root, since)
    spec = until if since is None else f"{since}..{until}"
    commits = parse_log(stream_lines(root, [*_LOG_ARGS, spec, "--"]))
    if symbols_of is None:
        for raw in commits:
            yield _event(repo, raw, None)
        return
    with BlobReader(root) as blobs:
        spans = _Spans(symbols_of, blobs)
        for raw in commits:
            yield _event(repo, raw, spans)


def read_commit(root: Path, repo: str, sha: str, symbols_of: SymbolSpans | None = None) -> CommitRecorded:
    """One commit (what the post-commit hook records), same fields as ``read_history`` gives it."""
    full = resolve(root, sha)
    raws = list(parse_log(stream_lines(root, [*_LOG_ARGS[:1], "-1", *_LOG_ARGS[2:], full, "--"])))
    if not raws:
        raise UnknownRevisionError(sha)
    if symbols_of is None:
        return _event(repo, raws[0], None)
    with BlobReader(root) as blobs:
        return _event(repo, raws[0], _Spans(symbols_of, blobs))


class _Spans:
    """Symbol spans of files at commits, parsed once per (path, blob): merges and reverts repeat blobs."""

    def __init__(self, symbols_of: SymbolSpans, blobs: BlobReader, size: int = 4096) -> None:
        self._of = symbols_of
        self._blobs = blobs
        self._size = size
        self._cache: OrderedDict[tuple[str, str], Sequence[tuple[str, int, int]]] = OrderedDict()

    def touched(self, sha: str, raw: RawFile) -> tuple[str, ...]:
        if raw.status == "deleted" or not raw.ranges or not supports(self._of, raw.path):
            return ()
        found = self._blobs.read_object(sha, raw.path)
        if found is None:
            return ()
        key = (raw.path, found[0])
        spans = self._cache.get(key)
        if spans is None:
            spans = self._cache[key] = self._of(raw.path, found[1])
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return touched(spans, raw.ranges)


def _event(repo: str, raw: RawCommit, spans: _Spans | None) -> CommitRecorded:
    return CommitRecorded(
        repo=repo,
        sha=raw.sha,
        parents=raw.parents,
        author=raw.author,
        authored_at=raw.authored_at,
        message=clean_text(raw.subject),
        files=tuple(_change(raw.sha, f, spans) for f in raw.files),
    )


def _change(sha: str, raw: RawFile, spans: _Spans | None) -> FileChange:
    symbols = () if spans is None else spans.touched(sha, raw)
    return FileChange(
        path=raw.path,
        status=_STATUS.get(raw.status, "modified"),
        old_path=raw.old_path,
        added_lines=raw.added,
        deleted_lines=raw.deleted,
        symbols=symbols,
    )

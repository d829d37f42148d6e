"""Which files an observed tool use changed, and the code facts that describe them now.

Only successful edits and writes after they ran count (a read changes nothing; a pre-tool event has
not happened yet). Paths arrive repository-relative when the hook could tell (see ingest); the file is
read from the work tree found from the event's working directory, so this runs where the agent's files
are (the embedded stack; in a cluster the client-side ``codememory index`` and post-commit hook do it).
A file that is gone is a ``FileDeleted``; one whose content hash is the one last extracted is skipped.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from codememory.code.discovery import cached_roots
from codememory.code.roots import SourceRoots
from codememory.codefacts import CodeFact
from codememory.events import Envelope, FileDeleted, SymbolsExtracted, ToolObserved
from codememory.hookclient.gitrepo import find_git

log = structlog.get_logger(__name__)

Extract = Callable[[str, str, bytes, SourceRoots | None], SymbolsExtracted]
MAX_FILE_BYTES = 2_000_000


def edited_paths(event: object) -> tuple[str, ...]:
    if not isinstance(event, ToolObserved):
        return ()
    if event.phase != "post" or not event.succeeded or event.kind not in ("edit", "write"):
        return ()
    return event.paths


@dataclass
class EditedFiles:
    """Turns edit observations into facts; remembers the hash it last extracted per file."""

    extract: Extract
    roots_of: Callable[[Path], SourceRoots] = cached_roots  # module names as ``codememory index`` names them
    _last: dict[tuple[str, str, str], str] = field(default_factory=dict)

    def facts(self, envelope: Envelope) -> list[CodeFact]:
        event = envelope.payload
        paths = edited_paths(event)
        if not paths:
            return []
        assert isinstance(event, ToolObserved)
        name, root, _ = find_git(event.cwd or ".")
        if not root:
            return []  # not in a work tree: nothing to tie the file to
        repo = event.repo or name
        found: list[CodeFact] = []
        roots = self.roots_of(Path(root))
        for path in paths:
            located = _locate(Path(root), path)
            if located is None:
                continue
            relative, absolute = located
            try:
                fact = self._fact(envelope.tenant, repo, relative, absolute, roots)
            except Exception as exc:  # a file the parser chokes on is skipped, never the whole batch
                log.warning("extract_failed", path=relative, reason=f"{type(exc).__name__}: {exc}")
                continue
            if fact is not None:
                found.append(fact)
        return found

    def forget(self) -> None:
        """Drop what was extracted (the facts were not recorded: a redelivery must extract again)."""
        self._last.clear()

    def _fact(
        self, tenant: str, repo: str, relative: str, absolute: Path, roots: SourceRoots
    ) -> CodeFact | None:
        key = (tenant, repo, relative)
        try:
            too_large = absolute.stat().st_size > MAX_FILE_BYTES  # still a file node, unparsed
            source = b"" if too_large else absolute.read_bytes()
        except FileNotFoundError:
            self._last.pop(key, None)
            return FileDeleted(repo=repo, path=relative)
        except OSError:
            return None
        digest = hashlib.sha256(source).hexdigest()
        if self._last.get(key) == digest:
            return None
        self._last[key] = digest
        return self.extract(repo, relative, source, roots)


def _locate(root: Path, path: str) -> tuple[str, Path] | None:
    """(repository-relative posix path, absolute path), or None when the path is outside the work tree."""
    absolute = Path(path) if os.path.isabs(path) else root / path
    try:
        relative = absolute.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return None
    if relative.parts[:1] == (".git",) or not relative.parts:
        return None
    return relative.as_posix(), absolute

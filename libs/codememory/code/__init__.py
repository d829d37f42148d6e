"""Code-aware memory's parser layer: source files -> ``SymbolsExtracted`` events.

Why it exists: the graph service, ``codememory index`` and code search all need the same symbols,
imports and references, extracted the same way. ``extract`` parses one file (tree-sitter queries),
``walk`` lists a repository's files as git would, ``indexer`` streams a whole repository in
parallel and skips files whose content hash is already known.
"""

from codememory.code.errors import IndexingError, NotARepositoryError, UnsupportedLanguageError, WalkError
from codememory.code.extract import MAX_BYTES, extract_file
from codememory.code.indexer import index_repository
from codememory.code.languages import SUPPORTED, language_of
from codememory.code.summary import IndexProgress, IndexSummary
from codememory.code.walk import RepoFile, repo_name, walk_repository

__all__ = [
    "MAX_BYTES",
    "SUPPORTED",
    "IndexProgress",
    "IndexSummary",
    "IndexingError",
    "NotARepositoryError",
    "RepoFile",
    "UnsupportedLanguageError",
    "WalkError",
    "extract_file",
    "index_repository",
    "language_of",
    "repo_name",
    "walk_repository",
]

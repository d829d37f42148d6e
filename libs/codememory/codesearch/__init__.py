"""Code search: symbols indexed by meaning (MiniLM) and by words (BM25), fused per query."""

from codememory.codesearch.documents import REPRESENTATIONS, SymbolDocument, name_words, symbol_document
from codememory.codesearch.errors import CodeIndexError, CodeSearchError, InvalidCodeInputError
from codememory.codesearch.fusion import (
    Fused,
    FusionConfig,
    FusionParts,
    RankedList,
    by_best_score,
    fuse,
    name_overlap,
)
from codememory.codesearch.index import CODE_KEYWORD_FIELDS, CodeHit, CodeIndex, open_code_index
from codememory.codesearch.search import CodeSearch, SearchMode

__all__ = [
    "CODE_KEYWORD_FIELDS",
    "REPRESENTATIONS",
    "CodeHit",
    "CodeIndex",
    "CodeIndexError",
    "CodeSearch",
    "CodeSearchError",
    "Fused",
    "FusionConfig",
    "FusionParts",
    "InvalidCodeInputError",
    "RankedList",
    "SearchMode",
    "SymbolDocument",
    "by_best_score",
    "fuse",
    "name_overlap",
    "name_words",
    "open_code_index",
    "symbol_document",
]

"""Code search: symbols indexed by meaning (MiniLM) and by words (BM25), fused per query."""

from codememory.codesearch.documents import SymbolDocument, name_words, symbol_document
from codememory.codesearch.errors import CodeIndexError, CodeSearchError, InvalidCodeInputError
from codememory.codesearch.fusion import Fused, FusionConfig, FusionParts, RankedList, by_best_score, fuse
from codememory.codesearch.index import (
    CODE_KEYWORD_FIELDS,
    REPRESENTATIONS,
    CodeHit,
    CodeIndex,
    SearchMode,
    open_code_index,
)

__all__ = [
    "CODE_KEYWORD_FIELDS",
    "REPRESENTATIONS",
    "CodeHit",
    "CodeIndex",
    "CodeIndexError",
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
    "name_words",
    "open_code_index",
    "symbol_document",
]

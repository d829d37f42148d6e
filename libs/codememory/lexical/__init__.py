"""Code-aware lexical matching: identifier splitting plus BM25 sparse vectors for the index."""

from codememory.lexical.sparse import SparseEncoder, SparseVec, sparse_dot
from codememory.lexical.terms import code_terms, identifier_parts

__all__ = ["SparseEncoder", "SparseVec", "code_terms", "identifier_parts", "sparse_dot"]

"""The graph service: keeps the code graph's facts current with what agents edit.

It follows LOG for tool observations; when an agent edited or wrote a file, it reads the file, extracts
its symbols and references with tree-sitter, and appends ``SymbolsExtracted`` (or ``FileDeleted``)
to LOG. The graph projection itself is folded by the gateway from LOG (see docs/architecture.md).
"""

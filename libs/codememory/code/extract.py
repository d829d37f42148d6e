"""One source file -> one ``SymbolsExtracted`` event: symbols, imports and references.

Why it exists: this is the code layer's only parser. It runs one tree-sitter query per file (the
query engine walks the tree in C; Python only sees the matches), nests definitions by their byte
spans, and attributes each call, base class and type use to the innermost enclosing symbol. Files it
cannot read (unsupported language, binary, not UTF-8, over ``MAX_BYTES``) degrade to a file node with
``parsed=False``; a syntax error still yields whatever tree-sitter recovered.

Qualnames are ``module + "." + nesting``; the module is named under the repository's source roots
(``roots``: the names code imports), else from the path (``modules``). How definitions become named
symbols is ``symbols.py``'s: a later definition of a qualname already defined in the file (a Java
overload, a property setter, a conditional redefinition) is kept as its own symbol named
``qualname#2``, ``#3``... (``name`` unchanged), so its lines and its digest still belong to a symbol;
the first definition keeps the plain qualname that references resolve to. So no two symbols of one
file share a qualname (``codefacts`` refuses a fact where they do). A function the language scopes
to its file (Go's ``init``, see ``LanguageSpec.file_scoped``) is named under the file's symbol, so
files that share a namespace do not share it either.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import msgspec
from tree_sitter import Node, QueryCursor

from codememory.code import registry
from codememory.code.languages import language_of
from codememory.code.modules import file_symbol_name
from codememory.code.roots import SourceRoots
from codememory.code.spec import ImportContext, LanguageSpec, line_of, node_text
from codememory.code.symbols import Def, name_symbols, nearest
from codememory.code.text import content_hash
from codememory.events import CodeRef, ImportRef, SymbolsExtracted
from codememory.events.catalogue import RefKind

MAX_BYTES = 2 * 1024 * 1024
_REF_KINDS: dict[str, RefKind] = {
    "call": "calls",
    "inherit": "inherits",
    "ref": "references",
    "ref.type": "references",
    "ref.imported": "references",
}
_NO_ROOTS = SourceRoots()
_AS_WRITTEN = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*!?$")


def degraded(repo: str, path: str, source: bytes, language: str = "") -> SymbolsExtracted:
    """The file node of a file that was not parsed."""
    return SymbolsExtracted(
        repo=repo, path=path, content_hash=content_hash(source), language=language, parsed=False
    )


def extract_file(repo: str, path: str, source: bytes, roots: SourceRoots | None = None) -> SymbolsExtracted:
    """Symbols, imports and references of ``source`` (``path`` is repo-relative, posix); ``roots`` are
    the repository's source roots (``discovery``), without which module names come from the path."""
    language = language_of(path)
    if not language or len(source) > MAX_BYTES or b"\0" in source:
        return degraded(repo, path, source, language)
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return degraded(repo, path, source, language)
    spec = registry.spec(language)
    root = registry.parser(language).parse(source).root_node
    return _Extraction(repo, path, source, spec, root, roots or _NO_ROOTS).run()


class _Extraction:
    def __init__(
        self, repo: str, path: str, source: bytes, spec: LanguageSpec, root: Node, roots: SourceRoots
    ) -> None:
        self.repo, self.path, self.source, self.spec, self.root = repo, path, source, spec, root
        self.roots = roots
        self.defs: list[Def] = []
        self.uses: list[tuple[RefKind, Node, str, str]] = []  # (kind, node, capture, text as written)
        self.import_nodes: list[Node] = []
        self.declared = ""

    def run(self) -> SymbolsExtracted:
        self._collect()
        module = self.roots.module_name(self.spec.name, self.path, self.declared)
        file_qual = file_symbol_name(self.spec.name, self.path, module)
        symbols = name_symbols(self.defs, module, file_qual, self.spec, self.source, self.path, self.root)
        names = {s.qualname for s in symbols}
        ctx = ImportContext(module=module, is_package=PurePosixPath(self.path).stem == "__init__")
        imports: list[ImportRef] = []
        for node in self.import_nodes:
            imports.extend(self.spec.imports(node, ctx))
        imports = [self._rooted(imp) for imp in imports]
        return SymbolsExtracted(
            repo=self.repo,
            path=self.path,
            content_hash=content_hash(self.source),
            language=self.spec.name,
            module=module,
            symbols=tuple(symbols),
            imports=tuple(imports),
            refs=tuple(self._refs(names, file_qual, _bindings(imports))),
        )

    def _rooted(self, imp: ImportRef) -> ImportRef:
        spec = self.roots.import_spec(self.spec.name, self.path, imp.module)
        return imp if spec == imp.module else msgspec.structs.replace(imp, module=spec)

    def _collect(self) -> None:
        for _, captures in QueryCursor(registry.query(self.spec.name)).matches(self.root):
            for capture, nodes in captures.items():
                if capture.startswith("def.") or capture in ("scope", "impl"):
                    name_node = captures.get("name", [None])[0]
                    receiver = captures.get("receiver", [None])[0]
                    def_kind = capture[4:] if capture.startswith("def.") else capture
                    self.defs.append(Def(nodes[0], node_text(name_node), def_kind, node_text(receiver)))
                elif capture in _REF_KINDS:
                    ref_kind = _REF_KINDS[capture]
                    self.uses.extend((ref_kind, node, capture, "") for node in nodes)
                elif capture == "call.name":
                    receiver_node = captures.get("call.object", [None])[0]
                    text = node_text(nodes[0])
                    if receiver_node is not None:
                        text = f"{node_text(receiver_node)}.{text}"
                    self.uses.append(("calls", nodes[0], "call", text))
                elif capture == "import":
                    self.import_nodes.extend(nodes)
                elif capture == "package" and not self.declared:
                    self.declared = node_text(nodes[0])

    def _refs(self, names: set[str], file_qual: str, imported: set[str]) -> list[CodeRef]:
        uses = sorted(self.uses, key=lambda u: u[1].start_byte)
        defs = self.defs  # sorted by _symbols
        stack: list[Def] = []
        i = 0
        seen: set[tuple[str, str, str]] = set()
        out: list[CodeRef] = []
        for kind, node, capture, text in uses:
            start = node.start_byte
            while i < len(defs) and defs[i].node.start_byte <= start:
                while stack and stack[-1].node.end_byte <= defs[i].node.start_byte:
                    stack.pop()
                stack.append(defs[i])
                i += 1
            while stack and stack[-1].node.end_byte <= start:
                stack.pop()
            source = nearest(stack[-1].qualname, names, file_qual, inclusive=True) if stack else file_qual
            for target in self._targets(node, capture, text):
                if capture == "ref.imported" and _head(target) not in imported:
                    continue
                key = (kind, source, target)
                if key not in seen:
                    seen.add(key)
                    out.append(CodeRef(kind=kind, source=source, target=target, line=line_of(node)))
        return out

    def _targets(self, node: Node, capture: str, text: str) -> list[str]:
        if capture != "ref.type":
            text = text or node_text(node)
            return [text] if _AS_WRITTEN.match(text) else []
        out: list[str] = []
        todo = [node]
        wanted = self.spec.type_names
        while todo:
            current = todo.pop()
            if current.type in wanted:
                text = node_text(current)
                if text not in self.spec.ignored_types and _AS_WRITTEN.match(text):
                    out.append(text)
                continue
            todo.extend(reversed(current.named_children))
        return out


def _head(target: str) -> str:
    return re.split(r"\.|::", target, maxsplit=1)[0]


def _bindings(imports: list[ImportRef]) -> set[str]:
    """Local names bound by imports: ``import a.b`` binds ``a``, ``from m import x as y`` binds ``y``."""
    out: set[str] = set()
    for ref in imports:
        if ref.alias:
            out.add(ref.alias)
        elif ref.name and ref.name not in ("*", "default"):
            out.add(ref.name)
        elif not ref.name:
            out.add(_head(ref.module).rsplit("/", 1)[-1])
    return out

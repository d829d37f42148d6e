"""A session's key as a puncturable tree: one key per event, and one event erased without the others.

An agent session writes many events (prompts, tool output) and a key store entry plus an fsync per
event would cost too much, so every event of a session shares one stored secret. To still erase one
event, that secret is the root of a GGM tree (Goldreich, Goldwasser, Micali) of arity 16: a node's
children are ``PRF(node, 0)`` .. ``PRF(node, 15)``, and an event's key is the leaf at its *index*, the
first ``DEPTH`` bits of SHA-256 of its leaf name (the event's id; a memory's embedding names the
memory's), read 4 bits a level. Deriving a leaf from the root costs ``LEVELS`` PRF calls and no I/O.

The stored form is a *frontier*: the nodes from which every leaf still readable can be derived, and
no other. A new session's frontier is its root. Puncturing a leaf replaces the frontier node above it
with the siblings of every node on the path from it down to the leaf (15 a level, at most 150), so
nothing stored derives the punctured leaf any more, while every other leaf derives exactly as before:
events of the session sealed earlier open bit for bit. The caller destroys the old frontier
(``keys.py``). Arity 16 rather than 2: a quarter of the PRF calls per event (10, not 40: sealing and
opening an agent event stay cheap, ``bench_erasure``) for a frontier that grows by 150 nodes (about
9 KB) per punctured event rather than 40; a session rarely has more than a few.

The PRF is keyed BLAKE2s (RFC 7693: a keyed hash designed as a MAC, 32-byte key and output): the same
role as HMAC-SHA256 at a quarter of its cost here (0.7 against 3.1 us a call).

Collisions: two leaf names of one session with the same ``DEPTH``-bit index share one key. Nothing
leaks (nonces are random, the additional data names the event); erasing one of them erases the
other too. For a session of n events the chance that any pair collides is about n^2 / 2^41: one in
22,000 for 10,000 events.
"""

from __future__ import annotations

import base64
import hashlib

import msgspec

__all__ = ["ARITY", "DEPTH", "LEVELS", "Frontier", "leaf_index"]

DEPTH = 40
_BITS = 4  # per level
ARITY = 1 << _BITS
LEVELS = DEPTH // _BITS
_KEY = 32
_node = hashlib.blake2s
_DIGITS = tuple(bytes([d]) for d in range(ARITY))


def leaf_index(name: str) -> int:
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - DEPTH)


def _prefix(index: int, level: int) -> int:
    """The index of the node above leaf ``index`` at ``level`` (0: the root)."""
    return index >> (DEPTH - _BITS * level)


class _Encoded(msgspec.Struct, frozen=True, array_like=True):
    level: int
    prefix: int
    key: str  # base64


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(list[_Encoded])


class Frontier:
    """The nodes (level, the node's index at that level) -> key that cover every live leaf."""

    def __init__(self, nodes: dict[tuple[int, int], bytes]) -> None:
        self.nodes = nodes

    @classmethod
    def fresh(cls, root: bytes) -> Frontier:
        if len(root) != _KEY:
            raise ValueError("a root key has 32 bytes")
        return cls({(0, 0): root})

    def _cover(self, index: int) -> tuple[int, bytes] | None:
        root = self.nodes.get((0, 0))
        if root is not None:
            return 0, root
        for level in range(1, LEVELS + 1):
            key = self.nodes.get((level, _prefix(index, level)))
            if key is not None:
                return level, key
        return None

    def leaf(self, index: int) -> bytes | None:
        """The leaf's key, or None when it was punctured."""
        found = self._cover(index)
        if found is None:
            return None
        level, key = found
        node, digits, mask = _node, _DIGITS, ARITY - 1
        for shift in range(DEPTH - _BITS * (level + 1), -1, -_BITS):
            key = node(digits[(index >> shift) & mask], key=key).digest()
        return key

    def punctured(self, index: int) -> Frontier | None:
        """The frontier without the leaf (None when it was punctured already)."""
        found = self._cover(index)
        if found is None:
            return None
        level, key = found
        nodes = dict(self.nodes)
        del nodes[(level, _prefix(index, level))]
        for below in range(level + 1, LEVELS + 1):
            path = _prefix(index, below)  # the path's node one level down
            digit = path & (ARITY - 1)
            for sibling in range(ARITY):
                if sibling != digit:
                    nodes[(below, path - digit + sibling)] = _node(_DIGITS[sibling], key=key).digest()
            key = _node(_DIGITS[digit], key=key).digest()
        return Frontier(nodes)

    def encode(self) -> bytes:
        return _encoder.encode(
            [_Encoded(d, p, base64.b64encode(k).decode()) for (d, p), k in sorted(self.nodes.items())]
        )

    @classmethod
    def decode(cls, data: bytes) -> Frontier:
        """Raises ``ValueError`` on a damaged frontier."""
        try:
            nodes = {
                (n.level, n.prefix): base64.b64decode(n.key, validate=True) for n in _decoder.decode(data)
            }
        except (msgspec.DecodeError, ValueError) as exc:
            raise ValueError(f"damaged frontier: {exc}") from exc
        if any(not 0 <= d <= LEVELS or len(k) != _KEY for (d, _), k in nodes.items()):
            raise ValueError("damaged frontier: a node out of the tree")
        return cls(nodes)

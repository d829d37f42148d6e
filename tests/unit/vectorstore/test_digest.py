"""The digest proves two indexes hold the same content, whichever engine holds it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from vectorstore_support import MakeIndex, pid, unit  # type: ignore[import-not-found]

from codememory.lexical import SparseEncoder
from codememory.vectorstore import (
    IndexFilter,
    IndexPoint,
    StoredPoint,
    VectorIndex,
    VectorIndexError,
    index_digest,
)

ENCODER = SparseEncoder()


def fill(index: VectorIndex) -> None:
    index.upsert(
        [
            IndexPoint(
                id=pid(n),
                payload={"tenant": "a" if n % 2 else "b", "seq": n, "text": f"note {n}", "importance": 0.5},
                dense=unit(1, n, 0, 0.5) if n % 3 else None,
                sparse=ENCODER.encode_document(f"memory number {n} about retries"),
            )
            for n in range(20)
        ]
    )


def test_the_same_data_digests_equal_in_both_adapters(make_index: MakeIndex) -> None:
    edge, client = make_index("edge"), make_index("client")
    fill(edge)
    fill(client)
    for flt in (IndexFilter(), IndexFilter(equals={"tenant": "a"})):
        assert index_digest(edge, flt) == index_digest(client, flt)
    assert index_digest(edge, IndexFilter()) != index_digest(edge, IndexFilter(equals={"tenant": "a"}))


def test_payload_vector_and_membership_changes_change_the_digest(make_index: MakeIndex) -> None:
    index = make_index("edge")
    fill(index)
    seen = {index_digest(index, IndexFilter())}
    index.set_payload(pid(3), {"text": "edited"})
    seen.add(index_digest(index, IndexFilter()))
    index.set_dense(pid(3), unit(0, 0, 0, 1))
    seen.add(index_digest(index, IndexFilter()))
    index.replace_sparse(pid(3), ENCODER.encode_document("other words entirely"))
    seen.add(index_digest(index, IndexFilter()))
    index.delete([pid(3)])
    seen.add(index_digest(index, IndexFilter()))
    assert len(seen) == 5
    assert index_digest(index, IndexFilter()) == index_digest(index, IndexFilter())


def test_exclude_makes_differing_keys_irrelevant(make_index: MakeIndex) -> None:
    one, two = make_index("edge"), make_index("edge")
    fill(one)
    fill(two)
    two.set_payload(pid(4), {"seq": 1000})
    assert index_digest(one, IndexFilter()) != index_digest(two, IndexFilter())
    assert index_digest(one, IndexFilter(), exclude={"seq"}) == index_digest(
        two, IndexFilter(), exclude={"seq"}
    )


class _Unordered:
    def scroll(self, flt: IndexFilter, batch: int = 256, with_vectors: bool = False) -> Iterator[StoredPoint]:
        yield StoredPoint(id=pid(2) if pid(2) > pid(1) else pid(1), payload={})
        yield StoredPoint(id=min(pid(1), pid(2)), payload={})


def test_out_of_order_scroll_is_refused() -> None:
    with pytest.raises(VectorIndexError, match="ascending id order"):
        index_digest(_Unordered(), IndexFilter())  # type: ignore[arg-type]

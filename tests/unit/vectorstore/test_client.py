"""qdrant-client specifics: collection creation and reuse, and how library errors are translated."""

from __future__ import annotations

import httpx
import pytest
from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse
from vectorstore_support import open_local, pid  # type: ignore[import-not-found]

from codememory.vectorstore import (
    IndexFilter,
    IndexPoint,
    IndexUnavailableError,
    QdrantClientIndex,
    VectorIndexError,
)
from codememory.vectorstore.client import _translate


def test_existing_collection_is_reused() -> None:
    client = QdrantClient(location=":memory:")
    first = open_local(client)
    first.upsert([IndexPoint(id=pid(1), payload={"tenant": "a"})])
    second = open_local(client)
    assert second.count(IndexFilter()) == 1
    second.close()


def test_existing_collection_with_another_dense_size_is_refused() -> None:
    client = QdrantClient(location=":memory:")
    open_local(client, 4)
    with pytest.raises(VectorIndexError, match="dense size 4"):
        open_local(client, 8)
    client.close()


def test_connection_failures_are_unavailable_and_other_errors_are_index_errors() -> None:
    refused = ResponseHandlingException(httpx.ConnectError("connection refused"))
    assert isinstance(_translate("count", refused), IndexUnavailableError)
    overloaded = UnexpectedResponse(503, "Service Unavailable", b"", httpx.Headers())
    assert isinstance(_translate("count", overloaded), IndexUnavailableError)
    bad = _translate("count", UnexpectedResponse(400, "Bad Request", b"{}", httpx.Headers()))
    assert type(bad) is VectorIndexError


def test_unreachable_server_is_unavailable() -> None:
    client = QdrantClient(url="http://127.0.0.1:9", timeout=1, check_compatibility=False)
    with pytest.raises(IndexUnavailableError):
        QdrantClientIndex(client, "memories", 4)

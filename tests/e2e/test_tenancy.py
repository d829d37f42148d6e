"""Tenants never see each other's memories: recall, refine, deprecate, forget and export are all scoped."""

from __future__ import annotations

import uuid

import grpc
import pytest

from codememory.v1 import memory_pb2 as pb

ALPHA = (("authorization", "Bearer tok-alpha"),)
BETA = (("authorization", "Bearer tok-beta"),)


def test_tenants_are_isolated(stack) -> None:  # type: ignore[no-untyped-def]
    stub = stack.stub()
    secret_plan = f"alpha launches project nightjar-{uuid.uuid4().hex[:6]}"
    mid = stub.Store(pb.StoreRequest(text=secret_plan, type="decision"), metadata=ALPHA, timeout=30).memory_id

    alpha_hits = stub.Recall(
        pb.RecallRequest(query="project nightjar launch", limit=50), metadata=ALPHA, timeout=30
    ).hits
    assert mid in [h.memory.id for h in alpha_hits]
    beta_hits = stub.Recall(
        pb.RecallRequest(query="project nightjar launch", limit=50), metadata=BETA, timeout=30
    ).hits
    assert all(h.memory.tenant == "beta" for h in beta_hits) and mid not in [h.memory.id for h in beta_hits]

    for call, request in (
        (stub.Refine, pb.RefineRequest(memory_id=mid, text="beta was here")),
        (stub.Deprecate, pb.DeprecateRequest(memory_id=mid)),
        (stub.Forget, pb.ForgetRequest(memory_id=mid)),
    ):
        with pytest.raises(grpc.RpcError) as err:
            call(request, metadata=BETA, timeout=30)
        assert err.value.code() == grpc.StatusCode.NOT_FOUND

    # ids are per tenant: beta's memory with alpha's id is beta's own, alpha's is untouched
    stub.Store(pb.StoreRequest(text="beta's own note", memory_id=mid), metadata=BETA, timeout=30)

    beta_export = list(stub.Export(pb.ExportRequest(), metadata=BETA, timeout=30))
    assert secret_plan not in [m.text for m in beta_export]
    assert [m.text for m in beta_export if m.id == mid] == ["beta's own note"]
    survivor = stub.Recall(
        pb.RecallRequest(query="project nightjar launch", limit=50), metadata=ALPHA, timeout=30
    ).hits
    assert [h.memory.text for h in survivor if h.memory.id == mid] == [secret_plan]


@pytest.mark.parametrize(
    "metadata", [(), (("authorization", "Bearer nope"),), (("authorization", "tok-alpha"),)]
)
def test_calls_without_a_known_token_are_unauthenticated(stack, metadata) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as err:
        stack.stub().Recall(pb.RecallRequest(query="anything"), metadata=metadata, timeout=10)
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED

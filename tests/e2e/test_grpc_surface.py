"""The gRPC surface: health, reflection, deadlines, status codes for bad requests."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from codememory.v1 import memory_pb2 as pb


def test_health_is_serving_once_caught_up(stack) -> None:  # type: ignore[no-untyped-def]
    stack.wait_caught_up()
    channel = grpc.insecure_channel(stack.grpc_address)
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "codememory.v1.MemoryService"):
        response = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_services(stack) -> None:  # type: ignore[no-untyped-def]
    channel = grpc.insecure_channel(stack.grpc_address)
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    responses = stub.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10
    )
    names = {s.name for r in responses for s in r.list_services_response.service}
    assert {"codememory.v1.MemoryService", "grpc.health.v1.Health"} <= names


def test_invalid_limit_is_invalid_argument(stack) -> None:  # type: ignore[no-untyped-def]
    meta = (("authorization", f"Bearer {stack.token()}"),)
    with pytest.raises(grpc.RpcError) as err:
        stack.stub().Recall(pb.RecallRequest(query="x", limit=100000), metadata=meta, timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_deadline_is_honoured(stack) -> None:  # type: ignore[no-untyped-def]
    meta = (("authorization", f"Bearer {stack.token()}"),)
    with pytest.raises(grpc.RpcError) as err:
        stack.stub().Recall(pb.RecallRequest(query="anything at all"), metadata=meta, timeout=0.0001)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def test_a_hit_from_the_person_the_query_names_carries_the_author_part(stack) -> None:  # type: ignore[no-untyped-def]
    meta = (("authorization", f"Bearer {stack.token()}"),)
    stub = stack.stub()
    said = "the payment client retries at most five times, then gives up"
    for user in ("sam", "alex"):  # the same words; alex's is newer, so it would rank first on recency
        scope = pb.Scope(repo="author-e2e", user=user)
        stub.Store(pb.StoreRequest(text=said, type="note", scope=scope), metadata=meta, timeout=30)
    stack.wait_caught_up()  # both embedded
    request = pb.RecallRequest(query="how often did Sam say the payment client retries", repo="author-e2e")
    hits = stub.Recall(request, metadata=meta, timeout=30).hits
    assert [h.memory.scope.user for h in hits] == ["sam", "alex"]
    assert hits[0].score.author == 1.0 and hits[1].score.author == 0.0

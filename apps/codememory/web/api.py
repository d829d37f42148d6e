"""The JSON routes of the web view, each one or a few gateway calls with the caller's bearer token.

Search is the gateway's Recall (so each hit carries its score parts and suspect state); without a
query the page lists memories through BrowseService. A gRPC error becomes an HTTP status the page can
show (``ApiError``); nothing here reads a store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from codememory.v1 import browse_pb2, browse_pb2_grpc, code_pb2, code_pb2_grpc, memory_pb2, memory_pb2_grpc

Params = Mapping[str, str]
Json = dict[str, Any]

CODE_EDGES = ("imports", "calls", "inherits", "references", "contains")
MAX_PARENTS = 40  # nodes per ring whose own neighbours are asked for (to draw deeper edges exactly)
_HTTP = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.UNAUTHENTICATED: 403,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def as_json(message: Message) -> Json:
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def _int(params: Params, key: str, default: int = 0) -> int:
    try:
        return int(params.get(key) or default)
    except ValueError as exc:
        raise ApiError(400, f"{key} must be a whole number") from exc


def _float(params: Params, key: str) -> float:
    try:
        return float(params.get(key) or 0.0)
    except ValueError as exc:
        raise ApiError(400, f"{key} must be a number (seconds since the epoch)") from exc


def _list(params: Params, key: str) -> list[str]:
    return [part for part in (params.get(key) or "").split(",") if part]


class GatewayApi:
    """The gateway's stubs on one channel; every call carries the token and a deadline."""

    def __init__(
        self, address: str, token: str, *, timeout_s: float = 10.0, root_certificate: bytes | None = None
    ) -> None:
        self._channel = (  # up --tls: the gateway speaks TLS with the local CA
            grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificate))
            if root_certificate
            else grpc.insecure_channel(address)
        )
        self._metadata = (("authorization", f"Bearer {token}"),)
        self._timeout_s = timeout_s
        self.memory = memory_pb2_grpc.MemoryServiceStub(self._channel)
        self.code = code_pb2_grpc.CodeServiceStub(self._channel)
        self.browse = browse_pb2_grpc.BrowseServiceStub(self._channel)
        self.routes: dict[str, Callable[[Params], Json]] = {
            "/api/memories": self.memories,
            "/api/memory": self.memory_detail,
            "/api/sessions": self.sessions,
            "/api/graph": self.graph,
            "/api/events": self.events,
            "/api/status": self.status,
        }

    def close(self) -> None:
        self._channel.close()

    def _call(self, method: Callable[..., Any], request: Message) -> Any:
        try:
            return method(request, metadata=self._metadata, timeout=self._timeout_s)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNKNOWN
            details = exc.details() if hasattr(exc, "details") else str(exc)
            raise ApiError(_HTTP.get(code, 502), f"{code.name}: {details}") from exc

    def memories(self, params: Params) -> Json:
        """A search (Recall: score parts, suspect) when ``q`` is given, else the newest memories."""
        types, repo, session = _list(params, "type"), params.get("repo", ""), params.get("session", "")
        since, until, limit = _float(params, "since"), _float(params, "until"), _int(params, "limit", 50)
        query = (params.get("q") or "").strip()
        if query:
            recall = memory_pb2.RecallRequest(
                query=query,
                limit=limit,
                types=types,
                repo=repo,
                session_id=session,
                since=since,
                until=until,
                include_deprecated=True,
                include_history=params.get("history") == "1",
                working_set=_list(params, "working"),
            )
            reply = self._call(self.memory.Recall, recall)
            return {"mode": "search", "hits": as_json(reply)["hits"], "took_ms": reply.took_ms}
        listing = browse_pb2.ListMemoriesRequest(
            types=types,
            repo=repo,
            session_id=session,
            since=since,
            until=until,
            states=_list(params, "state"),
            limit=limit,
            offset=_int(params, "offset"),
        )
        reply = self._call(self.browse.ListMemories, listing)
        hits = [{"memory": m, "score": None, "suspect": ""} for m in as_json(reply)["memories"]]
        return {"mode": "list", "hits": hits, "total": reply.total}

    def memory_detail(self, params: Params) -> Json:
        memory_id = params.get("id", "")
        if not memory_id:
            raise ApiError(400, "id is required")
        return as_json(self._call(self.memory.History, memory_pb2.HistoryRequest(memory_id=memory_id)))

    def sessions(self, params: Params) -> Json:
        request = browse_pb2.ListSessionsRequest(
            repo=params.get("repo", ""), limit=_int(params, "limit", 100)
        )
        return as_json(self._call(self.browse.ListSessions, request))

    def graph(self, params: Params) -> Json:
        """The node's dependencies (out) and dependents (in) to ``depth``, with their centrality."""
        node, repo = params.get("node", "").strip(), params.get("repo", "")
        if not node:
            raise ApiError(400, "node (a file path or a symbol's qualified name) is required")
        depth = max(1, min(_int(params, "depth", 1), 3))
        kinds = [] if params.get("edges") == "all" else list(CODE_EDGES)
        sides: Json = {}
        for side, direction in (("dependencies", "out"), ("dependents", "in")):
            request = code_pb2.NeighboursRequest(
                repo=repo, node=node, edge_kinds=kinds, depth=depth, direction=direction
            )
            found = as_json(self._call(self.code.Neighbours, request))
            self._link_parents(found["nodes"], repo, kinds, direction)
            sides[side] = found
        centre: Json = {"key": node, "pagerank": None, "betweenness": None}
        try:
            info = self._call(self.code.SymbolInfo, code_pb2.SymbolInfoRequest(repo=repo, symbol=node))
            centre = {**as_json(info.symbol), "betweenness": info.betweenness}
        except ApiError:
            pass  # a file, not a symbol: no centrality of its own to show
        return {"node": node, "centre": centre, **sides}

    def _link_parents(self, nodes: list[Json], repo: str, kinds: list[str], direction: str) -> None:
        """Give each node beyond depth 1 the ``parent`` it was reached from (a node one ring nearer
        that links to it), asking the gateway for the direct neighbours of at most ``MAX_PARENTS``
        nodes per ring; a node whose parent was not asked for is drawn from the centre."""
        for depth in range(2, 1 + max((int(n.get("depth", 1)) for n in nodes), default=1)):
            ring = {n["key"]: n for n in nodes if int(n.get("depth", 1)) == depth}
            for near in [n for n in nodes if int(n.get("depth", 1)) == depth - 1][:MAX_PARENTS]:
                request = code_pb2.NeighboursRequest(
                    repo=repo, node=near["key"], edge_kinds=kinds, depth=1, direction=direction
                )
                try:
                    reached = self._call(self.code.Neighbours, request).nodes
                except ApiError:
                    continue
                for child in reached:
                    if child.key in ring and "parent" not in ring[child.key]:
                        ring[child.key]["parent"] = near["key"]

    def events(self, params: Params) -> Json:
        request = browse_pb2.ReadEventsRequest(
            before_seq=_int(params, "before"), limit=_int(params, "limit", 50)
        )
        return as_json(self._call(self.browse.ReadEvents, request))

    def status(self, params: Params) -> Json:
        return as_json(self._call(self.memory.Status, memory_pb2.StatusRequest()))

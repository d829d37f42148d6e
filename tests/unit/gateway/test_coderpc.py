"""The CodeService's graph queries over gRPC: answers, status codes, tenancy."""

from __future__ import annotations

import grpc
import pytest
from codestack import META, OLD, OTHER_TENANT, CodeStack, facts_message, shop_facts  # type: ignore[import-not-found]

from codememory.code import extract_file
from codememory.events import CommitRecorded, FileChange, FileDeleted, Symbol, SymbolsExtracted
from codememory.gateway import coderpc
from codememory.v1 import code_pb2 as cpb


async def test_symbol_info_reports_callers_callees_and_children(shop: CodeStack) -> None:
    info = await shop.stub.SymbolInfo(cpb.SymbolInfoRequest(symbol="shop.pay.Gateway.charge"), metadata=META)
    assert info.symbol.path == "shop/pay.py" and info.symbol.signature.startswith("def charge")
    assert "shop.pay.validate" in {n.qualname for n in info.callees}
    settle = await shop.stub.SymbolInfo(cpb.SymbolInfoRequest(symbol="settle"), metadata=META)
    assert [n.qualname for n in settle.callers] == ["shop.api.checkout"]
    cls = await shop.stub.SymbolInfo(cpb.SymbolInfoRequest(symbol="Gateway", repo="shop"), metadata=META)
    assert [n.qualname for n in cls.children] == ["shop.pay.Gateway.charge"]


async def test_a_symbol_answers_with_the_first_paragraph_of_its_docstring(code_stack: CodeStack) -> None:
    source = b'''def refund(amount):
    """Give the amount back to the card it came from.

    Refunds over the original charge are refused by the processor.
    """
    return -amount
'''
    await code_stack.record(extract_file("shop", "shop/refund.py", source))
    info = await code_stack.stub.SymbolInfo(cpb.SymbolInfoRequest(symbol="shop.refund.refund"), metadata=META)
    assert info.symbol.docstring == "Give the amount back to the card it came from."
    module = await code_stack.stub.SymbolInfo(cpb.SymbolInfoRequest(symbol="shop.refund"), metadata=META)
    assert [(n.qualname, n.docstring) for n in module.children] == [
        ("shop.refund.refund", "Give the amount back to the card it came from.")
    ]


async def test_neighbours_and_dependents(shop: CodeStack) -> None:
    out = await shop.stub.Neighbours(
        cpb.NeighboursRequest(node="shop.pay.Gateway.charge", edge_kinds=["calls"], direction="out"),
        metadata=META,
    )
    assert [(n.qualname, n.depth, n.via) for n in out.nodes] == [("shop.pay.validate", 1, "calls")]
    direct = await shop.stub.Dependents(cpb.DependentsRequest(node="shop.pay.validate"), metadata=META)
    assert {n.qualname for n in direct.nodes} == {"shop.pay.Gateway.charge", "shop.pay.settle"}
    transitive = await shop.stub.Dependents(
        cpb.DependentsRequest(node="shop.pay.validate", repo="shop", transitive=True), metadata=META
    )
    assert "shop.api.checkout" in {n.qualname for n in transitive.nodes}


async def test_path_between_two_symbols(shop: CodeStack) -> None:
    path = await shop.stub.PathBetween(
        cpb.PathBetweenRequest(source="shop.api.checkout", target="shop.pay.validate"), metadata=META
    )
    names = [s.node.qualname for s in path.steps]
    assert names[0] == "shop.api.checkout" and names[-1] == "shop.pay.validate"
    assert path.steps[0].edge_kind == "" and all(s.edge_kind for s in path.steps[1:])


async def test_temporal_answers(shop: CodeStack) -> None:
    changed = await shop.stub.ChangedBetween(
        cpb.ChangedBetweenRequest(repo="shop", start_time=OLD - 1, end_time=OLD + 1), metadata=META
    )
    assert [c.sha for c in changed.commits] == ["a" * 40]
    assert set(changed.files) == {"shop/pay.py", "shop/api.py"}
    then = await shop.stub.GraphAsOf(
        cpb.GraphAsOfRequest(repo="shop", time=OLD + 1, nodes=["shop/pay.py", "shop/gone.py"]), metadata=META
    )
    assert dict(then.exists) == {"shop/pay.py": True, "shop/gone.py": False} and then.files == 2
    history = await shop.stub.SymbolHistory(cpb.SymbolInfoRequest(symbol="shop.pay.settle"), metadata=META)
    assert history.symbol.qualname == "shop.pay.settle" and len(history.changes) == 1


async def test_stale_central_files_and_co_changed(shop: CodeStack) -> None:
    stale = await shop.stub.StaleCentralFiles(cpb.StaleCentralFilesRequest(repo="shop"), metadata=META)
    assert {n.path for n in stale.nodes} == {"shop/pay.py", "shop/api.py"}
    assert all(n.kind == "file" and n.repo == "shop" and n.score == n.pagerank for n in stale.nodes)
    together = await shop.stub.CoChanged(cpb.CoChangedRequest(path="shop/pay.py"), metadata=META)
    assert [(n.path, n.score) for n in together.nodes] == [("shop/api.py", 1.0)]


async def test_unknown_nodes_other_tenants_and_bad_arguments(shop: CodeStack) -> None:
    assert (
        await shop.fails("SymbolInfo", cpb.SymbolInfoRequest(symbol="no.such")) == grpc.StatusCode.NOT_FOUND
    )
    other = cpb.SymbolInfoRequest(symbol="shop.pay.settle")
    assert await shop.fails("SymbolInfo", other, OTHER_TENANT) == grpc.StatusCode.NOT_FOUND
    assert await shop.fails("SymbolInfo", other, ()) == grpc.StatusCode.UNAUTHENTICATED
    sideways = cpb.NeighboursRequest(node="shop.pay.settle", direction="sideways")
    assert await shop.fails("Neighbours", sideways) == grpc.StatusCode.INVALID_ARGUMENT
    deep = cpb.NeighboursRequest(node="shop.pay.settle", depth=99)
    assert await shop.fails("Neighbours", deep) == grpc.StatusCode.INVALID_ARGUMENT
    elsewhere = cpb.DependentsRequest(node="shop.pay.settle", repo="other")
    assert await shop.fails("Dependents", elsewhere) == grpc.StatusCode.NOT_FOUND
    assert (
        await shop.fails("GraphAsOf", cpb.GraphAsOfRequest(repo="shop")) == grpc.StatusCode.INVALID_ARGUMENT
    )


async def test_record_code_refuses_a_file_whose_symbols_repeat_a_qualname(code_stack: CodeStack) -> None:
    charge = Symbol(qualname="pay.charge", name="charge", kind="function", start_line=1, end_line=2)
    fact = SymbolsExtracted(repo="shop", path="pay.py", content_hash="h", symbols=(charge, charge))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await code_stack.stub.RecordCode(facts_message(fact), metadata=META)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "repeat qualnames: pay.charge" in (caught.value.details() or "")
    assert code_stack.log.records == []


async def test_record_code_with_an_invalid_last_fact_records_nothing(code_stack: CodeStack) -> None:
    facts = [*shop_facts(), *(FileDeleted(repo="shop", path=f"gone{i}.py") for i in range(300))]
    stream = [*facts_message(*facts), cpb.CodeFact(event_json=b'{"type": "memory.stored"}')]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await code_stack.stub.RecordCode(stream, metadata=META)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"fact {len(facts) + 1}: not a code fact" in (caught.value.details() or "")
    assert code_stack.log.records == []
    assert await code_stack.fails("SymbolInfo", cpb.SymbolInfoRequest(symbol="settle")) == (
        grpc.StatusCode.NOT_FOUND
    )


@pytest.mark.parametrize(
    ("method", "request_"),
    [
        ("SymbolInfo", cpb.SymbolInfoRequest(repo="shop")),
        ("SymbolHistory", cpb.SymbolInfoRequest(symbol=" ")),
        ("Neighbours", cpb.NeighboursRequest(repo="shop")),
        ("Dependents", cpb.DependentsRequest()),
        ("PathBetween", cpb.PathBetweenRequest(source="shop.pay.settle")),
        ("PathBetween", cpb.PathBetweenRequest(target="shop.pay.settle")),
        ("CoChanged", cpb.CoChangedRequest(repo="shop")),
    ],
)
async def test_an_empty_symbol_or_file_is_an_invalid_argument(
    shop: CodeStack, method: str, request_: object
) -> None:
    assert await shop.fails(method, request_) == grpc.StatusCode.INVALID_ARGUMENT


async def test_neighbours_and_dependents_are_capped_and_say_so(
    shop: CodeStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    near = cpb.NeighboursRequest(node="shop.pay.settle", depth=2)
    every = await shop.stub.Neighbours(near, metadata=META)
    assert len(every.nodes) > 2 and not every.truncated and {n.depth for n in every.nodes} == {1, 2}
    monkeypatch.setattr(coderpc, "MAX_GRAPH_NODES", 2)
    cut = await shop.stub.Neighbours(near, metadata=META)
    assert cut.truncated and list(cut.nodes) == list(every.nodes[:2])
    assert {n.depth for n in cut.nodes} == {1}  # the nearest are kept
    direct = await shop.stub.Dependents(cpb.DependentsRequest(node="shop.pay.validate"), metadata=META)
    assert len(direct.nodes) == 2 and not direct.truncated  # exactly the cap is not a cut
    monkeypatch.setattr(coderpc, "MAX_GRAPH_NODES", 1)
    one = await shop.stub.Dependents(cpb.DependentsRequest(node="shop.pay.validate"), metadata=META)
    assert one.truncated and list(one.nodes) == list(direct.nodes[:1])


async def test_stale_central_files_filter_by_repo_before_the_limit(shop: CodeStack) -> None:
    lone = extract_file("tools", "tools/lone.py", b"def lone():\n    return 1\n")
    commit = CommitRecorded(
        repo="tools", sha="b" * 40, authored_at=OLD, files=(FileChange(path="tools/lone.py", status="added"),)
    )
    await shop.record(lone, commit)
    shop.core.refresh_centrality()
    top = await shop.stub.StaleCentralFiles(cpb.StaleCentralFilesRequest(limit=1), metadata=META)
    assert [n.repo for n in top.nodes] == ["shop"]  # the repository the cut used to keep
    mine = await shop.stub.StaleCentralFiles(
        cpb.StaleCentralFilesRequest(repo="tools", limit=1), metadata=META
    )
    assert [(n.repo, n.path) for n in mine.nodes] == [("tools", "tools/lone.py")]

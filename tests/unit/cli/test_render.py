"""The recall table: one row per hit, a tool error's cause in the text column as session context shows it."""

from __future__ import annotations

from rich.console import Console

from codememory.cli.render import hits_table


def _rendered(hits: list[dict[str, object]]) -> str:
    console = Console(width=250, record=True)
    console.print(hits_table(hits))
    return console.export_text()


def test_a_tool_errors_row_leads_with_its_cause() -> None:
    failure = {
        "id": "560acede-8602-531c-8ed2-e1d9e885c379",
        "type": "failure",
        "created_at": 0,
        "text": "Bash failed: pytest -x\nExit code 1\n"
        + "=" * 30
        + " test session starts "
        + "=" * 30
        + "\nE   ImportError: cannot import name 'Client' from 'api'",
    }
    out = _rendered([{"memory": failure, "score": {"total": 0.73}}])
    assert "Bash failed: pytest -x ImportError: cannot import name 'Client' from 'api'" in out
    assert "0.730" in out and "560acede" in out and "Exit code 1" not in out


def test_other_memories_show_their_text() -> None:
    prompt = {"id": "924461eb-0000", "type": "prompt", "created_at": 0, "text": "every class\nexported"}
    out = _rendered([{"memory": prompt, "score": {"total": 0.4}}])
    assert "every class exported" in out

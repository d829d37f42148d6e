"""Turning protobuf answers into JSON lines or a readable table for the terminal, and the ``--json``
option (``Json``) of the commands that can print either."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from rich.console import Console
from rich.table import Table

from codememory.recall.provenance import visible
from codememory.recall.toollines import shown_text

Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def as_dict(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def print_json(value: object) -> None:
    print(json.dumps(value, ensure_ascii=False))


def hits_table(hits: Iterable[dict[str, Any]]) -> Table:
    table = Table("score", "type", "when", "text", "id", show_lines=False)
    for hit in hits:
        memory, score = hit["memory"], hit["score"]
        when = datetime.fromtimestamp(float(memory.get("created_at", 0)), UTC).strftime("%Y-%m-%d %H:%M")
        text = " ".join(visible(shown_text(memory)).split())  # as session context shows it
        table.add_row(
            f"{float(score.get('total', 0)):.3f}", memory.get("type", ""), when, text[:120], memory["id"][:8]
        )
    return table


console = Console()


def nodes_table(nodes: Iterable[dict[str, Any]]) -> Table:
    table = Table("kind", "name", "where", "score", "via", show_lines=False)
    for node in nodes:
        name = node.get("qualname") or node.get("path") or node.get("key", "")
        where = (
            f"{node.get('path', '')}:{node.get('start_line', 0)}"
            if node.get("qualname")
            else node.get("repo", "")
        )
        table.add_row(
            str(node.get("kind", "")),
            str(name),
            str(where),
            f"{float(node.get('score', 0)):.3f}",
            str(node.get("via", "")),
        )
    return table

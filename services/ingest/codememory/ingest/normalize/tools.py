"""Tool calls, whatever agent made them: kind, file paths, command, outcome, and the event that records them.

Every agent names its tools differently (``Bash``, ``Shell``, ``run_shell_command``, ``exec_command``)
and shapes their results differently, but memory wants one vocabulary: a ``ToolKind``, the repo-relative
paths touched, the command run, and whether it worked. Agent modules only lift their payload into a
``ToolCall``; this module does the rest once, so a fix here improves every agent.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Any

from codememory.events import ToolFailed, ToolKind, ToolObserved
from codememory.ingest.normalize.common import (
    EXCERPT_CAP,
    Context,
    clean,
    dict_of,
    first_text,
    line,
    list_of,
    text_of,
)
from codememory.ingest.normalize.summaries import input_text, summarize

__all__ = ["ToolCall", "post_tool_event", "tool_failed", "tool_kind", "tool_observed", "tool_paths"]

_KIND_NAMES: dict[ToolKind, str] = {
    "read": "read readfile readmanyfiles view viewimage notebookread cat tabread",
    "edit": "edit multiedit notebookedit editnotebook replace applypatch strreplace editfile searchreplace "
    "delete deletefile tabedit",
    "write": "write writefile createfile",
    "search": "grep glob ls listdirectory listdir searchfilecontent grepsearch codebasesearch filesearch "
    "globfilesearch find semanticsearch",
    "shell": "bash shell runshellcommand execcommand localshell shellcommand unifiedexec bashoutput "
    "killshell killbash runterminalcmd terminal writestdin powershell",
    "web": "webfetch websearch googlewebsearch fetch websearchpreview",
    "task": "task agent todowrite writetodos updateplan",
}
_KINDS: dict[str, ToolKind] = {name: kind for kind, names in _KIND_NAMES.items() for name in names.split()}
_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "absolute_path", "target_file", "dir_path")
_PATH_LIST_KEYS = ("paths", "file_paths", "files")
_PATCH_KEYS = ("patch", "input", "diff", "command")
_PATCH_LINE = re.compile(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+?)\s*$", re.MULTILINE)
_DIFF_LINE = re.compile(r"^\+\+\+ (?:b/)?(.+?)\s*$", re.MULTILINE)
_EXIT_LINE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
_MAX_PATHS = 50


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCall:
    """One tool use as an agent reported it, before interpretation."""

    tool: str
    tool_input: dict[str, Any]
    response: object = None
    tool_use_id: str = ""
    kind: ToolKind | None = None
    output: str = ""
    exit_code: int | None = None
    error: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class _Outcome:
    output: str
    exit_code: int | None
    succeeded: bool
    error: str


def tool_kind(name: str) -> ToolKind:
    """The kind of a tool from its name, across agents (``mcp__*`` and unknown names are ``other``)."""
    return _KINDS.get(re.sub(r"[^a-z0-9]", "", name.lower()), "other")


def tool_paths(tool_input: dict[str, Any], ctx: Context) -> tuple[str, ...]:
    """Every file path in a tool's input (direct keys, lists, edits, patches), repo-relative when possible."""
    found: list[str] = [text_of(tool_input, key) for key in _PATH_KEYS]
    for key in _PATH_LIST_KEYS:
        found.extend(item for item in list_of(tool_input, key) if isinstance(item, str))
    for edit in list_of(tool_input, "edits"):
        found.append(first_text(edit, "file_path", "path"))
    for key in _PATCH_KEYS:
        found.extend(patch_paths(text_of(tool_input, key)))
    paths: list[str] = []
    for raw in found:
        path = display_path(raw, ctx)
        if path and path not in paths:
            paths.append(path)
    return tuple(paths[:_MAX_PATHS])


def patch_paths(text: str) -> list[str]:
    """File paths named by an ``apply_patch`` envelope or a unified diff."""
    if "*** Begin Patch" in text:
        return _PATCH_LINE.findall(text)
    if "\n+++ " in text or text.startswith("+++ "):
        return [path for path in _DIFF_LINE.findall(text) if path != "/dev/null"]
    return []


def display_path(raw: str, ctx: Context) -> str:
    """A path as memory stores it: absolute made relative to the repo root when inside it, and cleaned."""
    path = raw.strip()
    if not path:
        return ""
    if not path.startswith("/") and ctx.cwd.startswith("/") and ":" not in path[:3]:
        path = posixpath.join(ctx.cwd, path)
    if path.startswith("/"):
        path = posixpath.normpath(path)
        root = ctx.repo_root.rstrip("/")
        if root and (path == root or path.startswith(root + "/")):
            path = posixpath.relpath(path, root)
    return line(path, 500)


def tool_command(call: ToolCall, kind: ToolKind) -> str:
    """The shell command of a shell tool, as one string."""
    if kind != "shell":
        return ""
    value = call.tool_input.get("command", call.tool_input.get("cmd"))
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        value = shlex.join(value)
    return clean(value) if isinstance(value, str) else ""


def tool_observed(ctx: Context, call: ToolCall, phase: str) -> ToolObserved:
    """A ``ToolObserved`` for a tool about to run (``pre``) or that ran (``post``)."""
    kind = call.kind or tool_kind(call.tool)
    paths = tool_paths(call.tool_input, ctx)
    command = tool_command(call, kind)
    outcome = (
        _outcome(call) if phase == "post" else _Outcome(output="", exit_code=None, succeeded=True, error="")
    )
    return ToolObserved(
        **ctx.base(),
        tool=line(call.tool, 100),
        kind=kind,
        phase="pre" if phase == "pre" else "post",
        paths=paths,
        command=command,
        summary=summarize(
            call.tool,
            kind,
            call.tool_input,
            call.response,
            paths,
            command,
            phase,
            outcome.exit_code,
            outcome.succeeded,
        ),
        input_excerpt=input_text(kind, call.tool_input),
        output_excerpt="" if kind in ("edit", "write") and not call.output else clean(outcome.output),
        succeeded=outcome.succeeded,
        tool_use_id=line(call.tool_use_id, 200),
    )


def tool_failed(ctx: Context, call: ToolCall, error: str) -> ToolFailed:
    """A ``ToolFailed`` carrying the agent's error text."""
    kind = call.kind or tool_kind(call.tool)
    return ToolFailed(
        **ctx.base(),
        tool=line(call.tool, 100),
        kind=kind,
        paths=tool_paths(call.tool_input, ctx),
        command=tool_command(call, kind),
        error=clean(error) or "tool failed",
        tool_use_id=line(call.tool_use_id, 200),
    )


def post_tool_event(ctx: Context, call: ToolCall) -> ToolObserved | ToolFailed:
    """A finished tool: ``ToolFailed`` when its result carries an error, else ``ToolObserved``."""
    outcome = _outcome(call)
    if outcome.error:
        return tool_failed(ctx, call, outcome.error)
    return tool_observed(ctx, call, "post")


def _outcome(call: ToolCall) -> _Outcome:
    response = call.response
    output = call.output or _response_text(response)
    exit_code = call.exit_code
    if exit_code is None and isinstance(response, dict):
        for key in ("exit_code", "exitCode", "returncode", "exit_status"):
            value = response.get(key)
            if type(value) is int:
                exit_code = value
                break
    if exit_code is None and (match := _EXIT_LINE.search(output[: EXCERPT_CAP * 4])):
        exit_code = int(match.group(1))
    error = call.error or _response_error(response)
    failed = (
        bool(error)
        or (exit_code not in (None, 0))
        or (
            isinstance(response, dict)
            and (response.get("interrupted") is True or response.get("success") is False)
        )
    )
    return _Outcome(output=output, exit_code=exit_code, succeeded=not failed, error=error)


def _response_error(response: object) -> str:
    if not isinstance(response, dict):
        return ""
    error = response.get("error")
    if isinstance(error, dict):
        return first_text(error, "message", "type") or "error"
    if isinstance(error, str) and error.strip():
        return error
    if response.get("is_error") is True or response.get("isError") is True:
        return _response_text(response) or "error"
    return ""


def _response_text(response: object) -> str:
    """The human-meaningful output of a tool result, whatever its shape."""
    if isinstance(response, str):
        return response
    if not isinstance(response, dict):
        return clean(response) if isinstance(response, list) else ""
    stdout, stderr = text_of(response, "stdout"), text_of(response, "stderr")
    if stdout or stderr:
        return stdout + (f"\n[stderr]\n{stderr}" if stderr.strip() else "")
    if file_text := text_of(dict_of(response, "file"), "content"):
        return file_text
    parts = [text_of(item, "text") for item in list_of(response, "content")]
    if any(parts):
        return "\n".join(part for part in parts if part)
    if text := first_text(
        response, "output", "llmContent", "result", "content", "message", "formatted_output"
    ):
        return text
    names = [name for name in list_of(response, "filenames") if isinstance(name, str)]
    return "\n".join(names)

"""Merge codememory's hooks into a project's agent config, and take them out again.

The config file is shared with the user's own hooks, permissions and settings, so the rule is
merge, never clobber: every existing key and entry is kept in order, ours are appended only where
no entry already runs the same command, and a second run finds everything present and writes
nothing. Our entries are recognised purely by their command string
(``<command> hook --agent <name>``), which is also how ``uninstall_hooks`` finds exactly them and
nothing else. The whole merge happens on a copy; the file is written once, atomically, at the end,
so a validation error part-way through leaves it byte-for-byte as it was.

The default command, a bare ``codememory``, is written as this installation's absolute path
(``executable.resolve_command``): the agent's PATH may never have seen the virtualenv. Handlers
written earlier with the bare name are rewritten to the path by the next install, and uninstalling
recognises both spellings.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codememory.agents.errors import HookConfigError, UnknownAgentError
from codememory.agents.executable import resolve_command
from codememory.agents.jsonfile import load_config, render, write_atomic
from codememory.agents.specs import SPECS, AgentSpec, EventHook


@dataclass(frozen=True, slots=True)
class InstallResult:
    """What ``install_hooks`` or ``uninstall_hooks`` did to one agent's config file."""

    agent: str
    path: Path
    events_added: tuple[str, ...]
    events_present: tuple[str, ...]
    changed: bool
    events_removed: tuple[str, ...] = ()


def supported_agents() -> tuple[str, ...]:
    """Agent names accepted by ``install_hooks``, in a stable order."""
    return tuple(SPECS)


def config_path(agent: str, project_dir: Path) -> Path:
    """The file ``install_hooks`` would write for ``agent`` in ``project_dir``."""
    return project_dir / _spec(agent).relative_path


def install_hooks(agent: str, project_dir: Path, *, command: str = "codememory") -> InstallResult:
    """Register ``<command> hook --agent <agent>`` for every event codememory needs.

    A bare ``codememory`` command is written as the absolute path of this installation's script.
    """
    spec = _spec(agent)
    path = _target(spec, project_dir)
    original = load_config(path)
    data: dict[str, Any] = {} if original is None else copy.deepcopy(original)
    hooks = _hooks_table(data, path)
    if hooks is None:
        hooks = data["hooks"] = {}
    hook_command = spec.hook_command(resolve_command(command))
    bare_command = spec.hook_command(command)

    added: list[str] = []
    present: list[str] = []
    for event in spec.events:
        entries = hooks.get(event.event)
        if entries is not None and not isinstance(entries, list):
            raise HookConfigError(path, f"'hooks.{event.event}' must be an array")
        if entries is not None and _has_command(spec, entries, hook_command):
            present.append(event.event)
            continue
        if entries is not None and _upgrade(spec, entries, bare_command, hook_command):
            added.append(event.event)  # our bare-name handler, now naming codememory by its path
            continue
        if entries is None:
            entries = hooks[event.event] = []
        entries.append(_new_entry(spec, event, hook_command))
        added.append(event.event)

    missing = {key: value for key, value in spec.top_level_defaults.items() if key not in data}
    if missing:
        data = {**missing, **data}
    changed = original is None or bool(added) or bool(missing)
    if changed:
        write_atomic(path, render(data))
    return InstallResult(spec.name, path, tuple(added), tuple(present), changed)


def uninstall_hooks(agent: str, project_dir: Path, *, command: str = "codememory") -> InstallResult:
    """Remove every handler that runs our command, and nothing else.

    A matcher group or event list that only held our handler is removed with it; one that was
    already empty, or still holds other handlers, is kept.
    """
    spec = _spec(agent)
    path = _target(spec, project_dir)
    original = load_config(path)
    if original is None:
        return InstallResult(spec.name, path, (), (), False)
    data = copy.deepcopy(original)
    hooks = _hooks_table(data, path)
    if hooks is None:
        return InstallResult(spec.name, path, (), (), False)
    spellings = dict.fromkeys([spec.hook_command(command), spec.hook_command(resolve_command(command))])

    removed: list[str] = []
    for event, entries in list(hooks.items()):
        # Skip non-lists such as a key we do not own; Gemini's "hooks.disabled" holds strings.
        if not isinstance(entries, list) or not any(_has_command(spec, entries, c) for c in spellings):
            continue
        removed.append(event)
        kept = entries
        for hook_command in spellings:
            kept = _without_command(spec, kept, hook_command)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if removed:
        write_atomic(path, render(data))
    return InstallResult(spec.name, path, (), (), bool(removed), tuple(removed))


def _spec(agent: str) -> AgentSpec:
    spec = SPECS.get(agent.strip().lower())
    if spec is None:
        raise UnknownAgentError(agent, SPECS)
    return spec


def _target(spec: AgentSpec, project_dir: Path) -> Path:
    if not project_dir.is_dir():
        raise NotADirectoryError(f"project directory does not exist: {project_dir}")
    return project_dir / spec.relative_path


def _hooks_table(data: dict[str, Any], path: Path) -> dict[str, Any] | None:
    hooks = data.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise HookConfigError(path, f"'hooks' must be an object, not {type(hooks).__name__}")
    return hooks


def _normalise(command: object) -> str | None:
    return " ".join(command.split()) if isinstance(command, str) else None


def _is_ours(handler: object, hook_command: str) -> bool:
    return isinstance(handler, dict) and _normalise(handler.get("command")) == _normalise(hook_command)


def _handlers(spec: AgentSpec, entries: list[Any]) -> list[Any]:
    if spec.layout == "flat":
        return entries
    return [
        handler
        for group in entries
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
    ]


def _has_command(spec: AgentSpec, entries: list[Any], hook_command: str) -> bool:
    return any(_is_ours(handler, hook_command) for handler in _handlers(spec, entries))


def _upgrade(spec: AgentSpec, entries: list[Any], old: str, new: str) -> bool:
    """Rewrite our handlers that run ``old`` to run ``new`` instead (in place); True if any did."""
    if _normalise(old) == _normalise(new):
        return False
    found = [handler for handler in _handlers(spec, entries) if _is_ours(handler, old)]
    for handler in found:
        handler["command"] = new
    return bool(found)


def _without_command(spec: AgentSpec, entries: list[Any], hook_command: str) -> list[Any]:
    if spec.layout == "flat":
        return [entry for entry in entries if not _is_ours(entry, hook_command)]
    kept: list[Any] = []
    for group in entries:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            kept.append(group)
            continue
        remaining = [handler for handler in inner if not _is_ours(handler, hook_command)]
        if len(remaining) == len(inner):
            kept.append(group)
        elif remaining:
            kept.append({**group, "hooks": remaining})
    return kept


def _new_entry(spec: AgentSpec, event: EventHook, hook_command: str) -> dict[str, Any]:
    if spec.layout == "flat":
        return {"command": hook_command}
    handler: dict[str, Any] = {"type": "command", "command": hook_command, **spec.handler_extras}
    if event.timeout is not None:
        handler["timeout"] = event.timeout
    group: dict[str, Any] = {} if event.matcher is None else {"matcher": event.matcher}
    group["hooks"] = [handler]
    return group

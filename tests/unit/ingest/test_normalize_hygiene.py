"""Text hygiene across every event: no secrets, no private blocks, no re-ingested context, bounded size."""

from __future__ import annotations

from codememory.events import ObservationRecorded, PromptSubmitted, ToolFailed, ToolObserved, encode_envelope
from codememory.ingest.message import to_envelopes

SECRET = "ghp_" + "Zq8Xw3Lk9Vb2Nm4Pr7Ts1Uy6Wa5Ec0Hd3Jf8"
SESSION = {"session_id": "s-1", "cwd": "/Users/tomkwon/Documents/claude-agentic-framework"}


def _prompt(text: str) -> dict:
    return {**SESSION, "hook_event_name": "UserPromptSubmit", "prompt": text}


def test_a_secret_in_a_prompt_never_reaches_the_log(message):
    envelopes = to_envelopes(message("claude", _prompt(f"use token {SECRET} to push")))
    encoded = b"".join(encode_envelope(envelope) for envelope in envelopes)
    assert SECRET.encode() not in encoded
    assert b"to push" in encoded


def test_a_secret_in_a_command_never_reaches_the_log(message):
    payload = {
        **SESSION,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": f"GH_TOKEN={SECRET} gh pr list", "description": "list PRs"},
        "tool_response": {"stdout": f"echoed {SECRET}", "stderr": "", "interrupted": False},
    }
    [envelope] = to_envelopes(message("claude", payload))
    assert isinstance(envelope.payload, ToolObserved)
    assert "gh pr list" in envelope.payload.command
    assert SECRET.encode() not in encode_envelope(envelope)


def test_secrets_in_failures_and_observations_are_redacted(message):
    failure = {
        **SESSION,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "deploy"},
        "error": f"bad token {SECRET}",
    }
    unknown = {**SESSION, "hook_event_name": "Whatever", "nested": {"deep": [f"token {SECRET}"]}}
    for payload in (failure, unknown):
        [envelope] = to_envelopes(message("claude", payload))
        assert isinstance(envelope.payload, ToolFailed | ObservationRecorded)
        assert SECRET.encode() not in encode_envelope(envelope)


def test_private_blocks_are_dropped_from_prompts(message):
    [envelope] = to_envelopes(
        message("claude", _prompt("deploy to <private>my home server 10.0.0.7</private> now"))
    )
    assert isinstance(envelope.payload, PromptSubmitted)
    assert "home server" not in envelope.payload.prompt
    assert envelope.payload.prompt.startswith("deploy to")
    assert envelope.payload.prompt.endswith("now")


def test_private_blocks_are_dropped_from_tool_output(message):
    payload = {
        **SESSION,
        "hook_event_name": "AfterTool",
        "tool_name": "read_file",
        "tool_input": {"file_path": "notes.md"},
        "tool_response": {"llmContent": "public <private>hidden</private> text"},
    }
    [envelope] = to_envelopes(message("gemini", payload))
    assert b"hidden" not in encode_envelope(envelope)


def test_a_prompt_that_is_only_injected_context_is_not_recorded(message):
    injected = "<codememory-context>\n- auth uses JWT\n</codememory-context>"
    assert to_envelopes(message("claude", _prompt(injected))) == []
    assert to_envelopes(message("claude", _prompt("   "))) == []


def test_injected_context_is_stripped_from_a_real_prompt(message):
    text = "<codememory-context>\n- auth uses JWT\n</codememory-context>\nnow add refresh tokens"
    [envelope] = to_envelopes(
        message("gemini", {**SESSION, "hook_event_name": "BeforeAgent", "prompt": text})
    )
    assert isinstance(envelope.payload, PromptSubmitted)
    assert envelope.payload.prompt == "now add refresh tokens"


def test_huge_strings_are_capped(message):
    payload = {
        **SESSION,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat big.log"},
        "tool_response": {"stdout": "x" * 5_000_000, "stderr": "", "interrupted": False},
    }
    [envelope] = to_envelopes(message("claude", payload))
    assert len(envelope.payload.output_excerpt) <= 2000
    assert len(to_envelopes(message("claude", _prompt("y" * 1_000_000)))[0].payload.prompt) <= 2000


def test_observation_fields_are_bounded(message):
    payload = {
        **SESSION,
        "hook_event_name": "BeforeModel",
        "big": 2**70,
        "a": {"b": {"c": {"d": {"e": {"f": 1}}}}},
        "llm_request": {"messages": [{"role": "user", "content": "z" * 50_000}] * 500},
    }
    [envelope] = to_envelopes(message("gemini", payload))
    assert len(encode_envelope(envelope)) < 40_000
    fields = envelope.payload.fields
    assert fields["big"] == str(2**70)
    assert fields["a"]["b"]["c"]["d"] == '{"e":{"f":1}}'
    assert fields["llm_request"]["messages"][-1] == "… 480 more items"

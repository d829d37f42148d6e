"""Optional wording of lessons by a language model behind an OpenAI-compatible endpoint.

Lessons are extracted by default (no model, offline). When ``CODEMEMORY_CONSOLIDATE_LLM_URL`` names an
endpoint (``.../v1``; ``/chat/completions`` is appended), each new lesson is sent to it once, with its
extracted title, situation and what worked, and the reply (three lines) replaces the wording; the
lesson's event records the model in ``phrased_by``. The reply is an event like any other, so replay
never calls the endpoint again. Any failure (no answer within the timeout, a reply that is not three
lines) keeps the extracted wording: phrasing never stops a cycle. The API key is read from the
environment and sent only to the endpoint.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Protocol

import msgspec
import structlog

from codememory.events import InsightDerived

log = structlog.get_logger(__name__)

_PROMPT = (
    "Reword this lesson from a coding session so another agent can reuse it. Keep every fact, name "
    "and command; add nothing. Answer with exactly three lines: the title, the situation, what worked.\n\n"
    "Title: {title}\nSituation: {situation}\nWhat worked: {what_worked}"
)


class Phraser(Protocol):
    def phrase(self, insight: InsightDerived) -> InsightDerived: ...


class Extracted:
    """The default: the lesson as extracted."""

    def phrase(self, insight: InsightDerived) -> InsightDerived:
        return insight


class EndpointPhraser:
    def __init__(self, url: str, model: str, api_key: str = "", *, timeout_s: float = 20.0) -> None:
        self._url = url.rstrip("/") + "/chat/completions"
        self._model = model
        self._key = api_key
        self._timeout_s = timeout_s

    def _ask(self, prompt: str) -> str:
        body = {"model": self._model, "messages": [{"role": "user", "content": prompt}], "temperature": 0}
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(self._url, data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(request, timeout=self._timeout_s) as response:  # the configured URL
            reply = json.loads(response.read())
        return str(reply["choices"][0]["message"]["content"])

    def phrase(self, insight: InsightDerived) -> InsightDerived:
        prompt = _PROMPT.format(
            title=insight.title, situation=insight.situation, what_worked=insight.what_worked
        )
        try:
            lines = [line.strip() for line in self._ask(prompt).splitlines() if line.strip()]
        except Exception as exc:  # the endpoint is optional: the extracted wording stands
            log.warning("phrasing_failed", error=f"{type(exc).__name__}: {exc}"[:300])
            return insight
        if len(lines) != 3:
            log.warning("phrasing_refused", reason=f"{len(lines)} lines instead of 3")
            return insight
        title, situation, worked = (
            line.split(":", 1)[-1].strip() if ":" in line[:14] else line for line in lines
        )
        return msgspec.structs.replace(
            insight, title=title, situation=situation, what_worked=worked, phrased_by=self._model
        )


def phraser(url: str, model: str, api_key: str = "") -> Phraser:
    return EndpointPhraser(url, model, api_key) if url else Extracted()

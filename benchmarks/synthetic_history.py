"""A seeded, synthetic multi-session coding history, and what a new session should be told about it.

Session context can only be judged against a known answer: which earlier memories a new session in a
given repo, branch and directory ought to see. Real histories do not come with that answer, so this
module writes one: a month of sessions in two repos (a Python service and a TypeScript dashboard, each
with a feature branch) as the hook payloads the agents really send (Claude Code mostly, some Cursor,
Codex and Gemini sessions, shaped like the samples in ``../shared/data/hooks``). Sessions hold prompts,
edits, shell runs, failing tests and how they were fixed, decisions the user states ("we use X, not
Y, because ..."), and the noise around them (reads, searches, passing runs, chit-chat, todo lists).

Each decision and fix is a ``Fact`` with a marker phrase that occurs only in the memory that states
it, so a benchmark can tell whether a context includes it without knowing memory ids. Relevance is
defined here, by construction (the repo's standing decisions plus the facts of the area a situation
works in), never by what the system returns.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field

DAY = 86400.0


@dataclass(frozen=True)
class HookEvent:
    """One hook invocation: the agent, when it happened, the repo state then, and the stdin payload."""

    agent: str
    at: float
    repo: str
    branch: str
    payload: dict[str, object]


@dataclass(frozen=True)
class Fact:
    """A decision or a fix worth remembering; ``area`` empty means it holds for the whole repo."""

    marker: str
    repo: str
    area: str
    kind: str  # "decision" | "fix"
    text: str


@dataclass(frozen=True)
class Situation:
    """A new session: where it starts (and its first prompt, if any) and the facts it should be given."""

    name: str
    repo: str
    branch: str
    cwd: str  # repo-relative directory
    prompt: str
    relevant: tuple[Fact, ...]


@dataclass(frozen=True)
class History:
    events: tuple[HookEvent, ...]
    facts: tuple[Fact, ...]
    situations: tuple[Situation, ...]
    repos: dict[str, tuple[str, ...]] = field(default_factory=dict)  # repo -> branches


# --- the two repos: areas (directory, files, a line of code), facts ------------------------------------

_AREAS: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "payments-api": {
        "webhooks": ("src/payments/webhooks", ("delivery.py", "signing.py", "tests/test_delivery.py")),
        "ledger": ("src/payments/ledger", ("posting.py", "reconcile.py", "tests/test_reconcile.py")),
        "db": ("src/payments/db", ("session.py", "models.py", "migrations/0042_add_refunds.py")),
        "auth": ("src/payments/auth", ("tokens.py", "middleware.py", "tests/test_tokens.py")),
    },
    "web-dashboard": {
        "charts": ("src/charts", ("LineChart.tsx", "useSeries.ts", "LineChart.test.tsx")),
        "store": ("src/store", ("index.ts", "slices/filters.ts", "slices/filters.test.ts")),
        "i18n": ("src/i18n", ("messages.ts", "format.ts", "format.test.ts")),
    },
}
_BRANCHES = {"payments-api": ("main", "feat/webhook-signing"), "web-dashboard": ("main", "feat/dark-mode")}
_TEST_CMD = {"payments-api": "uv run pytest -q", "web-dashboard": "pnpm vitest run"}

# (repo, area, kind, text, marker): the marker is a phrase that only this fact's memory contains.
_FACTS: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "payments-api",
        "",
        "decision",
        "From now on we use uv, not pip or poetry, for everything in this repo: uv.lock is the single source "
        "of truth because pip-tools kept drifting between laptops and CI.",
        "pip-tools kept drifting",
    ),
    (
        "payments-api",
        "",
        "decision",
        "Decision: all money amounts are integer minor units (cents) in a Money type, never float or Decimal "
        "in the API layer, since the rounding bug in March double-charged 312 customers.",
        "double-charged 312 customers",
    ),
    (
        "payments-api",
        "",
        "decision",
        "We log with structlog key-value events, not f-strings in logging.info, so that the ops team can "
        "query by merchant_id in Loki.",
        "query by merchant_id in Loki",
    ),
    (
        "payments-api",
        "webhooks",
        "decision",
        "Webhook delivery: we retry with exponential backoff capped at 6 attempts, not a fixed interval, "
        "because merchants' endpoints rate-limit bursts; keep the jitter in delivery.py.",
        "endpoints rate-limit bursts",
    ),
    (
        "payments-api",
        "webhooks",
        "fix",
        "Fixed test_retry_stops_after_max_attempts: max_attempts counted the first delivery as a retry, "
        "so we sent one request too many; attempts now start at 0 in delivery.py.",
        "counted the first delivery as a retry",
    ),
    (
        "payments-api",
        "webhooks",
        "decision",
        "For webhook signing use HMAC-SHA256 over timestamp.body with a 5 minute tolerance window, not JWT, "
        "because Stripe-style signatures are what our merchants already verify.",
        "Stripe-style signatures are what our merchants",
    ),
    (
        "payments-api",
        "ledger",
        "decision",
        "Ledger postings are append-only: corrections are reversing entries, never UPDATE on ledger_entries, "
        "because the auditors need the full trail.",
        "the auditors need the full trail",
    ),
    (
        "payments-api",
        "ledger",
        "fix",
        "Fixed the flaky test_reconcile_daily: it depended on the machine timezone; reconcile.py now "
        "takes an explicit UTC business date instead of date.today().",
        "depended on the machine timezone",
    ),
    (
        "payments-api",
        "db",
        "decision",
        "Migrations must be backwards compatible for one release (expand, then contract) because we deploy "
        "with rolling pods that run old and new code together.",
        "rolling pods that run old and new code",
    ),
    (
        "payments-api",
        "db",
        "fix",
        "Fixed the deadlock in test_refund_concurrent: session.py opened a second transaction inside "
        "with_for_update; refunds now lock the payment row first, in one transaction.",
        "opened a second transaction inside with_for_update",
    ),
    (
        "payments-api",
        "auth",
        "decision",
        "Access tokens are opaque random ids looked up in Redis, not self-contained JWTs, so that revoking a "
        "merchant key takes effect immediately.",
        "revoking a merchant key takes effect immediately",
    ),
    (
        "web-dashboard",
        "",
        "decision",
        "We use pnpm, not npm or yarn, in this repo; the workspace protocol links the shared ui package and "
        "npm kept hoisting two copies of React.",
        "npm kept hoisting two copies of React",
    ),
    (
        "web-dashboard",
        "",
        "decision",
        "Styling is CSS modules with design tokens, not Tailwind, because the design team ships tokens as "
        "CSS variables and we theme dark mode from them.",
        "design team ships tokens as CSS variables",
    ),
    (
        "web-dashboard",
        "charts",
        "decision",
        "Charts use visx, not Chart.js, because we need SVG output for the PDF export and Chart.js only "
        "renders to canvas.",
        "Chart.js only renders to canvas",
    ),
    (
        "web-dashboard",
        "charts",
        "fix",
        "Fixed LineChart.test.tsx failing in CI: ResizeObserver is undefined in jsdom, so the test setup now "
        "installs a ResizeObserver stub before rendering charts.",
        "ResizeObserver is undefined in jsdom",
    ),
    (
        "web-dashboard",
        "store",
        "decision",
        "Server data lives in TanStack Query, not in the Redux store; Redux only keeps UI state like "
        "filters, because cache invalidation by hand kept showing stale invoices.",
        "kept showing stale invoices",
    ),
    (
        "web-dashboard",
        "store",
        "fix",
        "Fixed filters.test.ts: the date range selector mutated the previous state in place, so memoized "
        "selectors never re-ran; the reducer now returns a new range object.",
        "mutated the previous state in place",
    ),
    (
        "web-dashboard",
        "i18n",
        "decision",
        "All user-facing numbers and dates go through Intl via format.ts, never toFixed or toLocaleString "
        "without a locale, because the German beta users saw 1.234,00 as 1.234.",
        "saw 1.234,00 as 1.234",
    ),
    (
        "web-dashboard",
        "i18n",
        "fix",
        "Fixed format.test.ts on CI: Node there ships small-icu, so de-DE fell back to en-US; CI now uses "
        "the full-icu Node image.",
        "ships small-icu",
    ),
)

_CHAT = (
    "thanks",
    "ok continue",
    "looks good",
    "hmm, can you explain what this function does?",
    "nice",
    "wait, what was the other option?",
    "go ahead",
    "let's call it a day",
    "sure",
    "can you summarise?",
)
_CODE = {
    ".py": "def {name}(self, attempt: int) -> float:\n    delay = min(self.base * 2 ** attempt, self.cap)\n"
    "    return delay + random.uniform(0, self.jitter)\n",
    ".ts": "export function {name}(state: State, action: Action): State {{\n  return {{ ...state, "
    "range: {{ ...action.range }} }};\n}}\n",
    ".tsx": "export function {name}({{ series }}: Props) {{\n  const ref = useRef<SVGSVGElement>(null);\n"
    "  return <svg ref={{ref}} width={{width}} height={{height}}>{{series.map(renderLine)}}</svg>;\n}}\n",
}


def _facts() -> tuple[Fact, ...]:
    return tuple(Fact(marker=m, repo=r, area=a, kind=k, text=t) for r, a, k, t, m in _FACTS)


class _Writer:
    """Turns session steps into payloads in one agent's format."""

    def __init__(
        self, rng: random.Random, root: str, agent: str, repo: str, branch: str, start: float
    ) -> None:
        self.rng, self.agent, self.repo, self.branch = rng, agent, repo, branch
        self.root = f"{root}/{repo}"
        self.session = str(uuid.UUID(int=rng.getrandbits(128)))
        self.clock = start
        self.events: list[HookEvent] = []

    def _emit(self, payload: dict[str, object]) -> None:
        self.clock += self.rng.uniform(5, 90)
        self.events.append(HookEvent(self.agent, self.clock, self.repo, self.branch, payload))

    def _base(self, event: str) -> dict[str, object]:
        if self.agent == "cursor":
            return {
                "conversation_id": self.session,
                "generation_id": str(uuid.UUID(int=self.rng.getrandbits(128))),
                "model": "default",
                "session_id": self.session,
                "hook_event_name": event,
                "cursor_version": "2026.07.23-e383d2b",
                "workspace_roots": [self.root],
                "transcript_path": None,
            }
        base: dict[str, object] = {
            "session_id": self.session,
            "transcript_path": f"/home/dev/.{self.agent}/sessions/{self.session}.jsonl",
            "cwd": self.root,
            "hook_event_name": event,
        }
        if self.agent == "claude":
            base["permission_mode"] = "acceptEdits"
        if self.agent == "gemini":
            base["timestamp"] = f"{self.clock:.3f}"
        return base

    def start(self) -> None:
        name = {"cursor": "sessionStart", "claude": "SessionStart", "codex": "SessionStart"}.get(
            self.agent, "SessionStart"
        )
        self._emit({**self._base(name), "source": "startup"})

    def end(self) -> None:
        name = "sessionEnd" if self.agent == "cursor" else "SessionEnd"
        if self.agent != "codex":
            self._emit({**self._base(name), "reason": "prompt_input_exit"})

    def prompt(self, text: str) -> None:
        name = {"cursor": "beforeSubmitPrompt", "gemini": "BeforeAgent"}.get(self.agent, "UserPromptSubmit")
        self._emit({**self._base(name), "prompt": text})

    def answer(self, text: str) -> None:
        if self.agent == "cursor":
            self._emit({**self._base("afterAgentResponse"), "text": text})
            self._emit({**self._base("stop"), "status": "completed", "loop_count": 0})
        elif self.agent == "gemini":
            self._emit(
                {**self._base("AfterAgent"), "prompt": "", "prompt_response": text, "stop_hook_active": False}
            )
        else:
            self._emit({**self._base("Stop"), "stop_hook_active": False, "last_assistant_message": text})

    def read(self, path: str, content: str) -> None:
        if self.agent in ("cursor", "gemini"):
            return  # these agents have no post-read hook
        self._emit(
            {
                **self._base("PostToolUse"),
                "tool_name": "Read",
                "tool_input": {"file_path": f"{self.root}/{path}"},
                "tool_response": {
                    "type": "text",
                    "file": {
                        "filePath": f"{self.root}/{path}",
                        "content": content,
                        "numLines": content.count("\n") + 1,
                        "startLine": 1,
                    },
                },
                "tool_use_id": self._tool_id(),
            }
        )

    def search(self, pattern: str, directory: str, hits: list[str]) -> None:
        if self.agent in ("cursor", "gemini"):
            return
        self._emit(
            {
                **self._base("PostToolUse"),
                "tool_name": "Grep",
                "tool_input": {
                    "pattern": pattern,
                    "path": f"{self.root}/{directory}",
                    "output_mode": "files_with_matches",
                },
                "tool_response": {
                    "mode": "files_with_matches",
                    "filenames": [f"{self.root}/{h}" for h in hits],
                    "numFiles": len(hits),
                },
                "tool_use_id": self._tool_id(),
            }
        )

    def edit(self, path: str, old: str, new: str) -> None:
        full = f"{self.root}/{path}"
        if self.agent == "cursor":
            self._emit(
                {
                    **self._base("afterFileEdit"),
                    "file_path": full,
                    "edits": [{"old_string": old, "new_string": new}],
                }
            )
            return
        tool = "replace" if self.agent == "gemini" else "Edit"
        name = "AfterTool" if self.agent == "gemini" else "PostToolUse"
        self._emit(
            {
                **self._base(name),
                "tool_name": tool,
                "tool_input": {"file_path": full, "old_string": old, "new_string": new, "replace_all": False},
                "tool_response": {"filePath": full, "oldString": old, "newString": new},
                "tool_use_id": self._tool_id(),
            }
        )

    def shell(self, command: str, output: str, *, failed: bool = False) -> None:
        if self.agent == "cursor":
            if failed:
                self._emit(
                    {
                        **self._base("postToolUseFailure"),
                        "tool_name": "Shell",
                        "tool_input": {"command": command, "cwd": "", "timeout": 30000},
                        "error_message": output,
                        "failure_type": "error",
                        "duration": 2310.5,
                        "tool_use_id": self._tool_id(),
                        "is_interrupt": False,
                        "cwd": "",
                    }
                )
            else:
                self._emit(
                    {
                        **self._base("postToolUse"),
                        "tool_name": "Shell",
                        "tool_input": {"command": command},
                        "tool_output": output,
                        "duration": 1200,
                    }
                )
            return
        if self.agent == "gemini":
            self._emit(
                {
                    **self._base("AfterTool"),
                    "tool_name": "run_shell_command",
                    "tool_input": {"command": command, "description": "Run the command"},
                    "tool_response": {
                        "llmContent": f"Output: {output}\nExit Code: {1 if failed else 0}",
                        "returnDisplay": output,
                    },
                }
            )
            return
        if failed:
            self._emit(
                {
                    **self._base("PostToolUseFailure"),
                    "tool_name": "Bash",
                    "tool_input": {"command": command, "description": "Run the tests"},
                    "tool_use_id": self._tool_id(),
                    "error": f"Exit code 1\n{output}",
                    "is_interrupt": False,
                }
            )
        else:
            self._emit(
                {
                    **self._base("PostToolUse"),
                    "tool_name": "Bash",
                    "tool_input": {"command": command, "description": "Run the command"},
                    "tool_response": {"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
                    "tool_use_id": self._tool_id(),
                }
            )

    def todo(self, items: list[str]) -> None:
        if self.agent != "claude":
            return
        todos = [{"content": i, "status": "pending", "activeForm": i} for i in items]
        self._emit(
            {
                **self._base("PostToolUse"),
                "tool_name": "TodoWrite",
                "tool_input": {"todos": todos},
                "tool_response": {"oldTodos": [], "newTodos": todos},
                "tool_use_id": self._tool_id(),
            }
        )

    def _tool_id(self) -> str:
        return f"toolu_{self.rng.getrandbits(96):024x}"


def _content(rng: random.Random, path: str) -> str:
    ext = "." + path.rsplit(".", 1)[-1]
    name = rng.choice(("next_delay", "apply", "render", "reduce_range", "post_entry", "verify"))
    body = _CODE.get(ext, _CODE[".py"]).format(name=name)
    filler = "".join(
        f"# line {rng.randint(10, 400)}: helper for {path.rsplit('/', 1)[-1]}\n" for _ in range(8)
    )
    return filler + body


def _routine(w: _Writer, rng: random.Random, repo: str, area: str) -> None:
    """What most of a session is: reading around, searching, a small edit, a passing run."""
    directory, files = _AREAS[repo][area]
    for _ in range(rng.randint(3, 7)):
        path = f"{directory}/{rng.choice(files)}"
        w.read(path, _content(rng, path))
    for _ in range(rng.randint(1, 3)):
        w.search(
            rng.choice(("TODO", "def apply", "export function", "import ", "retry", "range")),
            directory,
            [f"{directory}/{f}" for f in rng.sample(files, 2)],
        )
    for _ in range(rng.randint(1, 3)):
        path = f"{directory}/{rng.choice(files)}"
        old = _content(rng, path).splitlines()[-2]
        w.edit(path, old, old.replace("state", "next").replace("self.cap", "self.max_delay"))
    passed = rng.randint(20, 240)
    w.shell(_TEST_CMD[repo], f"{passed} passed in {rng.uniform(1, 9):.2f}s")
    w.shell("git status --short", f" M {directory}/{files[0]}\n M {directory}/{files[1]}")


_TASKS = (
    "add a {area} helper for the new partner integration in {file}",
    "refactor {file} so the {area} code is easier to test",
    "there's a TODO in {file}, can you handle it?",
    "rename the confusing variables in {file}",
    "add type hints / types to {file}",
    "clean up the {area} tests, they are slow",
)
_FAILURES = {
    "counted the first delivery as a retry": (
        "test_retry_stops_after_max_attempts",
        "AssertionError: assert 7 == 6\n  where 7 = len(sent_requests)",
    ),
    "depended on the machine timezone": (
        "test_reconcile_daily",
        "AssertionError: expected business date 2026-10-31, got 2026-11-01",
    ),
    "opened a second transaction inside with_for_update": (
        "test_refund_concurrent",
        "sqlalchemy.exc.OperationalError: deadlock detected",
    ),
    "ResizeObserver is undefined in jsdom": (
        "LineChart.test.tsx",
        "ReferenceError: ResizeObserver is not defined",
    ),
    "mutated the previous state in place": (
        "filters.test.ts",
        "expected selector to recompute, received cached range",
    ),
    "ships small-icu": ("format.test.ts", 'Expected: "1.234,00 €"  Received: "€1,234.00"'),
}


def _session(w: _Writer, rng: random.Random, repo: str, area: str, fact: Fact | None) -> None:
    directory, files = _AREAS[repo][area]
    w.start()
    target = f"{directory}/{rng.choice(files)}"
    w.prompt(rng.choice(_TASKS).format(area=area, file=target))
    w.todo([f"Read {target}", f"Update {area} code", "Run the tests"])
    _routine(w, rng, repo, area)
    w.answer(f"Done: I updated {target} and the {area} tests pass.")
    if fact is not None and fact.kind == "decision":
        w.prompt(rng.choice(("", "Before you go on: ", "One more thing. ")) + fact.text)
        w.answer("Understood, I'll follow that from now on in this repo.")
        _routine(w, rng, repo, area)
    elif fact is not None:
        test, error = _FAILURES[fact.marker]
        w.shell(f"{_TEST_CMD[repo]} -k {test.split('.')[0]}", f"FAILED {test}\n{error}", failed=True)
        w.prompt(f"{test} is failing, can you find out why and fix it?")
        for path in rng.sample(files, 2):
            w.read(f"{directory}/{path}", _content(rng, path))
        w.edit(f"{directory}/{files[0]}", "    attempt = 1\n", "    attempt = 0\n")
        w.shell(_TEST_CMD[repo], f"{rng.randint(20, 240)} passed in {rng.uniform(1, 9):.2f}s")
        # the agent states the fix in its commit message (a shell memory) and in its final answer
        # (an observation, which today's memory drafting does not keep)
        w.shell(
            f'git commit -am "{fact.text}"', f"[{w.branch} {rng.getrandbits(28):07x}] {test}\n 1 file changed"
        )
        w.answer(fact.text)
    for _ in range(rng.randint(1, 3)):
        w.prompt(rng.choice(_CHAT))
        w.answer(rng.choice(("Sure.", "Here is a short summary of the change.", "Done.", "Okay.")))
    if rng.random() < 0.5:
        _routine(w, rng, repo, area)
    w.end()


_AGENTS = {
    "payments-api": (("claude", 0.8), ("codex", 0.2)),
    "web-dashboard": (("claude", 0.5), ("cursor", 0.3), ("gemini", 0.2)),
}


def _agent(rng: random.Random, repo: str) -> str:
    roll, total = rng.random(), 0.0
    for agent, share in _AGENTS[repo]:
        total += share
        if roll < total:
            return agent
    return _AGENTS[repo][0][0]


def generate(root: str, *, end: float, seed: int = 7, days: int = 30, sessions_per_repo: int = 18) -> History:
    """The whole history under ``root`` (one directory per repo), ending at ``end`` (epoch seconds)."""
    if sessions_per_repo < 12 or days < 1:
        raise ValueError("need at least 12 sessions per repo (every fact gets its own) and 1 day")
    rng = random.Random(seed)
    facts = _facts()
    events: list[HookEvent] = []
    for repo, areas in _AREAS.items():
        own = [f for f in facts if f.repo == repo]
        slots = rng.sample(range(sessions_per_repo), len(own))
        by_slot = dict(zip(slots, own, strict=True))
        starts = sorted(rng.uniform(end - days * DAY, end - DAY / 2) for _ in range(sessions_per_repo))
        for index, start in enumerate(starts):
            fact = by_slot.get(index)
            area = fact.area if fact is not None and fact.area else rng.choice(sorted(areas))
            feature = area in ("webhooks", "charts") and rng.random() < 0.5
            branch = _BRANCHES[repo][1 if feature or (fact is not None and "signing" in fact.text) else 0]
            writer = _Writer(rng, root, _agent(rng, repo), repo, branch, start)
            _session(writer, rng, repo, area, fact)
            events.extend(writer.events)
    events.sort(key=lambda e: e.at)
    return History(events=tuple(events), facts=facts, situations=_situations(facts), repos=dict(_BRANCHES))


def _situations(facts: tuple[Fact, ...]) -> tuple[Situation, ...]:
    def at(name: str, repo: str, branch: str, area: str, prompt: str) -> Situation:
        if area:
            relevant = tuple(f for f in facts if f.repo == repo and f.area in ("", area))
            cwd = _AREAS[repo][area][0]
        else:  # a session at the repo root: the repo's standing decisions, whatever area they are about
            relevant = tuple(f for f in facts if f.repo == repo and f.kind == "decision")
            cwd = ""
        return Situation(name=name, repo=repo, branch=branch, cwd=cwd, prompt=prompt, relevant=relevant)

    return (
        at("payments root", "payments-api", "main", "", ""),
        at(
            "payments webhooks + prompt",
            "payments-api",
            "main",
            "webhooks",
            "merchant 4411 says we hammer their webhook endpoint, can you check delivery.py?",
        ),
        at("payments webhooks (feature branch)", "payments-api", "feat/webhook-signing", "webhooks", ""),
        at("payments db + prompt", "payments-api", "main", "db", "add a reason column to refunds"),
        at("payments ledger", "payments-api", "main", "ledger", ""),
        at("dashboard root", "web-dashboard", "main", "", ""),
        at(
            "dashboard charts + prompt (feature branch)",
            "web-dashboard",
            "feat/dark-mode",
            "charts",
            "the line chart colours don't switch in dark mode",
        ),
        at("dashboard i18n", "web-dashboard", "main", "i18n", ""),
        at(
            "dashboard store + prompt",
            "web-dashboard",
            "main",
            "store",
            "the invoices list shows old data after editing an invoice",
        ),
    )

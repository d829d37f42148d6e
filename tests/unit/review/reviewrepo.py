"""A small git repository (Python and TypeScript), indexed and its history read as ``codememory index
--history`` does, folded into a ``CodeGraph``: the review tests read a real extraction, not made-up facts."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from codememory.code.indexer import index_repository
from codememory.codegraph import CodeGraph
from codememory.events import MemoryScope, MemoryStored, new_envelope
from codememory.events.catalogue import Event
from codememory.githistory import extractor_spans, read_history

REPO = "acme/shop"
T0 = datetime(2026, 1, 5, tzinfo=UTC).timestamp()

PAY = """def validate(amount):
    return amount > 0


class Gateway:
    def charge(self, amount):
        validate(amount)
        return round(amount, 2)


def settle(amount):
    if not validate(amount):
        raise ValueError(amount)
    return amount
"""
API = """from shop.pay import settle


def checkout(cart):
    return settle(sum(cart))
"""
TEST = """from shop.pay import settle


def test_settle():
    assert settle(3) == 3
"""
TS = """export function render(total: number): string {
  return `${total}`;
}

export function header(): string {
  return "shop";
}
"""


class ShopRepo:
    """The repository on disk and the graph folded from it; ``commit`` adds history as it goes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.graph = CodeGraph("t1")
        self.seq = 0
        self.clock = T0
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        env = {**os.environ, "GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.com"}
        env |= {"GIT_COMMITTER_NAME": "Ann", "GIT_COMMITTER_EMAIL": "ann@example.com"}
        stamp = f"@{int(self.clock)} +0000"
        env |= {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        done = subprocess.run(["git", *args], cwd=self.root, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def write(self, files: dict[str, str]) -> None:
        for path, text in files.items():
            (self.root / path).parent.mkdir(parents=True, exist_ok=True)
            (self.root / path).write_text(text)

    def commit(self, message: str, files: dict[str, str], days: float = 1.0) -> str:
        self.clock += days * 86400
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def emit(self, event: Event, at: float | None = None) -> None:
        self.seq += 1
        moment = datetime.fromtimestamp(self.clock if at is None else at, UTC)
        envelope = new_envelope(event, event_id=f"e{self.seq}", tenant="t1", occurred_at=moment)
        self.graph.apply(envelope, self.seq)

    def index(self) -> CodeGraph:
        """Index the work tree, then read the whole history (what ``codememory index --history`` does)."""
        for event in index_repository(self.root, REPO, {}, workers=1):
            self.emit(event)
        for commit in read_history(self.root, REPO, symbols_of=extractor_spans(REPO)):
            self.emit(commit)
        return self.graph

    def remember(self, memory_id: str, text: str, paths: tuple[str, ...] = ()) -> None:
        created = datetime.fromtimestamp(self.clock, UTC).isoformat()
        scope = MemoryScope(repo=REPO, session_id="s1", paths=paths)
        self.emit(MemoryStored(memory_id=memory_id, text=text, scope=scope, created_at=created))


def shop_repo(root: Path) -> ShopRepo:
    """Five commits: the shop, tests, a documented rule, noise, a misleadingly named change."""
    shop = ShopRepo(root)
    first = {"shop/pay.py": PAY, "shop/api.py": API, "shop/__init__.py": ""}
    shop.commit("shop: payments and checkout", first)
    shop.commit(
        "pay: settle refuses non-positive amounts because refunds must go through the ledger",
        {
            "shop/pay.py": PAY.replace("raise ValueError(amount)", "raise ValueError(f'refund {amount}')"),
            "tests/test_pay.py": TEST,
            "CHANGELOG.md": "- settle refuses refunds\n",
        },
    )
    shop.commit("web: render totals", {"web/render.ts": TS, "CHANGELOG.md": "- render\n- settle\n"})
    shop.commit(
        "pay and api: rounding",
        {
            "shop/pay.py": PAY.replace("round(amount, 2)", "round(amount, 3)").replace(
                "raise ValueError(amount)", "raise ValueError(f'refund {amount}')"
            ),
            "shop/api.py": API + "\n\nVERSION = 2\n",
            "CHANGELOG.md": "- rounding\n- render\n- settle\n",
        },
    )
    shop.commit(
        "tidy",
        {
            "shop/pay.py": PAY.replace("round(amount, 2)", "round(amount, 3)").replace(
                "raise ValueError(amount)", "raise ValueError(f'refund:{amount}')"
            ),
            "shop/api.py": API + "\n\nVERSION = 3\n",
        },
    )
    return shop

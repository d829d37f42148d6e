"""A small real git repository for the code-graph tests: several languages, history, a rename."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

PAY_V1 = '''"""Payments."""


def validate(amount):
    """Refuse amounts that are not positive."""
    if amount <= 0:
        raise ValueError("amount")
    return amount


def settle(amount):
    """Settle a payment that was charged."""
    return validate(amount)


class Gateway:
    """Talks to the card processor."""

    def charge(self, amount):
        """Charge a card for a payment amount."""
        return validate(amount)
'''

PAY_V2 = PAY_V1.replace(
    "return validate(amount)", "checked = validate(amount)\n        return round(checked, 2)"
)

API = '''from shop.pay import Gateway, settle


def checkout(cart):
    """Check out a cart and take the payment."""
    charged = Gateway().charge(cart.total)
    return settle(charged)
'''

FILES = {
    "shop/__init__.py": "",
    "shop/pay.py": PAY_V1,
    "shop/api.py": API,
    "web/client.ts": (
        "import { render } from './view';\n\n/** Fetch the cart total from the server. */\n"
        "export function cartTotal(id: string): number {\n  return render(id).length;\n}\n"
    ),
    "web/view.ts": "export function render(id: string): string {\n  return id;\n}\n",
    "svc/main.go": (
        'package main\n\nimport "fmt"\n\n// Serve starts the shop server.\nfunc Serve() {\n'
        '\tfmt.Println("serving")\n}\n'
    ),
    "core/src/lib.rs": "/// Adds two prices.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    "app/Shop.java": "package app;\n\npublic class Shop {\n    public int size() { return 1; }\n}\n",
    "README.txt": "The shop.\n",
    ".gitignore": "build/\n",
    "build/generated.py": "def generated():\n    pass\n",
}


REPO = "example.com/acme/shop"  # the identity of the repository ``make_repo`` builds: its remote


def git(root: Path, *args: str, when: str = "", env: dict[str, str] | None = None) -> str:
    env = {
        **(env or os.environ),
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
    }
    if when:  # distinct author times: temporal queries tell the commits apart
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def make_repo(root: Path) -> list[str]:
    """Three commits: the first version, a change to ``Gateway.charge``, a rename. Returns their shas."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", f"https://{REPO}.git")
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first version", when="2026-01-05T10:00:00Z")
    (root / "shop/pay.py").write_text(PAY_V2)
    git(root, "commit", "-q", "-am", "round charged amounts", when="2026-02-05T10:00:00Z")
    git(root, "mv", "web/view.ts", "web/render.ts")
    (root / "web/client.ts").write_text(FILES["web/client.ts"].replace("./view", "./render"))
    git(root, "commit", "-q", "-am", "rename the view", when="2026-03-05T10:00:00Z")
    return git(root, "log", "--reverse", "--format=%H").splitlines()

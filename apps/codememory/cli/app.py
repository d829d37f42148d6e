"""``codememory``: set up and run the embedded stack, wire agents' hooks, and work with memories.

``codememory hook`` is dispatched before typer (or anything heavy) is imported: it runs inside every
agent hook and has a budget of tens of milliseconds.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"]:
        from codememory.hookclient.main import main_and_exit

        main_and_exit(argv[1:])  # flushes stdout and leaves without interpreter teardown
    from codememory.cli.commands import app
    from codememory.cli.erasecmd import register as register_erase
    from codememory.cli.reembedcmd import register as register_reembed
    from codememory.mcp.cli import register as register_mcp

    register_mcp(app)
    register_reembed(app)
    register_erase(app)
    app()


if __name__ == "__main__":
    main()

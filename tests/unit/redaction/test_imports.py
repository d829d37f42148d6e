"""The hook client imports codememory.redaction: it must pull in nothing outside the stdlib."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
before = set(sys.modules)
import codememory.redaction as redaction
redaction.clean_text("export API_TOKEN=abc123def456 and ghp_" + "a1" * 18)
loaded = sorted(set(sys.modules) - before)
stdlib = sys.stdlib_module_names
foreign = [m for m in loaded if m.split(".")[0] not in stdlib and m.split(".")[0] != "codememory"]
print("foreign=" + ",".join(foreign))
print("dataclasses=" + str("dataclasses" in sys.modules))
"""


def test_import_pulls_in_only_the_standard_library() -> None:
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    foreign_line, dataclasses_line = result.stdout.strip().splitlines()
    for heavy in ("msgspec", "nats", "numpy", "structlog", "grpc", "torch"):
        assert heavy not in foreign_line
    assert foreign_line == "foreign="
    assert dataclasses_line == "dataclasses=False", "dataclasses is slow to import in the hook client"

"""The forgetting detector: undoing edits are named, continuations and asked-for reverts stay silent."""

from __future__ import annotations

from codememory.reviews.forgetting import Edit, Turn, detect, message

RENAME = Turn(
    1, "Rename get_user to fetch_user", (Edit("app/users.py", "def get_user(uid):", "def fetch_user(uid):"),)
)
CHECK = "    if uid is None:\n        raise ValueError('uid')\n    return db.get(uid)"
REMOVE_CHECK = Turn(
    1, "Drop the None check, callers validate", (Edit("app/users.py", CHECK, "    return db.get(uid)"),)
)
ADD_PARAM = Turn(
    1,
    "add a timeout parameter",
    (Edit("web/client.ts", "function fetchAll(url) {", "function fetchAll(url, timeout = 30) {"),),
)


def test_renaming_back_names_the_instruction_and_the_names() -> None:
    finding = detect(
        [RENAME], "add logging", Edit("app/users.py", "def fetch_user(uid):", "def get_user(uid):")
    )
    assert finding is not None and finding.turn == 1
    assert "renamed `fetch_user` back to `get_user`" in finding.undone
    text = message(finding)
    assert "Rename get_user to fetch_user" in text and "app/users.py" in text


def test_using_the_old_name_again_is_forgetting_too() -> None:
    later = Edit("app/users.py", "    return rows", "    user = get_user(rows[0])\n    return rows")
    finding = detect([RENAME], "handle the empty case", later)
    assert finding is not None and "old name `get_user`" in finding.undone[0]


def test_a_removed_check_put_back_is_found() -> None:
    finding = detect([REMOVE_CHECK], "tidy up", Edit("app/users.py", "    return db.get(uid)", CHECK))
    assert finding is not None
    assert any(u.startswith("put back `if uid is None") for u in finding.undone)


def test_an_added_parameter_dropped_is_found_in_typescript() -> None:
    later = Edit("web/client.ts", "function fetchAll(url, timeout = 30) {", "function fetchAll(url) {")
    finding = detect([ADD_PARAM], "fix the tests", later)
    assert finding is not None and "removed `timeout = 30`" in finding.undone


def test_a_refinement_of_the_instructed_change_is_silent() -> None:
    later = Edit(
        "web/client.ts", "function fetchAll(url, timeout = 30) {", "function fetchAll(url, timeout = 60) {"
    )
    assert detect([ADD_PARAM], "make the timeout longer", later) is None


def test_continuing_the_rename_is_silent() -> None:
    later = Edit("app/users.py", "    return get_user(uid)", "    return fetch_user(uid)")
    assert detect([RENAME], "update the callers too", later) is None


def test_a_revert_the_user_asks_for_is_silent() -> None:
    later = Edit("app/users.py", "def fetch_user(uid):", "def get_user(uid):")
    assert detect([RENAME], "Please revert the rename, it broke imports", later) is None


def test_code_moved_into_a_helper_is_not_dropped() -> None:
    guard = "    if uid is None:\n        raise ValueError('uid')"
    added = Turn(
        1,
        "fail fast without a uid",
        (Edit("app/users.py", "    return db.get(uid)", guard + "\n    return db.get(uid)"),),
    )
    helper = Edit("app/users.py", "def load(uid):", "def _require(uid):\n" + guard + "\n\n\ndef load(uid):")
    moved = Edit(
        "app/users.py", guard + "\n    return db.get(uid)", "    _require(uid)\n    return db.get(uid)"
    )
    assert detect([added], "extract the check into a helper", moved, since=[helper]) is None
    assert detect([added], "extract the check into a helper", moved) is not None  # nowhere else: dropped


def test_another_file_and_an_unsupported_language_are_silent() -> None:
    assert detect([RENAME], "x", Edit("app/other.py", "def fetch_user(uid):", "def get_user(uid):")) is None
    notes = Turn(1, "reword", (Edit("notes.md", "old words", "new words"),))
    assert detect([notes], "x", Edit("notes.md", "new words", "old words")) is None


def test_edits_before_any_prompt_carry_no_instruction() -> None:
    silent = Turn(0, "", RENAME.edits)
    assert detect([silent], "x", Edit("app/users.py", "def fetch_user(uid):", "def get_user(uid):")) is None


def test_deleting_the_function_is_not_dropping_its_parameter() -> None:
    gone = Edit("web/client.ts", "function fetchAll(url, timeout = 30) {\n  return get(url);\n}", "")
    assert detect([ADD_PARAM], "remove dead code", gone) is None


def test_removals_inside_a_block_written_from_scratch_are_refactoring() -> None:
    body = "\n".join(f"    if x{i} is None:\n        raise ValueError('x{i}')" for i in range(16))
    wrote = Turn(
        1, "write the validator", (Edit("v.py", "def validate(x0):\n    pass", f"def validate(x0):\n{body}"),)
    )
    later = Edit("v.py", "    if x3 is None:\n        raise ValueError('x3')\n", "")
    assert detect([wrote], "simplify", later) is None
    focused = Turn(
        1, "check x3", (Edit("v.py", "    pass", "    if x3 is None:\n        raise ValueError('x3')"),)
    )
    assert detect([focused], "simplify", later) is not None


def test_a_keyword_argument_dropped_from_its_call_is_found() -> None:
    call = Turn(1, "pass a timeout", (Edit("p.py", "fetch(url)", "fetch(url, timeout=5)"),))
    assert detect([call], "tidy", Edit("p.py", "fetch(url, timeout=5)", "fetch(url)")) is not None
    assert detect([call], "tidy", Edit("p.py", "fetch(url, timeout=5)", "fetch(url, timeout=10)")) is None

"""The web view in a real headless browser (Debian's chromium and chromedriver, driven by selenium)
against a real stack: memories stored through the gateway, a repository indexed, then the page at
``ui_url`` searched, filtered, its sessions, code graph and event log opened. A request without the
local token is refused (401) and one with a wrong token too (403).

Screenshots of every page go to ``test-artifacts/web-view/`` (git-ignored); with
``CODEMEMORY_DOCS_SCREENSHOTS=1`` also to ``docs/images/`` (what the README shows).
"""

from __future__ import annotations

import json
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from coderepo import PAY_V2, REPO, make_repo  # type: ignore[import-not-found]

from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from conftest import Stack, launch, shutdown  # type: ignore[import-not-found]

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web-view"
DOCS_IMAGES = ROOT / "docs" / "images"
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
REPO_ROOT: list[Path] = []  # where the module's repository was made

if not (CHROMIUM and CHROMEDRIVER):  # the test command installs them (scripts/setup.sh): say so loudly
    raise RuntimeError(
        "chromium and chromedriver are missing: run `bash scripts/setup.sh` (apt-get installs them)"
    )

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, str]]:
    running = launch(tmp_path_factory.mktemp("webhome"))
    try:
        yield running, ui_url(running)
    finally:
        shutdown(running)


def ui_url(stack: Stack, timeout_s: float = 60.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        url = json.loads((stack.home / "runtime.json").read_text()).get("ui_url")
        if url:
            return str(url)
        time.sleep(0.2)
    raise AssertionError("codememory up wrote no ui_url to runtime.json")


@pytest.fixture(scope="module")
def stored(web_stack: tuple[Stack, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Memories in two sessions (one superseded by a later one) and an indexed repository."""
    stack, _ = web_stack
    root = tmp_path_factory.mktemp("webcode") / "shop"
    make_repo(root)
    stack.cli_json("index", str(root))
    REPO_ROOT.append(root)
    stub = memory_pb2_grpc.MemoryServiceStub(grpc.insecure_channel(stack.grpc_address))
    meta = (("authorization", f"Bearer {stack.token()}"),)

    def store(text: str, kind: str, session: str) -> str:
        request = pb.StoreRequest(text=text, type=kind, scope=pb.Scope(repo=REPO, session_id=session))
        return str(stub.Store(request, metadata=meta, timeout=30).memory_id)

    ids = {
        "old": store("Payments are settled by the nightly batch job", "decision", "sess-web-1"),
        "note": store("The card processor times out after 30 seconds", "note", "sess-web-1"),
        "code": store("Gateway.charge in shop/pay.py validates amounts", "note", "sess-web-2"),
        "new": store("Payments are settled at once, no nightly batch any more", "decision", "sess-web-2"),
    }
    stub.Supersede(
        pb.SupersedeRequest(memory_id=ids["old"], superseded_by=ids["new"], reason="changed"),
        metadata=meta,
        timeout=30,
    )
    stack.wait_caught_up()
    return ids


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver: WebDriver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    assert driver.save_screenshot(str(path)), f"no screenshot {name}"
    if _docs_wanted():
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_IMAGES / f"web-{name}.png")


def _docs_wanted() -> bool:
    import os

    return os.environ.get("CODEMEMORY_DOCS_SCREENSHOTS") == "1"


def wait_for(driver: WebDriver, check: Callable[[WebDriver], Any], what: str, timeout_s: float = 20.0) -> Any:
    try:
        return WebDriverWait(driver, timeout_s, poll_frequency=0.1).until(check)
    except Exception as exc:
        raise AssertionError(
            f"the page never showed {what}; browser log: {driver.get_log('browser')}"
        ) from exc


def summary_starts(prefix: str) -> Callable[[WebDriver], bool]:
    return lambda d: d.find_element(By.ID, "memory-summary").text.startswith(prefix)


def text_of(element_id: str) -> Callable[[WebDriver], str]:
    return lambda d: d.find_element(By.ID, element_id).text


def nodes_of(driver: WebDriver, side: str) -> list[Any]:
    return list(driver.find_elements(By.CSS_SELECTOR, f"#graph g.node.{side}"))


def cards(driver: WebDriver) -> list[str]:
    """The cards' texts; read again when the list was re-rendered while being read."""
    for _ in range(20):
        try:
            return [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#memory-list .card")]
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise AssertionError("the memory list kept being re-rendered")


def fill(driver: WebDriver, field: str, value: str) -> None:
    element = driver.find_element(By.ID, field)
    element.clear()
    element.send_keys(value)


def test_a_request_without_the_token_or_with_a_wrong_one_is_refused(web_stack: tuple[Stack, str]) -> None:
    _, url = web_stack
    base = url.split("/?", 1)[0]
    for path, headers, status in (
        ("/", {}, 401),
        ("/api/memories", {}, 401),
        ("/?token=not-the-token", {}, 403),
        ("/api/memories", {"Authorization": "Bearer not-the-token"}, 403),
        ("/api/events", {"Cookie": "cm_token=not-the-token"}, 403),
    ):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=10)
        assert refused.value.code == status, path
    with urllib.request.urlopen(url, timeout=10) as page:  # the right token: the page, and its cookie
        assert page.status == 200 and "cm_token=" in page.headers["Set-Cookie"]


def test_memories_are_searched_and_filtered_in_the_browser(
    web_stack: tuple[Stack, str], stored: dict[str, str], browser: WebDriver
) -> None:
    _, url = web_stack
    browser.get(url)
    wait_for(browser, lambda d: len(cards(d)) >= 4, "the newest memories")
    assert "token" not in browser.current_url  # the token left the address bar
    shot(browser, "memories")

    fill(browser, "q", "when are payments settled")
    browser.find_element(By.ID, "search-button").click()
    wait_for(browser, lambda d: "found in" in text_of("memory-summary")(d), "a search result")
    found = cards(browser)
    assert "settled at once" in found[0]  # the later decision ranks first
    assert "score" in found[0] and "dense" in found[0]  # each hit shows its score parts
    superseded = next(c for c in found if "nightly batch job" in c)
    assert "superseded" in superseded and "superseded by" in superseded
    shot(browser, "search")

    browser.find_elements(By.CSS_SELECTOR, "#memory-list .card")[0].click()
    wait_for(
        browser, lambda d: "History" in d.find_element(By.ID, "memory-detail").text, "a memory's history"
    )
    assert "supersedes" in browser.find_element(By.ID, "memory-detail").text

    fill(browser, "q", "")
    fill(browser, "f-type", "note")
    fill(browser, "f-repo", REPO)
    browser.find_element(By.ID, "search-button").click()
    wait_for(
        browser, lambda d: d.find_element(By.ID, "memory-summary").text.startswith("2 of 2"), "two notes"
    )
    assert all(c.startswith("note") for c in cards(browser))

    fill(browser, "f-type", "")
    fill(browser, "f-session", "sess-web-1")
    browser.find_element(By.ID, "search-button").click()
    wait_for(
        browser, lambda d: d.find_element(By.ID, "memory-summary").text.startswith("2 of 2"), "session 1"
    )
    wait_for(browser, lambda d: all("sess-web-1" in c for c in cards(d)), "only session 1's cards")

    fill(browser, "f-session", "")
    fill(browser, "f-until", "01012020")  # a date field: long before anything was stored
    browser.find_element(By.ID, "search-button").click()
    wait_for(
        browser, lambda d: d.find_element(By.ID, "memory-summary").text.startswith("0 of 0"), "no memory"
    )


def test_sessions_graph_and_event_log_pages(
    web_stack: tuple[Stack, str], stored: dict[str, str], browser: WebDriver
) -> None:
    _, url = web_stack
    browser.get(url)
    browser.find_element(By.ID, "tab-sessions").click()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#timeline .session")) >= 2, "sessions")
    sessions = [s.get_attribute("data-session") for s in browser.find_elements(By.CSS_SELECTOR, ".session")]
    assert sessions[:2] == ["sess-web-2", "sess-web-1"]  # the latest activity first
    shot(browser, "sessions")
    browser.find_element(By.CSS_SELECTOR, '.session[data-session="sess-web-1"]').click()
    wait_for(
        browser, lambda d: d.find_element(By.ID, "memory-summary").text.startswith("2 of 2"), "its memories"
    )

    browser.find_element(By.ID, "tab-graph").click()
    fill(browser, "g-node", "shop/pay.py")
    fill(browser, "g-repo", REPO)
    Select(browser.find_element(By.ID, "g-depth")).select_by_visible_text("2")
    browser.find_element(By.ID, "graph-button").click()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#graph g.node")) >= 3, "the graph")
    summary = browser.find_element(By.ID, "graph-summary").text
    assert "dependents of shop/pay.py" in summary
    keys = [n.get_attribute("data-key") for n in browser.find_elements(By.CSS_SELECTOR, "#graph g.node.in")]
    assert any("api" in (k or "") for k in keys)  # shop/api.py imports shop.pay: a dependent
    parents = {n.get_attribute("data-key"): n.get_attribute("data-parent") for n in nodes_of(browser, "out")}
    assert parents.get("shop.pay.settle") == "shop.pay"  # depth 2 hangs from the node that reached it
    shot(browser, "graph")
    dependent = browser.find_element(By.CSS_SELECTOR, "#graph g.node.in circle")
    dependent.click()
    wait_for(
        browser, lambda d: "pagerank" in d.find_element(By.ID, "graph-detail").text, "a node's centrality"
    )

    browser.find_element(By.ID, "tab-events").click()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#events tr.event")) >= 5, "events")
    rows = browser.find_elements(By.CSS_SELECTOR, "#events tr.event")
    seqs = [int(r.get_attribute("data-seq") or 0) for r in rows]
    assert seqs == sorted(seqs, reverse=True)  # newest first
    assert any("memory.superseded" in r.text for r in rows)
    shot(browser, "events")


def test_a_memory_whose_code_changed_since_is_shown_suspect(
    web_stack: tuple[Stack, str], stored: dict[str, str], browser: WebDriver
) -> None:
    stack, url = web_stack
    (root,) = REPO_ROOT
    stub = memory_pb2_grpc.MemoryServiceStub(grpc.insecure_channel(stack.grpc_address))
    written = (datetime.now(UTC) - timedelta(hours=1)).isoformat()  # a memory from before the edit
    text = "Gateway.charge rounds amounts to cents before the ledger"
    request = pb.StoreRequest(text=text, scope=pb.Scope(repo=REPO, paths=["shop/pay.py"]), created_at=written)
    stub.Store(request, metadata=(("authorization", f"Bearer {stack.token()}"),), timeout=30)
    (root / "shop/pay.py").write_text(PAY_V2.replace("round(checked, 2)", "int(checked * 100)"))
    edit = {
        "session_id": "sess-web-edit",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(root / "shop/pay.py"), "old_string": "round", "new_string": "int"},
        "tool_response": {"filePath": str(root / "shop/pay.py"), "success": True},
    }
    assert stack.hook("claude", json.dumps(edit).encode()).returncode == 0
    stack.wait_caught_up()
    browser.get(url)
    fill(browser, "q", "how are amounts rounded for the ledger")
    fill(browser, "f-working", "shop/api.py")

    def suspect_shown(driver: WebDriver) -> bool:
        driver.find_element(By.ID, "search-button").click()
        time.sleep(0.3)
        return any("suspect:" in c and "rounds amounts" in c for c in cards(driver))

    wait_for(browser, suspect_shown, "the memory marked suspect", timeout_s=40)
    shot(browser, "suspect")

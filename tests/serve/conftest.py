"""The players' pages served for real (on a free port of this machine, in a thread of the test
process), and a headless Chromium driven by Selenium to read them as a phone's browser does."""

from __future__ import annotations

import asyncio
import queue
import shutil
import threading
from pathlib import Path

import pytest

# what the server's thread runs, imported here first: Python 3.11 can fail ("AST constructor
# recursion depth mismatch") when one thread compiles a module while another compiles a test's
import rules.actions  # noqa: F401
import rules.turn.checklist  # noqa: F401
import serve.page  # noqa: F401
import serve.side_state  # noqa: F401
import storage.checklist  # noqa: F401
import storage.game  # noqa: F401
import storage.migrations  # noqa: F401
import storage.sight_ledger  # noqa: F401
import storage.sightings  # noqa: F401
from serve.server import serve


class Served:
    """A server of the save at ``path`` running in its own thread and event loop."""

    def __init__(self, path: Path, sides: list[str]):
        self.path = path
        got: queue.Queue = queue.Queue()
        self.loop = asyncio.new_event_loop()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.task = self.loop.create_task(
                serve(path, "127.0.0.1", 0, sides, lambda server, base: got.put((server, base)))
            )
            try:
                self.loop.run_until_complete(self.task)
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        self.server, self.base = got.get(timeout=30)
        self.links = self.server.link_map(self.base)
        self.umpire = f"{self.base}/u/{self.server.links.umpire}"

    def call(self, coro_fn, *args):
        """Run ``coro_fn(*args)`` on the server's loop and give its result."""
        return asyncio.run_coroutine_threadsafe(coro_fn(*args), self.loop).result(10)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(10)


@pytest.fixture
def serving():
    made: list[Served] = []

    def start(path: Path, sides: list[str]) -> Served:
        s = Served(path, sides)
        made.append(s)
        return s

    yield start
    for s in made:
        s.close()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")


def _browser(width: int, height: int, tmp: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert CHROMIUM and DRIVER, (
        "the browser tests need Debian's chromium and chromium-driver (.ci/run installs them)"
    )
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp}",
        f"--window-size={width},{height}",
    ):
        opts.add_argument(flag)
    opts.add_experimental_option(
        "mobileEmulation",
        {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0, "touch": True}},
    )
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


@pytest.fixture
def phone(tmp_path):
    """A headless Chromium the size of a phone held upright (390 x 844)."""
    b = _browser(390, 844, tmp_path / "phone-profile")
    b.set_page_load_timeout(20)
    yield b
    b.quit()


@pytest.fixture
def tablet(tmp_path):
    """A headless Chromium the size of a tablet held sideways (1180 x 820)."""
    b = _browser(1180, 820, tmp_path / "tablet-profile")
    yield b
    b.quit()

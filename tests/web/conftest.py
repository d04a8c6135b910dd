"""Browser tests: the web client served by a real HTTP server, driven in Debian's Chromium
through Playwright. Skipped only when no Chromium is installed (CI installs it)."""

from __future__ import annotations

import json
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import WSGIRequestHandler, make_server

from service import create_app
from service.settings import Settings
from tests.web.driver import WAIT_MS

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"


class Handler(WSGIRequestHandler):
    disable_nagle_algorithm = True  # else each answer waits ~40 ms for a delayed ACK


class Server:
    """The app on a free port of 127.0.0.1, in a thread, with a temporary SQLite file."""

    def __init__(self, db: Path, **config: Any) -> None:
        self.app = create_app(Settings(database=str(db), stream_seconds=6, stream_poll=0.05,
                                       stream_keepalive=2, stream_retry_ms=200, **config))
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True,
                                  request_handler=Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def call(self, path: str, body: Any = None, token: str | None = None) -> Any:
        """The API, as a test's own client (to set up games and read records)."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, headers=headers)
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.load(resp)

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(5)
        self.app.extensions["alhambra"].store.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("web") / "web.db")
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("no Chromium installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_context(browser):
    """Fresh browser contexts (separate storage, like separate people), closed after."""
    contexts = []

    def make(**kwargs):
        ctx = browser.new_context(**kwargs)
        ctx.set_default_timeout(WAIT_MS)
        contexts.append(ctx)
        return ctx

    yield make
    for ctx in contexts:
        ctx.close()


def watch_errors(page) -> list[str]:
    """Collect the page's script errors and failed loads (the test asserts there are none)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}")
            if m.type == "error" else None)
    return errors


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path

"""Headless Chromium driven by Playwright: the system browser (Debian `chromium`, `make browser`) through
``executable_path``, so nothing is downloaded (no `playwright install`). One browser and one browser context (so
one localStorage) per `Chromium()`; pages load files or loopback URLs; console errors, page exceptions, browser
log errors and network requests are collected per page."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.support.polling import wait_for

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--hide-scrollbars"]


class Page:
    """One tab, with what it logged. Playwright reports the browser's own log entries ("Failed to load
    resource") as console messages without arguments; calls of ``console.error`` carry their arguments."""

    def __init__(self, page):
        self.page = page
        self._console: list = []
        self._exceptions: list[dict] = []
        self._requests: list[str] = []
        page.on("console", lambda message: self._console.append(message))
        page.on("pageerror", lambda error: self._exceptions.append({"message": str(error)}))
        page.on("request", lambda request: self._requests.append(request.url))

    def evaluate(self, expression: str):
        return self.page.evaluate(expression)

    def wait_until(self, expression: str, timeout: float = 30.0, what: str = "") -> None:
        """Poll a JavaScript condition until it is truthy (a page that renders after its data arrives)."""

        def shown() -> str:
            text = self.evaluate("document.body ? document.body.innerText.slice(0, 1500) : ''")
            return f"page showing {what or expression!r} (it shows: {text})"

        wait_for(lambda: self.evaluate(expression), shown, timeout=timeout, interval=0.25, pause=self.drain)

    def drain(self, seconds: float) -> None:
        """Let the page run (and its events arrive) for ``seconds``."""
        self.page.wait_for_timeout(seconds * 1000)

    def screenshot(self, width: int, height: int) -> bytes:
        self.page.set_viewport_size({"width": width, "height": height})
        return self.page.screenshot(type="png")

    def console_errors(self) -> list[dict]:
        return [{"type": m.type, "text": m.text, "url": m.location.get("url", "")} for m in self._console
                if m.type in ("error", "assert") and m.args]

    def exceptions(self) -> list[dict]:
        return list(self._exceptions)

    def log_errors(self) -> list[dict]:
        return [{"text": m.text, "url": m.location.get("url", "")} for m in self._console
                if m.type == "error" and not m.args]

    def requests(self) -> list[str]:
        return list(self._requests)


class Chromium:
    """One headless Chromium for a `with` block; `page(...)` opens a fresh tab with the given viewport."""

    def __enter__(self) -> Chromium:
        if not Path(CHROMIUM).exists():
            pytest.fail(f"{CHROMIUM} is missing: run `make browser` (apt-get install chromium)", pytrace=False)
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        try:
            self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, timeout=60_000)
            self.context = self.browser.new_context()
        except Exception:
            self.playwright.stop()
            raise
        return self

    def page(self, url: str, width: int = 1280, height: int = 900) -> Page:
        page = Page(self.context.new_page())
        page.page.set_viewport_size({"width": width, "height": height})
        page.page.goto(url, wait_until="load", timeout=60_000)
        return page

    def __exit__(self, *exc) -> None:
        try:
            self.browser.close()
        finally:
            self.playwright.stop()


def open_in_chromium(path: Path, width: int = 1280) -> dict:
    """Load a local file in a fresh headless Chromium; return console errors, exceptions, log errors, network
    requests, page facts and a full-page PNG screenshot."""
    with Chromium() as browser:
        page = browser.page(path.resolve().as_uri(), width=width, height=900)
        page.drain(0.5)
        facts = page.evaluate("""({
            title: document.title,
            images: document.images.length,
            decoded: Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).length,
            scripts: document.scripts.length,
            anchors: Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href')),
            dangling: Array.from(document.querySelectorAll('a[href^="#"]'))
                .filter(a => !document.getElementById(a.getAttribute('href').slice(1))).length,
            citations: document.querySelectorAll('a.cite').length,
            height: document.documentElement.scrollHeight,
        })""")
        shot = page.screenshot(width, min(int(facts["height"]), 16000))
        return {
            "console_errors": page.console_errors(),
            "exceptions": page.exceptions(),
            "log_errors": page.log_errors(),
            "requests": page.requests(),
            "facts": facts,
            "screenshot": shot,
        }


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])

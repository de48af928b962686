"""Headless Chromium (Debian `chromium`, `make browser`) driven over the Chrome DevTools Protocol: no Selenium, no
webdriver download. One browser per `Chromium()` context; pages load files or loopback URLs; console errors,
exceptions, log errors and network requests are collected per page."""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
import struct
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--hide-scrollbars", "--remote-debugging-port=0",
]


class DevTools:
    """A minimal Chrome DevTools Protocol client over one page target's websocket."""

    def __init__(self, ws_url: str):
        from websockets.sync.client import connect

        self.ws = connect(ws_url, max_size=None, open_timeout=10)
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, **params) -> dict:
        self.next_id += 1
        ident = self.next_id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=60))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event.get("method") == method:
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no {method} within {timeout}s")
            self.events.append(json.loads(self.ws.recv(timeout=remaining)))

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                self.events.append(json.loads(self.ws.recv(timeout=remaining)))
            except TimeoutError:
                return

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_until(self, expression: str, timeout: float = 30.0, what: str = "") -> None:
        """Poll a JavaScript condition until it is truthy (a page that renders after its data arrives)."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(expression):
            if time.monotonic() > deadline:
                text = self.evaluate("document.body ? document.body.innerText.slice(0, 1500) : ''")
                raise AssertionError(f"page never showed {what or expression!r} within {timeout}s; it shows: {text}")
            self.drain(0.25)

    def screenshot(self, width: int, height: int) -> bytes:
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)
        return base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])

    def console_errors(self) -> list[dict]:
        return [e["params"] for e in self.events if e.get("method") == "Runtime.consoleAPICalled"
                and e["params"]["type"] in ("error", "assert")]

    def exceptions(self) -> list[dict]:
        return [e["params"] for e in self.events if e.get("method") == "Runtime.exceptionThrown"]

    def log_errors(self) -> list[dict]:
        return [e["params"]["entry"] for e in self.events if e.get("method") == "Log.entryAdded"
                and e["params"]["entry"]["level"] == "error"]

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        self.ws.close()


class Chromium:
    """One headless Chromium for a `with` block; `page(...)` opens a fresh tab with the given viewport."""

    def __enter__(self) -> Chromium:
        if not Path(CHROMIUM).exists():
            pytest.fail(f"{CHROMIUM} is missing: run `make browser` (apt-get install chromium)", pytrace=False)
        self.profile = Path(tempfile.mkdtemp(prefix="agentr-chromium-"))
        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                err = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.poll() is not None else ""
                self.__exit__(None, None, None)
                pytest.fail(f"chromium did not start its DevTools endpoint: {err}", pytrace=False)
            time.sleep(0.05)
        self.port = int(port_file.read_text().split()[0])
        self.pages: list[DevTools] = []
        return self

    def page(self, url: str, width: int = 1280, height: int = 900) -> DevTools:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(request, timeout=10) as response:
            target = json.load(response)
        cdp = DevTools(target["webSocketDebuggerUrl"])
        self.pages.append(cdp)
        for domain in ("Runtime", "Log", "Network", "Page"):
            cdp.send(f"{domain}.enable")
        cdp.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        cdp.send("Page.navigate", url=url)
        cdp.wait_for("Page.loadEventFired", timeout=60)
        return cdp

    def __exit__(self, *exc) -> None:
        for cdp in getattr(self, "pages", []):
            with contextlib.suppress(Exception):  # a socket the browser already dropped
                cdp.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def open_in_chromium(path: Path, width: int = 1280) -> dict:
    """Load a local file in a fresh headless Chromium; return console errors, exceptions, log errors, network
    requests, page facts and a full-page PNG screenshot."""
    with Chromium() as browser:
        cdp = browser.page(path.resolve().as_uri(), width=width, height=900)
        cdp.drain(0.5)
        facts = cdp.evaluate("""({
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
        shot = cdp.screenshot(width, min(int(facts["height"]), 16000))
        return {
            "console_errors": cdp.console_errors(),
            "exceptions": cdp.exceptions(),
            "log_errors": cdp.log_errors(),
            "requests": cdp.requests(),
            "facts": facts,
            "screenshot": shot,
        }


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])

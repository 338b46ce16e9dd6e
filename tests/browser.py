"""Loads a page in headless Chromium through the DevTools protocol and reports what a
reader would see: every image and whether it decoded, and every console or page error.

Debian's `chromium` is driven directly (no browser download): started with a temporary
profile and `--remote-debugging-port=0`, it writes the port it chose to the profile's
`DevToolsActivePort`; the page's target is then reached over a WebSocket.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def chromium() -> str | None:
    """The Chromium executable, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


#: The window the page is laid out in: a laptop screen, in CSS pixels.
VIEWPORT = (1280, 900)


@dataclass
class PageReport:
    #: Per image: src, complete, naturalWidth, and its width on the page (CSS px).
    images: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    title: str = ""


def load(page: Path, timeout: float = 60.0, screenshot: Path | None = None) -> PageReport:
    """Opens `page` (a local file) in a `VIEWPORT`-sized window and waits for its load
    event; with `screenshot`, saves the whole page there as PNG."""
    import websocket

    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium")
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen(
            [
                exe,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its helpers share its process group: stopped together
        )
        try:
            port = _devtools_port(Path(profile), proc, timeout)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
                targets = json.load(r)
            url = next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"]
            ws = websocket.create_connection(url, timeout=timeout)
            try:
                return _inspect(ws, page.resolve().as_uri(), timeout, screenshot)
            finally:
                ws.close()
        finally:
            _stop_group(proc)


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stops Chromium and every process it started (renderers, the crash handler): they
    outlive the browser for a moment and write into the profile, whose removal then
    fails with "Directory not empty". Waits until the group is gone (at most 10 s, then
    kills what is left)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)


def _devtools_port(profile: Path, proc: subprocess.Popen[bytes], timeout: float) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker.is_file() and marker.read_text().strip():
            return int(marker.read_text().split()[0])
        if proc.poll() is not None:
            raise RuntimeError(f"chromium exited with {proc.returncode}")
        time.sleep(0.05)
    raise TimeoutError("chromium did not open its DevTools port")


def _inspect(ws: Any, url: str, timeout: float, screenshot: Path | None) -> PageReport:
    report = PageReport()
    next_id = iter(range(1, 1_000_000))

    def call(method: str, **params: Any) -> dict[str, Any]:
        msg_id = next(next_id)
        ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(ws.recv())
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            _note(msg, report)

    for domain in ("Page", "Runtime", "Log"):
        call(f"{domain}.enable")
    width, height = VIEWPORT
    call("Emulation.setDeviceMetricsOverride", width=width, height=height,
         deviceScaleFactor=1, mobile=False)  # fmt: skip
    call("Page.navigate", url=url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = json.loads(ws.recv())
        if msg.get("method") == "Page.loadEventFired":
            break
        _note(msg, report)
    else:
        raise TimeoutError(f"{url} did not finish loading")
    script = (
        "JSON.stringify({title: document.title, images: Array.from(document.images, i => "
        "({src: i.getAttribute('src'), complete: i.complete, naturalWidth: i.naturalWidth, "
        "width: i.getBoundingClientRect().width}))})"
    )
    result = call("Runtime.evaluate", expression=script, returnByValue=True)
    page = json.loads(result["result"]["value"])
    report.images, report.title = page["images"], page["title"]
    if screenshot is not None:
        shot = call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
    return report


def _note(msg: dict[str, Any], report: PageReport) -> None:
    """Keeps the errors among the browser's events."""
    method, params = msg.get("method"), msg.get("params", {})
    if method == "Runtime.exceptionThrown":
        report.errors.append(params["exceptionDetails"].get("text", "exception"))
    elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        report.errors.append(" ".join(str(a.get("value", "")) for a in params.get("args", [])))
    elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
        entry = params["entry"]
        report.errors.append(f"{entry.get('text', '')} {entry.get('url', '')}".strip())

"""Browser fixtures and helpers for the web app tests (imported by conftest.py)."""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import socket
import threading
import time
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

from codex_fixture import bridge_codex_args, codex_bin, codex_home, workspace  # noqa: F401 (fixtures)
from mock_model import MockModel, _Handler, codex_env
import wsutil

import conftest as _conftest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
IPHONE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
             "Version/17.5 Mobile/15E148 Safari/604.1")
LOOPBACK_ONLY = re.compile(r"^(?!(https?|wss?)://(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?/).*")

expect.set_options(timeout=20_000)


# -- the scripted model, with two more response kinds for the browser tests ---------------------------------
class WebModel(MockModel):
    """MockModel plus:

    {"kind": "slow", "deltas": [...], "delay": 0.05, "hold_after": [k, ...]}  # streams deltas one by one;
        before delta k (the n-th hold point) sets `held[n]` and waits until `open_gate(n)`; then the whole message
    {"kind": "flood", "count": 20000, "piece": "x"}                    # `count` deltas as fast as possible
    {"kind": "say_exec", "text": "...", "cmd": "..."}                   # a message and a command in one response
    {"kind": "think", "reasoning": "...", "text": "..."}                # a reasoning summary, then a message
    """

    def __init__(self, script=None, max_stall_seconds: float = 120.0):
        super().__init__(script, max_stall_seconds)
        self.gates = [threading.Event() for _ in range(8)]
        self.held = [threading.Event() for _ in range(8)]

    def open_gate(self, n=0):
        self.gates[n].set()

    def wait_held(self, n=0, timeout=60):
        assert self.held[n].wait(timeout), f"the model never reached hold point {n}"

    def start(self):
        model = self

        class Handler(_WebHandler):
            owner = model

        from http.server import ThreadingHTTPServer
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="web-model", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        for gate in self.gates:
            gate.set()
        super().stop()


class _WebHandler(_Handler):
    """The scripted model's handler with the kinds the web tests add: slow or flooding streams (with hold points),
    a reasoning summary, a message then a command."""

    def _respond(self, kind, spec, n):
        if kind in ("slow", "flood"):
            self._stream(spec, n)
        elif kind == "think":  # a reasoning summary, then a message
            self._event({"type": "response.output_item.added", "output_index": 0,
                         "item": {"type": "reasoning", "id": f"rs_{n}", "summary": []}})
            self._event({"type": "response.reasoning_summary_text.delta", "item_id": f"rs_{n}", "output_index": 0,
                         "summary_index": 0, "delta": spec["reasoning"]})
            self._event({"type": "response.output_item.done", "output_index": 0,
                         "item": {"type": "reasoning", "id": f"rs_{n}",
                                  "summary": [{"type": "summary_text", "text": spec["reasoning"]}]}})
            self._message(spec.get("text", "ok"), spec.get("deltas"), n)
        elif kind == "say_exec":  # a message, then a command, in one response
            self._message(spec["text"], spec.get("deltas"), n)
            self._exec(spec, n)
        else:
            return super()._respond(kind, spec, n)
        return True

    def _stream(self, spec, n):
        item_id = f"msg_{n}"
        if spec["kind"] == "flood":
            deltas = [spec.get("piece", "x")] * int(spec.get("count", 1000))
        else:
            deltas = list(spec["deltas"])
        self._event({"type": "response.output_item.added", "output_index": 0,
                     "item": {"type": "message", "role": "assistant", "id": item_id, "content": []}})
        holds = spec.get("hold_after")
        holds = [] if holds is None else [holds] if isinstance(holds, int) else list(holds)
        delay = float(spec.get("delay", 0.0))
        chunk = []
        for i, delta in enumerate(deltas):
            if i in holds:
                point = holds.index(i)
                if chunk:
                    self.wfile.write("".join(chunk).encode())
                    self.wfile.flush()
                    chunk = []
                self.owner.held[point].set()
                while not self.owner.gates[point].wait(0.2):
                    self.wfile.write(b": waiting\n\n")
                    self.wfile.flush()
            payload = {"type": "response.output_text.delta", "item_id": item_id, "output_index": 0,
                       "content_index": 0, "delta": delta}
            chunk.append(f"event: response.output_text.delta\ndata: {json.dumps(payload)}\n\n")
            if delay or len(chunk) >= 200 or i == len(deltas) - 1:
                self.wfile.write("".join(chunk).encode())
                self.wfile.flush()
                chunk = []
            if delay:
                time.sleep(delay)
        self._event({"type": "response.output_item.done", "output_index": 0,
                     "item": {"type": "message", "role": "assistant", "id": item_id,
                              "content": [{"type": "output_text", "text": spec.get("text", "".join(deltas))}]}})


@pytest.fixture
def model():
    m = WebModel().start()
    yield m
    m.stop()


# -- the bridge -----------------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def web_env(base=None):
    """The environment for serve: the working tree's web files (no rebuild needed), or with WEB_EMBEDDED=1 the
    copy compiled into the binary."""
    env = dict(os.environ if base is None else base)
    env.pop("CODEX_BRIDGE_WEB_DIR", None)
    if not os.environ.get("WEB_EMBEDDED"):
        env["CODEX_BRIDGE_WEB_DIR"] = str(_conftest.ASSETS)
    return env


def bridge_env(codex_home_dir):
    return web_env(codex_env(codex_home_dir))


@pytest.fixture
def web_bridge_factory(bridge_factory, model, codex_home, workspace):
    """Bridges running the real codex against `model`, confined to `workspace`, serving the web app."""

    def make(name="web-state", listen=None, extra=()):
        args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port), *extra]
        kwargs = {"listen": listen} if listen else {}
        return bridge_factory(name=name, args=args, env=bridge_env(codex_home), **kwargs)

    return make


@pytest.fixture
def web_bridge(web_bridge_factory):
    return web_bridge_factory()


def pair_json(bridge, scopes=None) -> dict:
    """`pair --json`; `scopes` (e.g. "all") is passed as `--scope` (default: the standard scopes)."""
    extra = ("--scope", scopes) if scopes else ()
    result = _conftest.run_cli("pair", "--json", *extra, state_dir=bridge.state_dir, check=True)
    return json.loads(result.stdout)


def pairing_url(bridge, scopes=None) -> str:
    """The QR's web URL: `webUrl` from `pair --json` (built the same way when the binary predates it)."""
    info = pair_json(bridge, scopes)
    if info.get("webUrl"):
        return info["webUrl"]
    q = urllib.parse.quote
    return (f"http://127.0.0.1:{bridge.port}/#pair=v1&code={q(info['code'])}&id={q(info['serverId'])}"
            f"&name={q(info['name'])}")


def base_url(bridge) -> str:
    return f"http://127.0.0.1:{bridge.port}/"


def run_async(coro, timeout=60):
    """Runs a coroutine on a thread of its own (Playwright's sync API owns this thread's loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result(timeout)


def metric(bridge, name: str) -> float:
    """The value of one unlabelled series of the bridge's /metrics (read with its shared secret)."""
    request = urllib.request.Request(f"{base_url(bridge)}metrics", headers={"Authorization": f"Bearer {bridge.token}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.split(" ")[0] == name:
                return float(line.split(" ")[1])
    raise AssertionError(f"no {name} in /metrics")


def wait_until(condition, what: str, timeout=30.0, every=0.05, page=None):
    """Returns once `condition()` holds: the tests wait for what they need, not for a guessed time. With `page`, its
    events are delivered meanwhile (Playwright's sync API hands them over only inside its own calls)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        if page is None:
            time.sleep(every)
        else:
            page.wait_for_timeout(every * 1000)


def resume_answer(bridge, last_seq: int) -> str:
    """What a client resuming after `last_seq` is told now (`ok` or `gap`), from a connection of its own."""
    async def look():
        ws, ack = await wsutil.hello(bridge, extra={"resume": {"lastSeq": last_seq}})
        await ws.close()
        return ack.get("resume")
    return run_async(look())


MAX_RETRY_WAIT_MS = 10_000  # connection.js MAX_DELAY: the longest wait between two attempts


def let_the_backoff_grow(page, attempts=3):
    """What several failed attempts do to the page's backoff, without waiting for them: the page's clock (installed
    before it loaded, `page.clock.install()`) jumps past each wait and the attempt then fails for real."""
    sockets = []

    def opened(socket):
        sockets.append(socket)
    page.on("websocket", opened)
    try:
        for _ in range(attempts):
            before = len(sockets)
            page.clock.fast_forward(MAX_RETRY_WAIT_MS)
            wait_until(lambda: len(sockets) > before and sockets[-1].is_closed(), "a failed attempt", timeout=15, page=page)
    finally:
        page.remove_listener("websocket", opened)


# -- the browser ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-background-networking",
                                                               "--disable-component-update"])
        yield b
        b.close()


class Phone:
    """One browser context with a phone's screen, and its page. Records page errors, console errors and dialogs."""

    def __init__(self, browser, color_scheme="light", service_workers="block"):
        self.context = browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2,
            user_agent=IPHONE_UA, color_scheme=color_scheme, service_workers=service_workers)
        self.context.route(LOOPBACK_ONLY, lambda route: route.abort())
        self.page = self.context.new_page()
        self.errors, self.console, self.dialogs = [], [], []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def shot(self, name, full_page=False):
        _conftest.ARTIFACTS.mkdir(exist_ok=True)
        path = _conftest.ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def csp_violations(self):
        return [c for c in self.console if "Content Security Policy" in c or "Refused to" in c]

    def button(self, name):  # noqa: D102
        return self.page.get_by_role("button", name=name, exact=True)

    def status(self):
        return self.page.get_by_role("status")

    def close(self):
        self.context.close()


@pytest.fixture
def phone_factory(browser):
    made = []

    def make(**kwargs):
        p = Phone(browser, **kwargs)
        made.append(p)
        return p

    yield make
    for p in made:
        try:
            p.close()
        except Exception:
            pass


@pytest.fixture
def phone(phone_factory):
    return phone_factory()


def bench_phone(browser, bridge, cpu_slowdown=4):
    """For the browser benches (P9, P10): a phone's context paired with `bridge` (no service worker), then its CPU
    slowed through the DevTools protocol; returns (context, page, cdp session)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2, user_agent=IPHONE_UA, service_workers="block")
    page = context.new_page()
    page.goto(pairing_url(bridge))
    expect(page.get_by_role("status")).to_have_text("Connected")
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": cpu_slowdown})
    return context, page, cdp


def bench_out(result):
    """A bench's figures as JSON: to BENCH_OUT when set, and to stdout."""
    text = json.dumps(result, indent=1)
    out = os.environ.get("BENCH_OUT")
    if out:
        with open(out, "w") as f:
            f.write(text)
    print(text)


def pair(phone: Phone, bridge, scopes=None) -> str:
    """Opens the QR's URL and waits for the thread list; returns the URL opened."""
    url = pairing_url(bridge, scopes)
    phone.page.goto(url)
    expect(phone.status()).to_have_text("Connected")
    expect(phone.button("New thread")).to_be_visible()
    return url


def start_thread(phone: Phone, prompt: str, folder_path=()):
    """New thread → (browse into folder_path) → Use this folder → prompt → Start; waits for the thread screen."""
    page = phone.page
    phone.button("New thread").click()
    for name in folder_path:
        phone.button(name).click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill(prompt)
    phone.button("Start").click()
    page.wait_for_url(re.compile(r"#/t/"))
    expect(page.locator(".composer").get_by_label("Message")).to_be_visible()  # Send, or Stop while the turn runs


def thread_action(phone: Phone, name: str):
    """A thread header action (Diff, Review): they sit in the header's More menu."""
    phone.button("More").click()
    phone.page.get_by_role("menuitem", name=name, exact=True).click()


def thread_id_of(page) -> str:
    return urllib.parse.unquote(page.url.split("#/t/")[1].split("/")[0])

"""Issue 44 item 3, the outside review's attack in a real Chromium: thread A's dev server is hostile, thread B's holds
a secret (served with CORS that lets any origin read it with credentials). With both previews open on one phone,
a page of A's preview can read nothing of B's (same-origin fetch, a credentialed fetch of B's origin, an iframe,
localStorage), and a service worker of A's page neither registers nor answers B's tab. Then, with a range of one
preview port, a port given to another thread's preview once the first one ended starts with its storage cleared.
The previews are opened as the phone opens them (the ticket at the preview port). Cost: ~9 s."""
import pathlib
import subprocess
import sys
import time

import pytest
from playwright.sync_api import expect

from conftest import run_cli
from test_codex import request, until_turn_completed
from test_pairing import PHONE
from test_trust import pair as pair_device
from webutil import run_async
from wsutil import hello

DEVSERVER = pathlib.Path(__file__).resolve().parents[1] / "integration" / "preview_devserver.py"


@pytest.fixture
def servers(workspace, tmp_path):
    """Starts `name`'s dev server in workspace/NAME; returns its port. All are stopped at teardown."""
    procs = []

    def start(name):
        (workspace / name).mkdir(exist_ok=True)
        proc = subprocess.Popen([sys.executable, str(DEVSERVER), "http", str(tmp_path / f"{name}.log"), name],
                                cwd=workspace / name, stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        return int(proc.stdout.readline())

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


class Previews:
    """Threads in workspace/a and workspace/b, and fresh preview links for them (tickets are single-use)."""

    def __init__(self, bridge, model, workspace, token=None):
        self.bridge, self.model, self.workspace, self.token = bridge, model, workspace, token
        self.threads = {}

    async def _start(self, name):
        self.model.queue({"kind": "message", "text": f"{name} runs"})
        ws, _ = await hello(self.bridge, token=self.token)
        thread = (await request(ws, "startThread", cwd=str(self.workspace / name), prompt=f"serve {name}"))["threadId"]
        await until_turn_completed(ws, thread)
        await ws.close()
        return thread

    async def _open(self, name, port):
        ws, _ = await hello(self.bridge, token=self.token)
        answer = await request(ws, "openPreview", threadId=self.threads[name], port=port)
        await ws.close()
        return answer

    def thread(self, name):
        self.threads[name] = run_async(self._start(name))

    def answer(self, name, port):
        """openPreview's answer."""
        return run_async(self._open(name, port))

    def link(self, name, port):
        opened = self.answer(name, port)
        assert opened["kind"] == "preview", opened
        return opened["url"]


READ_SAME_ORIGIN = "fetch('/secret.json').then((r) => r.text()).catch((e) => `refused: ${e}`)"
READ_OTHER_ORIGIN = """(origin) => fetch(`${origin}/secret.json`, {credentials: 'include'})
    .then((r) => r.text()).catch((e) => `refused: ${e}`)"""
READ_IN_FRAME = """(origin) => new Promise((done) => {
    const frame = document.createElement('iframe');
    frame.src = `${origin}/secret.json`;
    frame.onload = () => { try { done(frame.contentDocument.body.textContent); } catch (e) { done(`refused: ${e}`); } };
    document.body.append(frame);
    setTimeout(() => done('timeout'), 5000);
})"""
REGISTER = """() => navigator.serviceWorker.register('/sw.js', {scope: '/'})
    .then(() => navigator.serviceWorker.ready).then(() => 'registered', (e) => `refused: ${e}`)"""


def test_a_hostile_preview_reads_nothing_of_another_and_its_service_worker_answers_nothing(
        web_bridge, model, workspace, servers, browser):
    a_port, b_port = servers("a"), servers("b")
    previews = Previews(web_bridge, model, workspace)
    previews.thread("a")
    previews.thread("b")

    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, service_workers="block")
    try:
        tab_a = context.new_page()
        tab_a.goto(previews.link("a", a_port))
        expect(tab_a.locator("#title")).to_have_text("Hello from a")
        tab_a.evaluate("localStorage.setItem('left by', 'a')")
        tab_b = context.new_page()
        tab_b.goto(previews.link("b", b_port))
        expect(tab_b.locator("#title")).to_have_text("Hello from b")
        origin_a, origin_b = tab_a.evaluate("location.origin"), tab_b.evaluate("location.origin")
        assert origin_a != origin_b, origin_a

        # A's page tries every way to B's secret; B's page still reads its own.
        seen = {
            "same origin": tab_a.evaluate(READ_SAME_ORIGIN),
            "B's origin": tab_a.evaluate(READ_OTHER_ORIGIN, origin_b),
            "iframe": tab_a.evaluate(READ_IN_FRAME, origin_b),
        }
        assert not [way for way, text in seen.items() if "secret of b" in text], seen
        assert "secret of a" in seen["same origin"], seen
        assert "secret of b" in tab_b.evaluate(READ_SAME_ORIGIN)
        assert tab_b.evaluate("localStorage.getItem('left by')") is None
    finally:
        context.close()

    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, service_workers="allow")
    try:
        tab_a = context.new_page()
        tab_a.goto(previews.link("a", a_port))
        expect(tab_a.locator("#title")).to_have_text("Hello from a")
        registered = tab_a.evaluate(REGISTER)
        tab_b = context.new_page()
        tab_b.goto(previews.link("b", b_port))
        expect(tab_b.locator("#title")).to_have_text("Hello from b")
        assert registered.startswith("refused"), registered
        # A's own tab, reloaded, is its dev server's page (no worker answers it either).
        tab_a.reload()
        expect(tab_a.locator("#title")).to_have_text("Hello from a")
    finally:
        context.close()


def test_a_preview_port_given_to_another_thread_starts_with_its_storage_cleared(
        web_bridge_factory, model, workspace, servers, browser):
    bridge = web_bridge_factory(name="one-port", extra=("--preview-origins", "1"))
    a_port, b_port = servers("a"), servers("b")
    device_id, token, _ = run_async(pair_device(bridge, PHONE))
    previews = Previews(bridge, model, workspace, token=token)
    previews.thread("a")
    previews.thread("b")

    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        tab_a = context.new_page()
        tab_a.goto(previews.link("a", a_port))
        expect(tab_a.locator("#title")).to_have_text("Hello from a")
        tab_a.evaluate("localStorage.setItem('left by', 'a')")
        origin_a = tab_a.evaluate("location.origin")
        tab_a.close()
        # The one port is A's while A's preview lasts: B's is refused, saying why.
        refused = previews.answer("b", b_port)
        assert refused["kind"] == "error" and "preview" in refused["message"], refused
        # A's preview ends (its device revoked, within 2 s); B's, for another device, gets the port, its storage
        # cleared.
        run_cli("devices", "revoke", device_id, state_dir=bridge.state_dir, check=True)
        previews.token = run_async(pair_device(bridge, PHONE))[1]
        deadline = time.monotonic() + 5
        while (opened := previews.answer("b", b_port))["kind"] != "preview":
            assert time.monotonic() < deadline, opened
            time.sleep(0.2)
        tab_b = context.new_page()
        tab_b.goto(opened["url"])
        expect(tab_b.locator("#title")).to_have_text("Hello from b")
        assert tab_b.evaluate("location.origin") == origin_a
        assert tab_b.evaluate("localStorage.getItem('left by')") is None
    finally:
        context.close()

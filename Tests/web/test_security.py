"""Agent output is attacker-controlled and the page holds a credential: nothing from Codex, the repository or
another client executes; the pages carry a strict CSP; a page on another origin cannot use the WebSocket."""
import gzip
import http.server
import re
import threading
import urllib.request

import pytest
from playwright.sync_api import expect

from webutil import base_url, pair

import conftest

XSS = ('<img src=x onerror="window.__xss=1;alert(1)"> <script>window.__xss=2;alert(2)</script> '
       '[click me](javascript:window.__xss=3) <a href="javascript:window.__xss=4">anchor</a> '
       '[caps](JaVaScRiPt:alert(5)) <javascript:alert(6)> <svg/onload=alert(7)> '
       '<iframe src="javascript:alert(8)"></iframe> ![pic](javascript:alert(9)) [data](data:text/html,<script>alert(10)</script>)')


def assert_nothing_ran(phone):
    page = phone.page
    assert page.evaluate("window.__xss") is None
    assert not phone.dialogs, phone.dialogs
    assert not phone.errors, phone.errors
    # No element came from the payloads: the app's own icons are the only SVGs.
    assert page.locator("main img, main script, main iframe, main svg:not(.icon), main object, main embed").count() == 0
    hrefs = page.eval_on_selector_all("main a[href]", "els => els.map(a => a.getAttribute('href'))")
    for href in hrefs:
        assert re.match(r"^(https?:|mailto:|#/)", href), href


def test_xss_payloads_from_the_model_the_prompt_a_command_and_a_folder_name(web_bridge, model, phone, workspace):
    (workspace / '<img src=x onerror=alert(11)>').mkdir()
    model.queue({"kind": "exec", "cmd": "printf '%s\\n' '<img src=x onerror=alert(12)>' > xss.txt && cat xss.txt"},
                {"kind": "message", "text": XSS, "deltas": [XSS[:40], XSS[40:]]})
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    folder = phone.button("<img src=x onerror=alert(11)>")
    expect(folder).to_be_visible()  # the name is text
    assert_nothing_ran(phone)
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill(f"please {XSS}")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    card = page.locator(".approval")
    expect(card).to_contain_text("<img src=x onerror=alert(12)>")
    assert_nothing_ran(phone)
    phone.button("Approve").click()
    answer = page.locator(".msg.agent")
    expect(answer).to_contain_text("<script>window.__xss=2;alert(2)</script>")
    expect(answer).to_contain_text('<img src=x onerror="window.__xss=1;alert(1)">')
    page.locator(".command summary").click()
    expect(page.locator(".command .output")).to_contain_text("<img src=x onerror=alert(12)>")
    expect(page.locator(".msg.user")).to_contain_text("<script>")
    # Links with unsafe targets are plain text; tapping them does nothing.
    expect(answer.locator("a")).to_have_count(0)
    answer.get_by_text("click me").click()
    assert_nothing_ran(phone)
    phone.button("Back").click()
    expect(page.locator(".thread-row").first).to_contain_text("<img src=x")
    assert_nothing_ran(phone)
    assert not phone.csp_violations(), phone.csp_violations()


def fetch(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, dict(resp.headers), resp.read()


def test_security_headers_on_every_page_and_asset(web_bridge):
    base = base_url(web_bridge)
    for path in ("", "index.html", "app.js", "app.css", "sw.js", "manifest.webmanifest", "icon-192.png"):
        status, headers, _ = fetch(base + path)
        assert status == 200, path
        csp = headers["Content-Security-Policy"]
        directives = {d.split()[0]: d.split()[1:] for d in (x.strip() for x in csp.split(";")) if d}
        assert directives["script-src"] == ["'self'"], csp
        assert directives["object-src"] == ["'none'"] and directives["base-uri"] == ["'none'"], csp
        assert directives["frame-ancestors"] == ["'none'"] and "'self'" in directives["connect-src"], csp
        assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
    _, headers, body = fetch(base + "app.js", {"Accept-Encoding": "gzip"})
    assert headers["Content-Type"].startswith("text/javascript")
    assert headers.get("Content-Encoding") == "gzip" and b"import" in gzip.decompress(body)


# A static import, as WebAppVersion.firstPaintModules reads it: `from './x.js'`, or a bare `import './x.js'`.
STATIC_IMPORT = re.compile(r"""(?:\bfrom\s*|^\s*import\s*)['"]\./([A-Za-z0-9._-]+\.js)['"]""", re.M)


def first_paint_files():
    """What the first screen loads: index.html, its stylesheets, manifest and icons, and app.js with every module it
    imports statically (the server preloads exactly those; a screen imported when opened is not among them)."""
    index = (conftest.ASSETS / "index.html").read_text()
    files = {"index.html", "app.js", "manifest.webmanifest", "icon.svg", "icon-192.png"}
    files |= set(re.findall(r'rel="stylesheet" href="\{\{assets\}\}([^"]+)"', index))
    pending = ["app.js"]
    while pending:
        for name in STATIC_IMPORT.findall((conftest.ASSETS / pending.pop()).read_text()):
            if name not in files:
                files.add(name)
                pending.append(name)
    return files


def compressed(name):
    data = (conftest.ASSETS / name).read_bytes()
    return len(data) if name.endswith(".png") else len(gzip.compress(data, 9))


def test_first_load_is_small():
    """Everything the first screen loads, gzip-compressed, stays under 100 KB; the whole app (what the service
    worker keeps for offline use, every screen included) under 190 KB (175 KB until voice, the live channel and the
    first week's words added ~9 KB, all loaded with the screens that use them)."""
    first = first_paint_files()
    assert {"session.js", "threads-screen.js", "app.css"} <= first and "thread-screen.js" not in first, first
    total = sum(compressed(name) for name in first)
    assert total < 100_000, total
    shell = [p.name for p in conftest.ASSETS.iterdir()
             if p.suffix in (".js", ".css", ".html", ".svg", ".webmanifest") and p.name != "sw.js"]
    whole = sum(compressed(name) for name in shell) + compressed("icon-192.png")
    assert whole < 190_000, whole


ATTACKER_JS = """
const out = document.getElementById('out');
const port = new URLSearchParams(location.search).get('bridge');
const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
window.result = 'pending';
ws.onopen = () => { window.result = 'open'; ws.send(JSON.stringify({kind: 'hello', version: 1, token: 'x'})); };
ws.onmessage = (e) => { window.result = 'message ' + e.data; };
ws.onerror = () => { if (window.result === 'pending') window.result = 'error'; };
ws.onclose = (e) => { if (window.result === 'pending' || window.result === 'error') window.result = 'closed ' + e.code; };
"""


@pytest.fixture
def other_origin(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<!doctype html><p id="out">attacker</p><script src="a.js"></script>')
    (site / "a.js").write_text(ATTACKER_JS)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(site), **kw)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_a_page_on_another_origin_cannot_open_the_websocket(web_bridge, phone, other_origin):
    page = phone.page
    page.goto(f"{other_origin}?bridge={web_bridge.port}")
    page.wait_for_function("window.result && window.result !== 'pending' && window.result !== 'error'", timeout=15000)
    result = page.evaluate("window.result")
    print("origin result", result)
    assert result.startswith("closed"), result  # never opened, never answered
    # The bridge's own page on its own origin connects.
    pair(phone, web_bridge)

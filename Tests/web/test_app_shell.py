"""The app as an installed web app: manifest and icons, the service worker's offline shell, reconnecting when the
network comes back, the "not encrypted" mark on plain http to a LAN name, https/wss with a certificate the
browser trusts, touch targets, a desktop window."""
import base64
import json
import os
import shutil
import re
import subprocess
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from webutil import CHROMIUM, IPHONE_UA, LOOPBACK_ONLY, Phone, base_url, let_the_backoff_grow, pair, pairing_url, start_thread, thread_action

import conftest
from test_resilience import Proxy


def test_manifest_and_icons(web_bridge):
    base = base_url(web_bridge)
    with urllib.request.urlopen(base + "manifest.webmanifest", timeout=10) as resp:
        manifest = json.loads(resp.read())
    assert manifest["display"] == "standalone" and manifest["name"] and manifest["theme_color"]
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        with urllib.request.urlopen(base + icon["src"], timeout=10) as resp:
            assert resp.status == 200 and resp.headers["Content-Type"] == icon["type"]


def test_offline_the_service_worker_serves_the_shell(web_bridge, phone_factory):
    phone = phone_factory(service_workers="allow")
    pair(phone, web_bridge)
    page = phone.page
    page.wait_for_function("navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready.then(() => true)")
    page.evaluate("navigator.serviceWorker.ready")
    page.reload()  # now controlled: the shell is cached
    expect(phone.status()).to_have_text("Connected")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    web_bridge.stop()
    page.reload()
    # The app opens from the cache and says the workstation cannot be reached; no browser error page.
    expect(phone.button("New thread")).to_be_visible()
    expect(phone.status()).to_have_text("Workstation unreachable", timeout=30_000)
    expect(page.get_by_text("Workstation unreachable")).to_be_visible()
    phone.shot("offline-shell")


def test_a_failed_worker_registration_is_tried_again(bridge_factory, codex_home, workspace, phone_factory, tmp_path):
    """The first fetch of sw.js fails (as when the network changes under it, seen in a LAN namespace; here the
    bridge has no sw.js for a moment): the app registers again by itself, so `serviceWorker.ready` (which
    notifications wait for) still resolves. Seen failing before: the failure was swallowed, `ready` never
    resolved."""
    from codex_fixture import codex_bin
    from webutil import bridge_env
    web = tmp_path / "web"
    shutil.copytree(conftest.ASSETS, web)
    worker = (web / "sw.js").read_text()
    (web / "sw.js").unlink()
    env = bridge_env(codex_home)
    env["CODEX_BRIDGE_WEB_DIR"] = str(web)
    bridge = bridge_factory(name="sw-retry", args=["--codex", codex_bin(), "--root", str(workspace)], env=env)
    phone = phone_factory(service_workers="allow")
    pair(phone, bridge)
    page = phone.page
    page.wait_for_timeout(500)  # the load's registration has failed by now (404)
    assert page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r === undefined)")
    (web / "sw.js").write_text(worker)
    page.wait_for_function("navigator.serviceWorker.ready.then(() => true)", timeout=20_000)


def shell_path(url):
    """A stored URL's path in the app's scope, without the version's prefix (`v/<version>/`)."""
    return re.sub(r"^v/[^/]+/", "", url.split("/", 3)[3])


def shell_names():
    """The app shell as sw.js lists it."""
    sw = (conftest.ASSETS / "sw.js").read_text()
    return set(re.findall(r"'([^']+)'", sw.split("const SHELL = [")[1].split("];")[0]))


CACHED_URLS = """async () => { const out = {};
    for (const name of await caches.keys()) out[name] = (await (await caches.open(name)).keys()).map((r) => r.url);
    return out; }"""


def test_the_service_worker_keeps_only_the_app_shell(bridge_factory, model, codex_home, workspace, phone_factory, tmp_path):
    """Issue 22 item 3: a download with the phone's token (GET /files) is never stored nor answered from the
    cache, not even for the same URL with another query; a new worker deletes the caches of older versions."""
    from codex_fixture import bridge_codex_args, codex_bin
    from webutil import bridge_env, thread_id_of
    web = tmp_path / "web"  # a copy of the app's files, so that a new version of sw.js can be served
    shutil.copytree(conftest.ASSETS, web)
    env = bridge_env(codex_home)
    env["CODEX_BRIDGE_WEB_DIR"] = str(web)
    bridge = bridge_factory(name="sw-state", args=["--codex", codex_bin(), "--root", str(workspace),
                                                   *bridge_codex_args(model.port)], env=env)
    model.queue({"kind": "message", "text": "hello"})
    phone = phone_factory(service_workers="allow")
    pair(phone, bridge)
    page = phone.page
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=20_000)
    start_thread(phone, "say hello")
    expect(page.locator(".msg.agent")).to_have_text("hello")
    thread = thread_id_of(page)
    # The app's download path: fetch with the Bearer token, through the service worker.
    download = """async ([thread, path]) => {
        const token = JSON.parse(localStorage.getItem('codex-bridge/v1')).bridges[JSON.parse(localStorage.getItem('codex-bridge/v1')).current].token;
        const res = await fetch(`/files?${new URLSearchParams({ threadId: thread, path })}`, { headers: { Authorization: `Bearer ${token}` } });
        return [res.status, await res.text()]; }"""
    status, body = page.evaluate(download, [thread, "tracked.txt"])
    assert status == 200 and body == (workspace / "tracked.txt").read_text()
    page.wait_for_timeout(500)  # a worker that stores puts after answering
    cached = page.evaluate(CACHED_URLS)
    shell = shell_names()
    stored = [u for urls in cached.values() for u in urls]
    assert not [u for u in stored if "/files" in u], cached
    outside = [u for u in stored if shell_path(u) not in shell]
    assert not outside, outside
    # A new version of the worker: only its own cache is left once it activates.
    page.evaluate("""async () => { const c = await caches.open('codex-bridge-shell-v0'); await c.put('/files?threadId=a&path=b', new Response('old secret')); }""")
    sw = (web / "sw.js").read_text()
    version = int(re.search(r"const VERSION = (\d+);", sw).group(1))
    (web / "sw.js").write_text(sw.replace(f"const VERSION = {version};", f"const VERSION = {version + 1};"))
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    wanted = f"codex-bridge-shell-v{version + 1}-dev"  # files read from a directory: the version "dev"
    deadline = time.monotonic() + 20
    while True:  # the new worker installs (its cache filled), then activates (the others deleted)
        cached = page.evaluate(CACHED_URLS)
        if list(cached) == [wanted] and len(cached[wanted]) == len(shell) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert sorted(shell_path(u) for u in cached[wanted]) == sorted(shell), cached
    # The workstation goes away: the shell comes from the cache, a download never does (whatever its query).
    bridge.stop()
    assert page.evaluate("fetch('v/dev/app.js').then((r) => r.status, () => 'failed')") == 200
    assert page.evaluate("fetch('v/dev/app.js?v=2').then((r) => r.status, () => 'failed')") == "failed"
    for query in (f"threadId={thread}&path=tracked.txt", "threadId=a&path=b", "other=1"):
        assert page.evaluate(f"fetch('/files?{query}').then((r) => r.status, () => 'failed')") == "failed", query
    assert page.evaluate("fetch('/metrics').then((r) => r.status, () => 'failed')") == "failed"
    assert not phone.errors


def test_reconnects_at_once_when_the_network_returns(web_bridge, phone):
    proxy = Proxy(web_bridge.port)
    try:
        url = re.sub(r"^http://127\.0\.0\.1:\d+/", f"http://127.0.0.1:{proxy.port}/", pairing_url(web_bridge))
        page = phone.page
        page.clock.install()
        page.goto(url)
        expect(phone.status()).to_have_text("Connected")
        proxy.blocked = True
        proxy.cut()
        expect(phone.status()).to_have_text("Workstation unreachable", timeout=30_000)
        let_the_backoff_grow(page)  # several seconds between attempts now
        proxy.blocked = False
        started = time.monotonic()
        page.evaluate("dispatchEvent(new Event('online'))")
        expect(phone.status()).to_have_text("Connected", timeout=3_000)
        assert time.monotonic() - started < 3
        # And when the page becomes visible again (the phone was asleep).
        proxy.blocked = True
        proxy.cut()
        expect(phone.status()).to_have_text(re.compile("Reconnecting…|Workstation unreachable"))
        let_the_backoff_grow(page)
        proxy.blocked = False
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        expect(phone.status()).to_have_text("Connected", timeout=3_000)
    finally:
        proxy.close()


def test_plain_http_to_a_lan_name_is_marked_not_encrypted(web_bridge, browser):
    """http://workstation.test (mapped to 127.0.0.1 inside the browser) is not a secure context."""
    from playwright.sync_api import sync_playwright  # noqa: F401 (the session browser cannot take new flags)
    b = browser.browser_type.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--host-resolver-rules=MAP workstation.test 127.0.0.1"])
    try:
        context = b.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                user_agent=IPHONE_UA)
        context.route(re.compile(r"^(?!(https?|wss?)://(127\.0\.0\.1|workstation\.test)(:\d+)?/).*"), lambda r: r.abort())
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        url = pairing_url(web_bridge).replace("127.0.0.1", "workstation.test")
        page.goto(url)
        expect(page.get_by_role("status")).to_have_text("Connected")
        expect(page.get_by_text("not encrypted")).to_be_visible()
        assert page.evaluate("window.isSecureContext") is False
        assert page.evaluate("navigator.serviceWorker ? navigator.serviceWorker.getRegistrations().then(r => r.length) : 0") == 0
        page.screenshot(path=str(conftest.ARTIFACTS / "not-encrypted.png"))
        assert not errors, errors
    finally:
        b.close()


def spki_hash(cert_pem: str) -> str:
    pub = subprocess.run(["openssl", "x509", "-pubkey", "-noout"], input=cert_pem.encode(), capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub, capture_output=True, check=True).stdout
    digest = subprocess.run(["openssl", "dgst", "-sha256", "-binary"], input=der, capture_output=True, check=True).stdout
    return base64.b64encode(digest).decode()


def test_https_and_wss_with_a_certificate_the_browser_trusts(web_bridge_factory, browser, model):
    bridge = web_bridge_factory(name="tls-state", extra=["--tls"])
    cert = (bridge.state_dir / "tls" / "cert.pem").read_text()
    b = browser.browser_type.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", f"--ignore-certificate-errors-spki-list={spki_hash(cert)}"])
    try:
        context = b.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                user_agent=IPHONE_UA, service_workers="block")
        page = context.new_page()
        url = pairing_url(bridge)
        url = re.sub(r"^https?://[^/]+/", f"https://127.0.0.1:{bridge.port}/", url)
        page.goto(url)
        expect(page.get_by_role("status")).to_have_text("Connected")
        assert page.url.startswith("https://") and page.evaluate("window.isSecureContext")
        expect(page.get_by_text("not encrypted")).to_have_count(0)
        phone = Phone.__new__(Phone)
        phone.page = page
        model.queue({"kind": "message", "text": "over wss"})
        start_thread(phone, "secure hello")
        expect(page.locator(".msg.agent")).to_have_text("over wss")
    finally:
        b.close()


def test_touch_targets_are_at_least_44px(web_bridge, model, phone, workspace):
    (workspace / "sub").mkdir()
    model.queue({"kind": "exec", "cmd": "touch x.txt"}, {"kind": "message", "text": "ok"})
    pair(phone, web_bridge)
    page = phone.page

    def check(screen):
        small = page.evaluate("""() => [...document.querySelectorAll('button, a[href], input, select, textarea, summary')]
            .filter(el => el.offsetParent !== null && !el.closest('.md'))
            .map(el => { const r = el.getBoundingClientRect(); return [el.tagName, el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30), Math.round(r.width), Math.round(r.height)]; })
            .filter(([tag, name, w, h]) => (tag === 'INPUT' && w < 24) ? h < 20 : (h < 44 || w < 44))""")
        assert not small, (screen, small)

    check("list")
    phone.button("New thread").click()
    expect(phone.button("sub")).to_be_visible()
    check("picker")
    phone.button("Use this folder").click()
    page.get_by_text("Options").click()
    check("prompt")
    page.get_by_label("Message").fill("touch")
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    expect(page.locator(".approval")).to_be_visible()
    check("thread")


def test_desktop_window(web_bridge, model, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    try:
        page = context.new_page()
        page.goto(pairing_url(web_bridge))
        expect(page.get_by_role("status")).to_have_text("Connected")
        model.queue({"kind": "message", "text": "Hello, desktop.\n\n| a | b |\n|---|---|\n| 1 | 2 |"})
        phone = Phone.__new__(Phone)
        phone.page = page
        start_thread(phone, "hello from a desktop")
        expect(page.locator(".msg.agent table")).to_be_visible()
        page.screenshot(path=str(conftest.ARTIFACTS / "desktop-thread.png"))
    finally:
        context.close()


def test_small_phone_has_no_horizontal_scroll(web_bridge, model, browser, workspace):
    """360 px wide (the narrowest phones in use): every screen fits, only code and diffs scroll sideways."""
    long = "x" * 300
    model.queue({"kind": "say_exec", "text": f"A long line:\n\n```\n{long}\n```\n\nand a long word {long}",
                 "cmd": f"echo {long} > long.txt"},
                {"kind": "message", "text": "done"})
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2, user_agent=IPHONE_UA, service_workers="block")
    try:
        page = context.new_page()
        phone = Phone.__new__(Phone)
        phone.page = page
        page.goto(pairing_url(web_bridge))
        expect(page.get_by_role("status")).to_have_text("Connected")

        def fits(screen):
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 360, (screen, width)

        fits("list")
        phone.button("New thread").click()
        phone.button("Use this folder").click()
        fits("prompt")
        page.get_by_label("Message").fill(f"make a long file {long}")
        page.get_by_text("Options").click()
        page.get_by_label("Approval policy").select_option("untrusted")
        phone.button("Start").click()
        expect(page.locator(".approval")).to_be_visible()
        fits("thread with approval")
        page.screenshot(path=str(conftest.ARTIFACTS / "small-phone-thread.png"))
        phone.button("Approve").click()
        expect(page.locator(".msg.agent").last).to_have_text("done")
        thread_action(phone, "Diff")
        expect(page.locator(".diff-file")).to_have_count(1)
        fits("diff")
        phone.button("Back").click()
        phone.button("Back").click()
        expect(page.locator(".thread-row")).to_have_count(1)
        fits("list with a thread")
        page.screenshot(path=str(conftest.ARTIFACTS / "small-phone-list.png"))
    finally:
        context.close()


def make_test_ca(directory):
    """A test CA and a leaf for 127.0.0.1/localhost signed by it (openssl CLI); returns (ca.pem, leaf.pem, leaf.key)."""
    d = directory
    run = lambda *args: subprocess.run(args, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
        "-subj", "/CN=codex-bridge test CA", "-keyout", str(d / "ca.key"), "-out", str(d / "ca.pem"),
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", str(d / "leaf.key"), "-out", str(d / "leaf.csr"))
    (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                               "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n")
    run("openssl", "x509", "-req", "-in", str(d / "leaf.csr"), "-CA", str(d / "ca.pem"), "-CAkey", str(d / "ca.key"),
        "-CAcreateserial", "-days", "2", "-extfile", str(d / "ext.cnf"), "-out", str(d / "leaf.pem"))
    return d / "ca.pem", d / "leaf.pem", d / "leaf.key"


def test_https_with_a_certificate_from_a_test_ca(web_bridge_factory, browser, model, tmp_path):
    """`serve --tls-cert/--tls-key` with a certificate a test CA signed; the browser trusts that CA."""
    help_text = subprocess.run([str(conftest.BIN), "serve", "--help"], capture_output=True, text=True).stdout
    if "--tls-cert" not in help_text:
        pytest.skip("this codex-bridge has no --tls-cert yet")
    ca, leaf, key = make_test_ca(tmp_path)
    bridge = web_bridge_factory(name="ca-state", extra=["--tls-cert", str(leaf), "--tls-key", str(key)])
    if shutil.which("certutil"):  # the browser's own trust store (NSS, under HOME) holds the test CA
        home = tmp_path / "browser-home"
        nssdb = f"sql:{home}/.pki/nssdb"
        (home / ".pki" / "nssdb").mkdir(parents=True)
        subprocess.run(["certutil", "-N", "-d", nssdb, "--empty-password"], check=True, capture_output=True)
        subprocess.run(["certutil", "-A", "-d", nssdb, "-n", "codex-bridge test CA", "-t", "C,,", "-i", str(ca)],
                       check=True, capture_output=True)
        b = browser.browser_type.launch(executable_path=CHROMIUM, args=["--no-sandbox"], env={**os.environ, "HOME": str(home)})
    else:  # without libnss3-tools: trust the served certificate's key instead
        b = browser.browser_type.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", f"--ignore-certificate-errors-spki-list={spki_hash(leaf.read_text())}"])
    try:
        context = b.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                user_agent=IPHONE_UA, service_workers="block")
        page = context.new_page()
        url = re.sub(r"^https?://[^/]+/", f"https://127.0.0.1:{bridge.port}/", pairing_url(bridge))
        page.goto(url)
        expect(page.get_by_role("status")).to_have_text("Connected")
        assert page.evaluate("window.isSecureContext")
        phone = Phone.__new__(Phone)
        phone.page = page
        model.queue({"kind": "message", "text": "trusted"})
        start_thread(phone, "over a CA certificate")
        expect(page.locator(".msg.agent")).to_have_text("trusted")
    finally:
        b.close()


RESOURCE_SIZES = """() => performance.getEntriesByType('resource')
    .filter((e) => /\\.(js|css)$/.test(new URL(e.name).pathname))
    .map((e) => [new URL(e.name).pathname, e.transferSize])"""


def test_a_repeat_visit_downloads_no_script_or_style(bridge_factory, model, codex_home, workspace, phone_factory):
    """Issue 36 item 2: the app's scripts and styles are served under the version's path and kept for good, so a
    second visit takes every one of them from the browser's cache (transferSize 0) and asks the workstation for
    index.html only. The embedded files (a directory's may change under the server and are never kept). Seen
    failing before: every file was revalidated on each load (a 304 each, one round trip per import level)."""
    from codex_fixture import bridge_codex_args, codex_bin
    from webutil import bridge_env
    env = bridge_env(codex_home)
    env.pop("CODEX_BRIDGE_WEB_DIR", None)
    bridge = bridge_factory(name="cache-state", args=["--codex", codex_bin(), "--root", str(workspace),
                                                      *bridge_codex_args(model.port)], env=env)
    phone = phone_factory()  # no service worker: the HTTP cache alone
    # Playwright turns the browser's cache off while any route is set; this bridge is on loopback anyway.
    phone.context.unroute(LOOPBACK_ONLY)
    pair(phone, bridge)
    page = phone.page
    expect(phone.status()).to_have_text("Connected")

    def settled():
        # The screens a person has not opened come after the list (the thread screen in the background): wait
        # until nothing more arrives, so both visits are compared whole.
        seen, still = page.evaluate(RESOURCE_SIZES), 0
        while still < 5:
            page.wait_for_timeout(200)
            now = page.evaluate(RESOURCE_SIZES)
            still = still + 1 if len(now) == len(seen) else 0
            seen = now
        return seen

    first = settled()
    assert len(first) >= 20 and all(re.match(r"^/v/[0-9a-f]{12}/", path) for path, _ in first), first
    page.goto(base_url(bridge))
    expect(phone.status()).to_have_text("Connected")
    again = settled()
    assert sorted(p for p, _ in again) == sorted(p for p, _ in first)
    fetched = [(path, size) for path, size in again if size > 0]
    assert not fetched, fetched

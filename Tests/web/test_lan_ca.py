"""Issue 27: the workstation's own name-constrained certificate authority, in a real browser.

Each Chromium here gets a fresh NSS database under a HOME of its own (`certutil`, libnss3-tools) that trusts
only the bridge's CA, or nothing. What is checked: https:// on 127.0.0.1 and on the address of a test network
namespace opens with no interstitial, as a secure context, with the service worker registered; the leaf follows a
new address in the LAN's subnet with nothing new trusted; a leaf naming something outside the constraints,
signed with the CA's own key, is refused by `openssl verify` and by Chromium; the plain-HTTP trust page shows the
fingerprint, carries no credential (issue 31) and continues to the https app once the device trusts the CA, where
the code is typed or the second QR code pairs."""
import contextlib
import http.server
import json
import os
import re
import shutil
import ssl
import subprocess
import threading
import time
import uuid

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from netns import Lan
from webutil import CHROMIUM, IPHONE_UA, web_env

import conftest

ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update"]


def nss_home(tmp_path, ca_pem=None, name="browser-home"):
    """A HOME whose NSS database (what Chromium on Linux trusts besides the system) holds `ca_pem` only."""
    home = tmp_path / f"{name}-{uuid.uuid4().hex[:6]}"
    db = home / ".pki" / "nssdb"
    db.mkdir(parents=True)
    subprocess.run(["certutil", "-N", "-d", f"sql:{db}", "--empty-password"], check=True, capture_output=True)
    if ca_pem is not None:
        subprocess.run(["certutil", "-A", "-d", f"sql:{db}", "-n", "codex-bridge CA", "-t", "C,,", "-i", str(ca_pem)],
                       check=True, capture_output=True)
    return home


@contextlib.contextmanager
def chromium(browser, home, executable=CHROMIUM):
    b = browser.browser_type.launch(executable_path=executable, args=ARGS, env={**os.environ, "HOME": str(home)})
    try:
        yield b
    finally:
        b.close()


def phone_page(b, color_scheme="light"):
    context = b.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2,
                            user_agent=IPHONE_UA, color_scheme=color_scheme)
    page = context.new_page()
    page.console = []
    page.on("console", lambda m: page.console.append(f"{m.type}: {m.text}"))
    return page


def assert_secure_app(page, url):
    page.goto(url)  # an interstitial (untrusted or invalid certificate) raises net::ERR_CERT_…
    assert page.url.startswith("https://")
    assert page.evaluate("window.isSecureContext") is True
    # Bounded: the app swallows a failed registration (app.js), after which `ready` would never settle.
    scope = page.evaluate("""Promise.race([navigator.serviceWorker.ready.then(r => r.active ? r.scope : null),
                                           new Promise(done => setTimeout(() => done('no service worker within 20 s'), 20000))])""")
    assert scope == url.split("#")[0].rsplit("/", 1)[0] + "/"


def grouped(fingerprint):
    return " ".join(fingerprint[i:i + 2].upper() for i in range(0, 64, 2))


def tls_bridge(web_bridge_factory, name):
    bridge = web_bridge_factory(name=name, extra=["--tls"])
    return bridge, bridge.state_dir / "tls" / "ca.pem", json.loads((bridge.state_dir / "server.json").read_text())["fingerprint"]


def test_chromium_trusting_only_the_ca_gets_a_secure_context_and_the_service_worker(web_bridge_factory, browser, tmp_path):
    bridge, ca, _ = tls_bridge(web_bridge_factory, "ca-state")
    url = f"https://127.0.0.1:{bridge.port}/"
    with chromium(browser, nss_home(tmp_path, ca)) as b:
        page = phone_page(b)
        assert_secure_app(page, url)
        expect(page.get_by_text("not encrypted")).to_have_count(0)
    # The same browser without the CA refuses the certificate: the trust above came from the CA alone.
    with chromium(browser, nss_home(tmp_path)) as b:
        with pytest.raises(PlaywrightError, match="ERR_CERT_AUTHORITY_INVALID"):
            phone_page(b).goto(url)


def leaf_signed_by(ca_dir, out, san):
    """A leaf for `san` signed with the CA's own key (openssl CLI), and the chain file a server would send. Its subject
    starts with O=codex-bridge, the one directory name the CA permits (as the bridge's own leaves do)."""
    subprocess.run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/O=codex-bridge/CN=leaf",
                    "-keyout", str(out / "leaf.key"), "-out", str(out / "leaf.csr")], check=True, capture_output=True)
    (out / "ext.cnf").write_text(f"subjectAltName={san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n"
                                 "extendedKeyUsage=serverAuth\n")
    subprocess.run(["openssl", "x509", "-req", "-in", str(out / "leaf.csr"), "-CA", str(ca_dir / "ca.pem"),
                    "-CAkey", str(ca_dir / "ca-key.pem"), "-CAcreateserial", "-days", "2", "-extfile", str(out / "ext.cnf"),
                    "-out", str(out / "leaf.pem")], check=True, capture_output=True)
    (out / "chain.pem").write_text((out / "leaf.pem").read_text() + (ca_dir / "ca.pem").read_text())
    return out / "leaf.pem"


@contextlib.contextmanager
def https_server(chain, key):
    """A one-page https server on 127.0.0.1 serving `chain`."""
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = b"<!doctype html><title>leaf</title><p>served</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(chain), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_leaf_outside_the_constraints_is_refused_by_openssl_and_chromium(browser, tmp_path):
    state = tmp_path / "state"
    conftest.run_cli("tls", "ca", state_dir=state, check=True)
    ca_dir = state / "tls"
    verdicts = {}
    for name, san in (("inside", "IP:127.0.0.1"), ("outside", "IP:127.0.0.1,DNS:bank.example"), ("other-ip", "IP:127.0.0.2")):
        out = tmp_path / name
        out.mkdir()
        leaf = leaf_signed_by(ca_dir, out, san)
        verify = subprocess.run(["openssl", "verify", "-CAfile", str(ca_dir / "ca.pem"), str(leaf)], capture_output=True, text=True)
        verdicts[name] = (verify.returncode, verify.stdout + verify.stderr, out)
    assert verdicts["inside"][0] == 0, verdicts["inside"][1]
    for name in ("outside", "other-ip"):
        assert verdicts[name][0] != 0 and "permitted subtree violation" in verdicts[name][1], verdicts[name][1]

    with chromium(browser, nss_home(tmp_path, ca_dir / "ca.pem")) as b:
        page = phone_page(b)
        with https_server(verdicts["inside"][2] / "chain.pem", verdicts["inside"][2] / "leaf.key") as url:
            page.goto(url)  # the control: the same CA, a leaf inside its constraints
            expect(page.get_by_text("served")).to_be_visible()
        with https_server(verdicts["outside"][2] / "chain.pem", verdicts["outside"][2] / "leaf.key") as url:
            with pytest.raises(PlaywrightError, match="ERR_CERT_"):
                page.goto(url)


def first_scan(info):
    """What the first QR code `pair` shows opens: the trust page (`trustUrl`) with the workstation's CA."""
    return info.get("trustUrl") or info["webUrl"]


class UrlLog:
    """Every URL a browser context loads or shows: each request's, each frame navigation's (with its fragment, same-
    document changes too) and each document's `location.href` before any of its scripts runs."""

    def __init__(self, context):
        self.urls = []
        context.expose_binding("__seenUrl", lambda _source, url: self.urls.append(url))
        context.add_init_script("try { window.__seenUrl(location.href); } catch (e) {}")
        context.on("request", lambda request: self.urls.append(request.url))
        context.on("page", self.watch)
        for page in context.pages:
            self.watch(page)

    def watch(self, page):
        page.on("framenavigated", lambda frame: self.urls.append(frame.url))

    def assert_no_credential_on_plain_http(self, *secrets):
        """Issue 31 finding 2: no credential ever in an http:// URL (here even loopback's: the rule holds for all)."""
        plain = [u for u in self.urls if u.lower().startswith("http://")]
        assert plain, "the trust page was never loaded over http://"
        leaked = [u for u in plain if any(s and s in u for s in secrets) or re.search(r"[#&](code|token)=", u)]
        assert leaked == [], f"a credential in a plain-http URL: {leaked}"


def test_trust_page_then_https_pairs_and_no_credential_ever_reaches_plain_http(web_bridge_factory, browser, tmp_path):
    bridge, ca, fingerprint = tls_bridge(web_bridge_factory, "trust-state")
    origin = f"127.0.0.1:{bridge.port}"
    info = conftest.pair_json(bridge)
    trust = first_scan(info)
    shots = {}
    with chromium(browser, nss_home(tmp_path)) as b:  # a phone that does not trust the CA yet
        for scheme in ("light", "dark"):
            page = phone_page(b, scheme)
            log = UrlLog(page.context)
            page.goto(trust)
            expect(page.get_by_role("heading", name="Trust this workstation")).to_be_visible()
            expect(page.locator("#fingerprint")).to_have_text(grouped(fingerprint))
            expect(page.locator("#status")).to_contain_text("Not trusted yet")
            expect(page.locator("details#ios")).to_have_attribute("open", "")
            expect(page.locator("#next")).to_contain_text("type the code")
            log.assert_no_credential_on_plain_http(info["code"])
            expect(page.locator("#continue")).to_be_hidden()  # no way on to the browser's warning
            assert page.locator("#continue").get_attribute("href") == f"https://{origin}/"  # the app, no fragment
            assert [c for c in page.console if "Content Security Policy" in c or "Refused to" in c] == []
            serious = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in Axe().run(page).response["violations"]
                       if v["impact"] in ("serious", "critical")]
            assert serious == [], serious
            conftest.ARTIFACTS.mkdir(exist_ok=True)
            shots[scheme] = conftest.ARTIFACTS / f"trust-{scheme}.png"
            page.screenshot(path=str(shots[scheme]), full_page=True)
    assert trust == f"http://{origin}/"  # the first QR code: the trust page alone
    assert info["webUrl"].startswith(f"https://{origin}/#pair=v1&code={info['code']}&")  # the second: https

    with chromium(browser, nss_home(tmp_path, ca)) as b:  # the same phone once it trusts the CA
        # One scan and a typed code: the trust page goes on to the https app by itself, which asks for the code.
        page = phone_page(b)
        log = UrlLog(page.context)
        page.goto(trust)
        page.wait_for_url(f"https://{origin}/")
        expect(page.get_by_label("Pairing code")).to_be_visible()
        page.screenshot(path=str(conftest.ARTIFACTS / "trust-then-code.png"))
        page.get_by_label("Pairing code").fill(info["code"])
        page.get_by_role("button", name="Pair", exact=True).click()
        expect(page.get_by_role("status")).to_have_text("Connected")
        assert page.evaluate("window.isSecureContext") is True
        log.assert_no_credential_on_plain_http(info["code"])

        # Two scans: the trust page, then the second QR code (https with the code in its fragment).
        second = conftest.pair_json(bridge)
        page = phone_page(b)
        log = UrlLog(page.context)
        page.goto(first_scan(second))
        page.wait_for_url(f"https://{origin}/")
        expect(page.get_by_label("Pairing code")).to_be_visible()
        page.goto(second["webUrl"])
        expect(page.get_by_role("status")).to_have_text("Connected")
        assert page.url.startswith(f"https://{origin}/") and "code=" not in page.url  # the fragment left the address bar
        log.assert_no_credential_on_plain_http(second["code"])
    devices = json.loads(conftest.run_cli("devices", "list", "--json", state_dir=bridge.state_dir, check=True).stdout)
    assert len(devices) == 2  # both paired over https
    if os.environ.get("WEB_UPDATE_DOCS"):
        for scheme, path in shots.items():
            shutil.copyfile(path, conftest.ROOT / "docs" / f"trust-{scheme}.png")


# -- a LAN of two network namespaces: the bridge in one, the phone's browser in the other (netns.Lan: names of
# its own, IPv6 off on the veth, settled before anything starts in there, torn down and swept like test_lan.py's)
# A private subnet (RFC 1918, only inside the two namespaces): the CA's constraints cover a private address by its /24.
PRIVATE_SUBNET = "10.213.77"


@pytest.fixture
def lan(tmp_path):
    with Lan(tmp_path / "lan", subnet=PRIVATE_SUBNET) as lan:
        yield lan


def leaf_names(state_dir):
    out = subprocess.run(["openssl", "x509", "-in", str(state_dir / "tls" / "cert.pem"), "-noout", "-ext", "subjectAltName"],
                         capture_output=True, text=True).stdout
    return out


@pytest.mark.timeout(120)  # a hang here is a failure with a traceback, not the suite's 300 s
def test_on_a_lan_namespace_the_leaf_follows_a_new_address_and_the_trust_page_leads_to_pairing(lan, bridge_factory, browser, tmp_path):
    subnet = lan.subnet
    env = {**web_env(), "CODEX_BRIDGE_TLS_RENEW_SECONDS": "0.3"}
    bridge = bridge_factory(name="lan-state", args=["--tls"], env=env, listen="0.0.0.0:0",
                            binary=lan.wrapper(lan.workstation, conftest.BIN, "bridge-in-ns"))
    ca = bridge.state_dir / "tls" / "ca.pem"
    fingerprint = json.loads((bridge.state_dir / "server.json").read_text())["fingerprint"]
    scope = json.loads(conftest.run_cli("tls", "ca", "--json", state_dir=bridge.state_dir, check=True).stdout)["constraints"]
    assert f"{subnet}.0/24" in scope, scope
    assert f"IP Address:{lan.workstation_address}" in leaf_names(bridge.state_dir)
    chrome_in_ns = lan.wrapper(lan.phone, CHROMIUM, "chromium-in-ns")
    with chromium(browser, nss_home(tmp_path, ca), executable=str(chrome_in_ns)) as b:
        page = phone_page(b)
        assert_secure_app(page, f"https://{lan.workstation_address}:{bridge.port}/")

        # A second address in the same subnet on the workstation's side (what a DHCP change looks like): the
        # running bridge re-issues its leaf from the same CA, and the browser that trusted the CA once opens it too.
        # (The phone's namespace, where the browser runs, sees no change: nothing aborts its connections.)
        lan.add_address(lan.workstation, f"{subnet}.9")
        deadline = time.monotonic() + 10
        while f"IP Address:{subnet}.9" not in leaf_names(bridge.state_dir) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert f"IP Address:{subnet}.9" in leaf_names(bridge.state_dir)
        assert json.loads(conftest.run_cli("tls", "ca", "--json", state_dir=bridge.state_dir, check=True).stdout)["fingerprint"] == fingerprint
        time.sleep(1.2)  # the server looks at the leaf's files at most once a second
        assert_secure_app(phone_page(b), f"https://{subnet}.9:{bridge.port}/")

        # The QR codes, from the bridge's side of the LAN: the first opens the trust page over plain http (not a
        # secure context there), which finds the https side trusted and goes on to the app with no fragment; the
        # second (https) pairs. Nothing on the LAN's plain http ever sees the code.
        pair = lan.run(lan.workstation, conftest.BIN, "pair", "--json", "--state-dir", bridge.state_dir)
        info = json.loads(pair.stdout)
        origin = f"{lan.workstation_address}:{bridge.port}"
        assert first_scan(info) == f"http://{origin}/", info
        assert info["webUrl"].startswith(f"https://{origin}/#pair=v1&code="), info
        page = phone_page(b)
        log = UrlLog(page.context)
        page.goto(first_scan(info))
        page.wait_for_url(f"https://{origin}/")
        expect(page.get_by_label("Pairing code")).to_be_visible()
        page.goto(info["webUrl"])
        expect(page.get_by_role("status")).to_have_text("Connected")
        log.assert_no_credential_on_plain_http(info["code"])
    bridge.stop()

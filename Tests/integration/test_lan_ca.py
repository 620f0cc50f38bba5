"""Issue 27: the workstation's certificate authority from the outside, with real openssl and real sockets on
127.0.0.1: its name constraints, the public `/ca.crt` and `/ca.mobileconfig`, plain HTTP on the TLS port (the
trust page and nothing else), `doctor` and `status`. The browser side is Tests/web/test_lan_ca.py."""
import asyncio
import json
import plistlib
import socket
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest
import websockets

from conftest import run_cli


def openssl_text(path):
    return subprocess.run(["openssl", "x509", "-in", str(path), "-noout", "-text"], capture_output=True, text=True, check=True).stdout


def ca_der(bridge):
    return ssl.PEM_cert_to_DER_cert((bridge.state_dir / "tls" / "ca.pem").read_text())


def verified(bridge):
    return ssl.create_default_context(cafile=str(bridge.state_dir / "tls" / "ca.pem"))


def get(url, context=None, headers=None):
    """(status, headers, body) without following redirects."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    handlers = [NoRedirect()] + ([urllib.request.HTTPSHandler(context=context)] if context else [])
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with opener.open(request, timeout=5) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_the_ca_is_critically_name_constrained_and_signs_the_served_leaf(tmp_path):
    state = tmp_path / "state"
    summary = json.loads(run_cli("tls", "ca", "--json", state_dir=state, check=True).stdout)
    tls = state / "tls"
    text = openssl_text(tls / "ca.pem")
    assert "X509v3 Name Constraints: critical" in text
    assert "X509v3 Basic Constraints: critical\n                CA:TRUE, pathlen:0" in text
    assert "IP:127.0.0.1/255.255.255.255" in text and "DNS:localhost" in text
    assert "Permitted:" in text and "Excluded:" not in text
    assert {"localhost", "127.0.0.1/32", "::1/128"} <= set(summary["constraints"])
    assert summary["certificate"] == str(tls / "ca.pem") and summary["key"] == str(tls / "ca-key.pem")
    assert summary["commonName"].startswith("codex-bridge CA for ")
    der = ssl.PEM_cert_to_DER_cert((tls / "ca.pem").read_text())
    import hashlib
    assert hashlib.sha256(der).hexdigest() == summary["fingerprint"]
    # The leaf `tls ca` made with it verifies against it, by openssl, for the loopback names.
    verify = subprocess.run(["openssl", "verify", "-CAfile", str(tls / "ca.pem"), "-verify_ip", "127.0.0.1", str(tls / "cert.pem")],
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # `tls ca` again shows the same CA (kept, not remade).
    assert run_cli("tls", "ca", state_dir=state, check=True).stdout.strip() == summary["fingerprint"]


def forge(tls, tmp_path, name, subject, extensions):
    """A leaf signed with the CA's own key by openssl (what a thief of ca-key.pem could make)."""
    key, csr, cert, ext = (tmp_path / f"{name}.{kind}" for kind in ("key", "csr", "pem", "cnf"))
    ext.write_text("[leaf]\nbasicConstraints=critical,CA:false\nkeyUsage=critical,digitalSignature\n" + extensions + "\n"
                   "[other_dn]\nO=Bank\nCN=bank.example.com\n")
    subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(key)], check=True)
    subprocess.run(["openssl", "req", "-new", "-key", str(key), "-subj", subject, "-out", str(csr)], check=True)
    subprocess.run(["openssl", "x509", "-req", "-in", str(csr), "-CA", str(tls / "ca.pem"), "-CAkey", str(tls / "ca-key.pem"),
                    "-CAcreateserial", "-CAserial", str(tmp_path / "serial"), "-days", "5", "-extfile", str(ext),
                    "-extensions", "leaf", "-out", str(cert)], check=True, capture_output=True)
    return cert


def openssl_verify(tls, cert, purpose):
    result = subprocess.run(["openssl", "verify", "-CAfile", str(tls / "ca.pem"), "-purpose", purpose, str(cert)],
                            capture_output=True, text=True)
    return result.returncode == 0, result.stdout + result.stderr


def test_the_ca_vouches_only_for_tls_servers_and_no_other_name_form(tmp_path):
    """Regression (issue 31, finding 9): the CA limited only DNS names and addresses and had no extended key usage,
    so its key could sign S/MIME, client and code-signing certificates, for any e-mail address, URI or directory
    name. Now it is good only for TLS servers, and every other name form is closed. Checked with the real openssl,
    on leaves forged with the CA's own key. Cost: ~1 s."""
    state = tmp_path / "state"
    run_cli("tls", "ca", state_dir=state, check=True)
    tls = state / "tls"
    text = openssl_text(tls / "ca.pem")
    assert "X509v3 Extended Key Usage: \n                TLS Web Server Authentication\n" in text, text
    constraints = text.split("X509v3 Name Constraints: critical")[1].split("X509v3 Subject Key Identifier")[0]
    assert "DirName:O = codex-bridge" in constraints and "email:invalid" in constraints and "URI:invalid" in constraints
    assert "Excluded:" not in constraints
    # The leaf serve uses still verifies, for a TLS server.
    assert openssl_verify(tls, tls / "cert.pem", "sslserver")[0]
    assert "Subject: O = codex-bridge, CN = " in openssl_text(tls / "cert.pem")
    # A forged leaf like the bridge's verifies too: what fails below fails for what it names or is for.
    server = "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1"
    assert openssl_verify(tls, forge(tls, tmp_path, "plain", "/O=codex-bridge/CN=localhost", server), "sslserver")[0]
    refused = {
        "email": ("/O=codex-bridge/CN=localhost", "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,email:ana@example.com",
                  "sslserver"),
        "uri": ("/O=codex-bridge/CN=localhost", "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,URI:https://bank.example.com/",
                "sslserver"),
        "dirname": ("/O=codex-bridge/CN=localhost", "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,dirName:other_dn",
                    "sslserver"),
        "subject": ("/O=Bank/CN=localhost", server, "sslserver"),
        "smime": ("/O=codex-bridge/CN=ana", "extendedKeyUsage=emailProtection\nsubjectAltName=email:ana@example.com", "smimesign"),
        "client": ("/O=codex-bridge/CN=localhost", "extendedKeyUsage=clientAuth\nsubjectAltName=DNS:localhost", "sslclient"),
    }
    for name, (subject, extensions, purpose) in refused.items():
        ok, output = openssl_verify(tls, forge(tls, tmp_path, name, subject, extensions), purpose)
        assert not ok, (name, output)


def test_a_ca_made_before_the_limits_keeps_working_and_doctor_reports_it(bridge_factory, tmp_path):
    """Issue 31, finding 9: a CA from before (only DNS and IP constrained, no extended key usage) is kept — phones
    trust it — and serve still serves a leaf it signs, but serve warns and doctor reports it, with the fix
    `tls ca rotate`. Cost: ~2 s."""
    bridge = bridge_factory(name="old-ca", args=["--tls"], start=False)
    tls = bridge.state_dir / "tls"
    tls.mkdir(parents=True, mode=0o700)
    (tmp_path / "old.cnf").write_text(
        "[req]\ndistinguished_name=dn\nprompt=no\n[dn]\nCN=codex-bridge CA for old\nO=codex-bridge\n[ext]\n"
        "basicConstraints=critical,CA:true,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n"
        "nameConstraints=critical,permitted;DNS:localhost,permitted;IP:127.0.0.1/255.255.255.255\n")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(tls / "ca-key.pem")],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "req", "-x509", "-new", "-key", str(tls / "ca-key.pem"), "-config", str(tmp_path / "old.cnf"),
                    "-extensions", "ext", "-days", "3650", "-out", str(tls / "ca.pem")], check=True, capture_output=True)
    for file in ("ca-key.pem", "ca.pem"):
        (tls / file).chmod(0o600)
    old = (tls / "ca.pem").read_text()
    bridge.start()
    assert (tls / "ca.pem").read_text() == old  # kept, not replaced
    with socket.create_connection(("127.0.0.1", bridge.port), timeout=5) as raw:
        with verified(bridge).wrap_socket(raw, server_hostname="localhost") as tls_socket:
            assert tls_socket.version()
    assert "made before it was limited to TLS servers" in bridge.log()
    findings = json.loads(run_cli("doctor", "--json", "--port", str(bridge.port), state_dir=bridge.state_dir, timeout=60).stdout)
    (finding,) = [f for f in findings if f["check"] == "tls"]
    assert finding["severity"] == "problem" and "predates its limits" in finding["summary"], finding
    assert "extended key usage" in finding["summary"] and "tls ca rotate" in finding["fix"], finding


def test_ca_crt_and_the_profile_are_public_on_both_sides_of_the_port(bridge_factory):
    bridge = bridge_factory(args=["--tls"])
    der = ca_der(bridge)
    for base, context in ((f"https://127.0.0.1:{bridge.port}", verified(bridge)), (f"http://127.0.0.1:{bridge.port}", None)):
        status, headers, body = get(base + "/ca.crt", context)
        assert status == 200 and body == der, base
        assert headers["Content-Type"] == "application/x-x509-ca-cert"
        status, headers, body = get(base + "/ca.mobileconfig", context)
        assert status == 200 and headers["Content-Type"] == "application/x-apple-aspen-config", base
        profile = plistlib.loads(body)  # an XML property list, as iOS reads it
        assert body.startswith(b"<?xml") and profile["PayloadType"] == "Configuration"
        (payload,) = profile["PayloadContent"]
        assert payload["PayloadType"] == "com.apple.security.root" and payload["PayloadContent"] == der
        assert profile["PayloadUUID"] != payload["PayloadUUID"]


def test_plain_http_on_the_tls_port_gets_the_trust_page_and_nothing_else(bridge_factory):
    bridge = bridge_factory(args=["--tls"])
    plain = f"http://127.0.0.1:{bridge.port}"
    fingerprint = json.loads((bridge.state_dir / "server.json").read_text())["fingerprint"]

    status, headers, body = get(plain + "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"Trust this workstation" in body and b'src="trust.js"' in body and b"<script>" not in body
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and f"https://127.0.0.1:{bridge.port}" in csp and "'unsafe-inline'" not in csp
    for name in ("trust.js", "trust.css", "icon.svg"):
        assert get(f"{plain}/{name}")[0] == 200, name
    status, _, body = get(plain + "/ca.json")
    assert status == 200 and json.loads(body)["fingerprint"] == fingerprint

    # Never the app nor the API: every other GET leads to the trust page; a token sent in the clear is ignored.
    for path in ("/healthz", "/index.html", "/app.js", "/metrics", "/files?thread=x&path=y", "/sw.js"):
        status, headers, body = get(plain + path, headers={"Authorization": f"Bearer {bridge.token}"})
        assert status == 302 and headers["Location"] == "/", path
        assert b"ok" not in body and b"codex_bridge" not in body
    request = urllib.request.Request(plain + "/uploads", data=b"x", method="POST", headers={"Authorization": f"Bearer {bridge.token}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code in (404, 405)

    # The same port still speaks TLS to TLS clients, the app included.
    status, _, body = get(f"https://127.0.0.1:{bridge.port}/healthz", verified(bridge))
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, _, body = get(f"https://127.0.0.1:{bridge.port}/", verified(bridge))
    assert status == 200 and b"Trust this workstation" not in body and b"app.js" in body


async def test_a_websocket_in_plain_http_on_the_tls_port_is_refused_before_any_token(bridge_factory):
    bridge = bridge_factory(args=["--tls"])
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(f"ws://127.0.0.1:{bridge.port}/", additional_headers={"Authorization": f"Bearer {bridge.token}"},
                                 open_timeout=5)
    assert refused.value.response.status_code == 426
    assert b"tls_required" in refused.value.response.body
    # A peer that opens and says nothing is closed by the request-head timeout, as on any port.
    with socket.create_connection(("127.0.0.1", bridge.port), timeout=10) as raw:
        raw.settimeout(10)
        assert raw.recv(1) == b""
    assert bridge.proc.poll() is None


def test_with_a_provided_certificate_plain_http_is_redirected_to_https(bridge_factory, tmp_path):
    from test_tls import make_ca_and_leaf
    certs = tmp_path / "certs"
    certs.mkdir()
    _, leaf, key = make_ca_and_leaf(certs)
    bridge = bridge_factory(args=["--tls-cert", str(leaf), "--tls-key", str(key)])
    status, headers, _ = get(f"http://127.0.0.1:{bridge.port}/some/path?x=1")
    assert status == 308 and headers["Location"] == f"https://127.0.0.1:{bridge.port}/some/path?x=1"
    assert get(f"http://127.0.0.1:{bridge.port}/ca.crt")[0] == 308  # no workstation CA to publish
    record = json.loads((bridge.state_dir / "server.json").read_text())
    assert record["workstationCA"] is False
    summary = json.loads(run_cli("pair", "--json", state_dir=bridge.state_dir, check=True).stdout)
    assert summary["webUrl"].startswith("https://") and "trustUrl" not in summary  # browsers trust it: no trust page


def test_doctor_and_status_report_the_ca_and_what_it_covers(bridge_factory, tmp_path):
    bridge = bridge_factory(args=["--tls"])
    fingerprint = json.loads((bridge.state_dir / "server.json").read_text())["fingerprint"]
    findings = json.loads(run_cli("doctor", "--json", "--port", str(bridge.port), state_dir=bridge.state_dir, timeout=60).stdout)
    (tls,) = [f for f in findings if f["check"] == "tls"]
    assert tls["severity"] == "ok" and fingerprint in tls["summary"] and "covers every offered address" in tls["summary"], tls
    report = json.loads(run_cli("status", "--json", state_dir=bridge.state_dir, timeout=60).stdout)
    assert report["certificateAuthority"]["fingerprint"] == fingerprint == report["fingerprint"]
    bridge.stop()

    # The server recorded an address the CA was not made for (the workstation moved to another network).
    record = json.loads((bridge.state_dir / "server.json").read_text()) if (bridge.state_dir / "server.json").exists() else None
    assert record is None  # serve removes it on exit
    state = tmp_path / "moved"
    run_cli("tls", "ca", state_dir=state, check=True)
    (state / "config.toml").write_text("tls = true\n")
    import os
    fake = {"pid": os.getpid(), "port": 9, "host": "0.0.0.0", "addresses": ["192.0.2.77"], "startedAt": "2026-01-01T00:00:00Z",
            "tls": True, "fingerprint": "0" * 64, "workstationCA": True}
    (state / "server.json").write_text(json.dumps(fake))
    findings = json.loads(run_cli("doctor", "--json", "--port", "0", state_dir=state, timeout=60).stdout)
    (tls,) = [f for f in findings if f["check"] == "tls"]
    assert tls["severity"] == "problem" and "192.0.2.77" in tls["summary"] and "tls ca rotate" in tls["fix"], tls
    text = run_cli("status", state_dir=state, timeout=60).stdout
    ca = json.loads(run_cli("tls", "ca", "--json", state_dir=state, check=True).stdout)["fingerprint"]
    assert f"ca:          SHA-256 {ca}" in text


def test_a_client_that_sends_a_server_name_gets_a_leaf_without_addresses(bridge_factory):
    """BoringSSL-based clients (swift-nio-ssl: attach, BridgeClient) cannot check IP-address name constraints and
    refuse a chain where one applies; they send a server name and get a leaf naming only DNS names."""
    bridge = bridge_factory(args=["--tls"])
    context = ssl.create_default_context(cafile=str(bridge.state_dir / "tls" / "ca.pem"))
    context.check_hostname = False

    def names(server_hostname):
        with socket.create_connection(("127.0.0.1", bridge.port), timeout=5) as raw:
            with context.wrap_socket(raw, server_hostname=server_hostname) as tls:
                return {kind for kind, _ in tls.getpeercert()["subjectAltName"]}, dict(tls.getpeercert()["subjectAltName"])

    kinds, by_kind = names(None)  # as a browser connecting to an address: the leaf names the addresses
    assert kinds == {"DNS", "IP Address"}
    kinds, by_kind = names("codex-bridge")
    assert kinds == {"DNS"} and by_kind["DNS"]  # both verified against the CA alone

"""Issue 7, TLS: `serve --tls` (wss://), `tls show`/`tls rotate`/`tls ca rotate`, the fingerprint in
server.json, the pairing URL, `status` and `doctor`. Since issue 27 the certificate is issued by the
workstation's own certificate authority and `fp` is the CA's: clients here pin like a native app does (the
CA the server presents must hash to `fp`, and the leaf must verify against it)."""
import asyncio
import hashlib
import json
import re
import socket
import ssl
import stat
import urllib.parse
import urllib.request
import uuid

import pytest
import websockets

from avahi_fixture import avahi_daemon, named, wait_browse  # noqa: F401 (fixture)
from conftest import run_cli
from wsutil import expect_close, recv, send


class PinMismatch(Exception):
    pass


def unverified_context():
    """No CA check: for fetching the CA certificate that is then pinned (its SHA-256 must be `fp`)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def wss_url(bridge):
    return f"wss://127.0.0.1:{bridge.port}/"


def pinned_context(port, fingerprint):
    """What a native client does with `fp`: fetch the CA certificate the server publishes, refuse it unless its
    SHA-256 is `fingerprint`, then trust only it (no host name check: the pairing URL says which bridge)."""
    with urllib.request.urlopen(f"https://127.0.0.1:{port}/ca.crt", context=unverified_context(), timeout=5) as response:
        der = response.read()
    if hashlib.sha256(der).hexdigest() != fingerprint:
        raise PinMismatch(hashlib.sha256(der).hexdigest())
    context = ssl.create_default_context(cadata=der)
    context.check_hostname = False
    return context


async def pinned_connect(bridge, fingerprint):
    """Connects with wss:// and refuses the server unless its chain verifies against the CA whose SHA-256 is
    `fingerprint` (checked before anything secret is sent)."""
    return await websockets.connect(wss_url(bridge), ssl=pinned_context(bridge.port, fingerprint), open_timeout=10, max_size=None)


async def pinned_hello(bridge, fingerprint):
    ws = await pinned_connect(bridge, fingerprint)
    await send(ws, {"kind": "hello", "version": 1, "token": bridge.token})
    ack = await recv(ws)
    assert ack["kind"] == "helloAck" and ack["ok"] is True, ack
    return ws, ack


def server_json(bridge):
    return json.loads((bridge.state_dir / "server.json").read_text())


def tls_show(state_dir):
    result = run_cli("tls", "show", state_dir=state_dir, check=True)
    return result.stdout.strip()


def peer_der(port):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with unverified_context().wrap_socket(raw) as tls:
            return tls.getpeercert(binary_form=True)


async def test_pinned_client_connects_and_every_source_agrees_on_the_fingerprint(bridge_factory):
    bridge = bridge_factory(args=["--tls"])
    record = server_json(bridge)
    fingerprint = tls_show(bridge.state_dir)
    assert len(fingerprint) == 64 and fingerprint == fingerprint.lower() and ":" not in fingerprint
    assert record["tls"] is True and record["fingerprint"] == fingerprint and record["workstationCA"] is True
    ca_der = ssl.PEM_cert_to_DER_cert((bridge.state_dir / "tls" / "ca.pem").read_text())
    assert hashlib.sha256(ca_der).hexdigest() == fingerprint
    assert hashlib.sha256(peer_der(bridge.port)).hexdigest() != fingerprint  # the leaf; the pin is its CA

    summary = json.loads(run_cli("pair", "--json", state_dir=bridge.state_dir, check=True).stdout)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(summary["url"]).query)
    assert query["fp"] == [fingerprint]
    assert summary["fingerprint"] == fingerprint
    # The first QR leads to the trust page over plain http on the same port, with nothing in it; the code (and fp)
    # only ever in the https one (issue 31).
    assert summary["trustUrl"] == f"http://127.0.0.1:{bridge.port}/", summary
    assert summary["webUrl"].startswith(f"https://127.0.0.1:{bridge.port}/#pair=v1&code={summary['code']}&"), summary
    assert f"&fp={fingerprint}" in summary["webUrl"]
    # `pair --static` too: the shared secret only in the https link, never next to the trust page's.
    shared = json.loads(run_cli("pair", "--static", "--json", state_dir=bridge.state_dir, check=True).stdout)
    secret = run_cli("token", "show", state_dir=bridge.state_dir, check=True).stdout.strip()
    assert shared["trustUrl"] == summary["trustUrl"] and shared["webUrl"].startswith(f"https://127.0.0.1:{bridge.port}/#pair=v1&token=")
    text = run_cli("pair", "--static", state_dir=bridge.state_dir, check=True).stdout
    assert secret and [u for u in re.findall(r"http://\S+", text) if secret in u] == [] and secret in text

    ws, ack = await pinned_hello(bridge, fingerprint)
    await send(ws, {"kind": "ping", "nonce": "tls"})
    assert await recv(ws) == {"kind": "pong", "nonce": "tls"}
    await ws.close()

    # The pairing code from the URL pairs over TLS too.
    ws = await pinned_connect(bridge, fingerprint)
    await send(ws, {"kind": "hello", "version": 1, "token": summary["code"], "device": {"name": "tls phone"}})
    ack = await recv(ws)
    assert ack["ok"] is True and ack["deviceToken"], ack
    await ws.close()

    # /healthz shares the port under TLS, and a client that trusts only the CA checks the name too.
    verified = ssl.create_default_context(cafile=str(bridge.state_dir / "tls" / "ca.pem"))
    with urllib.request.urlopen(f"https://127.0.0.1:{bridge.port}/healthz", context=verified, timeout=5) as response:
        assert response.status == 200 and json.loads(response.read())["status"] == "ok"

    # The keys are private, the directory too.
    tls_dir = bridge.state_dir / "tls"
    assert stat.S_IMODE((tls_dir / "key.pem").stat().st_mode) == 0o600
    assert stat.S_IMODE((tls_dir / "ca-key.pem").stat().st_mode) == 0o600
    assert stat.S_IMODE(tls_dir.stat().st_mode) == 0o700
    assert "BEGIN CERTIFICATE" in (tls_dir / "cert.pem").read_text()

    status = run_cli("status", "--json", state_dir=bridge.state_dir, timeout=60)
    report = json.loads(status.stdout)
    assert status.returncode == 0, status.stdout + status.stderr
    assert report["running"] is True and report["server"]["healthy"] is True
    assert report["tls"] is True and report["fingerprint"] == fingerprint
    assert report["certificateAuthority"]["fingerprint"] == fingerprint
    assert report["connections"] is not None  # /metrics answered over TLS, pinned to the CA, with the shared secret

    text = run_cli("status", state_dir=bridge.state_dir, timeout=60).stdout
    assert fingerprint in text and "this workstation's certificate authority" in text


async def test_wrong_fingerprint_is_refused_before_hello(bridge_factory):
    bridge = bridge_factory(args=["--tls"])
    wrong = "0" * 64
    with pytest.raises(PinMismatch):
        await pinned_connect(bridge, wrong)
    # A client that checks the certificate against the system's CAs refuses it as well.
    with pytest.raises(ssl.SSLCertVerificationError):
        await websockets.connect(wss_url(bridge), ssl=ssl.create_default_context(), open_timeout=10)
    ws, _ = await pinned_hello(bridge, tls_show(bridge.state_dir))
    await ws.close()


async def test_plaintext_on_a_tls_port_gets_no_app_and_no_websocket(bridge_factory):
    bridge = bridge_factory(args=["--tls"])
    fingerprint = server_json(bridge)["fingerprint"]
    with pytest.raises(websockets.InvalidStatus) as refused:
        ws = await websockets.connect(f"ws://127.0.0.1:{bridge.port}/", open_timeout=5)
        await ws.close()
    assert refused.value.response.status_code == 426
    # Plain HTTP gets the trust page (test_lan_ca.py), never the API: /healthz leads there.
    with urllib.request.urlopen(f"http://127.0.0.1:{bridge.port}/healthz", timeout=5) as response:
        assert response.url == f"http://127.0.0.1:{bridge.port}/"
        assert b"Trust this workstation" in response.read()
    assert bridge.proc.poll() is None
    ws, _ = await pinned_hello(bridge, fingerprint)
    await ws.close()


async def test_ca_is_reused_across_restarts_the_leaf_rotates_live_and_ca_rotate_replaces_the_pin(bridge_factory):
    bridge = bridge_factory(args=["--tls"])
    first = server_json(bridge)["fingerprint"]
    leaf = peer_der(bridge.port)
    bridge.stop()
    bridge.start()
    assert server_json(bridge)["fingerprint"] == first
    assert peer_der(bridge.port) == leaf

    # `tls rotate`: a new leaf from the same CA, served by the running server from its next connection.
    rotated = json.loads(run_cli("tls", "rotate", "--json", state_dir=bridge.state_dir, check=True).stdout)
    assert rotated["fingerprint"] == first and rotated["leafFingerprint"] != hashlib.sha256(leaf).hexdigest()
    deadline = asyncio.get_running_loop().time() + 5
    while peer_der(bridge.port) == leaf and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.2)
    assert hashlib.sha256(peer_der(bridge.port)).hexdigest() == rotated["leafFingerprint"]
    ws, _ = await pinned_hello(bridge, first)
    await ws.close()
    bridge.stop()

    rotated = run_cli("tls", "ca", "rotate", state_dir=bridge.state_dir, check=True)
    new = rotated.stdout.strip()
    assert len(new) == 64 and new != first
    assert "pair again" in rotated.stderr and "trust the new" in rotated.stderr
    assert tls_show(bridge.state_dir) == new

    bridge.start()
    assert server_json(bridge)["fingerprint"] == new
    with pytest.raises(PinMismatch):
        await pinned_connect(bridge, first)
    ws, _ = await pinned_hello(bridge, new)
    await ws.close()


def test_tls_show_json_describes_the_certificate(tmp_path):
    state = tmp_path / "state"
    result = run_cli("tls", "show", "--json", state_dir=state, check=True)
    summary = json.loads(result.stdout)
    assert len(summary["fingerprint"]) == 64 and len(summary["leafFingerprint"]) == 64
    assert {"localhost", "127.0.0.1", "::1"} <= set(summary["subjectAlternativeNames"])
    assert summary["key"].endswith("tls/key.pem") and summary["certificate"].endswith("tls/cert.pem")
    assert summary["authority"].endswith("tls/ca.pem")
    assert tls_show(state) == summary["fingerprint"]
    authority = json.loads(run_cli("tls", "ca", "--json", state_dir=state, check=True).stdout)
    assert authority["fingerprint"] == summary["fingerprint"]
    assert run_cli("tls", "ca", state_dir=state, check=True).stdout.strip() == summary["fingerprint"]


def test_plaintext_warning_only_off_loopback(bridge_factory, tmp_path):
    bridge = bridge_factory()
    assert "--tls" not in bridge.log()
    findings = json.loads(run_cli("doctor", "--json", "--port", str(bridge.port), state_dir=bridge.state_dir, timeout=60).stdout)
    tls = [f for f in findings if f["check"] == "tls"]
    assert len(tls) == 1 and tls[0]["severity"] == "ok", tls

    # No server running, default listen 0.0.0.0 without TLS: doctor says so once, with the flag that fixes it.
    state = tmp_path / "idle"
    findings = json.loads(run_cli("doctor", "--json", "--port", "0", state_dir=state, timeout=60).stdout)
    tls = [f for f in findings if f["check"] == "tls"]
    assert len(tls) == 1 and tls[0]["severity"] == "info" and "--tls" in tls[0]["fix"], tls
    assert "plaintext" in tls[0]["summary"]

    # With tls = true in config.toml it is fine.
    state.mkdir(parents=True, exist_ok=True)
    (state / "config.toml").write_text("tls = true\n")
    findings = json.loads(run_cli("doctor", "--json", "--port", "0", state_dir=state, timeout=60).stdout)
    tls = [f for f in findings if f["check"] == "tls"]
    assert tls[0]["severity"] == "ok", tls


@pytest.mark.usefixtures("avahi_daemon")
def test_mdns_txt_carries_tls_and_the_fingerprint(bridge_factory):
    name = f"tls-{uuid.uuid4().hex[:8]}"
    bridge = bridge_factory(args=["--tls", "--mdns-name", name], mdns=True)
    instance = f"{name} (codex-bridge)"
    found = named(wait_browse(lambda s: named(s, instance)), instance)[0]
    assert found["port"] == bridge.port
    assert found["txt"]["tls"] == "1"
    assert found["txt"]["fp"] == server_json(bridge)["fingerprint"] == tls_show(bridge.state_dir)


def make_ca_and_leaf(d, name="leaf"):
    """A test CA (reused when present) and a leaf for 127.0.0.1 signed by it; returns (ca.pem, leaf.pem, leaf.key)."""
    import subprocess

    def run(*args):
        subprocess.run(args, check=True, capture_output=True)
    if not (d / "ca.pem").exists():
        run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=codex-bridge test CA", "-keyout", str(d / "ca.key"), "-out", str(d / "ca.pem"))
    run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", str(d / f"{name}.key"), "-out", str(d / f"{name}.csr"))
    (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("openssl", "x509", "-req", "-in", str(d / f"{name}.csr"), "-CA", str(d / "ca.pem"), "-CAkey", str(d / "ca.key"),
        "-CAcreateserial", "-days", "2", "-extfile", str(d / "ext.cnf"), "-out", str(d / f"{name}.pem"))
    (d / f"{name}.key").chmod(0o600)
    return d / "ca.pem", d / f"{name}.pem", d / f"{name}.key"


async def test_provided_certificate_is_served_verified_and_reloaded_without_dropping(bridge_factory, tmp_path):
    certs = tmp_path / "certs"
    certs.mkdir()
    ca, leaf, key = make_ca_and_leaf(certs)
    bridge = bridge_factory(args=["--tls-cert", str(leaf), "--tls-key", str(key)])
    verified = ssl.create_default_context(cafile=str(ca))  # a client that trusts the CA, checking the name
    with urllib.request.urlopen(f"https://127.0.0.1:{bridge.port}/healthz", context=verified, timeout=5) as response:
        assert json.loads(response.read())["status"] == "ok"
    first = peer_der(bridge.port)
    assert server_json(bridge)["fingerprint"] == hashlib.sha256(first).hexdigest()
    ws = await websockets.connect(f"wss://127.0.0.1:{bridge.port}/", ssl=verified)
    await send(ws, {"kind": "hello", "version": 1, "token": bridge.token})
    assert (await recv(ws))["ok"] is True
    # Renew: new files in place; new connections get the new certificate, the open one stays.
    _, renewed, renewed_key = make_ca_and_leaf(certs, "renewed")
    leaf.write_bytes(renewed.read_bytes())
    key.write_bytes(renewed_key.read_bytes())
    deadline = asyncio.get_running_loop().time() + 5
    while peer_der(bridge.port) == first and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.2)
    assert peer_der(bridge.port) != first
    await send(ws, {"kind": "ping", "nonce": "still"})
    assert (await recv(ws))["nonce"] == "still"
    await ws.close()


def test_provided_key_readable_by_others_is_refused(bridge_factory, tmp_path):
    certs = tmp_path / "certs"
    certs.mkdir()
    _, leaf, key = make_ca_and_leaf(certs)
    key.chmod(0o644)
    bridge = bridge_factory(args=["--tls-cert", str(leaf), "--tls-key", str(key)], start=False)
    with pytest.raises(RuntimeError) as failure:
        bridge.start(timeout=10)
    assert "readable by others" in str(failure.value) and "chmod 600" in str(failure.value)
    result = run_cli("serve", "--tls-cert", str(leaf), state_dir=tmp_path / "s")
    assert result.returncode != 0 and "--tls-cert and --tls-key go together" in result.stderr


def fake_tailscale(bin_dir, certs, domain):
    """A `tailscale` on PATH: `status --json` names `domain`; `cert` writes a leaf for it signed by the test CA
    and records each call."""
    _, leaf, key = make_ca_and_leaf_for(certs, domain)
    script = bin_dir / "tailscale"
    script.write_text(f"""#!/bin/sh
echo "$@" >> {bin_dir}/calls
case "$1" in
  status) printf '{{"BackendState":"Running","Self":{{"DNSName":"{domain}."}}}}' ;;
  cert) cp {leaf} "$3"; cp {key} "$5" ;;
  *) exit 2 ;;
esac
""")
    script.chmod(0o755)


def make_ca_and_leaf_for(d, domain):
    import subprocess
    make_ca_and_leaf(d)  # the CA
    (d / "ts.cnf").write_text(f"subjectAltName=DNS:{domain}\n")
    for args in (
        ["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={domain}",
         "-keyout", str(d / "ts.key"), "-out", str(d / "ts.csr")],
        ["openssl", "x509", "-req", "-in", str(d / "ts.csr"), "-CA", str(d / "ca.pem"), "-CAkey", str(d / "ca.key"),
         "-CAcreateserial", "-days", "2", "-extfile", str(d / "ts.cnf"), "-out", str(d / "ts.pem")],
    ):
        subprocess.run(args, check=True, capture_output=True)
    return d / "ca.pem", d / "ts.pem", d / "ts.key"


async def test_tls_tailscale_serves_the_magicdns_certificate_and_offers_its_name(bridge_factory, tmp_path):
    import os
    domain = "box.tail1234.ts.net"
    bin_dir, certs = tmp_path / "bin", tmp_path / "certs"
    bin_dir.mkdir()
    certs.mkdir()
    fake_tailscale(bin_dir, certs, domain)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    bridge = bridge_factory(args=["--tls-tailscale"], env=env)
    assert f"--cert-file" in (bin_dir / "calls").read_text()
    key_file = next((bridge.state_dir / "tls" / "tailscale").glob("*.key"))
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # A client that trusts the CA and checks the MagicDNS name (as a phone's browser does).
    verified = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    with socket.create_connection(("127.0.0.1", bridge.port), timeout=5) as raw:
        with verified.wrap_socket(raw, server_hostname=domain) as tls:
            assert tls.getpeercert()["subjectAltName"] == (("DNS", domain),)
    assert server_json(bridge)["addresses"][0] == domain
    summary = json.loads(run_cli("pair", "--json", state_dir=bridge.state_dir, env=env, check=True).stdout)
    assert summary["webUrl"].startswith(f"https://{domain}:{bridge.port}/#pair=v1&code=")


def test_tls_tailscale_without_tailscale_says_what_to_do(bridge_factory, tmp_path):
    import os
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = dict(os.environ, PATH=f"{empty}:/usr/bin:/bin")
    result = run_cli("serve", "--tls-tailscale", "--listen", "127.0.0.1:0", "--no-qr", "--no-mdns", state_dir=tmp_path / "s", env=env)
    assert result.returncode != 0
    assert "tailscale up" in result.stderr and "MagicDNS" in result.stderr


def test_pair_reads_tls_from_the_config_file_before_any_server_ran(bridge_factory, tmp_path):
    """Issue 28 item 5. Seen failing before: with `tls = true` in config.toml and no server ever started, `pair --json`
    printed http:// URLs and no fingerprint (there was no certificate yet), so the phone could not pin the server."""
    state = tmp_path / "fresh"
    state.mkdir()
    (state / "config.toml").write_text("tls = true\n")
    summary = json.loads(run_cli("pair", "--json", "--advertise", "127.0.0.1", state_dir=state, check=True).stdout)
    # The trust page over plain http (issue 27) first, then https carrying the code and the fingerprint of the CA
    # the server will serve from (issue 31: no credential on plain http).
    assert summary["trustUrl"].startswith("http://127.0.0.1:") and summary["trustUrl"].endswith("/"), summary
    assert summary["webUrl"].startswith("https://127.0.0.1:"), summary
    assert len(summary.get("fingerprint") or "") == 64 and f"fp={summary['fingerprint']}" in summary["webUrl"], summary
    # The server that then starts serves exactly that certificate.
    bridge = bridge_factory(name="fresh")
    assert tls_show(state) == summary["fingerprint"]
    record = json.loads((state / "server.json").read_text())
    assert record.get("fingerprint") == summary["fingerprint"], record
    assert bridge.port

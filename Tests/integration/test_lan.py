"""Issue 28, a real LAN: the bridge in one network namespace, a "phone" in another, joined by a veth pair
(netns.py). mDNS goes through an avahi-daemon in each namespace, seen by nothing but the veth.

What a phone on the LAN relies on, off loopback: `discover` on the phone's side finds the bridge over multicast
across the link; `pair --json` on the workstation offers the LAN address (and only it: nothing else is up in
there); with `--tls`, the QR's http URL leads to the trust page naming the workstation CA's fingerprint, and
`attach` on the phone's side pairs over that address, pins that CA, reconnects pinned by address, and refuses a
pairing URL whose fingerprint is not the server's. (Chromium on the phone's side:
Tests/web/test_lan_web.py.)

Needs root, iproute2, dbus and avahi-daemon; fails, never skips, without them.
"""
import json
import re
import socket
import subprocess
import time
import urllib.parse
import uuid

import pytest

from conftest import BIN, Bridge, run_cli
from netns import NETNS_DIR, PREFIX, Lan, sweep_stale


pytestmark = pytest.mark.timeout(120)  # a hang is a failure with a traceback (fixtures still clean up)

@pytest.fixture
def lan(tmp_path):
    with Lan(tmp_path / "lan") as lan:
        yield lan


@pytest.fixture
def lan_bridges(lan, tmp_path):
    """Bridges serving inside the workstation namespace on 0.0.0.0 (port 0: the bridge picks one)."""
    made = []

    def make(name="lan-state", args=(), mdns=False):
        env = lan.mdns[lan.workstation].env if mdns else None
        binary = lan.wrapper(lan.workstation, BIN, f"{name}-serve", env=env)
        bridge = Bridge(tmp_path / name, args=args, listen="0.0.0.0:0", mdns=mdns, binary=binary)
        made.append(bridge)
        return bridge.start()

    yield make
    for bridge in made:
        try:
            bridge.stop(timeout=5)
        except Exception:
            pass


def namespaces() -> set:
    return {p.name for p in NETNS_DIR.iterdir()} if NETNS_DIR.is_dir() else set()


def test_a_failing_test_leaves_no_namespace_and_a_killed_run_is_swept(tmp_path):
    with pytest.raises(RuntimeError, match="a test fails"):
        with Lan(tmp_path / "lan") as lan:
            lan.start_mdns()
            made = {lan.workstation, lan.phone}
            assert made <= namespaces()
            raise RuntimeError("a test fails")
    assert not made & namespaces()
    # A run killed before its cleanup: its namespace (named after its pid, now gone) is deleted by the next one.
    dead = 2**22 + 1  # above pid_max's default ceiling: no process has it
    stale = f"{PREFIX}-{dead}-abc123-w"
    subprocess.run(["ip", "netns", "add", stale], check=True)
    try:
        sweep_stale()
        assert stale not in namespaces()
    finally:
        subprocess.run(["ip", "netns", "del", stale], capture_output=True)


def cli_in(lan, namespace, *args, env=None, timeout=60, check=True, input=None):
    return lan.run(namespace, BIN, *args, env=env, timeout=timeout, check=check, input=input)


def test_the_namespaces_hold_only_loopback_and_the_veth(lan):
    assert sorted(lan.interfaces(lan.workstation)) == ["lan0", "lo"]
    assert sorted(lan.interfaces(lan.phone)) == ["lan1", "lo"]
    # Settled when the fixture returned: both ends up, each with its IPv4 address and nothing else (no IPv6 on the
    # veth: its link-local address would arrive later, under a browser started meanwhile), and none of it in the
    # host's namespace.
    assert lan._state(lan.workstation, lan.workstation_if) == ("UP", [lan.workstation_address])
    assert lan._state(lan.phone, lan.phone_if) == ("UP", [lan.phone_address])
    for ns, interface in ((lan.workstation, lan.workstation_if), (lan.phone, lan.phone_if)):
        assert lan.run(ns, "cat", f"/proc/sys/net/ipv6/conf/{interface}/disable_ipv6").stdout.strip() == "1"
    host = subprocess.run(["ip", "-o", "addr", "show"], capture_output=True, text=True, check=True).stdout
    assert lan.workstation_address not in host and lan.phone_address not in host
    # A socket this process makes inside the workstation's namespace is reached from the phone's, over the veth.
    with lan.inside(lan.workstation):
        server = socket.create_server(("0.0.0.0", 0))
    with server:
        port = server.getsockname()[1]
        reached = lan.run(lan.phone, "python3", "-c", f"import socket; s = socket.create_connection(('{lan.workstation_address}', {port}), 5); "
                          "print(s.getsockname()[0])")
        assert reached.stdout.strip() == lan.phone_address
        server.accept()[0].close()


def test_discover_finds_the_bridge_across_the_veth_and_pair_offers_the_lan_address(lan, lan_bridges):
    lan.start_mdns()
    name = f"lan-{uuid.uuid4().hex[:6]}"
    bridge = lan_bridges(args=["--mdns-name", name], mdns=True)
    server_id = (bridge.state_dir / "server-id").read_text().strip()
    instance = f"{name} (codex-bridge)"

    # The phone's side browses with its own avahi, which learns of the bridge only through the veth.
    phone_env = lan.mdns[lan.phone].env
    deadline = time.monotonic() + 30
    while True:
        found = json.loads(cli_in(lan, lan.phone, "discover", "--json", "--timeout", "2s", env=phone_env).stdout)
        mine = [b for b in found if b["name"] == instance]
        if mine or time.monotonic() > deadline:
            break
    assert len(mine) == 1, found
    assert mine[0]["id"] == server_id
    assert mine[0]["port"] == bridge.port
    assert mine[0]["addresses"] == [lan.workstation_address], mine

    # Both daemons spoke multicast on their veth only.
    assert lan.mdns[lan.workstation].joined_interfaces() == {lan.workstation_if}
    assert lan.mdns[lan.phone].joined_interfaces() == {lan.phone_if}

    # The invitation made on the workstation offers the LAN address, which the phone's side reaches.
    info = json.loads(cli_in(lan, lan.workstation, "pair", "--json", "--state-dir", bridge.state_dir).stdout)
    assert info["addresses"] == [lan.workstation_address], info
    assert info["port"] == bridge.port
    assert info["webUrl"].startswith(f"http://{lan.workstation_address}:{bridge.port}/#pair=v1&"), info
    app = urllib.parse.urlparse(info["url"])
    query = urllib.parse.parse_qs(app.query)
    assert query["host"] == [lan.workstation_address] and query["addrs"] == [lan.workstation_address], info["url"]
    health = lan.run(lan.phone, "python3", "-c",
                     f"import urllib.request; print(urllib.request.urlopen('http://{lan.workstation_address}:{bridge.port}/healthz', timeout=10).read().decode())")
    assert json.loads(health.stdout)["id"] == server_id


def test_tls_attach_pins_the_fingerprint_over_the_lan_address(lan, lan_bridges, tmp_path):
    bridge = lan_bridges(name="lan-tls", args=["--tls"])
    fingerprint = run_cli("tls", "show", state_dir=bridge.state_dir, check=True).stdout.strip()
    info = json.loads(cli_in(lan, lan.workstation, "pair", "--json", "--state-dir", bridge.state_dir).stdout)
    assert info["fingerprint"] == fingerprint
    assert f"fp={fingerprint}" in info["url"] and f"host={lan.workstation_address}" in info["url"], info["url"]
    # The QR codes over the LAN address: plain http on the TLS port is the trust page (no code in its URL), which
    # names the same fingerprint (the workstation's CA) as what attach pins below; the code goes only over https.
    assert info["trustUrl"] == f"http://{lan.workstation_address}:{bridge.port}/", info
    assert info["webUrl"].startswith(f"https://{lan.workstation_address}:{bridge.port}/#pair=v1&code="), info
    assert f"fp={fingerprint}" in info["webUrl"], info
    served = lan.run(lan.phone, "python3", "-c", "import urllib.request; print(urllib.request.urlopen("
                     f"'http://{lan.workstation_address}:{bridge.port}/ca.json', timeout=10).read().decode())")
    assert json.loads(served.stdout)["fingerprint"] == fingerprint

    # Pairing over the LAN address stores the token bound to the certificate's fingerprint.
    client = tmp_path / "phone-client"
    paired = cli_in(lan, lan.phone, "attach", info["url"], "--state-dir", client, "--device-name", "lan phone",
                    input="/quit\n")
    assert "as device" in paired.stdout, paired.stdout + paired.stderr
    (entry,) = json.loads((client / "client-tokens.json").read_text()).values()
    assert entry["fingerprint"] == fingerprint
    assert any(lan.workstation_address in e for e in entry["endpoints"]), entry

    # By address alone (no URL, no fingerprint typed): the stored pin is used, over TLS.
    again = cli_in(lan, lan.phone, "attach", f"{lan.workstation_address}:{bridge.port}", "--state-dir", client,
                   input="/quit\n")
    assert "as device" in again.stdout, again.stdout + again.stderr

    # A pairing URL whose fingerprint is not the server's: refused before the code is sent.
    other = json.loads(cli_in(lan, lan.workstation, "pair", "--json", "--state-dir", bridge.state_dir).stdout)
    wrong = "0" * 64 if fingerprint != "0" * 64 else "1" * 64
    tampered = re.sub(r"fp=[0-9a-f]{64}", f"fp={wrong}", other["url"])
    refused = cli_in(lan, lan.phone, "attach", tampered, "--state-dir", tmp_path / "impostor-client",
                     input="/quit\n", check=False)
    assert refused.returncode != 0, refused.stdout
    assert "fingerprint" in refused.stderr.lower() or "certificate" in refused.stderr.lower(), refused.stderr
    devices = json.loads(run_cli("devices", "list", "--json", state_dir=bridge.state_dir, check=True).stdout)
    assert [d["name"] for d in devices] == ["lan phone"]
    # The code was never presented, so it still pairs.
    later = cli_in(lan, lan.phone, "attach", other["url"], "--state-dir", tmp_path / "second-client", input="/quit\n")
    assert "as device" in later.stdout, later.stdout + later.stderr

"""Issue 5: the bridge advertised over mDNS through a real avahi-daemon confined to loopback.

Needs root, avahi-daemon, avahi-utils and dbus (Scripts/test installs them); fails, never skips, without them.
"""
import asyncio
import json
import signal
import uuid

import pytest
import websockets

from avahi_fixture import AVAHI_DIR, avahi_daemon, browse, named, wait_browse  # noqa: F401 (fixture)
from conftest import run_cli

pytestmark = pytest.mark.usefixtures("avahi_daemon")


def unique_name(prefix="t"):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def start_advertised(bridge_factory, name, state="state"):
    return bridge_factory(state, args=["--mdns-name", name], mdns=True)


async def hello(bridge):
    async with websockets.connect(bridge.url, open_timeout=10) as ws:
        await ws.send(json.dumps({"kind": "hello", "version": 1, "token": bridge.token}))
        return json.loads(await ws.recv())


def test_test_daemon_is_confined_to_loopback():
    conf = (AVAHI_DIR / "avahi-daemon.conf").read_text()
    assert "\nallow-interfaces=lo\n" in conf
    assert "\nuse-ipv6=no\n" in conf
    log = (AVAHI_DIR / "avahi.log").read_text()
    joined = [line for line in log.splitlines() if "Joining mDNS multicast group" in line]
    assert joined and all("interface lo." in line for line in joined), joined


def test_serve_is_advertised_with_port_and_txt(bridge_factory):
    name = unique_name()
    bridge = start_advertised(bridge_factory, name)
    instance = f"{name} (codex-bridge)"
    services = wait_browse(lambda s: named(s, instance))
    found = named(services, instance)[0]
    assert found["port"] == bridge.port
    assert found["address"] == "127.0.0.1"
    txt = found["txt"]
    assert txt["version"] == "1"
    assert txt["tls"] == "0"
    ack = asyncio.run(hello(bridge))
    assert ack["kind"] == "helloAck" and ack["ok"] is True, ack
    assert txt["id"] == ack["server"]["id"]
    assert bridge.token not in " ".join(f"{k}={v}" for k, v in txt.items())
    assert set(txt) <= {"version", "id", "tls", "fp"}, txt


def test_discover_json_finds_it(bridge_factory):
    name = unique_name()
    bridge = start_advertised(bridge_factory, name)
    instance = f"{name} (codex-bridge)"
    via_avahi = named(wait_browse(lambda s: named(s, instance)), instance)[0]

    result = run_cli("discover", "--json", "--timeout", "3s", check=True)
    bridges = json.loads(result.stdout)
    assert isinstance(bridges, list)
    mine = [b for b in bridges if b["name"] == instance]
    assert len(mine) == 1, bridges
    assert mine[0]["port"] == bridge.port
    assert "127.0.0.1" in mine[0]["addresses"]
    assert mine[0]["version"] == 1
    assert mine[0]["id"] == via_avahi["txt"]["id"]

    table = run_cli("discover", "--timeout", "500ms", check=True)
    assert instance in table.stdout and str(bridge.port) in table.stdout

    bad = run_cli("discover", "--timeout", "soon")
    assert bad.returncode != 0 and "--timeout" in bad.stderr


def test_readvertised_within_5s_after_daemon_restart(bridge_factory, avahi_daemon):
    name = unique_name()
    bridge = start_advertised(bridge_factory, name)
    instance = f"{name} (codex-bridge)"
    wait_browse(lambda s: named(s, instance))

    avahi_daemon.kill()
    avahi_daemon.start()
    services = wait_browse(lambda s: named(s, instance), timeout=5.0)
    assert named(services, instance)[0]["port"] == bridge.port
    assert bridge.proc.poll() is None, "serve must survive the daemon going away"


def test_same_name_twice_both_visible_one_renamed(bridge_factory):
    name = unique_name("dup")
    instance = f"{name} (codex-bridge)"
    first = start_advertised(bridge_factory, name, state="one")
    wait_browse(lambda s: named(s, instance))
    second = start_advertised(bridge_factory, name, state="two")

    renamed = f"{instance} #2"
    services = wait_browse(lambda s: named(s, instance) and named(s, renamed))
    ports = {named(services, instance)[0]["port"], named(services, renamed)[0]["port"]}
    assert ports == {first.port, second.port}
    ids = {named(services, instance)[0]["txt"]["id"], named(services, renamed)[0]["txt"]["id"]}
    assert len(ids) == 2
    loser = second if named(services, renamed)[0]["port"] == second.port else first
    loser.wait_log(f'advertising as "{renamed}"')


def test_sigterm_withdraws_the_service(bridge_factory):
    name = unique_name()
    bridge = start_advertised(bridge_factory, name)
    instance = f"{name} (codex-bridge)"
    wait_browse(lambda s: named(s, instance))
    bridge.stop(signal.SIGTERM)
    wait_browse(lambda s: not named(s, instance), timeout=5.0)


def test_no_daemon_serve_still_works_and_warns_with_the_fix(bridge_factory, avahi_daemon):
    avahi_daemon.stop()
    name = unique_name()
    bridge = start_advertised(bridge_factory, name)
    ack = asyncio.run(hello(bridge))
    assert ack["kind"] == "helloAck" and ack["ok"] is True, ack
    log = bridge.wait_log("avahi-daemon is not running")
    assert "sudo apt install avahi-daemon" in log
    assert "systemctl enable --now avahi-daemon" in log
    assert log.count("avahi-daemon is not running") == 1, log

    discover = run_cli("discover", "--json", "--timeout", "1s")
    assert discover.returncode != 0
    assert "avahi-daemon is not running" in discover.stderr

    # The publisher kept retrying: the service appears as soon as the daemon does.
    avahi_daemon.start()
    instance = f"{name} (codex-bridge)"
    services = wait_browse(lambda s: named(s, instance), timeout=5.0)
    assert named(services, instance)[0]["port"] == bridge.port
    assert bridge.log().count("avahi-daemon is not running") == 1

"""A real avahi-daemon confined to loopback (Scripts/avahi-test-daemon), and avahi-browse parsing.

Tests that use `avahi_daemon` FAIL (never skip) when avahi cannot be started: `Scripts/test` installs
avahi-daemon, avahi-utils and dbus.
"""
import os
import pathlib
import re
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "Scripts" / "avahi-test-daemon"
SERVICE_TYPE = "_codexd._tcp"
AVAHI_DIR = pathlib.Path(os.environ.get("AVAHI_TEST_DIR", "/tmp/codex-bridge-avahi"))


class AvahiDaemon:
    """Controls the loopback test avahi-daemon through Scripts/avahi-test-daemon."""

    def _run(self, command: str):
        result = subprocess.run([str(SCRIPT), command], capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise AssertionError(
                f"Scripts/avahi-test-daemon {command} failed ({result.returncode}); "
                f"Scripts/test installs avahi-daemon avahi-utils dbus:\n{result.stdout}{result.stderr}")
        return result

    def start(self):
        self._run("start")

    def stop(self):
        self._run("stop")

    def kill(self):
        """SIGKILL, like a crash: no goodbye packets, clients see the D-Bus name vanish."""
        self._run("kill")

    def running(self) -> bool:
        return subprocess.run([str(SCRIPT), "status"], capture_output=True).returncode == 0


@pytest.fixture
def avahi_daemon():
    """The loopback avahi-daemon, running at the start of the test and again after it."""
    daemon = AvahiDaemon()
    daemon.start()
    yield daemon
    daemon.start()


def unescape(text: str) -> str:
    """avahi-browse -p escapes names as decimal `\\DDD` (`\\032` = space) and `\\.`/`\\\\`."""
    out = bytearray()
    i = 0
    raw = text.encode()
    while i < len(raw):
        if raw[i] == 0x5C and len(raw[i + 1:i + 4]) == 3 and raw[i + 1:i + 4].isdigit():
            out.append(int(raw[i + 1:i + 4]))
            i += 4
        elif raw[i] == 0x5C and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
        else:
            out.append(raw[i])
            i += 1
    return out.decode(errors="replace")


def parse_txt(field: str) -> dict:
    """`"k=v" "a=b"` → {"k": "v", "a": "b"}."""
    pairs = {}
    for quoted in re.findall(r'"((?:[^"\\]|\\.)*)"', field):
        entry = unescape(quoted)
        key, _, value = entry.partition("=")
        pairs.setdefault(key, value)
    return pairs


def parse_browse(output: str) -> list:
    """The resolved (`=`) lines of `avahi-browse -rpt` as dicts."""
    services = []
    for line in output.splitlines():
        if not line.startswith("=;"):
            continue
        parts = line.split(";", 9)
        if len(parts) < 10:
            continue
        _, iface, proto, name, stype, domain, host, address, port, txt = parts
        services.append({
            "interface": iface, "protocol": proto, "name": unescape(name), "type": stype, "domain": domain,
            "host": host, "address": address, "port": int(port), "txt": parse_txt(txt),
        })
    return services


def browse(service_type: str = SERVICE_TYPE) -> list:
    """One `avahi-browse -rpt TYPE` (resolve, parsable, terminate after the cache is dumped)."""
    result = subprocess.run(["avahi-browse", "-rpt", service_type], capture_output=True, text=True, timeout=20)
    if result.returncode != 0 and "Daemon not running" not in result.stderr:
        raise AssertionError(f"avahi-browse failed ({result.returncode}): {result.stderr}")
    return parse_browse(result.stdout)


def wait_browse(predicate, timeout=10.0, service_type: str = SERVICE_TYPE) -> list:
    """Browses until `predicate(services)` holds; returns those services or fails with the last listing."""
    deadline = time.monotonic() + timeout
    services = []
    while True:
        services = browse(service_type)
        if predicate(services):
            return services
        if time.monotonic() >= deadline:
            raise AssertionError(f"condition not met within {timeout}s; avahi-browse saw: {services}")
        time.sleep(0.2)


def named(services: list, instance: str) -> list:
    return [s for s in services if s["name"] == instance]

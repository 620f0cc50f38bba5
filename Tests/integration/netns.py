"""A real LAN for tests: two network namespaces joined by a veth pair, each with its own D-Bus and avahi-daemon.

    with Lan(tmp_path) as lan:                   # "workstation" 198.51.100.1 <-veth-> "phone" 198.51.100.2
        lan.start_mdns()                          # a dbus-daemon + avahi-daemon inside each namespace
        lan.run(lan.phone, "ping", "-c1", lan.workstation_address)
        with lan.inside(lan.workstation): sock = socket.create_server(("127.0.0.1", 0))  # a socket in there

Addresses come from TEST-NET-2 (198.51.100.0/24, RFC 5737: documentation only, never routed; `Lan(dir, subnet=…)`
takes another /24, e.g. a private one where a test needs it) and exist only inside the two namespaces, which have no
other interface than their loopback: nothing a test does here reaches a real network, and the avahi-daemons
(allow-interfaces= the veth, IPv4 only, no wide-area, no reflector) send multicast only on the veth. Interfaces are
named lan0/lan1, not veth*: the bridge offers no address of a veth in a pairing URL (a container's veth is not
reachable from a phone), and this pair stands for a Wi-Fi LAN.

Nothing changes in a namespace once `Lan` is entered, unless the test changes it: a browser in there aborts any
connection it is setting up when an address or a link of its namespace changes (net::ERR_NETWORK_CHANGED), and an
aborted service-worker fetch leaves `navigator.serviceWorker.ready` pending for ever. So the veth has no IPv6 (its
link-local address would appear a second or two after the link comes up), `Lan` returns only once both ends are up
with their carrier (which the kernel may report up to a second after `link set up`), and `link(ns, up=True)` waits
for that too. The pair is made inside the workstation's namespace with its peer straight in the phone's: it never
appears in the host's namespace, and every run's namespaces have names of their own (pid and a random tag).

Needs root, iproute2, dbus and avahi-daemon (Scripts/test installs them). Everything is torn down on exit, when
a test fails too: the processes inside each namespace are killed and the namespaces deleted (which deletes the
veth). Namespaces left behind by a run that was killed (its pid is in their name) are swept at the next start.
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid

import pytest

PREFIX = "cblan"
SUBNET = "198.51.100"
CLONE_NEWNET = 0x40000000
NETNS_DIR = pathlib.Path("/run/netns")
INSTALL = "apt-get install -y iproute2 dbus avahi-daemon avahi-utils (Scripts/test does)"

_libc = ctypes.CDLL(None, use_errno=True)


def _need(program):
    if not shutil.which(program):
        pytest.fail(f"{program} not found: {INSTALL}")


def _ip(*args, check=True):
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise AssertionError(f"ip {' '.join(args)} failed: {result.stderr.strip()}")
    return result


def _sysctl(namespace: str, key: str, value):
    """Sets a network sysctl inside `namespace` (/proc/sys/net is the namespace's own there)."""
    with inside(namespace):
        pathlib.Path("/proc/sys", *key.split(".")).write_text(f"{value}\n")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _destroy_namespace(name: str):
    """Kills every process inside `name` (TERM, then KILL), then deletes it (and with it its interfaces)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = [int(p) for p in _ip("netns", "pids", name, check=False).stdout.split() if p.isdigit()]
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_pid_alive(p) for p in pids):
            time.sleep(0.05)
    _ip("netns", "del", name, check=False)


def sweep_stale():
    """Deletes namespaces of this harness whose creating process is gone (a run killed before its cleanup)."""
    if not NETNS_DIR.is_dir():
        return
    for entry in NETNS_DIR.iterdir():
        match = re.fullmatch(rf"{PREFIX}-(\d+)-[0-9a-f]+-[wp]", entry.name)
        if match and not _pid_alive(int(match.group(1))):
            _destroy_namespace(entry.name)


@contextlib.contextmanager
def inside(namespace: str):
    """Runs the body with the calling thread in `namespace`'s network (sockets made there stay there)."""
    with open("/proc/thread-self/ns/net") as home, open(NETNS_DIR / namespace) as target:
        if _libc.setns(target.fileno(), CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {namespace}")
        try:
            yield
        finally:
            if _libc.setns(home.fileno(), CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back home")


class Mdns:
    """A dbus-daemon and an avahi-daemon inside one namespace, on a bus of their own (a socket in `directory`).

    avahi-daemon keeps its pid file and socket in /run/avahi-daemon: each runs with a private tmpfs there (in the
    mount namespace `ip netns exec` makes), so several can run beside the host's or the loopback test daemon."""

    def __init__(self, lan: "Lan", namespace: str, interface: str, host_name: str):
        self.lan, self.namespace, self.interface, self.host_name = lan, namespace, interface, host_name
        self.directory = lan.directory / f"mdns-{host_name}"
        self.directory.mkdir(parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)
        # A unix socket's path must fit in 108 bytes; a test's tmp_path may not leave room for it.
        self.socket_dir = pathlib.Path(tempfile.mkdtemp(prefix="cbl-bus-"))
        self.socket = self.socket_dir / "bus"
        self.address = f"unix:path={self.socket}"
        self.avahi_log = self.directory / "avahi.log"
        self.procs = []

    @property
    def env(self) -> dict:
        """What a client of this avahi needs in its environment (libdbus reads it for the system bus)."""
        return {"DBUS_SYSTEM_BUS_ADDRESS": self.address}

    def _answers(self, *call) -> str:
        result = subprocess.run(["dbus-send", f"--bus={self.address}", "--print-reply", *call],
                                capture_output=True, text=True, timeout=10)
        return result.stdout if result.returncode == 0 else ""

    def start(self):
        for program in ("dbus-daemon", "dbus-send", "avahi-daemon"):
            _need(program)
        conf = self.directory / "bus.conf"
        conf.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={self.socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
""")
        log = open(self.directory / "dbus.log", "ab")
        self.procs.append(self.lan.popen(self.namespace, ["dbus-daemon", f"--config-file={conf}", "--nofork", "--nopidfile"],
                                         stdout=log, stderr=subprocess.STDOUT))
        self._wait(lambda: self._answers("--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.GetId"), "dbus-daemon")
        avahi_conf = self.directory / "avahi-daemon.conf"
        avahi_conf.write_text(f"""[server]
host-name={self.host_name}
domain-name=local
use-ipv4=yes
use-ipv6=no
allow-interfaces={self.interface}
enable-dbus=yes
allow-point-to-point=no
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-domain=no
publish-resolv-conf-dns-servers=no
publish-aaaa-on-ipv4=no
publish-a-on-ipv6=no
[reflector]
enable-reflector=no
[rlimits]
""")
        script = ("mkdir -p /run/avahi-daemon && mount -t tmpfs -o mode=0755 tmpfs /run/avahi-daemon && "
                  f"exec avahi-daemon --no-drop-root --no-chroot --no-rlimits --no-proc-title -f {avahi_conf}")
        self.procs.append(self.lan.popen(self.namespace, ["sh", "-c", script], env=self.env,
                                         stdout=open(self.avahi_log, "ab"), stderr=subprocess.STDOUT))
        self._wait(lambda: "int32 2" in self._answers("--dest=org.freedesktop.Avahi", "/",
                                                      "org.freedesktop.Avahi.Server.GetState"), "avahi-daemon")
        return self

    def _wait(self, ready, what, timeout=20.0):
        deadline = time.monotonic() + timeout
        while not ready():
            dead = [p for p in self.procs if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                logs = "".join(p.read_text(errors="replace")[-2000:] for p in self.directory.glob("*.log"))
                raise AssertionError(f"{what} in {self.namespace} did not come up:\n{logs}")
            time.sleep(0.05)

    def joined_interfaces(self) -> set:
        """The interfaces avahi joined the mDNS multicast group on (from its log)."""
        text = self.avahi_log.read_text(errors="replace")
        return set(re.findall(r"Joining mDNS multicast group on interface (\S+?)\.IPv", text))

    def stop(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        shutil.rmtree(self.socket_dir, ignore_errors=True)


class Lan:
    """Two namespaces, `workstation` and `phone`, joined by a veth pair (lan0 198.51.100.1 / lan1 198.51.100.2)."""

    def __init__(self, directory: pathlib.Path, subnet: str = SUBNET):
        _need("ip")
        tag = f"{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.workstation, self.phone = f"{PREFIX}-{tag}-w", f"{PREFIX}-{tag}-p"
        self.workstation_if, self.phone_if = "lan0", "lan1"
        self.subnet = subnet  # a /24 (its first three octets); it exists only inside the two namespaces
        self.workstation_address, self.phone_address = f"{subnet}.1", f"{subnet}.2"
        self.directory = pathlib.Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.mdns = {}
        self._made = []

    # -- life cycle ---------------------------------------------------------------------------------------------
    def __enter__(self):
        sweep_stale()
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _build(self):
        for ns in (self.workstation, self.phone):
            _ip("netns", "add", ns)
            self._made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            # No IPv6 on the veth: its link-local address would appear a second or two after the link comes up
            # (duplicate address detection), an address change a browser in there answers by aborting whatever
            # connection it is setting up (net::ERR_NETWORK_CHANGED). Interfaces made from now on inherit this.
            _sysctl(ns, "net.ipv6.conf.default.disable_ipv6", 1)
        # The pair is made inside the workstation's namespace with its peer straight in the phone's: it never
        # exists in the host's namespace (no event there, no name that could collide with another run's).
        _ip("-n", self.workstation, "link", "add", self.workstation_if, "type", "veth",
            "peer", "name", self.phone_if, "netns", self.phone)
        for ns, interface, address in ((self.workstation, self.workstation_if, self.workstation_address),
                                       (self.phone, self.phone_if, self.phone_address)):
            _sysctl(ns, f"net.ipv6.conf.{interface}.disable_ipv6", 1)
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", interface)
            _ip("-n", ns, "link", "set", interface, "multicast", "on", "up")
        self.wait_settled()

    def wait_settled(self, timeout=10.0):
        """Returns once both ends of the veth are up with a carrier (the kernel reports that up to a second after
        `link set up`: a link event in there) and hold exactly their IPv4 address, so nothing in either namespace
        changes under a browser started afterwards."""
        deadline = time.monotonic() + timeout
        while True:
            states = {ns: self._state(ns, interface) for ns, interface in
                      ((self.workstation, self.workstation_if), (self.phone, self.phone_if))}
            expected = {self.workstation: ("UP", [self.workstation_address]), self.phone: ("UP", [self.phone_address])}
            if states == expected:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the veth did not settle within {timeout}s: {states}, expected {expected}")
            time.sleep(0.05)

    def _state(self, namespace, interface):
        link = json.loads(_ip("-n", namespace, "-j", "link", "show", "dev", interface).stdout)[0]
        addresses = json.loads(_ip("-n", namespace, "-j", "addr", "show", "dev", interface).stdout)[0]["addr_info"]
        return (link.get("operstate"), sorted(a["local"] for a in addresses))

    def close(self):
        for mdns in self.mdns.values():
            with contextlib.suppress(Exception):
                mdns.stop()
        for ns in self._made:
            _destroy_namespace(ns)
        self._made = []

    # -- running things inside ----------------------------------------------------------------------------------
    def command(self, namespace, argv, env=None) -> list:
        """argv run inside `namespace` (`env`: variables added to the inherited environment)."""
        extra = [f"{k}={v}" for k, v in (env or {}).items()]
        return ["ip", "netns", "exec", namespace, *(["env", *extra] if extra else []), *map(str, argv)]

    def popen(self, namespace, argv, env=None, **kwargs):
        return subprocess.Popen(self.command(namespace, argv, env), stdin=subprocess.DEVNULL, **kwargs)

    def run(self, namespace, *argv, env=None, timeout=60, check=True, input=None):
        result = subprocess.run(self.command(namespace, argv, env), capture_output=True, text=True, timeout=timeout,
                                input=input, stdin=None if input is not None else subprocess.DEVNULL)
        if check and result.returncode != 0:
            raise AssertionError(f"{argv} in {namespace} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
        return result

    def wrapper(self, namespace, program, name, env=None) -> pathlib.Path:
        """An executable script that runs `program` inside `namespace` (for Bridge(binary=…), Playwright, …).
        `ip netns exec` execs the program: the script's pid is the program's."""
        path = self.directory / name
        argv = " ".join(f"'{a}'" for a in self.command(namespace, [program], env))
        path.write_text(f'#!/bin/sh\nexec {argv} "$@"\n')
        path.chmod(0o755)
        return path

    def inside(self, namespace):
        return inside(namespace)

    def start_mdns(self):
        """An avahi-daemon (and its D-Bus) in each namespace, on its veth only."""
        self.mdns[self.workstation] = Mdns(self, self.workstation, self.workstation_if, f"cb-ws-{os.getpid()}").start()
        self.mdns[self.phone] = Mdns(self, self.phone, self.phone_if, f"cb-phone-{os.getpid()}").start()
        return self

    def link(self, namespace, up: bool):
        """`ip link set IF down|up` on that side of the veth; up returns once both ends have their carrier again."""
        interface = self.workstation_if if namespace == self.workstation else self.phone_if
        _ip("-n", namespace, "link", "set", interface, "up" if up else "down")
        if up:
            self.wait_settled()

    def add_address(self, namespace, address):
        """One more IPv4 address (/24) on that side of the veth (what a DHCP change looks like to that side)."""
        interface = self.workstation_if if namespace == self.workstation else self.phone_if
        _ip("-n", namespace, "addr", "add", f"{address}/24", "dev", interface)

    def interfaces(self, namespace) -> list:
        out = _ip("-n", namespace, "-o", "link", "show").stdout
        return [line.split(":")[1].strip().split("@")[0] for line in out.splitlines()]

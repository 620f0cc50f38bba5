"""Issue 17, "Install without Swift": `Scripts/package` makes a .deb that installs, runs with no Swift toolchain
on its library path, and purges cleanly. The package is built from the debug build the suite already made
(`--debug`); a release package differs only in the build configuration."""
import asyncio
import json
import os
import pathlib
import subprocess

import pytest

from conftest import ROOT, Bridge
import wsutil

INSTALLED = pathlib.Path("/usr/bin/codex-bridge")


def run(*cmd, check=True, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError(f"{cmd} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def owned_files():
    listed = run("dpkg-query", "-L", "codex-bridge", check=False)
    return [line for line in listed.stdout.splitlines() if line.strip()] if listed.returncode == 0 else []


@pytest.fixture
def package(tmp_path):
    if run("dpkg-query", "-W", "codex-bridge", check=False).returncode == 0:
        pytest.fail("codex-bridge is already installed as a package on this machine; remove it first")
    made = run(str(ROOT / "Scripts" / "package"), "--debug", "--out", str(tmp_path / "out"), cwd=ROOT, timeout=900)
    debs = list((tmp_path / "out").glob("codex-bridge_*_*.deb"))
    assert len(debs) == 1, made.stdout + made.stderr
    yield debs[0]
    run("dpkg", "--purge", "codex-bridge", check=False)


def test_the_package_installs_runs_without_swift_and_purges(package, tmp_path):
    info = run("dpkg-deb", "--field", str(package), "Depends", "Recommends").stdout
    for library in ("libavahi-client3", "libqrencode4", "libsqlite3-0"):
        assert library in info, info
    assert "Recommends: avahi-daemon, bubblewrap" in info

    run("dpkg", "-i", str(package), timeout=300)
    files = owned_files()
    for path in ("/usr/bin/codex-bridge", "/usr/lib/systemd/user/codex-bridge.service",
                 "/usr/share/bash-completion/completions/codex-bridge", "/usr/share/man/man1/codex-bridge.1.gz"):
        assert path in files, files

    # Every library resolves, and none from the Swift toolchain: the package carries its runtime.
    linked = run("ldd", str(INSTALLED)).stdout
    assert "not found" not in linked and "/opt/swift" not in linked and "/lib/codex-bridge/libswiftCore.so" in linked, linked

    # Run it with no toolchain on PATH or the library path.
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(tmp_path)}
    assert run(str(INSTALLED), "--version", env=env).stdout.strip()
    doctor = run(str(INSTALLED), "doctor", "--json", "--state-dir", str(tmp_path / "doctor"), env=env, check=False)
    assert doctor.returncode in (0, 1), doctor.stderr
    assert {finding["check"] for finding in json.loads(doctor.stdout)} >= {"codex", "port", "state-dir"}
    manual = run("zcat", "/usr/share/man/man1/codex-bridge.1.gz").stdout
    assert ".TH CODEX-BRIDGE" in manual and ".SS serve" in manual and "--listen" in manual, manual[:400]

    state = tmp_path / "state"
    bridge = Bridge(state, binary=INSTALLED, env=env).start()
    try:
        async def handshake():
            ws, ack = await wsutil.hello(bridge)
            await ws.close()
            return ack
        ack = asyncio.run(handshake())
        assert ack["kind"] == "helloAck" and ack["server"]["version"]
    finally:
        bridge.stop()

    run("dpkg", "--purge", "codex-bridge", timeout=300)
    assert not owned_files()
    for path in files:
        if path.startswith(("/usr/bin/", "/usr/lib/codex-bridge", "/usr/lib/systemd/user/codex-", "/usr/share/doc/codex-bridge")):
            assert not os.path.lexists(path), path
    assert (state / "token").exists()  # the user's own state stays

"""Issue 35: a thread's dev server on the phone, through the bridge's preview origin, with the real codex against the
scripted model and real dev servers (preview_devserver.py) whose cwd is inside the thread's directory: list them,
open one (a single-use ticket, exchanged for an HttpOnly SameSite=Strict cookie), proxy GET, POST, a redirect, a
cookie the dev server tries to forge and a WebSocket; the bridge's credentials never reach the dev server; a reused
ticket, a port outside the thread, the bridge's own port and a device without `operate` are refused; revoking the
device ends the preview (its WebSocket too) within 2 s, and so does losing `operate`; the same over `--tls` with the
workstation's CA (a Secure cookie, wss://, no plain HTTP on the preview port, a page when the dev server stops); a
preview port in use is one clear line. Cost: ~8 s."""
import asyncio
import http.client
import json
import pathlib
import socket
import ssl
import subprocess
import sys
import time
import urllib.parse

import pytest
from websockets.asyncio.client import connect as ws_connect

from codex_fixture import bridge_codex_args, codex_bin, codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import codex_env
from conftest import run_cli
from test_codex import request, until_turn_completed
from test_pairing import PHONE, TABLET
from test_trust import pair
from wsutil import hello

DEVSERVER = pathlib.Path(__file__).with_name("preview_devserver.py")


@pytest.fixture
def dev_servers(tmp_path, workspace):
    """Starts dev servers; `start(kind, cwd)` returns (port, log path). All are stopped at teardown."""
    procs = []

    def start(kind, cwd):
        cwd.mkdir(parents=True, exist_ok=True)
        log = tmp_path / f"{kind}-{len(procs)}-headers.log"
        proc = subprocess.Popen([sys.executable, str(DEVSERVER), kind, str(log)], cwd=cwd, stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        return int(proc.stdout.readline()), log

    start.procs = procs

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def get(port, path, headers=None, method="GET", body=None, host="127.0.0.1", context=None):
    if context is None:
        conn = http.client.HTTPConnection(host, port, timeout=10)
    else:
        conn = http.client.HTTPSConnection(host, port, timeout=10, context=context)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, response.headers, data


def served(port, cookie):
    """Whether the preview still answers 200; a request cut by the preview ending under it (the connection closed
    before a response, seen on a loaded machine) counts as ended."""
    try:
        return get(port, "/", {"Cookie": cookie})[0] == 200
    except (http.client.RemoteDisconnected, ConnectionError):
        return False


def exchange(url, context=None):
    """Opens a preview URL as a browser would: the ticket for the cookie of the preview's origin, at the preview
    port. Returns (status, headers, cookie `name=value`, the origin's port) of that exchange."""
    parts = urllib.parse.urlsplit(url)
    status, headers, _ = get(parts.port, f"{parts.path}?{parts.query}", context=context)
    set_cookie = headers.get("Set-Cookie", "")
    cookie = set_cookie.split(";")[0] if set_cookie.startswith("codex_bridge_preview_") else None
    origin = urllib.parse.urlsplit(headers["Location"]).port if status == 303 else None
    return status, headers, cookie, origin


async def test_preview_lists_opens_proxies_and_ends_on_revocation(codex_bridge, model, workspace, dev_servers, tmp_path):
    model.queue({"kind": "message", "text": "The dev server runs."})
    device_id, device_token, _ = await pair(codex_bridge, PHONE)
    phone, _ = await hello(codex_bridge, token=device_token)
    thread = (await request(phone, "startThread", cwd=str(workspace), prompt="build the app"))["threadId"]
    await until_turn_completed(phone, thread)

    web_port, web_log = dev_servers("http", workspace / "web")
    ws_port, ws_log = dev_servers("ws", workspace / "web" / "hot")
    outside_port, _ = dev_servers("http", tmp_path / "elsewhere")

    listed = await request(phone, "listPreviews", threadId=thread)
    assert listed["kind"] == "previews" and listed["threadId"] == thread, listed
    servers = {s["port"]: s for s in listed["servers"]}
    assert servers[web_port] == {"port": web_port, "process": pathlib.Path(sys.executable).name[:15], "http": True}, servers
    assert ws_port in servers
    # A server outside the thread's directory and the bridge's own ports are never offered.
    assert outside_port not in servers and codex_bridge.port not in servers, servers
    for port in (outside_port, codex_bridge.port):
        refused = await request(phone, "openPreview", threadId=thread, port=port)
        assert refused["kind"] == "error" and refused["code"] == "not_found", refused

    opened = await request(phone, "openPreview", threadId=thread, port=web_port)
    assert opened["kind"] == "preview" and opened["port"] == web_port and opened["threadId"] == thread, opened
    assert 100 < opened["expiresAt"] - time.time() <= 120, opened
    url = urllib.parse.urlsplit(opened["url"])
    door = url.port
    assert url.scheme == "http" and door not in (codex_bridge.port, web_port), opened
    assert opened["ticket"] == url.query.removeprefix("ticket="), opened

    # The bridge's origin does not take tickets; the preview port serves nothing but the exchange, bridge or dev.
    assert get(codex_bridge.port, f"{url.path}?{url.query}")[0] == 404
    for path in ("/", "/app.js", "/healthz", "/app.webmanifest"):
        status, headers, body = get(door, path)
        assert status == 404 and b"only opens previews" in body and b"codex-bridge" in body, (path, status, body[:200])

    # The ticket, once: a cookie of the preview's own origin (a port of its own, the cookie named after it),
    # HttpOnly, SameSite=Strict (no Secure without TLS), then that origin's start.
    status, headers, cookie, preview_port = exchange(opened["url"])
    assert status == 303 and headers["Location"] == f"http://127.0.0.1:{preview_port}/.codex-bridge/start", (status, headers)
    assert preview_port not in (codex_bridge.port, door, web_port)
    set_cookie = headers["Set-Cookie"]
    assert set_cookie.startswith(f"codex_bridge_preview_{preview_port}="), set_cookie
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie and "Path=/" in set_cookie, set_cookie
    assert "Max-Age=43200" in set_cookie and "Secure" not in set_cookie, set_cookie
    assert exchange(opened["url"])[0] == 403  # reused
    # The preview's origin without its cookie serves nothing, bridge or dev, and clears what a page left there.
    for path in ("/", "/app.js", "/healthz", "/app.webmanifest"):
        status, headers, body = get(preview_port, path)
        assert status == 403 and b"Preview closed" in body and b"codex-bridge" in body, (path, status, body[:200])
        assert headers["Clear-Site-Data"] == '"cache", "storage"', headers
    # Its start: on to the dev server's page, the origin's data cleared this first time.
    status, headers, _ = get(preview_port, "/.codex-bridge/start", {"Cookie": cookie})
    assert status == 303 and headers["Location"] == "/" and headers["Clear-Site-Data"] == '"cache", "storage"', headers
    status, headers, _ = get(preview_port, "/.codex-bridge/start", {"Cookie": cookie})
    assert status == 303 and "Clear-Site-Data" not in headers, headers

    # The dev server's page and script; the bridge's credentials never reach it.
    secret_headers = {"Cookie": f"theme=light; {cookie}", "Authorization": f"Bearer {device_token}"}
    status, headers, body = get(preview_port, "/", secret_headers)
    assert status == 200 and b"Hello from the dev server" in body, (status, body)
    assert get(preview_port, "/app.js", {"Cookie": cookie})[2].startswith(b"document.getElementById")
    seen = json.loads(get(preview_port, "/headers", secret_headers)[2])
    assert seen["Host"] == f"localhost:{web_port}" and seen["Cookie"] == "theme=light", seen
    assert "Authorization" not in seen, seen
    # POST bodies stream through (1 MiB), and redirects to localhost:PORT land on the preview origin.
    body = b"0123456789abcdef" * 65536
    status, _, echoed = get(preview_port, "/echo", {"Cookie": cookie, "Content-Type": "application/octet-stream"}, "POST", body)
    assert status == 200 and json.loads(echoed) == {"length": len(body), "head": "0123456789abcdef"}, echoed
    status, headers, _ = get(preview_port, "/go", {"Cookie": cookie})
    assert status == 302 and headers["Location"] == f"http://127.0.0.1:{preview_port}/landed?from=go", headers
    assert get(preview_port, "/landed?from=go", {"Cookie": cookie})[2] == b"landed /landed?from=go"
    # The dev server cannot set (or overwrite) a preview's cookie; its own cookies pass.
    _, headers, _ = get(preview_port, "/set-cookie", {"Cookie": cookie})
    assert headers.get_all("Set-Cookie") == ["theme=dark"], headers.get_all("Set-Cookie")
    # With the cookie, /healthz is the dev server's (a 404 there), never the bridge's.
    status, _, body = get(preview_port, "/healthz", {"Cookie": cookie})
    assert status == 404 and body == b"not here", (status, body)
    status, _, body = get(preview_port, "/big", {"Cookie": cookie})
    assert status == 200 and len(body) == 4 << 20

    # The WebSocket server (hot reload) through the proxy: its own preview, echoing; the Origin it sees is its own.
    ws_preview = await request(phone, "openPreview", threadId=thread, port=ws_port)
    _, _, ws_cookie, hot_port = exchange(ws_preview["url"])
    assert hot_port != preview_port
    async with ws_connect(f"ws://127.0.0.1:{hot_port}/hmr",
                          additional_headers={"Cookie": ws_cookie, "Authorization": f"Bearer {device_token}"},
                          origin=f"http://127.0.0.1:{hot_port}") as hot:
        await hot.send("reload?")
        assert await asyncio.wait_for(hot.recv(), 5) == "echo: reload?"
        ws_seen = [json.loads(line) for line in ws_log.read_text().splitlines()][-1]
        assert ws_seen["Origin"] == f"http://localhost:{ws_port}" and ws_seen["Host"] == f"localhost:{ws_port}", ws_seen
        assert "Authorization" not in ws_seen and "Cookie" not in ws_seen, ws_seen

        # Revoking the device ends both previews within 2 s: the WebSocket closes, the cookie opens nothing.
        run_cli("devices", "revoke", device_id, state_dir=codex_bridge.state_dir, check=True)
        revoked_at = time.monotonic()
        with pytest.raises(Exception):
            while True:
                await asyncio.wait_for(hot.recv(), 3)
        assert time.monotonic() - revoked_at < 2.5
    assert get(preview_port, "/", {"Cookie": cookie})[0] == 403

    # Nothing of the bridge's credentials or the preview's secrets reached a dev server.
    logged = web_log.read_text() + ws_log.read_text()
    for secret in (device_token, codex_bridge.token, cookie.split("=", 1)[1], ws_cookie.split("=", 1)[1]):
        assert secret not in logged
    assert url.query.split("=", 1)[1] not in codex_bridge.log()  # the ticket is not logged


async def test_preview_needs_operate(codex_bridge, model, workspace, dev_servers):
    model.queue({"kind": "message", "text": "ok"})
    owner, _ = await hello(codex_bridge)
    thread = (await request(owner, "startThread", cwd=str(workspace), prompt="serve it"))["threadId"]
    await until_turn_completed(owner, thread)
    port, _ = dev_servers("http", workspace)
    _, token, _ = await pair(codex_bridge, TABLET, "--scope", "observe")
    watcher, _ = await hello(codex_bridge, token=token)
    for kind, fields in (("listPreviews", {}), ("openPreview", {"port": port})):
        refused = await request(watcher, kind, threadId=thread, **fields)
        assert refused["kind"] == "error" and refused["code"] == "forbidden" and refused["scope"] == "operate", refused

    # A scope taken away ends the session too.
    device_id, token, _ = await pair(codex_bridge, PHONE)
    phone, _ = await hello(codex_bridge, token=token)
    opened = await request(phone, "openPreview", threadId=thread, port=port)
    _, _, cookie, preview_port = exchange(opened["url"])
    assert get(preview_port, "/", {"Cookie": cookie})[0] == 200
    run_cli("devices", "scope", device_id, "observe", state_dir=codex_bridge.state_dir, check=True)
    deadline = time.monotonic() + 2.5
    while served(preview_port, cookie):
        assert time.monotonic() < deadline, "the preview outlived its scope"
        time.sleep(0.1)


async def test_preview_over_tls_with_the_workstation_ca(bridge_factory, model, codex_home, workspace, dev_servers):
    args = ["--tls", "--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)]
    bridge = bridge_factory(name="tls-state", args=args, env=codex_env(codex_home))
    trusted = ssl.create_default_context(cafile=str(bridge.state_dir / "tls" / "ca.pem"))
    model.queue({"kind": "message", "text": "ok"})
    owner, _ = await hello(f"wss://127.0.0.1:{bridge.port}/", token=bridge.token, ssl=trusted)
    thread = (await request(owner, "startThread", cwd=str(workspace), prompt="serve it"))["threadId"]
    await until_turn_completed(owner, thread)
    web_port, _ = dev_servers("http", workspace / "web")
    ws_port, _ = dev_servers("ws", workspace / "web")

    opened = await request(owner, "openPreview", threadId=thread, port=web_port)
    url = urllib.parse.urlsplit(opened["url"])
    assert url.scheme == "https" and url.hostname == "127.0.0.1", opened
    # The preview port speaks TLS only, with the bridge's certificate (the CA's name constraints hold).
    with pytest.raises((http.client.HTTPException, ConnectionError)):
        get(url.port, "/")
    status, headers, cookie, origin = exchange(opened["url"], trusted)
    assert status == 303 and "Secure" in headers["Set-Cookie"] and "HttpOnly" in headers["Set-Cookie"], headers
    assert headers["Location"] == f"https://127.0.0.1:{origin}/.codex-bridge/start", headers
    with pytest.raises((http.client.HTTPException, ConnectionError)):
        get(origin, "/", {"Cookie": cookie})  # a preview's origin speaks TLS only too
    status, _, body = get(origin, "/", {"Cookie": cookie}, context=trusted)
    assert status == 200 and b"Hello from the dev server" in body

    hot = await request(owner, "openPreview", threadId=thread, port=ws_port)
    _, _, hot_cookie, hot_origin = exchange(hot["url"], trusted)
    async with ws_connect(f"wss://127.0.0.1:{hot_origin}/", ssl=trusted, additional_headers={"Cookie": hot_cookie}) as ws:
        await ws.send("over tls")
        assert await asyncio.wait_for(ws.recv(), 5) == "echo: over tls"


    # A dev server that stopped: a page that says so, not an error of the bridge.
    web = dev_servers.procs[0]
    web.kill()
    web.wait()
    status, headers, body = get(origin, "/", {"Cookie": cookie}, context=trusted)
    assert status == 502 and b"Dev server not answering" in body and f"port {web_port}".encode() in body, (status, body)


def test_a_preview_port_in_use_is_one_clear_line(tmp_path):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        result = run_cli("serve", "--listen", "127.0.0.1:0", "--preview-port", str(port), "--no-qr", "--no-mdns",
                         state_dir=tmp_path / "s", timeout=30)
    assert result.returncode != 0, result
    assert f"port {port}, the preview port, is already in use; choose another with --preview-port PORT" in result.stderr, result

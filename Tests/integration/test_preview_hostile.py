"""Issue 44 items 3-5: the preview against a hostile dev server (and a hostile linked bridge), with the real codex
against the scripted model and real dev servers (preview_devserver.py) on 127.0.0.1. Each preview has an origin of
its own (a port of the preview range), its cookie opens that origin only, another origin's page can neither read
nor drive it, no service worker registers through the proxy, a dev server cannot set or shadow the bridge's
cookies, a port whose owner changed is refused, a home directory owns no server, and a linked bridge's
`openPreview` answer never reaches the phone. Cost: ~9 s."""
import asyncio
import http.client
import json
import os
import pathlib
import subprocess
import sys
import time
import urllib.parse

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidMessage, InvalidStatus

from codex_fixture import bridge_codex_args, codex_bin, codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from conftest import run_cli
from fake_bridge import FakeBridge
from mock_model import codex_env
from test_codex import request, until_turn_completed
from test_preview import DEVSERVER, dev_servers, get  # noqa: F401 (fixture)
from wsutil import hello


def open_preview(url):
    """Opens a preview URL as a browser does, following the bridge's redirects: the ticket, then the preview's
    origin. Returns (the origin's port, the final status, the cookies set {name: value}, every Set-Cookie)."""
    parts = urllib.parse.urlsplit(url)
    port, target = parts.port, f"{parts.path}?{parts.query}"
    cookies, set_cookies = {}, []
    for _ in range(4):
        status, headers, _ = get(port, target, {"Cookie": cookie_header(cookies)} if cookies else {})
        for value in headers.get_all("Set-Cookie") or []:
            set_cookies.append(value)
            name, _, rest = value.partition("=")
            cookies[name.strip()] = rest.split(";")[0]
        if status not in (302, 303, 307):
            return port, status, cookies, set_cookies
        location = urllib.parse.urlsplit(headers["Location"])
        port = location.port or port
        target = location.path + (f"?{location.query}" if location.query else "")
    raise AssertionError("too many redirects")


def cookie_header(cookies):
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


async def thread_in(bridge, model, cwd):
    """A thread whose directory is `cwd`, and the connection that started it."""
    model.queue({"kind": "message", "text": "The dev server runs."})
    ws, _ = await hello(bridge)
    thread = (await request(ws, "startThread", cwd=str(cwd), prompt="serve it"))["threadId"]
    await until_turn_completed(ws, thread)
    return ws, thread


async def test_each_preview_has_its_own_origin_and_its_cookie_opens_only_that_one(codex_bridge, model, workspace,
                                                                                    dev_servers):
    a_port, _ = dev_servers("http", workspace / "a")
    b_port, _ = dev_servers("http", workspace / "b")
    ws, thread = await thread_in(codex_bridge, model, workspace)
    opened_a = await request(ws, "openPreview", threadId=thread, port=a_port)
    opened_b = await request(ws, "openPreview", threadId=thread, port=b_port)
    origin_a, status_a, cookies_a, _ = open_preview(opened_a["url"])
    origin_b, status_b, cookies_b, _ = open_preview(opened_b["url"])
    assert status_a == status_b == 200, (status_a, status_b)
    assert origin_a != origin_b, "two previews share one origin"
    assert codex_bridge.port not in (origin_a, origin_b)

    # The browser sends both cookies to both ports (cookies ignore ports): each origin serves its own preview only.
    both = cookie_header({**cookies_a, **cookies_b})
    assert get(origin_a, "/headers", {"Cookie": both})[2] and \
        json.loads(get(origin_a, "/headers", {"Cookie": both})[2])["Host"] == f"localhost:{a_port}"
    assert json.loads(get(origin_b, "/headers", {"Cookie": both})[2])["Host"] == f"localhost:{b_port}"
    # A's cookie, under its own name or B's, opens nothing on B's origin; nor on the bridge's own port.
    (name_a, value_a), = cookies_a.items()
    (name_b, _), = cookies_b.items()
    assert name_a != name_b, (name_a, name_b)
    for cookie in (f"{name_a}={value_a}", f"{name_b}={value_a}"):
        status, _, body = get(origin_b, "/", {"Cookie": cookie})
        assert status == 403 and b"Hello from the dev server" not in body, (cookie, status)
    # The dev server never sees any of the bridge's cookies (the other preview's neither).
    seen = json.loads(get(origin_a, "/headers", {"Cookie": f"theme=light; {both}"})[2])
    assert seen["Cookie"] == "theme=light", seen


async def test_another_origins_page_cannot_read_or_drive_a_preview(codex_bridge, model, workspace, dev_servers):
    a_port, _ = dev_servers("http", workspace / "a")
    b_port, _ = dev_servers("http", workspace / "b")
    hot_port, hot_log = dev_servers("ws", workspace / "b")
    ws, thread = await thread_in(codex_bridge, model, workspace)
    origin_a, _, _, _ = open_preview((await request(ws, "openPreview", threadId=thread, port=a_port))["url"])
    origin_b, _, cookies_b, _ = open_preview((await request(ws, "openPreview", threadId=thread, port=b_port))["url"])
    cookie = cookie_header(cookies_b)
    page_a = f"http://127.0.0.1:{origin_a}"
    # A page of A's origin fetching B's secret (the dev server's CORS would let any origin read it with
    # credentials): refused by the proxy, whether the browser says so in Sec-Fetch-Site or only in Origin.
    for headers in ({"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors", "Origin": page_a},
                    {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script"},
                    {"Origin": page_a}):
        status, _, body = get(origin_b, "/secret.json", {"Cookie": cookie, **headers})
        assert status == 403 and b"secret" not in body, (headers, status, body)
    # B's own page, and a navigation to B from anywhere (a link, the bridge's tab), are served.
    for headers in ({"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Origin": f"http://127.0.0.1:{origin_b}"},
                    {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"},
                    {}):
        assert get(origin_b, "/secret.json", {"Cookie": cookie, **headers})[0] == 200, headers

    # B's hot-reload WebSocket from A's page: refused (the connection closed unanswered); from B's own page: echoed.
    hot = await request(ws, "openPreview", threadId=thread, port=hot_port)
    origin_hot, _, cookies_hot, _ = open_preview(hot["url"])
    with pytest.raises((InvalidStatus, InvalidMessage)):
        async with ws_connect(f"ws://127.0.0.1:{origin_hot}/hmr", origin=page_a,
                              additional_headers={"Cookie": cookie_header(cookies_hot)}):
            pass
    async with ws_connect(f"ws://127.0.0.1:{origin_hot}/hmr", origin=f"http://127.0.0.1:{origin_hot}",
                          additional_headers={"Cookie": cookie_header(cookies_hot)}) as own:
        await own.send("hi")
        assert await asyncio.wait_for(own.recv(), 5) == "echo: hi"
    assert len(hot_log.read_text().splitlines()) == 1  # the refused upgrade never reached the dev server

    # No service worker through the proxy: its script's fetch is refused, Service-Worker-Allowed never passes.
    status, _, body = get(origin_b, "/sw.js", {"Cookie": cookie, "Service-Worker": "script"})
    assert status == 403 and b"addEventListener" not in body, (status, body)
    status, headers, _ = get(origin_b, "/sw.js", {"Cookie": cookie})
    assert status == 200 and headers.get("Service-Worker-Allowed") is None, headers


async def test_a_dev_server_cannot_set_or_shadow_the_bridges_cookies(codex_bridge, model, workspace, dev_servers):
    port, _ = dev_servers("http", workspace / "web")
    ws, thread = await thread_in(codex_bridge, model, workspace)
    origin, _, cookies, _ = open_preview((await request(ws, "openPreview", threadId=thread, port=port))["url"])
    _, headers, _ = get(origin, "/forge-cookies", {"Cookie": cookie_header(cookies)})
    assert headers.get_all("Set-Cookie") == ["theme=dark"], headers.get_all("Set-Cookie")


async def test_a_port_whose_owner_changed_is_refused(codex_bridge, model, workspace, dev_servers, tmp_path):
    port, _ = dev_servers("http", workspace / "web")
    ws, thread = await thread_in(codex_bridge, model, workspace)
    origin, _, cookies, _ = open_preview((await request(ws, "openPreview", threadId=thread, port=port))["url"])
    assert get(origin, "/", {"Cookie": cookie_header(cookies)})[0] == 200
    # The dev server stops and a process outside the thread's folder takes its port.
    owner = dev_servers.procs[0]
    owner.kill()
    owner.wait()
    (tmp_path / "elsewhere").mkdir()
    impostor = subprocess.Popen([sys.executable, str(DEVSERVER), "http", str(tmp_path / "impostor.log"), "impostor"],
                                cwd=tmp_path / "elsewhere", stdout=subprocess.PIPE, text=True,
                                env={**os.environ, "DEVSERVER_PORT": str(port)})
    dev_servers.procs.append(impostor)
    assert int(impostor.stdout.readline()) == port
    status, _, body = get(origin, "/", {"Cookie": cookie_header(cookies)})  # a new connection
    assert status != 200 and b"impostor" not in body, (status, body)
    assert b"changed" in body, body
    assert not (tmp_path / "impostor.log").exists()  # nothing reached it


async def test_a_home_directory_owns_no_server(bridge_factory, model, codex_home, workspace, dev_servers):
    # The bridge's user's home is the root here: a thread there would own every server started below it.
    env = {**codex_env(codex_home), "HOME": str(workspace)}
    bridge = bridge_factory(name="home-root", env=env,
                            args=["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)])
    port, _ = dev_servers("http", workspace / "project")
    ws, at_home = await thread_in(bridge, model, workspace)
    listed = await request(ws, "listPreviews", threadId=at_home)
    assert listed["kind"] == "error" and "home" in listed["message"], listed
    refused = await request(ws, "openPreview", threadId=at_home, port=port)
    assert refused["kind"] == "error", refused
    # The project's own thread has it.
    _, in_project = await thread_in(bridge, model, workspace / "project")
    listed = await request(ws, "listPreviews", threadId=in_project)
    assert [s["port"] for s in listed["servers"]] == [port], listed


async def test_a_linked_bridges_preview_answer_never_reaches_the_phone(codex_bridge):
    fake = FakeBridge(name="fake").start()
    fake.threads = [{"threadId": "fake-thread", "cwd": "/srv/app", "preview": "x", "status": "idle", "updatedAt": 1}]
    fake.answers["openPreview"] = {
        "kind": "preview", "threadId": "fake-thread", "port": 5173, "expiresAt": time.time() + 100,
        "url": f"http://127.0.0.1:{codex_bridge.port}/#pair=v1&code=EVIL-CODE&id=evil&name=evil",
        "ticket": "x#pair=v1&code=EVIL"}
    try:
        linked = json.loads(run_cli("machines", "add", fake.pairing_url, "--json", state_dir=codex_bridge.state_dir,
                                    check=True).stdout)
        fake.wait_connections(2)
        deadline = time.monotonic() + 20
        while True:
            phone, ack = await hello(codex_bridge, extra={"fleet": True})
            if any(m["id"] == linked["id"] and m["state"] == "online" for m in ack.get("machines", [])):
                break
            await phone.close()
            assert time.monotonic() < deadline, ack
            await asyncio.sleep(0.2)
        listed = await request(phone, "listThreads")
        assert "fake-thread" in [t["threadId"] for t in listed["threads"]], listed
        answer = await request(phone, "openPreview", threadId="fake-thread", port=5173)
        assert answer["kind"] == "error" and answer.get("machine") == linked["id"], answer
        assert "#pair" not in json.dumps(answer) and "EVIL" not in json.dumps(answer), answer
        assert "openPreview" not in [r["kind"] for r in fake.requests]
    finally:
        fake.stop()

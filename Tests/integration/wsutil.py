"""Small helpers over the Python `websockets` client (an implementation independent of ours)."""
import asyncio
import json

import websockets


async def connect(bridge_or_url, **kwargs):
    url = bridge_or_url if isinstance(bridge_or_url, str) else bridge_or_url.url
    return await websockets.connect(url, open_timeout=10, max_size=None, **kwargs)


async def send(ws, obj):
    await ws.send(json.dumps(obj))


async def recv(ws, timeout=10.0):
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def recv_kind(ws, kind, timeout=10.0):
    """Receives frames until one of `kind` arrives; returns it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await recv(ws, max(0.01, deadline - loop.time()))
        if msg.get("kind") == kind:
            return msg


async def hello(bridge_or_url, token=None, version=1, extra=None, **kwargs):
    """Connects and completes the handshake; returns (ws, helloAck)."""
    ws = await connect(bridge_or_url, **kwargs)
    frame = {"kind": "hello", "version": version}
    if token is None and not isinstance(bridge_or_url, str):
        token = bridge_or_url.token
    if token:
        frame["token"] = token
    if extra:
        frame.update(extra)
    await send(ws, frame)
    ack = await recv(ws)
    assert ack["kind"] == "helloAck", ack
    return ws, ack


async def expect_close(ws, timeout=10.0):
    """Reads until the server closes; returns (code, reason)."""
    try:
        while True:
            await asyncio.wait_for(ws.recv(), timeout)
    except websockets.ConnectionClosed as closed:
        return (closed.rcvd.code if closed.rcvd else None, closed.rcvd.reason if closed.rcvd else None)

"""A hostile linked bridge for the fleet's tests: speaks just enough of the protocol to be linked (pairing, the
link's hello, subscribe, listThreads), then sends what the test tells it to, on 127.0.0.1 only."""
import asyncio
import json
import threading

import websockets


class FakeBridge:
    def __init__(self, name="fake", server_id="fake-bridge-id"):
        self.name = name
        self.server_id = server_id
        self.port = None
        self.threads = []
        self.connections = 0
        self.requests = []
        self.answers = {}  # request kind -> the answer frame to send (its id is the request's)
        self._ws = None
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        assert self._ready.wait(10)
        return self

    @property
    def pairing_url(self):
        return f"http://127.0.0.1:{self.port}/#pair=v1&code=FAKE-CODE-1234&id={self.server_id}&name=fake"

    def send(self, frame):
        """Sends a frame (a dict, or a str sent as is) on the link's current connection."""
        text = frame if isinstance(frame, str) else json.dumps(frame)
        try:
            asyncio.run_coroutine_threadsafe(self._ws.send(text), self._loop).result(10)
        except websockets.ConnectionClosed:
            pass  # the link closed it (e.g. 1009 for a frame too large): what the test wants to see

    def wait_connections(self, count, timeout=15):
        import time
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.connections >= count and self._ws is not None:
                return
            time.sleep(0.05)
        raise AssertionError(f"{self.connections} connections, wanted {count}")

    def stop(self):
        self._loop.call_soon_threadsafe(self._loop.stop)

    def _run(self):
        asyncio.set_event_loop(self._loop)

        async def main():
            server = await websockets.serve(self._handle, "127.0.0.1", 0, max_size=None)
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await asyncio.Future()

        try:
            self._loop.run_until_complete(main())
        except RuntimeError:
            pass

    async def _handle(self, ws):
        hello = json.loads(await ws.recv())
        ack = {"kind": "helloAck", "version": 1, "ok": True, "versions": [1], "lastSeq": 0, "deviceId": "link-device",
               "server": {"id": self.server_id, "name": self.name, "version": "0"}, "restoredSubscriptions": []}
        if hello.get("token") == "FAKE-CODE-1234":
            ack["deviceToken"] = "fake-device-token"
        await ws.send(json.dumps(ack))
        self.connections += 1
        self._ws = ws
        try:
            async for text in ws:
                await self._answer(ws, json.loads(text))
        except websockets.ConnectionClosed:
            pass

    async def _answer(self, ws, msg):
        self.requests.append(msg)
        if msg["kind"] == "subscribe":
            await ws.send(json.dumps({"kind": "subscribed", "id": msg["id"], "threadId": msg["threadId"]}))
        elif msg["kind"] == "listThreads":
            await ws.send(json.dumps({"kind": "threads", "id": msg["id"], "threads": self.threads}))
        elif msg["kind"] in self.answers:
            await ws.send(json.dumps({**self.answers[msg["kind"]], "id": msg["id"]}))
        elif msg["kind"] != "ack":
            await ws.send(json.dumps({"kind": "error", "id": msg.get("id"), "code": "not_found", "message": "fake"}))

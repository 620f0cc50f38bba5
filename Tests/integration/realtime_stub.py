"""A stand-in for OpenAI's realtime endpoint on 127.0.0.1, for the real codex's `thread/realtime/*` (voice, issue 47).

Two endpoints, as codex reaches them (codex 0.163: `experimental_realtime_ws_base_url` and
`experimental_realtime_webrtc_call_base_url`, see `codex_args`):

- a WebSocket speaking the realtime events codex parses (its default, v2): `session.updated` once codex sends its `session.update`,
  then whatever the test scripts: finished transcripts of either side (`say`), the model's audio (`speak`), an
  `error`, or closing the socket. Everything codex sends is kept (`received`), e.g. `input_audio_buffer.append`.
- the WebRTC call endpoint (`POST /v1/realtime/calls`): the SDP offer codex relays (multipart, with the session), and
  as answer a real SDP answer from an aiortc peer (`Location: …/rtc_<id>`); codex then joins the call with a
  sideband WebSocket (the same endpoint as above, with `call_id`).

ICE candidates are limited to 127.0.0.1 (`loopback_only`): a peer that connects does so on loopback only.
"""
import asyncio
import base64
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import aioice.ice
import websockets
from aiortc import RTCPeerConnection, RTCSessionDescription


def loopback_only() -> None:
    """aiortc gathers host candidates on 127.0.0.1 only (tests talk only to loopback)."""
    aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"] if use_ipv4 else []


async def answer_offer(offer_sdp: str) -> str:
    """A real SDP answer to `offer_sdp` from an aiortc peer (closed again at once: nothing is exchanged)."""
    loopback_only()
    pc = RTCPeerConnection()
    try:
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer_sdp, type="offer"))
        for transceiver in pc.getTransceivers():
            transceiver.direction = "sendrecv" if transceiver.kind == "audio" else transceiver.direction
        await pc.setLocalDescription(await pc.createAnswer())
        return pc.localDescription.sdp
    finally:
        await pc.close()


async def make_offer() -> str:
    """A phone's offer, as a browser makes it for Codex's realtime: an audio track and the `oai-events` channel."""
    loopback_only()
    pc = RTCPeerConnection()
    try:
        pc.addTransceiver("audio", direction="sendrecv")
        pc.createDataChannel("oai-events")
        await pc.setLocalDescription(await pc.createOffer())
        return pc.localDescription.sdp
    finally:
        await pc.close()


class RealtimeStub:
    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.received = []          # every JSON message codex sent on any socket, in order
        self.connections = []       # (path, websocket) of every socket codex opened
        self.closed = 0             # sockets that ended
        self.calls = []             # {"path", "body"} of every WebRTC call codex created
        self.answers = []           # the SDP answers given
        self.refuse_calls = False   # answer the call endpoint with an error instead
        self.answer_audio = None    # PCM bytes: the model's audio sent back at once for each input_audio_buffer.append
        self._lock = threading.RLock()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._ws = None
        self._http = None

    # ---- lifecycle
    def start(self) -> "RealtimeStub":
        self._thread.start()
        async def serve():
            return await websockets.serve(self._serve, "127.0.0.1", 0, max_size=None)
        self._ws = asyncio.run_coroutine_threadsafe(serve(), self.loop).result(10)
        stub = self

        class Handler(_CallHandler):
            owner = stub
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._http:
            self._http.shutdown()
            self._http.server_close()
        if self._ws:
            self._ws.close()
            asyncio.run_coroutine_threadsafe(self._ws.wait_closed(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)

    @property
    def ws_port(self) -> int:
        return self._ws.sockets[0].getsockname()[1]

    @property
    def http_port(self) -> int:
        return self._http.server_address[1]

    def codex_args(self) -> list:
        """`-c` arguments pointing codex's realtime at this stub."""
        return ["-c", f'experimental_realtime_ws_base_url="http://127.0.0.1:{self.ws_port}"',
                "-c", f'experimental_realtime_webrtc_call_base_url="http://127.0.0.1:{self.http_port}/v1"']

    # ---- the socket
    async def _serve(self, websocket):
        with self._lock:
            self.connections.append((websocket.request.path, websocket))
        try:
            async for raw in websocket:
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                with self._lock:
                    self.received.append(message)
                if message.get("type") == "input_audio_buffer.append" and self.answer_audio:
                    # A model that answers the instant the speech ends: what is left of the latency is codex's and
                    # the bridge's (Benchmarks/voice_bench.py).
                    await websocket.send(json.dumps(self._audio_delta(self.answer_audio)))
                if message.get("type") == "session.update":
                    session = dict(message.get("session") or {})
                    session.setdefault("id", "sess_" + uuid.uuid4().hex[:8])
                    await websocket.send(json.dumps({"type": "session.updated", "session": session}))
        except websockets.ConnectionClosed:
            pass
        finally:
            with self._lock:
                self.closed += 1

    def _send(self, event: dict) -> None:
        with self._lock:
            if not self.connections:
                raise AssertionError("codex has not connected to the realtime endpoint")
            websocket = self.connections[-1][1]
        asyncio.run_coroutine_threadsafe(websocket.send(json.dumps(event)), self.loop).result(10)

    def say(self, user: str = None, assistant: str = None) -> None:
        """Finished transcripts: what the person said (input audio transcription), what the model said."""
        if user is not None:
            self._send({"type": "conversation.item.input_audio_transcription.completed", "item_id": "item_u",
                        "content_index": 0, "transcript": user})
        if assistant is not None:
            self._send({"type": "response.output_audio_transcript.done", "item_id": "item_a", "output_index": 0,
                        "content_index": 0, "transcript": assistant})

    @staticmethod
    def _audio_delta(pcm: bytes) -> dict:
        return {"type": "response.output_audio.delta", "item_id": "item_a", "delta": base64.b64encode(pcm).decode(),
                "sample_rate": 24000, "channels": 1, "samples_per_channel": len(pcm) // 2}

    def speak(self, pcm: bytes) -> None:
        """The model's audio: 16-bit PCM, mono, 24 kHz."""
        self._send(self._audio_delta(pcm))

    def hand_off(self, text: str, call_id: str = "call_voice_1") -> None:
        """The model hands work to Codex's agent (its `background_agent` tool): codex runs it as a turn."""
        self._send({"type": "conversation.item.done", "item": {
            "id": "item_" + call_id, "type": "function_call", "name": "background_agent", "call_id": call_id,
            "arguments": json.dumps({"input_transcript": text})}})

    def fail(self, message: str) -> None:
        self._send({"type": "error", "error": {"type": "server_error", "message": message}})

    def hang_up(self) -> None:
        with self._lock:
            websocket = self.connections[-1][1]
        asyncio.run_coroutine_threadsafe(websocket.close(), self.loop).result(10)

    # ---- waiting
    def wait(self, predicate, timeout: float = 15.0, what: str = "the realtime stub"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                value = predicate(self)
            if value:
                return value
            time.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}")

    def open_sockets(self) -> int:
        with self._lock:
            return len(self.connections) - self.closed

    def of_type(self, kind: str) -> list:
        with self._lock:
            return [m for m in self.received if m.get("type") == kind]


class _CallHandler(BaseHTTPRequestHandler):
    owner: RealtimeStub

    def log_message(self, format, *args):  # quiet
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode(errors="replace")
        self.owner.calls.append({"path": self.path, "body": body, "contentType": self.headers.get("Content-Type")})
        if self.owner.refuse_calls or not self.path.split("?")[0].endswith("/realtime/calls"):
            return self._reply(400 if self.owner.refuse_calls else 404,
                               json.dumps({"error": {"message": "the call was refused"}}).encode(), "application/json")
        offer = _sdp_part(body, self.headers.get("Content-Type") or "")
        answer = asyncio.run_coroutine_threadsafe(answer_offer(offer), self.owner.loop).result(20)
        self.owner.answers.append(answer)
        call_id = "rtc_" + uuid.uuid4().hex[:12]
        self._reply(201, answer.encode(), "application/sdp", {"Location": f"/v1/realtime/calls/{call_id}"})

    def _reply(self, status: int, body: bytes, content_type: str, headers: dict = None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


def _sdp_part(body: str, content_type: str) -> str:
    """The offer from codex's call request: raw `application/sdp`, or the `sdp` part of its multipart form."""
    match = re.search(r"boundary=([^;]+)", content_type)
    if not match:
        return body
    for part in body.split("--" + match.group(1)):
        head, _, rest = part.partition("\r\n\r\n")
        if 'name="sdp"' in head:
            return rest.rstrip("\r\n")
    return body

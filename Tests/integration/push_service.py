"""A Web Push service on 127.0.0.1 for the tests, checking what a real one checks: the VAPID JWT (ES256 signature
against the bridge's pushPublicKey, aud = this origin, exp within 12 hours), the headers, and that the body
decrypts (RFC 8291 aes128gcm, with `http_ece` and the subscription keys the test made). Answers from a script
of statuses (default 201)."""
from __future__ import annotations

import base64
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Subscriber:
    """A browser's side of a subscription: a P-256 key pair and an auth secret."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    @property
    def p256dh(self) -> str:
        return b64url(self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))

    def subscription(self, endpoint: str) -> dict:
        return {"endpoint": endpoint, "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)}}

    def decrypt(self, body: bytes) -> dict:
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


def verify_vapid(authorization: str, public_key_b64: str, audience: str) -> dict:
    """Checks `vapid t=JWT, k=KEY` like a push service; returns the claims."""
    assert authorization.startswith("vapid "), authorization
    fields = dict(part.strip().split("=", 1) for part in authorization[len("vapid "):].split(","))
    assert fields["k"] == public_key_b64, "k is not the bridge's pushPublicKey"
    header_b64, claims_b64, signature_b64 = fields["t"].split(".")
    header = json.loads(unb64url(header_b64))
    assert header["alg"] == "ES256" and header.get("typ") == "JWT", header
    signature = unb64url(signature_b64)
    assert len(signature) == 64
    der = utils.encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key_b64))
    public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    claims = json.loads(unb64url(claims_b64))
    assert claims["aud"] == audience, claims
    now = time.time()
    assert now < claims["exp"] <= now + 12 * 3600 + 5, claims
    assert claims["sub"].startswith(("mailto:", "https://")), claims
    return claims


class PushService:
    def __init__(self):
        self.requests = []  # dicts: path, headers, body, status
        self.statuses = []  # scripted answers: (status, extra headers); then 201
        self.lock = threading.Lock()
        self.server = None

    def start(self) -> "PushService":
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with service.lock:
                    status, extra = service.statuses.pop(0) if service.statuses else (201, {})
                    service.requests.append({"path": self.path, "headers": dict(self.headers.items()), "body": body,
                                             "status": status, "at": time.monotonic()})
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def script(self, *answers):
        with self.lock:
            self.statuses.extend(answers)

    def seen(self, path=None) -> list:
        with self.lock:
            return [r for r in self.requests if path is None or r["path"] == path]

    def wait(self, count: int, path=None, timeout: float = 30.0) -> list:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.seen(path)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(f"expected {count} pushes to {path}, saw {len(self.seen(path))}")

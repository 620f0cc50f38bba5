"""Issue 22 findings 7 and 8: every answer carries the security headers (Hummingbird's own 404/405 included) and
authenticated answers `Cache-Control: no-store`; bad bearer tokens on POST /push/action count towards the
per-address limit. Against the real binary on 127.0.0.1."""
import json
import urllib.error
import urllib.request


def fetch(bridge, path, method="GET", headers=None, data=None):
    req = urllib.request.Request(f"http://127.0.0.1:{bridge.port}{path}", method=method, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, res.headers, res.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def test_every_answer_carries_the_security_headers_and_credentials_are_never_cached(bridge):
    """Seen failing before the fix: the 404 of `GET /a/b/c` and the answer to `POST /` had no
    Content-Security-Policy, and `/metrics` had no Cache-Control."""
    for method, path in (("GET", "/a/b/c"), ("POST", "/"), ("GET", "/healthz"), ("GET", "/"), ("DELETE", "/uploads")):
        status, headers, _ = fetch(bridge, path, method=method)
        assert headers.get("Content-Security-Policy", "").startswith("default-src 'self'"), (method, path, status, dict(headers))
        assert headers.get("X-Content-Type-Options") == "nosniff", (method, path)
        assert headers.get("X-Frame-Options") == "DENY", (method, path)
        assert headers.get("Referrer-Policy") == "no-referrer", (method, path)
    status, headers, _ = fetch(bridge, "/metrics", headers={"Authorization": f"Bearer {bridge.token}"})
    assert status == 200 and headers.get("Cache-Control") == "no-store", dict(headers)
    status, headers, _ = fetch(bridge, "/a/b/c", headers={"Authorization": f"Bearer {bridge.token}"})
    assert status == 404 and headers.get("Cache-Control") == "no-store"
    # The web app's own assets keep their caching (revalidated by ETag).
    assert fetch(bridge, "/app.js")[1].get("Cache-Control") == "no-cache"


def test_bad_bearer_tokens_on_push_action_count_towards_the_address_limit(bridge):
    """Seen failing before the fix: any number of bad device tokens got 403, never 429."""
    body = json.dumps({"token": "x" * 43, "decision": "accept"}).encode()
    statuses = [fetch(bridge, "/push/action", method="POST", data=body,
                      headers={"Content-Type": "application/json", "Authorization": f"Bearer bad-{n}"})[0] for n in range(7)]
    assert statuses[:5] == [403] * 5 and statuses[-1] == 429, statuses
    # The limit is the address's: the shared secret still works (valid credentials are never throttled).
    assert fetch(bridge, "/metrics", headers={"Authorization": f"Bearer {bridge.token}"})[0] == 200

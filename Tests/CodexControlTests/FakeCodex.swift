import Foundation

/// A fake `codex app-server` (Python) for fault injection, written to a temp dir at test time.
///
/// Modes (`FAKE_CODEX_MODE`): `normal`; `crash-mid-turn` (the first start exits with status 3 right after
/// answering `turn/start`); `hang` (answers `initialize`, then nothing). Any mode: `test/flood {count}` emits
/// `count` notifications `flood {i}` then answers; `test/approval` sends a server request
/// `item/commandExecution/requestApproval` (id "approval-7") and, once answered, notifies
/// `test/approvalAnswered {answer}`.
enum FakeCodex {
    static func install(in directory: URL, mode: String) throws -> String {
        let path = directory.appendingPathComponent("fake-codex-\(mode)").path
        let starts = directory.appendingPathComponent("fake-codex-starts").path
        let source = """
            #!/usr/bin/env python3
            import json, os, sys
            MODE = \(Self.pythonString(mode))
            STARTS = \(Self.pythonString(starts))
            n = int(open(STARTS).read()) + 1 if os.path.exists(STARTS) else 1
            open(STARTS, "w").write(str(n))
            # Styled as the real codex styles its log lines, even into a pipe.
            print(f"\\x1b[2m2026-01-01T00:00:00Z\\x1b[0m \\x1b[32m INFO\\x1b[0m fake codex start {n} mode {MODE}", file=sys.stderr, flush=True)
            out = sys.stdout
            def send(obj):
                out.write(json.dumps(obj) + "\\n")
                out.flush()
            for line in sys.stdin:
                msg = json.loads(line)
                method, mid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
                if method is None:
                    if mid == "approval-7":
                        send({"method": "test/approvalAnswered", "params": {"answer": msg.get("result")}})
                    continue
                if mid is None:
                    continue
                if method == "initialize":
                    send({"id": mid, "result": {"userAgent": "fake-codex/0", "platformOs": "linux"}})
                    continue
                if MODE == "hang":
                    continue
                if method == "thread/start":
                    send({"id": mid, "result": {"thread": {"id": f"thread-{n}"}}})
                    send({"method": "thread/started", "params": {"thread": {"id": f"thread-{n}"}}})
                elif method == "turn/start":
                    send({"id": mid, "result": {"turn": {"id": "turn-1", "status": "inProgress"}}})
                    send({"method": "turn/started", "params": {"threadId": params.get("threadId"), "turn": {"id": "turn-1"}}})
                    if MODE == "crash-mid-turn" and n == 1:
                        sys.exit(3)
                elif method == "test/flood":
                    count = int(params.get("count", 0))
                    for start in range(0, count, 1000):
                        out.write("".join(json.dumps({"method": "flood", "params": {"i": i}}) + "\\n"
                                          for i in range(start, min(count, start + 1000))))
                    out.flush()
                    send({"id": mid, "result": {"sent": count}})
                elif method == "test/approval":
                    send({"id": "approval-7", "method": "item/commandExecution/requestApproval",
                          "params": {"threadId": "t", "turnId": "u", "itemId": "i", "command": "touch x"}})
                    send({"id": mid, "result": {}})
                elif method == "test/error":
                    send({"id": mid, "error": {"code": -32001, "message": "overloaded"}})
                else:
                    send({"id": mid, "result": {}})
            """
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    private static func pythonString(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

import BridgeOps
import Foundation
import Logging
import Testing

@Suite struct JSONLogHandlerTests {
    @Test func oneObjectPerLineWithMetadata() throws {
        let line = JSONLogHandler.line(
            date: Date(timeIntervalSince1970: 0), level: .notice, label: "codex-bridge", message: "Listening", source: "BridgeServer",
            metadata: ["bridge.listen.port": "9099", "bridge.connection.id": .stringConvertible(7), "bridge.device.token": "s3cret"])
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().contains("\n") == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "notice")
        #expect(object["label"] as? String == "codex-bridge")
        #expect(object["message"] as? String == "Listening")
        #expect(object["bridge.listen.port"] as? String == "9099")
        #expect(object["bridge.connection.id"] as? String == "7")
        #expect(object["bridge.device.token"] as? String == "<redacted>")
        #expect((object["ts"] as? String)?.hasPrefix("1970-01-01T00:00:00") == true)
    }

    @Test func handlerMergesLoggerAndEventMetadata() throws {
        let lines = LockedLines()
        var handler = JSONLogHandler(label: "t", write: { lines.append($0) })
        handler[metadataKey: "bridge.connection.id"] = "3"
        var logger = Logger(label: "t", factory: { _ in handler })
        logger.logLevel = .debug
        logger.info("hello", metadata: ["bridge.thread.id": "th1"])
        let first = try #require(lines.all.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(object["bridge.connection.id"] as? String == "3")
        #expect(object["bridge.thread.id"] as? String == "th1")
    }
}

final class LockedLines: @unchecked Sendable {
    // Safe: every access holds the lock.
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

@Suite struct StatusReportTests {
    @Test func jsonKeepsNullsAndExitCodes() throws {
        let report = StatusReport(
            running: false, version: "0.1.0", stateDirectory: "/s", server: nil, tls: false, fingerprint: nil, mdns: "off",
            codex: .init(path: nil, version: nil, loggedIn: nil), devices: 0, connections: nil, runningThreads: nil)
        #expect(report.exitCode == 3)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try report.json().utf8)) as? [String: Any])
        for key in ["running", "version", "server", "tls", "fingerprint", "mdns", "codex", "devices", "connections", "runningThreads"] {
            #expect(object.keys.contains(key), "\(key)")
        }
        #expect(object["fingerprint"] is NSNull)
        #expect(report.text.contains("not running"))
    }

    @Test func prometheusValues() {
        let text = """
            # TYPE codex_bridge_handshakes_total counter
            codex_bridge_handshakes_total{result="ok"} 2
            codex_bridge_handshakes_total{result="unauthorized"} 1
            codex_bridge_connections 3
            """
        #expect(PrometheusText.value(of: "codex_bridge_handshakes_total", labels: #"result="unauthorized""#, in: text) == 1)
        #expect(PrometheusText.value(of: "codex_bridge_connections", in: text) == 3)
        #expect(PrometheusText.value(of: "codex_bridge_missing", in: text) == nil)
    }

    @Test func loopbackGetWithNothingListening() async {
        // Port 1 on loopback: refused at once (or never answers); either way nil within the deadline.
        #expect(await LoopbackHTTP.get(port: 1, path: "/healthz", timeout: .milliseconds(500)) == nil)
        #expect(
            await LoopbackHTTP.get(port: 1, path: "/healthz", pin: String(repeating: "0", count: 64), timeout: .milliseconds(500)) == nil)
    }

    @Test func commandRunnerTimesOutAndJoinsStandardError() async {
        // A child that would run for a minute: only the deadline ends it in time (a starved test pool, seen on a
        // loaded 2-core machine, delayed the deadline by seconds; `sleep 5` then ended by itself first).
        let outcome = await CommandRunner().run("sleep", ["60"], timeout: .milliseconds(200))
        #expect(outcome.timedOut)
        #expect(await CommandRunner().run("true", []).succeeded)
        #expect(await CommandRunner().run("definitely-not-a-command-xyz", []).status == nil)
        let both = await CommandRunner().run("sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(both.status == 3)
        #expect(both.output == "out\nerr")
    }
}

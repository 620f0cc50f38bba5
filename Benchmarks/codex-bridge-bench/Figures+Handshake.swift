import Foundation
import NIOCore

// MARK: P1 handshake

extension Figures {
    /// P1: sequential handshakes by the lean client (blocking sockets, one connection at a time) against the bridge
    /// (shared secret, and a paired device's token), the bridge's echo stack and the peer, with the client's own cost
    /// (a bare TCP connect + echo) beside them; `repeats` rounds, every side measured once per round, interleaved, so
    /// that a change of the machine's load moves all sides of a ratio together. Then 200 concurrent handshakes
    /// with the NIO client, once.
    mutating func handshake() throws {
        let repeats = options.repeats ?? (options.quick ? 1 : 3)
        let n = options.quick ? 200 : 2000
        // The default log level, as a user runs it (one `info` line per handshake is part of the cost).
        let bridge = try ServerProcess.bridge(options, name: "p1-bridge", logLevel: nil)
        defer { bridge.stop() }
        let deviceToken = try Self.pairDevice(port: bridge.port, secret: bridge.token)
        let peer = try? ServerProcess.peer(options, name: "p1-peer")
        defer { peer?.stop() }
        let floor = try ServerProcess.frameworkEcho(options, name: "p1-echo")
        defer { floor?.stop() }
        let tcp = try LeanEchoServer()
        defer { tcp.stop() }

        let secretHello = LeanHandshake.bridge(port: bridge.port, token: bridge.token)
        let deviceHello = LeanHandshake.bridge(port: bridge.port, token: deviceToken)
        var sides: [(name: String, once: () throws -> UInt64)] = [
            ("bridge", { try LeanClient.handshake(secretHello) }), ("device", { try LeanClient.handshake(deviceHello) }),
        ]
        if let floor {
            let shape = LeanHandshake(port: floor.port, first: Client.hello("floor"), answerContains: "hello")
            sides.append(("echo", { try LeanClient.handshake(shape) }))
        }
        if let peer {
            let shape = LeanHandshake(
                port: peer.port, headers: [("Authorization", "Bearer \(peer.token)")], first: Client.initialize,
                answerContains: #""id":1"#)
            sides.append(("peer", { try LeanClient.handshake(shape) }))
        }
        sides.append(("client", { try LeanClient.echo(port: tcp.port) }))

        var runs: [String: [Percentiles]] = [:]
        var loads: [Double] = []
        let began = Date()
        for round in 0..<repeats {
            loads.append(Self.loadAverage())
            for side in sides {
                // Warm-up: pages code in on both sides and lets the server's allocator settle.
                for _ in 0..<50 { _ = try side.once() }
                var samples: [Double] = []
                samples.reserveCapacity(n)
                for _ in 0..<n { samples.append(Double(try side.once()) / 1e6) }
                runs[side.name, default: []].append(Percentiles(samples))
            }
            log("P1 run \(round + 1)/\(repeats): " + sides.map { "\($0.name) \(runs[$0.name]!.last!.p50)" }.joined(separator: ", "))
        }
        loads.append(Self.loadAverage())
        let seconds = Date().timeIntervalSince(began)

        let group = self.group
        let oursConc = Percentiles(
            try Client.handshakes(count: 200, concurrency: 200, seconds: 20) { Client.bridge(group: group, server: bridge) }.latencies)
        let peerConc = try peer.map { server in
            Percentiles(
                try Client.handshakes(count: 200, concurrency: 200, seconds: 20) { Client.peer(group: group, server: server) }.latencies)
        }
        log("P1 conc ours \(oursConc) peer \(String(describing: peerConc))")

        addHandshakeRows(runs: runs, n: n, repeats: repeats)
        report.add(
            "P1 handshake, 200 concurrent (NIO client), p50 / p99", ours: String(format: "%.2f / %.2f ms", oursConc.p50, oursConc.p99),
            peer: peerConc.map { String(format: "%.2f / %.2f ms", $0.p50, $0.p99) } ?? "n/a", ratio: ratioText(oursConc.p50, peerConc?.p50),
            target: "(reported)", met: nil)
        let load = loads.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        report.note(
            "P1",
            "The lean client (`LeanClient`: blocking sockets, no event loop, one connection at a time; every byte it sends is built before the clock starts) "
                + "times connect + HTTP upgrade + first message → first answer, then closes the socket; \(n) handshakes per side per run (after 50 to warm up), "
                + "\(repeats) run\(repeats == 1 ? "" : "s"), the sides interleaved in each (\(String(format: "%.0f", seconds)) s in all); each cell is min / median / max over the runs of that run's p50 (or p99), "
                + "and a ratio is the median of the runs' ratios, each run's ratio comparing figures taken a few seconds apart. Load average (1 min) before each run and after the last: \(load). "
                + "Bridge: `codex-bridge serve` at its default log level, `hello` with the shared secret, or with a paired device's token (paired once before the runs), → `helloAck`. "
                + "Peer: `codex app-server --listen` with `--ws-auth capability-token` (Bearer upgrade + `initialize` round trip)\(peer == nil ? " (not available in this run)" : ""). "
                + "Echo stack: `codex-bridge-echo`, the bridge's own server and WebSocket endpoint with every message echoed (`EchoConnectionHandler`) instead of going to the hub, echoing the same hello frame\(floor == nil ? " (not built for this run)" : ""). "
                + "Client: the lean client's own cost, a bare TCP connect + one 100-byte echo against a blocking echo server in the bench process (what every side's figure includes). "
                + "200 concurrent: the bench's NIO client, once."
        )
    }

    private mutating func addHandshakeRows(runs: [String: [Percentiles]], n: Int, repeats: Int) {
        func spread(_ values: [Double]) -> String {
            let s = values.sorted()
            return String(format: "%.3f / %.3f / %.3f ms", s.first ?? .nan, median(s), s.last ?? .nan)
        }
        func p50s(_ side: String) -> [Double] { runs[side]?.map(\.p50) ?? [] }
        func p99s(_ side: String) -> [Double] { runs[side]?.map(\.p99) ?? [] }
        /// The median of the runs' ratios `side / other` (each run's pair taken seconds apart), and every run's.
        func ratios(_ side: String, _ other: String, _ values: (String) -> [Double] = p50s) -> (Double, String)? {
            let a = values(side)
            let b = values(other)
            guard !a.isEmpty, a.count == b.count else { return nil }
            let each = zip(a, b).map { $0 / $1 }
            return (median(each.sorted()), each.map { String(format: "%.2f", $0) }.joined(separator: ", "))
        }
        let label = "P1 handshake (lean client), \(n) sequential × \(repeats) run\(repeats == 1 ? "" : "s")"
        let peer = runs["peer"] != nil ? spread(p50s("peer")) : "n/a"
        for (side, what) in [("bridge", "shared secret"), ("device", "a paired device's token")] {
            let ratio = ratios(side, "peer")
            report.add(
                "\(label), p50, \(what)", ours: spread(p50s(side)), peer: peer,
                ratio: ratio.map { String(format: "%.2f× peer (runs: %@)", $0.0, $0.1) } ?? "—",
                target: "≤ 0.9× peer (issue 36), goal 0.5×", met: ratio.map { $0.0 <= 0.9 } ?? false)
        }
        let p99 = ratios("bridge", "peer", p99s)
        report.add(
            "\(label), p99, shared secret", ours: spread(p99s("bridge")), peer: runs["peer"] != nil ? spread(p99s("peer")) : "n/a",
            ratio: p99.map { String(format: "%.2f× peer", $0.0) } ?? "—", target: "(reported)", met: nil)
        if let echo = ratios("bridge", "echo") {
            report.add(
                "\(label), p50, the bridge's echo stack", ours: spread(p50s("bridge")), peer: spread(p50s("echo")) + " (echo stack)",
                ratio: String(format: "%.2f× echo (runs: %@)", echo.0, echo.1), target: "(reported)", met: nil)
        }
        if let client = ratios("peer", "client") ?? ratios("bridge", "client") {
            report.add(
                "\(label), p50, the client's own cost (TCP connect + 100-byte echo)", ours: spread(p50s("client")), peer: "—",
                ratio: String(format: "%.2f of the %@'s figure", 1 / client.0, runs["peer"] != nil ? "peer" : "bridge"),
                target: "(reported)", met: nil)
        }
    }

    /// Pairs a device with the shared secret (`pairDevice`, then `hello` with the code) and returns its token; with
    /// the lean client, before any figure is taken.
    static func pairDevice(port: Int, secret: String) throws -> String {
        func payload(_ slice: ArraySlice<UInt8>) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(slice))) as? [String: Any] ?? [:]
        }
        func session(_ first: String, _ needle: String, then: (Int32, inout LeanReader) throws -> String) throws -> String {
            let fd = try LeanClient.connected(port: port)
            defer { close(fd) }
            let shape = LeanHandshake(port: port, first: first, answerContains: needle)
            try LeanClient.send(fd, shape.upgrade)
            var reader = LeanReader(fd: fd)
            guard try reader.headers() == 101 else { throw BenchError("P1: pairing upgrade refused") }
            try LeanClient.send(fd, shape.frame)
            return try then(fd, &reader)
        }
        let code = try session(Client.hello(secret), "helloAck") { fd, reader in
            try reader.message(containing: Array("helloAck".utf8))
            try LeanClient.send(fd, LeanHandshake.maskedText(Array(#"{"kind":"pairDevice","id":"p"}"#.utf8)))
            let answer = payload(try reader.message(containing: Array("pairingCode".utf8)))
            guard let code = answer["code"] as? String else { throw BenchError("P1: no pairing code in \(answer)") }
            return code
        }
        let hello = #"{"kind":"hello","version":1,"token":"\#(code)","device":{"name":"bench","platform":"linux"}}"#
        return try session(hello, "helloAck") { _, reader in
            let ack = payload(try reader.message(containing: Array("helloAck".utf8)))
            guard let token = ack["deviceToken"] as? String else { throw BenchError("P1: no device token in \(ack)") }
            return token
        }
    }

    /// The machine's 1-minute load average (/proc/loadavg).
    static func loadAverage() -> Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return Double(text.split(separator: " ").first ?? "") ?? .nan
    }
}

extension LeanHandshake {
    /// The bridge's: `hello` with `token` → `helloAck`.
    static func bridge(port: Int, token: String) -> LeanHandshake {
        LeanHandshake(port: port, first: Client.hello(token), answerContains: "helloAck")
    }
}

/// The median of sorted values (the mean of the middle two for an even count).
func median(_ sorted: [Double]) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

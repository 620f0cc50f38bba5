import BridgeHub
import BridgeLive
import BridgeProtocol
import Eventually
import Foundation
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import Testing
import WSClient

@testable import BridgeServer

/// The live channel over a real socket: a real `BridgeServer` on 127.0.0.1 and real WebSocket clients (issue 45
/// item 3). The stream is opened by the test on the server's session, as a request handler (voice's
/// `startVoice`) does; the first stream of a connection is stream 1.
@Suite(.timeLimit(.minutes(1))) struct LiveChannelSocketTests {
    static let secret = "live-channel-test-secret-0123456789"
    /// Small frames and marks, so that a slow reader is held after a few frames past the socket's own buffers.
    static let limits = LiveLimits(maxFrame: 16 * 1024, highWater: 64 * 1024, lowWater: 16 * 1024)

    /// Remembers each session the server opens.
    final class Sessions: RequestHandling {
        let opened = Mutex<[ClientSession]>([])
        func sessionOpened(_ session: ClientSession) async -> SessionOpening {
            opened.withLock { $0.append(session) }
            return SessionOpening()
        }
        func sessionReady(_ session: ClientSession) async {}
        func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
            .error(ErrorMessage(id: id, code: .codexUnavailable, message: "none"))
        }
        func acknowledged(_ seq: Int64, session: ClientSession) async {}
        func sessionClosed(_ session: ClientSession) async {}
        func isResponsive() async -> Bool { true }
    }

    final class Produced: Sendable {
        let bytes = Atomic<Int>(0)
    }

    /// Runs a server for `body`, which gets its URL and its sessions.
    static func withServer(_ body: (String, Sessions) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("token")
        _ = FileManager.default.createFile(atPath: secretFile.path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600])
        var configuration = BridgeServerConfiguration(
            host: "127.0.0.1", port: 0, server: ServerInfo(id: "live", name: "live", version: "0"))
        configuration.pingInterval = nil
        configuration.live = limits
        let logger = Logger(label: "live-test")
        let sessions = Sessions()
        let port = Mutex<Int?>(nil)
        let server = BridgeServer(
            configuration: configuration,
            credentials: CredentialCheck(
                sharedSecretFile: secretFile, rateLimiter: AuthRateLimiter(configuration: configuration), logger: logger),
            handler: sessions, logger: logger, onListening: { listening in port.withLock { $0 = listening.port } })
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let listening = try await until("the server listens") { port.withLock { $0 } }
        try await body("ws://127.0.0.1:\(listening)/", sessions)
    }

    /// Waits for `value` to be non-nil (an awaited condition, not a guessed time).
    static func until<Value>(_ what: String, _ value: () -> Value?) async throws -> Value {
        try await eventually(what) { value() }
    }

    static func hello() -> String { #"{"kind":"hello","version":1,"token":"\#(secret)"}"# }

    static func frame(_ type: UInt8, stream: UInt32, _ payload: [UInt8] = []) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt8(1))
        buffer.writeInteger(type)
        buffer.writeInteger(stream, endianness: .big)
        buffer.writeBytes(payload)
        return buffer
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    @Test func bytesGoBothWaysOnAnOpenStreamAndBadFramesGetTheirErrors() async throws {
        try await Self.withServer { url, sessions in
            let sent = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try await WebSocketClient.connect(url: url, logger: Logger(label: "client")) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                try await outbound.write(.text(Self.hello()))
                guard case .text(let ackText) = try await messages.next() else { throw CancellationError() }
                let live = Self.json(ackText)["live"] as? [String: Int]
                #expect(live == ["version": 1, "maxFrame": 16384, "highWater": 65536, "lowWater": 16384])
                let session = try await Self.until("the session") { sessions.opened.withLock { $0.first } }
                let stream = try #require(session.live?.open())
                #expect(stream.id == 1)

                // Bridge → client: split into frames of at most maxFrame, in order.
                let producer = Task { try await stream.send(ByteBuffer(bytes: sent)) }
                var received: [UInt8] = []
                while received.count < sent.count {
                    guard case .binary(var frame) = try await messages.next() else { throw CancellationError() }
                    #expect(frame.readableBytes <= 16384)
                    #expect(frame.readBytes(length: 6) == [1, 0, 0, 0, 0, 1])
                    received += frame.readBytes(length: frame.readableBytes) ?? []
                }
                try await producer.value
                #expect(received == sent)

                // Client → bridge.
                var reader = stream.received.makeAsyncIterator()
                try await outbound.write(.binary(Self.frame(0, stream: 1, [1, 2, 3])))
                let first = await reader.next()
                #expect(first.map { Array($0.readableBytesView) } == [1, 2, 3])

                // A stream never given, a frame over maxFrame, a short one: text errors; the connection stays.
                try await outbound.write(.binary(Self.frame(0, stream: 9, [1])))
                try await outbound.write(.binary(Self.frame(0, stream: 1, [UInt8](repeating: 0, count: 16384))))
                try await outbound.write(.binary(ByteBuffer(bytes: [1, 0, 0])))
                var errors: [[String: Any]] = []
                while errors.count < 3 {
                    guard case .text(let text) = try await messages.next() else { throw CancellationError() }
                    errors.append(Self.json(text))
                }
                #expect(errors.map { $0["code"] as? String } == ["unknown_stream", "too_large", "bad_request"])
                #expect(errors.map { $0["streamId"] as? Int } == [9, 1, nil])

                // The client pauses the bridge: the producer waits for its resume (a ping's round trip meanwhile
                // comes back before any data).
                try await outbound.write(.binary(Self.frame(1, stream: 1)))
                try await outbound.write(.text(#"{"kind":"ping","nonce":"paused"}"#))
                guard case .text = try await messages.next() else { throw CancellationError() }
                let waiting = Task { try await stream.send(ByteBuffer(bytes: [5])) }
                try await outbound.write(.text(#"{"kind":"ping","nonce":"still paused"}"#))
                guard case .text(let stillPaused) = try await messages.next() else {
                    Issue.record("data came while the stream was paused")
                    throw CancellationError()
                }
                #expect(Self.json(stillPaused)["nonce"] as? String == "still paused")
                try await outbound.write(.binary(Self.frame(2, stream: 1)))
                guard case .binary(let resumed) = try await messages.next() else { throw CancellationError() }
                #expect(Array(resumed.readableBytesView) == [1, 0, 0, 0, 0, 1, 5])
                try await waiting.value

                // The client ends the stream: the reader finishes, the producer sees it ended.
                try await outbound.write(.binary(Self.frame(3, stream: 1)))
                let last = await reader.next()
                #expect(last == nil)
                await #expect(throws: LiveStreamEnded.self) { try await stream.send(ByteBuffer(bytes: [1])) }
                try await outbound.write(.text(#"{"kind":"ping","nonce":"still open"}"#))
                guard case .text(let pong) = try await messages.next() else { throw CancellationError() }
                #expect(Self.json(pong)["nonce"] as? String == "still open")
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test func aBinaryFrameBeforeHelloCloses1008() async throws {
        try await Self.withServer { url, sessions in
            let close = try await WebSocketClient.connect(url: url, logger: Logger(label: "client")) { inbound, outbound, _ in
                try await outbound.write(.binary(Self.frame(0, stream: 1, [1])))
                for try await _ in inbound.messages(maxSize: 1 << 20) {}
            }
            #expect(close?.closeCode == .policyViolation)
            #expect(sessions.opened.withLock { $0.isEmpty })
        }
    }

    /// A client that does not read holds the producer at the high mark (the bridge's memory for it stays
    /// bounded), another client is served meanwhile, and everything arrives once it reads again. Also the
    /// figure: bytes per second through the live channel to a client that reads.
    @Test func aSlowReaderPausesTheProducerAndOthersAreUnaffected() async throws {
        try await Self.withServer { url, sessions in
            let total = 64 << 20
            let chunk = ByteBuffer(repeating: 7, count: 16 * 1024 - 6)
            let produced = Produced()
            try await WebSocketClient.connect(url: url, logger: Logger(label: "slow")) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                try await outbound.write(.text(Self.hello()))
                _ = try await messages.next()
                let session = try await Self.until("the session") { sessions.opened.withLock { $0.first } }
                let live = try #require(session.live)
                let stream = try #require(live.open())
                let producer = Task {
                    while produced.bytes.load(ordering: .relaxed) < total {
                        try await stream.send(chunk)
                        produced.bytes.add(chunk.readableBytes, ordering: .relaxed)
                    }
                }
                // Not reading: once the socket's buffers are full, the producer is held above the high mark, well
                // short of the whole (settled: it did not move for 200 ms).
                _ = try await Self.until("the producer held") { live.queuedBytes.now > Self.limits.highWater ? true : nil }
                var heldAt = -1
                while heldAt != produced.bytes.load(ordering: .relaxed) {
                    heldAt = produced.bytes.load(ordering: .relaxed)
                    try await Task.sleep(for: .milliseconds(200))
                }
                #expect(heldAt < 32 << 20)
                #expect(live.queuedBytes.peak <= Self.limits.highWater + Self.limits.maxFrame)

                // Another client is served while this one is held.
                try await WebSocketClient.connect(url: url, logger: Logger(label: "other")) { inbound, outbound, _ in
                    var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                    try await outbound.write(.text(Self.hello()))
                    try await outbound.write(.text(#"{"kind":"ping","nonce":"other"}"#))
                    _ = try await messages.next()
                    guard case .text(let pong) = try await messages.next() else { throw CancellationError() }
                    #expect(Self.json(pong)["nonce"] as? String == "other")
                    try await outbound.close(.normalClosure, reason: nil)
                }
                #expect(produced.bytes.load(ordering: .relaxed) == heldAt)  // still held

                // Reading again: everything arrives, in frames of stream 1.
                let start = ContinuousClock.now
                var received = 0
                while received < total || received < produced.bytes.load(ordering: .relaxed) {
                    guard case .binary(let frame) = try await messages.next() else { throw CancellationError() }
                    received += frame.readableBytes - 6
                }
                let elapsed = ContinuousClock.now - start
                try await producer.value
                #expect(received == produced.bytes.load(ordering: .relaxed))
                #expect(live.queuedBytes.peak <= Self.limits.highWater + Self.limits.maxFrame)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let rate = Double(total) / seconds / 1e6
                print(
                    "live channel: held at \(heldAt >> 10) KiB sent; \(total >> 20) MiB read in \(seconds) s, \(Int(rate)) MB/s (16 KiB frames)"
                )
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test func aClientThatFloodsAPausedStreamIsClosed1008() async throws {
        try await Self.withServer { url, sessions in
            let close = try await WebSocketClient.connect(url: url, logger: Logger(label: "flooder")) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                try await outbound.write(.text(Self.hello()))
                _ = try await messages.next()
                let session = try await Self.until("the session") { sessions.opened.withLock { $0.first } }
                let stream = try #require(session.live?.open())
                _ = stream  // nobody reads it: the bridge pauses the client, which goes on sending
                var sawPause = false
                let payload = [UInt8](repeating: 1, count: 16 * 1024 - 6)
                for _ in 0..<(4 * 4 + 2) { try await outbound.write(.binary(Self.frame(0, stream: 1, payload))) }
                while let message = try await messages.next() {
                    if case .binary(let frame) = message, Array(frame.readableBytesView) == [1, 1, 0, 0, 0, 1] { sawPause = true }
                }
                #expect(sawPause)
            }
            #expect(close?.closeCode == .policyViolation)
            #expect(close?.reason == "live stream flooded")
        }
    }
}

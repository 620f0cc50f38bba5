import BridgeProtocol
import Foundation
import Logging
import Synchronization
import Testing

@testable import BridgeClient

/// A connection whose server side is a test: it reads what the client sent and answers by hand.
final class FakeConnection: BridgeConnection {
    let incoming: AsyncStream<TransportEvent>
    let server: AsyncStream<TransportEvent>.Continuation
    let sentFrames: AsyncStream<[String: JSONValue]>
    private let sentInput: AsyncStream<[String: JSONValue]>.Continuation

    init() {
        (incoming, server) = AsyncStream.makeStream(of: TransportEvent.self)
        (sentFrames, sentInput) = AsyncStream.makeStream(of: [String: JSONValue].self)
    }

    func send(_ text: String) {
        if case .object(let object) = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) { sentInput.yield(object) }
    }

    func close() {
        server.yield(.closed(code: 1000, reason: nil))
        server.finish()
    }

    func answer(_ message: ServerMessage) throws {
        server.yield(.text(String(decoding: try message.encoded(), as: UTF8.self)))
    }
}

/// Hands out prepared connections, or fails when none is left.
final class FakeTransport: BridgeTransport {
    let connections: Mutex<[FakeConnection]>
    let attempts = Mutex(0)
    init(_ connections: [FakeConnection]) { self.connections = Mutex(connections) }

    func connect(to endpoint: BridgeEndpoint, pin: CertificatePin?, logger: Logger) async throws -> any BridgeConnection {
        attempts.withLock { $0 += 1 }
        guard let next = connections.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
            throw BridgeClientError.connectionFailed("refused")
        }
        return next
    }
}

extension AsyncStream {
    func first() async -> Element? {
        for await element in self { return element }
        return nil
    }
}

@Suite(.timeLimit(.minutes(1))) struct BridgeClientTests {
    let logger = Logger(label: "test")
    let server = ServerInfo(id: "SRV", name: "test", version: "0")

    func client(
        _ transport: FakeTransport, target: String = "codex-bridge://pair?v=1&host=127.0.0.1&port=9&code=CODE&id=SRV&name=t",
        backoff: ReconnectBackoff = ReconnectBackoff(initialDelay: .milliseconds(10), maxAttempts: 3)
    ) throws -> BridgeClient {
        BridgeClient(
            configuration: BridgeClientConfiguration(
                target: try BridgeTarget(parsing: target), device: DeviceInfo(name: "t", platform: "linux"), backoff: backoff),
            transport: transport, logger: logger)
    }

    @Test func pairsThenCorrelatesAnswersOutOfOrder() async throws {
        let connection = FakeConnection()
        let client = try client(FakeTransport([connection]))
        var sent = connection.sentFrames.makeAsyncIterator()
        try connection.answer(
            .helloAck(HelloAck(version: 1, ok: true, server: server, deviceId: "dev", deviceToken: "DEVTOKEN", lastSeq: 5)))
        let ack = try await client.connect()
        #expect(ack.deviceToken == "DEVTOKEN")
        let hello = try #require(await sent.next())
        #expect(hello["token"] == .string("CODE"))
        #expect(hello["device"] == .object(["name": .string("t"), "platform": .string("linux")]))
        #expect(await client.deviceToken == "DEVTOKEN")
        #expect(await client.lastSeq == 5)

        async let list = client.send(BridgeRequest(.listThreads, ListThreads(limit: 1)))
        async let diff = client.send(BridgeRequest(.getDiff, ThreadRef(threadId: "T")))
        var ids: [String: String] = [:]
        for _ in 0..<2 {
            let frame = try #require(await sent.next())
            guard case .string(let kind) = frame["kind"], case .string(let id) = frame["id"] else {
                Issue.record("no id")
                return
            }
            ids[kind] = id
        }
        try connection.answer(.error(ErrorMessage(id: ids["getDiff"], code: .notFound, message: "no thread T")))
        try connection.answer(.response(id: ids["listThreads"]!, .threads(ThreadList(threads: []))))
        #expect(try await list == .threads(ThreadList(threads: [])))
        do {
            _ = try await diff
            Issue.record("getDiff should fail")
        } catch let error as BridgeRequestError {
            #expect(error.code == .notFound && error.message == "no thread T")
        }
        await client.close()
    }

    @Test func authenticationFailureIsNotRetried() async throws {
        let connection = FakeConnection()
        let transport = FakeTransport([connection])
        let client = try client(transport)
        try connection.answer(.helloAck(HelloAck(version: 1, ok: false, error: WireError(code: .unauthorized, message: "used code"))))
        let error = await #expect(throws: BridgeClientError.self) { try await client.connect() }
        #expect(error?.code == .authenticationFailed && error?.serverCode == .unauthorized)
        #expect(transport.attempts.withLock { $0 } == 1)
    }

    @Test func reconnectsWithResumeResubscribesAndDropsDuplicates() async throws {
        let first = FakeConnection()
        let second = FakeConnection()
        let client = try client(FakeTransport([first, second]), target: "ws://127.0.0.1:9")
        var sent1 = first.sentFrames.makeAsyncIterator()
        try first.answer(.helloAck(HelloAck(version: 1, ok: true, server: server, lastSeq: 3)))
        try await client.connect()
        _ = await sent1.next()  // hello
        async let subscribed = client.send(BridgeRequest(.subscribe, Subscribe(threadId: "T")))
        let subscribe = try #require(await sent1.next())
        guard case .string(let id) = subscribe["id"] else {
            Issue.record("no id")
            return
        }
        try first.answer(.response(id: id, .subscribed(SubscriptionChanged(threadId: "T", lastSeq: 3))))
        _ = try await subscribed
        let event4 = ThreadEvent(seq: 4, threadId: "T", type: "turn/started", data: .object([:]))
        try first.answer(.event(event4))
        var events = client.events.makeAsyncIterator()
        #expect(await events.next() == .event(event4))

        // The server goes away; the client reconnects with resume and subscribes again from its cursor.
        var sent2 = second.sentFrames.makeAsyncIterator()
        first.server.yield(.closed(code: 1001, reason: "shutting down"))
        first.server.finish()
        let hello = try #require(await sent2.next())
        #expect(hello["resume"] == .object(["lastSeq": .number(4)]))
        try second.answer(.helloAck(HelloAck(version: 1, ok: true, server: server, lastSeq: 6, resume: .ok, restoredSubscriptions: [])))
        let resubscribe = try #require(await sent2.next())
        #expect(resubscribe["kind"] == .string("subscribe") && resubscribe["afterSeq"] == .number(4))
        let event5 = ThreadEvent(seq: 5, threadId: "T", type: "item/started", data: .object([:]))
        try second.answer(.event(event4))  // replayed again: dropped
        try second.answer(.event(event5))
        #expect(await events.next() == .event(event5))
        #expect(await client.lastSeq == 5)
        await client.close()
    }

    @Test func givesUpAfterBoundedAttempts() async throws {
        let only = FakeConnection()
        let transport = FakeTransport([only])
        let client = try client(transport, target: "ws://127.0.0.1:9")
        try only.answer(.helloAck(HelloAck(version: 1, ok: true, server: server, lastSeq: 0)))
        try await client.connect()
        only.server.yield(.closed(code: 1001, reason: nil))
        var failure: BridgeClientError?
        for await status in client.statuses {
            if case .failed(let error) = status { failure = error }
        }
        #expect(failure?.code == .reconnectFailed)
        #expect(transport.attempts.withLock { $0 } == 4)  // the first connection, then 3 attempts
        await #expect(throws: BridgeClientError.self) { try await client.send(BridgeRequest(.listThreads, ListThreads())) }
    }

    @Test func revokedDeviceIsNotRetried() async throws {
        let only = FakeConnection()
        let transport = FakeTransport([only, FakeConnection()])
        let client = try client(transport, target: "ws://127.0.0.1:9")
        try only.answer(.helloAck(HelloAck(version: 1, ok: true, server: server, lastSeq: 0)))
        try await client.connect()
        only.server.yield(.closed(code: 1008, reason: "device revoked"))
        var failure: BridgeClientError?
        for await status in client.statuses {
            if case .failed(let error) = status { failure = error }
        }
        #expect(failure?.code == .authenticationFailed)
        #expect(transport.attempts.withLock { $0 } == 1)
    }
}

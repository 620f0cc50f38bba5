import BridgeHub
import BridgeProtocol
import Eventually
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization
import Testing

@testable import BridgeServer

/// The hello on the event loop: an ack from the hub's snapshot before the session is registered, and reads held
/// (not buffered) while the session opens.
@Suite(.timeLimit(.minutes(1))) struct ConnectionHandshakeTests {
    /// A hub whose snapshot answers at once and whose registration waits until the test lets it go (`release`;
    /// a guessed 1 s before, since 150 ms once let the ack come after it with the whole Swift suite running).
    final class SlowRegistration: RequestHandling {
        let registered = Mutex(false)
        let release = Gate()
        func sessionOpened(_ session: ClientSession) async -> SessionOpening {
            Issue.record("a session that restores nothing is not opened before its ack")
            return SessionOpening()
        }
        func sessionReady(_ session: ClientSession) async {}
        func immediateOpening(for hello: Hello, principal: Principal) -> SessionOpening? { SessionOpening(lastSeq: 3) }
        func sessionRegistered(_ session: ClientSession) async {
            await release.wait()
            registered.withLock { $0 = true }
        }
        func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
            #expect(registered.withLock { $0 })
            return .error(ErrorMessage(id: id, code: .codexUnavailable, message: "none"))
        }
        func acknowledged(_ seq: Int64, session: ClientSession) async {}
        func sessionClosed(_ session: ClientSession) async {}
        func isResponsive() async -> Bool { true }
    }

    static let secret = "s3cret-for-the-handshake-test"

    static func connection(hub: any RequestHandling, counter: ReadGateTests.ReadCounter) async throws -> (
        NIOAsyncTestingChannel, URL
    ) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let secretFile = directory.appendingPathComponent("secret")
        try Data(secret.utf8).write(to: secretFile)
        var configuration = BridgeServerConfiguration(server: ServerInfo(id: "test", name: "test", version: "0"))
        configuration.pingInterval = nil
        let environment = ConnectionEnvironment(
            configuration: configuration,
            credentials: CredentialCheck(
                sharedSecretFile: secretFile, rateLimiter: AuthRateLimiter(configuration: configuration), logger: Logger(label: "test")),
            handler: hub, registry: ConnectionRegistry(),
            preAuth: nil, logger: Logger(label: "test"))
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(counter)
            try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
            try ConnectionHandler.install(on: channel, environment: environment, setup: ConnectionSetup(remoteAddress: "127.0.0.1"))
        }.get()
        return (channel, directory)
    }

    static func nextMessage(_ channel: NIOAsyncTestingChannel) async throws -> ServerMessage {
        let bytes = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
        let frame = try #require(try ConnectionHandlerTests.decoded(bytes).first)
        return try ServerMessage.decode(Data(String(buffer: frame.data).utf8))
    }

    @Test func aSessionThatRestoresNothingIsAckedBeforeItIsRegistered() async throws {
        let hub = SlowRegistration()
        let (channel, directory) = try await Self.connection(hub: hub, counter: ReadGateTests.ReadCounter())
        defer { try? FileManager.default.removeItem(at: directory) }
        try await channel.writeInbound(ConnectionHandlerTests.masked(.text, #"{"kind":"hello","version":1,"token":"\#(Self.secret)"}"#))
        try await channel.writeInbound(ConnectionHandlerTests.masked(.text, #"{"kind":"listThreads","id":"r1"}"#))
        let ack = try await Self.nextMessage(channel)
        #expect(!hub.registered.withLock { $0 })
        guard case .helloAck(let helloAck) = ack else {
            Issue.record("expected helloAck, got \(ack.kind)")
            return
        }
        #expect(helloAck.ok && helloAck.lastSeq == 3 && helloAck.scopes == .all)
        // The request behind the hello waits for the registration.
        hub.release.open()
        let answer = try await Self.nextMessage(channel)
        #expect(answer.kind == "error")
        #expect(hub.registered.withLock { $0 })
        try await channel.close()
    }

    /// Regression: waiting used to turn `autoRead` off, which leaves an explicit `read()` free to reach the socket.
    @Test func theSocketIsNotReadWhileTheSessionOpens() async throws {
        let hub = SlowRegistration()
        let counter = ReadGateTests.ReadCounter()
        let (channel, directory) = try await Self.connection(hub: hub, counter: counter)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await channel.writeInbound(ConnectionHandlerTests.masked(.text, #"{"kind":"hello","version":1,"token":"\#(Self.secret)"}"#))
        let (before, held) = try await channel.eventLoop.submit { () -> (Int, Int) in
            let before = counter.reads
            channel.read()
            return (before, counter.reads)
        }.get()
        #expect(held == before)
        _ = try await Self.nextMessage(channel)
        #expect(try await channel.eventLoop.submit { counter.reads }.get() == held)
        hub.release.open()
        try await eventually("the registration") { hub.registered.withLock { $0 } }
        let after = try await eventually("the held read") {
            let reads = try await channel.eventLoop.submit { counter.reads }.get()
            return reads == held ? nil : reads
        }
        #expect(after == held + 1)  // the held read, issued once registered
        try await channel.close()
    }
}

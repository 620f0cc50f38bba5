import BridgeHub
import BridgeProtocol
import Eventually
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import BridgeServer

/// The WebSocket rules of ``ConnectionHandler`` on an `EmbeddedChannel`: frames in, frames out, no socket.
@Suite struct ConnectionHandlerTests {
    /// A channel with the frame check, the aggregator and a connection, as the upgrade installs them.
    static func channel(echo: Bool = true, maxMessageBytes: Int = 1 << 20) throws -> EmbeddedChannel {
        var configuration = BridgeServerConfiguration(server: ServerInfo(id: "test", name: "test", version: "0"))
        configuration.echoMode = echo
        configuration.pingInterval = nil
        configuration.maxMessageBytes = maxMessageBytes
        let environment = ConnectionEnvironment(
            configuration: configuration,
            credentials: CredentialCheck(
                sharedSecretFile: URL(fileURLWithPath: "/nonexistent/secret"), rateLimiter: AuthRateLimiter(configuration: configuration),
                logger: Logger(label: "test")),
            handler: UnavailableRequestHandler(),
            registry: ConnectionRegistry(), preAuth: nil, logger: Logger(label: "test"))
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())  // as NIO's upgrader leaves it
        let setup = ConnectionSetup(remoteAddress: "127.0.0.1")
        if echo {
            try EchoConnectionHandler.install(on: channel, environment: environment, setup: setup)
        } else {
            try ConnectionHandler.install(on: channel, environment: environment, setup: setup)
        }
        return channel
    }

    static func masked(_ opcode: WebSocketOpcode, _ bytes: [UInt8], fin: Bool = true) -> WebSocketFrame {
        let key: WebSocketMaskingKey = [1, 2, 3, 4]
        var data = ByteBuffer(bytes: bytes)
        data.webSocketMask(key)
        return WebSocketFrame(fin: fin, opcode: opcode, maskKey: key, data: data)
    }

    static func masked(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
        masked(opcode, Array(text.utf8), fin: fin)
    }

    /// The frames the connection wrote, read back by NIO's own frame decoder.
    static func written(_ channel: EmbeddedChannel) throws -> [WebSocketFrame] {
        var frames: [WebSocketFrame] = []
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { frames += try decoded(bytes) }
        return frames
    }

    static func decoded(_ bytes: ByteBuffer) throws -> [WebSocketFrame] {
        let decoder = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 21)))
        try decoder.writeInbound(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.readInbound(as: WebSocketFrame.self) { frames.append(frame) }
        _ = try decoder.finish()
        return frames
    }

    static func closeCode(_ frame: WebSocketFrame?) -> UInt16? {
        guard let frame, frame.opcode == .connectionClose else { return nil }
        var data = frame.data
        return data.readInteger(as: UInt16.self)
    }

    @Test func echoesTextAndBinaryMessagesAndJoinsFragments() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.masked(.text, "héllo"))
        try channel.writeInbound(Self.masked(.binary, [0, 255, 7]))
        try channel.writeInbound(Self.masked(.text, "frag", fin: false))
        try channel.writeInbound(Self.masked(.ping, "mid"))  // a control frame between fragments
        try channel.writeInbound(Self.masked(.continuation, "ment"))
        let frames = try Self.written(channel)
        #expect(frames.map(\.opcode) == [.text, .binary, .pong, .text])
        #expect(String(buffer: frames[0].data) == "héllo")
        #expect(Array(frames[1].data.readableBytesView) == [0, 255, 7])
        #expect(String(buffer: frames[2].data) == "mid")
        #expect(String(buffer: frames[3].data) == "fragment")
        #expect(frames.allSatisfy { $0.maskKey == nil && $0.fin })
    }

    @Test func answersAPeerCloseWithItsCodeAndClosesTheSocket() throws {
        let channel = try Self.channel()
        var payload: [UInt8] = [0x0F, 0xA0]  // 4000
        payload += Array("bye".utf8)
        try channel.writeInbound(Self.masked(.connectionClose, payload))
        let frames = try Self.written(channel)
        #expect(frames.count == 1)
        #expect(Self.closeCode(frames.first) == 4000)
        #expect(!channel.isActive)
    }

    /// Close payloads and the code each is answered with.
    static let closeCases: [(payload: [UInt8], answer: UInt16)] = [
        ([], 1000),  // an empty close is answered with 1000
        ([0x03], 1002),  // one byte: no room for a code
        ([0x03, 0xED], 1002),  // 1005 may never be sent
        ([0x03, 0xE7], 1002),  // 999
        ([0x0B, 0xB7], 1002),  // 2999
        ([0x0B, 0xB8], 3000),  // 3000 is for libraries: echoed
        ([0x03, 0xE8, 0xFF, 0xFE], 1007),  // a reason that is not UTF-8
    ]

    @Test(arguments: 0..<closeCases.count)
    func closeFrameRules(index: Int) throws {
        let (payload, answer) = Self.closeCases[index]
        let channel = try Self.channel()
        try channel.writeInbound(Self.masked(.connectionClose, payload))
        #expect(Self.closeCode(try Self.written(channel).last) == answer)
    }

    @Test func refusesTextThatIsNotUTF8With1007AndStopsReading() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.masked(.text, [0x68, 0xC3, 0x28]))
        try channel.writeInbound(Self.masked(.text, "after"))
        let frames = try Self.written(channel)
        #expect(frames.count == 1)
        #expect(Self.closeCode(frames.first) == 1007)
    }

    @Test(arguments: ["unmasked", "rsv", "opcode", "continuation"])
    func refusesFramesThatBreakTheFramingRulesWith1002(rule: String) throws {
        let channel = try Self.channel()
        switch rule {
        case "unmasked":
            try channel.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "x")))
        case "rsv":
            var frame = Self.masked(.text, "x")
            frame.rsv1 = true
            try channel.writeInbound(frame)
        case "opcode":
            try channel.writeInbound(Self.masked(WebSocketOpcode(encodedWebSocketOpcode: 3)!, "x"))
        default:
            try channel.writeInbound(Self.masked(.continuation, "x"))
        }
        #expect(Self.closeCode(try Self.written(channel).last) == 1002)
    }

    @Test func refusesAMessageOverTheLimitWith1009() throws {
        let channel = try Self.channel(maxMessageBytes: 8)
        try channel.writeInbound(Self.masked(.text, "12345", fin: false))
        try channel.writeInbound(Self.masked(.continuation, "67890"))
        #expect(Self.closeCode(try Self.written(channel).last) == 1009)
    }

    @Test func aServerCloseWaitsForThePeerThenEnds() throws {
        let channel = try Self.channel()
        let socket = try channel.pipeline.syncOperations.handler(type: WebSocketEndpoint.self)
        socket.close(code: 1001, reason: "server shutting down")
        #expect(Self.closeCode(try Self.written(channel).last) == 1001)
        #expect(channel.isActive)  // waiting for the peer's close
        try channel.writeInbound(Self.masked(.text, "ignored"))
        #expect(try Self.written(channel).isEmpty)
        try channel.writeInbound(Self.masked(.connectionClose, [0x03, 0xE9]))
        #expect(try Self.written(channel).isEmpty)  // not answered twice
        #expect(!channel.isActive)
    }

    @Test func aBridgeConnectionClosesAFirstMessageThatIsNotHello() throws {
        let channel = try Self.channel(echo: false)
        try channel.writeInbound(Self.masked(.text, #"{"kind":"ping","nonce":"n"}"#))
        let frames = try Self.written(channel)
        #expect(frames.count == 1)
        #expect(Self.closeCode(frames.first) == BridgeCloseCode.policyViolation)
    }
}

/// The bridge protocol's ordering on a real event loop (`NIOAsyncTestingChannel`: the hub answers from other
/// threads).
@Suite struct ConnectionHandlerSessionTests {
    /// A hub that opens a session when the test lets it (`release`).
    struct SlowOpening: RequestHandling {
        let release = Gate()
        func sessionOpened(_ session: ClientSession) async -> SessionOpening {
            await release.wait()
            return SessionOpening(lastSeq: 7)
        }
        func sessionReady(_ session: ClientSession) async {}
        func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
            .error(ErrorMessage(id: id, code: .codexUnavailable, message: "none"))
        }
        func acknowledged(_ seq: Int64, session: ClientSession) async {}
        func sessionClosed(_ session: ClientSession) async {}
        func isResponsive() async -> Bool { true }
    }

    @Test func messagesSentRightBehindTheHelloWaitForItsAck() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("secret")
        try Data("s3cret-for-the-test".utf8).write(to: secretFile)
        var configuration = BridgeServerConfiguration(server: ServerInfo(id: "test", name: "test", version: "0"))
        configuration.pingInterval = nil
        let hub = SlowOpening()
        let environment = ConnectionEnvironment(
            configuration: configuration,
            credentials: CredentialCheck(
                sharedSecretFile: secretFile, rateLimiter: AuthRateLimiter(configuration: configuration), logger: Logger(label: "test")),
            handler: hub, registry: ConnectionRegistry(),
            preAuth: nil, logger: Logger(label: "test"))
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
            try ConnectionHandler.install(on: channel, environment: environment, setup: ConnectionSetup(remoteAddress: "127.0.0.1"))
        }.get()
        let hello = #"{"kind":"hello","version":1,"token":"s3cret-for-the-test"}"#
        try await channel.writeInbound(ConnectionHandlerTests.masked(.text, hello))
        try await channel.writeInbound(ConnectionHandlerTests.masked(.text, #"{"kind":"ping","nonce":"after"}"#))
        try await channel.writeInbound(ConnectionHandlerTests.masked(.text, #"{"kind":"listThreads","id":"r1"}"#))
        hub.release.open()
        var kinds: [String] = []
        for _ in 0..<3 {
            let bytes = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
            let frame = try #require(try ConnectionHandlerTests.decoded(bytes).first)
            let message = try ServerMessage.decode(Data(String(buffer: frame.data).utf8))
            kinds.append(message.kind)
        }
        #expect(kinds == ["helloAck", "pong", "error"])

        // Closed, the connection is gone from the registry and from memory (the outbox's wake and the session's
        // overflow closure refer to it; both are let go).
        let handler = try await channel.eventLoop.submit {
            WeakReference(try channel.pipeline.syncOperations.handler(type: ConnectionHandler.self))
        }.get()
        try await channel.close()
        try await eventually("the connection gone from the registry") { environment.registry.count == 0 }
        try await eventually("the handler freed") { handler.object == nil }
    }
}

/// A weak reference that may leave the event loop: it only tells whether the object still exists (reading a weak
/// reference is atomic), never touches it.
private struct WeakReference: @unchecked Sendable {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

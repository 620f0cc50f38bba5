import BridgeProtocol
import Eventually
import Foundation
import Logging
import Synchronization
import Testing

@testable import BridgeClient

/// A bridge that confirms pairings on the workstation: the client shows the check code and keeps waiting past
/// its handshake timeout for the `helloAck`; scopes follow `scopesChanged`.
@Suite(.timeLimit(.minutes(1))) struct BridgeClientPairingPendingTests {
    @Test func waitsForTheWorkstationThenPairs() async throws {
        let connection = FakeConnection()
        let shown = Mutex<[PairingPending]>([])
        var configuration = BridgeClientConfiguration(
            target: try BridgeTarget(parsing: "codex-bridge://pair?v=1&host=127.0.0.1&port=9&code=CODE&id=SRV&name=t"),
            device: DeviceInfo(name: "t", platform: "linux"), handshakeTimeout: .milliseconds(300))
        configuration.onPairingPending = { pending in shown.withLock { $0.append(pending) } }
        let clock = ManualClock()
        configuration.clock = clock
        let client = BridgeClient(configuration: configuration, transport: FakeTransport([connection]), logger: Logger(label: "test"))
        let pending = PairingPending(deviceId: "dev", check: "0427", expiresAt: Date().timeIntervalSince1970 + 60)
        try connection.answer(.pairingPending(pending))
        let connecting = Task { try await client.connect() }
        // Shown, the pairing waits for the workstation: past the handshake timeout (twice over, on the client's
        // clock), the client still waits.
        try await eventually("the pairing shown") { !shown.withLock { $0 }.isEmpty }
        try await eventually("the client waiting for the workstation") { clock.sleepers == 1 }
        clock.advance(by: .milliseconds(600))
        try connection.answer(
            .helloAck(HelloAck(version: 1, ok: true, deviceId: "dev", deviceToken: "DEVTOKEN", scopes: Scopes([.observe]))))
        let ack = try await connecting.value
        #expect(shown.withLock { $0 } == [pending])
        let scopes = await client.scopes
        #expect(ack.deviceToken == "DEVTOKEN" && scopes == Scopes([.observe]))
        try connection.answer(.scopesChanged(ScopesChanged(scopes: .standard)))
        try await eventually("the new scopes") { await client.scopes == .standard }
        await client.close()
    }

    @Test func aDeniedPairingFailsWithItsCode() async throws {
        let connection = FakeConnection()
        let transport = FakeTransport([connection])
        let client = BridgeClient(
            configuration: BridgeClientConfiguration(
                target: try BridgeTarget(parsing: "codex-bridge://pair?v=1&host=127.0.0.1&port=9&code=CODE&id=SRV&name=t")),
            transport: transport, logger: Logger(label: "test"))
        try connection.answer(.pairingPending(PairingPending(deviceId: "dev", check: "0427", expiresAt: Date().timeIntervalSince1970 + 60)))
        try connection.answer(.helloAck(HelloAck(version: 1, ok: false, error: WireError(code: .pairingDenied, message: "denied"))))
        let error = await #expect(throws: BridgeClientError.self) { try await client.connect() }
        #expect(error?.serverCode == .pairingDenied)
        #expect(transport.attempts.withLock { $0 } == 1)
    }
}

/// Regression (issue 44, item 1): a bridge that answered `hello` with `pairingPending {expiresAt: 1e300}` made
/// `Int64(wait * 1000)` trap and took the whole process down (the home bridge's `serve`, its Codex turns, and
/// again after every restart, since the link reconnects at start). A number out of range is a bad frame: the
/// handshake fails with `protocolViolation`, and nothing else happens.
@Suite(.timeLimit(.minutes(1))) struct PairingPendingRangeTests {
    @Test(arguments: [1e300, -1e300, Double.greatestFiniteMagnitude, 9.3e15, -9.3e15])
    func anExpiryOutOfRangeFailsTheHandshakeWithoutATrap(expiresAt: Double) async throws {
        let connection = FakeConnection()
        let transport = FakeTransport([connection])
        let client = BridgeClient(
            configuration: BridgeClientConfiguration(
                target: try BridgeTarget(parsing: "codex-bridge://pair?v=1&host=127.0.0.1&port=9&code=CODE&id=SRV&name=t"),
                reconnects: false),
            transport: transport, logger: Logger(label: "test"))
        try connection.answer(.pairingPending(PairingPending(deviceId: "dev", check: "0427", expiresAt: expiresAt)))
        let error = await #expect(throws: BridgeClientError.self) { try await client.connect() }
        #expect(error?.code == .protocolViolation, "\(String(describing: error))")
        #expect(error?.message.contains("expiresAt") == true)
        #expect(transport.attempts.withLock { $0 } == 1)
    }
}

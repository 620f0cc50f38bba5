import BridgeHub
import BridgeProtocol
import BridgeStore
import Eventually
import Foundation
import Logging
import Synchronization
import Testing

@testable import BridgeServer

/// `serve --confirm-pairing`: the handshake waits for the workstation (the state machine, and the authenticator
/// over a real database that another process would write).
@Suite(.timeLimit(.minutes(1))) struct PairingConfirmationTests {
    private func text(_ json: String) -> Data { Data(json.utf8) }

    @Test func thePendingHelloWaitsThenAcceptsWithTheToken() {
        var machine = ConnectionStateMachine()
        _ = machine.receivedText(text(#"{"kind":"hello","version":1,"token":"7K3QZ9M2XA"}"#))
        let pending = PendingPairing(deviceId: "d1", check: "0427", expiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(machine.authenticated(.pending(pending)) == .awaitConfirmation(pending))
        // Still authenticating: frames meanwhile are ignored, and the hello timer no longer applies.
        #expect(machine.receivedText(text(#"{"kind":"listThreads","id":"1"}"#)) == .none)
        #expect(machine.helloTimedOut() == .none)
        let accepted = machine.authenticated(.granted(Grant(.device(id: "d1"), scopes: Scopes([.observe]), newDeviceToken: "tok")))
        guard case .acceptHello(Grant(.device(id: "d1"), scopes: Scopes([.observe]), newDeviceToken: "tok"), 1, _) = accepted else {
            Issue.record("expected acceptHello, got \(accepted)")
            return
        }
        #expect(machine.isReady)
    }

    @Test(arguments: [
        (BridgeErrorCode.pairingDenied, "pairing denied"), (BridgeErrorCode.pairingExpired, "pairing not confirmed"),
    ])
    func aRefusedPairingFailsTheHandshakeWith1008(code: BridgeErrorCode, reason: String) {
        var machine = ConnectionStateMachine()
        _ = machine.receivedText(text(#"{"kind":"hello","version":1,"token":"7K3QZ9M2XA"}"#))
        _ = machine.authenticated(.pending(PendingPairing(deviceId: "d1", check: "0427", expiresAt: Date())))
        let action = machine.confirmationRefused(WireError(code: code, message: "no"))
        guard case .close(.helloAck(let ack)?, 1008, let closeReason) = action else {
            Issue.record("expected a failed helloAck and 1008, got \(action)")
            return
        }
        #expect(ack.ok == false && ack.error?.code == code && closeReason == reason)
        #expect(machine.state == .closed)
        #expect(machine.confirmationRefused(WireError(code: code, message: "again")) == .none)
    }

    /// The device ids the authenticator found undecided in the database, in order.
    final class Undecided: Sendable {
        let ids = Mutex<[String]>([])
        func waited(_ id: String) async throws {
            try await eventually("a poll of \(id) found no decision") { ids.withLock { $0.contains(id) } }
        }
    }

    private static func withAuthenticator(
        _ body: (DeviceRegistry, RegistryDeviceAuthenticator, Undecided) async throws -> Void
    ) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-confirm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let paths = StatePaths(configDirectory: dir, stateDirectory: dir)
        let registry = DeviceRegistry(database: try BridgeDatabase(paths: paths, logger: logger), logger: logger)
        let undecided = Undecided()
        var confirmation = RegistryDeviceAuthenticator.Confirmation(pollInterval: .milliseconds(20))
        confirmation.undecided = { id in undecided.ids.withLock { $0.append(id) } }
        let auth = RegistryDeviceAuthenticator(registry: registry, logger: logger, confirmation: confirmation)
        try await body(registry, auth, undecided)
    }

    private static func pending(_ auth: RegistryDeviceAuthenticator, _ registry: DeviceRegistry) async throws -> PendingPairing {
        let code = try await registry.mintPairingCode(ttl: .seconds(60), scopes: Scopes([.observe, .approve]))
        let result = await auth.redeem(code: code.code, device: DeviceInfo(name: "Phone", platform: "web"), remoteAddress: "10.0.0.7")
        guard case .pending(let pending) = result else {
            Issue.record("expected a pending pairing, got \(result)")
            throw CancellationError()
        }
        return pending
    }

    @Test func allowedOnTheWorkstationTheDeviceIsPairedWithItsScopes() async throws {
        try await Self.withAuthenticator { registry, auth, undecided in
            let pending = try await Self.pending(auth, registry)
            #expect(try await registry.list().isEmpty)
            async let outcome = auth.awaitConfirmation(pending)
            try await undecided.waited(pending.deviceId)
            // What `codex-bridge devices allow ID` does from its own process.
            try await registry.decidePairing(id: pending.deviceId, allow: true, check: pending.check)
            guard case .allowed(.accepted(.device(let id), let token?, let scopes)) = await outcome else {
                Issue.record("expected the pairing to complete")
                return
            }
            #expect(id == pending.deviceId && scopes == Scopes([.observe, .approve]))
            #expect(await auth.authenticateDevice(token: token, remoteAddress: "10.0.0.7") == .accepted(.device(id: id), scopes: scopes))
            let audit = try await AuditLog(database: registry.database).entries().map { "\($0.kind) \($0.outcome)" }
            #expect(audit == ["pair ok", "pairingRequested pending"])
        }
    }

    @Test func deniedExpiredOrAbandonedNothingIsStored() async throws {
        try await Self.withAuthenticator { registry, auth, undecided in
            let denied = try await Self.pending(auth, registry)
            async let deniedOutcome = auth.awaitConfirmation(denied)
            try await registry.decidePairing(id: denied.deviceId, allow: false)
            #expect(await deniedOutcome == .refused(WireError(code: .pairingDenied, message: "the workstation denied this pairing")))

            // The server's own deadline (the request's `expiresAt`) ends a pairing nobody decides.
            var expired = try await Self.pending(auth, registry)
            expired.expiresAt = Date().addingTimeInterval(0.2)
            guard case .refused(let error) = await auth.awaitConfirmation(expired) else {
                Issue.record("expected a timeout")
                return
            }
            #expect(error.code == .pairingExpired)

            let abandoned = try await Self.pending(auth, registry)
            let waiting = Task { await auth.awaitConfirmation(abandoned) }
            try await undecided.waited(abandoned.deviceId)
            waiting.cancel()
            guard case .refused = await waiting.value else {
                Issue.record("expected the abandoned pairing to be refused")
                return
            }
            #expect(try await registry.list().isEmpty)
            #expect(try await registry.pairingRequests().isEmpty)
            for id in [denied.deviceId, expired.deviceId, abandoned.deviceId] {
                #expect(try await registry.pairingDecision(id: id) == .gone)
            }
            let kinds = try await AuditLog(database: registry.database).entries().map(\.kind)
            #expect(kinds.contains("pairingExpired") && kinds.contains("pairingAbandoned"))
        }
    }
}

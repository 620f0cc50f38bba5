import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import Testing

@Suite("DeviceRegistry")
struct DeviceRegistryTests {
    let state: TemporaryState
    let clock = TestClock()
    let logs = CapturedLogs()
    let database: BridgeDatabase
    let registry: DeviceRegistry

    init() throws {
        state = try TemporaryState()
        database = try BridgeDatabase(paths: state.paths, logger: logs.logger)
        let clock = self.clock
        registry = DeviceRegistry(database: database, now: { clock.now }, logger: logs.logger)
    }

    private let phone = DeviceInfo(name: "Ana's iPhone", platform: "ios")

    @Test func redeemOnceThenRejected() async throws {
        defer { state.cleanup() }
        let code = try await registry.mintPairingCode(ttl: .seconds(600))
        #expect(code.code.count == PairingCode.length)
        #expect(code.expiresAt == clock.now.addingTimeInterval(600))

        let paired = try await registry.redeem(code: code.code, device: phone, address: "192.168.1.5")
        #expect(paired.record.name == "Ana's iPhone")
        #expect(paired.record.platform == "ios")
        #expect(Data(base64URL: paired.deviceToken)?.count == 32)

        await #expect(throws: DeviceRegistryError.codeAlreadyUsed) {
            try await registry.redeem(code: code.code, device: phone, address: nil)
        }
        #expect(try await registry.list().count == 1)
    }

    @Test func codeIsAcceptedGroupedAndInLowerCase() async throws {
        defer { state.cleanup() }
        let code = try await registry.mintPairingCode(ttl: .seconds(600))
        _ = try await registry.redeem(code: code.grouped.lowercased(), device: phone, address: nil)
    }

    @Test func unknownAndMalformedCodes() async throws {
        defer { state.cleanup() }
        _ = try await registry.mintPairingCode(ttl: .seconds(600))
        await #expect(throws: DeviceRegistryError.unknownCode) {
            try await registry.redeem(code: "ABCDEFGHJK", device: phone, address: nil)
        }
        await #expect(throws: DeviceRegistryError.unknownCode) {
            try await registry.redeem(code: "not a code!", device: phone, address: nil)
        }
        #expect(try await registry.list().isEmpty)
    }

    @Test func expiredCodeIsRejected() async throws {
        defer { state.cleanup() }
        let code = try await registry.mintPairingCode(ttl: .seconds(600))
        clock.advance(by: 600)
        await #expect(throws: DeviceRegistryError.codeExpired) {
            try await registry.redeem(code: code.code, device: phone, address: nil)
        }
        let zero = try await registry.mintPairingCode(ttl: .zero)
        await #expect(throws: DeviceRegistryError.codeExpired) {
            try await registry.redeem(code: zero.code, device: phone, address: nil)
        }
        #expect(try await registry.list().isEmpty)
    }

    /// Many redeems of one code at once, through two pools on the same file (as two processes would be):
    /// exactly one wins, the others see "already used".
    @Test func concurrentRedeemsExactlyOneWins() async throws {
        defer { state.cleanup() }
        let clock = self.clock
        let other = DeviceRegistry(
            database: try BridgeDatabase(paths: state.paths, logger: logs.logger), now: { clock.now }, logger: logs.logger)
        let code = try await registry.mintPairingCode(ttl: .seconds(600))
        let registries = [registry, other]
        let outcomes = await withTaskGroup(of: Result<PairedDevice, any Error>.self) { group in
            for attempt in 0..<24 {
                let registry = registries[attempt % 2]
                group.addTask {
                    do {
                        return .success(try await registry.redeem(code: code.code, device: phone, address: nil))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let winners = outcomes.compactMap { try? $0.get() }
        #expect(winners.count == 1)
        for case .failure(let error) in outcomes {
            #expect(error as? DeviceRegistryError == .codeAlreadyUsed)
        }
        #expect(try await registry.list().map(\.id) == winners.map(\.deviceId))
    }

    @Test func authenticateWithDeviceToken() async throws {
        defer { state.cleanup() }
        let code = try await registry.mintPairingCode(ttl: .seconds(600))
        let paired = try await registry.redeem(code: code.code, device: phone, address: "192.168.1.5")

        let device = try #require(try await registry.authenticate(deviceToken: paired.deviceToken, address: "10.0.0.7"))
        #expect(device.id == paired.deviceId)
        #expect(try await registry.device(id: paired.deviceId)?.lastAddress == "10.0.0.7")

        #expect(try await registry.authenticate(deviceToken: SharedSecret.generate(), address: nil) == nil)
        #expect(try await registry.authenticate(deviceToken: code.code, address: nil) == nil)
        #expect(try await registry.authenticate(deviceToken: "", address: nil) == nil)
    }

    @Test func lastSeenIsWrittenAtMostEvery30Seconds() async throws {
        defer { state.cleanup() }
        let code = try await registry.mintPairingCode(ttl: .seconds(600))
        let paired = try await registry.redeem(code: code.code, device: phone, address: "192.168.1.5")
        let pairedAt = clock.now

        clock.advance(by: 10)
        _ = try await registry.authenticate(deviceToken: paired.deviceToken, address: "192.168.1.5")
        #expect(try await registry.device(id: paired.deviceId)?.lastSeenAt == pairedAt)

        clock.advance(by: 25)
        _ = try await registry.authenticate(deviceToken: paired.deviceToken, address: "192.168.1.5")
        #expect(try await registry.device(id: paired.deviceId)?.lastSeenAt == clock.now)
    }

    @Test func revokeStopsOneDeviceOnly() async throws {
        defer { state.cleanup() }
        let first = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(600)).code, device: phone, address: nil)
        let second = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(600)).code,
            device: DeviceInfo(name: "tablet", platform: "android"), address: nil)

        // Revoked through another pool, as `devices revoke` in another process would.
        let cli = DeviceRegistry(database: try BridgeDatabase(paths: state.paths, logger: logs.logger), logger: logs.logger)
        let revoked = try await cli.revoke(id: first.deviceId)
        #expect(revoked.revokedAt != nil)

        #expect(try await registry.authenticate(deviceToken: first.deviceToken, address: nil) == nil)
        #expect(try await registry.authenticate(deviceToken: second.deviceToken, address: nil)?.id == second.deviceId)
        #expect(try await registry.isRevoked(id: first.deviceId))
        #expect(try await !registry.isRevoked(id: second.deviceId))
        #expect(try await registry.isRevoked(id: "nosuchdevice"))
        #expect(
            try await registry.revokedDeviceIds(among: [first.deviceId, second.deviceId, "gone"])
                == [first.deviceId, "gone"])
        #expect(try await registry.list().count == 2)

        await #expect(throws: DeviceRegistryError.alreadyRevoked(first.deviceId)) {
            try await cli.revoke(id: first.deviceId)
        }
        await #expect(throws: DeviceRegistryError.deviceNotFound("nosuchdevice")) {
            try await cli.revoke(id: "nosuchdevice")
        }
    }

    @Test func ackedSeqOnlyMovesForward() async throws {
        defer { state.cleanup() }
        let paired = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(600)).code, device: DeviceInfo(), address: nil)
        #expect(paired.record.name == "unnamed device")
        try await registry.recordAck(deviceId: paired.deviceId, seq: 42)
        try await registry.recordAck(deviceId: paired.deviceId, seq: 7)
        #expect(try await registry.device(id: paired.deviceId)?.ackedSeq == 42)
    }

    /// A refused request no longer waits but is kept, marked, so the serving bridge can tell the device
    /// (`scopeRequestEnded`); an unrefused one that runs out is reported as expired; a granted one as neither.
    @Test func endedScopeRequestsAreReportedDeniedOrExpired() async throws {
        defer { state.cleanup() }
        let start = clock.now
        let first = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(600)).code, device: phone, address: nil)
        let second = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(600)).code, device: phone, address: nil)
        let third = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(600)).code, device: phone, address: nil)
        let run = try Scopes(parsing: "run")
        let denied = try await registry.requestScopes(id: first.deviceId, scopes: run, timeout: .seconds(60))
        _ = try await registry.requestScopes(id: second.deviceId, scopes: run, timeout: .seconds(30))
        let granted = try await registry.requestScopes(id: third.deviceId, scopes: run, timeout: .seconds(60))
        clock.advance(by: 5)
        try await registry.decideScopeRequest(id: first.deviceId, allow: false)
        try await registry.decideScopeRequest(id: third.deviceId, allow: true, check: granted.checkCode)
        #expect(try await registry.scopeRequests().map(\.deviceId) == [second.deviceId])
        await #expect(throws: DeviceRegistryError.noScopeRequest(first.deviceId)) {
            try await registry.decideScopeRequest(id: first.deviceId, allow: true, check: denied.checkCode)
        }
        let soFar = try await registry.endedScopeRequests(after: start, through: clock.now)
        #expect(soFar.map(\.request.deviceId) == [first.deviceId] && soFar.map(\.denied) == [true])
        #expect(soFar.first?.request.checkCode == denied.checkCode)
        clock.advance(by: 30)
        let later = try await registry.endedScopeRequests(after: start.addingTimeInterval(5), through: clock.now)
        #expect(later.map(\.request.deviceId) == [second.deviceId] && later.map(\.denied) == [false])
        #expect(try await registry.scopeRequests().isEmpty)
    }

    @Test func noCodeOrTokenInLogs() async throws {
        defer { state.cleanup() }
        let code = try await registry.mintPairingCode(ttl: .seconds(600))
        let paired = try await registry.redeem(code: code.code, device: phone, address: nil)
        _ = try await registry.authenticate(deviceToken: paired.deviceToken, address: "192.168.1.9")
        try await registry.revoke(id: paired.deviceId)
        let lines = logs.all
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(!line.contains(code.code))
            #expect(!line.contains(paired.deviceToken))
        }
        #expect(!"\(code)".contains(code.code))
        #expect(!"\(paired)".contains(paired.deviceToken))
    }
}

extension Data {
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}

import BridgeHub
import BridgeProtocol
import Foundation
import Logging
import Synchronization
import Testing

@testable import BridgeServer

/// The one credential check, without sockets or a database: every entrance (the upgrade's and the HTTP routes'
/// `Authorization`, the hello's token), what it answers at once, and its failure accounting.
@Suite struct CredentialCheckTests {
    static let secret = "s3cret-shared-secret-for-the-check"
    static let deviceToken = "device-token-0123456789abcdefghijklmnopqrstuv"
    static let code = "ABCDE-FGHJK"

    /// Devices in memory: `fresh` says whether the table may answer; calls are counted.
    final class Devices: DeviceAuthenticating {
        struct Calls { var database = 0, redeem = 0 }
        let fresh: Bool
        let calls = Mutex(Calls())
        init(fresh: Bool) { self.fresh = fresh }

        func known(_ token: String) -> AuthenticationResult {
            token == CredentialCheckTests.deviceToken ? .accepted(.device(id: "phone"), scopes: Scopes([.observe])) : .rejected
        }
        func cachedDevice(token: String, remoteAddress: String) -> AuthenticationResult? { fresh ? known(token) : nil }
        func authenticateDevice(token: String, remoteAddress: String) async -> AuthenticationResult {
            calls.withLock { $0.database += 1 }
            return known(token)
        }
        func redeem(code: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult {
            calls.withLock { $0.redeem += 1 }
            return code == CredentialCheckTests.code
                ? .accepted(.device(id: "new"), newDeviceToken: "minted", scopes: .standard) : .rejected
        }
        func isRevoked(deviceId: String) async -> Bool { false }
    }

    static func check(devices: Devices? = Devices(fresh: true), limit: Int = 3, logs: LogCapture = LogCapture()) throws -> CredentialCheck {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try Data(secret.utf8).write(to: file)
        return CredentialCheck(
            sharedSecretFile: file, devices: devices, rateLimiter: AuthRateLimiter(limit: limit, window: .seconds(60)), logger: logs.logger)
    }

    /// The upgrade's or an HTTP route's header (0), or a hello's token (1).
    static func entrance(_ index: Int, _ token: String) -> Credential {
        index == 0 ? .authorization("Bearer \(token)") : .hello(token: token, device: nil)
    }

    @Test(arguments: 0..<2)
    func theSharedSecretAndAKnownDeviceAreAnsweredAtOnce(entrance: Int) throws {
        let check = try Self.check()
        #expect(check.checkNow(Self.entrance(entrance, Self.secret), remoteAddress: "10.0.0.1") == .granted(Grant(.sharedSecret)))
        #expect(
            check.checkNow(Self.entrance(entrance, Self.deviceToken), remoteAddress: "10.0.0.1")
                == .granted(Grant(.device(id: "phone"), scopes: Scopes([.observe]))))
        #expect(Grant(.sharedSecret).effectiveScopes == .all)
    }

    @Test func aStaleTableSendsTheDeviceTokenToTheDatabase() async throws {
        let devices = Devices(fresh: false)
        let check = try Self.check(devices: devices)
        #expect(check.checkNow(.hello(token: Self.deviceToken, device: nil), remoteAddress: "10.0.0.1") == nil)
        #expect(
            await check.check(.hello(token: Self.deviceToken, device: nil), remoteAddress: "10.0.0.1")
                == .granted(Grant(.device(id: "phone"), scopes: Scopes([.observe]))))
        #expect(await check.check(.authorization("Bearer wrong"), remoteAddress: "10.0.0.1") == .refused(rateLimited: false))
        #expect(devices.calls.withLock { $0.database } == 2)
    }

    @Test func failuresFromEveryEntranceCountTogetherAndAValidCredentialStillPasses() async throws {
        let check = try Self.check(limit: 3)
        let address = "10.0.0.9"
        #expect(await check.check(.authorization("Bearer wrong"), remoteAddress: address) == .refused(rateLimited: false))
        #expect(await check.check(.hello(token: "wrong", device: nil), remoteAddress: address) == .refused(rateLimited: false))
        #expect(await check.check(.authorization(nil), remoteAddress: address) == .refused(rateLimited: false))  // HTTP without a header
        // Limited now, at every entrance.
        #expect(await check.check(.authorization("Basic abc"), remoteAddress: address) == .refused(rateLimited: true))
        #expect(await check.check(.hello(token: "wrong", device: nil), remoteAddress: address) == .refused(rateLimited: true))
        #expect(check.checkNow(.hello(token: Self.code, device: nil), remoteAddress: address) == nil)
        #expect(await check.check(.hello(token: Self.code, device: nil), remoteAddress: address) == .refused(rateLimited: true))
        // High-entropy credentials are never throttled; other addresses are untouched.
        #expect(await check.check(.hello(token: Self.secret, device: nil), remoteAddress: address) == .granted(Grant(.sharedSecret)))
        #expect(await check.check(.authorization("Bearer \(Self.deviceToken)"), remoteAddress: address) != .refused(rateLimited: true))
        #expect(await check.check(.hello(token: "wrong", device: nil), remoteAddress: "10.0.0.10") == .refused(rateLimited: false))
    }

    @Test func aPairingCodeIsRedeemedOnlyFromAHelloAndAValidOneDoesNotCount() async throws {
        let devices = Devices(fresh: true)
        let check = try Self.check(devices: devices, limit: 2)
        let address = "10.0.0.5"
        // In a header it is refused (and counted), never redeemed.
        #expect(await check.check(.authorization("Bearer \(Self.code)"), remoteAddress: address) == .refused(rateLimited: false))
        #expect(devices.calls.withLock { $0.redeem } == 0)
        // From a hello it is redeemed; a valid code does not count, so the address is not limited by it.
        for _ in 0..<3 {
            #expect(
                await check.check(.hello(token: Self.code, device: nil), remoteAddress: address)
                    == .granted(Grant(.device(id: "new"), scopes: .standard, newDeviceToken: "minted")))
        }
        // A wrong code counts: with the header's failure the address reaches its limit, and the next code is not tried.
        #expect(await check.check(.hello(token: "ZZZZZ-ZZZZZ", device: nil), remoteAddress: address) == .refused(rateLimited: false))
        #expect(await check.check(.hello(token: Self.code, device: nil), remoteAddress: address) == .refused(rateLimited: true))
        #expect(devices.calls.withLock { $0.redeem } == 4)
    }

    @Test func withoutPairingOnlyTheSharedSecretPasses() async throws {
        let check = try Self.check(devices: nil)
        #expect(check.checkNow(.hello(token: Self.code, device: nil), remoteAddress: "::1") == .refused(rateLimited: false))
        #expect(await check.check(.hello(token: Self.deviceToken, device: nil), remoteAddress: "::1") == .refused(rateLimited: false))
        #expect(await check.check(.hello(token: Self.secret, device: nil), remoteAddress: "::1") == .granted(Grant(.sharedSecret)))
    }

    @Test func noCredentialIsEverLogged() async throws {
        let logs = LogCapture()
        let check = try Self.check(limit: 1, logs: logs)
        for token in [Self.secret, Self.deviceToken, Self.code, "wrong-token-value", "Bearer-ish"] {
            _ = await check.check(.hello(token: token, device: nil), remoteAddress: "10.0.0.2")
            _ = await check.check(.authorization("Bearer \(token)"), remoteAddress: "10.0.0.2")
        }
        let text = logs.all
        #expect(text.contains("Authentication failed"))
        for token in [Self.secret, Self.deviceToken, Self.code, "wrong-token-value"] { #expect(!text.contains(token)) }
    }
}

/// Collects log lines so a test can check no secret is logged.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])
    var all: String { lines.withLock { $0.joined(separator: "\n") } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(sink: self) }
    }

    private struct Handler: LogHandler {
        let sink: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.lines.withLock { $0.append("\(event.message) \(all.map { "\($0)=\($1)" }.joined(separator: " "))") }
        }
    }
}

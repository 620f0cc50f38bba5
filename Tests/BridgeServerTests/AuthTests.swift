import BridgeStore
import Foundation
import Testing

@testable import BridgeServer

@Suite struct AuthTests {
    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals("abc", "abc"))
        #expect(!ConstantTime.equals("abc", "abd"))
        #expect(!ConstantTime.equals("abc", "abcd"))
        #expect(!ConstantTime.equals("", "a"))
        #expect(ConstantTime.equals("", ""))
    }

    @Test func rateLimiterCountsPerAddressInAWindow() {
        let limiter = AuthRateLimiter(limit: 3, window: .seconds(60))
        let start = ContinuousClock.now
        for _ in 0..<3 { limiter.recordFailure("10.0.0.1", now: start) }
        #expect(limiter.isLimited("10.0.0.1", now: start))
        #expect(!limiter.isLimited("10.0.0.2", now: start))
        #expect(!limiter.isLimited("10.0.0.1", now: start + .seconds(61)))
    }

    @Test func rateLimiterMemoryIsBounded() {
        let limiter = AuthRateLimiter(limit: 1, window: .seconds(60), maxTrackedAddresses: 100)
        let now = ContinuousClock.now
        for index in 0..<1000 { limiter.recordFailure("a\(index)", now: now + .milliseconds(index)) }
        #expect(limiter.isLimited("a999", now: now + .seconds(1)))
        #expect(!limiter.isLimited("a0", now: now + .seconds(1)))
    }

    @Test func sharedSecretIsReReadWhenRotated() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-auth-\(UUID().uuidString)")
        let paths = StatePaths(configDirectory: dir, stateDirectory: dir)
        try paths.prepare()
        defer { try? FileManager.default.removeItem(at: dir) }
        let secret = SharedSecret(paths: paths)
        let first = try secret.loadOrCreate()
        let source = SharedSecretSource(url: paths.tokenFile)
        #expect(source.matches(first))
        let second = try secret.rotate()
        #expect(source.matches(second))
        #expect(!source.matches(first))
        let mode = try FileManager.default.attributesOfItem(atPath: paths.tokenFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func bearerParsing() {
        #expect(BridgeServer.bearerToken("Bearer abc") == "abc")
        #expect(BridgeServer.bearerToken("bearer   abc ") == "abc")
        #expect(BridgeServer.bearerToken("Basic abc") == nil)
        #expect(BridgeServer.bearerToken("Bearer") == nil)
    }
}

@Suite struct AuthAttemptTests {
    @Test func concurrentAttemptsCannotExceedTheLimit() async {
        let limiter = AuthRateLimiter(limit: 5, window: .seconds(60))
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 { group.addTask { limiter.beginAttempt("10.0.0.9") } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 5)
    }

    @Test func successfulAttemptsDoNotCount() {
        let limiter = AuthRateLimiter(limit: 2, window: .seconds(60))
        for _ in 0..<10 {
            #expect(limiter.beginAttempt("10.0.0.1"))
            limiter.succeeded("10.0.0.1")
        }
        #expect(limiter.beginAttempt("10.0.0.1") && limiter.beginAttempt("10.0.0.1"))
        #expect(!limiter.beginAttempt("10.0.0.1"))
    }
}

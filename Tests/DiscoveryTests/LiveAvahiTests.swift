import Eventually
import Foundation
import Testing

@testable import Discovery

/// Against a real avahi-daemon (start the loopback one with `Scripts/avahi-test-daemon start`).
/// Runs when `CODEX_BRIDGE_AVAHI_TESTS=1`, which `Scripts/test` sets after starting the daemon; the pytest
/// suite Tests/integration/test_discovery.py covers the same ground through the real `codex-bridge serve`.
@Suite(
    .serialized, .timeLimit(.minutes(1)),
    .enabled(if: ProcessInfo.processInfo.environment["CODEX_BRIDGE_AVAHI_TESTS"] == "1"))
struct LiveAvahiTests {
    static let type = "_codexdtest._tcp"
    /// What the publisher logs (debug) once it waits for `serverListening(port:)`.
    static let waitingForThePort = "Waiting for the server's port"

    func waitFor(
        _ condition: @escaping @Sendable ([DiscoveredBridge]) -> Bool
    ) async throws -> [DiscoveredBridge] {
        var last: [DiscoveredBridge] = []
        do {
            return try await eventually("the browse to match; last: \(last)") { () -> [DiscoveredBridge]? in
                last = try await MDNSBrowser.browse(type: Self.type, timeout: .seconds(2))
                return condition(last) ? last : nil
            }
        } catch let error as WaitedTooLong {
            Issue.record("\(error)")
            return last
        }
    }

    @Test func publishesBrowsesAndWithdraws() async throws {
        let name = "live-\(UInt32.random(in: 0...UInt32.max))"
        let (logger, _) = RecordingLogHandler.logger()
        let ad = MDNSAdvertisement(name: name, type: Self.type, port: 4242, txt: ["version": "1", "id": "srv_x", "tls": "0"])
        let publisher = MDNSPublisher(advertisement: ad, logger: logger)
        let task = Task { try await publisher.run() }

        let found = try await waitFor { $0.contains { $0.name == "\(name) (codex-bridge)" } }
        let bridge = try #require(found.first { $0.name == "\(name) (codex-bridge)" })
        #expect(bridge.port == 4242)
        #expect(bridge.id == "srv_x")
        #expect(bridge.version == 1)
        #expect(bridge.addresses.contains("127.0.0.1"))

        task.cancel()
        try await task.value
        _ = try await waitFor { !$0.contains { $0.name == "\(name) (codex-bridge)" } }
    }

    @Test func collisionTakesTheAlternativeName() async throws {
        let name = "dup-\(UInt32.random(in: 0...UInt32.max))"
        let (logger1, _) = RecordingLogHandler.logger()
        let (logger2, log2) = RecordingLogHandler.logger()
        let ad = MDNSAdvertisement(name: name, type: Self.type, port: 4243, txt: ["id": "a"])
        var ad2 = ad
        ad2.txt = ["id": "b"]
        let first = Task { try await MDNSPublisher(advertisement: ad, logger: logger1).run() }
        _ = try await waitFor { $0.contains { $0.name == "\(name) (codex-bridge)" } }
        let second = Task { try await MDNSPublisher(advertisement: ad2, logger: logger2).run() }

        let found = try await waitFor { $0.filter { $0.name.hasPrefix(name) }.count == 2 }
        #expect(Set(found.filter { $0.name.hasPrefix(name) }.map(\.name)) == ["\(name) (codex-bridge)", "\(name) (codex-bridge) #2"])
        #expect(log2.contains("advertising as \"\(name) (codex-bridge) #2\""))

        first.cancel()
        second.cancel()
        try await first.value
        try await second.value
    }
}

extension LiveAvahiTests {
    @Test func portZeroWaitsForTheBoundPort() async throws {
        let name = "late-\(UInt32.random(in: 0...UInt32.max))"
        let (logger, log) = RecordingLogHandler.logger()
        let publisher = MDNSPublisher(
            advertisement: MDNSAdvertisement(name: name, type: Self.type, port: 0, txt: ["id": "z"]), logger: logger)
        let task = Task { try await publisher.run() }
        try await eventually("the publisher waits for the port") { log.contains(Self.waitingForThePort) }
        publisher.serverListening(port: 4321)
        let found = try await waitFor { $0.contains { $0.name == "\(name) (codex-bridge)" } }
        #expect(found.first { $0.name == "\(name) (codex-bridge)" }?.port == 4321)
        task.cancel()
        try await task.value
    }

    @Test func cancelledWhileWaitingForThePortReturns() async throws {
        let (logger, log) = RecordingLogHandler.logger()
        let publisher = MDNSPublisher(
            advertisement: MDNSAdvertisement(name: "never", type: Self.type, port: 0, txt: [:]), logger: logger)
        let task = Task { try await publisher.run() }
        try await eventually("the publisher waits for the port") { log.contains(Self.waitingForThePort) }
        task.cancel()
        try await task.value
    }
}

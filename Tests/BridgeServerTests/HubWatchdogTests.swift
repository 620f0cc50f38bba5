import BridgeHub
import BridgeProtocol
import Synchronization
import Testing

@testable import BridgeServer

/// `/healthz` tells a stuck hub from a live one (issue 22, finding 1).
@Suite(.timeLimit(.minutes(1))) struct HubWatchdogTests {
    /// A hub that answers `isResponsive` only while `stuck` is false (then it waits, as an actor stuck in a
    /// blocking call would never run the call at all).
    final class Hub: RequestHandling {
        let stuck = Atomic<Bool>(false)
        func sessionOpened(_ session: ClientSession) async -> SessionOpening { SessionOpening() }
        func sessionReady(_ session: ClientSession) async {}
        func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
            .error(ErrorMessage(id: id, code: .codexUnavailable, message: "none"))
        }
        func acknowledged(_ seq: Int64, session: ClientSession) async {}
        func sessionClosed(_ session: ClientSession) async {}
        func isResponsive() async -> Bool {
            while stuck.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(10)) }
            return true
        }
    }

    func waitUntil(_ watchdog: HubWatchdog, isResponsive expected: Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while watchdog.isResponsive != expected {
            try #require(ContinuousClock.now < deadline, "the watchdog never said \(expected)")
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func aHubThatStopsAnsweringIsReportedAndItsRecoveryToo() async throws {
        let hub = Hub()
        let watchdog = HubWatchdog(handler: hub, interval: .milliseconds(20), deadline: .milliseconds(300))
        let running = Task { try await watchdog.run() }
        defer { running.cancel() }
        try await waitUntil(watchdog, isResponsive: true)
        hub.stuck.store(true, ordering: .relaxed)
        try await waitUntil(watchdog, isResponsive: false)
        hub.stuck.store(false, ordering: .relaxed)
        try await waitUntil(watchdog, isResponsive: true)
    }
}

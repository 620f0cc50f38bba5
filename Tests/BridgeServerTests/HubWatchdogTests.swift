import BridgeHub
import BridgeProtocol
import Eventually
import Synchronization
import Testing

@testable import BridgeServer

/// `/healthz` tells a stuck hub from a live one (issue 22, finding 1).
@Suite(.timeLimit(.minutes(1))) struct HubWatchdogTests {
    /// A hub that answers `isResponsive` only while it is not stuck (then it waits until it is let go, as an actor
    /// stuck in a blocking call would never run the call at all).
    final class Hub: RequestHandling {
        private let stuck = Mutex<Gate?>(nil)
        func stick() { stuck.withLock { $0 = Gate() } }
        func letGo() {
            let gate = stuck.withLock { gate in
                defer { gate = nil }
                return gate
            }
            gate?.open()
        }
        func sessionOpened(_ session: ClientSession) async -> SessionOpening { SessionOpening() }
        func sessionReady(_ session: ClientSession) async {}
        func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
            .error(ErrorMessage(id: id, code: .codexUnavailable, message: "none"))
        }
        func acknowledged(_ seq: Int64, session: ClientSession) async {}
        func sessionClosed(_ session: ClientSession) async {}
        func isResponsive() async -> Bool {
            await stuck.withLock { $0 }?.wait()
            return true
        }
    }

    func waitUntil(_ watchdog: HubWatchdog, isResponsive expected: Bool) async throws {
        try await eventually("the watchdog to say \(expected)") { watchdog.isResponsive == expected }
    }

    @Test func aHubThatStopsAnsweringIsReportedAndItsRecoveryToo() async throws {
        let hub = Hub()
        let watchdog = HubWatchdog(handler: hub, interval: .milliseconds(20), deadline: .milliseconds(300))
        let running = Task { try await watchdog.run() }
        defer { running.cancel() }
        try await waitUntil(watchdog, isResponsive: true)
        hub.stick()
        try await waitUntil(watchdog, isResponsive: false)
        hub.letGo()
        try await waitUntil(watchdog, isResponsive: true)
    }
}

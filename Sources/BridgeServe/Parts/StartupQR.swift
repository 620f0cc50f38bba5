import BridgeOps
import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import Pairing
import ServiceLifecycle

/// The pairing QR on `serve`'s terminal, as a person meets it (issue 37 item 6): shown once Codex runs, so the
/// startup's log lines are above it rather than scrolling it away, and shown again with a fresh code when its
/// code expires, so a person back from lunch does not scan a dead one. After ``refreshes`` fresh codes it says
/// how to get another instead (a terminal left alone for hours does not fill with codes). Not a terminal, or
/// `--no-qr`: one log line saying to run `codex-bridge pair`. Never logs a code.
package struct StartupQR: Service, CustomStringConvertible {
    /// What the QR needs, known once the server listens.
    package struct Invitation: Sendable {
        let registry: DeviceRegistry
        let identity: ServerIdentity
        let port: Int
        let addresses: [CandidateAddress]
        let fingerprint: String?
        let trustFirst: Bool
    }

    /// Yields the invitation once, when the server listens.
    package let invitations: AsyncStream<Invitation>
    /// Whether Codex runs yet (the QR waits for it, at most ``codexWait``).
    package let codexRunning: @Sendable () async -> Bool
    package let show: Bool
    package let ttl: Duration
    package let logger: Logger
    package var refreshes = 6
    package var codexWait: Duration = .seconds(15)
    /// Where the QR goes (stdout).
    package var write: @Sendable (String) -> Void = { Terminal.drawing($0) }

    package var description: String { "StartupQR" }

    /// Returns when it has nothing more to show (its service is `successTerminationBehavior: .ignore`), or on
    /// shutdown.
    package func run() async throws {
        do { try await showAndRefresh() } catch is CancellationError {}
    }

    private func showAndRefresh() async throws {
        try await cancelWhenGracefulShutdown {
            var iterator = invitations.makeAsyncIterator()
            guard let invitation = await iterator.next() else { return }
            guard show else {
                logger.notice("\(ServePairing.pairHint)")
                return
            }
            let deadline = ContinuousClock.now + codexWait
            while await !codexRunning(), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            for round in 0...refreshes {
                let heading =
                    round == 0
                    ? "Scan with your phone's camera to open codex-bridge in its browser and pair it:"
                    : "The last pairing code expired. A fresh one (scan it with your phone's camera):"
                guard await show(invitation, heading: heading) else { return }
                try await Task.sleep(for: ttl)
            }
            write("\nThe pairing code expired. To pair a phone, run `codex-bridge pair` in a terminal.\n")
        }
    }

    /// Mints a code and prints its QR; false (and the hint logged) when that fails.
    private func show(_ invitation: Invitation, heading: String) async -> Bool {
        do {
            let minted = try await PairingInvitation.mint(
                registry: invitation.registry, ttl: ttl, identity: invitation.identity, port: invitation.port,
                addresses: invitation.addresses, fingerprint: invitation.fingerprint, trustFirst: invitation.trustFirst)
            write("\n\(heading)\n\n" + (try minted.terminalText()) + "\n")
            return true
        } catch {
            logger.warning("Cannot show the pairing QR code", metadata: ["error": "\(error)"])
            logger.notice("\(ServePairing.pairHint)")
            return false
        }
    }
}

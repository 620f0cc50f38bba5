import BridgeOps
import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import Pairing
import ServiceLifecycle

/// The pairing QR on `serve`'s terminal, as a person meets it (issue 37 item 6, issue 46 item 4): shown once
/// Codex runs, so the startup's log lines are above it rather than scrolling it away, as a
/// ``TerminalPairingCard`` (the details first, the QR code and its caption last, fitting 80×24); shown again on
/// Enter (when stdin is a terminal: ``TerminalInput``), and with a fresh code when its code expires, so a person
/// back from lunch does not scan a dead one. After ``refreshes`` fresh codes it says how to get another instead
/// (a terminal left alone for hours does not fill with codes); Enter then mints one. Not a terminal, or
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
    /// Lines typed on serve's terminal that no question took (``TerminalInput/enters``): each shows the card
    /// again. Nil when stdin is no terminal.
    package var enters: AsyncStream<Void>?
    package let logger: Logger
    package var refreshes = 6
    package var codexWait: Duration = .seconds(15)
    /// Where the QR goes (stdout).
    package var write: @Sendable (String) -> Void = { Terminal.drawing($0) }

    package var description: String { "StartupQR" }

    package init(
        invitations: AsyncStream<Invitation>, codexRunning: @escaping @Sendable () async -> Bool, show: Bool, ttl: Duration,
        enters: AsyncStream<Void>? = nil, logger: Logger
    ) {
        self.invitations = invitations
        self.codexRunning = codexRunning
        self.show = show
        self.ttl = ttl
        self.enters = enters
        self.logger = logger
    }

    /// Returns when it has nothing more to show (its service is `successTerminationBehavior: .ignore`), or on
    /// shutdown.
    package func run() async throws {
        do { try await showAndRefresh() } catch is CancellationError {}
    }

    private enum Event: Sendable {
        case enter
        case inputEnded
        /// The code minted as number `serial` expired.
        case expired(serial: Int)
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
            await withTaskGroup(of: Void.self) { group in
                let (events, event) = AsyncStream.makeStream(of: Event.self)
                var listening = enters != nil
                if let enters {
                    group.addTask {
                        for await _ in enters { event.yield(.enter) }
                        event.yield(.inputEnded)
                    }
                }
                var shown: PairingInvitation?
                var serial = 0
                var left = refreshes
                func mint(heading: String) async {
                    shown = await show(invitation, heading: heading)
                    serial += 1
                    guard shown != nil else { return }
                    group.addTask { [ttl, serial] in
                        guard (try? await Task.sleep(for: ttl)) != nil else { return }  // cancelled: nothing more is shown
                        event.yield(.expired(serial: serial))
                    }
                }
                await mint(heading: "Pair a phone with codex-bridge: scan the QR code below with the phone's camera.")
                guard shown != nil else {
                    group.cancelAll()
                    return
                }
                for await next in events {
                    switch next {
                    case .expired(serial) where left > 0:
                        left -= 1
                        await mint(heading: "The last pairing code expired. A fresh one (scan it with your phone's camera):")
                    case .expired(serial):
                        shown = nil
                        let enter = listening ? " (or press Enter here)" : ""
                        write("\nThe pairing code expired. To pair a phone, run `codex-bridge pair` in a terminal\(enter).\n")
                    case .expired: break  // a code shown before the one now shown
                    case .enter:
                        if let shown {
                            write(card(shown, heading: "The pairing QR code again (scan it with your phone's camera):"))
                        } else {
                            left = refreshes
                            await mint(heading: "A fresh pairing code (scan it with your phone's camera):")
                        }
                    case .inputEnded:
                        listening = false
                    }
                    if shown == nil, !listening { break }
                }
                group.cancelAll()
            }
        }
    }

    /// Mints a code and prints its card; nil (and the hint logged) when that fails.
    private func show(_ invitation: Invitation, heading: String) async -> PairingInvitation? {
        do {
            let minted = try await PairingInvitation.mint(
                registry: invitation.registry, ttl: ttl, identity: invitation.identity, port: invitation.port,
                addresses: invitation.addresses, fingerprint: invitation.fingerprint, trustFirst: invitation.trustFirst)
            write(card(minted, heading: heading))
            return minted
        } catch {
            logger.warning("Cannot show the pairing QR code", metadata: ["error": "\(error)"])
            logger.notice("\(ServePairing.pairHint)")
            return nil
        }
    }

    /// The heading, the card's details, then its QR code and caption, last.
    private func card(_ minted: PairingInvitation, heading: String) -> String {
        let card = TerminalPairingCard(minted, againKey: enters == nil ? nil : "Enter")
        do {
            return "\n\(heading)\n" + card.details() + "\n" + (try card.block())
        } catch {
            logger.warning("Cannot show the pairing QR code", metadata: ["error": "\(error)"])
            return "\n\(heading)\n" + card.details()
        }
    }
}

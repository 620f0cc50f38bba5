import BridgeStore
import Eventually
import Foundation
import Logging
import Pairing
import Synchronization
import Testing

@testable import BridgeServe

/// The pairing QR as `serve` writes it to its terminal (issue 46 item 4): the code and its caption are the last
/// 23 lines (an 80×24 terminal shows them whole, with the cursor's line), the details above; Enter shows it
/// again; an expired code is replaced, and after the last one Enter mints another. Cost: about 3 s (codes that
/// live 1 s).
@Suite(.timeLimit(.minutes(1))) struct StartupQRTests {
    /// What serve wrote, one element per write.
    final class Screen: Sendable {
        let writes = Mutex<[String]>([])

        /// The writes once there are `count` (a throw, not a crash on `[0]`, when they never come: a 10 s wait
        /// ran out once under load and took the whole suite down with it).
        func wait(for count: Int) async throws -> [String] {
            try await eventually("\(count) writes; so far \(writes.withLock { $0 })") {
                let now = writes.withLock { $0 }
                return now.count >= count ? now : nil
            }
        }
    }

    let root = FileManager.default.temporaryDirectory.appendingPathComponent("startup-qr-\(UUID().uuidString)")

    /// A StartupQR for a workstation at 192.168.100.200:9099, already listening, Codex running.
    func startupQR(ttl: Duration, refreshes: Int = 6, enters: AsyncStream<Void>? = nil) throws -> (StartupQR, Screen) {
        let logger = Logger(label: "startup-qr") { _ in SwiftLogNoOpLogHandler() }
        let paths = StatePaths(configDirectory: root.appendingPathComponent("config"), stateDirectory: root.appendingPathComponent("state"))
        let (invitations, listening) = AsyncStream.makeStream(of: StartupQR.Invitation.self)
        listening.yield(
            StartupQR.Invitation(
                registry: try ServePairing.openRegistry(paths: paths, logger: logger), identity: ServerIdentity(id: "q2Xv", name: "box"),
                port: 9099, addresses: [CandidateAddress(host: "192.168.100.200", kind: .lanIPv4)], fingerprint: nil, trustFirst: false))
        var qr = StartupQR(invitations: invitations, codexRunning: { true }, show: true, ttl: ttl, logger: logger)
        qr.enters = enters
        qr.refreshes = refreshes
        let screen = Screen()
        qr.write = { text in screen.writes.withLock { $0.append(text) } }
        return (qr, screen)
    }

    static func code(_ text: String) -> String? {
        text.firstMatch(of: /#pair=v1&code=([0-9A-Z]+)/).map { String($0.1) }
    }

    @Test func theQRAndItsCaptionComeLastAndFitEightyByTwentyFour() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let (qr, screen) = try startupQR(ttl: .seconds(600))
        let running = Task { try await qr.run() }
        defer { running.cancel() }
        let text = try await screen.wait(for: 1)[0]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let glyphs = lines.indices.filter { !lines[$0].isEmpty && lines[$0].allSatisfy { "█▀▄ ".contains($0) } }
        // From the QR code's first line to the end: what must stay on the screen, each line one row.
        let card = lines[(glyphs.first ?? 0)...]
        #expect(card.count <= 23, "the QR code and its caption are \(card.count) lines:\n\(text)")
        #expect(card.last == "The link, addresses and scopes are above.")  // stdin is no terminal here: no Enter
        for line in card { #expect(line.count <= 80, "\(line.count) columns: \(line)") }
        // The code is the link the details offer to type (TerminalPairingCardTests: zbarimg reads it at this size).
        let link = try #require(lines.first { $0.hasPrefix("  http://") }?.dropFirst(2))
        #expect(link == "http://192.168.100.200:9099/#pair=v1&code=\(try #require(Self.code(text)))")
        let drawn = TerminalPairingCard.renderer.lines(try QRCode(encoding: String(link), level: TerminalPairingCard.level))
        #expect(glyphs.map { lines[$0] } == drawn)
    }

    @Test func enterShowsItAgainAndAfterTheLastFreshCodeEnterMintsOne() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let (enters, enter) = AsyncStream.makeStream(of: Void.self)
        let (qr, screen) = try startupQR(ttl: .seconds(1), refreshes: 1, enters: enters)
        let running = Task { try await qr.run() }
        defer { running.cancel() }
        let first = try await screen.wait(for: 1)[0]
        enter.yield()
        let again = try await screen.wait(for: 2)[1]
        #expect(again.contains("The pairing QR code again") && Self.code(again) == Self.code(first))
        let fresh = try await screen.wait(for: 3)[2]
        #expect(fresh.contains("The last pairing code expired. A fresh one") && Self.code(fresh) != Self.code(first))
        let expired = try await screen.wait(for: 4)[3]
        #expect(expired.contains("run `codex-bridge pair` in a terminal (or press Enter here)"))
        #expect(Self.code(expired) == nil)
        enter.yield()
        let minted = try await screen.wait(for: 5)[4]
        #expect(minted.contains("A fresh pairing code") && Self.code(minted) != nil && Self.code(minted) != Self.code(fresh))
    }
}

import BridgeProtocol
import BridgeStore
import Foundation
import Pairing
import Testing

/// Issue 46 item 4: the QR code(s) `serve` prints last, with their caption, fit an 80×24 terminal (23 lines, the
/// cursor's is the 24th) for the pairing links a workstation really has, and zbarimg reads each from the text
/// turned into an image at that size. Cost: about 0.1 s per case (zbarimg).
@Suite("Terminal pairing card")
struct TerminalPairingCardTests {
    /// A workstation: the host the link names, TLS or not, the workstation's CA or a certificate of its own.
    struct Workstation: Sendable, CustomTestStringConvertible {
        var host: String
        var kind: CandidateAddress.Kind
        var fingerprint: String?
        var trustFirst = false
        var testDescription: String { "\(host)\(fingerprint == nil ? "" : trustFirst ? " (serve --tls)" : " (--tls-cert)")" }
    }

    static let fingerprint = "590d63a3b3e565006d519f356c40d6868d39f46c3d420951a8e7d2dcd6fa7bfe"
    static let workstations = [
        Workstation(host: "192.168.100.200", kind: .lanIPv4),
        Workstation(host: "192.168.100.200", kind: .lanIPv4, fingerprint: fingerprint),
        Workstation(host: "192.168.100.200", kind: .lanIPv4, fingerprint: fingerprint, trustFirst: true),
        Workstation(host: "2001:db8:1234:5678:9abc:def0:1234:5678", kind: .lanIPv6, fingerprint: fingerprint, trustFirst: true),
        Workstation(host: "my-workstation.tail1234.ts.net", kind: .magicDNS, fingerprint: fingerprint),
    ]

    static func card(_ workstation: Workstation) throws -> TerminalPairingCard {
        // The longest name a host has is no matter: the QR code's link leaves it out.
        let invitation = try PairingInvitation(
            credential: .pairingCode("7K3QZ9M2XA"), code: PairingCode(code: "7K3QZ9M2XA", expiresAt: Date() + 600),
            identity: ServerIdentity(id: "q2Xv-9aZ0bCdEfGhIjKlMn", name: "Ana’s big workstation in the office (büro)"), port: 9099,
            addresses: [CandidateAddress(host: workstation.host, kind: workstation.kind)], fingerprint: workstation.fingerprint,
            trustFirst: workstation.trustFirst)
        return TerminalPairingCard(invitation)
    }

    @Test(arguments: workstations)
    func fitsEightyByTwentyFourAndZbarReadsIt(_ workstation: Workstation) throws {
        let card = try Self.card(workstation)
        let lines = try card.block().split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count <= 23, "\(lines.count) lines:\n\(lines.joined(separator: "\n"))")
        for line in lines { #expect(line.count <= 80, "\(line.count) columns: \(line)") }
        let glyphs = lines.filter { $0.allSatisfy { "█▀▄ ".contains($0) } }
        #expect(glyphs.count >= lines.count - 3)  // the codes, their labels and the caption
        let rows = try TerminalQRTests.modules(fromText: glyphs.joined(separator: "\n"), glyphs: .plain)
        let result = try TerminalQRTests().zbar(rows)
        #expect(result.status == 0, "zbarimg exit \(result.status) (4 = no symbol found)")
        let read = Set(String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init))
        #expect(read == Set(card.scans.map(\.url)))
        // The pairing link is the shortest: the code and nothing else a phone's browser needs.
        let scheme = workstation.fingerprint == nil ? "http" : "https"
        let authority = workstation.host.contains(":") ? "[\(workstation.host)]:9099" : "\(workstation.host):9099"
        #expect(card.scans.last?.url == "\(scheme)://\(authority)/#pair=v1&code=7K3QZ9M2XA")
        #expect(try PairingURL(parsing: card.scans.last!.url).credential == .pairingCode("7K3QZ9M2XA"))
    }

    @Test func theCaptionNamesTheCodeItsExpiryAndTheKey() throws {
        let card = try Self.card(Self.workstations[0])
        let caption = try card.block().split(separator: "\n").suffix(2)
        #expect(caption.first?.hasPrefix("Scan with your phone's camera to pair (code 7K3QZ-9M2XA, expires ") == true)
        #expect(caption.last == "Enter shows it again. The link, addresses and scopes are above.")
        var quiet = card
        quiet.againKey = nil
        #expect(try quiet.block().split(separator: "\n").last == "The link, addresses and scopes are above.")
        // The details hold the link to type instead, on a line of its own, and what `pair` says besides.
        let details = card.details()
        #expect(details.contains("\n  http://192.168.100.200:9099/#pair=v1&code=7K3QZ9M2XA\n"))
        #expect(details.contains("Code 7K3QZ-9M2XA: single use, expires in 10 min"))
        let trustFirst = try Self.card(Self.workstations[2])
        let labels = try trustFirst.block().split(separator: "\n").suffix(2)
        #expect(labels.first?.hasPrefix("1. Once per phone: trust") == true && labels.first?.hasSuffix("  2. Then scan to pair") == true)
        #expect(labels.last?.hasSuffix(". Enter shows them again.") == true)
    }

    /// The drawing's quiet zone is the margin on every side; an odd margin is a half line above and below.
    @Test func quietZoneOfTwoModules() throws {
        let code = try QRCode(encoding: "http://192.168.1.20:9099/#pair=v1&code=7K3QZ9M2XA", level: .low)
        #expect(code.width == 29)  // version 3: L holds 53 bytes
        let lines = TerminalPairingCard.renderer.lines(code)
        #expect(lines.count == (29 + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == 33 && $0.hasPrefix("██") && $0.hasSuffix("██") })
        #expect(lines.first == String(repeating: "█", count: 33))
        // 33 rows: the last line's lower half is the padding row, light.
        #expect(lines.last == String(repeating: "█", count: 33))
        let odd = TerminalQRRenderer(margin: 1).lines(code)
        #expect(odd.count == (29 + 2 + 1) / 2 && odd.first?.contains("▀") == true)  // light over the finder patterns
    }
}

import BridgeProtocol
import Foundation
import Testing

@testable import BridgeServe
@testable import BridgeStore
@testable import codex_bridge

/// Regression (issue 31, finding 6): `codex-bridge audit` and `devices list|pending` printed what a device chose
/// (its name, a thread id, a startThread's cwd) raw, so any paired device, even observe-only, could put escape
/// sequences on the owner's terminal. Every cell is shown with one rule (``ControlCharacters``), and the JSON
/// outputs stay JSON that decodes to the very same text.
@Suite struct TerminalOutputTests {
    /// A clipboard write (OSC 52), a title change, a CSI as one C1 character, a bidi override, a zero-width
    /// space, a fake line and a tag character.
    static let hostile = "Ana\u{1B}]52;c;Y3VybCB4fHNo\u{07}\u{1B}]0;title\u{07}\u{9B}2J\u{202E}txt.exe\u{200B}\nFAKE\u{E0041}"

    static func isRaw(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: scalar != "\n"
        default: false
        }
    }

    static func rawLines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    @Test func auditTableAndJSONShowNoControlCharacter() throws {
        let entry = AuditEntry(
            id: 7, at: 1_800_000_000, actor: .device, deviceId: "k3q9m2xa7bzt", deviceName: Self.hostile, address: "192.168.1.20",
            kind: "startThread", threadId: Self.hostile, outcome: "outside_roots", detail: "/home/ana/" + Self.hostile)
        let table = AuditCommand.table([entry])
        #expect(!table.unicodeScalars.contains(where: Self.isRaw))
        #expect(Self.rawLines(table).count == 2, "a header and one row: \(table)")
        #expect(table.contains(#"Ana\u{1B}]52;c;"#) && table.contains(#"\u{202E}txt.exe\u{200B}\nFAKE\u{E0041}"#))
        let line = try AuditCommand.jsonLine(entry)
        #expect(!line.unicodeScalars.contains(where: Self.isRaw) && !line.contains("\n"))
        let decoded = try JSONDecoder().decode(AuditCommand.Line.self, from: Data(line.utf8))
        #expect(decoded.deviceName == Self.hostile && decoded.threadId == Self.hostile && decoded.detail == "/home/ana/" + Self.hostile)
    }

    @Test func devicesListAndPendingShowNoControlCharacter() throws {
        let record = DeviceRecord(
            id: "k3q9m2xa7bzt", name: Self.hostile, platform: Self.hostile, tokenHash: Data(repeating: 1, count: 32),
            pairedAt: Date(timeIntervalSince1970: 1_800_000_000), lastSeenAt: nil, lastAddress: nil, revokedAt: nil, ackedSeq: 0)
        let list = DevicesCommand.List.table([DevicesCommand.Entry(record)])
        #expect(!list.unicodeScalars.contains(where: Self.isRaw) && Self.rawLines(list).count == 2, "\(list)")
        let pending = PairingRequestRecord(
            deviceId: "k3q9m2xa7bzt", name: Self.hostile, platform: Self.hostile, address: "192.168.1.20", checkCode: "1234",
            scopes: .standard, createdAt: Date(timeIntervalSince1970: 1_800_000_000), expiresAt: Date(timeIntervalSince1970: 1_800_000_300))
        let table = DevicesCommand.Pending.table([DevicesCommand.PendingEntry(pending)])
        #expect(!table.unicodeScalars.contains(where: Self.isRaw) && Self.rawLines(table).count == 3, "\(table)")
        let json = try DevicesCommand.json([DevicesCommand.Entry(record)])
        #expect(!json.unicodeScalars.contains(where: Self.isRaw))
        let names = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        #expect(names?.first?["name"] as? String == Self.hostile)
    }
}

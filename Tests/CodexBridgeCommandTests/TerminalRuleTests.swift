import BridgeOps
import BridgeProtocol
import BridgeStore
import Foundation
import Testing

@testable import codex_bridge

/// Issue 44, item 4: `machines add URL` printed what the other bridge sent raw (its check code, device id, name,
/// its error messages). One rule (``Terminal``, over ``ControlCharacters``) for every terminal line the commands
/// and `serve` write: ESC and so CSI and OSC sequences, C0 and C1 controls, DEL, bidi overrides and isolates,
/// zero-width characters show as `\u{…}`, visible and harmless; a network value cannot start a line of its own.
@Suite struct TerminalRuleTests {
    /// OSC 52 (clipboard write), OSC 0 (title), CSI as ESC [ (erase the line, cursor up), CSI as one C1 character,
    /// OSC as one C1 character, BEL, DEL, C0, a right-to-left override and an isolate, a zero-width space, a fake
    /// line, a line separator.
    static let hostile =
        "ok\u{1B}]52;c;Y3VybCB4fHNo\u{07}\u{1B}]0;pwned\u{1B}\\\u{1B}[2K\u{1B}[1A\u{9B}31m\u{9D}8;;x\u{9C}\u{7F}\u{01}"
        + "\u{202E}exe.txt\u{2066}\u{200B}\nFAKE: done\u{2028}"

    static func isRaw(_ scalar: Unicode.Scalar, allowingLineBreaks: Bool) -> Bool {
        if allowingLineBreaks, scalar == "\n" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    @Test func everyControlIsShownVisibleAndHarmless() {
        let field = Terminal.field(Self.hostile)
        #expect(!field.unicodeScalars.contains { Self.isRaw($0, allowingLineBreaks: false) }, "\(field)")
        for escape in [
            #"\u{1B}]52;c;"#, #"\u{1B}[2K"#, #"\u{9B}31m"#, #"\u{9D}"#, #"\u{7}"#, #"\u{7F}"#, #"\u{1}"#, #"\u{202E}"#, #"\u{2066}"#,
            #"\u{200B}"#, #"\n"#, #"\u{2028}"#,
        ] {
            #expect(field.contains(escape), "\(escape) in \(field)")
        }
        // A whole line: its own line breaks stay, nothing else acts on the terminal.
        let line = Terminal.rendered("Linked \(Terminal.field(Self.hostile)).\nNext line\r\n")
        #expect(!line.unicodeScalars.contains { Self.isRaw($0, allowingLineBreaks: true) })
        #expect(line.split(separator: "\n").count == 2)
        // Even a value that skipped field(): no escape sequence reaches the terminal.
        #expect(!Terminal.rendered(Self.hostile).unicodeScalars.contains { Self.isRaw($0, allowingLineBreaks: true) })
    }

    @Test func machinesAddShowsThePendingPairingAsText() {
        let pending = PairingPending(deviceId: Self.hostile, check: "04\u{1B}[2J27" + String(repeating: "9", count: 1000), expiresAt: 0)
        let text = "The other workstation confirms pairings: there, allow " + MachinesCommand.pendingText(pending)
        #expect(!text.unicodeScalars.contains { Self.isRaw($0, allowingLineBreaks: false) }, "\(text)")
        #expect(text.count < 400, "cut to what a check code and a device id can be")
    }

    @Test func machinesListShowsNamesAndReasonsAsText() {
        let machine = MachineStore.Machine(
            id: "srv", name: Self.hostile, addresses: ["10.0.0.2"], port: 9099, fingerprint: nil, deviceId: "d", token: "t", clientId: "c",
            state: "offline", errorCode: "bad_frame", errorMessage: Self.hostile)
        let table = DevicesCommand.columns(
            [["ID", "NAME", "STATE", "LAST CLOSED FOR"]]
                + [MachinesCommand.Entry(machine)].map { [$0.id, $0.name, $0.state, $0.error?.message ?? ""] })
        #expect(!table.unicodeScalars.contains { Self.isRaw($0, allowingLineBreaks: true) } && table.split(separator: "\n").count == 2)
        let json = (try? DevicesCommand.json([MachinesCommand.Entry(machine)])) ?? ""
        #expect(!json.unicodeScalars.contains { Self.isRaw($0, allowingLineBreaks: true) })
    }

    @Test func aFailureIsOneLineOfText() {
        let text = CodexBridge.errorText(
            for: CommandFailure("cannot pair with the other bridge: the bridge refused the connection: " + Self.hostile))
        #expect(text.hasPrefix("error: cannot pair"))
        #expect(!text.unicodeScalars.contains { Self.isRaw($0, allowingLineBreaks: false) }, "\(text)")
    }

    /// The rule is used everywhere: no command or part of `serve` writes to the terminal but through ``Terminal``
    /// (the pairing QR through ``Terminal/drawing(_:)``, its own drawing).
    @Test func everyTerminalWriteGoesThroughTheRule() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let banned = [#"(?<![\w.])print\("#, #"FileHandle\.standard(Output|Error)"#, #"\bfputs\("#, #"\bputs\("#]
        var offenders: [String] = []
        for directory in ["Sources/codex-bridge", "Sources/BridgeServe"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(directory), includingPropertiesForKeys: nil)
            while let file = enumerator?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    if banned.contains(where: { line.range(of: $0, options: .regularExpression) != nil }) {
                        offenders.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}

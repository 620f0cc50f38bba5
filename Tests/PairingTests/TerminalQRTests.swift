import BridgeProtocol
import Foundation
import Pairing
import Testing

/// The honest QR test: the text a terminal would show is turned back into an image, and `zbarimg` must read
/// exactly the URL from it.
@Suite("Terminal QR")
struct TerminalQRTests {
    static let shortURL = PairingURL(
        host: "192.168.1.20", port: 8765, credential: .pairingCode("7K3QZ9M2XA"), addresses: ["192.168.1.20"],
        serverId: "q2Xv-9aZ0bC", serverName: "box"
    ).string

    static let longURL = PairingURL(
        host: "192.168.1.20", port: 8765, credential: .pairingCode("7K3QZ9M2XA"),
        addresses: ["192.168.1.20", "10.0.0.7", "172.20.10.2", "100.101.102.103", "workstation.tail1234.ts.net"]
            + (1...12).map { "2001:db8:1234:5678:9abc:def0:1234:\(String($0, radix: 16))" }
            + ["fd7a:115c:a1e0::9", "fd00:1:2:3::7"],
        serverId: "q2Xv-9aZ0bCdEfGhIjKlMn", serverName: "Ana’s Workstation (büro)", fingerprint: String(repeating: "AB:", count: 31) + "CD"
    ).string

    @Test(arguments: [shortURL, longURL])
    func zbarReadsThePlainRendering(url: String) throws {
        let text = TerminalQRRenderer().render(try QRCode(encoding: url))
        #expect(try zbarDecode(text, lightGlyphs: .plain) == url)
    }

    @Test(arguments: [shortURL, longURL])
    func zbarReadsTheANSIAndInvertedRenderings(url: String) throws {
        let code = try QRCode(encoding: url)
        let ansi = TerminalQRRenderer(style: .ansi).render(code)
        for line in ansi.split(separator: "\n") {
            #expect(line.hasPrefix("\u{1B}[40;37;1m") && line.hasSuffix("\u{1B}[0m"))
        }
        #expect(try zbarDecode(ansi, lightGlyphs: .plain) == url)
        #expect(try zbarDecode(TerminalQRRenderer(invert: true).render(code), lightGlyphs: .inverted) == url)
    }

    /// The decoding path is not vacuous: the same text read with light and dark swapped is no QR code.
    @Test func zbarRejectsTheWrongPolarity() throws {
        let text = TerminalQRRenderer().render(try QRCode(encoding: Self.shortURL))
        let rows = try Self.modules(fromText: text, glyphs: .inverted)
        let result = try zbar(rows)
        #expect(result.status == 4, "zbarimg should find no symbol")
    }

    @Test func shapeOfTheDrawing() throws {
        let code = try QRCode(encoding: Self.shortURL)
        let lines = TerminalQRRenderer().render(code).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")  // ends with a newline
        let body = lines.dropLast()
        #expect(body.count == 2 + (code.width + 1) / 2 + 2)  // margin/2 lines, two rows per line, margin/2 lines
        for line in body { #expect(line.count == code.width + 8) }
        #expect(body.first == Substring(String(repeating: "█", count: code.width + 8)))
    }

    /// Byte for byte what `qrencode -t UTF8` / `-t ANSIUTF8` prints, when the CLI (Debian `qrencode`) is here.
    @Test(.enabled(if: Self.executable("qrencode") != nil, "qrencode CLI not installed"), arguments: [shortURL, longURL])
    func matchesTheQrencodeCLI(url: String) throws {
        let code = try QRCode(encoding: url)
        let plain = try run(Self.executable("qrencode")!, ["-t", "UTF8", "-l", "M", "-m", "4", "-o", "-", url])
        #expect(String(decoding: plain.output, as: UTF8.self) == TerminalQRRenderer().render(code))
        let ansi = try run(Self.executable("qrencode")!, ["-t", "ANSIUTF8", "-l", "M", "-m", "4", "-o", "-", url])
        #expect(String(decoding: ansi.output, as: UTF8.self) == TerminalQRRenderer(style: .ansi).render(code))
    }

    @Test func payloadTooLong() {
        let payload = String(repeating: "x", count: 3000)
        #expect(throws: QRCodeError.payloadTooLong(byteCount: 3000)) { try QRCode(encoding: payload) }
        #expect("\(QRCodeError.payloadTooLong(byteCount: 3000))" == "payload too long for a QR code (3000 bytes)")
        #expect(throws: QRCodeError.emptyPayload) { try QRCode(encoding: "") }
        // 2331 bytes is the most that fits at level M.
        #expect((try? QRCode(encoding: String(repeating: "x", count: 2331)))?.width == 177)
    }

    // MARK: Text → image → zbarimg

    enum Glyphs { case plain, inverted }

    /// Decodes the terminal text with zbarimg; the URL it read.
    func zbarDecode(_ text: String, lightGlyphs: Glyphs) throws -> String {
        let result = try zbar(try Self.modules(fromText: text, glyphs: lightGlyphs))
        #expect(result.status == 0, "zbarimg exit \(result.status) (4 = no symbol found)")
        var decoded = String(decoding: result.output, as: UTF8.self)
        if decoded.hasSuffix("\n") { decoded.removeLast() }
        return decoded
    }

    /// Writes the modules as a PGM, each module 4×4 pixels, and runs `zbarimg --raw -q` on it.
    func zbar(_ rows: [[Bool]]) throws -> (status: Int32, output: Data) {
        let scale = 4
        let height = rows.count * scale
        let width = (rows.first?.count ?? 0) * scale
        var pgm = Data("P5\n\(width) \(height)\n255\n".utf8)
        for row in rows {
            let line = row.flatMap { dark in [UInt8](repeating: dark ? 0 : 255, count: scale) }
            for _ in 0..<scale { pgm.append(contentsOf: line) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).pgm")
        try pgm.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        guard let zbarimg = Self.executable("zbarimg") else {
            Issue.record("zbarimg not found on PATH: install Debian zbar-tools (Scripts/test does)")
            return (-1, Data())
        }
        return try run(zbarimg, ["--raw", "-q", file.path])
    }

    /// Parses half-block text back into module rows (`true` = dark), two per line.
    static func modules(fromText text: String, glyphs: Glyphs) throws -> [[Bool]] {
        // ESC [ ... m sequences carry no modules.
        let stripped = text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        var rows: [[Bool]] = []
        for line in stripped.split(separator: "\n") {
            var top: [Bool] = []
            var bottom: [Bool] = []
            for character in line {
                // (top dark, bottom dark) for the glyphs that paint light modules.
                let pair: (Bool, Bool)
                switch character {
                case "█": pair = (false, false)
                case " ": pair = (true, true)
                case "▄": pair = (true, false)
                case "▀": pair = (false, true)
                default: throw UnexpectedGlyph(character: character)
                }
                let (t, b) = glyphs == .plain ? pair : (!pair.0, !pair.1)
                top.append(t)
                bottom.append(b)
            }
            rows.append(top)
            rows.append(bottom)
        }
        return rows
    }

    struct UnexpectedGlyph: Error { let character: Character }

    static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let url = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}

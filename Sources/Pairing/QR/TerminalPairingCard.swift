import BridgeProtocol
import BridgeStore
import Foundation

/// What `serve` prints to pair a phone (issue 46 item 4): first the details — the link the QR code holds, the
/// addresses, the TLS fingerprint to check, the code's expiry and scopes — then, last, the QR code(s) and two
/// caption lines, at most ``maxLines`` lines of at most ``maxColumns`` columns: on an 80×24 terminal the
/// details and the startup's log lines may scroll away, the code stays whole on the screen.
///
/// Small by design: the QR code holds the shortest link (``PairingURL/compactWebString``), at error correction L
/// (7 %: a screen is not a torn sticker, and every module fewer makes the modules larger for the camera), with a
/// quiet zone of 2 modules (zbar and phone cameras read it; the terminal's dark background around it is no
/// pattern). With the workstation's CA the trust page's code stands left of the pairing one.
public struct TerminalPairingCard: Sendable {
    /// An 80×24 terminal's width.
    public static let maxColumns = 80
    /// 24 rows, less the one the cursor waits on under the card.
    public static let maxLines = 23
    /// Half blocks, two modules per line; a quiet zone of 2 modules.
    public static let renderer = TerminalQRRenderer(margin: 2)
    /// The lowest error correction.
    public static let level = QRCode.Level.low

    public let invitation: PairingInvitation
    /// The key that shows the card again, as its caption names it; nil when none does (stdin is no terminal).
    public var againKey: String?

    public init(_ invitation: PairingInvitation, againKey: String? = "Enter") {
        self.invitation = invitation
        self.againKey = againKey
    }

    /// The QR codes, left to right: the pairing link alone; with the workstation's CA, first the trust page.
    public var scans: [PairingInvitation.Scan] {
        let pair = invitation.url.compactWebString
        guard let trust = invitation.url.trustString else { return [.init(title: "", url: pair)] }
        return [.init(title: "1. Once per phone: trust", url: trust), .init(title: "2. Then scan to pair", url: pair)]
    }

    /// Everything but the QR codes: the links to type instead of scanning, then ``PairingInvitation/details(now:codes:)``.
    public func details(now: Date = Date()) -> String {
        let links =
            scans.count == 1
            ? "Or open this link on the phone:\n  \(scans[0].url)\n"
            : "\(scans[0].title) this workstation (no secret in this link):\n  \(scans[0].url)\n\(scans[1].title):\n  \(scans[1].url)\n"
        return links + invitation.details(now: now, codes: scans.count)
    }

    /// The QR codes side by side, then the two caption lines; every line ends in `\n`.
    /// - Throws: ``QRCodeError`` when a link does not fit a QR code.
    public func block(now: Date = Date()) throws(QRCodeError) -> String {
        var columns: [[String]] = []
        for scan in scans { columns.append(Self.renderer.lines(try QRCode(encoding: scan.url, level: Self.level))) }
        let widths = columns.map { $0.first?.count ?? 0 }
        let gap = "  "
        var lines = (0..<(columns.map(\.count).max() ?? 0)).map { row in
            zip(columns, widths).map { lines, width in row < lines.count ? lines[row] : String(repeating: " ", count: width) }
                .joined(separator: gap)
        }
        if scans.count > 1 {
            let left = scans[0].title.padding(toLength: max(widths[0], scans[0].title.count), withPad: " ", startingAt: 0)
            lines.append(left + gap + scans[1].title)
        }
        lines += captions(now: now, labelled: scans.count > 1)
        return lines.map { $0.trimmedAtEnd + "\n" }.joined()
    }

    /// What the caption says: the code, its expiry and the key that shows the card again, and for one code what to
    /// do with it (two are labelled above).
    private func captions(now: Date, labelled: Bool) -> [String] {
        let code = invitation.code.map { "code \($0.grouped), expires \($0.expiresAt.formatted(date: .omitted, time: .standard))" }
        if labelled {
            let what = code.map { "The c\($0.dropFirst())." } ?? "The second code holds the shared secret."
            return [what + (againKey.map { " \($0) shows them again." } ?? "")]
        }
        let scan =
            code.map { "Scan with your phone's camera to pair (\($0))." }
            ?? "Scan with your phone's camera to connect (the code holds the shared secret)."
        return [scan, (againKey.map { "\($0) shows it again. " } ?? "") + "The link, addresses and scopes are above."]
    }
}

extension String {
    /// Without the spaces at its end (a shorter code's padding).
    fileprivate var trimmedAtEnd: Substring {
        guard let last = lastIndex(where: { $0 != " " }) else { return "" }
        return self[...last]
    }
}

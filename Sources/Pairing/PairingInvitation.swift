import BridgeProtocol
import BridgeStore
import Foundation

/// Everything `pair` and `serve` show to pair a phone: the pairing URL, the code behind it and its expiry,
/// and the addresses offered.
public struct PairingInvitation: Sendable, Hashable {
    /// The URL (QR content and text for manual entry).
    public let url: PairingURL
    /// The one-time code, or nil when the URL carries the static shared secret (`pair --static`).
    public let code: PairingCode?
    /// The addresses offered, best first (`url.host` is the first).
    public let addresses: [CandidateAddress]
    /// What the device that pairs with the code may do (nil for `--static`: the shared secret holds every scope).
    public var scopes: Scopes?

    /// Builds an invitation for an existing credential.
    /// - Throws: ``PairingInvitationError`` when there is no address to offer.
    public init(
        credential: PairingURL.Credential, code: PairingCode? = nil, identity: ServerIdentity, port: Int,
        addresses: [CandidateAddress], fingerprint: String? = nil, trustFirst: Bool = false
    ) throws(PairingInvitationError) {
        guard let best = addresses.first else { throw .noAddresses }
        self.url = PairingURL(
            host: best.host, port: port, credential: credential, addresses: addresses.map(\.host),
            serverId: identity.id, serverName: identity.name, fingerprint: fingerprint, trustFirst: trustFirst && fingerprint != nil)
        self.code = code
        self.addresses = addresses
    }

    /// Mints a one-time code valid for `ttl`, for a device with `scopes`, and builds the invitation around it.
    public static func mint(
        registry: DeviceRegistry, ttl: Duration, scopes: Scopes = .standard, identity: ServerIdentity, port: Int,
        addresses: [CandidateAddress], fingerprint: String? = nil, trustFirst: Bool = false
    ) async throws -> PairingInvitation {
        // Check first, so no code is minted for an invitation that cannot be shown.
        guard !addresses.isEmpty else { throw PairingInvitationError.noAddresses }
        let code = try await registry.mintPairingCode(ttl: ttl, scopes: scopes)
        var invitation = try PairingInvitation(
            credential: .pairingCode(code.code), code: code, identity: identity, port: port, addresses: addresses,
            fingerprint: fingerprint, trustFirst: trustFirst)
        invitation.scopes = scopes
        return invitation
    }

    /// What `pair --json` prints: `{url, webUrl, trustUrl, code, expiresAt, addresses, port, serverId, name,
    /// fingerprint, scopes}`.
    public var summary: Summary {
        Summary(
            url: url.string, webUrl: url.webString, trustUrl: url.trustString, code: code?.code, expiresAt: code?.expiresAt,
            addresses: url.addresses, port: url.port, serverId: url.serverId, name: url.serverName, fingerprint: url.fingerprint,
            scopes: scopes)
    }

    /// One QR code the terminal shows, with what it is for.
    public struct Scan: Sendable, Hashable {
        /// The line above the QR code.
        public var title: String
        /// The QR code's content (also printed under it).
        public var url: String
    }

    /// The QR codes a phone's camera scans, in order: the web URL alone; with the workstation's CA, first the
    /// trust page (plain `http://`, no secret), then the `https://` pairing URL. A credential is only ever in
    /// the last one.
    public var scans: [Scan] {
        guard let trust = url.trustString else { return [Scan(title: "", url: url.webString)] }
        let second =
            code == nil
            ? "2. Then connect (this code holds the shared secret)" : "2. Then pair (or type the code shown below in the app)"
        return [
            Scan(title: "1. The first time on this phone: trust this workstation (no secret in this code)", url: trust),
            Scan(title: second, url: url.webString),
        ]
    }

    /// The terminal block: the QR codes of ``scans`` (a phone's camera opens them in the browser) with their
    /// URLs, the addresses and the expiry. `app`: the `codex-bridge://` URL for native apps instead.
    /// - Throws: ``QRCodeError`` when a URL does not fit a QR code.
    public func terminalText(renderer: TerminalQRRenderer = TerminalQRRenderer(), now: Date = Date(), app: Bool = false) throws(QRCodeError)
        -> String
    {
        let shown = app ? [Scan(title: "", url: url.string)] : scans
        var text = ""
        for scan in shown {
            if !scan.title.isEmpty { text += "\(scan.title):\n" }
            text += renderer.render(try QRCode(encoding: scan.url))
            text += "\n\(scan.url)\n\n"
        }
        return text + details(now: now, codes: shown.count)
    }

    /// What the terminal shows beside the QR codes: the addresses, the TLS fingerprint, the code's expiry and
    /// scopes. `codes`: how many QR codes are shown (which one holds the shared secret, for `--static`).
    public func details(now: Date = Date(), codes: Int) -> String {
        var text = "Addresses offered (best first), port \(url.port):\n"
        for address in addresses { text += "  \(address)\n" }
        if let fingerprint = url.fingerprint, url.trustFirst {
            text += "TLS (https://, wss://) with this workstation's certificate authority; the first QR code shows a phone\n"
            text += "that does not trust it yet how. Before trusting it, check that the phone shows this SHA-256 fingerprint:\n"
            text += "  \(Self.grouped(fingerprint))\n"
        } else if let fingerprint = url.fingerprint {
            text += "TLS (wss://), certificate SHA-256: \(fingerprint)\n"
        }
        if let code {
            let minutes = max(0, Int((code.expiresAt.timeIntervalSince(now) / 60).rounded()))
            text += "\nCode \(code.grouped): single use, expires in \(minutes) min "
            text += "(at \(code.expiresAt.formatted(date: .omitted, time: .standard))).\n"
            if let scopes { text += "The phone may: \(scopes) (change it later with `codex-bridge devices scope ID LIST`).\n" }
        } else {
            let which = codes > 1 ? "The second QR code" : "This QR code"
            text += "\n\(which) holds the shared secret: anyone who scans it can connect until `token rotate`.\n"
        }
        return text
    }

    /// A fingerprint as a phone shows it: upper-case byte pairs separated by spaces (`59 0D 63 …`).
    public static func grouped(_ fingerprint: String) -> String {
        var pairs: [String] = []
        var index = fingerprint.startIndex
        while index < fingerprint.endIndex {
            let next = fingerprint.index(index, offsetBy: 2, limitedBy: fingerprint.endIndex) ?? fingerprint.endIndex
            pairs.append(fingerprint[index..<next].uppercased())
            index = next
        }
        return pairs.joined(separator: " ")
    }

    /// The JSON form of an invitation (`pair --json`).
    public struct Summary: Sendable, Hashable, Codable {
        /// The pairing URL for native apps (`codex-bridge://pair?…`).
        public var url: String
        /// The web pairing URL (`http(s)://HOST:PORT/#pair=…`), the QR's content; `https://` whenever the bridge
        /// serves TLS.
        public var webUrl: String
        /// With the workstation's CA (`serve --tls`): the trust page, `http://HOST:PORT/`, with no secret: the
        /// first QR code, for a phone that does not trust the CA yet. nil otherwise.
        public var trustUrl: String?
        /// The one-time code; nil for `--static`.
        public var code: String?
        /// When the code expires; nil for `--static`.
        public var expiresAt: Date?
        /// Every address offered, best first.
        public var addresses: [String]
        /// The port.
        public var port: Int
        /// The server's stable id.
        public var serverId: String
        /// The server's name.
        public var name: String
        /// The SHA-256 fingerprint clients pin (64 lowercase hex digits): the workstation CA's with `serve --tls`,
        /// the certificate's with `--tls-cert`; nil without TLS.
        public var fingerprint: String?
        /// What the paired device may do; nil for `--static`.
        public var scopes: Scopes?
    }
}

/// Why no invitation could be made.
public struct PairingInvitationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// No usable address was found and none was given.
        case noAddresses
    }

    /// The kind of failure.
    public let code: Code
    /// A message for a person.
    public let message: String

    public var description: String { message }

    /// No address to offer.
    public static let noAddresses = PairingInvitationError(
        code: .noAddresses,
        message: "no network address to offer a phone (no LAN or Tailscale interface is up); pass --advertise HOST")
}

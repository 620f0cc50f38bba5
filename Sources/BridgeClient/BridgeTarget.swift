import BridgeProtocol
import Foundation

/// What a client connects to: a pairing URL (several candidate addresses, a credential, maybe a TLS pin) or
/// plain WebSocket endpoints.
public enum BridgeTarget: Sendable, Hashable {
    /// `codex-bridge://pair?…`: try its addresses in order, present its code or token, pin its `fp`.
    case pairing(PairingURL)
    /// One or more addresses of the same bridge, tried in order, with an optional TLS pin.
    case endpoints([BridgeEndpoint], pin: CertificatePin?)

    /// A pairing URL when `text` starts with `codex-bridge://` or is the web form (`http(s)://…/#pair=…`), else
    /// an address in any form ``BridgeEndpoint/init(parsing:)`` accepts.
    public init(parsing text: String) throws(BridgeClientError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = trimmed.lowercased()
        let webPairing = (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && trimmed.contains("#pair=")
        if lower.hasPrefix(PairingURL.scheme + "://") || webPairing {
            do {
                self = .pairing(try PairingURL(parsing: trimmed))
            } catch {
                throw .invalidAddress(text, "\(error)")
            }
        } else {
            self = .endpoints([try BridgeEndpoint(parsing: trimmed)], pin: nil)
        }
    }

    /// The addresses to try, best first, without duplicates. A pairing URL with `fp` gives `wss://` ones.
    public var candidates: [BridgeEndpoint] {
        switch self {
        case .pairing(let url):
            var seen = Set<String>()
            let hosts = ([url.host] + url.addresses).filter { seen.insert($0.lowercased()).inserted }
            // `host` is documented as the first of `addrs`; keep the URL's order when it is.
            let ordered =
                url.addresses.first == url.host || url.addresses.isEmpty
                ? hosts : url.addresses + hosts.filter { !url.addresses.contains($0) }
            return ordered.map { BridgeEndpoint(host: $0, port: url.port, tls: url.fingerprint != nil) }
        case .endpoints(let endpoints, _):
            return endpoints
        }
    }

    /// The certificate fingerprint to pin, if known.
    public var pin: CertificatePin? {
        switch self {
        case .pairing(let url): url.fingerprint.flatMap(CertificatePin.init(fingerprint:))
        case .endpoints(_, let pin): pin
        }
    }

    /// The server id the target names, if it names one.
    public var serverId: String? {
        if case .pairing(let url) = self, !url.serverId.isEmpty { return url.serverId }
        return nil
    }
}

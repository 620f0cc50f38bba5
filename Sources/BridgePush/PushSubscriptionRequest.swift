import BridgeStore
import Crypto
import Foundation

/// What a client may ask to be told about.
public enum PushEventKind: String, CaseIterable, Sendable, Hashable, Codable {
    /// An approval request ("Approval needed", with Approve / Decline).
    case approval
    /// A turn that completed (the first line of the agent's last message).
    case turnCompleted
    /// A turn that failed.
    case turnFailed
}

/// A browser's push subscription (`PushSubscription.toJSON()`), checked: an https endpoint (http only on
/// loopback, for tests), a P-256 public key and a 16-byte auth secret.
public struct ValidatedSubscription: Sendable, Hashable {
    public var endpoint: URL
    public var p256dh: [UInt8]
    public var auth: [UInt8]
    public var events: Set<PushEventKind>

    /// Longest endpoint accepted.
    public static let maxEndpointBytes = 2048

    public init(endpoint: String, p256dh: String, auth: String, events: [String]?) throws(PushError) {
        guard endpoint.utf8.count <= Self.maxEndpointBytes, let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else {
            throw PushError("bad_request", "subscription.endpoint must be an absolute https URL of at most \(Self.maxEndpointBytes) bytes")
        }
        guard scheme == "https" || (scheme == "http" && Self.isLoopback(host)) else {
            throw PushError("bad_request", "subscription.endpoint must be https (http only on 127.0.0.0/8 or ::1)")
        }
        guard let key = Base64URL.decode(p256dh), key.count == 65, (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil
        else {
            throw PushError("bad_request", "subscription.keys.p256dh must be base64url of an uncompressed P-256 point (65 bytes)")
        }
        guard let secret = Base64URL.decode(auth), secret.count == 16 else {
            throw PushError("bad_request", "subscription.keys.auth must be base64url of 16 bytes")
        }
        var kinds = Set<PushEventKind>()
        for name in events ?? PushEventKind.allCases.map(\.rawValue) {
            guard let kind = PushEventKind(rawValue: name) else {
                throw PushError(
                    "bad_request",
                    "events may hold \(PushEventKind.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name.prefix(64))'")
            }
            kinds.insert(kind)
        }
        self.endpoint = url
        self.p256dh = [UInt8](key)
        self.auth = [UInt8](secret)
        self.events = kinds
    }

    /// 127.0.0.0/8, ::1 or localhost.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "::1" || bare == "localhost" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

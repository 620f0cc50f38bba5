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

/// A browser's push subscription (`PushSubscription.toJSON()`), checked: an endpoint the
/// ``PushEndpointPolicy`` allows (its lookup comes later, at subscription and at each delivery), a P-256 public
/// key and a 16-byte auth secret.
public struct ValidatedSubscription: Sendable, Hashable {
    public var endpoint: URL
    public var p256dh: [UInt8]
    public var auth: [UInt8]
    public var events: Set<PushEventKind>

    public init(endpoint: String, p256dh: String, auth: String, events: [String]?, policy: PushEndpointPolicy) throws(PushError) {
        let url = try policy.check(endpoint)
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
}

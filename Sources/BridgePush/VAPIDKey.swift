import BridgeStore
import Crypto
import Foundation

/// The bridge's VAPID key (RFC 8292): an ECDSA P-256 key made on first use and kept in
/// `STATE/push-vapid.pem` (0600). Push services tie a subscription to its public key.
public struct VAPIDKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// The file in the state directory.
    public static func file(in paths: StatePaths) -> URL {
        paths.stateDirectory.appendingPathComponent("push-vapid.pem")
    }

    /// Loads the key at `url`, or makes one and writes it there (0600) when there is none.
    public static func loadOrCreate(at url: URL) throws -> VAPIDKey {
        if let pem = try SecretFile.read(url) {
            do {
                return VAPIDKey(privateKey: try P256.Signing.PrivateKey(pemRepresentation: pem))
            } catch {
                throw PushError("bad_key", "\(url.path) is not a PEM P-256 private key; remove it to make a new one")
            }
        }
        let key = P256.Signing.PrivateKey()
        try SecretFile.write(key.pemRepresentation + "\n", to: url)
        return VAPIDKey(privateKey: key)
    }

    /// The public key as browsers take it (`applicationServerKey`): base64url of the uncompressed point.
    public var publicKeyBase64URL: String { Base64URL.encode(privateKey.publicKey.x963Representation) }

    /// The `Authorization` header for a push to `endpoint`: `vapid t=<JWT>, k=<public key>` with `aud` the
    /// endpoint's origin, `exp` `lifetime` from `now` (at most 12 hours), `sub` the contact.
    public func authorization(endpoint: URL, subject: String, now: Date = Date(), lifetime: TimeInterval = 12 * 3600 - 60) throws(PushError)
        -> String
    {
        guard let audience = Self.origin(of: endpoint) else { throw PushError("bad_endpoint", "the endpoint has no origin") }
        let expiry = Int(now.timeIntervalSince1970 + min(lifetime, 12 * 3600))
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        var claims = #"{"aud":"# + Self.jsonString(audience) + #","exp":"# + String(expiry)
        claims += #","sub":"# + Self.jsonString(subject) + "}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try privateKey.signature(for: Data(signingInput.utf8))
        } catch {
            throw PushError("internal", "cannot sign the VAPID token: \(error)")
        }
        let token = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        return "vapid t=\(token), k=\(publicKeyBase64URL)"
    }

    /// `scheme://host[:port]` of a URL (the port only when it is not the scheme's default).
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = url.port, !(scheme == "https" && port == 443) && !(scheme == "http" && port == 80) {
            return "\(scheme)://\(bracketed.lowercased()):\(port)"
        }
        return "\(scheme)://\(bracketed.lowercased())"
    }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

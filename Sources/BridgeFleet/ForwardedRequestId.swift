import Crypto
import Foundation

/// The request id a request forwarded to a linked machine carries: the same for the same asker and request (so
/// that machine, which deduplicates per link, answers a repeat once), different for another asker.
enum ForwardedRequestId {
    /// `prefix` + 32 hex digits of SHA-256(`who` NUL `id`).
    static func make(_ prefix: String, who: String, id: String) -> String {
        let digest = SHA256.hash(data: Data((who + "\u{0}" + id).utf8))
        return prefix + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}

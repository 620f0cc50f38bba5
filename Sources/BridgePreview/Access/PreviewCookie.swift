import Foundation

/// The preview origin's one cookie: how it is set, found in a `Cookie` header, and removed from one before the
/// request goes to the dev server.
public enum PreviewCookie {
    /// Its name. A `Set-Cookie` of this name from the dev server is dropped.
    public static let name = "codex_bridge_preview"

    /// The `Set-Cookie` value: host-only, whole origin, HttpOnly, SameSite=Strict, Secure under TLS, and no
    /// longer than the session.
    public static func setCookie(_ value: String, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(max(0, maxAge)); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that deletes it.
    public static func expired(secure: Bool) -> String { setCookie("", maxAge: 0, secure: secure) }

    /// The values of this cookie in `Cookie` headers (a browser may send more than one with different paths).
    public static func values(inCookieHeaders headers: [String]) -> [String] {
        headers.flatMap { header in
            header.split(separator: ";").compactMap { pair -> String? in
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix(name + "=") else { return nil }
                return String(trimmed.dropFirst(name.count + 1))
            }
        }
    }

    /// A `Cookie` header without this cookie; nil when nothing else is left.
    public static func stripped(_ header: String) -> String? {
        let kept = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty && !$0.hasPrefix(name + "=")
        }
        return kept.isEmpty ? nil : kept.joined(separator: "; ")
    }

    /// Whether a `Set-Cookie` value sets this cookie.
    public static func isOurs(setCookie: String) -> Bool {
        setCookie.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix(name + "=")
    }
}

/// The host part of a request's authority (`Host`), as the preview port puts it in the address of the preview's
/// origin it redirects to: the name or address the browser used, so that the origin is on the same host. Only
/// a plain name, an IPv4 address or a bracketed IPv6 address is taken; anything else is nil (the bridge's own
/// name is used instead), so a forged `Host` cannot make the redirect point elsewhere than a host.
public enum PreviewHost {
    public static func hostname(fromAuthority authority: String?) -> String? {
        guard let authority, !authority.isEmpty, authority.utf8.count <= 255 else { return nil }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let inner = authority[authority.index(after: authority.startIndex)..<close]
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
            return "[\(inner)]"
        }
        let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let allowed = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }
        return !host.isEmpty && allowed ? String(host) : nil
    }
}

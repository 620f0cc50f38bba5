import Foundation

/// A remote on a code host the web app can open a pull request on: GitHub (and GitHub Enterprise hosts named
/// `github.…`), GitLab (any host whose name holds `gitlab`) or Bitbucket Cloud. Parsed from the remote's URL in
/// any form git takes (`https://`, `ssh://`, scp-like `git@host:owner/repo.git`); credentials in the URL are
/// dropped, so a compare URL never carries them.
struct GitHostingRemote: Sendable, Hashable {
    enum Host: String, Sendable, Hashable {
        case github, gitlab, bitbucket
    }

    var host: Host
    /// The web host name (no user, no port).
    var hostname: String
    /// `owner/repo` (GitLab: `group/subgroup/repo`), without `.git`.
    var path: String

    init?(url remote: String) {
        var hostname: String
        var path: String
        if let url = URL(string: remote), let scheme = url.scheme?.lowercased(),
            ["https", "http", "ssh", "git", "git+ssh"].contains(scheme),
            let host = url.host, !host.isEmpty
        {
            hostname = host
            path = url.path
        } else if !remote.contains("://"), let colon = remote.firstIndex(of: ":"),
            !remote[..<colon].contains("/"), remote.distance(from: remote.startIndex, to: colon) > 0
        {
            // scp-like: [user@]host:path
            let authority = remote[..<colon]
            hostname = String(authority.split(separator: "@").last ?? authority)
            path = String(remote[remote.index(after: colon)...])
        } else {
            return nil
        }
        hostname = hostname.lowercased()
        path = path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if path.hasSuffix(".git") { path.removeLast(4) }
        let segments = path.split(separator: "/")
        guard segments.count >= 2, !segments.contains(where: { $0 == "." || $0 == ".." }),
            hostname.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-" })
        else { return nil }
        if hostname == "github.com" || hostname.hasPrefix("github.") || hostname.hasPrefix("ssh.github.") {
            host = .github
            hostname = hostname.hasPrefix("ssh.") ? String(hostname.dropFirst(4)) : hostname
        } else if hostname.contains("gitlab") {
            host = .gitlab
        } else if hostname == "bitbucket.org" {
            host = .bitbucket
        } else {
            return nil
        }
        guard host == .gitlab || segments.count == 2 else { return nil }
        self.hostname = hostname
        self.path = segments.joined(separator: "/")
    }

    /// The page that proposes merging `branch` into `base` (the host's default branch when nil).
    func compareURL(branch: String, base: String?) -> String {
        let root = "https://\(hostname)/\(path.split(separator: "/").map { Self.encode(String($0)) }.joined(separator: "/"))"
        switch host {
        case .github:
            let range = base.map { Self.encode($0, keepSlash: true) + "..." } ?? ""
            return root + "/compare/" + range + Self.encode(branch, keepSlash: true) + "?expand=1"
        case .gitlab:
            var query = "merge_request%5Bsource_branch%5D=" + Self.encode(branch)
            if let base { query += "&merge_request%5Btarget_branch%5D=" + Self.encode(base) }
            return root + "/-/merge_requests/new?" + query
        case .bitbucket:
            var query = "source=" + Self.encode(branch)
            if let base { query += "&dest=" + Self.encode(base) }
            return root + "/pull-requests/new?" + query + "&t=1"
        }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters (and `/` when asked).
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        if keepSlash { allowed.insert("/") }
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

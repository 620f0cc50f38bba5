import Foundation

/// What a preview origin refuses before a request reaches its dev server, from the request's fields alone:
///
/// - **Another origin's page.** Every preview origin is the same *site* for the browser (ports do not count), so
///   its cookie rides along on requests another preview's page makes to it, and a dev server's CORS may let that
///   page read the answer. Refused: a request whose `Origin` is not this origin (`null` included), and one that
///   `Sec-Fetch-Site` says came from another site or another origin of this site, unless it is a top-level
///   navigation (a link, the bridge's tab: `Sec-Fetch-Mode: navigate`, `Sec-Fetch-Dest: document`). Browsers
///   without `Sec-Fetch-*` (Safari before 16.4) still send `Origin` on every CORS request and POST.
/// - **A service worker.** A worker registered on a preview origin would answer that origin's every request
///   for good, later previews given the same port included. Its script's fetch (`Service-Worker: script`,
///   `Sec-Fetch-Dest: serviceworker`) is refused, so registration fails.
public enum PreviewRequestCheck {
    public enum Refusal: Sendable, Hashable {
        case otherOrigin
        case serviceWorker
    }

    /// Why the request is refused; nil when it may go on. `ownOrigin`: `scheme://host:port` as the browser names
    /// this origin (its `Host`).
    public static func refusal(_ fields: [(name: String, value: String)], ownOrigin: String) -> Refusal? {
        func value(_ name: String) -> String? {
            fields.first { $0.name.lowercased() == name }?.value.trimmingCharacters(in: .whitespaces).lowercased()
        }
        if value("service-worker") == "script" || value("sec-fetch-dest") == "serviceworker" { return .serviceWorker }
        if let origin = value("origin"), origin != ownOrigin.lowercased() { return .otherOrigin }
        if let site = value("sec-fetch-site"), site == "same-site" || site == "cross-site" {
            let topLevel = value("sec-fetch-mode") == "navigate" && (value("sec-fetch-dest") ?? "document") == "document"
            if !topLevel { return .otherOrigin }
        }
        return nil
    }
}

import BridgePush
import Foundation

/// What `serve` notifies with: the merged options, else the defaults.
package struct PushSettings: Equatable {
    package var enabled = true
    /// nil: `mailto:USER@HOST`.
    package var subject: String?
    package var delay = DurationArgument(.seconds(20), text: "20s")
    package var notifyURLs: [String] = []
    /// Without a trailing slash.
    package var actionURL: String?
    package var allowPushHosts: [String] = []
    package var inhibit = true
    package var tokenLifetime = DurationArgument(.seconds(15 * 60), text: "15m")

    package init() {}

    package init(_ options: ServeOptions) {
        enabled = options.push ?? true
        subject = options.pushSubject
        delay = options.pushDelay ?? delay
        notifyURLs = options.notify ?? []
        actionURL = options.notifyActionURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        allowPushHosts = options.allowPushHosts ?? []
        inhibit = options.inhibit ?? true
        tokenLifetime = options.pushTokenLifetime ?? tokenLifetime
    }

    /// `mailto:USER@HOST` of this process.
    package static func defaultSubject(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let user = environment["USER"] ?? environment["LOGNAME"] ?? "codex-bridge"
        return "mailto:\(user)@\(ProcessInfo.processInfo.hostName)"
    }
}

extension ServeOptions {
    /// The notification settings' values, checked like the others (the source names the flag or the key).
    package func checkPush() throws(SettingProblem) {
        if let pushSubject, !pushSubject.hasPrefix("mailto:"), !pushSubject.hasPrefix("https://") {
            throw SettingProblem(.pushSubject, "must be a mailto: or https:// URI")
        }
        if let pushDelay, pushDelay.duration > .seconds(3600) { throw SettingProblem(.pushDelay, "must be at most 1h") }
        for url in notify ?? [] {
            do {
                _ = try NotifyTarget(url)
            } catch {
                throw SettingProblem(.notify, "must be an http(s) URL (ntfy: prefix for an ntfy topic)")
            }
        }
        for host in allowPushHosts ?? [] {
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            guard !bare.isEmpty, bare.utf8.count <= 253, !bare.contains("/"), !bare.contains(" "),
                URL(string: "http://\(host)/")?.host != nil
            else { throw SettingProblem(.allowPushHosts, "must be host names or addresses (no scheme, port or path)") }
        }
        if let notifyActionURL {
            guard let parsed = URL(string: notifyActionURL), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                parsed.host != nil, parsed.query == nil
            else { throw SettingProblem(.notifyActionURL, "must be an http(s) base URL such as https://host:9099") }
        }
    }
}

import ArgumentParser
import BridgePush
import Foundation

/// `serve` options for notifications and the sleep inhibitor (``ServeSetting`` `push` … `inhibit`).
struct PushOptions: ParsableArguments {
    @Flag(name: .setting(.push), help: .setting(.push))
    var noPush = false

    @Option(name: .setting(.pushSubject), help: .setting(.pushSubject))
    var subject: String?

    @Option(name: .setting(.pushDelay), help: .setting(.pushDelay))
    var delay: DurationArgument?

    @Option(name: .setting(.notify), help: .setting(.notify))
    var notifyURLs: [String] = []

    @Option(name: .setting(.notifyActionURL), help: .setting(.notifyActionURL))
    var actionURL: String?

    @Option(name: .setting(.allowPushHosts), help: .setting(.allowPushHosts))
    var allowPushHosts: [String] = []

    @Flag(name: .setting(.inhibit), help: .setting(.inhibit))
    var noInhibit = false

    /// Tests: how long an action token lives (default 15m).
    @Option(name: .customLong("push-token-lifetime"), help: .hidden)
    var tokenLifetime: DurationArgument?

    /// Puts what the command line says into `options` (nil where it says nothing).
    func fill(_ options: inout ServeOptions) {
        options.push = noPush ? false : nil
        options.pushSubject = subject
        options.pushDelay = delay
        options.notify = notifyURLs.isEmpty ? nil : notifyURLs
        options.notifyActionURL = actionURL
        options.allowPushHosts = allowPushHosts.isEmpty ? nil : allowPushHosts
        options.inhibit = noInhibit ? false : nil
        options.pushTokenLifetime = tokenLifetime
    }
}

/// What `serve` notifies with: the merged options, else the defaults.
struct PushSettings: Equatable {
    var enabled = true
    /// nil: `mailto:USER@HOST`.
    var subject: String?
    var delay = DurationArgument(.seconds(20), text: "20s")
    var notifyURLs: [String] = []
    /// Without a trailing slash.
    var actionURL: String?
    var allowPushHosts: [String] = []
    var inhibit = true
    var tokenLifetime = DurationArgument(.seconds(15 * 60), text: "15m")

    init() {}

    init(_ options: ServeOptions) {
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
    static func defaultSubject(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let user = environment["USER"] ?? environment["LOGNAME"] ?? "codex-bridge"
        return "mailto:\(user)@\(ProcessInfo.processInfo.hostName)"
    }
}

extension ServeOptions {
    /// The notification settings' values, checked like the others (the source names the flag or the key).
    func checkPush() throws(SettingProblem) {
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

import ArgumentParser
import BridgePush
import Foundation

/// `serve` options for notifications and the sleep inhibitor.
struct PushOptions: ParsableArguments {
    @Flag(name: .customLong("no-push"), help: "Turn Web Push notifications off (no VAPID key, no pushSubscribe).")
    var noPush = false

    @Option(
        name: .customLong("push-subject"),
        help: ArgumentHelp("The VAPID contact push services see: mailto:… or https://… (default mailto:USER@HOST).", valueName: "uri"))
    var subject: String?

    @Option(
        name: .customLong("push-delay"),
        help: ArgumentHelp(
            "How long a connected but hidden device has to see an event before it is pushed (default 20s).", valueName: "duration"))
    var delay: DurationArgument?

    @Option(
        name: .customLong("notify-url"),
        help: ArgumentHelp(
            "Also post events to this URL (repeatable): an ntfy topic (ntfy.sh/…, ntfy.… or ntfy:URL) with action buttons, else a JSON webhook.",
            valueName: "url"))
    var notifyURLs: [String] = []

    @Option(
        name: .customLong("notify-action-url"),
        help: ArgumentHelp(
            "The base URL phones reach this bridge at (e.g. https://host:9099), for the Approve/Decline buttons of --notify-url.",
            valueName: "url"))
    var actionURL: String?

    @Flag(name: .customLong("no-inhibit"), help: "Do not hold a logind sleep inhibitor while a turn runs.")
    var noInhibit = false

    /// Tests: how long an action token lives (default 15m).
    @Option(name: .customLong("push-token-lifetime"), help: .hidden)
    var tokenLifetime: DurationArgument?

    var flags: PushSettings.Flags {
        PushSettings.Flags(
            noPush: noPush, subject: subject, delay: delay, notifyURLs: notifyURLs, actionURL: actionURL, noInhibit: noInhibit,
            tokenLifetime: tokenLifetime)
    }
}

/// What `serve` notifies with: flag, then config.toml, then default.
struct PushSettings: Equatable {
    var enabled = true
    /// nil: `mailto:USER@HOST`.
    var subject: String?
    var delay = DurationArgument(.seconds(20), text: "20s")
    var notifyURLs: [String] = []
    var actionURL: String?
    var inhibit = true
    var tokenLifetime = DurationArgument(.seconds(15 * 60), text: "15m")

    struct Flags: Equatable {
        var noPush = false
        var subject: String?
        var delay: DurationArgument?
        var notifyURLs: [String] = []
        var actionURL: String?
        var noInhibit = false
        var tokenLifetime: DurationArgument?
    }

    /// config.toml: `push`, `push_subject`, `push_delay`, `notify`, `notify_action_url`, `inhibit`.
    struct File: Equatable {
        var push: Bool?
        var subject: String?
        var delay: DurationArgument?
        var notifyURLs: [String]?
        var actionURL: String?
        var inhibit: Bool?
    }

    static let keys = ["push", "push_subject", "push_delay", "notify", "notify_action_url", "inhibit"]

    static func resolve(flags: Flags, file: File) -> PushSettings {
        var settings = PushSettings()
        settings.enabled = flags.noPush ? false : file.push ?? true
        settings.subject = flags.subject ?? file.subject
        settings.delay = flags.delay ?? file.delay ?? settings.delay
        settings.notifyURLs = flags.notifyURLs.isEmpty ? file.notifyURLs ?? [] : flags.notifyURLs
        settings.actionURL = (flags.actionURL ?? file.actionURL).map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        settings.inhibit = flags.noInhibit ? false : file.inhibit ?? true
        settings.tokenLifetime = flags.tokenLifetime ?? settings.tokenLifetime
        return settings
    }

    /// The problem with a value, naming it as `name` (a flag or a key); nil when fine.
    static func subjectProblem(_ subject: String) -> String? {
        subject.hasPrefix("mailto:") || subject.hasPrefix("https://") ? nil : "must be a mailto: or https:// URI"
    }

    static func notifyProblem(_ url: String) -> String? {
        do {
            _ = try NotifyTarget(url)
            return nil
        } catch {
            return "must be an http(s) URL (ntfy: prefix for an ntfy topic)"
        }
    }

    static func actionURLProblem(_ url: String) -> String? {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil,
            parsed.query == nil
        else { return "must be an http(s) base URL such as https://host:9099" }
        return nil
    }

    static func validate(_ flags: Flags) throws {
        if let subject = flags.subject, let problem = subjectProblem(subject) { throw SettingsError("--push-subject \(problem)") }
        for url in flags.notifyURLs {
            if let problem = notifyProblem(url) { throw SettingsError("--notify-url \(problem)") }
        }
        if let url = flags.actionURL, let problem = actionURLProblem(url) { throw SettingsError("--notify-action-url \(problem)") }
        if let delay = flags.delay, delay.duration > .seconds(3600) { throw SettingsError("--push-delay must be at most 1h") }
    }

    /// `mailto:USER@HOST` of this process.
    static func defaultSubject(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let user = environment["USER"] ?? environment["LOGNAME"] ?? "codex-bridge"
        return "mailto:\(user)@\(ProcessInfo.processInfo.hostName)"
    }
}

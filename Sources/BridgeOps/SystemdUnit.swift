import Foundation

/// The systemd *user* unit that runs `codex-bridge serve` (`~/.config/systemd/user/codex-bridge.service`).
///
/// Rendering is pure so that tests can check the text (and `systemd-analyze verify` it) without systemd.
public struct SystemdUnit: Sendable, Hashable {
    /// The unit's file name.
    public static let fileName = "codex-bridge.service"

    /// Absolute path of the `codex-bridge` binary.
    public var executable: String
    /// Arguments after the executable (`serve --no-qr`, `--state-dir DIR`, …).
    public var arguments: [String]
    /// `Environment=` entries (e.g. `PATH`, `CODEX_HOME`), written in key order.
    public var environment: [String: String]
    /// The working directory (threads may run there when no `--root` is given).
    public var workingDirectory: String?

    public init(executable: String, arguments: [String], environment: [String: String] = [:], workingDirectory: String? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
    }

    /// The `serve` arguments the unit runs: `serve --no-qr`, plus `--state-dir` when given and any extra ones.
    public static func serveArguments(stateDirectory: String?, extra: [String] = []) -> [String] {
        var arguments = ["serve", "--no-qr"]
        if let stateDirectory { arguments += ["--state-dir", stateDirectory] }
        return arguments + extra
    }

    /// Where the unit goes: `$XDG_CONFIG_HOME/systemd/user/` (default `~/.config/systemd/user/`).
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let config: URL
        if let value = environment["XDG_CONFIG_HOME"], value.hasPrefix("/") {
            config = URL(fileURLWithPath: value, isDirectory: true)
        } else {
            let home =
                environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            config = home.appendingPathComponent(".config", isDirectory: true)
        }
        return config.appendingPathComponent("systemd/user", isDirectory: true)
    }

    /// The unit file's text.
    public func render() -> String {
        var lines = [
            "# Written by `codex-bridge service install`; `codex-bridge service uninstall` removes it.",
            "[Unit]",
            "Description=codex-bridge: drive the Codex CLI from a phone",
            "Documentation=https://github.com/openai/codex",
            "Wants=network-online.target",
            "After=network-online.target",
            "",
            "[Service]",
            "Type=exec",
            "ExecStart=" + ([executable] + arguments).map(Self.quoted).joined(separator: " "),
        ]
        if let workingDirectory { lines.append("WorkingDirectory=" + Self.quoted(workingDirectory)) }
        for key in environment.keys.sorted() {
            lines.append("Environment=" + Self.quoted("\(key)=\(environment[key] ?? "")"))
        }
        lines += [
            "Restart=on-failure",
            "RestartSec=2",
            // serve closes clients with 1001 and exits 0 on SIGTERM.
            "KillSignal=SIGTERM",
            "TimeoutStopSec=20",
            "",
            "[Install]",
            "WantedBy=default.target",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Quotes one word for a systemd command line or assignment: double quotes when needed, `\` and `"`
    /// escaped, `%` doubled (specifier), `$` doubled (variable expansion).
    static func quoted(_ word: String) -> String {
        var escaped = ""
        for character in word {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "%": escaped += "%%"
            case "$": escaped += "$$"
            default: escaped.append(character)
            }
        }
        let plain = !word.isEmpty && word.allSatisfy { !$0.isWhitespace && !"\"'\\;".contains($0) }
        return plain ? escaped : "\"\(escaped)\""
    }

    /// Commands that make systemd pick up and start the unit.
    public static func enableCommands(now: Bool) -> [[String]] {
        [["systemctl", "--user", "daemon-reload"], ["systemctl", "--user", "enable"] + (now ? ["--now"] : []) + [fileName]]
    }

    /// Commands that stop and forget the unit (run before its file is removed, then `daemon-reload`).
    public static let disableCommands: [[String]] = [["systemctl", "--user", "disable", "--now", fileName]]

    /// The hint that makes the unit start at boot without a login.
    public static func lingerHint(user: String) -> String {
        "To start it at boot without logging in, enable lingering: loginctl enable-linger \(user)"
    }
}

import Foundation

/// Where codex-bridge keeps its files.
///
/// `CODEX_BRIDGE_HOME=DIR` (or `--state-dir DIR`) puts config and state in DIR; otherwise the XDG base
/// directories: `$XDG_CONFIG_HOME/codex-bridge` (default `~/.config/codex-bridge`) and
/// `$XDG_STATE_HOME/codex-bridge` (default `~/.local/state/codex-bridge`).
public struct StatePaths: Sendable, Hashable {
    /// Holds `config.toml`.
    public var configDirectory: URL
    /// Holds the shared secret, the database, `server.json`; mode 0700.
    public var stateDirectory: URL

    public init(configDirectory: URL, stateDirectory: URL) {
        self.configDirectory = configDirectory
        self.stateDirectory = stateDirectory
    }

    /// Resolves the directories from an explicit override, then `CODEX_BRIDGE_HOME`, then XDG.
    public static func resolve(
        override: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> StatePaths {
        if let dir = override ?? environment["CODEX_BRIDGE_HOME"], !dir.isEmpty {
            let url = URL(fileURLWithPath: dir, isDirectory: true).standardizedFileURL
            return StatePaths(configDirectory: url, stateDirectory: url)
        }
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        func xdg(_ key: String, _ fallback: String) -> URL {
            if let value = environment[key], value.hasPrefix("/") {
                return URL(fileURLWithPath: value, isDirectory: true)
            }
            return home.appendingPathComponent(fallback, isDirectory: true)
        }
        return StatePaths(
            configDirectory: xdg("XDG_CONFIG_HOME", ".config").appendingPathComponent("codex-bridge", isDirectory: true),
            stateDirectory: xdg("XDG_STATE_HOME", ".local/state").appendingPathComponent("codex-bridge", isDirectory: true)
        )
    }

    /// The shared secret file.
    public var tokenFile: URL { stateDirectory.appendingPathComponent("token") }
    /// The SQLite database.
    public var databaseFile: URL { stateDirectory.appendingPathComponent("bridge.sqlite") }
    /// The running server's pid, addresses and port.
    public var serverFile: URL { stateDirectory.appendingPathComponent("server.json") }
    /// The stable server id.
    public var serverIdFile: URL { stateDirectory.appendingPathComponent("server-id") }
    /// The config file.
    public var configFile: URL { configDirectory.appendingPathComponent("config.toml") }

    /// Creates the state directory (0700) and the config directory if missing, and tightens the state
    /// directory's mode if it exists with a looser one.
    public func prepare() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: stateDirectory.path)
        if configDirectory != stateDirectory {
            try fm.createDirectory(at: configDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }
}

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
    /// `STATE/tls`: the TLS certificate and key.
    public var tlsDirectory: URL { stateDirectory.appendingPathComponent("tls", isDirectory: true) }
    public var configFile: URL { configDirectory.appendingPathComponent("config.toml") }

    /// Creates the state directory (0700) and the config directory if missing, and tightens the state
    /// directory's mode if it exists with a looser one.
    /// - Throws: ``StoreError/io(_:)``: one line naming the directory, what is wrong and the fix.
    public func prepare() throws {
        try Self.makePrivateDirectory(stateDirectory)
        if configDirectory != stateDirectory {
            try Self.makePrivateDirectory(configDirectory, tighten: false)
        }
    }

    /// Creates `directory` (and its parents) 0700, or, with `tighten`, makes an existing one 0700.
    private static func makePrivateDirectory(_ directory: URL, tighten: Bool = true) throws {
        let path = directory.path
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            var reason = "permission denied"
            if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
                reason = String(cString: strerror(Int32(posix.code)))
            }
            throw StoreError.io("cannot create \(path): \(reason); choose another --state-dir or fix the parent directory's permissions")
        }
        var info = stat()
        guard tighten, stat(path, &info) == 0, info.st_mode & 0o777 != 0o700 else { return }
        guard info.st_uid == geteuid() else {
            throw StoreError.io(
                "\(path) belongs to uid \(info.st_uid), not you (mode \(String(info.st_mode & 0o777, radix: 8))): "
                    + "run `sudo chown -R \"$(id -un)\" \(path)` or choose another --state-dir")
        }
        guard chmod(path, 0o700) == 0 else {
            throw StoreError.io("cannot make \(path) private: \(String(cString: strerror(errno))); run: chmod 700 \(path)")
        }
    }
}

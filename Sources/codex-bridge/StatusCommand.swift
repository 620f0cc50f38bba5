import ArgumentParser
import BridgeOps
import BridgeServe
import BridgeStore
import BridgeTLS
import CodexControl
import Foundation
import Logging

/// `codex-bridge status`: whether a server runs from this state directory, and what it runs with.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the bridge is running, where it listens, codex, devices and threads.",
        discussion: "Exits 0 when a server is running (its process exists and /healthz answers), 3 when not (like `systemctl status`)."
    )

    @OptionGroup var state: StateOptions

    @Option(help: ArgumentHelp("Path of the codex binary (default: PATH, then the openai-codex-cli-bin venv).", valueName: "path"))
    var codex: String?

    @Flag(help: "Print a JSON object (every field present; null when unknown).")
    var json = false

    func run() async throws {
        let paths = state.paths
        let report = await Self.report(paths: paths, codex: codex)
        Terminal.say(json ? try report.json() : report.text)
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }

    static func report(paths: StatePaths, codex: String?) async -> StatusReport {
        var server: StatusReport.Server?
        var connections: Int?
        var runningThreads: Int?
        let record = ServerRecord.readRunning(paths: paths)
        if let record {
            // The process that answers on the port must be this state directory's bridge (a stale server.json
            // whose pid was reused may point at someone else's port): compare the id /healthz answers before
            // any credential is sent.
            let health = await get(record, path: "/healthz")
            let healthy = health?.status == 200 && Self.serverID(inHealth: health?.body) == Self.ownServerID(paths: paths)
            server = .init(
                pid: record.pid, host: record.host, port: record.port, addresses: record.addresses, startedAt: record.startedAt,
                healthy: healthy)
            if healthy, let secret = try? SecretFile.read(paths.tokenFile), !secret.isEmpty,
                let metrics = await get(record, path: "/metrics", bearer: secret), metrics.status == 200
            {
                connections = PrometheusText.value(of: "codex_bridge_connections", in: metrics.body).map { Int($0) }
                runningThreads = PrometheusText.value(of: "codex_bridge_threads_running", in: metrics.body).map { Int($0) }
            }
        }
        let running = server?.healthy ?? false
        let config = try? ServeConfigFile.load(paths.configFile)
        let sharedSocket =
            record?.sharedSocket
            ?? (config?.shared == true ? config?.sharedSocket ?? SharedSocket.defaultPath() : nil)
        return StatusReport(
            running: running, version: BridgeVersion.current, stateDirectory: paths.stateDirectory.path, server: server,
            tls: record?.tls ?? false, fingerprint: record?.fingerprint, mdns: running ? "unknown" : "off",
            codex: await codexStatus(explicitPath: codex, configuredPath: config?.codex),
            devices: await deviceCount(paths: paths),
            connections: connections, runningThreads: runningThreads,
            shared: sharedSocket.map {
                .init(socket: $0, attach: SharedSocket.attachCommand(path: $0), answering: SharedSocket.answers(at: $0))
            },
            certificateAuthority: authority(paths: paths))
    }

    /// The stored certificate authority, without making one.
    static func authority(paths: StatePaths) -> StatusReport.Authority? {
        let store = TLSStore(directory: paths.tlsDirectory)
        guard let authority = try? store.loadAuthority() else { return nil }
        return .init(
            fingerprint: authority.fingerprint, certificate: store.authorityCertificateFile.path, notValidAfter: authority.notValidAfter)
    }

    /// GETs `path` from the recorded server at the address it listens on (127.0.0.1 when it listens on every
    /// interface): over TLS pinned to its recorded fingerprint when it serves TLS, else plain HTTP.
    static func get(_ record: ServerRecord, path: String, bearer: String? = nil) async -> (status: Int, body: String)? {
        if record.tls && record.fingerprint == nil { return nil }
        return await LoopbackHTTP.get(
            host: probeHost(record), port: record.port, path: path, bearer: bearer, pin: record.tls ? record.fingerprint : nil
        ).map { ($0.status, $0.body) }
    }

    /// Where a server listening on `record.host` answers: that address, or loopback for a wildcard.
    static func probeHost(_ record: ServerRecord) -> String {
        let host = record.host
        if ["", "0.0.0.0", "*", "tailscale"].contains(host.lowercased()) { return "127.0.0.1" }
        if ["::", "[::]"].contains(host) { return "::1" }
        return host
    }

    /// The `id` of a `/healthz` answer.
    static func serverID(inHealth body: String?) -> String? {
        guard let data = body?.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return nil
        }
        return object["id"] as? String
    }

    /// This state directory's server id, without creating one.
    static func ownServerID(paths: StatePaths) -> String? {
        (try? SecretFile.read(paths.serverIdFile)).flatMap { $0.isEmpty ? nil : $0 }
    }

    static func codexStatus(explicitPath: String?, configuredPath: String? = nil) async -> StatusReport.Codex {
        let locator = CodexLocator(explicitPath: explicitPath, configuredPath: configuredPath, searchRoots: CodexLocator.checkoutRoots)
        guard let path = try? await locator.locate() else {
            return .init(path: nil, version: nil, loggedIn: nil)
        }
        let runner = CommandRunner()
        let version = await runner.run(path, ["--version"], timeout: .seconds(5))
        let login = await runner.run(path, ["login", "status"], timeout: .seconds(5))
        return .init(
            path: path,
            version: version.succeeded ? version.output.split(separator: "\n").first.map(String.init) : nil,
            loggedIn: login.timedOut || login.status == nil ? nil : login.succeeded)
    }

    /// Paired devices that are not revoked; nil when there is no database yet or it cannot be read.
    static func deviceCount(paths: StatePaths) async -> Int? {
        guard FileManager.default.fileExists(atPath: paths.databaseFile.path) else { return 0 }
        guard let registry = try? DevicesCommand.openRegistry(paths), let devices = try? await registry.list() else { return nil }
        return devices.count { $0.revokedAt == nil }
    }
}

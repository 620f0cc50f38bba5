import Foundation

/// What `codex-bridge status` reports (`--json` prints it as is).
public struct StatusReport: Sendable, Hashable, Codable {
    /// The running server, when there is one.
    public struct Server: Sendable, Hashable, Codable {
        public var pid: Int32
        /// What it was asked to listen on (`0.0.0.0`, `tailscale`, an address).
        public var host: String
        public var port: Int
        /// The addresses it offers, best first.
        public var addresses: [String]
        public var startedAt: Date
        /// Whether `/healthz` answered on `127.0.0.1:port` within 2 s.
        public var healthy: Bool

        public init(pid: Int32, host: String, port: Int, addresses: [String], startedAt: Date, healthy: Bool) {
            self.pid = pid
            self.host = host
            self.port = port
            self.addresses = addresses
            self.startedAt = startedAt
            self.healthy = healthy
        }
    }

    /// The codex CLI.
    public struct Codex: Sendable, Hashable, Codable {
        /// The executable, or nil when not found.
        public var path: String?
        /// `codex --version`, when it answered.
        public var version: String?
        /// `codex login status` exited 0; nil when codex is missing or did not answer.
        public var loggedIn: Bool?

        public init(path: String?, version: String?, loggedIn: Bool?) {
            self.path = path
            self.version = version
            self.loggedIn = loggedIn
        }
    }

    /// The shared codex app-server (`serve --shared`).
    public struct Shared: Sendable, Hashable, Codable {
        /// Its unix socket.
        public var socket: String
        /// The command that attaches a terminal's Codex to it.
        public var attach: String
        /// Whether something accepts connections on the socket now.
        public var answering: Bool

        public init(socket: String, attach: String, answering: Bool) {
            self.socket = socket
            self.attach = attach
            self.answering = answering
        }
    }

    /// Whether a server is running (its process exists and `/healthz` answers).
    public var running: Bool
    /// This binary's version.
    public var version: String
    public var stateDirectory: String
    public var server: Server?
    /// Whether the server serves TLS.
    public var tls: Bool
    /// The SHA-256 fingerprint clients pin (null without TLS): the workstation CA's with `serve --tls`.
    public var fingerprint: String?
    /// The workstation's certificate authority (`STATE/tls/ca.pem`), when there is one, running or not.
    public var certificateAuthority: Authority?

    /// The workstation's certificate authority.
    public struct Authority: Sendable, Hashable, Codable {
        /// Its SHA-256, 64 lowercase hex digits.
        public var fingerprint: String
        /// `STATE/tls/ca.pem`.
        public var certificate: String
        /// When it stops being valid.
        public var notValidAfter: Date

        public init(fingerprint: String, certificate: String, notValidAfter: Date) {
            self.fingerprint = fingerprint
            self.certificate = certificate
            self.notValidAfter = notValidAfter
        }
    }
    /// `advertising`, `disabled` or `unknown` (serve does not record it yet).
    public var mdns: String
    public var codex: Codex
    /// Paired devices (not revoked); nil when the database cannot be read.
    public var devices: Int?
    /// Open client connections, from the server's `/metrics`; nil when unknown.
    public var connections: Int?
    /// Threads with a running turn, from the server's `/metrics`; nil when unknown.
    public var runningThreads: Int?
    /// The shared codex app-server, when the bridge runs (or is configured) with `--shared`; else nil.
    public var shared: Shared?

    public init(
        running: Bool, version: String, stateDirectory: String, server: Server?, tls: Bool, fingerprint: String?, mdns: String,
        codex: Codex, devices: Int?, connections: Int?, runningThreads: Int?, shared: Shared? = nil,
        certificateAuthority: Authority? = nil
    ) {
        self.certificateAuthority = certificateAuthority
        self.shared = shared
        self.running = running
        self.version = version
        self.stateDirectory = stateDirectory
        self.server = server
        self.tls = tls
        self.fingerprint = fingerprint
        self.mdns = mdns
        self.codex = codex
        self.devices = devices
        self.connections = connections
        self.runningThreads = runningThreads
    }

    /// The exit status: 0 when running, 3 when not (as `systemctl status`).
    public var exitCode: Int32 { running ? 0 : 3 }

    /// JSON with every key present (`null` for unknowns), sorted keys, ISO 8601 dates.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(NullKeeping(self))
        return String(decoding: data, as: UTF8.self)
    }

    /// Human-readable lines.
    public var text: String {
        func show<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "unknown" }
        var lines: [String] = []
        if let server {
            lines.append("codex-bridge \(version): " + (running ? "running" : "not answering") + " (pid \(server.pid))")
            lines.append("  listen:      \(server.host):\(server.port)" + (server.healthy ? "" : "  (/healthz did not answer)"))
            lines.append("  addresses:   " + (server.addresses.isEmpty ? "none" : server.addresses.joined(separator: ", ")))
            lines.append("  started:     \(server.startedAt.formatted(.iso8601))")
        } else {
            lines.append("codex-bridge \(version): not running")
        }
        let pinned = fingerprint.map { $0 == certificateAuthority?.fingerprint ? "\($0) (this workstation's certificate authority)" : $0 }
        lines.append("  tls:         " + (tls ? "on, fingerprint \(pinned ?? "unknown")" : "off"))
        if let certificateAuthority {
            lines.append("  ca:          SHA-256 \(certificateAuthority.fingerprint) (\(certificateAuthority.certificate))")
        }
        lines.append("  mdns:        \(mdns)")
        if let path = codex.path {
            let login = codex.loggedIn.map { $0 ? "logged in" : "not logged in" } ?? "login unknown"
            lines.append("  codex:       \(codex.version ?? "version unknown") at \(path), \(login)")
        } else {
            lines.append("  codex:       not found")
        }
        if let shared {
            lines.append("  shared:      \(shared.socket) " + (shared.answering ? "(answering)" : "(not answering: codex_unavailable)"))
            lines.append("  desk:        \(shared.attach)")
        }
        lines.append("  devices:     \(show(devices))")
        if running {
            lines.append("  connections: \(show(connections))")
            lines.append("  threads:     \(show(runningThreads)) running")
        }
        lines.append("  state:       \(stateDirectory)")
        return lines.joined(separator: "\n")
    }
}

/// Encodes optionals as `null` instead of leaving the key out, so `status --json` always has every field.
private struct NullKeeping: Encodable {
    let report: StatusReport
    init(_ report: StatusReport) { self.report = report }

    enum Keys: String, CodingKey {
        case running, version, stateDirectory, server, tls, fingerprint, certificateAuthority, mdns, codex, devices, connections,
            runningThreads, shared
    }
    enum CodexKeys: String, CodingKey { case path, version, loggedIn }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(report.running, forKey: .running)
        try container.encode(report.version, forKey: .version)
        try container.encode(report.stateDirectory, forKey: .stateDirectory)
        try container.encode(report.server, forKey: .server)
        try container.encode(report.tls, forKey: .tls)
        try container.encode(report.fingerprint, forKey: .fingerprint)
        try container.encode(report.certificateAuthority, forKey: .certificateAuthority)
        try container.encode(report.mdns, forKey: .mdns)
        var codex = container.nestedContainer(keyedBy: CodexKeys.self, forKey: .codex)
        try codex.encode(report.codex.path, forKey: .path)
        try codex.encode(report.codex.version, forKey: .version)
        try codex.encode(report.codex.loggedIn, forKey: .loggedIn)
        try container.encode(report.devices, forKey: .devices)
        try container.encode(report.connections, forKey: .connections)
        try container.encode(report.runningThreads, forKey: .runningThreads)
        try container.encode(report.shared, forKey: .shared)
    }
}

/// Reads one sample of a Prometheus text exposition (`name value` or `name{labels} value`).
public enum PrometheusText {
    /// The value of the first sample named `name` whose labels include `labels` (e.g. `result="ok"`).
    public static func value(of name: String, labels: String? = nil, in text: String) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count >= 2 else { continue }
            let series = parts[0]
            let seriesName = series.split(separator: "{", maxSplits: 1).first.map(String.init) ?? ""
            guard seriesName == name else { continue }
            if let labels, !series.contains(labels) { continue }
            return Double(parts[1])
        }
        return nil
    }
}

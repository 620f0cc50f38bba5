import ChildProcess
import Foundation
import Logging

/// Asks Tailscale for this machine's MagicDNS name.
public protocol TailscaleStatusProvider: Sendable {
    /// The MagicDNS name without the trailing dot (`box.tail1234.ts.net`), or nil when Tailscale is absent,
    /// stopped, or does not answer in time.
    func magicDNSName() async -> String?
}

/// Runs `tailscale status --json` (the first `tailscale` on `PATH`) and reads `Self.DNSName`; runs
/// `tailscale cert`.
///
/// Through ``ChildProcess``: bounded by a timeout (the CLI can hang while tailscaled starts) and an output
/// limit, the whole process group ended on timeout.
public struct TailscaleCLI: TailscaleStatusProvider {
    /// The environment whose `PATH` is searched and which the child gets.
    public var environment: [String: String]
    /// How long the CLI may take.
    public var timeout: Duration
    private let logger: Logger

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: Duration = .seconds(2),
        logger: Logger
    ) {
        self.environment = environment
        self.timeout = timeout
        self.logger = logger
    }

    public func magicDNSName() async -> String? {
        guard let executable = Self.find("tailscale", path: environment["PATH"]) else {
            logger.debug("no tailscale CLI on PATH")
            return nil
        }
        guard let output = await run(executable, ["status", "--json"]) else { return nil }
        let name = Self.dnsName(fromStatus: output)
        logger.debug("tailscale status", metadata: ["bridge.tailscale.dnsName": "\(name ?? "none")"])
        return name
    }

    /// `Self.DNSName` of `tailscale status --json`, trailing dot removed; nil unless the backend is running.
    static func dnsName(fromStatus data: Data) -> String? {
        struct Status: Decodable {
            struct Node: Decodable { var DNSName: String? }
            var BackendState: String?
            var `Self`: Node?
        }
        guard let status = try? JSONDecoder().decode(Status.self, from: data) else { return nil }
        if let state = status.BackendState, state != "Running" { return nil }
        guard var name = status.Self?.DNSName?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return nil }
        while name.hasSuffix(".") { name.removeLast() }
        return name.isEmpty ? nil : name
    }

    /// Runs `tailscale cert --cert-file CERT --key-file KEY DOMAIN`: obtains (or renews, when due) the
    /// machine's Let's Encrypt certificate for its MagicDNS name. Needs MagicDNS and HTTPS certificates enabled
    /// in the tailnet. Returns nil on success, else what went wrong (for `doctor` and the startup error).
    public func fetchCertificate(domain: String, certFile: String, keyFile: String, timeout: Duration = .seconds(60)) async -> String? {
        guard let executable = Self.find("tailscale", path: environment["PATH"]) else {
            return "no tailscale CLI on PATH (install Tailscale and run `tailscale up`)"
        }
        do {
            let outcome = try await ChildProcess.run(
                executable.path, arguments: ["cert", "--cert-file", certFile, "--key-file", keyFile, domain],
                environment: environment, outputLimit: 64 << 10, timeout: timeout)
            if outcome.succeeded { return nil }
            if outcome.timedOut { return "tailscale cert did not finish within \(timeout)" }
            return "tailscale cert failed (enable MagicDNS and HTTPS certificates in the tailnet's DNS settings): "
                + outcome.text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(300)
        } catch {
            return "\(error)"
        }
    }

    /// The first executable `name` in the colon-separated `path`.
    static func find(_ name: String, path: String?) -> URL? {
        let path = path ?? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        return ChildProcess.which(name, path: path).map { URL(fileURLWithPath: $0) }
    }

    /// Runs the executable; its output if it exits 0 in time.
    private func run(_ executable: URL, _ arguments: [String]) async -> Data? {
        do {
            let outcome = try await ChildProcess.run(
                executable.path, arguments: arguments, environment: environment, outputLimit: 16 << 20, timeout: timeout)
            guard outcome.succeeded else {
                logger.debug("tailscale failed", metadata: ["bridge.tailscale.status": "\(outcome.status.map(String.init) ?? "killed")"])
                return nil
            }
            return Data(outcome.output)
        } catch {
            logger.debug("cannot run tailscale", metadata: ["bridge.error": "\(error)"])
            return nil
        }
    }
}

import Foundation
import Logging

/// Asks Tailscale for this machine's MagicDNS name.
public protocol TailscaleStatusProvider: Sendable {
    /// The MagicDNS name without the trailing dot (`box.tail1234.ts.net`), or nil when Tailscale is absent,
    /// stopped, or does not answer in time.
    func magicDNSName() async -> String?
}

/// Runs `tailscale status --json` (the first `tailscale` on `PATH`) and reads `Self.DNSName`.
///
/// Bounded by a timeout (the CLI can hang while tailscaled starts); the child's stdout goes to a temporary
/// file rather than a pipe, so a large status (many peers) cannot block it and no pipe can keep us waiting.
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

    /// The first executable `name` in the colon-separated `path`.
    static func find(_ name: String, path: String?) -> URL? {
        let directories = (path ?? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin").split(separator: ":")
        for directory in directories where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               access(candidate.path, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Runs the executable with stdout to an unlinked temporary file; its output if it exits 0 in time.
    private func run(_ executable: URL, _ arguments: [String]) async -> Data? {
        var template = Array((NSTemporaryDirectory() + "/codex-bridge-tailscale.XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { return nil }
        unlink(String(cString: template))  // the open descriptor keeps the file; nothing is left behind
        let output = FileHandle(fileDescriptor: fd, closeOnDealloc: true)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let (exited, exit) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exit.yield(finished.terminationStatus)
            exit.finish()
        }
        do {
            try process.run()
        } catch {
            logger.debug("cannot run tailscale", metadata: ["bridge.error": "\(error)"])
            return nil
        }
        let timeout = self.timeout
        let status: Int32? = await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                for await status in exited { return status }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let status else {
            kill(process.processIdentifier, SIGKILL)
            logger.debug("tailscale status timed out")
            return nil
        }
        guard status == 0 else { return nil }
        guard lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        return try? output.readToEnd()
    }
}

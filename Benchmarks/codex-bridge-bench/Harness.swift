import Foundation
import NIOCore
import NIOPosix

/// Processes under test: a `codex-bridge serve` or the peer `codex app-server --listen`, on 127.0.0.1 only.
final class ServerProcess {
    let process: Process
    let port: Int
    let token: String
    var pid: Int32 { process.processIdentifier }

    private init(process: Process, port: Int, token: String) {
        self.process = process
        self.port = port
        self.token = token
    }

    /// Starts the bridge with the bench binary as its (fake) codex; waits for `server.json`. `logLevel` nil: the
    /// bridge's default, as a user runs it.
    /// `launcher`: the program and its first arguments, when not the bridge (P2's Python reference).
    static func bridge(
        _ options: BenchOptions, name: String, logLevel: String? = "warning", extra: [String] = [], launcher: [String]? = nil
    ) throws -> ServerProcess {
        let dir = options.workDir.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("ws"), withIntermediateDirectories: true)
        let process = Process()
        let launcher = launcher ?? [options.bridge]
        process.executableURL = URL(fileURLWithPath: launcher[0])
        process.arguments =
            Array(launcher.dropFirst())
            + [
                "serve", "--listen", "127.0.0.1:0", "--state-dir", dir.path, "--no-qr", "--no-mdns",
                "--codex", options.selfPath, "--root", dir.appendingPathComponent("ws").path,
                // Every client of the bench comes from 127.0.0.1: lift the per-address cap on connections that
                // have not said hello yet (200 concurrent handshakes would otherwise shed 72 of them).
                "--max-unauthenticated", "20000", "--max-unauthenticated-per-address", "20000",
            ] + (logLevel.map { ["--log-level", $0] } ?? []) + extra
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "CODEX_BRIDGE_HOME" }
        process.standardInput = FileHandle.nullDevice
        let log = FileManager.default.createFile(atPath: dir.path + ".log", contents: nil)
        precondition(log)
        process.standardOutput = FileHandle(forWritingAtPath: dir.path + ".log")
        process.standardError = process.standardOutput
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !process.isRunning { throw BenchError("bridge exited: see \(dir.path).log") }
            if let data = try? Data(contentsOf: dir.appendingPathComponent("server.json")),
                let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                (info["pid"] as? Int).map(Int32.init) == process.processIdentifier, let port = info["port"] as? Int
            {
                let token = try String(contentsOf: dir.appendingPathComponent("token"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return ServerProcess(process: process, port: port, token: token)
            }
            usleep(20_000)
        }
        process.terminate()
        throw BenchError("bridge did not start within 30 s")
    }

    /// Starts `codex app-server --listen ws://127.0.0.1:PORT --ws-auth capability-token`; waits for the port.
    static func peer(_ options: BenchOptions, name: String) throws -> ServerProcess {
        guard let codex = options.peerCodex else { throw BenchError("no peer codex binary") }
        let dir = options.workDir.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("home"), withIntermediateDirectories: true)
        let token = "bench-" + UUID().uuidString
        try token.write(to: dir.appendingPathComponent("token"), atomically: true, encoding: .utf8)
        let port = freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: codex)
        process.arguments = [
            "app-server", "--listen", "ws://127.0.0.1:\(port)", "--ws-auth", "capability-token",
            "--ws-token-file", dir.appendingPathComponent("token").path,
        ]
        var env = ProcessInfo.processInfo.environment
        env["CODEX_HOME"] = dir.appendingPathComponent("home").path
        env["OPENAI_API_KEY"] = "sk-bench"
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: dir.path + ".log", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: dir.path + ".log")
        process.standardError = process.standardOutput
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !process.isRunning { throw BenchError("peer codex exited: see \(dir.path).log") }
            if tcpConnects(port: port) { return ServerProcess(process: process, port: port, token: token) }
            usleep(20_000)
        }
        process.terminate()
        throw BenchError("peer codex did not listen within 30 s")
    }

    /// Starts `codex-bridge-echo PORT` (the bridge's own server and connection handler in echo mode) from the
    /// bench's directory: the stack without the hub. Nil when not built.
    static func frameworkEcho(_ options: BenchOptions, name: String) throws -> ServerProcess? {
        let binary = URL(fileURLWithPath: options.selfPath).deletingLastPathComponent().appendingPathComponent("codex-bridge-echo").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { return nil }
        let port = freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [String(port)]
        process.standardInput = FileHandle.nullDevice
        let log = options.workDir.appendingPathComponent(name + ".log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = process.standardOutput
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !process.isRunning { throw BenchError("codex-bridge-echo exited: see \(log)") }
            if tcpConnects(port: port) { return ServerProcess(process: process, port: port, token: "") }
            usleep(20_000)
        }
        process.terminate()
        throw BenchError("codex-bridge-echo did not listen within 30 s")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// Resident set size in KiB (VmRSS).
    var rssKiB: Int { Self.status(pid, "VmRSS:") }

    /// User + system CPU time in clock ticks.
    var cpuTicks: Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the comm field: state is fields[0]; utime and stime are fields 14 and 15 of stat (1-based).
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    static func status(_ pid: Int32, _ key: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

/// A free TCP port on 127.0.0.1 (bound then released).
func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    _ = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// Whether a blocking connect to 127.0.0.1:port succeeds.
func tcpConnects(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Percentiles of a sample, in the sample's unit.
struct Percentiles {
    var p50: Double
    var p99: Double
    var count: Int

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func at(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
        }
        p50 = at(0.5)
        p99 = at(0.99)
    }
}

/// Waits for a future from a thread that is not an event loop, with a deadline.
func waitFor<T: Sendable>(_ future: EventLoopFuture<T>, seconds: Double, _ what: String) throws -> T {
    let promise = future.eventLoop.makePromise(of: T.self)
    future.cascade(to: promise)
    let timeout = future.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
        promise.fail(BenchError("timed out after \(seconds) s: \(what)"))
    }
    defer { timeout.cancel() }
    return try promise.futureResult.wait()
}

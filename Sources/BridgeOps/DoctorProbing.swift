import Foundation

/// What `doctor` asks of the machine; tests substitute a fake.
public protocol DoctorProbing: Sendable {
    /// The absolute path of an executable named `name` (on `PATH`, then `/usr/sbin` and `/sbin`), or nil.
    func which(_ name: String) -> String?
    /// Runs a command with a deadline.
    func run(_ executable: String, _ arguments: [String], timeout: Duration) async -> CommandOutcome
    /// Whether `127.0.0.1:port` can be bound now.
    func isPortFree(_ port: Int) -> Bool
    /// The permission bits of a file or directory, or nil when it does not exist.
    func permissions(ofItemAt path: String) -> UInt16?
    /// The names of the regular files directly in `directory`.
    func regularFiles(in directory: String) -> [String]
    /// Whether a file or directory belongs to someone else than the user running `doctor` (so a `chmod` of
    /// theirs would fail).
    func isOwnedByAnotherUser(_ path: String) -> Bool
}

/// The real machine.
public struct SystemProbe: DoctorProbing {
    /// Directories searched after `PATH`: daemons such as `avahi-daemon` live in sbin, often not on a user's `PATH`.
    public static let extraDirectories = ["/usr/sbin", "/sbin"]

    public let runner: CommandRunner

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        var environment = environment
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        environment["PATH"] = ([path] + Self.extraDirectories).joined(separator: ":")
        self.runner = CommandRunner(environment: environment)
    }

    public func which(_ name: String) -> String? { runner.which(name) }

    public func run(_ executable: String, _ arguments: [String], timeout: Duration) async -> CommandOutcome {
        await runner.run(executable, arguments, timeout: timeout)
    }

    public func isPortFree(_ port: Int) -> Bool { PortProbe.isFree(port: port) }

    public func permissions(ofItemAt path: String) -> UInt16? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = attributes[.posixPermissions] as? NSNumber
        else { return nil }
        return UInt16(truncatingIfNeeded: mode.intValue & 0o7777)
    }

    public func isOwnedByAnotherUser(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_uid != geteuid()
    }

    public func regularFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().filter { name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)")
            return attributes?[.type] as? FileAttributeType == .typeRegular
        }
    }
}

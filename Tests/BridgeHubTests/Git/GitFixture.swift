import BridgeProtocol
import ConfinedFiles
import Foundation
import Testing

@testable import BridgeGit
@testable import BridgeHub

/// A home with a global git configuration, a repository with one commit and a bare remote (`file://`), in a fresh
/// directory; git runs for the test's own setup with that home. Nothing reaches the network.
struct GitFixture {
    let directory: String
    let home: String
    let repository: String
    let remote: String
    let markers: String

    /// - Parameter base: where it all goes (a fresh temporary directory when nil).
    init(identity: Bool = true, globalConfig: String = "", base: String? = nil) throws {
        let base = base ?? FileManager.default.temporaryDirectory.appendingPathComponent("git-\(UUID().uuidString)").path
        directory = try #require(WorkspaceRoots.resolve(try Self.make(base)))
        home = try Self.make(directory + "/home")
        repository = try Self.make(directory + "/app")
        remote = directory + "/remote.git"
        markers = try Self.make(directory + "/markers")
        let identityConfig = identity ? "[user]\n\tname = Ana\n\temail = ana@example.com\n" : ""
        try (identityConfig + "[init]\n\tdefaultBranch = main\n" + globalConfig)
            .write(toFile: home + "/.gitconfig", atomically: true, encoding: .utf8)
        try git("init", "-q", repository)
        try write("tracked.txt", "one\n")
        try git("-C", repository, "add", ".")
        try git("-C", repository, "-c", "user.name=Setup", "-c", "user.email=setup@example.com", "commit", "-qm", "first")
        try git("init", "-q", "--bare", remote)
        try git("-C", repository, "remote", "add", "origin", "file://" + remote)
    }

    static func make(_ path: String) throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The environment the bridge would have: this home, a plain PATH.
    var environment: [String: String] { ["HOME": home, "PATH": "/usr/bin:/bin"] }

    var tools: GitTools { GitTools(environment: environment) }

    /// The fixture's directory as the one root.
    var roots: WorkspaceRoots { get throws { try WorkspaceRoots([directory]) } }

    /// The checkout holding `directory` (the repository when nil), as the bridge finds it with `environment` (the
    /// fixture's when nil), inside ``roots``.
    func checkout(_ directory: String? = nil, environment: [String: String]? = nil) throws -> GitCheckout {
        try GitTools(environment: environment ?? self.environment).checkout(directory ?? repository, roots: try roots)
    }

    /// Runs git for the test itself (not the bridge's way); → standard output.
    @discardableResult
    func git(_ arguments: String..., in directory: String? = nil) throws -> String {
        try run("/usr/bin/git", arguments, in: directory)
    }

    @discardableResult
    func run(_ executable: String, _ arguments: [String], in directory: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["HOME": home, "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"]
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func write(_ path: String, _ text: String, in directory: String? = nil) throws {
        let full = (directory ?? repository) + "/" + path
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
    }

    /// Marker files a planted program made (none may exist).
    var touchedMarkers: [String] { (try? FileManager.default.contentsOfDirectory(atPath: markers).sorted()) ?? [] }

    /// A shell command that leaves marker `name`.
    func touch(_ name: String) -> String { "touch \(markers)/\(name)" }

    /// An executable script at `path` that leaves marker `name` (and succeeds).
    func script(_ path: String, marker name: String) throws {
        try "#!/bin/sh\ntouch \(markers)/\(name)\nexit 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    struct FixtureError: Error, CustomStringConvertible { let description: String }
}

extension GitError {
    var summary: String { "\(code.wire.rawValue): \(message)" }
}

/// The wire code of the `GitError` `body` throws (nil when it returns).
func gitErrorCode(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as GitError {
        return error.code.wire.rawValue
    } catch {
        return "\(error)"
    }
}

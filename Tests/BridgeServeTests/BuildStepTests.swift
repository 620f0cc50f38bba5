import BridgeStore
import Foundation
import Logging
import Prometheus
import Testing

@testable import BridgeServe

#if canImport(Glibc)
    import Glibc
#endif

/// Each step of ``buildBridge(_:paths:logger:metrics:)`` fails with a ``ServeError`` naming the step and a code,
/// before anything is started (nothing listens, no codex runs).
@Suite(.timeLimit(.minutes(1))) struct BuildStepTests {
    /// Settings that would start on 127.0.0.1 port 0 with nothing shown, in a fresh directory.
    static func settings(_ directory: URL) -> ServeSettings {
        var settings = ServeSettings()
        settings.listen = ListenAddress(host: "127.0.0.1", port: 0)
        settings.qr = false
        settings.mdns = false
        settings.push.inhibit = false
        settings.roots = [directory.path]
        return settings
    }

    static func failure(_ settings: ServeSettings, paths: StatePaths) async -> ServeError? {
        let logger = Logger(label: "steps") { _ in SwiftLogNoOpLogHandler() }
        do {
            _ = try await buildBridge(settings, paths: paths, logger: logger, metrics: PrometheusCollectorRegistry())
            return nil
        } catch {
            return error as? ServeError
        }
    }

    enum Broken: String, CaseIterable {
        case missingRoot, missingCodex, stateDirectoryIsAFile, missingCertificate, badNotifyURL
    }

    @Test(arguments: Broken.allCases) func aBrokenSettingFailsItsStepWithACode(_ broken: Broken) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("steps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = Self.settings(directory)
        var paths = StatePaths.resolve(override: directory.appendingPathComponent("state").path)
        let expected: (ServeError.Step, ServeError.Code, String)
        switch broken {
        case .missingRoot:
            settings.roots = [directory.appendingPathComponent("no-such-root").path]
            expected = (.state, .roots, "no-such-root")
        case .missingCodex:
            settings.codex = directory.appendingPathComponent("no-such-codex").path
            expected = (.state, .codexUnavailable, "no-such-codex")
        case .stateDirectoryIsAFile:
            try Data().write(to: directory.appendingPathComponent("file"))
            paths = StatePaths.resolve(override: directory.appendingPathComponent("file").path)
            expected = (.state, .stateDirectory, "cannot prepare the state directory")
        case .missingCertificate:
            settings.tls = true
            settings.tlsCert = directory.appendingPathComponent("no.crt").path
            settings.tlsKey = directory.appendingPathComponent("no.key").path
            expected = (.tls, .tls, "cannot set up TLS")
        case .badNotifyURL:
            settings.push.notifyURLs = ["ftp://example.org/x"]
            expected = (.hub, .push, "--notify-url")
        }
        let error = try #require(await Self.failure(settings, paths: paths))
        #expect(error.step == expected.0 && error.code == expected.1, "\(error)")
        #expect(error.description.contains(expected.2), "\(error)")
    }

    @Test func aPortInUseIsOneLineBeforeAnythingElse() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("steps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (socket, port) = try Self.listeningSocket()
        defer { close(socket) }
        var settings = Self.settings(directory)
        settings.listen.port = port
        let state = directory.appendingPathComponent("state")
        let error = try #require(await Self.failure(settings, paths: StatePaths.resolve(override: state.path)))
        #expect(error.step == .state && error.code == .portInUse)
        #expect(error.description == "127.0.0.1:\(port) is already in use (by another program); stop it or choose --listen HOST:PORT")
        // Checked before the state directory is made.
        #expect(!FileManager.default.fileExists(atPath: state.path))
    }

    /// The preview origins are the `--preview-origins` ports after `--preview-port`: one of them in use, or the
    /// range past 65535, is one line naming the flags.
    @Test func aPreviewOriginsPortInUseOrPastTheLastPortIsOneLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("steps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (socket, port) = try Self.listeningSocket()
        defer { close(socket) }
        let state = StatePaths.resolve(override: directory.appendingPathComponent("state").path)
        var settings = Self.settings(directory)
        settings.listen.port = 0
        settings.previewPort = port - 2
        settings.previewOrigins = 4
        let inUse = try #require(await Self.failure(settings, paths: state))
        #expect(inUse.step == .state && inUse.code == .portInUse, "\(inUse)")
        #expect(inUse.description.hasPrefix("port \(port), one of the preview origins' (the 4 ports after --preview-port \(port - 2))"))
        settings.previewPort = 65_530
        settings.previewOrigins = 16
        let past = try #require(await Self.failure(settings, paths: state))
        #expect(past.code == .previewPorts && past.description.contains("past 65535"), "\(past)")
    }

    /// A socket listening on 127.0.0.1 at a port the system picked.
    static func listeningSocket() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound && listen(fd, 1) == 0)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import Testing

@Suite("BridgeDatabase files")
struct BridgeDatabaseTests {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    @Test func databaseFilesAre0600AndStateDirectory0700() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let logs = CapturedLogs()
        let database = try BridgeDatabase(paths: state.paths, logger: logs.logger)
        let registry = DeviceRegistry(database: database, logger: logs.logger)
        _ = try await registry.mintPairingCode(ttl: .seconds(60))  // a write: the WAL exists now

        #expect(try mode(state.paths.stateDirectory.path) == 0o700)
        let file = state.paths.databaseFile.path
        for path in [file, file + "-wal", file + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: path), "\(path)")
            #expect(try mode(path) == 0o600, "\(path)")
        }
    }

    @Test func looseModesAreTightenedOnOpen() throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        try FileManager.default.createDirectory(
            at: state.paths.stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        _ = FileManager.default.createFile(
            atPath: state.paths.databaseFile.path, contents: nil, attributes: [.posixPermissions: 0o644])
        _ = try BridgeDatabase(paths: state.paths, logger: CapturedLogs().logger)
        #expect(try mode(state.paths.stateDirectory.path) == 0o700)
        #expect(try mode(state.paths.databaseFile.path) == 0o600)
    }

    @Test func reopeningKeepsData() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let logs = CapturedLogs()
        do {
            let registry = DeviceRegistry(database: try BridgeDatabase(paths: state.paths, logger: logs.logger), logger: logs.logger)
            let code = try await registry.mintPairingCode(ttl: .seconds(60))
            _ = try await registry.redeem(code: code.code, device: .init(name: "a"), address: nil)
        }
        let again = DeviceRegistry(database: try BridgeDatabase(paths: state.paths, logger: logs.logger), logger: logs.logger)
        #expect(try await again.list().map(\.name) == ["a"])
    }
}

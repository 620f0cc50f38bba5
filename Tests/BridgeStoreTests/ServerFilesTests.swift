import BridgeStore
import Foundation
import Testing

@Suite("Server identity and record")
struct ServerFilesTests {
    @Test func identityIsStableAndPrivate() throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let first = try ServerIdentity.loadOrCreate(paths: state.paths)
        let second = try ServerIdentity.loadOrCreate(paths: state.paths, name: "Studio Mac")
        #expect(first.id == second.id)
        #expect(first.id.count >= 20)
        #expect(first.name == ServerIdentity.hostName())
        #expect(second.name == "Studio Mac")
        let attributes = try FileManager.default.attributesOfItem(atPath: state.paths.serverIdFile.path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
    }

    /// A linked machine's id is the other bridge's server id, typed as an argument (`machines remove ID`): one id
    /// in 64 used to start with `-` and read as an option (CI failed on `machines remove -pA_5…`).
    @Test func aNewIdNeverStartsWithADash() throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        var ids = Set<String>()
        for _ in 0..<1500 {
            try? FileManager.default.removeItem(at: state.paths.serverIdFile)
            let id = try ServerIdentity.loadOrCreate(paths: state.paths).id
            #expect(!id.hasPrefix("-"), "\(id)")
            ids.insert(id)
        }
        #expect(ids.count == 1500)
    }

    @Test func recordRoundTripAndLiveness() throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        try state.paths.prepare()
        #expect(try ServerRecord.read(paths: state.paths) == nil)

        let record = ServerRecord(
            port: 8765, host: "0.0.0.0", addresses: ["192.168.1.20", "fd7a:115c:a1e0::1"],
            startedAt: Date(timeIntervalSince1970: 1_750_000_000), tls: true, fingerprint: "AB:CD")
        try record.write(paths: state.paths)
        #expect(try ServerRecord.read(paths: state.paths) == record)
        #expect(ServerRecord.readRunning(paths: state.paths) == record)  // our own pid is alive
        let attributes = try FileManager.default.attributesOfItem(atPath: state.paths.serverFile.path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)

        ServerRecord.remove(paths: state.paths, ifPid: record.pid + 1)  // not ours: kept
        #expect(try ServerRecord.read(paths: state.paths) != nil)
        ServerRecord.remove(paths: state.paths)
        #expect(try ServerRecord.read(paths: state.paths) == nil)
    }

    @Test func deadServerIsIgnored() throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        try state.paths.prepare()
        // A pid that cannot exist: above the kernel's pid_max.
        var record = ServerRecord(port: 1, host: "::", addresses: [])
        record.pid = 2_147_483_000
        try record.write(paths: state.paths)
        #expect(try ServerRecord.read(paths: state.paths)?.pid == record.pid)
        #expect(ServerRecord.readRunning(paths: state.paths) == nil)
    }

    @Test func corruptRecordIsAnError() throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        try state.paths.prepare()
        try SecretFile.write("not json", to: state.paths.serverFile)
        #expect(throws: StoreError.self) { try ServerRecord.read(paths: state.paths) }
        #expect(ServerRecord.readRunning(paths: state.paths) == nil)
    }
}

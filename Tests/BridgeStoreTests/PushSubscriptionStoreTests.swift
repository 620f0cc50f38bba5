import BridgeProtocol
import BridgeStore
import Foundation
import GRDB
import Testing

@Suite struct PushSubscriptionStoreTests {
    @Test func savedPerOwnerReplacedByEndpointAndDeletedOnRevoke() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let logs = CapturedLogs()
        let database = try BridgeDatabase(paths: state.paths, logger: logs.logger)
        let registry = DeviceRegistry(database: database, logger: logs.logger)
        let store = PushSubscriptionStore(database: database)
        let code = try await registry.mintPairingCode(ttl: .seconds(600))
        let phone = try await registry.redeem(code: code.code, device: DeviceInfo(name: "phone"), address: nil)
        let phoneId = phone.record.id
        let key = Data(repeating: 4, count: 65)
        let auth = Data(repeating: 1, count: 16)
        let first = try await store.save(owner: phoneId, endpoint: "https://push.example/a", p256dh: key, auth: auth, events: "approval")
        let again = try await store.save(owner: phoneId, endpoint: "https://push.example/a", p256dh: key, auth: auth, events: "turnFailed")
        #expect(first == again)
        let code2 = try await registry.mintPairingCode(ttl: .seconds(600))
        let tablet = try await registry.redeem(code: code2.code, device: DeviceInfo(name: "tablet"), address: nil)
        _ = try await store.save(owner: tablet.record.id, endpoint: "https://push.example/b", p256dh: key, auth: auth, events: "approval")
        // Seen failing before the fix: the same endpoint from another device took the phone's row over.
        let taken = try await store.save(
            owner: tablet.record.id, endpoint: "https://push.example/a", p256dh: key, auth: auth, events: "approval")
        #expect(taken != first)
        #expect(
            try await store.all().filter { $0.endpoint == "https://push.example/a" }.map(\.owner).sorted()
                == [phoneId, tablet.record.id].sorted())
        #expect(try await store.remove(id: taken, owner: tablet.record.id))
        // At most five per device: the oldest goes.
        for index in 0..<6 {
            _ = try await store.save(
                owner: tablet.record.id, endpoint: "https://push.example/t\(index)", p256dh: key, auth: auth, events: "approval")
        }
        #expect(
            try await store.all().filter { $0.owner == tablet.record.id }.map(\.endpoint).sorted()
                == (1..<6).map { "https://push.example/t\($0)" })
        for entry in try await store.all() where entry.owner == tablet.record.id && entry.endpoint != "https://push.example/t5" {
            try await store.remove(id: entry.id, owner: tablet.record.id)
        }
        _ = try await store.save(owner: tablet.record.id, endpoint: "https://push.example/b", p256dh: key, auth: auth, events: "approval")
        try await store.remove(id: try #require(try await store.all().first { $0.endpoint == "https://push.example/t5" }).id)
        // A row whose owner is no device is never used.
        _ = try await store.save(owner: "nobody", endpoint: "https://push.example/c", p256dh: key, auth: auth, events: "approval")
        var all = try await store.all()
        #expect(all.count == 2)
        #expect(all.first { $0.owner == phoneId }?.events == "turnFailed")
        // Another owner cannot remove it.
        #expect(try await store.remove(id: first, owner: tablet.record.id) == false)
        // Revoking the device (as `devices revoke` does, from any process) deletes its rows.
        _ = try await registry.revoke(id: phoneId)
        all = try await store.all()
        #expect(all.map(\.owner) == [tablet.record.id])
        let rows = try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM pushSubscription WHERE owner = ?", arguments: [phoneId])
        }
        #expect(rows == 0)
    }
}

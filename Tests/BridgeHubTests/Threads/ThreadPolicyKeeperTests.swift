import BridgeStore
import Foundation
import Logging
import Testing

@testable import BridgeHub

/// A thread's policy kept in a real SQLite file for the next run, in the hub's terms.
@Suite struct ThreadPolicyKeeperTests {
    @Test func aRememberedPolicyComesBackAndTheLastOneWins() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("policies-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "policy-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let database = try BridgeDatabase(paths: StatePaths(configDirectory: directory, stateDirectory: directory), logger: logger)
        let keeper = ThreadPolicyKeeper(store: ThreadPolicyStore(database: database), logger: logger)
        #expect(await keeper.policy(of: "t") == nil)
        await keeper.remember(TurnPolicy(sandbox: "read-only", approvalPolicy: "untrusted"), of: "t")
        await keeper.remember(TurnPolicy(sandbox: "workspace-write", approvalPolicy: "on-request"), of: "t")
        #expect(await keeper.policy(of: "t") == TurnPolicy(sandbox: "workspace-write", approvalPolicy: "on-request"))
        #expect(await keeper.policy(of: "u") == nil)
    }
}

import BridgeHub
import BridgeProtocol
import BridgeStore
import CodexControl
import ConfinedFiles
import Eventually
import Foundation
import HostileBridge
import Logging
import NIOCore
import Synchronization
import Testing

@testable import BridgeFleet

/// A home bridge without a network of its own: a real hub over a real SQLite journal (Codex answers nothing),
/// and a real ``MachineLink`` to a linked bridge the test plays (``HostileBridge``, on 127.0.0.1).
final class HomeHarness: Sendable {
    let hub: ThreadHub
    let storage: HubStorage
    let store: MachineStore
    let directory: URL
    let fleet = SharedFleetDirectory()
    private let runner: Task<Void, any Error>
    private let codex = SilentCodex()

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("home-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("root").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let logger = Logger(label: "home-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let database = try BridgeDatabase(paths: StatePaths(configDirectory: directory, stateDirectory: directory), logger: logger)
        storage = HubStorage(database: database, logger: logger)
        store = MachineStore(database: database)
        hub = try ThreadHub(codex: codex, policy: ThreadHub.Policy(roots: try WorkspaceRoots([root])), storage: storage, logger: logger)
        let hub = self.hub
        runner = Task { try await hub.run() }
        await codex.events.send(.started(generation: 1))
    }

    deinit {
        runner.cancel()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A linked machine at `bridge` (stored as `machines add` would), and its link running.
    func link(to bridge: HostileBridge, id: String = "hostile", budget: LinkBudget = .standard) async throws -> (
        MachineLink, Task<Void, Never>
    ) {
        let machine = MachineStore.Machine(
            id: id, name: "hostile", addresses: ["127.0.0.1"], port: bridge.port, fingerprint: nil, deviceId: "link-device",
            token: "link-token", clientId: "link-client")
        try await store.save(machine)
        let link = MachineLink(
            machine: machine, hub: hub, journal: storage.journal, store: store, directory: fleet, budget: budget,
            logger: Logger(label: "link", factory: { _ in SwiftLogNoOpLogHandler() }), onChange: { _ in })
        return (link, Task { await link.run() })
    }

    /// The highest seq of `machine` the journal holds (what its link resumes after).
    func relayedThrough(_ machine: String = "hostile") -> Int64 {
        (try? storage.journal.relayCursor(machine: machine)) ?? 0
    }

    /// Holds SQLite's write lock from a connection of its own for `duration` (a slow or busy disk: every writer
    /// of the home bridge waits meanwhile); opens `held` once it holds it.
    func holdWriteLock(for duration: Duration, held: Gate) async throws {
        let other = try BridgeDatabase(
            paths: StatePaths(configDirectory: directory, stateDirectory: directory),
            logger: Logger(label: "slow-disk", factory: { _ in SwiftLogNoOpLogHandler() }))
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        try await other.writeImmediate { _ in
            held.open()
            Thread.sleep(forTimeInterval: seconds)
        }
    }

    /// Waits until `condition` holds (``Eventually/eventually(_:timeout:_:)``).
    func waitUntil(_ what: String = "the condition", timeout: Duration = patience, _ condition: () throws -> Bool) async throws {
        try await eventually(what, timeout: timeout, condition)
    }

    /// This process's resident memory, in bytes (Linux `/proc/self/statm`).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}

/// A Codex that is there and answers nothing (the home bridge's own threads play no part here).
final class SilentCodex: CodexPort {
    let events = CodexStream<CodexEvent>(capacity: 64)
    func request(_ method: String, params: JSONValue, timeout: Duration) async throws -> JSONValue {
        throw CodexError.rpc(code: -32601, message: "silent codex")
    }
    func respond(to id: CodexRequestID, result: JSONValue) throws {}
    func respond(to id: CodexRequestID, errorCode: Int, message: String) throws {}
}

/// What a linked bridge must say to be linked: its helloAck (already subscribed to `*`), and an empty thread list.
enum LinkedBridgeScript {
    static let ack =
        #"{"kind":"helloAck","version":1,"ok":true,"server":{"id":"hostile","name":"hostile","version":"1"},"deviceId":"link-device","lastSeq":0,"resume":"ok","restoredSubscriptions":["*"]}"#

    /// Answers the hello, then every request with an empty answer, while `flood` sends what the test wants.
    static func serve(_ peer: HostilePeer, flood: @escaping @Sendable (HostilePeer) async throws -> Void) async throws {
        guard await peer.receive() != nil else { return }
        try await peer.send(ack)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await flood(peer) }
            group.addTask {
                while let text = await peer.receive() {
                    guard case .object(let request)? = try? JSONValue(parsing: Data(text.utf8)), let id = request["id"]?.stringValue else {
                        continue
                    }
                    try? await peer.send(#"{"kind":"threads","id":\#(JSONValue.string(id).jsonText),"threads":[]}"#)
                }
            }
            try await group.next()
            try await group.next()
        }
    }

    /// Events of `bytes` bytes or so whose payload is made once: each is sent as three fragments around it.
    static func eventFragments(bytes: Int) -> @Sendable (Int) -> [ByteBuffer] {
        var payload = ByteBufferAllocator().buffer(capacity: bytes + 16)
        payload.writeString(String(repeating: "x", count: bytes))
        let shared = payload
        return { seq in
            var head = ByteBufferAllocator().buffer(capacity: 128)
            head.writeString(
                #"{"kind":"event","seq":\#(seq),"threadId":"t-1","turnId":"u","type":"item/agentMessage/delta","data":{"delta":""#)
            var tail = ByteBufferAllocator().buffer(capacity: 4)
            tail.writeString(#""}}"#)
            return [head, shared, tail]
        }
    }

    /// An event of `bytes` bytes or so.
    static func event(seq: Int, thread: String = "t-1", bytes: Int) -> String {
        let delta = String(repeating: "x", count: bytes)
        return
            #"{"kind":"event","seq":\#(seq),"threadId":"\#(thread)","turnId":"u","type":"item/agentMessage/delta","data":{"delta":"\#(delta)"}}"#
    }

    /// An approval of `bytes` bytes or so, never answered.
    static func approval(seq: Int, bytes: Int) -> String {
        #"{"kind":"approvalRequest","seq":\#(seq),"approvalId":"a-\#(seq)","threadId":"t-1","turnId":"u","type":"fileChange","reason":"\#(String(repeating: "r", count: bytes))"}"#
    }
}

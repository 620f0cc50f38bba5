import BridgeProtocol
import BridgeStore
import CodexControl
import ConfinedFiles
import Eventually
import Foundation
import Logging
import Synchronization
import Testing

@testable import BridgeHub

/// A hub over a fake Codex and a real SQLite journal in a fresh directory, with sessions whose frames the test
/// reads from their recording sinks.
final class HubHarness: Sendable {
    let codex: FakeCodexPort
    let hub: ThreadHub
    let directory: URL
    let root: String
    let storage: HubStorage
    /// The hub's upload store (with `uploadLimit`), in `directory/uploads`.
    let uploads: UploadStore?
    private let runner: Task<Void, any Error>

    init(
        policy: ((WorkspaceRoots) -> ThreadHub.Policy)? = nil, directory: URL? = nil, shared: Bool = false, uploadLimit: Int? = nil,
        gitEnvironment: [String: String]? = nil
    ) async throws {
        codex = FakeCodexPort(shared: shared)
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        self.directory = directory
        let root = directory.appendingPathComponent("root").path
        try FileManager.default.createDirectory(atPath: root + "/project", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.appendingPathComponent("outside").path, withIntermediateDirectories: true)
        self.root = try #require(WorkspaceRoots.resolve(root))
        let logger = Logger(label: "hub-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let paths = StatePaths(configDirectory: directory, stateDirectory: directory)
        storage = HubStorage(database: try BridgeDatabase(paths: paths, logger: logger), logger: logger)
        let roots = try WorkspaceRoots([self.root])
        uploads = try uploadLimit.map { try UploadStore(directory: directory.appendingPathComponent("uploads"), maxBytes: $0) }
        hub = try ThreadHub(
            codex: codex, policy: policy?(roots) ?? ThreadHub.Policy(roots: roots), storage: storage, logger: logger, uploads: uploads,
            gitEnvironment: gitEnvironment)
        let hub = self.hub
        runner = Task { try await hub.run() }
        await codex.events.send(.started(generation: 1))
    }

    deinit { runner.cancel() }

    var project: String { root + "/project" }
    var outside: String { directory.appendingPathComponent("outside").path }

    private static let nextID = Mutex<UInt64>(0)

    /// A session that completed its handshake (shared secret unless `deviceId`), with `scopes` (nil: the
    /// principal's default).
    func session(deviceId: String? = nil, clientId: String? = nil, scopes: Scopes? = nil) async -> ClientSession {
        let id = Self.nextID.withLock {
            $0 += 1
            return $0
        }
        let principal: Principal = deviceId.map { .device(id: $0) } ?? .sharedSecret
        let session = ClientSession(
            id: id, principal: principal, hello: Hello(clientId: clientId), remoteAddress: "127.0.0.1",
            logger: Logger(label: "s", factory: { _ in SwiftLogNoOpLogHandler() }), sink: RecordingSink(capacity: 4096), scopes: scopes,
            onOverflow: {})
        _ = await hub.sessionOpened(session)
        await hub.sessionReady(session)
        return session
    }

    /// Runs a request and decodes its answer.
    func request(_ request: BridgeRequest, _ session: ClientSession, id: String = UUID().uuidString) async -> ServerMessage {
        await hub.handle(request, id: id, session: session)
    }

    /// The frames queued for `session` so far (taken: each is returned once).
    func frames(_ session: ClientSession) -> [ServerMessage] {
        session.recorded.take(limit: 100_000).compactMap { try? ServerMessage.decode(Data($0.utf8)) }
    }

    /// How long a test waits for something that should happen at once before it fails (``Eventually/patience``).
    static let patience: Duration = Eventually.patience

    /// Waits until the Codex events sent before the call are processed: the journal holds a row past `seq`, and
    /// the hub step that wrote it has ended (one more call on the hub runs after it). What a test that checks
    /// that something did *not* arrive waits for, instead of a fixed sleep (issue 45 item 6).
    func processed(after seq: Int64) async throws {
        try await eventually("a journal row past \(seq)") { try storage.journal.lastSeq() > seq }
        _ = await hub.runningTurnCount
    }

    /// Waits until `condition` holds (what a test needs to have happened), failing after ``patience``.
    func until(_ what: String, _ condition: () async throws -> Bool) async throws {
        try await eventually(what, condition)
    }

    /// Waits until `session` has received a frame matching `predicate`; returns every frame taken meanwhile.
    func waitFor(_ session: ClientSession, timeout: Duration = HubHarness.patience, _ predicate: (ServerMessage) -> Bool) async throws
        -> [ServerMessage]
    {
        var seen: [ServerMessage] = []
        do {
            try await eventually("a frame; frames so far: \(seen.map(\.kind))", timeout: timeout) {
                seen += frames(session)
                return seen.contains(where: predicate)
            }
        } catch let error as WaitedTooLong {
            Issue.record("\(error)")
        }
        return seen
    }

    /// Installs handlers for a thread that lives in `cwd`: thread/start, turn/start, thread/read, thread/resume.
    func codexKnowsThread(_ threadId: String, cwd: String, turnId: String = "turn-1") {
        codex.on("thread/start") { _ in ["thread": ["id": .string(threadId), "cwd": .string(cwd)]] }
        codex.on("turn/start") { _ in ["turn": ["id": .string(turnId)]] }
        codex.on("thread/read") { params in
            guard params["threadId"]?.stringValue == threadId else { throw CodexError.rpc(code: -32600, message: "thread not found") }
            return ["thread": ["id": .string(threadId), "cwd": .string(cwd), "turns": []]]
        }
        codex.on("thread/resume") { _ in ["cwd": .string(cwd), "thread": ["id": .string(threadId)]] }
        codex.on("turn/interrupt") { _ in [:] }
    }
}

extension ServerMessage {
    var errorCode: BridgeErrorCode? {
        if case .error(let error) = self { return error.code }
        return nil
    }

    var event: ThreadEvent? {
        if case .event(let event) = self { return event }
        return nil
    }
}

extension ClientSession {
    /// The recording sink a test session was made with (the hub sees it only as a ``SessionSink``).
    var recorded: RecordingSink {
        guard let recorded = sink as? RecordingSink else { fatalError("a test session writes to a RecordingSink") }
        return recorded
    }
}

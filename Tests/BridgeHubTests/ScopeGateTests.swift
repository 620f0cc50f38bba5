import BridgeProtocol
import BridgeStore
import Foundation
import Testing

@testable import BridgeHub

/// Scopes through the hub in-process (fake Codex, real SQLite): every request kind × every scope.
@Suite(.timeLimit(.minutes(1))) struct ScopeGateTests {
    /// What each kind answers when its scope is held: ``ThreadHubRequestKindsTests``'s table.
    static func expected(_ kind: RequestKind, project: String) -> (members: String, answer: String) {
        // A device asks for scopes for itself: these test devices are not in the registry.
        if kind == .requestScopes { return (#""scopes":["run"]"#, "error:not_found") }
        return ThreadHubRequestKindsTests.wire(kind, project: project)
    }

    private static func outcome(_ message: ServerMessage) -> (String, Scope?) {
        switch message {
        case .response(_, let response): (response.kind, nil)
        case .error(let error): ("error:" + error.code.rawValue, error.scope)
        default: ("unexpected:" + message.kind, nil)
        }
    }

    /// A device holding one scope may make exactly the requests of that scope; every other one is refused
    /// `forbidden` naming the scope it needs, before Codex hears of it, and is audited.
    @Test func everyKindIsAllowedOnlyWithItsScope() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        try "remember the milk\n".write(toFile: harness.project + "/notes.txt", atomically: true, encoding: .utf8)
        var mismatches: [String] = []
        for scope in Scope.allCases {
            let phone = await harness.session(deviceId: "dev-\(scope.rawValue)", scopes: Scopes([scope]))
            for kind in RequestKind.allCases {
                let (members, answer) = Self.expected(kind, project: harness.project)
                let frame = #"{"kind":"\#(kind.rawValue)","id":"r-\#(scope)-\#(kind)""# + (members.isEmpty ? "" : "," + members) + "}"
                guard case .request(let id, let request) = try ClientMessage.decode(Data(frame.utf8)) else {
                    Issue.record("\(kind) did not decode")
                    continue
                }
                let codexCalls = harness.codex.requests.count
                let audited = try await Self.refusalsCounted(harness, "dev-\(scope.rawValue)")
                let (got, named) = Self.outcome(await harness.request(request, phone, id: id))
                if kind.scope == scope {
                    if got != answer { mismatches.append("\(kind) with \(scope): \(got), expected \(answer)") }
                } else {
                    if got != "error:forbidden" || named != kind.scope {
                        mismatches.append("\(kind) with \(scope): \(got) \(named.map(\.rawValue) ?? "-"), expected forbidden \(kind.scope)")
                    }
                    if harness.codex.requests.count != codexCalls { mismatches.append("\(kind) with \(scope): Codex was asked") }
                    // Counted: in an entry of its own, or (beyond 20 refusal entries a minute) in the device's
                    // `refusals` entry.
                    await harness.hub.answers.settled()
                    let newest = try await harness.storage.audit.entries(deviceId: "dev-\(scope.rawValue)", limit: 1000).first {
                        $0.outcome != "ok"
                    }
                    let own = newest?.kind == kind.rawValue && newest?.outcome == "forbidden"
                    if try await Self.refusalsCounted(harness, "dev-\(scope.rawValue)") != audited + 1
                        || !(own || newest?.kind == AuditLog.limitedKind)
                    {
                        mismatches.append("\(kind) with \(scope): refusal not audited")
                    }
                }
            }
        }
        #expect(mismatches == [])
    }

    /// How many refusals of `deviceId` the audit log counts.
    static func refusalsCounted(_ harness: HubHarness, _ deviceId: String) async throws -> Int {
        // An allowed request's entry is written after its answer went out (ExactlyOnce): wait for it.
        await harness.hub.answers.settled()
        return try await harness.storage.audit.entries(deviceId: deviceId, limit: 1000).filter { $0.outcome != "ok" }.reduce(0) {
            $0 + ($1.count ?? 1)
        }
    }

    /// The refusal says what is missing and how to grant it.
    @Test func theRefusalNamesTheScopeAndTheCommand() async throws {
        let harness = try await HubHarness()
        let watcher = await harness.session(deviceId: "k3q9m2xa7bzt", scopes: Scopes([.observe]))
        let answer = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "hi")), watcher, id: "s1")
        guard case .error(let error) = answer else {
            Issue.record("expected a refusal, got \(answer)")
            return
        }
        #expect(error.id == "s1" && error.code == .forbidden && error.scope == .operate)
        #expect(
            error.message
                == "this device may not drive threads: startThread needs the scope 'operate'; on the workstation: codex-bridge devices scope k3q9m2xa7bzt observe,operate"
        )
    }

    /// State-changing requests are audited with who, where, what, which thread and how it ended; reads are not.
    @Test func stateChangingRequestsAreAudited() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session(deviceId: "dev1")
        let admin = await harness.session()
        _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "hi")), phone)
        _ = await harness.request(BridgeRequest(.readThread, ReadThread(threadId: "t1")), phone)
        _ = await harness.request(BridgeRequest(.interrupt, ThreadRef(threadId: "t1")), phone)
        _ = await harness.request(BridgeRequest(.pairDevice, PairDevice()), admin)
        let entries = try await harness.storage.audit.entries().reversed().map { ($0.actor, $0.deviceId, $0.kind, $0.threadId, $0.outcome) }
        #expect(entries.count == 3)
        #expect(entries[0] == (.device, "dev1", "startThread", "t1", "ok"))
        #expect(entries[1] == (.device, "dev1", "interrupt", "t1", "conflict"))
        #expect(entries[2] == (.sharedSecret, nil, "pairDevice", nil, "ok"))
        #expect(try await harness.storage.audit.entries().last?.address == "127.0.0.1")
    }

    /// `devices scope` in another process reaches an open session at the next refresh: it is told, the gate
    /// follows, and without `observe` it receives no more events.
    @Test func scopesChangedInTheDatabaseReachOpenSessions() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let code = try await harness.storage.devices.mintPairingCode(ttl: .seconds(60))
        let paired = try await harness.storage.devices.redeem(code: code.code, device: DeviceInfo(name: "Phone"), address: nil)
        let phone = await harness.session(deviceId: paired.deviceId, scopes: paired.record.scopes)
        #expect(await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone).kind == "subscribed")
        #expect(await harness.hub.refreshScopes() == 0)

        try await harness.storage.devices.setScopes(id: paired.deviceId, scopes: Scopes([.approve]))
        #expect(await harness.hub.refreshScopes() == 1)
        #expect(phone.scopes == Scopes([.approve]))
        let frames = harness.frames(phone)
        #expect(frames.contains(.scopesChanged(ScopesChanged(scopes: Scopes([.approve])))))
        #expect(await harness.request(BridgeRequest(.listThreads, ListThreads()), phone).errorCode == .forbidden)
        let before = try harness.storage.journal.lastSeq()
        await harness.codex.notify("turn/started", ["threadId": "t1", "turn": ["id": "u1"]])
        try await harness.processed(after: before)
        #expect(harness.frames(phone).filter { $0.event != nil }.isEmpty)

        // Back to observing: a new subscription delivers again.
        try await harness.storage.devices.setScopes(id: paired.deviceId, scopes: .standard)
        #expect(await harness.hub.refreshScopes() == 1)
        #expect(await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone).kind == "subscribed")
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "u1", "status": "completed"]])
        _ = try await harness.waitFor(phone) { $0.event?.type == "turn/completed" }
    }

    /// A device that may not observe gets its remembered subscriptions back only once it may again.
    @Test func noRestoredSubscriptionsWithoutObserve() async throws {
        let harness = try await HubHarness()
        let first = await harness.session(deviceId: "dev1")
        #expect(await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), first).kind == "subscribed")
        await harness.hub.sessionClosed(first)
        let blind = await harness.session(deviceId: "dev1", scopes: Scopes([.approve]))
        let before = try harness.storage.journal.lastSeq()
        await harness.codex.notify("turn/started", ["threadId": "t9", "turn": ["id": "u1"]])
        try await harness.processed(after: before)
        #expect(harness.frames(blind).filter { $0.event != nil }.isEmpty)
        let seeing = await harness.session(deviceId: "dev1")
        await harness.codex.notify("turn/completed", ["threadId": "t9", "turn": ["id": "u1", "status": "completed"]])
        _ = try await harness.waitFor(seeing) { $0.event?.type == "turn/completed" }
    }
}

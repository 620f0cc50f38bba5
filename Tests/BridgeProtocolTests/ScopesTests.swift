import BridgeProtocol
import Foundation
import Testing

@Suite struct ScopesTests {
    @Test func listsParseInAnyOrderAndCaseAndPrintCanonically() throws {
        #expect(try Scopes(parsing: " Approve,observe , OBSERVE").description == "observe,approve")
        #expect(try Scopes(parsing: "all") == .all)
        #expect(Scopes.all.description == "observe,operate,approve,publish,run,admin")
        #expect(Scopes.standard.description == "observe,operate,approve")
        #expect(throws: ScopeListError.self) { try Scopes(parsing: "observe,root") }
        #expect(throws: ScopeListError.self) { try Scopes(parsing: " , ") }
        let error = try #require(throws: ScopeListError.self) { try Scopes(parsing: "observe,sudo") }
        #expect(error.message == #"unknown scope "sudo"; scopes are observe,operate,approve,publish,run,admin (or all)"#)
        // A stored list from a newer version keeps what this one knows.
        #expect(Scopes(stored: "observe,teleport,run") == Scopes([.observe, .run]))
    }

    @Test func onTheWireAListOfNames() throws {
        let data = try JSONEncoder().encode(Scopes([.approve, .observe]))
        #expect(String(decoding: data, as: UTF8.self) == #"["observe","approve"]"#)
        #expect(try JSONDecoder().decode(Scopes.self, from: Data(#"["run","future","admin"]"#.utf8)) == Scopes([.run, .admin]))
        let ack = try ServerMessage.helloAck(HelloAck(version: 1, ok: true, scopes: .standard)).encoded()
        #expect(String(decoding: ack, as: UTF8.self).contains(#""scopes":["observe","operate","approve"]"#))
        let refusal = try ServerMessage.error(ErrorMessage(id: "1", code: .forbidden, message: "no", scope: .operate)).encoded()
        #expect(
            String(decoding: refusal, as: UTF8.self) == #"{"code":"forbidden","id":"1","kind":"error","message":"no","scope":"operate"}"#)
    }

    /// The issue's table: what each scope covers.
    @Test func everyRequestKindNeedsTheScopeTheIssueNames() {
        let expected: [Scope: Set<String>] = [
            .observe: [
                "listThreads", "subscribe", "unsubscribe", "readThread", "getDiff", "listDirectory", "listModels", "readFile", "usage",
                "searchFiles", "listSkills", "pushSubscribe", "pushUnsubscribe", "presence", "gitStatus", "searchThreads", "requestScopes",
                "listPermissionProfiles", "listTools", "listCollaborationModes", "accountUsage", "readTurns", "retryMachine", "listVoices",
            ],
            .operate: [
                "startThread", "sendMessage", "interrupt", "renameThread", "archiveThread", "unarchiveThread", "cancelQueued",
                "reorderQueued", "editQueued", "startReview",
                "forkThread", "gitCommit", "gitBranch", "gitSwitch", "gitCommitMessage", "removeWorktree", "setGoal", "clearGoal",
                "compactThread", "deleteThread", "updateThreadSettings", "listPreviews", "openPreview", "revertThread", "startVoice", "stopVoice",
            ],
            .publish: ["gitPush", "gitPullRequest"],
            .run: ["runCommand", "stopCommand"],
            .approve: ["approve", "answerInput", "approveDeniedAction"],
            .admin: [
                "listDevices", "setDeviceScopes", "renameDevice", "revokeDevice", "pairDevice", "listAudit", "listMachines", "addMachine",
                "removeMachine", "renameMachine",
            ],
        ]
        var actual: [Scope: Set<String>] = [:]
        for kind in RequestKind.allCases { actual[kind.scope, default: []].insert(kind.rawValue) }
        #expect(actual == expected)
        // Asking for more scopes is the one observe request that changes state (and is audited).
        #expect(RequestKind.allCases.filter(\.descriptor.audited).allSatisfy { $0.scope != .observe || $0 == .requestScopes })
    }

    @Test func pairingPendingAndScopesChangedRoundTrip() throws {
        let pending = ServerMessage.pairingPending(PairingPending(deviceId: "d1", check: "0427", expiresAt: 1_800_000_000))
        #expect(try ServerMessage.decode(pending.encoded()) == pending)
        #expect(
            String(decoding: try pending.encoded(), as: UTF8.self)
                == #"{"check":"0427","deviceId":"d1","expiresAt":1800000000,"kind":"pairingPending"}"#)
        let changed = ServerMessage.scopesChanged(ScopesChanged(scopes: Scopes([.observe])))
        #expect(try ServerMessage.decode(changed.encoded()) == changed)
        let request = try ClientMessage.decode(Data(#"{"kind":"setDeviceScopes","id":"s","deviceId":"d1","scopes":["observe"]}"#.utf8))
        #expect(request == .request(id: "s", BridgeRequest(.setDeviceScopes, SetDeviceScopes(deviceId: "d1", scopes: ["observe"]))))
    }
}

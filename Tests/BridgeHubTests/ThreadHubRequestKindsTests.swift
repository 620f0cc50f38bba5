import BridgeProtocol
import Foundation
import Testing

@testable import BridgeHub

/// Every request kind, decoded from its wire form and run through the hub in-process (fake Codex, real SQLite):
/// each gets exactly one answer carrying its id, and the answer is the one the kind has on a hub with no push
/// and no uploads, a shared-secret session, a known thread `t1` under the root, and a Codex that knows only the thread calls.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubRequestKindsTests {
    /// The request's members (besides `kind` and `id`) and the answer: a result kind, or `error:CODE`.
    static func wire(_ kind: RequestKind, project: String) -> (members: String, answer: String) {
        switch kind {
        case .listThreads: (#""limit":5"#, "error:codex_error")  // the fake Codex has no thread/list
        case .startThread: (#""cwd":"\#(project)","prompt":"hi""#, "threadStarted")
        case .sendMessage: (#""threadId":"t1","text":"more""#, "accepted")
        case .interrupt: (#""threadId":"t1""#, "error:conflict")  // no turn is running
        case .subscribe: (#""threadId":"t1""#, "subscribed")
        case .unsubscribe: (#""threadId":"t1""#, "unsubscribed")
        case .readThread: (#""threadId":"t1""#, "thread")
        case .getDiff: (#""threadId":"t1""#, "diff")
        case .approve: (#""approvalId":"nope","decision":"accept""#, "error:approval_not_pending")
        case .listDirectory: (#""path":"\#(project)""#, "directory")
        case .listModels: ("", "error:codex_error")
        case .renameThread: (#""threadId":"t1","name":"New name""#, "error:codex_error")
        case .archiveThread: (#""threadId":"t1""#, "error:codex_error")
        case .unarchiveThread: (#""threadId":"t1""#, "error:codex_error")
        case .readFile: (#""threadId":"t1","path":"notes.txt""#, "file")
        case .usage: ("", "error:codex_error")
        case .pushSubscribe:
            // Push is for paired devices; this session knows the shared secret.
            (#""subscription":{"endpoint":"https://push.example/x","keys":{"p256dh":"BA","auth":"AA"}}"#, "error:forbidden")
        case .pushUnsubscribe: (#""subscriptionId":"s1""#, "error:forbidden")
        case .presence: (#""visible":true"#, "accepted")
        case .answerInput: (#""requestId":"nope","action":"decline""#, "error:input_not_pending")
        case .cancelQueued: (#""threadId":"t1","queuedId":"q1""#, "error:not_found")
        case .searchFiles: (#""threadId":"t1","query":"notes""#, "error:codex_error")
        case .startReview: (#""threadId":"t1","target":"uncommitted""#, "error:codex_error")
        case .forkThread: (#""threadId":"t1""#, "error:codex_error")
        case .listSkills: (#""threadId":"t1""#, "error:codex_error")
        // The project is no git repository.
        case .gitStatus, .gitCommitMessage: (#""threadId":"t1""#, "error:bad_request")
        case .gitCommit: (#""threadId":"t1","message":"m""#, "error:bad_request")
        case .gitBranch: (#""threadId":"t1","name":"b""#, "error:bad_request")
        case .gitSwitch: (#""threadId":"t1","branch":"b""#, "error:bad_request")
        case .gitPush: (#""threadId":"t1""#, "error:bad_request")
        case .gitPullRequest: (#""threadId":"t1","title":"t""#, "error:bad_request")
        case .runCommand: (#""threadId":"t1","command":"ls""#, "accepted")  // it then fails: the fake Codex has no command/exec
        case .stopCommand: (#""threadId":"t1","runId":"nope""#, "error:not_found")
        case .removeWorktree: (#""threadId":"t1""#, "error:bad_request")  // not a worktree the bridge made
        case .listDevices: ("", "devices")
        case .setDeviceScopes: (#""deviceId":"nosuchdevice","scopes":["observe"]"#, "error:not_found")
        case .revokeDevice: (#""deviceId":"nosuchdevice""#, "error:not_found")
        case .renameDevice: (#""deviceId":"nosuchdevice","name":"Ana's iPad""#, "error:not_found")
        case .requestScopes: (#""scopes":["run"]"#, "error:bad_request")  // the shared secret holds every scope
        case .pairDevice: (#""scopes":["observe","approve"]"#, "pairingCode")
        case .listAudit: (#""limit":5"#, "audit")
        case .setGoal: (#""threadId":"t1","objective":"ship it""#, "error:codex_error")
        case .clearGoal: (#""threadId":"t1""#, "error:codex_error")
        // The fleet's request layer answers these in front of the hub (test_fleet.py); the hub alone has none.
        case .listMachines: ("", "error:unknown_kind")
        case .addMachine: (#""url":"x""#, "error:unknown_kind")
        case .removeMachine: (#""machineId":"m""#, "error:unknown_kind")
        case .renameMachine: (#""machineId":"m","name":"n""#, "error:unknown_kind")
        case .retryMachine: (#""machineId":"m""#, "error:unknown_kind")
        // The fake Codex knows none of these methods.
        case .compactThread, .deleteThread: (#""threadId":"t1""#, "error:codex_error")
        case .searchThreads: (#""query":"milk""#, "error:codex_error")
        case .revertThread: (#""threadId":"t1","turnId":"turn-1""#, "error:codex_error")
        case .listCollaborationModes, .accountUsage: ("", "error:codex_error")
        case .updateThreadSettings: (#""threadId":"t1","approvalsReviewer":"auto_review""#, "error:codex_error")
        case .listPermissionProfiles: (#""threadId":"t1""#, "error:codex_error")
        case .listTools: (#""threadId":"t1""#, "error:codex_error")
        case .readTurns: (#""threadId":"t1","cursor":"c1""#, "error:codex_error")  // the fake Codex has no thread/turns/list
        case .reorderQueued: (#""threadId":"t1","ids":["q-x"]"#, "error:conflict")
        case .editQueued: (#""threadId":"t1","queuedId":"q-x","text":"t""#, "error:not_found")
        case .approveDeniedAction: (#""threadId":"t1","reviewId":"r1""#, "error:not_found")
        // This hub serves no previews (test_preview.py runs them through a real bridge).
        case .listPreviews: (#""threadId":"t1""#, "error:not_found")
        case .openPreview: (#""threadId":"t1","port":5173"#, "error:not_found")
        // The fake Codex has no account/read (test_voice.py runs them against the real codex).
        case .listVoices: ("", "error:codex_error")
        case .startVoice: (#""threadId":"t1""#, "error:codex_error")
        case .stopVoice: (#""threadId":"t1""#, "accepted")  // none runs: stopping it is done
        }
    }

    @Test func everyKindIsAnsweredOnceWithItsId() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        try "remember the milk\n".write(toFile: harness.project + "/notes.txt", atomically: true, encoding: .utf8)
        let phone = await harness.session()
        var outcomes: [String: String] = [:]
        var expected: [String: String] = [:]
        for kind in RequestKind.allCases {
            let (members, answer) = Self.wire(kind, project: harness.project)
            let id = "req-\(kind.rawValue)"
            let frame = #"{"kind":"\#(kind.rawValue)","id":"\#(id)""# + (members.isEmpty ? "" : "," + members) + "}"
            guard case .request(let decodedId, let request) = try ClientMessage.decode(Data(frame.utf8)) else {
                Issue.record("\(kind) did not decode as a request")
                continue
            }
            #expect(decodedId == id && request.kind == kind.rawValue)
            let message = await harness.request(request, phone, id: id)
            switch message {
            case .response(let answeredId, let response):
                #expect(answeredId == id, "\(kind)")
                outcomes[kind.rawValue] = response.kind
            case .error(let error):
                #expect(error.id == id, "\(kind)")
                outcomes[kind.rawValue] = "error:" + error.code.rawValue
            default:
                Issue.record("\(kind) was answered with \(message.kind)")
            }
            expected[kind.rawValue] = answer
        }
        #expect(outcomes == expected)
        // Nothing else was queued for the phone but what subscribing to t1 brought (no second answer).
        let answers = harness.frames(phone).filter {
            switch $0 {
            case .response: true
            case .error(let error): error.id != nil
            default: false
            }
        }
        #expect(answers.isEmpty)
    }
}

import BridgeProtocol
import Foundation
import Testing

@Suite struct ClientMessageTests {
    private func decode(_ json: String) throws(FrameDecodingError) -> ClientMessage {
        try ClientMessage.decode(Data(json.utf8))
    }

    @Test func decodesHelloWithAndWithoutToken() throws {
        #expect(try decode(#"{"kind":"hello","version":1,"token":"s"}"#) == .hello(Hello(version: 1, token: "s")))
        #expect(try decode(#"{"kind":"hello","version":2,"future":true}"#) == .hello(Hello(version: 2)))
        let paired = try decode(
            #"{"kind":"hello","version":1,"token":"c","device":{"name":"Ana","platform":"ios"},"resume":{"lastSeq":42}}"#)
        #expect(
            paired
                == .hello(
                    Hello(version: 1, token: "c", device: DeviceInfo(name: "Ana", platform: "ios"), resume: ResumeCursor(lastSeq: 42))))
    }

    @Test func decodesRequestsWithTheirId() throws {
        #expect(
            try decode(#"{"kind":"startThread","id":"a","cwd":"/w","prompt":"hi"}"#)
                == .request(id: "a", BridgeRequest(.startThread, StartThread(cwd: "/w", prompt: "hi"))))
        #expect(
            try decode(#"{"kind":"approve","id":"b","approvalId":"x","decision":"acceptForSession"}"#)
                == .request(id: "b", BridgeRequest(.approve, Approve(approvalId: "x", decision: .acceptForSession))))
        #expect(
            try decode(#"{"kind":"subscribe","id":"c","threadId":"*","afterSeq":5}"#)
                == .request(id: "c", BridgeRequest(.subscribe, Subscribe(threadId: "*", afterSeq: 5))))
    }

    @Test(arguments: [
        ("not json", BridgeErrorCode.badRequest, nil as String?),
        ("[1,2]", .badRequest, nil),
        (#"{"id":"1"}"#, .badRequest, "1"),
        (#"{"kind":7,"id":"1"}"#, .badRequest, "1"),
        (#"{"kind":"teleport","id":"9"}"#, .unknownKind, "9"),
        (#"{"kind":"readThread","threadId":"t"}"#, .badRequest, nil),
        (#"{"kind":"readThread","id":"","threadId":"t"}"#, .badRequest, nil),
        (#"{"kind":"startThread","id":"s","cwd":5,"prompt":"p"}"#, .badRequest, "s"),
        (#"{"kind":"approve","id":"a","approvalId":"x","decision":"maybe"}"#, .badRequest, "a"),
        (#"{"kind":"ping"}"#, .badRequest, nil),
    ])
    func reportsWhatWasWrong(json: String, code: BridgeErrorCode, id: String?) {
        #expect(throws: FrameDecodingError.self) { try decode(json) }
        do {
            _ = try decode(json)
        } catch {
            #expect(error.code == code)
            #expect(error.id == id)
            #expect(!error.message.isEmpty)
        }
    }

    @Test func roundTripsEveryRequest() throws {
        let requests: [BridgeRequest] = [
            BridgeRequest(.listThreads, ListThreads(limit: 5, cursor: "c")),
            BridgeRequest(.startThread, StartThread(cwd: "/", prompt: "p", model: "m", sandbox: "read-only", approvalPolicy: "never")),
            BridgeRequest(.sendMessage, SendMessage(threadId: "t", text: "x")), BridgeRequest(.interrupt, ThreadRef(threadId: "t")),
            BridgeRequest(.subscribe, Subscribe(threadId: "t")),
            BridgeRequest(.unsubscribe, ThreadRef(threadId: "t")), BridgeRequest(.readThread, ReadThread(threadId: "t")),
            BridgeRequest(.getDiff, ThreadRef(threadId: "t")),
            BridgeRequest(.approve, Approve(approvalId: "a", decision: .decline)),
            BridgeRequest(.listDirectory, ListDirectory(path: "/src")),
            BridgeRequest(.listModels, ListModels()), BridgeRequest(.renameThread, RenameThread(threadId: "t", name: "n")),
            BridgeRequest(.archiveThread, ThreadRef(threadId: "t")),
            BridgeRequest(.unarchiveThread, ThreadRef(threadId: "t")), BridgeRequest(.readFile, ReadFile(threadId: "t", path: "a.txt")),
            BridgeRequest(.usage, UsageRequest()),
            BridgeRequest(
                .pushSubscribe,
                PushSubscribe(
                    subscription: WebPushSubscription(endpoint: "https://p.example/x", keys: .init(p256dh: "BA", auth: "AA")),
                    events: ["approval"])),
            BridgeRequest(.pushUnsubscribe, PushUnsubscribe(subscriptionId: "ps-1")), BridgeRequest(.presence, Presence(visible: false)),
            BridgeRequest(.answerInput, AnswerInput(requestId: "in-1", answers: ["q": ["Blue"]], content: ["n": 1], action: .accept)),
            BridgeRequest(.cancelQueued, CancelQueued(threadId: "t", queuedId: "q-1")),
            BridgeRequest(.searchFiles, SearchFiles(threadId: "t", query: "dat", limit: 5)),
            BridgeRequest(.sendMessage, SendMessage(threadId: "t", text: "x", mode: .queue, attachments: ["up-1"])),
            BridgeRequest(.startThread, StartThread(cwd: "/", prompt: "p", attachments: ["up-2"])),
            BridgeRequest(.startReview, StartReview(threadId: "t", target: .uncommitted)),
            BridgeRequest(.startReview, StartReview(threadId: "t", target: .base("main"))),
            BridgeRequest(.startReview, StartReview(threadId: "t", target: .commit("abc123"))),
            BridgeRequest(.forkThread, ForkThread(threadId: "t", turnId: "u1")), BridgeRequest(.forkThread, ForkThread(threadId: "t")),
            BridgeRequest(.listSkills, ListSkills(threadId: "t")), BridgeRequest(.listThreads, ListThreads(archived: true)),
            BridgeRequest(.gitStatus, ThreadRef(threadId: "t")),
            BridgeRequest(.gitCommit, GitCommit(threadId: "t", message: "m", paths: ["a.txt"])),
            BridgeRequest(.gitBranch, GitBranch(threadId: "t", name: "b", from: "main")),
            BridgeRequest(.gitSwitch, GitSwitch(threadId: "t", branch: "main")),
            BridgeRequest(.gitPush, GitPush(threadId: "t", remote: "origin", setUpstream: true)),
            BridgeRequest(.gitCommitMessage, ThreadRef(threadId: "t")),
            BridgeRequest(.gitPullRequest, GitPullRequest(threadId: "t", title: "T", body: "B", base: "main")),
            BridgeRequest(.runCommand, RunCommand(threadId: "t", command: "ls")),
            BridgeRequest(.stopCommand, StopCommand(threadId: "t", runId: "run-1")),
            BridgeRequest(.removeWorktree, RemoveWorktree(threadId: "t", force: true)),
            BridgeRequest(.startThread, StartThread(cwd: "/", prompt: "p", worktree: WorktreeRequest(branch: "b", from: "main"))),
            BridgeRequest(.listDevices, ListDevices()),
            BridgeRequest(.setDeviceScopes, SetDeviceScopes(deviceId: "d", scopes: ["observe", "approve"])),
            BridgeRequest(.revokeDevice, RevokeDevice(deviceId: "d")),
            BridgeRequest(.renameDevice, RenameDevice(deviceId: "d", name: "Ana's iPad")),
            BridgeRequest(.requestScopes, RequestScopes(scopes: ["run", "publish"])),
            BridgeRequest(.pairDevice, PairDevice(scopes: ["observe"], ttl: 120)),
            BridgeRequest(.pairDevice, PairDevice()),
            BridgeRequest(.listAudit, ListAudit(deviceId: "d", since: 1_800_000_000, limit: 5)),
            BridgeRequest(.listMachines, ListMachines(nearby: true)),
            BridgeRequest(.addMachine, AddMachine(host: "10.0.0.2", port: 9099, fingerprint: "ab", code: "CODE", name: "Build box")),
            BridgeRequest(.removeMachine, RemoveMachine(machineId: "m1")),
            BridgeRequest(.renameMachine, RenameMachine(machineId: "m1", name: "Builder")),
            BridgeRequest(.retryMachine, RetryMachine(machineId: "m1")),
            BridgeRequest(.setGoal, SetGoal(threadId: "t", objective: "o", tokenBudget: 9)),
            BridgeRequest(.clearGoal, ThreadRef(threadId: "t")),
            BridgeRequest(.sendMessage, SendMessage(threadId: "t", text: "x", collaborationMode: .plan)),
            BridgeRequest(.listThreads, ListThreads(includeInternal: true)),
            BridgeRequest(.compactThread, ThreadRef(threadId: "t")), BridgeRequest(.deleteThread, ThreadRef(threadId: "t")),
            BridgeRequest(.revertThread, RevertThread(threadId: "t", turnId: "turn-2")),
            BridgeRequest(.listCollaborationModes, ListCollaborationModes()), BridgeRequest(.accountUsage, AccountUsageRequest()),
            BridgeRequest(.searchThreads, SearchThreads(query: "q", limit: 5, cursor: "c", archived: true)),
            BridgeRequest(
                .updateThreadSettings,
                UpdateThreadSettings(
                    threadId: "t", model: "m", effort: "high", approvalsReviewer: .autoReview, permissionProfile: ":workspace")),
            BridgeRequest(.startThread, StartThread(cwd: "/", prompt: "p", approvalsReviewer: .autoReview)),
            BridgeRequest(.approveDeniedAction, ApproveDeniedAction(threadId: "t", reviewId: "r")),
            BridgeRequest(.listPermissionProfiles, ListPermissionProfiles(threadId: "t")),
            BridgeRequest(.listPermissionProfiles, ListPermissionProfiles()),
            BridgeRequest(.listTools, ListTools(threadId: "t")),
            BridgeRequest(.readThread, ReadThread(threadId: "t", turns: 10)),
            BridgeRequest(.readTurns, ReadTurns(threadId: "t", cursor: "c")),
            BridgeRequest(.readTurns, ReadTurns(threadId: "t", cursor: "c", limit: 20)),
            BridgeRequest(.reorderQueued, ReorderQueued(threadId: "t", ids: ["q-2", "q-1"])),
            BridgeRequest(.editQueued, EditQueued(threadId: "t", queuedId: "q-1", text: "new")),
            BridgeRequest(.listPreviews, ThreadRef(threadId: "t")), BridgeRequest(.openPreview, OpenPreview(threadId: "t", port: 5173)),
            BridgeRequest(.listVoices, ListVoices()), BridgeRequest(.listVoices, ListVoices(threadId: "t")),
            BridgeRequest(.startVoice, StartVoice(threadId: "t", voice: "cove", sdp: "v=0\r\n")),
            BridgeRequest(.startVoice, StartVoice(threadId: "t")), BridgeRequest(.stopVoice, ThreadRef(threadId: "t")),
        ]
        #expect(Set(requests.map(\.requestKind)) == Set(RequestKind.allCases))
        for request in requests {
            let message = ClientMessage.request(id: "id-\(request.kind)", request)
            #expect(try ClientMessage.decode(message.encoded()) == message)
        }
    }
}

/// Issue 46 item 6: `editQueued` names its message in `queuedId`; the first form, where the frame's `id` was the
/// message's `queuedId`, is still read.
@Suite struct EditQueuedFormsTests {
    @Test func bothFormsAreReadAndTheNewOneIsWritten() throws {
        let new = try ClientMessage.decode(Data(#"{"kind":"editQueued","id":"r7","threadId":"t","queuedId":"q-1","text":"x"}"#.utf8))
        #expect(new == .request(id: "r7", BridgeRequest(.editQueued, EditQueued(threadId: "t", queuedId: "q-1", text: "x"))))
        let old = try ClientMessage.decode(Data(#"{"kind":"editQueued","id":"q-1","threadId":"t","text":"x"}"#.utf8))
        #expect(old == .request(id: "q-1", BridgeRequest(.editQueued, EditQueued(threadId: "t", queuedId: "q-1", text: "x"))))
        let written = try JSONValue(parsing: new.encoded())
        #expect(written["queuedId"]?.stringValue == "q-1" && written["id"]?.stringValue == "r7")
        #expect(throws: FrameDecodingError.self) {
            try ClientMessage.decode(Data(#"{"kind":"editQueued","id":"r7","threadId":"t","queuedId":7,"text":"x"}"#.utf8))
        }
    }
}

@Suite struct OnBehalfOfTests {
    /// A linked home bridge names who it makes a request for beside `kind` and `id`; a name a terminal or page
    /// could be fooled by is refused.
    @Test func onBehalfOfRoundTripsAndAHostileOneIsRefused() throws {
        var request = BridgeRequest(.approve, Approve(approvalId: "a", decision: .accept))
        request.onBehalfOf = OnBehalfOf(actor: .device, deviceId: "d1", name: "Ana's phone")
        let message = ClientMessage.request(id: "1", request)
        #expect(try ClientMessage.decode(message.encoded()) == message)
        #expect(String(decoding: try message.encoded(), as: UTF8.self).contains(#""onBehalfOf":{"#))
        for bad in [
            #"{"actor":"device","name":"\u001b[2Jgone"}"#, #"{"actor":"robot"}"#,
            #"{"actor":"device","deviceId":"\#(String(repeating: "x", count: 65))"}"#,
        ] {
            let frame = #"{"kind":"approve","id":"2","approvalId":"a","decision":"accept","onBehalfOf":\#(bad)}"#
            #expect(throws: FrameDecodingError.self) { try ClientMessage.decode(Data(frame.utf8)) }
        }
    }
}

@Suite struct PushMessageTests {
    @Test func decodesPushRequestsAsABrowserSendsThem() throws {
        let text = #"""
            {"kind":"pushSubscribe","id":"7","subscription":{"endpoint":"https://fcm.googleapis.com/fcm/send/dQ","expirationTime":null,
             "keys":{"p256dh":"BCVx","auth":"BTBZ"}}}
            """#
        guard case .request("7", let request) = try ClientMessage.decode(Data(text.utf8)), request.requestKind == .pushSubscribe,
            let subscribe = request.payload(as: PushSubscribe.self)
        else {
            Issue.record("not a pushSubscribe")
            return
        }
        #expect(subscribe.subscription.endpoint == "https://fcm.googleapis.com/fcm/send/dQ" && subscribe.events == nil)
        #expect(subscribe.subscription.keys == .init(p256dh: "BCVx", auth: "BTBZ"))
        #expect(
            try ClientMessage.decode(Data(#"{"kind":"presence","id":"8","visible":true}"#.utf8))
                == .request(id: "8", BridgeRequest(.presence, Presence(visible: true))))
        #expect(throws: FrameDecodingError.self) { try ClientMessage.decode(Data(#"{"kind":"presence","id":"9"}"#.utf8)) }
        #expect(throws: FrameDecodingError.self) {
            try ClientMessage.decode(Data(#"{"kind":"pushSubscribe","id":"9","subscription":{"endpoint":"x"}}"#.utf8))
        }
    }

    @Test func pushSubscribedAndThePublicKeyRoundTrip() throws {
        let answer = ServerMessage.response(id: "7", .pushSubscribed(PushSubscribed(subscriptionId: "ps-1")))
        #expect(try ServerMessage.decode(answer.encoded()) == answer)
        let ack = ServerMessage.helloAck(
            HelloAck(version: 1, ok: true, server: ServerInfo(id: "s", name: "n", version: "1", pushPublicKey: "BKey")))
        let text = try ack.encodedText()
        #expect(text.contains(#""pushPublicKey":"BKey""#))
        #expect(try ServerMessage.decode(Data(text.utf8)) == ack)
        // Absent when push is off.
        #expect(
            !(try ServerMessage.helloAck(HelloAck(version: 1, ok: true, server: ServerInfo(id: "s", name: "n", version: "1"))).encodedText()
                .contains("push")))
    }
}

/// The git, command and worktree messages as a client reads them (issue 24).
@Suite struct GitAndCommandMessageTests {
    @Test func serverMessagesRoundTripAndNullsStayExplicit() throws {
        let messages: [ServerMessage] = [
            .response(
                id: "s",
                .gitStatus(
                    GitStatus(
                        threadId: "t", branch: nil, upstream: nil, files: [.init(path: "a", index: "R", worktree: ".", originalPath: "b")],
                        root: "/w"))),
            .response(id: "c", .gitCommitted(GitCommitted(threadId: "t", sha: "abc", branch: "main"))),
            .response(id: "b", .gitBranched(GitBranched(threadId: "t", branch: "x"))),
            .response(id: "p", .gitPushed(GitPushed(threadId: "t", remote: "origin", branch: "x"))),
            .response(id: "m", .commitMessage(CommitMessage(threadId: "t", message: "Fix\n\nBody"))),
            .response(id: "r", .pullRequest(PullRequest(threadId: "t", url: "https://github.com/a/b/pull/1", created: true))),
            .response(id: "a", .accepted(Accepted(threadId: "t", runId: "run-1"))),
            .response(
                id: "w", .threadStarted(ThreadStarted(threadId: "t", turnId: "u", cwd: "/w.worktrees/x", branch: "x", worktreeOf: "/w"))),
            .commandStarted(CommandStarted(seq: 1, threadId: "t", runId: "run-1", command: "ls", cwd: "/w", deviceId: "d")),
            .commandOutput(CommandOutput(seq: 2, threadId: "t", runId: "run-1", data: "a\n")),
            .commandExited(CommandExited(seq: 3, threadId: "t", runId: "run-1", exitCode: nil, reason: "stopped", truncated: true)),
        ]
        for message in messages {
            #expect(try ServerMessage.decode(message.encoded()) == message)
        }
        let detached = String(decoding: try messages[0].encoded(), as: UTF8.self)
        #expect(detached.contains(#""branch":null"#) && !detached.contains("upstream"))
        let stopped = String(decoding: try messages[10].encoded(), as: UTF8.self)
        #expect(stopped.contains(#""exitCode":null"#))
        #expect(messages[9].seq == 2)
    }
}

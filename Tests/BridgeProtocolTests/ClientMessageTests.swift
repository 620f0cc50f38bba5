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
                == .request(id: "a", .startThread(StartThread(cwd: "/w", prompt: "hi"))))
        #expect(
            try decode(#"{"kind":"approve","id":"b","approvalId":"x","decision":"acceptForSession"}"#)
                == .request(id: "b", .approve(Approve(approvalId: "x", decision: .acceptForSession))))
        #expect(
            try decode(#"{"kind":"subscribe","id":"c","threadId":"*","afterSeq":5}"#)
                == .request(id: "c", .subscribe(Subscribe(threadId: "*", afterSeq: 5))))
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
            .listThreads(ListThreads(limit: 5, cursor: "c")),
            .startThread(StartThread(cwd: "/", prompt: "p", model: "m", sandbox: "read-only", approvalPolicy: "never")),
            .sendMessage(SendMessage(threadId: "t", text: "x")), .interrupt(ThreadRef(threadId: "t")), .subscribe(Subscribe(threadId: "t")),
            .unsubscribe(ThreadRef(threadId: "t")), .readThread(ThreadRef(threadId: "t")), .getDiff(ThreadRef(threadId: "t")),
            .approve(Approve(approvalId: "a", decision: .decline)), .listDirectory(ListDirectory(path: "/src")),
            .listModels(ListModels()), .renameThread(RenameThread(threadId: "t", name: "n")), .archiveThread(ThreadRef(threadId: "t")),
            .unarchiveThread(ThreadRef(threadId: "t")), .readFile(ReadFile(threadId: "t", path: "a.txt")), .usage(UsageRequest()),
            .pushSubscribe(
                PushSubscribe(
                    subscription: WebPushSubscription(endpoint: "https://p.example/x", keys: .init(p256dh: "BA", auth: "AA")),
                    events: ["approval"])),
            .pushUnsubscribe(PushUnsubscribe(subscriptionId: "ps-1")), .presence(Presence(visible: false)),
            .answerInput(AnswerInput(requestId: "in-1", answers: ["q": ["Blue"]], content: ["n": 1], action: .accept)),
            .cancelQueued(CancelQueued(threadId: "t", queuedId: "q-1")), .searchFiles(SearchFiles(threadId: "t", query: "dat", limit: 5)),
            .sendMessage(SendMessage(threadId: "t", text: "x", mode: .queue, attachments: ["up-1"])),
            .startThread(StartThread(cwd: "/", prompt: "p", attachments: ["up-2"])),
            .startReview(StartReview(threadId: "t", target: .uncommitted)), .startReview(StartReview(threadId: "t", target: .base("main"))),
            .startReview(StartReview(threadId: "t", target: .commit("abc123"))),
            .forkThread(ForkThread(threadId: "t", turnId: "u1")), .forkThread(ForkThread(threadId: "t")),
            .listSkills(ListSkills(threadId: "t")), .listThreads(ListThreads(archived: true)),
            .gitStatus(ThreadRef(threadId: "t")), .gitCommit(GitCommit(threadId: "t", message: "m", paths: ["a.txt"])),
            .gitBranch(GitBranch(threadId: "t", name: "b", from: "main")), .gitSwitch(GitSwitch(threadId: "t", branch: "main")),
            .gitPush(GitPush(threadId: "t", remote: "origin", setUpstream: true)), .gitCommitMessage(ThreadRef(threadId: "t")),
            .gitPullRequest(GitPullRequest(threadId: "t", title: "T", body: "B", base: "main")),
            .runCommand(RunCommand(threadId: "t", command: "ls")), .stopCommand(StopCommand(threadId: "t", runId: "run-1")),
            .removeWorktree(RemoveWorktree(threadId: "t", force: true)),
            .startThread(StartThread(cwd: "/", prompt: "p", worktree: WorktreeRequest(branch: "b", from: "main"))),
            .listDevices(ListDevices()), .setDeviceScopes(SetDeviceScopes(deviceId: "d", scopes: ["observe", "approve"])),
            .revokeDevice(RevokeDevice(deviceId: "d")), .renameDevice(RenameDevice(deviceId: "d", name: "Ana's iPad")),
            .requestScopes(RequestScopes(scopes: ["run", "publish"])), .pairDevice(PairDevice(scopes: ["observe"], ttl: 120)),
            .pairDevice(PairDevice()),
            .listAudit(ListAudit(deviceId: "d", since: 1_800_000_000, limit: 5)),
            .listMachines(ListMachines(nearby: true)),
            .addMachine(AddMachine(host: "10.0.0.2", port: 9099, fingerprint: "ab", code: "CODE", name: "Build box")),
            .removeMachine(RemoveMachine(machineId: "m1")),
            .renameMachine(RenameMachine(machineId: "m1", name: "Builder")),
            .setGoal(SetGoal(threadId: "t", objective: "o", tokenBudget: 9)), .clearGoal(ThreadRef(threadId: "t")),
            .sendMessage(SendMessage(threadId: "t", text: "x", collaborationMode: .plan)), .listThreads(ListThreads(includeInternal: true)),
            .compactThread(ThreadRef(threadId: "t")), .deleteThread(ThreadRef(threadId: "t")),
            .searchThreads(SearchThreads(query: "q", limit: 5, cursor: "c", archived: true)),
            .updateThreadSettings(
                UpdateThreadSettings(
                    threadId: "t", model: "m", effort: "high", approvalsReviewer: .autoReview, permissionProfile: ":workspace")),
            .startThread(StartThread(cwd: "/", prompt: "p", approvalsReviewer: .autoReview)),
            .approveDeniedAction(ApproveDeniedAction(threadId: "t", reviewId: "r")),
            .listPreviews(ThreadRef(threadId: "t")), .openPreview(OpenPreview(threadId: "t", port: 5173)),
        ]
        #expect(Set(requests.map(\.kind)) == BridgeRequest.kinds)
        for request in requests {
            let message = ClientMessage.request(id: "id-\(request.kind)", request)
            #expect(try ClientMessage.decode(message.encoded()) == message)
        }
    }
}

@Suite struct PushMessageTests {
    @Test func decodesPushRequestsAsABrowserSendsThem() throws {
        let text = #"""
            {"kind":"pushSubscribe","id":"7","subscription":{"endpoint":"https://fcm.googleapis.com/fcm/send/dQ","expirationTime":null,
             "keys":{"p256dh":"BCVx","auth":"BTBZ"}}}
            """#
        guard case .request("7", .pushSubscribe(let subscribe)) = try ClientMessage.decode(Data(text.utf8)) else {
            Issue.record("not a pushSubscribe")
            return
        }
        #expect(subscribe.subscription.endpoint == "https://fcm.googleapis.com/fcm/send/dQ" && subscribe.events == nil)
        #expect(subscribe.subscription.keys == .init(p256dh: "BCVx", auth: "BTBZ"))
        #expect(
            try ClientMessage.decode(Data(#"{"kind":"presence","id":"8","visible":true}"#.utf8))
                == .request(id: "8", .presence(Presence(visible: true))))
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

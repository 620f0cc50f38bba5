import BridgeClient
import BridgeOps
import BridgeProtocol
import Foundation
import UnixSignals

/// The line-based terminal UI of `attach`: one loop over everything that happens (typed lines, bridge
/// messages, connection changes, Ctrl-C), so its state needs no locking.
struct AttachSession {
    enum Input: Sendable {
        case line(String)
        case endOfInput
        case message(ServerMessage)
        case status(BridgeClient.Status)
        case interrupt
    }

    let client: BridgeClient
    let approvalPolicy: String?

    private var thread: String?
    private var listed: [String] = []
    private var approvals: [ApprovalRequest] = []
    /// The agent's questions, the first one being asked.
    private var questions: [AttachQuestion] = []
    private var runningTurns = Set<String>()
    private var interruptRequested = false
    private var streamedItems = Set<String>()
    private var midLine = false

    init(client: BridgeClient, approvalPolicy: String?) {
        self.client = client
        self.approvalPolicy = approvalPolicy
    }

    mutating func run(ack: HelloAck, paired: Bool, tokenFile: String) async {
        let name = ack.server?.name ?? "bridge"
        say("connected to \(name) (\(ack.server?.id ?? "?"))" + (ack.deviceId.map { " as device \($0)" } ?? ""))
        if paired { say("paired: the device token is stored in \(tokenFile)") }
        say("type /help for commands")
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        Self.readLines(into: input)
        let signals = await UnixSignalsSequence(trapping: .sigint)
        let client = self.client
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await message in client.events { input.yield(.message(message)) }
            }
            group.addTask {
                for await status in client.statuses { input.yield(.status(status)) }
            }
            group.addTask {
                for await _ in signals { input.yield(.interrupt) }
            }
            for await event in inputs {
                if await !handle(event) { break }
            }
            group.cancelAll()
        }
        await client.close()
    }

    /// Reads stdin on its own thread (blocking reads have no place on the cooperative pool).
    private static func readLines(into input: AsyncStream<Input>.Continuation) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { input.yield(.line(line)) }
            input.yield(.endOfInput)
        }
        thread.start()
    }

    /// Handles one input; false ends the session.
    private mutating func handle(_ input: Input) async -> Bool {
        switch input {
        case .line(let line): return await command(line.trimmingCharacters(in: .whitespaces))
        case .endOfInput: return false
        case .message(let message): show(message)
        case .status(let status): return show(status)
        case .interrupt: return await interrupt()
        }
        return true
    }

    // MARK: - Typed lines

    private mutating func command(_ line: String) async -> Bool {
        if !questions.isEmpty, !line.hasPrefix("/") {
            await answerQuestion(line)
            return true
        }
        guard !line.isEmpty else { return true }
        if let approval = approvals.first, !line.hasPrefix("/") {
            let decision: ApprovalDecision? =
                switch line.lowercased() {
                case "y", "yes": .accept
                case "n", "no": .decline
                case "a", "always": .acceptForSession
                default: nil
                }
            guard let decision else {
                say("answer the approval: y = accept, n = decline, a = accept for the session")
                return true
            }
            approvals.removeFirst()
            await request(.approve(Approve(approvalId: approval.approvalId, decision: decision))) { _ in
                "\(decision.rawValue)"
            }
            promptNextApproval()
            return true
        }
        guard line.hasPrefix("/") else {
            guard let thread else {
                say("no thread open: /new DIR PROMPT starts one, /list and /open THREAD open one")
                return true
            }
            if line.hasPrefix("!"), line.count > 1 {  // a command in the thread's directory, in Codex's sandbox
                await request(.runCommand(RunCommand(threadId: thread, command: String(line.dropFirst())))) { _ in nil }
                return true
            }
            await request(.sendMessage(SendMessage(threadId: thread, text: line))) { _ in nil }
            return true
        }
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        switch parts[0] {
        case "/quit", "/exit":
            return false
        case "/help":
            say(
                """
                /list                 threads, newest first
                /new DIR PROMPT       start a thread in DIR with PROMPT
                /open THREAD          open a thread (an id, or a number from /list)
                /interrupt            interrupt the running turn (or Ctrl-C)
                /diff                 the thread's latest diff
                /cat PATH             a file under the thread's directory
                /rename NAME          rename the open thread; /archive archives it
                /fork [TURN]          fork the open thread (through TURN) and open the fork
                /review [base B|commit SHA]  Codex reviews the uncommitted changes (or against a branch, or a commit)
                /queue TEXT           send TEXT as the next turn once the running one ends
                /unqueue ID           take a queued message back
                /models               the models Codex offers (and their efforts)
                /usage                what is left of the account's rate limits
                /status               the open thread's branch and changed files (git)
                /commit MESSAGE       commit every change under the thread's directory
                /push                 push the branch (to its upstream, else to origin, which becomes it)
                !COMMAND              run COMMAND in the thread's directory, in Codex's sandbox
                /quit                 leave (or Ctrl-C twice)
                any other line        a message to the open thread
                at an approval prompt: y = accept, n = decline, a = accept for the session
                at a question: a number picks an option, other text answers, - declines
                """)
        case "/list":
            await list()
        case "/review":
            guard let thread else {
                say("no thread open")
                return true
            }
            let target: ReviewTarget? =
                switch (parts.count > 1 ? parts[1] : "", parts.count > 2 ? parts[2] : "") {
                case ("", _): .uncommitted
                case ("base", let branch) where !branch.isEmpty: .base(branch)
                case ("commit", let sha) where !sha.isEmpty: .commit(sha)
                default: nil
                }
            guard let target else {
                say("usage: /review [base BRANCH | commit SHA]")
                return true
            }
            runningTurns.insert(thread)
            await request(.startReview(StartReview(threadId: thread, target: target))) { _ in "reviewing" }
        case "/queue", "/unqueue":
            guard let thread, parts.count >= 2 else {
                say(thread == nil ? "no thread open" : "usage: \(parts[0]) \(parts[0] == "/queue" ? "TEXT" : "ID")")
                return true
            }
            let argument = parts[1...].joined(separator: " ")
            if parts[0] == "/queue" {
                await request(.sendMessage(SendMessage(threadId: thread, text: argument, mode: .queue))) { answer in
                    guard case .accepted(let accepted) = answer else { return nil }
                    return accepted.queuedId.map { "queued as \($0) (/unqueue \($0) takes it back)" }
                }
            } else {
                await request(.cancelQueued(CancelQueued(threadId: thread, queuedId: argument))) { _ in "unqueued \(argument)" }
            }
        case "/new":
            guard parts.count == 3 else {
                say("usage: /new DIR PROMPT")
                return true
            }
            let directory = (parts[1] as NSString).expandingTildeInPath
            let started = StartThread(cwd: directory, prompt: parts[2], approvalPolicy: approvalPolicy)
            do {
                if case .threadStarted(let answer) = try await client.send(.startThread(started)) {
                    thread = answer.threadId
                    runningTurns.insert(answer.threadId)
                    say("thread \(answer.threadId) started in \(answer.cwd)")
                }
            } catch {
                say("error: \(error.message)")
            }
        case "/open":
            guard parts.count >= 2 else {
                say("usage: /open THREAD")
                return true
            }
            var id = parts[1]
            if let number = Int(id), (1...listed.count).contains(number) { id = listed[number - 1] }
            let chosen = id
            await request(.subscribe(Subscribe(threadId: chosen))) { _ in "opened \(chosen)" }
            thread = chosen
        case "/fork":
            guard let source = thread else {
                say("no thread open")
                return true
            }
            do {
                let answer = try await client.send(.forkThread(ForkThread(threadId: source, turnId: parts.count > 1 ? parts[1] : nil)))
                if case .threadForked(let forked) = answer {
                    thread = forked.threadId
                    say("forked \(source) as \(forked.threadId) (open)")
                }
            } catch {
                say("error: \(error.message)")
            }
        case "/interrupt":
            _ = await interrupt(quitIfIdle: false)
        case "/diff":
            guard let thread else {
                say("no thread open")
                return true
            }
            await request(.getDiff(ThreadRef(threadId: thread))) { answer in
                guard case .diff(let diff) = answer else { return nil }
                return diff.diff.isEmpty ? "(no changes)" : diff.diff
            }
        case "/usage":
            await request(.usage(UsageRequest())) { answer in
                guard case .usage(let usage) = answer else { return nil }
                return usage.rateLimits.jsonText
            }
        case "/models":
            await request(.listModels(ListModels())) { answer in
                guard case .models(let list) = answer else { return nil }
                return list.models.map { model in
                    "\(model.isDefault ? "*" : " ") \(model.id)  efforts: \(model.efforts.joined(separator: ", "))"
                        + (model.defaultEffort.map { " (default \($0))" } ?? "")
                }.joined(separator: "\n")
            }
        case "/status", "/commit", "/push":
            guard let thread else {
                say("no thread open")
                return true
            }
            let argument = parts.count > 1 ? parts[1...].joined(separator: " ") : ""
            switch parts[0] {
            case "/status":
                await request(.gitStatus(ThreadRef(threadId: thread))) { answer in
                    guard case .gitStatus(let status) = answer else { return nil }
                    return AttachGit.describe(status)
                }
            case "/commit":
                guard !argument.isEmpty else {
                    say("usage: /commit MESSAGE")
                    return true
                }
                await request(.gitCommit(GitCommit(threadId: thread, message: argument))) { answer in
                    guard case .gitCommitted(let commit) = answer else { return nil }
                    return "committed \(commit.sha.prefix(7)) on \(commit.branch ?? "a detached HEAD")"
                }
            default:
                await request(.gitPush(GitPush(threadId: thread, setUpstream: true))) { answer in
                    guard case .gitPushed(let pushed) = answer else { return nil }
                    return "pushed to \(pushed.remote)/\(pushed.branch)"
                }
            }
        case "/rename", "/cat", "/archive":
            guard let thread else {
                say("no thread open")
                return true
            }
            let argument = parts.count > 1 ? parts[1...].joined(separator: " ") : ""
            switch parts[0] {
            case "/rename":
                await request(.renameThread(RenameThread(threadId: thread, name: argument))) { _ in "renamed" }
            case "/archive":
                await request(.archiveThread(ThreadRef(threadId: thread))) { _ in "archived \(thread)" }
            default:
                await request(.readFile(ReadFile(threadId: thread, path: argument))) { answer in
                    guard case .file(let file) = answer else { return nil }
                    return file.text ?? "(\(file.mimeType), \(file.size) bytes: not text)"
                }
            }
        default:
            say("unknown command \(parts[0]); /help lists them")
        }
        return true
    }

    private mutating func list() async {
        do {
            guard case .threads(let answer) = try await client.send(.listThreads(ListThreads(limit: 20))) else { return }
            listed = answer.threads.map(\.threadId)
            if answer.threads.isEmpty { say("no threads") }
            for (index, summary) in answer.threads.enumerated() {
                let preview = (summary.preview ?? "").replacingOccurrences(of: "\n", with: " ").prefix(60)
                say("\(index + 1). \(summary.threadId)  \(summary.status ?? "-")  \(summary.cwd ?? "")  \(preview)")
            }
        } catch {
            say("error: \(error.message)")
        }
    }

    /// Sends a request; prints the line `done` makes of the answer, or the error.
    private mutating func request(_ request: BridgeRequest, done: (BridgeResponse) -> String?) async {
        do {
            let answer = try await client.send(request)
            if let text = done(answer) { say(text) }
        } catch {
            say("error: \(error.message)")
        }
    }

    /// Ctrl-C: interrupt the running turn; with none running (or a second time), leave.
    private mutating func interrupt(quitIfIdle: Bool = true) async -> Bool {
        guard let thread, runningTurns.contains(thread) else {
            if quitIfIdle { say("bye") }
            return !quitIfIdle
        }
        if interruptRequested, quitIfIdle {
            say("bye")
            return false
        }
        interruptRequested = true
        say("interrupting the turn (Ctrl-C again to quit)")
        await request(.interrupt(ThreadRef(threadId: thread))) { _ in nil }
        return true
    }

    // MARK: - Bridge messages

    private mutating func show(_ message: ServerMessage) {
        switch message {
        case .event(let event): show(event)
        case .approvalRequest(let approval):
            approvals.append(approval)
            if approvals.count == 1 { promptNextApproval() }
        case .approvalResolved(let resolved):
            let wasFirst = approvals.first?.approvalId == resolved.approvalId
            approvals.removeAll { $0.approvalId == resolved.approvalId }
            if wasFirst {
                say("approval answered elsewhere: \(resolved.decision.rawValue)")
                promptNextApproval()
            }
        case .inputRequest(let input):
            guard !questions.contains(where: { $0.request.requestId == input.requestId }) else { break }
            questions.append(AttachQuestion(input))
            if questions.count == 1 { promptNextQuestion() }
        case .inputResolved(let resolved):
            let wasFirst = questions.first?.request.requestId == resolved.requestId
            questions.removeAll { $0.request.requestId == resolved.requestId }
            if wasFirst {
                say("question answered elsewhere (\(resolved.action.rawValue))")
                promptNextQuestion()
            }
        case .messageQueued(let queued):
            say("queued \(queued.queuedId): \(queued.text)")
        case .messageUnqueued(let unqueued):
            say("queued \(unqueued.queuedId) \(unqueued.reason.rawValue)" + (unqueued.message.map { ": \($0)" } ?? ""))
        case .commandStarted(let started):
            say("! \(started.command)")
        case .commandOutput(let output):
            write(output.data)
            midLine = !output.data.hasSuffix("\n")
        case .commandExited(let exited):
            say(AttachGit.describe(exited))
        default: break
        }
    }

    private mutating func promptNextQuestion() {
        guard let first = questions.first else { return }
        switch first.prompt {
        case .ask(let text): say("question: " + text)
        case .done(let answer): Task { [client] in _ = try? await client.send(.answerInput(answer)) }
        }
    }

    private mutating func answerQuestion(_ line: String) async {
        guard var question = questions.first else { return }
        switch question.take(line) {
        case .ask(let text):
            questions[0] = question
            say(text)
        case .done(let answer):
            questions.removeFirst()
            await request(.answerInput(answer)) { _ in "answered" }
            promptNextQuestion()
        }
    }

    private mutating func show(_ event: ThreadEvent) {
        let data = event.data
        let prefix = event.threadId == thread ? "" : "[\(event.threadId.prefix(8))] "
        switch event.type {
        case "turn/started":
            runningTurns.insert(event.threadId)
        case "item/agentMessage/delta":
            if let delta = data["delta"]?.stringValue {
                if let item = data["itemId"]?.stringValue { streamedItems.insert(item) }
                write(delta)
                midLine = !delta.hasSuffix("\n")
            }
        case "item/started":
            if let item = data["item"], item["type"]?.stringValue == "commandExecution" {
                say("\(prefix)$ \(item["command"]?.stringValue ?? "")")
            }
        case "item/commandExecution/outputDelta":
            if let delta = data["delta"]?.stringValue {
                write(delta)
                midLine = !delta.hasSuffix("\n")
            }
        case "item/completed":
            guard let item = data["item"] else { break }
            switch item["type"]?.stringValue {
            case "agentMessage":
                let id = item["id"]?.stringValue ?? ""
                if streamedItems.remove(id) == nil, let text = item["text"]?.stringValue { say(prefix + text) } else { endLine() }
            case "commandExecution":
                let code = item["exitCode"]?.intValue.map(String.init) ?? "-"
                say("\(prefix)[exit \(code)] \(item["status"]?.stringValue ?? "")")
            case "fileChange":
                say("\(prefix)[files changed]")
            default: break
            }
        case "turn/completed":
            runningTurns.remove(event.threadId)
            interruptRequested = false
            say("\(prefix)-- turn \(data["turn"]?["status"]?.stringValue ?? "completed")")
        case "bridge/turnFailed":
            runningTurns.remove(event.threadId)
            say("\(prefix)-- turn failed: \(data["reason"]?.stringValue ?? "")")
        case "error":
            say("\(prefix)error: \(data["error"]?["message"]?.stringValue ?? "")")
        default: break
        }
    }

    private mutating func promptNextApproval() {
        guard let approval = approvals.first else { return }
        let what =
            switch approval.type {
            case "command": "run `\(approval.command ?? "?")`" + (approval.cwd.map { " in \($0)" } ?? "")
            case "fileChange": "change files"
            default: approval.type
            }
        say("approve: \(what)?" + (approval.reason.map { " (\($0))" } ?? "") + " [y/n/a]")
    }

    /// Connection changes; false when the client gave up.
    private mutating func show(_ status: BridgeClient.Status) -> Bool {
        switch status {
        case .connected(let ack, let endpoint):
            guard ack.resume != nil else { return true }  // the first connection was announced already
            say("reconnected to \(endpoint)" + (ack.resume == .gap ? " (some output was lost: /open the thread again)" : ""))
        case .reconnecting(let attempt, let delay, let reason):
            say("connection lost (\(reason)); reconnecting in \(Self.seconds(delay)) (attempt \(attempt))")
        case .failed(let error):
            say("error: \(error.message)")
            return false
        case .closed:
            return false
        }
        return true
    }

    // MARK: - Output

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1fs", value)
    }

    private mutating func say(_ text: String) {
        endLine()
        write(text + "\n")
    }

    private mutating func endLine() {
        if midLine {
            write("\n")
            midLine = false
        }
    }

    /// Everything attach prints goes through here: agent and command output is hostile (prompt injection), so
    /// terminal control sequences are shown escaped, never sent to the terminal.
    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(ControlCharacters.escaped(text, keepingLines: true).utf8))
    }
}

import BridgeClient
import BridgeProtocol
import Foundation

/// `attach`'s typed lines: approval answers, question answers, messages, `!commands` and the `/` commands.
extension AttachSession {
    mutating func command(_ line: String) async -> Bool {
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
            await request(BridgeRequest(.approve, Approve(approvalId: approval.approvalId, decision: decision))) { _ in
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
                await request(BridgeRequest(.runCommand, RunCommand(threadId: thread, command: String(line.dropFirst())))) { _ in nil }
                return true
            }
            await request(BridgeRequest(.sendMessage, SendMessage(threadId: thread, text: line))) { _ in nil }
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
            await request(BridgeRequest(.startReview, StartReview(threadId: thread, target: target))) { _ in "reviewing" }
        case "/queue", "/unqueue":
            guard let thread, parts.count >= 2 else {
                say(thread == nil ? "no thread open" : "usage: \(parts[0]) \(parts[0] == "/queue" ? "TEXT" : "ID")")
                return true
            }
            let argument = parts[1...].joined(separator: " ")
            if parts[0] == "/queue" {
                await request(BridgeRequest(.sendMessage, SendMessage(threadId: thread, text: argument, mode: .queue))) { answer in
                    guard case .accepted(let accepted) = answer else { return nil }
                    return accepted.queuedId.map { "queued as \($0) (/unqueue \($0) takes it back)" }
                }
            } else {
                await request(BridgeRequest(.cancelQueued, CancelQueued(threadId: thread, queuedId: argument))) { _ in
                    "unqueued \(argument)"
                }
            }
        case "/new":
            guard parts.count == 3 else {
                say("usage: /new DIR PROMPT")
                return true
            }
            let directory = (parts[1] as NSString).expandingTildeInPath
            let started = StartThread(cwd: directory, prompt: parts[2], approvalPolicy: approvalPolicy)
            do {
                if case .threadStarted(let answer) = try await client.send(BridgeRequest(.startThread, started)) {
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
            await request(BridgeRequest(.subscribe, Subscribe(threadId: chosen))) { _ in "opened \(chosen)" }
            thread = chosen
        case "/fork":
            guard let source = thread else {
                say("no thread open")
                return true
            }
            do {
                let answer = try await client.send(
                    BridgeRequest(.forkThread, ForkThread(threadId: source, turnId: parts.count > 1 ? parts[1] : nil)))
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
            await request(BridgeRequest(.getDiff, ThreadRef(threadId: thread))) { answer in
                guard case .diff(let diff) = answer else { return nil }
                return diff.diff.isEmpty ? "(no changes)" : diff.diff
            }
        case "/usage":
            await request(BridgeRequest(.usage, UsageRequest())) { answer in
                guard case .usage(let usage) = answer else { return nil }
                return usage.rateLimits.jsonText
            }
        case "/models":
            await request(BridgeRequest(.listModels, ListModels())) { answer in
                guard case .models(let list) = answer else { return nil }
                return list.models.map { model in
                    "\(model.isDefault ? "*" : " ") \(model.id)  efforts: \(model.efforts.joined(separator: ", "))"
                        + (model.defaultEffort.map { " (default \($0))" } ?? "")
                }.joined(separator: "\n")
            }
        case "/status", "/commit", "/push", "/rename", "/cat", "/archive":
            guard let thread else {
                say("no thread open")
                return true
            }
            let argument = parts.count > 1 ? parts[1...].joined(separator: " ") : ""
            switch parts[0] {
            case "/status":
                await request(BridgeRequest(.gitStatus, ThreadRef(threadId: thread))) { answer in
                    guard case .gitStatus(let status) = answer else { return nil }
                    return AttachGit.describe(status)
                }
            case "/commit":
                guard !argument.isEmpty else {
                    say("usage: /commit MESSAGE")
                    return true
                }
                await request(BridgeRequest(.gitCommit, GitCommit(threadId: thread, message: argument))) { answer in
                    guard case .gitCommitted(let commit) = answer else { return nil }
                    return "committed \(commit.sha.prefix(7)) on \(commit.branch ?? "a detached HEAD")"
                }
            case "/push":
                await request(BridgeRequest(.gitPush, GitPush(threadId: thread, setUpstream: true))) { answer in
                    guard case .gitPushed(let pushed) = answer else { return nil }
                    return "pushed to \(pushed.remote)/\(pushed.branch)"
                }
            case "/rename":
                await request(BridgeRequest(.renameThread, RenameThread(threadId: thread, name: argument))) { _ in "renamed" }
            case "/archive":
                await request(BridgeRequest(.archiveThread, ThreadRef(threadId: thread))) { _ in "archived \(thread)" }
            default:
                await request(BridgeRequest(.readFile, ReadFile(threadId: thread, path: argument))) { answer in
                    guard case .file(let file) = answer else { return nil }
                    return file.text ?? "(\(file.mimeType), \(file.size) bytes: not text)"
                }
            }
        default:
            say("unknown command \(parts[0]); /help lists them")
        }
        return true
    }
}

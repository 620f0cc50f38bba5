import BridgeClient
import BridgeProtocol
import Foundation

/// What the bridge sends `attach`: thread events, approvals, questions, queued messages, command output and
/// connection changes, as terminal lines.
extension AttachSession {
    mutating func show(_ message: ServerMessage) {
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
        case .queueChanged(let changed):
            let lines = changed.items.enumerated().map { "\($0.offset + 1). \($0.element.text.prefix(80))" }
            say("queue: " + (lines.isEmpty ? "empty" : lines.joined(separator: "  ")))
        case .commandStarted(let started):
            say("! \(started.command)")
        case .commandOutput(let output):
            self.output.stream(output.data)
        case .commandExited(let exited):
            say(AttachGit.describe(exited))
        default: break
        }
    }

    mutating func promptNextQuestion() {
        guard let first = questions.first else { return }
        switch first.prompt {
        case .ask(let text): say("question: " + text)
        case .done(let answer): Task { [client] in _ = try? await client.send(BridgeRequest(.answerInput, answer)) }
        }
    }

    mutating func answerQuestion(_ line: String) async {
        guard var question = questions.first else { return }
        switch question.take(line) {
        case .ask(let text):
            questions[0] = question
            say(text)
        case .done(let answer):
            questions.removeFirst()
            await request(BridgeRequest(.answerInput, answer)) { _ in "answered" }
            promptNextQuestion()
        }
    }

    mutating func show(_ event: ThreadEvent) {
        let data = event.data
        let prefix = event.threadId == thread ? "" : "[\(event.threadId.prefix(8))] "
        switch event.type {
        case "turn/started":
            runningTurns.insert(event.threadId)
        case "item/agentMessage/delta":
            if let delta = data["delta"]?.stringValue {
                if let item = data["itemId"]?.stringValue { streamedItems.insert(item) }
                output.stream(delta)
            }
        case "item/started":
            if let item = data["item"], item["type"]?.stringValue == "commandExecution" {
                say("\(prefix)$ \(item["command"]?.stringValue ?? "")")
            }
        case "item/commandExecution/outputDelta":
            if let delta = data["delta"]?.stringValue {
                output.stream(delta)
            }
        case "item/completed":
            guard let item = data["item"] else { break }
            switch item["type"]?.stringValue {
            case "agentMessage":
                let id = item["id"]?.stringValue ?? ""
                if streamedItems.remove(id) == nil, let text = item["text"]?.stringValue { say(prefix + text) } else { output.endLine() }
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

    mutating func promptNextApproval() {
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
    mutating func show(_ status: BridgeClient.Status) -> Bool {
        switch status {
        case .connected(let ack, let endpoint):
            guard ack.resume != nil else { return true }  // the first connection was announced already
            say("reconnected to \(endpoint)" + (ack.resume == .gap ? " (some output was lost: /open the thread again)" : ""))
        case .reconnecting(let attempt, let delay, let reason):
            say("connection lost (\(reason)); reconnecting in \(AttachOutput.seconds(delay)) (attempt \(attempt))")
        case .failed(let error):
            say("error: \(error.message)")
            return false
        case .closed:
            return false
        }
        return true
    }
}

import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// The agent's questions: Codex's `item/tool/requestUserInput` and `mcpServer/elicitation/request` become
/// `inputRequest`s, held like approvals until the first `answerInput` (then `inputResolved` to everyone). Any
/// other Codex server request the bridge cannot relay is answered with a JSON-RPC error at once (logged once per
/// method), so no turn waits for an answer that never comes.
extension ThreadHub {
    /// Relays a question; false when `method` is not one.
    func relayInput(id: CodexRequestID, method: String, params: JSONValue) -> Bool {
        guard let type = QuestionDesk.type(of: method) else { return false }
        guard let threadId = params["threadId"]?.stringValue else {
            refuse(id: id, method: method, why: "names no thread")
            return true
        }
        let requestId = desks.approvals.nextId(generation: generation, prefix: "in")
        publish(threadId: threadId) { seq in
            let request = QuestionDesk.request(seq: seq, requestId: requestId, threadId: threadId, type: type, params: params)
            self.desks.questions.asked(request, codexId: id)
            return .inputRequest(request)
        }
        logger.info(
            "Input requested",
            metadata: ["bridge.thread.id": "\(threadId)", "bridge.input.id": "\(requestId)", "bridge.input.type": "\(type)"])
        return true
    }

    /// `answerInput`, in one step: the question is still open (`input_not_pending` when another answer, Codex or a
    /// restart resolved it), the answer fits it, Codex gets it, and everyone is told (`inputResolved`) before any
    /// event Codex sends in reaction. Codex's `respond` only queues a line for its stdin: nothing waits here.
    func answerInput(_ answer: AnswerInput, deviceId: String?, deviceName: String?) throws -> (threadId: String, action: InputAction) {
        guard let pending = desks.questions[answer.requestId] else { throw QuestionDesk.notPending(answer.requestId) }
        let action = answer.action ?? .accept
        let result = try QuestionDesk.codexAnswer(answer, action: action, to: pending.request)
        desks.questions.answered(answer.requestId)
        do {
            try codex.respond(to: pending.codexId, result: result)
        } catch {
            throw HubError(.inputNotPending, "question \(answer.requestId) can no longer be answered: codex restarted")
        }
        let threadId = pending.request.threadId
        let shown = ShownAnswer(answer, action: action, to: pending.request)
        let at = Int64(Date().timeIntervalSince1970)
        publish(threadId: threadId) { seq in
            .inputResolved(
                InputResolved(
                    seq: seq, requestId: answer.requestId, threadId: threadId, action: action, deviceId: deviceId, deviceName: deviceName,
                    at: at, answers: shown.answers, content: shown.content))
        }
        return (threadId, action)
    }

    /// Answers a server request the bridge does not relay with a JSON-RPC error, so Codex goes on; says so in the
    /// log once per method.
    func refuse(id: CodexRequestID, method: String, why: String = "is not relayed") {
        if desks.questions.isFirstRefusal(of: method) {
            logger.warning(
                "Declining a Codex request the bridge cannot relay (logged once per method)",
                metadata: ["bridge.codex.method": "\(method.prefix(128))", "bridge.codex.why": "\(why)"])
        }
        try? codex.respond(to: id, errorCode: -32601, message: "codex-bridge does not relay \(method.prefix(128)): \(why)")
    }

    /// Codex withdrew a request (`serverRequest/resolved`: the turn ended or was interrupted): a question still
    /// pending for it is resolved as `cancel` for everyone.
    func codexResolvedRequest(_ params: JSONValue) {
        guard let value = params["requestId"] else { return }
        let generation = self.generation
        for pending in desks.questions.withdraw(where: { $0.codexId.generation == generation && $0.codexId.value == value }) {
            resolveInput(pending, action: .cancel)
        }
    }

    /// Resolves every question of a turn that ended, or of a Codex child that stopped.
    func cancelInputs(where matches: (QuestionDesk.Pending) -> Bool) {
        for pending in desks.questions.withdraw(where: matches) {
            resolveInput(pending, action: .cancel)
        }
    }

    private func resolveInput(_ pending: QuestionDesk.Pending, action: InputAction) {
        let requestId = pending.request.requestId
        let threadId = pending.request.threadId
        let at = Int64(Date().timeIntervalSince1970)
        publish(threadId: threadId) { seq in
            .inputResolved(InputResolved(seq: seq, requestId: requestId, threadId: threadId, action: action, at: at))
        }
    }
}

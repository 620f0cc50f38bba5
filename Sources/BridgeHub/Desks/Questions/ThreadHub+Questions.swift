import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// The agent's questions: Codex's `item/tool/requestUserInput` and `mcpServer/elicitation/request` become
/// `inputRequest`s, held like approvals until the first `answerInput` (then `inputResolved` to everyone). Any
/// other Codex server request the bridge cannot relay is answered with a JSON-RPC error at once (logged once per
/// method), so no turn waits for an answer that never comes.
extension ThreadHub {
    struct PendingInput {
        var codexId: CodexRequestID
        var request: InputRequest
    }

    /// Most question ids, answers per question and characters per answer accepted in one `answerInput`.
    static let maxAnswers = 64
    static let maxAnswerCharacters = 16_384

    /// The bridge `type` of an input method; nil when `method` is not a question.
    static func inputType(of method: String) -> String? {
        switch method {
        case "item/tool/requestUserInput": "userInput"
        case "mcpServer/elicitation/request": "elicitation"
        default: nil
        }
    }

    /// Relays a question; false when `method` is not one.
    func relayInput(id: CodexRequestID, method: String, params: JSONValue) -> Bool {
        guard let type = Self.inputType(of: method) else { return false }
        guard let threadId = params["threadId"]?.stringValue else {
            refuse(id: id, method: method, why: "names no thread")
            return true
        }
        let requestId = approvals.nextId(generation: generation, prefix: "in")
        publish(threadId: threadId) { seq in
            let request = InputRequest(
                seq: seq, requestId: requestId, threadId: threadId, turnId: params["turnId"]?.stringValue,
                itemId: params["itemId"]?.stringValue, type: type, questions: params["questions"], message: params["message"]?.stringValue,
                schema: params["requestedSchema"], url: params["url"]?.stringValue, serverName: params["serverName"]?.stringValue)
            self.pendingInputs[requestId] = PendingInput(codexId: id, request: request)
            return .inputRequest(request)
        }
        logger.info(
            "Input requested",
            metadata: ["bridge.thread.id": "\(threadId)", "bridge.input.id": "\(requestId)", "bridge.input.type": "\(type)"])
        return true
    }

    /// Answers a server request the bridge does not relay with a JSON-RPC error, so Codex goes on; says so in the
    /// log once per method.
    func refuse(id: CodexRequestID, method: String, why: String = "is not relayed") {
        if refusedMethods.count < 256, refusedMethods.insert(method).inserted {
            logger.warning(
                "Declining a Codex request the bridge cannot relay (logged once per method)",
                metadata: ["bridge.codex.method": "\(method.prefix(128))", "bridge.codex.why": "\(why)"])
        }
        try? codex.respond(to: id, errorCode: -32601, message: "codex-bridge does not relay \(method.prefix(128)): \(why)")
    }

    /// The thread of a pending question (for the gate), or `input_not_pending`.
    func pendingInputThread(_ requestId: String) throws -> String {
        guard let pending = pendingInputs[requestId] else { throw Self.notPending(requestId) }
        return pending.request.threadId
    }

    static func notPending(_ requestId: String) -> HubError {
        HubError(.inputNotPending, "question \(requestId.prefix(128)) is not pending (already answered, expired or unknown)")
    }

    /// `answerInput`: checks the answer against the question, sends it to Codex, tells everyone.
    func answerInputRequest(_ answer: AnswerInput, session: ClientSession) throws -> Accepted {
        guard let pending = pendingInputs[answer.requestId] else { throw Self.notPending(answer.requestId) }
        let action = answer.action ?? .accept
        let result = try Self.codexAnswer(answer, action: action, to: pending.request)
        pendingInputs[answer.requestId] = nil
        do {
            try codex.respond(to: pending.codexId, result: result)
        } catch {
            throw HubError(.inputNotPending, "question \(answer.requestId) can no longer be answered: codex restarted")
        }
        let threadId = pending.request.threadId
        let deviceId = session.principal.deviceId
        publish(threadId: threadId) { seq in
            .inputResolved(InputResolved(seq: seq, requestId: answer.requestId, threadId: threadId, action: action, deviceId: deviceId))
        }
        session.logger.info(
            "Input answered", metadata: ["bridge.input.id": "\(answer.requestId)", "bridge.input.action": "\(action.rawValue)"])
        return Accepted(threadId: threadId, requestId: answer.requestId)
    }

    /// What Codex expects back: `{answers: {id: {answers: [..]}}}` for `request_user_input`, `{action, content}`
    /// for an elicitation. A wrong answer is a `bad_request` and leaves the question pending.
    static func codexAnswer(_ answer: AnswerInput, action: InputAction, to request: InputRequest) throws -> JSONValue {
        if request.type == "elicitation" {
            guard action == .accept else { return ["action": .string(action.rawValue), "content": .null] }
            if request.url != nil { return ["action": "accept", "content": .null] }
            guard case .object(let fields)? = answer.content else {
                throw HubError(.badRequest, "accepting this question needs 'content', an object following its schema")
            }
            if case .object(let properties)? = request.schema?["properties"] {
                let unknown = fields.keys.filter { properties[$0] == nil }.sorted()
                guard unknown.isEmpty else {
                    throw HubError(
                        .badRequest, "content has fields the schema does not name: \(unknown.joined(separator: ", ").prefix(256))")
                }
            }
            for name in request.schema?["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where fields[name] == nil {
                throw HubError(.badRequest, "content misses the required field '\(name.prefix(64))'")
            }
            return ["action": "accept", "content": .object(fields)]
        }
        guard action == .accept else { return ["answers": [:]] }
        guard let answers = answer.answers, !answers.isEmpty else {
            throw HubError(.badRequest, "answering needs 'answers': each question id with the chosen options or typed text")
        }
        let ids = Set((request.questions?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
        var out: [String: JSONValue] = [:]
        for (id, values) in answers {
            guard ids.contains(id) else { throw HubError(.badRequest, "no question '\(id.prefix(64))' in \(request.requestId)") }
            guard values.count <= maxAnswers, values.allSatisfy({ $0.count <= maxAnswerCharacters }) else {
                throw HubError(.tooLarge, "at most \(maxAnswers) answers of \(maxAnswerCharacters) characters per question")
            }
            out[id] = ["answers": .array(values.map { .string($0) })]
        }
        return ["answers": .object(out)]
    }

    /// Codex withdrew a request (`serverRequest/resolved`: the turn ended or was interrupted): a question still
    /// pending for it is resolved as `cancel` for everyone.
    func codexResolvedRequest(_ params: JSONValue) {
        guard let value = params["requestId"] else { return }
        for (requestId, pending) in pendingInputs where pending.codexId.generation == generation && pending.codexId.value == value {
            resolveInput(requestId, pending, action: .cancel)
        }
    }

    /// Resolves every question of a turn that ended, or of a Codex child that stopped.
    func cancelInputs(where matches: (PendingInput) -> Bool) {
        for (requestId, pending) in pendingInputs where matches(pending) {
            resolveInput(requestId, pending, action: .cancel)
        }
    }

    private func resolveInput(_ requestId: String, _ pending: PendingInput, action: InputAction) {
        pendingInputs[requestId] = nil
        let threadId = pending.request.threadId
        publish(threadId: threadId) { seq in
            .inputResolved(InputResolved(seq: seq, requestId: requestId, threadId: threadId, action: action))
        }
    }

    /// The questions still open on `threadId` (`*`: all), oldest first, for a client that subscribes late.
    func pendingInputRequests(on threadId: String) -> [InputRequest] {
        pendingInputs.values.map(\.request).filter { threadId == "*" || $0.threadId == threadId }.sorted { $0.seq < $1.seq }
    }
}

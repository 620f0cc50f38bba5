import BridgeProtocol
import CodexControl

/// The agent's questions waiting for their first answer (Codex's `item/tool/requestUserInput` and
/// `mcpServer/elicitation/request`), what Codex expects back for each kind, and the server-request methods
/// already logged as not relayed. A value type with no I/O; ``ThreadHub`` publishes and answers through it.
struct QuestionDesk {
    struct Pending {
        var codexId: CodexRequestID
        var request: InputRequest
    }

    /// Most question ids, answers per question and characters per answer accepted in one `answerInput`.
    static let maxAnswers = 64
    static let maxAnswerCharacters = 16_384
    /// Most methods remembered as refused (each logged once).
    static let maxRefusedMethods = 256

    private var pending: [String: Pending] = [:]
    private(set) var refusedMethods: Set<String> = []

    /// The bridge `type` of an input method; nil when `method` is not a question.
    static func type(of method: String) -> String? {
        switch method {
        case "item/tool/requestUserInput": "userInput"
        case "mcpServer/elicitation/request": "elicitation"
        default: nil
        }
    }

    /// The `inputRequest` clients get for Codex's question (`params` of a question `method`), numbered `seq`.
    static func request(seq: Int64, requestId: String, threadId: String, type: String, params: JSONValue) -> InputRequest {
        InputRequest(
            seq: seq, requestId: requestId, threadId: threadId, turnId: params["turnId"]?.stringValue,
            itemId: params["itemId"]?.stringValue,
            type: type, questions: params["questions"], message: params["message"]?.stringValue, schema: params["requestedSchema"],
            url: params["url"]?.stringValue, serverName: params["serverName"]?.stringValue)
    }

    /// An answer or a gate check for a question that is not pending.
    static func notPending(_ requestId: String) -> HubError {
        HubError(.inputNotPending, "question \(requestId.prefix(128)) is not pending (already answered, expired or unknown)")
    }

    subscript(_ requestId: String) -> Pending? { pending[requestId] }

    /// The thread of a pending question.
    func thread(of requestId: String) -> String? { pending[requestId]?.request.threadId }

    /// The thread of a pending question, for the gate.
    /// - Throws: `input_not_pending` when it is not pending.
    func pendingThread(of requestId: String) throws(HubError) -> String {
        guard let threadId = thread(of: requestId) else { throw Self.notPending(requestId) }
        return threadId
    }

    /// A question relayed to the phones, waiting for its first answer.
    mutating func asked(_ request: InputRequest, codexId: CodexRequestID) {
        pending[request.requestId] = Pending(codexId: codexId, request: request)
    }

    /// The first answer took it.
    mutating func answered(_ requestId: String) {
        pending[requestId] = nil
    }

    /// Takes every pending question that `matches` (Codex withdrew it, its turn ended, its Codex stopped),
    /// oldest first.
    mutating func withdraw(where matches: (Pending) -> Bool) -> [Pending] {
        let taken = pending.values.filter(matches).sorted { $0.request.seq < $1.request.seq }
        for question in taken { pending[question.request.requestId] = nil }
        return taken
    }

    /// The questions still open on `threadId` (`*`: all), oldest first, for a client that subscribes late.
    func open(on threadId: String) -> [InputRequest] {
        pending.values.map(\.request).filter { threadId == "*" || $0.threadId == threadId }.sorted { $0.seq < $1.seq }
    }

    /// Whether `method` is refused for the first time (it is logged once).
    mutating func isFirstRefusal(of method: String) -> Bool {
        refusedMethods.count < Self.maxRefusedMethods && refusedMethods.insert(method).inserted
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
}

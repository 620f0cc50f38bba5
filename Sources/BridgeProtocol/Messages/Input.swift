/// `inputRequest {seq, requestId, threadId, turnId?, itemId?, type, …}`: the agent asks the person something.
///
/// `type` is `userInput` (Codex's `request_user_input` tool: `questions`) or `elicitation` (an MCP server's
/// form: `message` and `schema`, or `url`). Answered with `answerInput`; the first answer wins and every
/// subscriber sees `inputResolved`.
public struct InputRequest: Codable, Sendable, Hashable {
    public var seq: Int64
    public var requestId: String
    public var threadId: String
    public var turnId: String?
    public var itemId: String?
    /// `userInput` or `elicitation`.
    public var type: String
    /// `userInput`: `[{id, header, question, isOther, isSecret, options: [{label, description}]?}]` as Codex sent them.
    public var questions: JSONValue?
    /// `elicitation`: what the MCP server says it wants.
    public var message: String?
    /// `elicitation` in form mode: the JSON schema (an object of primitive properties) the answer's `content` follows.
    public var schema: JSONValue?
    /// `elicitation` in url mode: the page the person should open.
    public var url: String?
    /// `elicitation`: the MCP server that asks.
    public var serverName: String?

    public init(
        seq: Int64, requestId: String, threadId: String, turnId: String? = nil, itemId: String? = nil, type: String,
        questions: JSONValue? = nil, message: String? = nil, schema: JSONValue? = nil, url: String? = nil, serverName: String? = nil
    ) {
        self.seq = seq
        self.requestId = requestId
        self.threadId = threadId
        self.turnId = turnId
        self.itemId = itemId
        self.type = type
        self.questions = questions
        self.message = message
        self.schema = schema
        self.url = url
        self.serverName = serverName
    }
}

/// How an agent's question is answered.
public enum InputAction: String, Codable, Sendable, Hashable, CaseIterable {
    case accept
    case decline
    case cancel
}

/// `answerInput {requestId, answers? | content?, action?}`.
///
/// `userInput`: `answers` maps each question id to the chosen labels or typed text (`action` defaults to
/// `accept`; `decline`/`cancel` answer nothing). `elicitation`: `action`, with `content` (an object following the
/// schema) when accepting.
public struct AnswerInput: RequestPayload {
    public var requestId: String
    public var answers: [String: [String]]?
    public var content: JSONValue?
    public var action: InputAction?
    public init(requestId: String, answers: [String: [String]]? = nil, content: JSONValue? = nil, action: InputAction? = nil) {
        self.requestId = requestId
        self.answers = answers
        self.content = content
        self.action = action
    }
}

extension AnswerInput {
    public func auditDetail(answer: BridgeResponse?) -> String? { action?.rawValue ?? "answer" }
}

/// `inputResolved {seq, requestId, threadId, action, deviceId?, deviceName?, at?, answers?, content?}`: a question
/// was answered (or cancelled: the turn ended, Codex restarted), and what the answer was.
public struct InputResolved: Codable, Sendable, Hashable {
    public var seq: Int64
    public var requestId: String
    public var threadId: String
    public var action: InputAction
    public var deviceId: String?
    /// The answering device's name at the time (a paired device).
    public var deviceName: String?
    /// When it was answered, Unix seconds.
    public var at: Int64?
    /// The answer to a `userInput` question (a secret question's answer left out).
    public var answers: [String: [String]]?
    /// The content of an accepted `elicitation` form.
    public var content: JSONValue?
    public init(
        seq: Int64, requestId: String, threadId: String, action: InputAction, deviceId: String? = nil, deviceName: String? = nil,
        at: Int64? = nil, answers: [String: [String]]? = nil, content: JSONValue? = nil
    ) {
        self.seq = seq
        self.requestId = requestId
        self.threadId = threadId
        self.action = action
        self.deviceId = deviceId
        self.deviceName = deviceName
        self.at = at
        self.answers = answers
        self.content = content
    }
}

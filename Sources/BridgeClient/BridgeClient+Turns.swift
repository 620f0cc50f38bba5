import BridgeProtocol

/// Typed calls for what a turn needs from the phone (issue 15): answering the agent's questions, queueing
/// follow-ups, finding files. Each sends one request and checks the answer's kind.
extension BridgeClient {
    /// The answer had another kind than the request's.
    public struct UnexpectedAnswer: Error, Sendable, Hashable {
        public var expected: String
        public var got: String
    }

    /// `answerInput`: answers a `request_user_input` question (`answers`: question id → chosen labels or typed
    /// text) or an MCP elicitation (`action`, and `content` when accepting). The first answer wins; a later
    /// one fails with `input_not_pending`.
    public func answerInput(
        requestId: String, answers: [String: [String]]? = nil, content: JSONValue? = nil, action: InputAction? = nil
    ) async throws -> Accepted {
        try Self.accepted(
            await send(BridgeRequest(.answerInput, AnswerInput(requestId: requestId, answers: answers, content: content, action: action))))
    }

    /// `sendMessage`: steers the running turn (`.steer`, the default) or holds the message until it ends
    /// (`.queue`: the answer carries `queuedId`); with no turn running either starts a new one (`turnId`).
    public func sendMessage(
        threadId: String, text: String, mode: SendMode? = nil, model: String? = nil, effort: String? = nil, attachments: [String]? = nil
    ) async throws -> Accepted {
        try Self.accepted(
            await send(
                BridgeRequest(
                    .sendMessage,
                    SendMessage(threadId: threadId, text: text, model: model, effort: effort, mode: mode, attachments: attachments))
            ))
    }

    /// `cancelQueued`: takes back a queued message that has not started.
    public func cancelQueued(threadId: String, queuedId: String) async throws -> Accepted {
        try Self.accepted(await send(BridgeRequest(.cancelQueued, CancelQueued(threadId: threadId, queuedId: queuedId))))
    }

    /// `searchFiles`: files under the thread's directory matching `query`, best first.
    public func searchFiles(threadId: String, query: String, limit: Int? = nil) async throws -> FileMatches {
        let answer = try await send(BridgeRequest(.searchFiles, SearchFiles(threadId: threadId, query: query, limit: limit)))
        guard case .files(let files) = answer else { throw UnexpectedAnswer(expected: "files", got: answer.kind) }
        return files
    }

    /// `startReview`: Codex reviews the thread's directory as a new turn (`turnId`); its findings stream as events.
    public func startReview(threadId: String, target: ReviewTarget) async throws -> Accepted {
        try Self.accepted(await send(BridgeRequest(.startReview, StartReview(threadId: threadId, target: target))))
    }

    private static func accepted(_ answer: BridgeResponse) throws -> Accepted {
        guard case .accepted(let accepted) = answer else { throw UnexpectedAnswer(expected: "accepted", got: answer.kind) }
        return accepted
    }
}

import BridgeProtocol
import CodexControl
import Foundation
import Synchronization

/// A Codex for in-process hub tests: answers requests from a table of handlers, records every request and
/// every answer the hub gives to Codex's own requests, and lets the test push events.
final class FakeCodexPort: CodexPort {
    typealias Handler = @Sendable (JSONValue) throws -> JSONValue
    typealias AsyncHandler = @Sendable (JSONValue) async throws -> JSONValue

    let events = CodexStream<CodexEvent>(capacity: 4096)
    /// Plays a shared app-server (the terminal's Codex uses it too).
    let isShared: Bool
    private let handlers = Mutex<[String: Handler]>([:])
    private let asyncHandlers = Mutex<[String: AsyncHandler]>([:])
    private let log = Mutex<[(method: String, params: JSONValue)]>([])
    private let answers = Mutex<[(id: CodexRequestID, result: JSONValue?, errorCode: Int?)]>([])

    init(shared: Bool = false) { isShared = shared }

    /// Answers `method` with `handler` from now on.
    func on(_ method: String, _ handler: @escaping Handler) {
        handlers.withLock { $0[method] = handler }
    }

    /// Answers `method` with `handler`, which may wait (e.g. stream notifications first) from now on.
    func onAsync(_ method: String, _ handler: @escaping AsyncHandler) {
        asyncHandlers.withLock { $0[method] = handler }
    }

    /// The requests the hub sent, in order.
    var requests: [(method: String, params: JSONValue)] { log.withLock { $0 } }

    func requests(_ method: String) -> [JSONValue] { requests.filter { $0.method == method }.map(\.params) }

    /// The hub's answers to Codex's requests.
    var responses: [(id: CodexRequestID, result: JSONValue?, errorCode: Int?)] { answers.withLock { $0 } }

    func request(_ method: String, params: JSONValue, timeout: Duration) async throws -> JSONValue {
        log.withLock { $0.append((method, params)) }
        if let handler = asyncHandlers.withLock({ $0[method] }) { return try await handler(params) }
        guard let handler = handlers.withLock({ $0[method] }) else {
            throw CodexError.rpc(code: -32601, message: "fake codex: no handler for \(method)")
        }
        return try handler(params)
    }

    func respond(to id: CodexRequestID, result: JSONValue) throws {
        answers.withLock { $0.append((id, result, nil)) }
    }

    func respond(to id: CodexRequestID, errorCode: Int, message: String) throws {
        answers.withLock { $0.append((id, nil, errorCode)) }
    }

    /// Pushes a notification as Codex would send it (its params' JSON text included).
    func notify(_ method: String, _ params: JSONValue) async {
        await events.send(.inbound(.notification(CodexNotification(method: method, params: params, paramsJSON: params.jsonText))))
    }

    /// Pushes a server request (an approval).
    func ask(_ id: Int, _ method: String, _ params: JSONValue, generation: Int = 1) async {
        await events.send(
            .inbound(.serverRequest(id: CodexRequestID(generation: generation, value: .number(Double(id))), method: method, params: params))
        )
    }
}

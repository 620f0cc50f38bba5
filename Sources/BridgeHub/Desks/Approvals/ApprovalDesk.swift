import BridgeProtocol
import CodexControl
import Foundation

/// The approvals Codex asked for and nobody answered yet, and the one way to answer one, whoever answers: a
/// phone's `approve`, a notification's Approve/Decline (`POST /push/action`, ntfy actions). Each answer goes
/// through ``answer(_:decision:)``, which takes the approval out (the first answer wins; a second finds it gone)
/// and says exactly what Codex receives for that approval's kind (``ApprovalMapping/result(method:decision:params:)``).
/// A value type: the hub performs what it returns (respond to Codex, publish `approvalResolved`, tell push).
struct ApprovalDesk: Sendable {
    /// One approval waiting for its answer.
    struct Pending: Sendable {
        var codexId: CodexRequestID
        var request: ApprovalRequest
        var requestedAt: ContinuousClock.Instant
        /// Codex's method and params (its answer's shape depends on them).
        var method: String
        var params: JSONValue
    }

    /// What one answer makes the hub do.
    struct Answer: Sendable {
        /// The Codex request to answer, and with what.
        var codexId: CodexRequestID
        var result: JSONValue
        var threadId: String
        var requestedAt: ContinuousClock.Instant
    }

    private(set) var pending: [String: Pending] = [:]
    private var issued = 0

    /// How many wait.
    var count: Int { pending.count }

    /// A new approval id for generation `generation` of Codex (unique across restarts of the bridge too).
    mutating func nextId(generation: Int, prefix: String = "ap") -> String {
        issued += 1
        return "\(prefix)-\(generation)-\(issued)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Codex asked: `request` waits under its id until answered.
    mutating func requested(_ request: ApprovalRequest, codexId: CodexRequestID, method: String, params: JSONValue) {
        pending[request.approvalId] = Pending(codexId: codexId, request: request, requestedAt: .now, method: method, params: params)
    }

    /// The thread of a waiting approval; nil when it is not waiting.
    func threadId(of approvalId: String) -> String? { pending[approvalId]?.request.threadId }

    /// The thread of a waiting approval, for the gate (a request's and a notification's action alike).
    /// - Throws: `approval_not_pending` when it is not waiting.
    func pendingThread(of approvalId: String) throws(HubError) -> String {
        guard let threadId = threadId(of: approvalId) else { throw Self.notPending(approvalId) }
        return threadId
    }

    /// An answer or a gate check for an approval that is not waiting.
    static func notPending(_ approvalId: String) -> HubError {
        HubError(.approvalNotPending, "approval \(approvalId.prefix(128)) is not pending (already answered, expired or unknown)")
    }

    /// The request of a waiting approval.
    func request(_ approvalId: String) -> ApprovalRequest? { pending[approvalId]?.request }

    /// The waiting approvals in the order they were asked.
    var inOrder: [ApprovalRequest] { pending.values.map(\.request).sorted { $0.seq < $1.seq } }

    /// Answers `approvalId`: it stops waiting, and Codex is to receive the result its kind expects.
    /// - Throws: `approval_not_pending` when it is not waiting (answered first by someone else, cancelled, unknown).
    mutating func answer(_ approvalId: String, decision: ApprovalDecision) throws(HubError) -> Answer {
        guard let waiting = pending.removeValue(forKey: approvalId) else { throw Self.notPending(approvalId) }
        return Answer(
            codexId: waiting.codexId, result: ApprovalMapping.result(method: waiting.method, decision: decision, params: waiting.params),
            threadId: waiting.request.threadId, requestedAt: waiting.requestedAt)
    }

    /// Codex (generation `generation`) stopped: every approval it asked is cancelled; returns them.
    mutating func cancelAll(generation: Int) -> [ApprovalRequest] {
        let gone = pending.values.filter { $0.codexId.generation == generation }.map(\.request).sorted { $0.seq < $1.seq }
        for request in gone { pending[request.approvalId] = nil }
        return gone
    }

    /// Another client of a shared app-server answered Codex's request `requestId` first: it stops waiting here.
    mutating func answeredElsewhere(requestId: JSONValue, generation: Int) -> ApprovalRequest? {
        guard
            let (approvalId, waiting) = pending.first(where: {
                $0.value.codexId.value == requestId && $0.value.codexId.generation == generation
            })
        else { return nil }
        pending[approvalId] = nil
        return waiting.request
    }
}

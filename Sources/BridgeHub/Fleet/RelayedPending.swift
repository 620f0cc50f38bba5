import BridgeProtocol

/// The approvals and questions of linked machines that nobody answered yet, as this bridge relayed them (its own
/// frames, labelled): a fleet session that subscribes later gets them, as it gets this bridge's own pending ones
/// from the desks. A value type with no I/O.
struct RelayedPending {
    private struct Entry {
        var threadId: String
        var machine: String
        var text: String
        var order: Int64
    }

    private var entries: [String: Entry] = [:]

    /// Most kept (a linked machine cannot grow this bridge's memory without bound); the oldest go first.
    static let capacity = 10_000

    /// An approval or question (`id`) was relayed.
    mutating func opened(_ id: String, threadId: String, machine: String, text: String, seq: Int64) {
        entries[machine + "\u{0}" + id] = Entry(threadId: threadId, machine: machine, text: text, order: seq)
        if entries.count > Self.capacity, let oldest = entries.min(by: { $0.value.order < $1.value.order })?.key {
            entries[oldest] = nil
        }
    }

    /// It was answered, withdrawn or cancelled.
    mutating func closed(_ id: String, machine: String) {
        entries[machine + "\u{0}" + id] = nil
    }

    /// Follows one relayed message of `machine` (numbered here, encoded as `text`): an approval or a question opens,
    /// its resolution closes. Returns the notification to signal (the phones subscribe to notifications once,
    /// here: a linked machine's approvals notify them too).
    mutating func observe(_ message: ServerMessage, threadId: String, machine: String, text: String) -> PushCoordinator.Signal? {
        let seq = message.seq ?? 0
        switch message {
        case .approvalRequest(let request):
            opened(request.approvalId, threadId: threadId, machine: machine, text: text, seq: seq)
            return .approvalRequested(request)
        case .approvalResolved(let resolved):
            closed(resolved.approvalId, machine: machine)
            return .approvalResolved(approvalId: resolved.approvalId, decision: resolved.decision, deviceId: resolved.deviceId)
        case .inputRequest(let request):
            opened(request.requestId, threadId: threadId, machine: machine, text: text, seq: seq)
        case .inputResolved(let resolved):
            closed(resolved.requestId, machine: machine)
        default: break
        }
        return nil
    }

    /// The machine was unlinked.
    mutating func forget(machine: String) {
        entries = entries.filter { $0.value.machine != machine }
    }

    /// The frames of `threadId` (or of every thread for `*`), oldest first.
    func frames(on threadId: String) -> [String] {
        entries.values.filter { threadId == "*" || $0.threadId == threadId }.sorted { $0.order < $1.order }.map(\.text)
    }
}

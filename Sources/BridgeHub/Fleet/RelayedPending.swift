import BridgeProtocol

/// The approvals and questions of linked machines that nobody answered yet, as this bridge relayed them (its own
/// frames, labelled): a fleet session that subscribes later gets them, as it gets this bridge's own pending ones
/// from the desks. Bounded per machine in entries and bytes (``LinkBudget/openRequests``,
/// ``LinkBudget/openRequestBytes``): the relay asks ``refusal(_:machine:bytes:budget:)`` first. A value type with
/// no I/O.
struct RelayedPending {
    private struct Entry {
        var threadId: String
        var machine: String
        var text: String
        var order: Int64
    }

    private var entries: [String: Entry] = [:]
    /// Per machine: how many entries and how many bytes of frames it holds here (its ``LinkBudget``).
    private var held: [String: (count: Int, bytes: Int)] = [:]

    /// Why `message` of `machine` may not be kept (its link's budget of open approvals and questions is spent),
    /// or nil. `bytes`: about the frame's size here. Only a new approval or question can be refused.
    func refusal(_ message: ServerMessage, machine: String, bytes: Int, budget: LinkBudget) -> String? {
        let id: String
        switch message {
        case .approvalRequest(let request): id = request.approvalId
        case .inputRequest(let request): id = request.requestId
        default: return nil
        }
        guard entries[machine + "\u{0}" + id] == nil else { return nil }
        let now = held[machine] ?? (0, 0)
        if now.count >= budget.openRequests {
            return "more than \(budget.openRequests) approvals and questions open at once"
        }
        if now.bytes + bytes > budget.openRequestBytes {
            return "open approvals and questions over \(budget.openRequestBytes >> 20) MiB"
        }
        return nil
    }

    /// Whether approval or question `id` of `machine` is open here.
    func isOpen(_ id: String, machine: String) -> Bool { entries[machine + "\u{0}" + id] != nil }

    /// What `machine` holds here now.
    func holding(_ machine: String) -> (count: Int, bytes: Int) { held[machine] ?? (0, 0) }

    /// An approval or question (`id`) was relayed.
    mutating func opened(_ id: String, threadId: String, machine: String, text: String, seq: Int64) {
        closed(id, machine: machine)
        entries[machine + "\u{0}" + id] = Entry(threadId: threadId, machine: machine, text: text, order: seq)
        held[machine, default: (0, 0)].count += 1
        held[machine, default: (0, 0)].bytes += text.utf8.count
    }

    /// It was answered, withdrawn or cancelled; true when it was open.
    @discardableResult
    mutating func closed(_ id: String, machine: String) -> Bool {
        guard let entry = entries.removeValue(forKey: machine + "\u{0}" + id) else { return false }
        held[machine]?.count -= 1
        held[machine]?.bytes -= entry.text.utf8.count
        if held[machine]?.count == 0 { held[machine] = nil }
        return true
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
        held[machine] = nil
    }

    /// The frames of `threadId` (or of every thread for `*`), oldest first.
    func frames(on threadId: String) -> [String] {
        entries.values.filter { threadId == "*" || $0.threadId == threadId }.sorted { $0.order < $1.order }.map(\.text)
    }
}

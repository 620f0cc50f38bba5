import BridgeHub
import BridgeProtocol
import Synchronization

/// Which machine owns what a fleet session names: threads, approvals and questions of linked machines, learnt
/// from the messages their links relay and from their answers (`threads`, `threadStarted`).
///
/// A value type with no I/O, so its rules are tested without sockets. The first machine to name a thread owns
/// it: a linked bridge that names another machine's thread (hostile or confused) is not believed, and the home
/// bridge's own threads are never a linked machine's (the hub checks that before relaying).
public struct FleetDirectory: Sendable {
    private var threads: [String: String] = [:]
    private var approvals: [String: String] = [:]
    private var inputs: [String: String] = [:]
    /// The device of this bridge that answered an approval or question of a linked machine through it (there the
    /// answer is the link's).
    private var answerers: [String: String] = [:]

    /// Most entries of each kind kept; the oldest are forgotten first (a forgotten thread is learnt again from the
    /// next `listThreads` or message).
    let capacity: Int
    /// Most threads one machine may own (``LinkBudget/threads``): a link that names more is over its budget.
    let threadsPerMachine: Int
    private var order: [String] = []
    private var owned: [String: Int] = [:]

    public init(capacity: Int = 100_000, threadsPerMachine: Int = LinkBudget.standard.threads) {
        self.capacity = capacity
        self.threadsPerMachine = threadsPerMachine
    }

    /// Whether `machine` may not name `threadId`: a thread nobody owns yet, when the machine owns `limit` already
    /// (its link's ``LinkBudget/threads``; at most ``threadsPerMachine``).
    public func isOverBudget(_ machine: String, naming threadId: String, limit: Int) -> Bool {
        threads[threadId] == nil && owned[machine, default: 0] >= min(limit, threadsPerMachine)
    }

    /// The machine that owns `threadId`, if a linked one does.
    public func machine(ofThread threadId: String) -> String? { threads[threadId] }
    /// The machine that asked approval `approvalId`.
    public func machine(ofApproval approvalId: String) -> String? { approvals[approvalId] }
    /// The machine that asked question `requestId`.
    public func machine(ofInput requestId: String) -> String? { inputs[requestId] }

    /// `machine` says it runs `threadId`: true when it does (it was first, or already owned it).
    @discardableResult
    public mutating func claim(thread threadId: String, by machine: String) -> Bool {
        if let owner = threads[threadId] { return owner == machine }
        guard owned[machine, default: 0] < threadsPerMachine else { return false }
        threads[threadId] = machine
        owned[machine, default: 0] += 1
        order.append(threadId)
        if order.count > capacity {
            let excess = order.count - capacity
            for id in order.prefix(excess) {
                if let owner = threads.removeValue(forKey: id) { owned[owner]? -= 1 }
            }
            order.removeFirst(excess)
        }
        return true
    }

    /// A message relayed from `machine`: true when it may be relayed (its thread is that machine's), and its
    /// approval or question is then remembered as that machine's.
    public mutating func observe(_ message: ServerMessage, from machine: String) -> Bool {
        guard let threadId = message.threadId, claim(thread: threadId, by: machine) else { return false }
        switch message {
        case .approvalRequest(let request): approvals[request.approvalId] = machine
        case .approvalResolved(let resolved): approvals[resolved.approvalId] = nil
        case .inputRequest(let request): inputs[request.requestId] = machine
        case .inputResolved(let resolved): inputs[resolved.requestId] = nil
        default: break
        }
        return true
    }

    /// A device of this bridge answers approval or question `id` of a linked machine.
    public mutating func answered(_ id: String, by deviceId: String) {
        if answerers.count >= capacity { answerers.removeAll() }
        answerers[id] = deviceId
    }

    /// ``observe(_:from:)``, and the message as this bridge's clients get it: an answer the linked machine
    /// credits to the link (`linkDevice`, the device this bridge is there) names the device here that gave it
    /// (nil when none of this bridge's devices did). nil: not relayed.
    public mutating func admit(_ message: ServerMessage, from machine: String, linkDevice: String) -> ServerMessage? {
        guard observe(message, from: machine) else { return nil }
        switch message {
        case .approvalResolved(var resolved) where resolved.deviceId == linkDevice:
            resolved.deviceId = answerers.removeValue(forKey: resolved.approvalId)
            resolved.deviceName = nil  // the link's name there (this bridge's), not the phone's
            return .approvalResolved(resolved)
        case .inputResolved(var resolved) where resolved.deviceId == linkDevice:
            resolved.deviceId = answerers.removeValue(forKey: resolved.requestId)
            resolved.deviceName = nil
            return .inputResolved(resolved)
        default:
            return message
        }
    }

    /// Forgets everything of a machine that was unlinked.
    public mutating func forget(machine: String) {
        threads = threads.filter { $0.value != machine }
        owned[machine] = nil
        approvals = approvals.filter { $0.value != machine }
        inputs = inputs.filter { $0.value != machine }
        order.removeAll { threads[$0] == nil }
    }

    /// The linked machine a request is for: by `machine` (startThread, listDirectory), by its thread, approval or
    /// question. nil: the home bridge.
    public func route(_ request: BridgeRequest) -> String? {
        if let approve = request.payload(as: Approve.self) { return approvals[approve.approvalId] }
        if let answer = request.payload(as: AnswerInput.self) { return inputs[answer.requestId] }
        return request.machine ?? request.threadId.flatMap { threads[$0] }
    }
}

/// The one ``FleetDirectory`` the links write and the router reads, behind a lock.
final class SharedFleetDirectory: Sendable {
    private let directory = Mutex(FleetDirectory())

    func withLock<T: Sendable>(_ body: (inout FleetDirectory) -> T) -> T {
        directory.withLock { body(&$0) }
    }
}

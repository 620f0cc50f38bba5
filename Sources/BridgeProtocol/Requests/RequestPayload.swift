/// The members of one request kind's frame besides `kind` and `id`: what ``RequestDescriptor/payload`` names.
/// Encoding and decoding are the type's own `Codable`; the rest of what a payload says about its request (the
/// thread it names, what the audit log records) is declared here, once per type.
public protocol RequestPayload: Codable, Sendable, Hashable {
    /// The thread the request acts on, when it names one (`"*"` names none).
    var targetThreadId: String? { get }
    /// What the audit log records about the request beyond its kind, thread and outcome, given its answer
    /// (nil when it failed).
    func auditDetail(answer: BridgeResponse?) -> String?
}

extension RequestPayload {
    public var targetThreadId: String? { nil }
    public func auditDetail(answer: BridgeResponse?) -> String? { nil }
}

/// A payload that names its thread in a `threadId` member.
public protocol ThreadPayload: RequestPayload {
    var threadId: String { get }
}

extension ThreadPayload {
    public var targetThreadId: String? { threadId }
}

extension RequestPayload {
    /// This payload as a hashable value (for ``BridgeRequest``'s equality).
    var hashableValue: AnyHashable { AnyHashable(self) }
}

/// A payload that names the machine it is for, in a fleet session (`startThread`, `listDirectory`).
public protocol MachinePayload: RequestPayload {
    var machine: String? { get set }
}

extension BridgeRequest {
    /// The machine the request names (``MachinePayload``), if any.
    public var machine: String? { (payload as? any MachinePayload)?.machine }

    /// The request without its `machine` (as the named machine gets it: there it is its own).
    public func withoutMachine() -> BridgeRequest {
        guard var targeted = payload as? any MachinePayload else { return self }
        targeted.machine = nil
        var request = BridgeRequest(decoded: requestKind, targeted)
        request.onBehalfOf = onBehalfOf
        return request
    }
}

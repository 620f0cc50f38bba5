/// One request a client made: its kind and its payload (of the type ``RequestDescriptor/payload`` names).
public struct BridgeRequest: Sendable, Hashable, CustomStringConvertible {
    /// The kind of this request.
    public let requestKind: RequestKind
    /// Its members besides `kind` and `id`.
    public let payload: any RequestPayload
    /// From a linked home bridge: who it makes the request for (recorded in the audit log as reported).
    public var onBehalfOf: OnBehalfOf?

    /// A request of `kind` with `payload`, which must be of the type the kind's descriptor names.
    public init<Payload: RequestPayload>(_ kind: RequestKind, _ payload: Payload) {
        precondition(Payload.self == kind.descriptor.payload, "\(kind.rawValue) takes \(kind.descriptor.payload), not \(Payload.self)")
        requestKind = kind
        self.payload = payload
    }

    /// Wraps a payload decoded as the kind's descriptor says (no type check needed).
    init(decoded kind: RequestKind, _ payload: any RequestPayload) {
        requestKind = kind
        self.payload = payload
    }

    /// The wire `kind` of this request.
    public var kind: String { requestKind.rawValue }

    /// What this kind of request is.
    public var descriptor: RequestDescriptor { requestKind.descriptor }

    /// The thread this request acts on, when it names one (`"*"` names none).
    public var threadId: String? { payload.targetThreadId }

    /// The payload as `type`, when it is one.
    public func payload<Payload: RequestPayload>(as type: Payload.Type) -> Payload? { payload as? Payload }

    public static func == (lhs: BridgeRequest, rhs: BridgeRequest) -> Bool {
        lhs.requestKind == rhs.requestKind && lhs.payload.hashableValue == rhs.payload.hashableValue && lhs.onBehalfOf == rhs.onBehalfOf
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(requestKind)
        hasher.combine(payload.hashableValue)
        hasher.combine(onBehalfOf)
    }

    public var description: String { "\(kind)(\(payload))" }
}

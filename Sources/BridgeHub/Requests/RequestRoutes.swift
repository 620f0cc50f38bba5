import BridgeProtocol

/// What a request's handler gets besides its payload: who asked, what the gate decided, and what it works with.
struct RequestContext: Sendable {
    let session: ClientSession
    /// The directory the gate resolved (the thread's, a new thread's, a listed directory); nil when none.
    let cwd: String?
    /// The policy the request's turns run with: the one the gate admitted, else the bridge's defaults.
    let policy: TurnPolicy
    /// The services beside the hub, and the hub's port.
    let services: HubServices

    /// ``cwd``, or `""` when the gate resolved none.
    var directory: String { cwd ?? "" }
}

/// The request handlers by kind, registered by the part that owns each kind (a ``RequestCollection``, in the
/// shape of Hummingbird's `RouteCollection`): dispatch is a lookup. A kind without a handler here is answered
/// by the fleet layer (``MachineRoute/fleet``) or `unknown_kind`.
struct RequestRoutes: Sendable {
    /// Runs where the request is (not on the hub actor), with the payload of the kind it was registered for.
    typealias Handler = @Sendable (any RequestPayload, RequestContext) async throws -> BridgeResponse

    private var handlers: [RequestKind: Handler] = [:]

    init(_ collections: [any RequestCollection]) {
        for collection in collections { collection.register(into: &self) }
    }

    /// Registers the handler of `kind`; its payload type must be the one the kind's descriptor names. It runs
    /// beside the hub, with the services and the hub's port (``HubServices``).
    mutating func on<Payload: RequestPayload>(
        _ kind: RequestKind, _ handler: @escaping @Sendable (HubServices, Payload, RequestContext) async throws -> BridgeResponse
    ) {
        precondition(Payload.self == kind.descriptor.payload, "\(kind.rawValue) takes \(kind.descriptor.payload), not \(Payload.self)")
        precondition(handlers[kind] == nil, "two handlers for \(kind.rawValue)")
        handlers[kind] = { payload, context in
            guard let payload = payload as? Payload else { throw HubError(.internal, "\(kind.rawValue) got a wrong payload") }
            return try await handler(context.services, payload, context)
        }
    }

    /// The handler of `kind`, if one was registered.
    func handler(for kind: RequestKind) -> Handler? { handlers[kind] }

    /// The kinds with a handler.
    var kinds: Set<RequestKind> { Set(handlers.keys) }
}

/// A part of the bridge that owns some request kinds and registers their handlers.
protocol RequestCollection: Sendable {
    func register(into routes: inout RequestRoutes)
}

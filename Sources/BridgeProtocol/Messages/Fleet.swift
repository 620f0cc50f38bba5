/// A workstation of a fleet: the home bridge a phone is connected to, or a bridge linked to it
/// (`codex-bridge machines add`). Its `id` is the bridge's server id.
public struct MachineRef: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// Whether the home bridge reaches a machine now.
public enum MachineState: String, Codable, Sendable, Hashable {
    /// Connected (the home bridge itself is always online).
    case online
    /// Not reachable now; its threads are shown from what was last known, and requests for it fail
    /// `machine_unavailable`.
    case offline
    /// Linked, waiting for that machine's owner to confirm the pairing (`serve --confirm-pairing` there).
    case pending
}

/// One machine of the fleet and its state: in a fleet `helloAck` (`machines`) and in `machineChanged`.
public struct MachineStatus: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var state: MachineState
    /// What a client may choose there (its roots, sandboxes, approval policies), as it last told this bridge;
    /// absent for a machine never reached.
    public var policy: ClientPolicy?
    /// Why this bridge closed the link the last time it did (`bad_frame`, `over_budget`): shown while the link
    /// waits to be tried again; absent once it works again.
    public var error: WireError?
    public init(id: String, name: String, state: MachineState, policy: ClientPolicy? = nil, error: WireError? = nil) {
        self.policy = policy
        self.id = id
        self.name = name
        self.state = state
        self.error = error
    }

    /// The machine without its state.
    public var ref: MachineRef { MachineRef(id: id, name: name) }
}

/// `machineChanged {machine}`: a linked machine came online, went offline or was linked or removed (then
/// `state` is `offline` and it is absent from the next `helloAck`). Sent only to fleet sessions; not journaled
/// (a reconnecting phone reads the states in its `helloAck`).
public struct MachineChanged: Codable, Sendable, Hashable {
    public var machine: MachineStatus
    /// True when the machine was unlinked from the home bridge (its threads leave the fleet).
    public var removed: Bool?
    public init(machine: MachineStatus, removed: Bool? = nil) {
        self.machine = machine
        self.removed = removed
    }
}

/// `listMachines {nearby?}` (admin) → `machines {machines, nearby?}`: the machines linked to this bridge; with
/// `nearby: true` also the bridges this one finds on its network over mDNS (about 2 s) that are not linked yet.
public struct ListMachines: RequestPayload {
    public var nearby: Bool?
    public init(nearby: Bool? = nil) { self.nearby = nearby }
}

/// `addMachine {url | host, port, fingerprint?, code; name?}` (admin) → `machines`: pairs this bridge with another
/// one as a device and links it, as `codex-bridge machines add` does: with that bridge's pairing URL, or with a
/// bridge found nearby (`listMachines {nearby}`) and the pairing code its `codex-bridge pair` shows. Waits while
/// that bridge's owner confirms the pairing (`serve --confirm-pairing` there), at most 5 minutes.
public struct AddMachine: RequestPayload {
    public var url: String?
    public var host: String?
    public var port: Int?
    public var fingerprint: String?
    public var code: String?
    public var name: String?
    public init(
        url: String? = nil, host: String? = nil, port: Int? = nil, fingerprint: String? = nil, code: String? = nil, name: String? = nil
    ) {
        self.url = url
        self.host = host
        self.port = port
        self.fingerprint = fingerprint
        self.code = code
        self.name = name
    }
}

/// `removeMachine {machineId}` (admin) → `machines`: unlinks a machine (its threads leave every fleet session).
public struct RemoveMachine: RequestPayload {
    public var machineId: String
    public init(machineId: String) { self.machineId = machineId }
}

/// `renameMachine {machineId, name}` (admin) → `machines`: the name this bridge's phones see (1–64 characters).
public struct RenameMachine: RequestPayload {
    public var machineId: String
    public var name: String
    public init(machineId: String, name: String) {
        self.machineId = machineId
        self.name = name
    }
}

/// `retryMachine {machineId}` → `accepted {}`: the link to that machine, offline now, tries again at once instead of
/// after its wait (a phone's Try now). Whether it came back is told by `machineChanged`, as always.
public struct RetryMachine: RequestPayload {
    public var machineId: String
    public init(machineId: String) { self.machineId = machineId }
}

/// One linked machine in `machines`.
public struct LinkedMachine: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    /// `host:port` it is reached at first.
    public var address: String
    /// `online`, `offline`, `pending` or `revoked` (it refused the link's credential: link it again).
    public var state: String
    /// Seconds since 1970.
    public var addedAt: Double
    /// Why the running bridge closed the link the last time it did (as ``MachineStatus/error``).
    public var error: WireError?
    public init(id: String, name: String, address: String, state: String, addedAt: Double, error: WireError? = nil) {
        self.id = id
        self.name = name
        self.address = address
        self.state = state
        self.addedAt = addedAt
        self.error = error
    }
}

/// A bridge found on this bridge's network, not linked yet.
public struct NearbyMachine: Codable, Sendable, Hashable {
    /// Its server id, when it advertises one.
    public var id: String?
    public var name: String
    public var host: String
    public var port: Int
    /// It serves TLS; `fingerprint` is its certificate authority's, pinned when linking.
    public var tls: Bool
    public var fingerprint: String?
    public init(id: String?, name: String, host: String, port: Int, tls: Bool, fingerprint: String?) {
        self.id = id
        self.name = name
        self.host = host
        self.port = port
        self.tls = tls
        self.fingerprint = fingerprint
    }
}

/// `machines {machines, nearby?}`: the answer to the machine requests.
public struct MachineList: Codable, Sendable, Hashable {
    public var machines: [LinkedMachine]
    public var nearby: [NearbyMachine]?
    public init(machines: [LinkedMachine], nearby: [NearbyMachine]? = nil) {
        self.machines = machines
        self.nearby = nearby
    }
}

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
    public init(id: String, name: String, state: MachineState, policy: ClientPolicy? = nil) {
        self.policy = policy
        self.id = id
        self.name = name
        self.state = state
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

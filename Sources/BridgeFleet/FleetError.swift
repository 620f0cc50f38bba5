import BridgeProtocol

/// Why a request for a linked machine was not answered by it.
enum FleetError: Error {
    /// The machine is not connected (or not linked): nothing was sent.
    case unavailable(MachineRef)
    /// The connection was lost before the machine answered: it may have acted; the same request id sent again is
    /// answered once there.
    case lost(MachineRef, String)

    /// The `error` frame answering request `id`.
    func errorMessage(id: String) -> ErrorMessage {
        switch self {
        case .unavailable(let machine):
            ErrorMessage(
                id: id, code: .machineUnavailable, message: "\(machine.name) is not reachable now; nothing was sent to it",
                machine: machine.id)
        case .lost(let machine, let why):
            ErrorMessage(
                id: id, code: .machineUnavailable,
                message:
                    "the connection to \(machine.name) was lost before it answered (\(why)); send the same request again when it is back: it acts once",
                machine: machine.id)
        }
    }
}

import BridgeProtocol

/// What a command's frame becomes on the wire: the hub numbers it with the next seq and publishes it on its
/// thread, and nothing else about it is the hub's.
extension CommandService.Frame {
    /// The thread whose subscribers get it.
    var threadId: String {
        switch self {
        case .output(let output): output.threadId
        case .exited(let exited): exited.threadId
        }
    }

    /// The frame as clients get it, numbered `seq`.
    func message(seq: Int64) -> ServerMessage {
        switch self {
        case .output(var output):
            output.seq = seq
            return .commandOutput(output)
        case .exited(var exited):
            exited.seq = seq
            return .commandExited(exited)
        }
    }
}

import Foundation

/// What a bridge that relays another bridge's journaled messages needs of them (the fleet's home bridge): the
/// thread they belong to, and the same message under its own `seq`.
extension ServerMessage {
    /// The thread of a journaled message (nil for the others).
    public var threadId: String? {
        switch self {
        case .event(let event): event.threadId
        case .approvalRequest(let request): request.threadId
        case .approvalResolved(let resolved): resolved.threadId
        case .inputRequest(let request): request.threadId
        case .inputResolved(let resolved): resolved.threadId
        case .messageQueued(let queued): queued.threadId
        case .messageUnqueued(let unqueued): unqueued.threadId
        case .queueChanged(let changed): changed.threadId
        case .commandStarted(let started): started.threadId
        case .commandOutput(let output): output.threadId
        case .commandExited(let exited): exited.threadId
        default: nil
        }
    }

    /// The same journaled message numbered `seq` (other messages are returned unchanged).
    public func renumbered(_ seq: Int64) -> ServerMessage {
        switch self {
        case .event(var event):
            event.seq = seq
            return .event(event)
        case .approvalRequest(var request):
            request.seq = seq
            return .approvalRequest(request)
        case .approvalResolved(var resolved):
            resolved.seq = seq
            return .approvalResolved(resolved)
        case .inputRequest(var request):
            request.seq = seq
            return .inputRequest(request)
        case .inputResolved(var resolved):
            resolved.seq = seq
            return .inputResolved(resolved)
        case .messageQueued(var queued):
            queued.seq = seq
            return .messageQueued(queued)
        case .messageUnqueued(var unqueued):
            unqueued.seq = seq
            return .messageUnqueued(unqueued)
        case .queueChanged(var changed):
            changed.seq = seq
            return .queueChanged(changed)
        case .commandStarted(var started):
            started.seq = seq
            return .commandStarted(started)
        case .commandOutput(var output):
            output.seq = seq
            return .commandOutput(output)
        case .commandExited(var exited):
            exited.seq = seq
            return .commandExited(exited)
        default:
            return self
        }
    }

    /// This message's frame with a `machine` member first (`{"machine":{"id":…,"name":…},…}`): how a fleet
    /// session tells a linked machine's messages from the home bridge's, whose frames carry none. `label`: the
    /// machine's JSON text (encoded once per batch); `eventDataJSON`: an event's `data` as the linked machine wrote
    /// it (``RelayedFrame``).
    public func encodedText(machineLabel label: String, encoder: JSONEncoder = ServerMessage.defaultEncoder, eventDataJSON: String? = nil)
        throws -> String
    {
        let text = try encodedText(encoder: encoder, eventDataJSON: eventDataJSON)
        guard text.hasPrefix("{"), text.utf8.count > 2 else { return text }
        return "{\"machine\":" + label + "," + text.dropFirst()
    }
}

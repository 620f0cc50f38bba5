import BridgeProtocol

/// What the desks still hold open for a client that subscribes late (or reconnects without a resume), built
/// without the hub: the hub sends these after the thread's pending approvals.
extension HubDesks {
    /// The open questions and held messages of `threadId` (`*`: all), then each line's order and texts as last
    /// announced (a reorder or an edit is not in the held messages themselves).
    func pendingExtras(on threadId: String) -> [ServerMessage] {
        var messages = questions.open(on: threadId).map(ServerMessage.inputRequest)
        for entry in queue.all where threadId == "*" || entry.threadId == threadId {
            messages.append(.messageQueued(entry.announcement))
        }
        for (id, changed) in queue.changes.sorted(by: { $0.key < $1.key }) where threadId == "*" || id == threadId {
            messages.append(.queueChanged(changed))
        }
        return messages
    }
}

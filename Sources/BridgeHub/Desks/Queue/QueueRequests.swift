import BridgeProtocol

/// The queue desk's own requests on a thread's waiting line (``MessageQueue``): `cancelQueued` takes a message
/// back (`messageUnqueued` `cancelled`), `reorderQueued` and `editQueued` change the line; each is kept on disk
/// (``QueueKeeper``) and announced as the whole line (`queueChanged`). `sendMessage {mode: "queue"}` fills it
/// (ThreadHub+Queue).
struct QueueRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.onHub(.cancelQueued) { (hub, cancel: CancelQueued, _) in
            guard hub.desks.queue.cancel(cancel.queuedId, on: cancel.threadId) != nil else {
                throw MessageQueue.notWaiting(cancel.queuedId, on: cancel.threadId)
            }
            hub.unqueued(cancel.threadId, cancel.queuedId, reason: .cancelled)
            return .accepted(Accepted(threadId: cancel.threadId, queuedId: cancel.queuedId))
        }
        routes.onHub(.reorderQueued) { (hub, reorder: ReorderQueued, _) in
            do {
                try hub.desks.queue.reorder(reorder.ids, on: reorder.threadId)
            } catch {
                let waiting = hub.desks.queue.entries(of: reorder.threadId).map { String($0.queuedId.prefix(64)) }
                throw HubError(
                    .conflict,
                    "ids must name every message waiting on thread \(reorder.threadId) once; waiting now: [\(waiting.joined(separator: ", "))]"
                )
            }
            hub.lineChanged(of: reorder.threadId)
            return .accepted(Accepted(threadId: reorder.threadId))
        }
        routes.onHub(.editQueued) { (hub, edit: EditQueued, _) in
            guard !edit.text.allSatisfy(\.isWhitespace) else { throw HubError(.badRequest, "text must not be empty") }
            guard hub.desks.queue.edit(edit.queuedId, on: edit.threadId, text: edit.text) != nil else {
                throw MessageQueue.notWaiting(edit.queuedId, on: edit.threadId)
            }
            hub.lineChanged(of: edit.threadId)
            return .accepted(Accepted(threadId: edit.threadId, queuedId: edit.queuedId))
        }
    }
}

extension MessageQueue {
    /// `not_found` for a message that does not wait on `threadId` (any more).
    static func notWaiting(_ queuedId: String, on threadId: String) -> HubError {
        HubError(.notFound, "no queued message \(queuedId.prefix(64)) on thread \(threadId) (started, cancelled or unknown)")
    }
}

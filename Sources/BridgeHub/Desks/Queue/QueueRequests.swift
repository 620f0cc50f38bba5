import BridgeProtocol

/// The queue desk's own requests on a thread's waiting line (``MessageQueue``): `cancelQueued` takes a message
/// back (`messageUnqueued` `cancelled`), `reorderQueued` and `editQueued` change the line; each is kept on disk
/// (``QueueKeeper``) and announced as the whole line (`queueChanged`). `sendMessage {mode: "queue"}` fills it
/// (ThreadHub+Queue).
struct QueueRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        // Each is one step of the hub's port: the line is checked and changed, kept and announced together, so a
        // message the queue starts meanwhile is either still waiting (and changed) or gone (`not_found`).
        routes.on(.cancelQueued) { (services, cancel: CancelQueued, _) in
            try await services.hub.cancelQueued(cancel.queuedId, on: cancel.threadId)
            return .accepted(Accepted(threadId: cancel.threadId, queuedId: cancel.queuedId))
        }
        routes.on(.reorderQueued) { (services, reorder: ReorderQueued, _) in
            try await services.hub.reorderQueued(reorder.ids, on: reorder.threadId)
            return .accepted(Accepted(threadId: reorder.threadId))
        }
        routes.on(.editQueued) { (services, edit: EditQueued, _) in
            guard !edit.text.allSatisfy(\.isWhitespace) else { throw HubError(.badRequest, "text must not be empty") }
            try await services.hub.editQueued(edit.queuedId, on: edit.threadId, text: edit.text)
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

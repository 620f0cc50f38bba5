import BridgeStore
import Logging

/// The queue's copy on disk (``QueuedMessageStore``), kept beside the ``MessageQueue`` it mirrors: a failure to
/// write is logged and never the request's, since memory still holds the message and the line is announced.
struct QueueKeeper: Sendable {
    let store: QueuedMessageStore
    let logger: Logger

    /// Writes a held message.
    func keep(_ entry: MessageQueue.Entry) {
        do {
            try store.save(entry.stored)
        } catch {
            logger.error("Cannot keep a queued message on disk", metadata: ["bridge.queue.id": "\(entry.queuedId)", "error": "\(error)"])
        }
    }

    /// Writes the thread's line as it is now (after a reorder or an edit).
    func keepLine(of threadId: String, _ entries: [MessageQueue.Entry]) {
        do {
            try store.replaceLine(of: threadId, with: entries.map(\.stored))
        } catch {
            logger.error("Cannot keep the queue's new order on disk", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    /// Forgets a message that started, was cancelled or failed.
    func forget(_ queuedId: String) {
        do {
            try store.remove(queuedId)
        } catch {
            logger.error("Cannot forget a queued message on disk", metadata: ["bridge.queue.id": "\(queuedId)", "error": "\(error)"])
        }
    }
}

import BridgePreview
import NIOCore

extension PreviewAccess {
    /// Counts `channel` as one of the session's connections until it closes (closed when the session ends).
    /// `.added` for a connection new to the session (its first request, or its upgrade): the caller checks the
    /// dev server's process then.
    func track(_ channel: any Channel, session: String) -> Tracking {
        let id = ObjectIdentifier(channel)
        let tracking = track(id, session: session, close: { channel.close(promise: nil) })
        if tracking == .added {
            // Once per connection (not per request on a kept-alive one).
            channel.closeFuture.whenComplete { [weak self] _ in self?.untrack(id, session: session) }
        }
        return tracking
    }
}

import BridgePreview
import NIOCore

extension PreviewAccess {
    /// Counts `channel` as one of the session's connections until it closes (closed when the session ends);
    /// false when the session has ended meanwhile.
    func track(_ channel: any Channel, session: String) -> Bool {
        let id = ObjectIdentifier(channel)
        switch track(id, session: session, close: { channel.close(promise: nil) }) {
        case .ended:
            return false
        case .already:
            return true
        case .added:
            // Once per connection (not per request on a kept-alive one).
            channel.closeFuture.whenComplete { [weak self] _ in self?.untrack(id, session: session) }
            return true
        }
    }
}

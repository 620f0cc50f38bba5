import Synchronization

/// Holds a connection created after its closer was registered.
final class ConnectionBox: Sendable {
    private let connection = Mutex<Connection?>(nil)
    private let pendingClose = Mutex<(UInt16, String)?>(nil)

    var value: Connection? { connection.withLock { $0 } }

    /// Stores the connection, and delivers a close requested before it existed.
    func set(_ value: Connection) {
        connection.withLock { $0 = value }
        if let (code, reason) = pendingClose.withLock({ $0 }) {
            value.requestClose(code: code, reason: reason)
        }
    }
}

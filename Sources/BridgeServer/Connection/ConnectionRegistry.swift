import BridgeHub
import Foundation
import Synchronization

/// Every live connection, so that shutdown, revocation and metrics can reach them.
public final class ConnectionRegistry: Sendable {
    struct Entry: Sendable {
        var principal: Principal?
        /// When it authenticated (wall clock, to compare with a secret file's modification time).
        var authenticatedAt: Date?
        var close: @Sendable (UInt16, String) -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextId: UInt64 = 1
        var accepting = true
    }

    private let state = Mutex(State())

    public init() {}

    /// Allocates a connection id and registers the closer `makeCloser` returns for it; nil when the server is
    /// shutting down.
    func register(makeCloser: (UInt64) -> @Sendable (UInt16, String) -> Void) -> UInt64? {
        state.withLock { state in
            guard state.accepting else { return nil }
            let id = state.nextId
            state.nextId += 1
            state.entries[id] = Entry(principal: nil, authenticatedAt: nil, close: makeCloser(id))
            return id
        }
    }

    /// False once the server is shutting down.
    var isAccepting: Bool { state.withLock { $0.accepting } }

    /// Records who connection `id` authenticated as.
    func authenticated(_ id: UInt64, as principal: Principal, at date: Date = Date()) {
        state.withLock { state in
            state.entries[id]?.principal = principal
            state.entries[id]?.authenticatedAt = date
        }
    }

    /// Closes every shared-secret connection that authenticated before `date`; returns how many.
    @discardableResult
    func closeSharedSecretSessions(authenticatedBefore date: Date, code: UInt16, reason: String) -> Int {
        let closers = state.withLock { state in
            state.entries.values.filter { $0.principal == .sharedSecret && ($0.authenticatedAt ?? .distantPast) < date }.map(\.close)
        }
        closers.forEach { $0(code, reason) }
        return closers.count
    }

    func unregister(_ id: UInt64) {
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }

    /// Number of open connections.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Device ids with at least one open connection.
    var connectedDevices: Set<String> {
        state.withLock { Set($0.entries.values.compactMap { $0.principal?.deviceId }) }
    }

    /// Closes every connection of `deviceId` with `code`; returns how many.
    @discardableResult
    func close(deviceId: String, code: UInt16, reason: String) -> Int {
        let closers = state.withLock { state in
            state.entries.values.filter { $0.principal?.deviceId == deviceId }.map(\.close)
        }
        closers.forEach { $0(code, reason) }
        return closers.count
    }

    /// Stops accepting and closes every connection with `code`.
    func closeAll(code: UInt16, reason: String) {
        let closers = state.withLock { state in
            state.accepting = false
            return state.entries.values.map(\.close)
        }
        closers.forEach { $0(code, reason) }
    }
}

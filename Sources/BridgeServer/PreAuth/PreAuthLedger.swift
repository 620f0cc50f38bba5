import NIOCore
import Synchronization

/// The shared, thread-safe side of ``UnauthenticatedConnections``: each admitted connection's channel, so
/// that a shed connection can be closed from whichever event loop admitted the new one.
final class PreAuthLedger: Sendable {
    private struct State {
        var connections: UnauthenticatedConnections
        var channels: [UInt64: any Channel] = [:]
        var ids: [ObjectIdentifier: UInt64] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    init(maxTotal: Int, maxPerAddress: Int) {
        state = Mutex(State(connections: UnauthenticatedConnections(maxTotal: maxTotal, maxPerAddress: maxPerAddress)))
    }

    /// Counts `channel` as unauthenticated; closes the connections the caps shed. Returns how many were shed.
    @discardableResult
    func admit(_ channel: any Channel, address: String) -> Int {
        let shed: [any Channel] = state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            state.ids[ObjectIdentifier(channel)] = id
            state.channels[id] = channel
            return state.connections.admit(id, address: address).compactMap { shedID in
                guard let victim = state.channels.removeValue(forKey: shedID) else { return nil }
                state.ids[ObjectIdentifier(victim)] = nil
                return victim
            }
        }
        for victim in shed { victim.close(promise: nil) }
        return shed.count
    }

    /// `channel` authenticated or closed: it no longer counts and is never shed.
    func release(_ channel: any Channel) {
        state.withLock { state in
            guard let id = state.ids.removeValue(forKey: ObjectIdentifier(channel)) else { return }
            state.channels[id] = nil
            state.connections.release(id)
        }
    }

    /// How many connections are unauthenticated now.
    var count: Int { state.withLock { $0.connections.count } }
}

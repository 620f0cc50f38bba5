/// The connections that have not authenticated yet, oldest first, with the caps OpenSSH calls MaxStartups:
/// a new connection is always admitted, and when it would pass a cap the oldest connection (of its address,
/// or of all) is shed instead. A flood thus only ever evicts itself and other unauthenticated peers; an
/// authenticated client has left this set and is never shed.
///
/// A value type that returns what to shed; ``PreAuthLedger`` applies it to channels.
struct UnauthenticatedConnections: Sendable {
    let maxTotal: Int
    let maxPerAddress: Int
    /// Oldest first.
    private(set) var entries: [(id: UInt64, address: String)] = []

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = max(1, maxTotal)
        self.maxPerAddress = max(1, maxPerAddress)
    }

    /// Admits connection `id` from `address`; returns the ids to close to stay within the caps.
    mutating func admit(_ id: UInt64, address: String) -> [UInt64] {
        var shed: [UInt64] = []
        if entries.lazy.filter({ $0.address == address }).count >= maxPerAddress,
            let oldest = entries.firstIndex(where: { $0.address == address })
        {
            shed.append(entries.remove(at: oldest).id)
        }
        if entries.count >= maxTotal {
            shed.append(entries.removeFirst().id)
        }
        entries.append((id, address))
        return shed
    }

    /// Connection `id` authenticated or closed.
    mutating func release(_ id: UInt64) {
        if let index = entries.firstIndex(where: { $0.id == id }) { entries.remove(at: index) }
    }

    var count: Int { entries.count }
}

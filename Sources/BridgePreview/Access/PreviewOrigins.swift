/// Which preview origin each preview gets: one port of the preview range per preview (a thread and one of its
/// dev servers), so that two previews are two origins for the browser (storage, service workers, what a page may
/// read) whatever the phone reaches the workstation by: a bare LAN or Tailscale address has no names to tell
/// previews apart, only ports.
///
/// A preview keeps its port while the bridge runs (its pages keep their storage), and first asks for the same one
/// after a restart (its place in the range comes from a hash of the thread and port that does not change between
/// runs), so that previews rarely meet on a port. A port goes to another preview only when none is left that was
/// never given, least recently used first, and never while a ticket or session of its preview lives: a page of the
/// earlier preview may still be open in a tab, and it is the same origin as the next. The first time a browser starts a preview on a port since the bridge started, or after another preview
/// had it there, the origin's data is cleared (``starting(_:on:deviceId:)``).
///
/// A value type with the rules only (time and what is busy are given); ``PreviewAccess`` holds one behind its lock.
public struct PreviewOrigins: Sendable {
    /// A preview: a thread and one of its dev servers' port.
    public struct Key: Sendable, Hashable {
        public var threadId: String
        public var port: Int

        public init(threadId: String, port: Int) {
            self.threadId = threadId
            self.port = port
        }
    }

    /// A browser on an origin: its device (nil: the shared secret's) and the origin's port.
    private struct Visit: Sendable, Hashable {
        var deviceId: String
        var originPort: Int
    }

    /// Most browsers × origins remembered; past it they are forgotten, and their next start clears (the safe side).
    static let maxVisits = 4096

    /// The origins' ports, in the order they began listening.
    public private(set) var ports: [Int] = []
    private var holder: [Int: Key] = [:]
    private var given: [Key: Int] = [:]
    private var lastUsed: [Int: Double] = [:]
    private var visits: [Visit: Key] = [:]

    public init() {}

    /// One more origin listens on `port`.
    public mutating func listening(_ port: Int) {
        if !ports.contains(port) { ports.append(port) }
    }

    /// The origin for `key`: the one it has, else one never given, else the least recently used one that
    /// `busy` (ports with a live ticket or session) does not hold. nil when every port is busy with other previews.
    public mutating func origin(for key: Key, now: Double, busy: Set<Int>) -> Int? {
        let port: Int
        if let own = given[key] {
            port = own
        } else if let fresh = Self.preferred(key, among: ports.filter { holder[$0] == nil }) {
            port = fresh
        } else if let free = ports.filter({ !busy.contains($0) }).min(by: { lastUsed[$0, default: 0] < lastUsed[$1, default: 0] }) {
            port = free
        } else {
            return nil
        }
        if let previous = holder[port], previous != key { given[previous] = nil }
        holder[port] = key
        given[key] = port
        lastUsed[port] = now
        return port
    }

    /// A browser of `deviceId` starts `key`'s preview on `port`: whether the origin's data must be cleared first
    /// (this browser's first start there since the bridge started, another preview's last, or the shared secret,
    /// whose browsers cannot be told apart). Remembers the start.
    public mutating func starting(_ key: Key, on port: Int, deviceId: String?) -> Bool {
        guard let deviceId else { return true }
        let visit = Visit(deviceId: deviceId, originPort: port)
        let clears = visits[visit] != key
        if clears, visits[visit] == nil, visits.count >= Self.maxVisits { visits.removeAll() }
        visits[visit] = key
        return clears
    }

    /// The port of `free` a preview asks for first: the same in every run of the bridge (FNV-1a of its thread and
    /// port; Swift's `Hasher` is seeded anew in each process).
    static func preferred(_ key: Key, among free: [Int]) -> Int? {
        guard !free.isEmpty else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(key.threadId):\(key.port)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return free.sorted()[Int(hash % UInt64(free.count))]
    }

    /// The preview that has `port` now.
    public func holder(of port: Int) -> Key? { holder[port] }
}

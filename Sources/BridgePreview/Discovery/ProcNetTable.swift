/// Reads the kernel's table of TCP sockets (`/proc/net/tcp`, `/proc/net/tcp6`) and keeps the listening sockets
/// that loopback reaches: bound to 127.0.0.0/8, `::1`, `::ffff:127.x.x.x`, or every address (`0.0.0.0`, `::`).
/// Sockets bound to another address (a LAN address only) are left out: the proxy could not reach them on
/// loopback. Pure parsing: the caller reads the files.
public enum ProcNetTable {
    /// `st` of a listening socket.
    static let listenState = "0A"

    /// The listening, loopback-reachable sockets in one table's text; lines that do not parse are skipped.
    public static func listeningSockets(in text: String, ipv6: Bool) -> [ListeningSocket] {
        var sockets: [ListeningSocket] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 10, fields[3] == listenState else { continue }
            let local = fields[1].split(separator: ":")
            guard local.count == 2, let port = Int(local[1], radix: 16), (1...65535).contains(port),
                let uid = UInt32(fields[7]), let inode = UInt64(fields[9]), inode != 0,
                let bytes = addressBytes(hex: local[0]), bytes.count == (ipv6 ? 16 : 4),
                let host = connectHost(for: bytes)
            else { continue }
            sockets.append(ListeningSocket(port: port, connectHost: host, inode: inode, uid: uid))
        }
        return sockets
    }

    /// The address's bytes in network order. The kernel prints each 32-bit word of the address as the CPU holds
    /// it (`%08X`), so the bytes of each word are read back in this machine's byte order.
    static func addressBytes(hex: Substring) -> [UInt8]? {
        guard hex.count == 8 || hex.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 8)
            guard let word = UInt32(hex[index..<next], radix: 16) else { return nil }
            withUnsafeBytes(of: word) { bytes.append(contentsOf: $0) }
            index = next
        }
        return bytes
    }

    /// Where to connect to reach a socket bound to `bytes`; nil when loopback does not reach it.
    static func connectHost(for bytes: [UInt8]) -> String? {
        if bytes.count == 4 { return ipv4Host(bytes) }
        if bytes.allSatisfy({ $0 == 0 }) { return "::1" }  // ::, every address
        if bytes.dropLast().allSatisfy({ $0 == 0 }), bytes.last == 1 { return "::1" }
        // ::ffff:a.b.c.d, an IPv4 address on an IPv6 socket.
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return ipv4Host(Array(bytes.suffix(4))) }
        return nil
    }

    private static func ipv4Host(_ bytes: [UInt8]) -> String? {
        if bytes.allSatisfy({ $0 == 0 }) { return "127.0.0.1" }
        guard bytes[0] == 127 else { return nil }
        return bytes.map { String($0) }.joined(separator: ".")
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// P1's lean client (issue 36): blocking sockets, no event loop, one connection at a time. A NIO client adds its
/// own ~0.4 ms (loop wake-ups, channel setup) to every side of a comparison and pulls the ratio towards 1; this one
/// costs a connect, a few `write`/`read` calls and a scan, which ``LeanEchoServer`` measures on its own.
///
/// Every byte it sends is built before the clock starts (``LeanHandshake``), so what is timed is the sockets and the
/// server, not string building.
enum LeanClient {
    /// Connect, HTTP upgrade, the first message, and its answer (the first text message containing `needle`);
    /// then the socket is closed. Nanoseconds from before `socket()` to the answer.
    static func handshake(_ shape: LeanHandshake) throws -> UInt64 {
        let start = monotonicNanos()
        let fd = try connected(port: shape.port)
        defer { reset(fd) }
        try send(fd, shape.upgrade)
        var reader = LeanReader(fd: fd)
        let status = try reader.headers()
        guard status == 101 else { throw BenchError("lean client: upgrade answered \(status)") }
        try send(fd, shape.frame)
        try reader.message(containing: shape.needle)
        return monotonicNanos() - start
    }

    /// A bare TCP connect and one 100-byte echo: the client's own cost, against ``LeanEchoServer``.
    static func echo(port: Int) throws -> UInt64 {
        let payload = [UInt8](repeating: 0x61, count: 100)
        var back = [UInt8](repeating: 0, count: 100)
        let start = monotonicNanos()
        let fd = try connected(port: port)
        defer { reset(fd) }
        try send(fd, payload)
        var got = 0
        while got < payload.count {
            let n = back.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            guard n > 0 else { throw BenchError("lean client: echo closed after \(got) bytes") }
            got += n
        }
        return monotonicNanos() - start
    }

    /// Closes with a reset (`SO_LINGER` 0) once the figure is taken: a plain close would leave the client's port in
    /// TIME_WAIT for a minute, and P1's 30,000 handshakes (2000 × 5 sides × 3 runs) took every ephemeral port of
    /// 127.0.0.1 (28,232), so P6's connects after it failed ("no handshake within 10 s").
    static func reset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
    }

    /// A blocking TCP socket connected to 127.0.0.1:port, Nagle off and a 5-s receive timeout (a hung server
    /// fails the figure instead of the bench).
    static func connected(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("lean client: socket() errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            let code = errno
            close(fd)
            throw BenchError("lean client: connect errno \(code)")
        }
        return fd
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + sent, $0.count - sent) }
            guard n > 0 else { throw BenchError("lean client: write errno \(errno)") }
            sent += n
        }
    }
}

/// The bytes of one handshake, built once: the upgrade request, the first message as a masked client frame, and
/// what its answer contains.
struct LeanHandshake {
    let port: Int
    let upgrade: [UInt8]
    let frame: [UInt8]
    let needle: [UInt8]

    init(port: Int, headers: [(String, String)] = [], first: String, answerContains: String) {
        self.port = port
        var request = "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        upgrade = Array((request + "\r\n").utf8)
        frame = Self.maskedText(Array(first.utf8))
        needle = Array(answerContains.utf8)
    }

    /// A final text frame as a client sends it (masked; RFC 6455 §5.3). The key is fixed: it only has to exist.
    static func maskedText(_ payload: [UInt8]) -> [UInt8] {
        let key: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            precondition(payload.count <= 0xFFFF, "a first message fits in 64 KiB")
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        frame += key
        for (i, byte) in payload.enumerated() { frame.append(byte ^ key[i % 4]) }
        return frame
    }
}

/// Reads what a server answers on a blocking socket: the HTTP response head, then unmasked frames. One buffer per
/// connection, read into in place (as the echo measurement's one buffer), so that the client's own cost stays what
/// the echo row shows.
struct LeanReader {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 16384)
    private var start = 0
    private var end = 0

    init(fd: Int32) {
        self.fd = fd
    }

    private mutating func fill() throws {
        if start == end {
            start = 0
            end = 0
        }
        if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let n = buffer.withUnsafeMutableBytes { [end] in read(fd, $0.baseAddress! + end, $0.count - end) }
        guard n > 0 else { throw BenchError(n == 0 ? "lean client: server closed" : "lean client: read errno \(errno)") }
        end += n
    }

    /// Consumes the response head; returns its status code.
    mutating func headers() throws -> Int {
        let blank: [UInt8] = [13, 10, 13, 10]
        while true {
            if end - start >= 4 {
                for i in start...(end - 4) where buffer[i..<(i + 4)].elementsEqual(blank) {
                    let line = buffer[start..<i].prefix { $0 != 13 }
                    start = i + 4
                    // "HTTP/1.1 101 Switching Protocols": the code after the first space.
                    let code = line.split(separator: 0x20).dropFirst().first.map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 }
                    return code ?? 0
                }
            }
            try fill()
        }
    }

    /// Reads frames until a text or binary one whose payload contains `needle`, and returns that payload; a close
    /// frame fails.
    @discardableResult
    mutating func message(containing needle: [UInt8]) throws -> ArraySlice<UInt8> {
        while true {
            while end - start < 2 { try fill() }
            let opcode = buffer[start] & 0x0F
            var length = Int(buffer[start + 1] & 0x7F)
            var header = 2
            if length == 126 {
                while end - start < 4 { try fill() }
                length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
                header = 4
            } else if length == 127 {
                while end - start < 10 { try fill() }
                length = (0..<8).reduce(0) { $0 << 8 | Int(buffer[start + 2 + $1]) }
                header = 10
            }
            while end - start < header + length { try fill() }
            let payload = buffer[(start + header)..<(start + header + length)]
            start += header + length
            if opcode == 0x8 { throw BenchError("lean client: the server closed the WebSocket") }
            if opcode == 0x1 || opcode == 0x2 || opcode == 0x0, payload.firstRange(of: needle) != nil { return payload }
        }
    }
}

/// The trivial server the lean client's own cost is measured against: one thread, blocking `accept`, echo until
/// the client closes. One client at a time, as the lean client connects.
final class LeanEchoServer: @unchecked Sendable {
    // @unchecked: `listener` is set once in init; the thread only reads it.
    let port: Int
    private let listener: Int32

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) } }
        guard bound == 0, listen(listener, 128) == 0 else { throw BenchError("lean echo server: bind/listen errno \(errno)") }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        let fd = listener
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { raw in
                let fd = Int32(Int(bitPattern: raw))
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let conn = accept(fd, nil, nil)
                    // The listener was shut down (`stop`): the thread ends.
                    if conn < 0 { return nil }
                    var one: Int32 = 1
                    setsockopt(conn, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    while true {
                        let n = buffer.withUnsafeMutableBytes { read(conn, $0.baseAddress, $0.count) }
                        if n <= 0 { break }
                        _ = buffer.withUnsafeBytes { write(conn, $0.baseAddress, n) }
                    }
                    close(conn)
                }
            }, UnsafeMutableRawPointer(bitPattern: Int(fd)))
        guard started == 0 else { throw BenchError("lean echo server: pthread_create \(started)") }
        pthread_detach(thread)
    }

    /// Wakes the blocked `accept` with an error, which ends the thread.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

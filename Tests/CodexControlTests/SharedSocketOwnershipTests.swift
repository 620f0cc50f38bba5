import CodexControl
import Foundation
import Testing

/// `serve --shared` uses a socket only when it is this user's (issue 22, finding 6).
@Suite struct SharedSocketOwnershipTests {
    /// A listening unix socket at `path` (closed by the returned closure).
    func listen(at path: String) throws -> () -> Void {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && Glibc.listen(fd, 4) == 0)
        return { close(fd) }
    }

    /// Seen failing before the fix: the bridge connected to whatever listened at the path.
    @Test func aSocketInADirectoryOthersMayWriteIsRefused() throws {
        let directory = "/tmp/sso-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stop = try listen(at: directory + "/s.sock")
        defer { stop() }
        chmod(directory, 0o700)
        let fd = try SharedSocket.connectOwned(at: directory + "/s.sock")
        close(fd)
        chmod(directory, 0o777)
        let error = #expect(throws: CodexError.self) { try SharedSocket.connectOwned(at: directory + "/s.sock") }
        #expect("\(error.map { "\($0)" } ?? "")".contains("not writable by group or others"))
        chmod(directory, 0o700)
        // A link to a socket in a directory others may write is refused too.
        let open = "/tmp/sso-open-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: open) }
        chmod(open, 0o777)
        let stopOpen = try listen(at: open + "/t.sock")
        defer { stopOpen() }
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.sock", withDestinationPath: open + "/t.sock")
        #expect(throws: CodexError.self) { try SharedSocket.connectOwned(at: directory + "/link.sock") }
        // A plain file is not a socket.
        try "x".write(toFile: directory + "/file.sock", atomically: true, encoding: .utf8)
        #expect(throws: CodexError.self) { try SharedSocket.connectOwned(at: directory + "/file.sock") }
    }
}

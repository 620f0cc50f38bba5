import NIOCore
import Testing

@testable import BridgeServer

/// The pre-authentication guard's search for the end of the first request head, without sockets.
@Suite struct PreAuthGuardTests {
    static let head = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n\r\n".utf8)

    /// What the guard decides for `reads` in order: the index of the read in which the head ended, or nil.
    static func endsAt(_ reads: [[UInt8]]) -> Int? {
        var tail: [UInt8] = []
        for (i, read) in reads.enumerated() where PreAuthGuard.containsHeadEnd(tail: &tail, ByteBuffer(bytes: read).readableBytesView) {
            return i
        }
        return nil
    }

    /// Split at every point into two reads, and into three around the blank line: the head ends in the read that
    /// holds its last byte, never before.
    @Test func findsTheEndAcrossEverySplit() {
        let head = Self.head
        for cut in 1..<head.count {
            #expect(Self.endsAt([Array(head[..<cut]), Array(head[cut...])]) == 1, "cut at \(cut)")
        }
        for first in (head.count - 6)..<(head.count - 1) {
            for second in (first + 1)..<head.count {
                let reads = [Array(head[..<first]), Array(head[first..<second]), Array(head[second...])]
                #expect(Self.endsAt(reads) == 2, "cuts at \(first), \(second)")
            }
        }
        // One byte at a time.
        #expect(Self.endsAt(head.map { [$0] }) == head.count - 1)
    }

    @Test func aHeadWithoutItsBlankLineHasNotEnded() {
        let partial = Array("GET / HTTP/1.1\r\nHost: a\r\n\r".utf8)
        #expect(Self.endsAt([partial]) == nil)
        #expect(Self.endsAt(partial.map { [$0] }) == nil)
        #expect(Self.endsAt([Array("\r\n\n\r".utf8), Array("\n\r\r\n".utf8)]) == nil)
        #expect(Self.endsAt([Array("x\r\n".utf8), Array("\r".utf8), Array("\n".utf8)]) == 2)
    }
}

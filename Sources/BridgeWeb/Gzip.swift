import CompressNIO
import NIOCore

/// gzip through CompressNIO (zlib).
enum Gzip {
    /// `bytes` as one gzip member.
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        var compressed = try buffer.compress(with: .gzip())
        return compressed.readBytes(length: compressed.readableBytes) ?? []
    }
}

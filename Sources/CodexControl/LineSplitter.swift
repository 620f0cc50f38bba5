import Foundation

/// Splits a byte stream into newline-terminated lines without per-byte generic overhead.
///
/// swift-subprocess's `strings()` decodes one code unit at a time through unspecialized generics, which
/// dominated the relay's CPU profile; this works on whole buffers with `firstIndex(of:)`.
struct LineSplitter {
    /// The longest line accepted, in bytes.
    let maxLineLength: Int
    private var pending: [UInt8] = []

    init(maxLineLength: Int) {
        self.maxLineLength = maxLineLength
    }

    /// Appends `bytes`; returns every line it completed (without the newline; a trailing `\r` is removed).
    /// - Throws: ``CodexError`` `protocolViolation` when a line grows past `maxLineLength`.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(CodexError) -> [Data] {
        var lines: [Data] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                pending.append(contentsOf: bytes[start...])
                break
            }
            var line: Data
            if pending.isEmpty {
                line = Data(bytes[start..<newline])
            } else {
                pending.append(contentsOf: bytes[start..<newline])
                line = Data(pending)
                pending.removeAll(keepingCapacity: true)
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard line.count <= maxLineLength else {
                throw .protocolViolation("a line from codex is longer than \(maxLineLength) bytes")
            }
            if !line.isEmpty { lines.append(line) }
            start = newline + 1
        }
        guard pending.count <= maxLineLength else {
            throw .protocolViolation("a line from codex is longer than \(maxLineLength) bytes")
        }
        return lines
    }

    /// The unterminated rest, if any, when the stream ends.
    mutating func finish() -> Data? {
        defer { pending.removeAll() }
        return pending.isEmpty ? nil : Data(pending)
    }
}

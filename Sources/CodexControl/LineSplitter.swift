import Foundation

/// Splits a byte stream into newline-terminated lines without per-byte generic overhead.
///
/// swift-subprocess's `strings()` decodes one code unit at a time through unspecialized generics, which
/// dominated the relay's CPU profile; this works on whole buffers with `memchr`, and hands each line
/// to the caller in place (a copy only for a line that spans two reads).
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
        try append(bytes) { lines.append(Data($0)) }
        return lines
    }

    /// Appends `bytes` and calls `body` with every non-empty line it completed (without the newline or a
    /// trailing `\r`), valid only during the call.
    /// - Throws: ``CodexError`` `protocolViolation` when a line grows past `maxLineLength`.
    mutating func append(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) throws(CodexError) {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            guard let found = memchr(bytes.baseAddress! + start, 0x0A, bytes.endIndex - start) else {
                pending.append(contentsOf: bytes[start...])
                break
            }
            let newline = UnsafeRawPointer(found) - bytes.baseAddress!
            if pending.isEmpty {
                try emit(UnsafeRawBufferPointer(rebasing: bytes[start..<newline]), body)
            } else {
                pending.append(contentsOf: bytes[start..<newline])
                let joined = pending
                pending.removeAll(keepingCapacity: true)
                var failure: CodexError?
                joined.withUnsafeBytes { line in
                    do throws(CodexError) { try emit(line, body) } catch { failure = error }
                }
                if let failure { throw failure }
            }
            start = newline + 1
        }
        guard pending.count <= maxLineLength else {
            throw .protocolViolation("a line from codex is longer than \(maxLineLength) bytes")
        }
    }

    private func emit(_ line: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) throws(CodexError) {
        var line = line
        if line.last == UInt8(ascii: "\r") { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        guard line.count <= maxLineLength else {
            throw .protocolViolation("a line from codex is longer than \(maxLineLength) bytes")
        }
        if !line.isEmpty { body(line) }
    }

    /// The unterminated rest, if any, when the stream ends.
    mutating func finish() -> Data? {
        defer { pending.removeAll() }
        return pending.isEmpty ? nil : Data(pending)
    }
}

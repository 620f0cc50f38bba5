import Foundation
import Testing

@testable import CodexControl

@Suite struct LineSplitterTests {
    private func feed(_ splitter: inout LineSplitter, _ text: String) throws -> [String] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { try splitter.append($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func splitsWholeAndPartialLines() throws {
        var splitter = LineSplitter(maxLineLength: 1024)
        #expect(try feed(&splitter, "{\"a\":1}\n{\"b\"") == ["{\"a\":1}"])
        #expect(try feed(&splitter, ":2}\r\n\n{\"c\":3}\n") == ["{\"b\":2}", "{\"c\":3}"])
        #expect(try feed(&splitter, "tail") == [])
        #expect(splitter.finish().map { String(decoding: $0, as: UTF8.self) } == "tail")
        #expect(splitter.finish() == nil)
    }

    @Test func keepsMultibyteCharactersSplitAcrossBuffers() throws {
        var splitter = LineSplitter(maxLineLength: 1024)
        let bytes = Array("é€\n".utf8)
        var lines: [Data] = []
        for byte in bytes {
            lines += try [byte].withUnsafeBytes { try splitter.append($0) }
        }
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == ["é€"])
    }

    @Test func refusesOverlongLines() throws {
        var splitter = LineSplitter(maxLineLength: 8)
        #expect(throws: CodexError.self) { try feed(&splitter, "0123456789\n") }
        var unterminated = LineSplitter(maxLineLength: 8)
        #expect(throws: CodexError.self) { try feed(&unterminated, "0123456789") }
    }
}

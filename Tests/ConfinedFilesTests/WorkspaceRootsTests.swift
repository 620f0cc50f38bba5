import Foundation
import Testing

@testable import ConfinedFiles

@Suite struct WorkspaceRootsTests {
    /// Regression (issue 11, finding 3): `café` in NFC and in NFD are different directories on Linux, but equal
    /// as Swift strings; the sibling outside the root was accepted. Failed before paths compared as bytes.
    @Test func unicodeEquivalentSiblingIsOutside() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("roots-\(UUID().uuidString)").path
        let nfc = base + "/caf\u{E9}"
        let nfd = base + "/cafe\u{301}"
        for path in [nfc, nfd] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        #expect(Array(nfc.utf8) != Array(nfd.utf8))
        let roots = try WorkspaceRoots([nfc])
        #expect(roots.confine(nfc) != nil)
        #expect(roots.confine(nfd) == nil)
        try FileManager.default.createDirectory(atPath: nfd + "/sub", withIntermediateDirectories: true)
        #expect(roots.confine(nfd + "/sub") == nil)
    }

    @Test func prefixMustEndAtASeparator() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("roots-\(UUID().uuidString)").path
        for path in [base + "/app", base + "/app-evil"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let roots = try WorkspaceRoots([base + "/app"])
        #expect(roots.confine(base + "/app-evil") == nil)
        #expect(WorkspaceRoots.isSameOrBelow(Array("/a/b".utf8), Array("/a".utf8)))
        #expect(!WorkspaceRoots.isSameOrBelow(Array("/ab".utf8), Array("/a".utf8)))
        #expect(WorkspaceRoots.isSameOrBelow(Array("/x".utf8), Array("/".utf8)))
    }
}

import ConfinedFiles
import Foundation
import Testing

/// The open-once primitive against a real directory tree with links, FIFOs and `..`.
@Suite struct ConfinedDirectoryTests {
    let top: String
    let outside: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("confined-\(UUID().uuidString)").path
        top = base + "/work"
        outside = base + "/secret"
        try FileManager.default.createDirectory(atPath: top + "/src/deep", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try "inside\n".write(toFile: top + "/src/a.txt", atomically: true, encoding: .utf8)
        try "secret\n".write(toFile: outside + "/key.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: top + "/abs-out", withDestinationPath: outside + "/key.txt")
        try FileManager.default.createSymbolicLink(atPath: top + "/rel-out", withDestinationPath: "../secret/key.txt")
        try FileManager.default.createSymbolicLink(atPath: top + "/dir-out", withDestinationPath: "../secret")
        try FileManager.default.createSymbolicLink(atPath: top + "/in-link", withDestinationPath: "src/a.txt")
        try FileManager.default.createSymbolicLink(atPath: top + "/src-link", withDestinationPath: "src")
        #expect(mkfifo(top + "/pipe", 0o600) == 0)
    }

    @Test func readsARegularFileThroughItsDescriptor() throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        let file = try directory.file("src/a.txt")
        #expect(file.size == 7)
        #expect(try file.read(upTo: 100) == Array("inside\n".utf8))
        #expect(file.path.hasSuffix("/work/src/a.txt"))
    }

    @Test(arguments: ["abs-out", "rel-out", "dir-out/key.txt", "../secret/key.txt", "src/../../secret/key.txt"])
    func aPathOrLinkLeadingOutIsRefused(_ path: String) throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        let error = #expect(throws: ConfinedFileError.self) { try directory.file(path) }
        #expect(error?.code == .outside)
    }

    @Test func aLinkThatStaysInsideIsFollowed() throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        #expect(try directory.file("in-link").read(upTo: 100) == Array("inside\n".utf8))
        #expect(try directory.file("src-link/a.txt").size == 7)
    }

    /// Seen failing before the fix: `FileReader` opened the name with `FileHandle(forReadingAtPath:)`, which
    /// blocks forever on a FIFO with no writer.
    @Test(.timeLimit(.minutes(1))) func aFIFOIsRefusedWithoutBlocking() throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        let error = #expect(throws: ConfinedFileError.self) { try directory.file("pipe") }
        #expect(error?.code == .notRegularFile)
        #expect(try directory.kind(of: "pipe") == .other)
    }

    @Test func aDirectoryIsNotAFileAndAMissingNameIsNotFound() throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.file("src") })?.code == .notRegularFile)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.file("nope.txt") })?.code == .notFound)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.file("/etc/passwd") })?.code == .invalidPath)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.file("a\u{0}b") })?.code == .invalidPath)
    }

    @Test func entriesAreTypedWithoutFollowingLinksOut() throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        let kinds = Dictionary(uniqueKeysWithValues: try directory.entries().map { ($0.name, $0.kind) })
        #expect(kinds["src"] == .directory)
        #expect(kinds["pipe"] == .other)
        #expect(kinds["abs-out"] == .symbolicLink)
        #expect(kinds["dir-out"] == .linkToDirectory)
        #expect(kinds["src-link"] == .linkToDirectory)
        #expect(try directory.linkTarget("rel-out") == Array("../secret/key.txt".utf8))
    }

    @Test func aSubdirectoryIsConfinedToo() throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        let src = try directory.directory("src")
        #expect(src.path.hasSuffix("/work/src"))
        #expect(try src.file("a.txt").size == 7)
        #expect((#expect(throws: ConfinedFileError.self) { try src.file("../abs-out") })?.code == .outside)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.directory("dir-out") })?.code == .outside)
    }

    /// The component walk (the fallback for kernels without openat2): every link and every `..` refused.
    @Test func theComponentWalkRefusesLinksAndDotDot() throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        #expect(try directory.fileWithoutLinks("src/a.txt").size == 7)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.fileWithoutLinks("in-link") })?.code == .outside)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.fileWithoutLinks("src-link/a.txt") })?.code == .outside)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.fileWithoutLinks("src/../src/a.txt") })?.code == .outside)
        #expect((#expect(throws: ConfinedFileError.self) { try directory.fileWithoutLinks("pipe") })?.code == .notRegularFile)
    }

    /// git's small metadata files: read once by absolute path, never through a final link, never blocking.
    @Test func aSmallRegularFileByAbsolutePath() throws {
        #expect(try ConfinedDirectory.contents(ofRegularFile: top + "/src/a.txt", limit: 64) == Array("inside\n".utf8))
        #expect(try ConfinedDirectory.contents(ofRegularFile: top + "/src/a.txt", limit: 3) == nil)  // larger than asked
        #expect(try ConfinedDirectory.contents(ofRegularFile: top + "/missing", limit: 64) == nil)
        let link = #expect(throws: ConfinedFileError.self) { try ConfinedDirectory.contents(ofRegularFile: top + "/abs-out", limit: 64) }
        #expect(link?.code == .outside)
        let started = ContinuousClock.now
        let fifo = #expect(throws: ConfinedFileError.self) { try ConfinedDirectory.contents(ofRegularFile: top + "/pipe", limit: 64) }
        #expect(fifo?.code == .notRegularFile && ContinuousClock.now - started < .seconds(5))
        // A parent that is a link is refused too (`.git/info` pointing elsewhere).
        let parent = #expect(throws: ConfinedFileError.self) {
            try ConfinedDirectory.contents(ofRegularFile: top + "/src-link/a.txt", limit: 64)
        }
        #expect(parent?.code == .notDirectory)  // `O_NOFOLLOW | O_DIRECTORY` on a link
    }

    @Test func aDirectoryIsMadeOrTakenButNeverThroughALink() throws {
        let directory = try ConfinedDirectory.open(absolute: top)
        let made = try #require(try directory.makeDirectory("made", reuse: false))
        #expect(made.path == top + "/made")
        #expect(try directory.kind(of: "made") == .directory)
        #expect(try directory.makeDirectory("made", reuse: false) == nil)  // taken
        #expect(try directory.makeDirectory("made", reuse: true)?.path == top + "/made")
        for name in ["dir-out", "abs-out", "src-link", "pipe"] {
            let refused = #expect(throws: ConfinedFileError.self) { try directory.makeDirectory(name, reuse: true) }
            #expect(refused?.code == .notDirectory, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside) == ["key.txt"])
        let invalid = #expect(throws: ConfinedFileError.self) { try directory.makeDirectory("a/b", reuse: true) }
        #expect(invalid?.code == .invalidPath)
        directory.removeEmptyDirectory("made")
        directory.removeEmptyDirectory("src")  // not empty: stays
        #expect((try? directory.kind(of: "made")) == nil)
        #expect(try directory.kind(of: "src") == .directory)
    }
}

import BridgeProtocol
import CodexControl
import ConfinedFiles
import Foundation
import Testing

@testable import BridgeHub

/// `GET /files` asks the hub which file to send: the same gate as `readFile`, without its size limit.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubDownloadTests {
    func code(_ body: () async throws -> String) async -> BridgeErrorCode? {
        do {
            _ = try await body()
            return nil
        } catch let error as HubError {
            return error.code
        } catch {
            return .internal
        }
    }

    @Test func aDownloadIsConfinedLikeReadFile() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let project = harness.project
        let hub = harness.hub
        try FileManager.default.createDirectory(atPath: project + "/.git", withIntermediateDirectories: true)
        let big = Data(repeating: 0x41, count: (1 << 20) + 10)
        try big.write(to: URL(fileURLWithPath: project + "/big.log"))
        try "x".write(toFile: project + "/.git/config", atomically: true, encoding: .utf8)
        try "secret".write(toFile: harness.outside + "/secret.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: project + "/leak", withDestinationPath: harness.outside + "/secret.txt")
        try FileManager.default.createSymbolicLink(atPath: project + "/null", withDestinationPath: "/dev/null")

        // readFile refuses the large file; the download path allows it.
        let phone = await harness.session()
        #expect(await harness.request(BridgeRequest(.readFile, ReadFile(threadId: "t1", path: "big.log")), phone).errorCode == .tooLarge)
        #expect(try await hub.downloadableFile(threadId: "t1", path: "big.log").path == project + "/big.log")
        #expect(try await hub.downloadableFile(threadId: "t1", path: project + "/big.log").path == project + "/big.log")

        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: "leak").path } == .forbiddenPath)
        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: "../outside/secret.txt").path } == .forbiddenPath)
        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: harness.outside + "/secret.txt").path } == .forbiddenPath)
        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: ".git/config").path } == .forbiddenPath)
        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: "null").path } == .forbiddenPath)
        // A FIFO is refused at once (opened non-blocking, judged on its descriptor), never waited on.
        #expect(mkfifo(project + "/pipe", 0o600) == 0)
        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: "pipe").path } == .forbiddenPath)
        #expect(await harness.request(BridgeRequest(.readFile, ReadFile(threadId: "t1", path: "pipe")), phone).errorCode == .forbiddenPath)
        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: ".").path } == .forbiddenPath)
        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: "missing").path } == .forbiddenPath)
        #expect(await code { try await hub.downloadableFile(threadId: "t1", path: "").path } == .badRequest)
        #expect(await code { try await hub.downloadableFile(threadId: "", path: "big.log").path } == .badRequest)
        #expect(await code { try await hub.downloadableFile(threadId: "nope", path: "big.log").path } == .notFound)
        harness.codexKnowsThread("foreign", cwd: harness.outside)
        #expect(await code { try await hub.downloadableFile(threadId: "foreign", path: "secret.txt").path } == .forbiddenPath)
    }
}

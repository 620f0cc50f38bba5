import BridgeProtocol
import BridgeStore
import CodexControl
import ConfinedFiles
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BridgeHub
@testable import BridgeServer

/// `GET /files` in-process: the real route and bearer check; behind ``DownloadableFiles`` a stand-in that opens
/// files the way the hub does (``WorkspaceFiles``, the real confinement) in one thread's directory.
@Suite struct FileDownloadRouteTests {
    /// Thread `t1` lives in `cwd`; `offline` is a thread whose codex is gone; any other id is unknown.
    struct OneThreadFiles: DownloadableFiles {
        let roots: WorkspaceRoots
        let cwd: String

        func downloadableFile(threadId: String, path: String) async throws -> ConfinedFile {
            switch threadId {
            case "t1": return try WorkspaceFiles.openFile(path, cwd: cwd, roots: roots).file
            case "offline": throw CodexError.unavailable("codex is not running")
            default: throw HubError(.notFound, "no thread \(threadId)")
            }
        }
    }

    @Test func theAttachmentNameIsSafeForAHeader() {
        #expect(FileDownloadRoute.attachment(name: "a.txt") == #"attachment; filename="a.txt"; filename*=UTF-8''a.txt"#)
        let odd = FileDownloadRoute.attachment(name: "x\"\r\nSet-Cookie: é.txt")
        #expect(!odd.contains("\r") && !odd.contains("\n"))
        #expect(odd.hasPrefix(#"attachment; filename="x___Set-Cookie: _.txt"; filename*=UTF-8''x%22%0D%0ASet-Cookie%3A%20%C3%A9.txt"#))
    }

    @Test func aFileIsStreamedOnlyToACredentialAndOnlyFromInsideTheThread() async throws {
        let fixture = try await RouteFixture()
        let root = fixture.directory.appendingPathComponent("root").path
        let cwd = root + "/project"
        try FileManager.default.createDirectory(atPath: cwd + "/.git", withIntermediateDirectories: true)
        try Data("hello, file\n".utf8).write(to: URL(fileURLWithPath: cwd + "/notes.txt"))
        try Data("[core]\n".utf8).write(to: URL(fileURLWithPath: cwd + "/.git/config"))
        try Data("secret\n".utf8).write(to: URL(fileURLWithPath: root + "/outside.txt"))
        let resolved = try #require(WorkspaceRoots.resolve(root))
        let files = OneThreadFiles(roots: try WorkspaceRoots([resolved]), cwd: resolved + "/project")
        let app = fixture.application { $0.files = FileDownloadRoute(files: files, logger: fixture.logger) }
        let watcher = RouteFixture.bearer(fixture.watcher.deviceToken)
        try await app.test(.router) { client in
            // No credential, or a wrong one: 401 before the route runs.
            for headers: HTTPFields in [[:], RouteFixture.bearer("not-a-token")] {
                let response = try await client.execute(uri: "/files?threadId=t1&path=notes.txt", method: .get, headers: headers)
                #expect(response.status == .unauthorized && RouteFixture.code(response) == "unauthorized")
            }
            // `observe` is enough: the file, as an attachment that never runs as a page of this origin.
            let file = try await client.execute(uri: "/files?threadId=t1&path=notes.txt", method: .get, headers: watcher)
            #expect(file.status == .ok && String(buffer: file.body) == "hello, file\n")
            #expect(file.headers[.contentLength] == "12" && file.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(file.headers[.contentDisposition]?.hasPrefix(#"attachment; filename="notes.txt""#) == true)
            #expect(file.headers[.contentSecurityPolicy] == "sandbox; default-src 'none'" && file.headers[.cacheControl] == "no-store")
            let answers: [(String, HTTPResponse.Status, String)] = [
                ("/files?threadId=t1", .badRequest, "bad_request"),
                ("/files?path=notes.txt", .badRequest, "bad_request"),
                ("/files?threadId=t1&path=../outside.txt", .forbidden, "forbidden_path"),
                ("/files?threadId=t1&path=\(resolved)/outside.txt", .forbidden, "forbidden_path"),
                ("/files?threadId=t1&path=.git/config", .forbidden, "forbidden_path"),
                // As `readFile` answers: a path that names no file is refused like one outside.
                ("/files?threadId=t1&path=missing.txt", .forbidden, "forbidden_path"),
                ("/files?threadId=t2&path=notes.txt", .notFound, "not_found"),
                ("/files?threadId=offline&path=notes.txt", .serviceUnavailable, "codex_unavailable"),
            ]
            for (uri, status, code) in answers {
                let response = try await client.execute(uri: uri, method: .get, headers: watcher)
                #expect(response.status == status && RouteFixture.code(response) == code, "\(uri): \(response.status)")
                #expect(!String(buffer: response.body).contains("secret"), "\(uri)")
            }
            // Only GET is routed.
            let posted = try await client.execute(uri: "/files?threadId=t1&path=notes.txt", method: .post, headers: watcher)
            #expect(posted.status == .notFound)
        }
    }
}

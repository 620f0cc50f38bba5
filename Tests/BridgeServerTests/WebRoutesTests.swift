import BridgeWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BridgeServer

/// The web app's files in-process (issue 36 item 2): `index.html` names its scripts and styles under the
/// version's path, preloads every module, and those files are kept for good; the plain names still revalidate.
@Suite struct WebRoutesTests {
    func application(_ assets: WebAssets) -> some ApplicationProtocol {
        let router = Router(context: BridgeRequestContext.self)
        WebRoutes(assets: assets).addRoutes(to: router)
        return Application(responder: router.buildResponder())
    }

    @Test func indexNamesVersionedFilesThatAreKeptForGood() async throws {
        let assets = WebAssets.embedded
        let prefix = assets.versionPrefix
        #expect(prefix.range(of: #"^v/[0-9a-f]{12}/$"#, options: .regularExpression) != nil, "\(prefix)")
        try await application(assets).test(.router) { client in
            let index = try await client.execute(uri: "/", method: .get)
            #expect(index.headers[.cacheControl] == "no-cache")
            let html = String(buffer: index.body)
            #expect(html.contains(#"<script type="module" src="\#(prefix)app.js">"#), "\(html)")
            #expect(html.contains(#"<link rel="stylesheet" href="\#(prefix)app.css">"#))
            #expect(!html.contains("{{"), "every placeholder filled")
            // Every module the first paint runs is preloaded (one round trip, not one per import level); a screen
            // imported when it is opened is not, and neither is anything but the app's modules.
            for name in ["session.js", "threads-screen.js", "connection.js", "dom.js", "loading-screen.js"] {
                #expect(html.contains(#"<link rel="modulepreload" href="\#(prefix)\#(name)">"#), "\(name)")
            }
            for name in ["app.js", "sw.js", "trust.js", "thread-screen.js", "machines-screen.js", "diff-screen.js", "composer.js"] {
                #expect(!html.contains(#"href="\#(prefix)\#(name)""#), "\(name)")
            }
            let script = try await client.execute(uri: "/\(prefix)app.js", method: .get)
            #expect(script.status == .ok)
            #expect(script.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(String(buffer: script.body) == String(buffer: try #require(assets.asset(forPath: "/app.js")).body))
            // The plain name still works (the trust page, older pages) and is revalidated.
            #expect(try await client.execute(uri: "/app.js", method: .get).headers[.cacheControl] == "no-cache")
            // Another version's file is gone (an older page must reload), and only scripts and styles are versioned.
            #expect(try await client.execute(uri: "/v/000000000000/app.js", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/\(prefix)index.html", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/\(prefix)sw.js", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/\(prefix)..%2Fapp.js", method: .get).status == .notFound)
        }
    }

    @Test func theWorkerKnowsTheVersion() async throws {
        let assets = WebAssets.embedded
        try await application(assets).test(.router) { client in
            let worker = String(buffer: try await client.execute(uri: "/sw.js", method: .get).body)
            #expect(worker.contains("const BUILD = '\(assets.versionName)';"))
            #expect(worker.contains("const ASSETS = '\(assets.versionPrefix)';"))
        }
    }

    @Test func filesReadFromADirectoryAreNeverKeptForGood() async throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/BridgeWeb/Assets")
        let assets = WebAssets(directory: directory)
        #expect(assets.versionPrefix == "v/dev/")
        try await application(assets).test(.router) { client in
            #expect(String(buffer: try await client.execute(uri: "/", method: .get).body).contains(#"src="v/dev/app.js""#))
            let script = try await client.execute(uri: "/v/dev/app.js", method: .get)
            #expect(script.status == .ok && script.headers[.cacheControl] == "no-cache")
        }
    }

    @Test func noPathLeavesTheAssetsAndOnlyGetIsRouted() async throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/BridgeWeb/Assets")
        for assets in [WebAssets(directory: directory), WebAssets.embedded] {
            try await application(assets).test(.router) { client in
                let escapes = [
                    "/..%2F..%2F..%2FPackage.swift", "/%2E%2E%2F%2E%2E%2F%2E%2E%2FPackage.swift", "/../../../Package.swift",
                    "/v/dev/..%2F..%2F..%2FPackage.swift", "/%2Fetc%2Fpasswd", "/app.js%00.html", "/.%2E/.%2E/.%2E/Package.swift",
                ]
                for uri in escapes {
                    let response = try await client.execute(uri: uri, method: .get)
                    #expect(response.status == .notFound, "\(uri): \(response.status)")
                    #expect(
                        !String(buffer: response.body).contains("swift-tools-version") && !String(buffer: response.body).contains("root:"))
                }
                #expect(try await client.execute(uri: "/", method: .post).status == .notFound)
                #expect(try await client.execute(uri: "/app.js", method: .delete).status == .notFound)
                // A matching entity tag: 304 without a body; gzip only when asked for.
                let index = try await client.execute(uri: "/app.js", method: .get)
                let etag = try #require(index.headers[.eTag])
                let again = try await client.execute(uri: "/app.js", method: .get, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified && again.body.readableBytes == 0)
                #expect(index.headers[.contentEncoding] == nil)
            }
        }
    }
}

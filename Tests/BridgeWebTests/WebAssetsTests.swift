import Foundation
import NIOCore
import Testing

@testable import BridgeWeb

@Suite struct WebAssetsTests {
    static let assetsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/BridgeWeb/Assets")

    @Test func catalogListsEveryFileOfTheAssetsDirectory() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Self.assetsDirectory.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        #expect(WebAssets.embedded.names == onDisk)
    }

    @Test func embeddedBytesAreTheFilesBytes() throws {
        for name in WebAssets.embedded.names where !WebAppVersion.templates.contains(name) {
            let asset = try #require(WebAssets.embedded.asset(forPath: "/" + name))
            let disk = try Data(contentsOf: Self.assetsDirectory.appendingPathComponent(name))
            #expect(Data(asset.body.readableBytesView) == disk, "\(name)")
        }
    }

    @Test func theVersionFollowsEveryFile() throws {
        let files = ["a.js": WebAsset(name: "a.js", body: Array("1".utf8)), "b.css": WebAsset(name: "b.css", body: [])]
        var changed = files
        changed["a.js"] = WebAsset(name: "a.js", body: Array("2".utf8))
        #expect(WebAppVersion(of: files) == WebAppVersion(of: files))
        #expect(WebAppVersion(of: files) != WebAppVersion(of: changed))
        #expect(WebAppVersion(of: files).prefix.count == "v/".count + 12 + 1)
    }

    @Test func templatesAreFilledAndOnlyThey() throws {
        let version = WebAppVersion(of: [:])
        let page = WebAsset(name: "index.html", body: Array(#"<link href="{{assets}}a.css">{{modules}}"#.utf8))
        let filled = String(buffer: version.fill(page, preload: ["b.js"]).body)
        #expect(filled == #"<link href="\#(version.prefix)a.css"><link rel="modulepreload" href="\#(version.prefix)b.js">"#)
        let other = WebAsset(name: "a.js", body: Array("'{{assets}}'".utf8))
        #expect(String(buffer: version.fill(other, preload: ["b.js"]).body) == "'{{assets}}'")
    }

    @Test func preloadsWhatAppImportsStaticallyAndNotWhatItImportsOnDemand() {
        let files = [
            "app.js": "import { a } from './a.js';\nimport {\n  b,\n} from \"./b.js\";\nimport './side.js';\n"
                + "const later = () => import('./later.js');\n",
            "a.js": "export { c } from './c.js';\nimport { app } from './app.js';\n",
            "b.js": "import { gone } from './missing.js';\n",
            "later.js": "import { d } from './d.js';\n",
        ]
        #expect(WebAppVersion.firstPaintModules { files[$0] } == ["a.js", "b.js", "c.js", "missing.js", "side.js"])
    }

    @Test func rootIsIndex() throws {
        let asset = try #require(WebAssets.embedded.asset(forPath: "/"))
        #expect(asset.name == "index.html")
        #expect(asset.contentType == "text/html; charset=utf-8")
    }

    @Test(arguments: ["/../Package.swift", "/.hidden", "/a/b.js", "/%2e%2e", "/app.js?x", "/a b", "/é.js"])
    func refusesPathsThatAreNotPlainNames(_ path: String) {
        #expect(WebAssets(directory: Self.assetsDirectory).asset(forPath: path) == nil)
        #expect(WebAssets.embedded.asset(forPath: path) == nil)
    }

    @Test func directorySourceRereadsFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("one".utf8).write(to: dir.appendingPathComponent("x.txt"))
        let assets = WebAssets(directory: dir)
        #expect(assets.asset(forPath: "/x.txt").map { String(buffer: $0.body) } == "one")
        try Data("two".utf8).write(to: dir.appendingPathComponent("x.txt"))
        #expect(assets.asset(forPath: "/x.txt").map { String(buffer: $0.body) } == "two")
    }

    @Test func textIsGzippedWhenSmallerAndTaggedStably() throws {
        let text = [UInt8](String(repeating: "const a = 1;\n", count: 200).utf8)
        let asset = WebAsset(name: "a.js", body: text)
        let gzipped = try #require(asset.gzipped)
        #expect(gzipped.readableBytes < text.count)
        #expect(asset.etag == WebAsset(name: "b.js", body: text).etag)
        #expect(asset.etag != WebAsset(name: "a.js", body: text + [10]).etag)
        #expect(WebAsset(name: "a.png", body: text).gzipped == nil)
    }
}

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
        for name in WebAssets.embedded.names {
            let asset = try #require(WebAssets.embedded.asset(forPath: "/" + name))
            let disk = try Data(contentsOf: Self.assetsDirectory.appendingPathComponent(name))
            #expect(Data(asset.body.readableBytesView) == disk, "\(name)")
        }
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

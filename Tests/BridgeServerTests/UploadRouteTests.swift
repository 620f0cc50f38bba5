import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import BridgeServer

/// `POST /uploads` in-process: the real route, bearer check, upload store (files in a fresh directory) and
/// audit log; no hub is involved.
@Suite struct UploadRouteTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 24)

    @Test func anUploadNeedsOperateAKnownTypeAndRoom() async throws {
        let fixture = try await RouteFixture()
        let store = try UploadStore(directory: fixture.directory.appendingPathComponent("uploads"), maxBytes: 64)
        let app = fixture.application { $0.uploads = UploadRoute(store: store, auditor: fixture.auditor, logger: fixture.logger) }
        let driver = RouteFixture.bearer(fixture.driver.deviceToken)
        try await app.test(.router) { client in
            for headers: HTTPFields in [[:], RouteFixture.bearer("not-a-token")] {
                let response = try await client.execute(uri: "/uploads", method: .post, headers: headers, body: ByteBuffer(bytes: Self.png))
                #expect(response.status == .unauthorized && RouteFixture.code(response) == "unauthorized")
            }
            // A watcher may not upload (and the refusal is audited).
            let refused = try await client.execute(
                uri: "/uploads", method: .post, headers: RouteFixture.bearer(fixture.watcher.deviceToken), body: ByteBuffer(bytes: Self.png)
            )
            #expect(refused.status == .forbidden && RouteFixture.code(refused) == "forbidden")
            let stored = try await client.execute(uri: "/uploads", method: .post, headers: driver, body: ByteBuffer(bytes: Self.png))
            #expect(stored.status == .created)
            let answer = try JSONValue(parsing: Data(stored.body.readableBytesView))
            #expect(answer["mimeType"] == "image/png" && answer["size"] == .number(Double(Self.png.count)))
            #expect(answer["uploadId"]?.stringValue?.isEmpty == false)
            let text = try await client.execute(uri: "/uploads", method: .post, headers: driver, body: ByteBuffer(string: "plain text"))
            #expect(text.status == .unsupportedMediaType && RouteFixture.code(text) == "unsupported_media")
            // Larger than the store's limit: refused whether the length is declared or not.
            let big = ByteBuffer(bytes: Self.png + [UInt8](repeating: 0, count: 100))
            let declared = try await client.execute(uri: "/uploads", method: .post, headers: driver, body: big)
            #expect(declared.status == .contentTooLarge && RouteFixture.code(declared) == "too_large")
            // Only POST is routed.
            #expect(try await client.execute(uri: "/uploads", method: .get, headers: driver).status == .notFound)
        }
        let audited = try await fixture.audit.entries()
        #expect(audited.filter { $0.kind == "upload" }.map(\.outcome).sorted() == ["forbidden", "ok"])
    }
}

import BridgeProtocol
import Crypto
import Foundation
import NIOCore

/// One file of the web app, ready to serve: its bytes, a gzip copy when that is smaller, and an entity tag.
public struct WebAsset: Sendable {
    /// The file name, e.g. `app.js`.
    public let name: String
    /// The `Content-Type` to answer with.
    public let contentType: String
    /// The file's bytes.
    public let body: ByteBuffer
    /// The same bytes gzip-compressed, for text files where that saves something; nil otherwise.
    public let gzipped: ByteBuffer?
    /// A strong entity tag (quoted): the first 16 bytes of the SHA-256 of `body`, hex.
    public let etag: String

    /// Prepares `body` for serving as `name`.
    public init(name: String, body: [UInt8]) {
        self.name = name
        self.body = ByteBuffer(bytes: body)
        self.contentType = Self.contentType(of: name)
        let digest = SHA256.hash(data: body)
        self.etag = "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        if Self.isText(name), let compressed = try? Gzip.compress(body), compressed.count < body.count {
            self.gzipped = ByteBuffer(bytes: compressed)
        } else {
            self.gzipped = nil
        }
    }

    /// The media type for a file name's extension (``MediaType/of(_:)``).
    public static func contentType(of name: String) -> String { MediaType.of(name) }

    static func isText(_ name: String) -> Bool {
        ["html", "js", "mjs", "css", "json", "webmanifest", "svg", "txt"].contains((name as NSString).pathExtension.lowercased())
    }
}

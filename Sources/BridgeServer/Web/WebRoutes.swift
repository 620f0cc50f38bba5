import BridgeWeb
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /` and the web app's files, with entity tags (`If-None-Match` → 304) and gzip when the client accepts it.
/// A file at its plain name is `Cache-Control: no-cache` (a browser revalidates it on each load); the scripts and
/// styles under the version's path (`/v/<version>/app.js`, which `index.html` names) are kept for good, so a
/// repeat visit fetches nothing but `index.html` (a 304) until the app changes.
struct WebRoutes: Sendable {
    let assets: WebAssets

    /// How long a versioned file may be kept: a year, and never revalidated.
    static let immutable = "public, max-age=31536000, immutable"

    func addRoutes(to router: Router<BridgeRequestContext>) {
        router.get("/") { request, _ in self.respond(to: request, path: "/") }
        router.get("/:file") { request, context in
            self.respond(to: request, path: "/" + (context.parameters.get("file") ?? ""))
        }
        router.get("/v/:version/:file") { request, context in
            let asset = assets.asset(version: context.parameters.get("version") ?? "", file: context.parameters.get("file") ?? "")
            return self.respond(to: request, with: asset, cacheControl: assets.isImmutable ? Self.immutable : "no-cache")
        }
    }

    func respond(to request: Request, path: String) -> Response {
        respond(to: request, with: assets.asset(forPath: path), cacheControl: "no-cache")
    }

    func respond(to request: Request, with asset: WebAsset?, cacheControl: String) -> Response {
        guard let asset else {
            return Response(
                status: .notFound, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"code":"not_found","message":"no such file"}"#)))
        }
        var headers: HTTPFields = [
            .contentType: asset.contentType, .eTag: asset.etag, .cacheControl: cacheControl, .vary: "Accept-Encoding",
        ]
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag })
        {
            return Response(status: .notModified, headers: headers)
        }
        if let gzipped = asset.gzipped, Self.acceptsGzip(request.headers[.acceptEncoding]) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }

    /// Whether an `Accept-Encoding` value lists gzip with a non-zero quality.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.lowercased().split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.first == "gzip" || fields.first == "*" else { continue }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
        return false
    }
}

import BridgeWeb
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /` and the web app's files, with entity tags (`If-None-Match` → 304), `Cache-Control: no-cache` (the
/// names carry no version, so a browser revalidates each load) and gzip when the client accepts it.
struct WebRoutes: Sendable {
    let assets: WebAssets

    func addRoutes(to router: Router<BridgeRequestContext>) {
        router.get("/") { request, _ in self.respond(to: request, path: "/") }
        router.get("/:file") { request, context in
            self.respond(to: request, path: "/" + (context.parameters.get("file") ?? ""))
        }
    }

    func respond(to request: Request, path: String) -> Response {
        guard let asset = assets.asset(forPath: path) else {
            return Response(
                status: .notFound, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"code":"not_found","message":"no such file"}"#)))
        }
        var headers: HTTPFields = [.contentType: asset.contentType, .eTag: asset.etag, .cacheControl: "no-cache", .vary: "Accept-Encoding"]
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

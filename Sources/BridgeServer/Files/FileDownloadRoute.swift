import BridgeHub
import BridgeProtocol
import BridgeStore
import BridgeWeb
import CodexControl
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `GET /files?threadId=…&path=…`: a file of a thread's directory, whatever its size (streamed; `readFile` sends
/// at most 1 MiB inline), for a client with a device token or the shared secret as `Authorization: Bearer`
/// (the same check and per-address limit as `POST /uploads`). The file passes the same gate as `readFile`.
/// → 200 with the file, `Content-Type` as `readFile` reports it and `Content-Disposition: attachment`;
/// 400 `bad_request`, 401 `unauthorized`, 403 `forbidden_path`, 404 `not_found`, 503 `codex_unavailable` as
/// `{"code","message"}`.
public struct FileDownloadRoute: Sendable {
    private let hub: ThreadHub
    private let bearer: BearerCheck
    private let logger: Logger

    public init(hub: ThreadHub, sharedSecretFile: URL, devices: DeviceRegistry?, rateLimiter: AuthRateLimiter?, logger: Logger) {
        self.hub = hub
        self.bearer = BearerCheck(sharedSecret: SharedSecretSource(url: sharedSecretFile), devices: devices, rateLimiter: rateLimiter)
        self.logger = logger
    }

    public func addRoutes(to router: Router<BridgeRequestContext>) {
        router.get("/files") { request, context in
            await self.respond(to: request, context: context)
        }
    }

    func respond(to request: Request, context: BridgeRequestContext) async -> Response {
        if let refusal = await bearer.refusal(request, remoteAddress: context.remoteAddress) { return refusal }
        let query = request.uri.queryParameters
        guard let threadId = query["threadId"].map(String.init), let path = query["path"].map(String.init) else {
            return UploadRoute.json(.badRequest, code: .badRequest, "threadId and path are required query parameters")
        }
        let resolved: String
        do {
            resolved = try await hub.downloadablePath(threadId: threadId, path: path)
        } catch let error as HubError {
            let status: HTTPResponse.Status =
                switch error.code {
                case .notFound: .notFound
                case .forbiddenPath, .forbidden: .forbidden
                case .internal: .internalServerError
                default: .badRequest
                }
            return UploadRoute.json(status, code: error.code, error.message)
        } catch let error as CodexError {
            let message = ThreadHub.errorMessage(id: "", for: error)
            let status: HTTPResponse.Status =
                switch message.code {
                case .notFound: .notFound
                case .codexUnavailable: .serviceUnavailable
                default: .badGateway
                }
            return UploadRoute.json(status, code: message.code, message.message)
        } catch {
            return UploadRoute.json(.internalServerError, code: .internal, "internal error")
        }
        var info = stat()
        guard stat(resolved, &info) == 0 else { return UploadRoute.json(.notFound, code: .notFound, "\(path) is gone") }
        let body: ResponseBody
        do {
            body = try await FileIO().loadFile(path: resolved, context: context)
        } catch {
            return UploadRoute.json(.notFound, code: .notFound, "\(path) is gone")
        }
        logger.info("File downloaded", metadata: ["bridge.thread.id": "\(threadId)", "bridge.file.size": "\(info.st_size)"])
        return Response(
            status: .ok,
            headers: [
                .contentType: WebAsset.contentType(of: resolved),
                .contentLength: String(info.st_size),
                .contentDisposition: Self.attachment(name: (resolved as NSString).lastPathComponent),
                .cacheControl: "no-store",
                // The file is the repository's (untrusted): never run as a page of this origin.
                .contentSecurityPolicy: "sandbox; default-src 'none'",
                .xContentTypeOptions: "nosniff",
            ],
            body: body)
    }

    /// `attachment; filename="…"; filename*=UTF-8''…` with the name made safe for a header.
    static func attachment(name: String) -> String {
        let ascii = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7F && scalar != "\"" && scalar != "\\" ? Character(scalar) : "_"
            })
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(0x80)))
        allowed.insert(charactersIn: "-._~")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ascii
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}

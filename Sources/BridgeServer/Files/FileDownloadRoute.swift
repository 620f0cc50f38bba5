import BridgeHub
import BridgeProtocol
import BridgeStore
import BridgeWeb
import CodexControl
import ConfinedFiles
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// `GET /files?threadId=…&path=…`: a file of a thread's directory, whatever its size (streamed; `readFile` sends
/// at most 1 MiB inline), for a client with a device token or the shared secret as `Authorization: Bearer`
/// (the same check and per-address limit as `POST /uploads`; the scope `observe`). The file passes the same gate
/// as `readFile`.
/// → 200 with the file, `Content-Type` as `readFile` reports it and `Content-Disposition: attachment`;
/// 400 `bad_request`, 401 `unauthorized`, 403 `forbidden_path`, 404 `not_found`, 503 `codex_unavailable` as
/// `{"code","message"}`.
public struct FileDownloadRoute: Sendable {
    private let files: any DownloadableFiles
    private let logger: Logger

    /// - Parameter files: opens a thread's file (the hub).
    package init(files: any DownloadableFiles, logger: Logger) {
        self.files = files
        self.logger = logger
    }

    /// Adds `GET /files` to `router`, a group behind ``BearerAuthMiddleware``.
    public func addRoutes(to router: some RouterMethods<BridgeRequestContext>) {
        router.get("/files") { request, context in
            await self.respond(to: request, context: context)
        }
    }

    func respond(to request: Request, context: BridgeRequestContext) async -> Response {
        if let refusal = context.refusal(unless: .observe, for: "GET /files") { return refusal.response }
        let query = request.uri.queryParameters
        guard let threadId = query["threadId"].map(String.init), let path = query["path"].map(String.init) else {
            return BridgeHTTPError.json(.badRequest, code: .badRequest, "threadId and path are required query parameters")
        }
        let file: ConfinedFile
        do {
            file = try await files.downloadableFile(threadId: threadId, path: path)
        } catch let error as HubError {
            let status: HTTPResponse.Status =
                switch error.code {
                case .notFound: .notFound
                case .forbiddenPath, .forbidden: .forbidden
                case .internal: .internalServerError
                default: .badRequest
                }
            return BridgeHTTPError.json(status, code: error.code, error.message)
        } catch let error as CodexError {
            let message = RequestFailure.codexMessage(id: "", for: error)
            let status: HTTPResponse.Status =
                switch message.code {
                case .notFound: .notFound
                case .codexUnavailable: .serviceUnavailable
                default: .badGateway
                }
            return BridgeHTTPError.json(status, code: message.code, message.message)
        } catch {
            return BridgeHTTPError.json(.internalServerError, code: .internal, "internal error")
        }
        let name = file.path.isEmpty ? path : file.path
        let body = Self.body(of: file)
        logger.info("File downloaded", metadata: ["bridge.thread.id": "\(threadId)", "bridge.file.size": "\(file.size)"])
        return Response(
            status: .ok,
            headers: [
                .contentType: MediaType.of(name),
                .contentLength: String(file.size),
                .contentDisposition: Self.attachment(name: (name as NSString).lastPathComponent),
                .cacheControl: "no-store",
                // The file is the repository's (untrusted): never run as a page of this origin.
                .contentSecurityPolicy: "sandbox; default-src 'none'",
                .xContentTypeOptions: "nosniff",
            ],
            body: body)
    }

    /// The file's bytes from its descriptor (the one the gate's check opened; never reopened by name), read in
    /// NIO's thread pool, exactly the size it had when opened (a file that shrinks meanwhile ends the body
    /// early and the client sees a short download).
    static func body(of file: ConfinedFile) -> ResponseBody {
        ResponseBody(contentLength: file.size) { writer in
            let io = NonBlockingFileIO(threadPool: .singleton)
            let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: dup(file.descriptor))
            defer { try? handle.close() }
            var offset = 0
            while offset < file.size {
                let chunk = try await io.read(
                    fileHandle: handle, fromOffset: Int64(offset), byteCount: min(chunkSize, file.size - offset),
                    allocator: ByteBufferAllocator())
                guard chunk.readableBytes > 0 else { break }
                offset += chunk.readableBytes
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        }
    }

    /// Bytes read per step of a download.
    static let chunkSize = 128 * 1024

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

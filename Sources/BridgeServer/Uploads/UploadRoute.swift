import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `POST /uploads`: an image or audio clip for a later `startThread`/`sendMessage` (`attachments`), from a client
/// with a device token holding `operate` or the shared secret as `Authorization: Bearer` (checked by
/// ``BearerAuthMiddleware``; 403 `forbidden` without the scope). The body is the file itself; its type is read from
/// its bytes. Audited. → 201
/// `{"uploadId","mimeType","size"}`; 413 `too_large`, 415 `unsupported_media`, 400 `bad_request` as
/// `{"code","message"}`.
public struct UploadRoute: Sendable {
    private let store: UploadStore
    private let auditor: Auditor?
    private let logger: Logger

    /// - Parameter audit: where uploads (and refused ones) are recorded.
    public init(store: UploadStore, auditor: Auditor? = nil, logger: Logger) {
        self.store = store
        self.auditor = auditor
        self.logger = logger
    }

    /// Adds `POST /uploads` to `router`, a group behind ``BearerAuthMiddleware``.
    public func addRoutes(to router: some RouterMethods<BridgeRequestContext>) {
        router.post("/uploads") { request, context in
            await self.respond(to: request, context: context)
        }
    }

    func respond(to request: Request, context: BridgeRequestContext) async -> Response {
        if let refusal = context.refusal(unless: .operate, for: "POST /uploads") {
            await record(context, outcome: "forbidden", detail: "needs operate")
            return refusal.response
        }
        // The place is held before the body is read (a body without Content-Length may use the largest size),
        // so concurrent uploads cannot pass the limits together.
        let declared = request.headers[.contentLength].flatMap(Int.init)
        let reservation: UploadStore.Reservation
        do {
            reservation = try store.reserve(bytes: declared ?? store.maxBytes)
        } catch {
            return Self.refusal(error)
        }
        var body = ByteBuffer()
        do {
            for try await var chunk in request.body {
                guard body.readableBytes + chunk.readableBytes <= reservation.bytes else {
                    return BridgeHTTPError.json(.contentTooLarge, code: .tooLarge, "the upload is larger than \(reservation.bytes) bytes")
                }
                body.writeBuffer(&chunk)
            }
        } catch {
            return BridgeHTTPError.json(.badRequest, code: .badRequest, "the upload did not arrive whole")
        }
        do {
            let upload = try store.store(Data(body.readableBytesView), reservation: reservation)
            await record(context, outcome: "ok", detail: "\(upload.uploadId) \(upload.mimeType) \(upload.size) bytes")
            logger.info(
                "Upload stored",
                metadata: [
                    "bridge.upload.id": "\(upload.uploadId)", "bridge.upload.type": "\(upload.mimeType)",
                    "bridge.upload.size": "\(upload.size)",
                ])
            let answer: JSONValue = [
                "uploadId": .string(upload.uploadId), "mimeType": .string(upload.mimeType), "size": .number(Double(upload.size)),
            ]
            return Response(
                status: .created, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: answer.jsonText)))
        } catch {
            return Self.refusal(error)
        }
    }

    private func record(_ context: BridgeRequestContext, outcome: String, detail: String) async {
        let deviceId = context.principal?.deviceId
        await auditor?.record(
            actor: deviceId == nil ? .sharedSecret : .device, deviceId: deviceId, address: context.remoteAddress, kind: "upload",
            outcome: outcome, detail: detail)
    }

    /// The answer for a refused upload.
    static func refusal(_ error: UploadStore.Refusal) -> Response {
        let status: HTTPResponse.Status =
            switch error.code {
            case .tooLarge: .contentTooLarge
            case .unsupportedMedia: .unsupportedMediaType
            case .rateLimited: .tooManyRequests
            case .internal: .internalServerError
            default: .badRequest
            }
        return BridgeHTTPError.json(status, code: error.code, error.message)
    }
}

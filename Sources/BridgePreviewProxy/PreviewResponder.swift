import AsyncHTTPClient
import BridgePreview
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Answers every plain HTTP request on the preview origin: the ticket exchange at ``openPath``, and, for a
/// browser holding a live session's cookie, the dev server's answer, streamed both ways. Without a session
/// nothing reaches any dev server.
struct PreviewResponder: HTTPResponder {
    typealias Context = PreviewRequestContext

    let access: PreviewAccess
    let client: HTTPClient
    let limits: PreviewProxy.Limits
    let secure: Bool
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.head.path ?? "/"
        if path == Previews.openPath || path.hasPrefix(Previews.openPath + "?") {
            return redeem(request)
        }
        let cookies = PreviewCookie.values(inCookieHeaders: request.headers[values: .cookie])
        guard let session = access.session(cookies: cookies), access.track(context.channel, session: session.id) else {
            return PreviewPages.noSession()
        }
        guard path.hasPrefix("/") else { return PreviewPages.page(.badRequest, title: "Bad request", text: "Malformed request target.") }
        return await proxy(request, path: path, grant: session.grant)
    }

    /// The ticket's exchange: a session and its cookie, then a redirect to the dev server's `/` (the ticket
    /// leaves the address bar at once and is never sent to the dev server).
    private func redeem(_ request: Request) -> Response {
        let ticket = request.uri.queryParameters.get("ticket") ?? ""
        switch access.redeem(ticket) {
        case .failure(let refusal):
            // Anyone may knock with a bad ticket: not worth a line above debug.
            logger.debug("Preview ticket refused", metadata: ["bridge.preview.refusal": "\(refusal)"])
            return PreviewPages.ticketRefused(expired: refusal == .expired)
        case .success(let (cookie, session)):
            logger.info(
                "Preview opened",
                metadata: [
                    "bridge.preview.session": "\(session.id)", "bridge.preview.port": "\(session.grant.port)",
                    "bridge.device.id": "\(session.grant.deviceId ?? "shared-secret")",
                ])
            let maxAge = Int(PreviewSessionBook.maxLifetime)
            return Response(
                status: .seeOther,
                headers: [
                    .location: "/", .setCookie: PreviewCookie.setCookie(cookie, maxAge: maxAge, secure: secure), .cacheControl: "no-store",
                    HTTPField.Name("Referrer-Policy")!: "no-referrer",
                ])
        }
    }

    private func proxy(_ request: Request, path: String, grant: PreviewGrant) async -> Response {
        let scheme = secure ? "https" : "http"
        let rules = ProxyHeaders(port: grant.port, previewOrigin: "\(scheme)://\(request.head.authority ?? "localhost")")
        var upstream = HTTPClientRequest(url: "http://\(grant.upstreamAuthority)\(path)")
        upstream.method = HTTPMethod(rawValue: request.method.rawValue)
        let fields = request.headers.map { (name: $0.name.rawName, value: $0.value) }
        for (name, value) in rules.request(fields) { upstream.headers.add(name: name, value: value) }
        if let length = request.headers[.contentLength].flatMap(Int.init) {
            guard length <= limits.maxRequestBodyBytes else { return PreviewPages.tooLarge() }
            if length > 0 { upstream.body = .stream(CappedBody(base: request.body, limit: length), length: .known(Int64(length))) }
        } else if request.headers[.transferEncoding] != nil {
            upstream.body = .stream(CappedBody(base: request.body, limit: limits.maxRequestBodyBytes), length: .unknown)
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(upstream, timeout: TimeAmount(limits.responseHeadTimeout), logger: logger)
        } catch is CappedBody<RequestBody>.TooLarge {
            return PreviewPages.tooLarge()
        } catch let error as HTTPClientError where error == .readTimeout || error == .deadlineExceeded {
            return PreviewPages.timedOut(port: grant.port)
        } catch {
            logger.debug("Preview upstream failed", metadata: ["bridge.preview.port": "\(grant.port)", "error": "\(error)"])
            return PreviewPages.serverGone(port: grant.port)
        }
        var headers = HTTPFields()
        for (name, value) in rules.response(response.headers.map { (name: $0.name, value: $0.value) }) {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
            headers: headers,
            body: ResponseBody(asyncSequence: CappedBody(base: response.body, limit: limits.maxResponseBodyBytes)))
    }
}

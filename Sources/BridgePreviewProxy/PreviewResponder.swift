import AsyncHTTPClient
import BridgePreview
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Answers every plain HTTP request on a preview origin (one port of the preview range, one preview's origin):
/// to a browser holding the live session of this origin, on a request of this origin's own pages, the dev
/// server's answer, streamed both ways. Without such a session nothing reaches any dev server; a request another
/// origin's page makes, or a service worker's script, is refused (``PreviewRequestCheck``); and a new connection
/// is served only while the process the preview was opened for still listens on its port.
struct PreviewResponder: HTTPResponder {
    typealias Context = PreviewRequestContext

    let previews: Previews
    let client: HTTPClient
    let limits: PreviewProxy.Limits
    let secure: Bool
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        let originPort = context.channel.localAddress?.port ?? 0
        let ownOrigin = "\(previews.scheme)://\(request.head.authority ?? "")"
        switch PreviewRequestCheck.refusal(request.headers.map { (name: $0.name.rawName, value: $0.value) }, ownOrigin: ownOrigin) {
        case .serviceWorker: return PreviewPages.noServiceWorker()
        case .otherOrigin: return PreviewPages.otherOrigin()
        case nil: break
        }
        let access = previews.access
        let cookies = PreviewCookie.values(port: originPort, inCookieHeaders: request.headers[values: .cookie])
        guard let session = access.session(cookies: cookies, originPort: originPort) else {
            return PreviewPages.noSession(originPort: originPort, secure: secure)
        }
        switch access.track(context.channel, session: session.id) {
        case .ended:
            return PreviewPages.noSession(originPort: originPort, secure: secure)
        case .added:
            // Checked once per connection: one that was refused is checked again at its next request.
            switch await previews.ownership(session.grant) {
            case .serves:
                break
            case .gone:
                access.untrack(ObjectIdentifier(context.channel), session: session.id)
                return PreviewPages.serverGone(port: session.grant.port)
            case .changed:
                access.untrack(ObjectIdentifier(context.channel), session: session.id)
                logger.notice(
                    "Preview refused: another process listens on its dev server's port",
                    metadata: ["bridge.preview.session": "\(session.id)", "bridge.preview.port": "\(session.grant.port)"])
                return PreviewPages.ownerChanged(port: session.grant.port)
            }
        case .already:
            break
        }
        let path = request.head.path ?? "/"
        guard path.hasPrefix("/") else { return PreviewPages.page(.badRequest, title: "Bad request", text: "Malformed request target.") }
        if path == Previews.startPath || path.hasPrefix(Previews.startPath + "?") { return start(session) }
        return await proxy(request, path: path, grant: session.grant, ownOrigin: ownOrigin)
    }

    /// Where the ticket's redirect lands: on to the dev server's `/`, the origin's data cleared first when this
    /// browser last saw another preview here (or never did since the bridge started).
    private func start(_ session: PreviewSessionBook.Session) -> Response {
        var headers: HTTPFields = [.location: "/", .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer"]
        if previews.access.starting(session) { headers[HTTPField.Name("Clear-Site-Data")!] = PreviewPages.clearSiteData }
        return Response(status: .seeOther, headers: headers)
    }

    private func proxy(_ request: Request, path: String, grant: PreviewGrant, ownOrigin: String) async -> Response {
        let rules = ProxyHeaders(port: grant.port, previewOrigin: ownOrigin)
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

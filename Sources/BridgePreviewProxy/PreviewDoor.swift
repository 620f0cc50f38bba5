import BridgePreview
import HTTPTypes
import Hummingbird
import Logging

/// The preview port (`--preview-port`): where a ticket is exchanged, and nothing else. A good ticket becomes a
/// session and the cookie of its preview's own origin (a cookie reaches every port of the host, so one set here
/// is sent there), then a redirect to that origin's start; the ticket leaves the address bar at once and never
/// reaches a dev server. No dev server's page is ever served on this port.
struct PreviewDoor: HTTPResponder {
    typealias Context = PreviewRequestContext

    let previews: Previews
    let secure: Bool
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.head.path ?? "/"
        guard path == Previews.openPath || path.hasPrefix(Previews.openPath + "?") else { return PreviewPages.door() }
        let ticket = request.uri.queryParameters.get("ticket") ?? ""
        switch previews.access.redeem(ticket) {
        case .failure(let refusal):
            // Anyone may knock with a bad ticket: not worth a line above debug.
            logger.debug("Preview ticket refused", metadata: ["bridge.preview.refusal": "\(refusal)"])
            return PreviewPages.ticketRefused(expired: refusal == .expired)
        case .success(let (cookie, session)):
            let origin = session.grant.originPort
            logger.info(
                "Preview opened",
                metadata: [
                    "bridge.preview.session": "\(session.id)", "bridge.preview.port": "\(session.grant.port)",
                    "bridge.preview.origin": "\(origin)", "bridge.device.id": "\(session.grant.deviceId ?? "shared-secret")",
                ])
            // The host the browser used (its origin is that host's), else the bridge's own.
            let fallback = previews.host.contains(":") ? "[\(previews.host)]" : previews.host
            let host = PreviewHost.hostname(fromAuthority: request.head.authority) ?? fallback
            return Response(
                status: .seeOther,
                headers: [
                    .location: "\(previews.scheme)://\(host):\(origin)\(Previews.startPath)",
                    .setCookie: PreviewCookie.setCookie(
                        port: origin, value: cookie, maxAge: Int(PreviewSessionBook.maxLifetime), secure: secure),
                    .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer",
                ])
        }
    }
}

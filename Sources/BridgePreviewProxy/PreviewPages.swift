import BridgePreview
import HTTPTypes
import Hummingbird
import NIOCore

/// The few pages the preview ports write themselves (everything else is the dev server's): no session, a ticket
/// refused, a request from another origin, a service worker, the dev server gone or changed. Plain HTML, no
/// script, no link to the bridge.
enum PreviewPages {
    /// No live session of this origin in the request's cookies: the preview ended for this browser (or never
    /// began), so the origin's data goes (`Clear-Site-Data`, honoured on https and loopback) and its cookie too.
    static func noSession(originPort: Int, secure: Bool) -> Response {
        var response = page(
            .forbidden, title: "Preview closed",
            text:
                "This preview is not open on this browser (it ended, or its device was revoked). Open it again from the thread in the bridge app."
        )
        response.headers[HTTPField.Name("Clear-Site-Data")!] = clearSiteData
        response.headers[.setCookie] = PreviewCookie.expired(port: originPort, secure: secure)
        return response
    }

    /// What a preview origin sends when a browser starts a preview another preview had there before.
    static let clearSiteData = "\"cache\", \"storage\""

    static func ticketRefused(expired: Bool) -> Response {
        page(
            .forbidden, title: "Preview link used",
            text: expired
                ? "This preview link has expired (links are good for two minutes). Open the preview again from the bridge app."
                : "This preview link was already used or is not valid. Open the preview again from the bridge app.")
    }

    static func door() -> Response {
        page(
            .notFound, title: "Preview port",
            text: "This port only opens previews, with a link from the bridge app. Open the preview from the thread in the bridge app.")
    }

    static func otherOrigin() -> Response {
        page(
            .forbidden, title: "Not from this preview",
            text: "A page of another origin (another preview, or another site) may not read or drive this preview.")
    }

    static func noServiceWorker() -> Response {
        page(.forbidden, title: "No service worker", text: "A preview cannot register a service worker through the bridge.")
    }

    static func ownerChanged(port: Int) -> Response {
        page(
            .conflict, title: "Dev server changed",
            text:
                "Another process listens on port \(port) now, not the dev server this preview was opened for. Open the preview again from the thread in the bridge app."
        )
    }

    static func serverGone(port: Int) -> Response {
        page(
            .badGateway, title: "Dev server not answering",
            text:
                "Nothing answers on port \(port) of the workstation any more: the dev server stopped or is restarting. Reload once it runs again (a dev server that comes back as a new process needs the preview opened again from the bridge app)."
        )
    }

    static func timedOut(port: Int) -> Response {
        page(.gatewayTimeout, title: "Dev server too slow", text: "The dev server on port \(port) did not answer in time.")
    }

    static func tooLarge() -> Response {
        page(.contentTooLarge, title: "Request too large", text: "The preview proxy does not pass on request bodies this large.")
    }

    static func page(_ status: HTTPResponse.Status, title: String, text: String) -> Response {
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            <title>\(title)</title><style>body{font:16px/1.5 system-ui,sans-serif;margin:2rem;max-width:34rem;color:#222}</style></head>\
            <body><h1>\(title)</h1><p>\(text)</p><p><small>codex-bridge preview</small></p></body></html>
            """
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

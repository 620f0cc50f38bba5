import HTTPTypes
import Hummingbird
import NIOCore

/// The few pages the preview origin writes itself (everything else is the dev server's): no session, a ticket
/// refused, the dev server gone. Plain HTML, no script, no link to the bridge.
enum PreviewPages {
    static func noSession() -> Response {
        page(
            .forbidden, title: "Preview closed",
            text:
                "This preview is not open on this browser (it ended, or its device was revoked). Open it again from the thread in the bridge app."
        )
    }

    static func ticketRefused(expired: Bool) -> Response {
        page(
            .forbidden, title: "Preview link used",
            text: expired
                ? "This preview link has expired (links are good for two minutes). Open the preview again from the bridge app."
                : "This preview link was already used or is not valid. Open the preview again from the bridge app.")
    }

    static func serverGone(port: Int) -> Response {
        page(
            .badGateway, title: "Dev server not answering",
            text:
                "Nothing answers on port \(port) of the workstation any more: the dev server stopped or is restarting. Reload once it runs again."
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

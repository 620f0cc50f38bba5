import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A `--notify-url`: an ntfy topic (ntfy's headers and `http` action buttons) or any other URL (a JSON body).
///
/// ntfy is recognised by an `ntfy:` prefix (`ntfy:https://host/topic`) or a host named `ntfy.sh` or
/// `ntfy.…`. The URL may hold a secret (an access token in `?auth=`, a user and password): only its origin is
/// ever logged.
public struct NotifyTarget: Sendable, Hashable, CustomStringConvertible {
    public enum Style: String, Sendable { case ntfy, webhook }

    public let url: URL
    public let style: Style

    public init(_ text: String) throws(PushError) {
        var rest = text
        var style = Style.webhook
        if rest.hasPrefix("ntfy:") {
            rest.removeFirst(5)
            style = .ntfy
        }
        guard let url = URL(string: rest), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host,
            !host.isEmpty
        else {
            throw PushError("bad_notify_url", "--notify-url must be an http(s) URL (ntfy: prefix for an ntfy topic)")
        }
        if host == "ntfy.sh" || host.hasPrefix("ntfy.") { style = .ntfy }
        self.url = url
        self.style = style
    }

    /// The origin only: never the path (an ntfy topic is a secret of sorts), query or credentials.
    public var description: String { "\(style.rawValue) \(VAPIDKey.origin(of: url) ?? "?")" }
}

/// Posts notices to ``NotifyTarget``s.
public struct NotifySender: Sendable {
    let client: HTTPClient
    let logger: Logger

    /// A sender with an HTTP client of its own (no redirects followed, bounded waits); ``shutdown()`` it when done.
    public init(logger: Logger) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.logger = logger
    }

    /// An approval's action: where a phone posts, and the body for each decision.
    public struct Actions: Sendable {
        public var url: String
        public var token: String
        public init(url: String, token: String) {
            self.url = url
            self.token = token
        }
    }

    /// Sends `notice` to `target`; returns whether it was accepted (2xx). One attempt: these are best effort.
    @discardableResult
    public func send(_ notice: PushNotice, to target: NotifyTarget, actions: Actions?) async -> Bool {
        var request = HTTPClientRequest(url: target.url.absoluteString)
        request.method = .POST
        if let user = target.url.user {
            let credentials = "\(user.removingPercentEncoding ?? user):\(target.url.password?.removingPercentEncoding ?? "")"
            request.headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        }
        switch target.style {
        case .ntfy:
            for (name, value) in Self.ntfyHeaders(notice, actions: actions) { request.headers.add(name: name, value: value) }
            request.body = .bytes(ByteBuffer(string: notice.body.isEmpty ? notice.title : notice.body))
        case .webhook:
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: Self.webhookBody(notice, actions: actions)))
        }
        do {
            let response = try await client.execute(request, timeout: .seconds(15))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            guard (200..<300).contains(Int(response.status.code)) else {
                logger.warning(
                    "Notification refused",
                    metadata: ["bridge.notify.target": "\(target)", "bridge.notify.status": "\(response.status.code)"])
                return false
            }
            return true
        } catch {
            logger.warning("Notification not delivered", metadata: ["bridge.notify.target": "\(target)", "error": "\(Self.clean(error))"])
            return false
        }
    }

    /// ntfy's publishing headers: Title, Priority, Tags, and `http` action buttons for an approval.
    public static func ntfyHeaders(_ notice: PushNotice, actions: Actions?) -> [(String, String)] {
        var headers: [(String, String)] = [("Title", headerText(notice.title))]
        switch notice.kind {
        case .approval:
            headers += [("Priority", "5"), ("Tags", "warning")]
        case .turnFailed:
            headers += [("Priority", "4"), ("Tags", "x")]
        case .turnCompleted:
            headers += [("Priority", "3"), ("Tags", "white_check_mark")]
        case .resolved:
            headers += [("Priority", "2"), ("Tags", "ballot_box_with_check")]
        }
        if let actions, notice.kind == .approval {
            let buttons = [("Approve", "accept"), ("Decline", "decline")].map { label, decision in
                let body = #"{"token":"\#(actions.token)","decision":"\#(decision)"}"#
                return "http, \(label), \(actions.url), method=POST, headers.Content-Type=application/json, body='\(body)', clear=true"
            }
            headers.append(("Actions", buttons.joined(separator: "; ")))
        }
        return headers
    }

    /// The generic webhook's JSON body.
    public static func webhookBody(_ notice: PushNotice, actions: Actions?) -> [UInt8] {
        struct Body: Encodable {
            var event: String
            var title: String
            var text: String
            var threadId: String
            var approvalId: String?
            var actionUrl: String?
            var actionToken: String?
        }
        let body = Body(
            event: notice.kind.rawValue, title: notice.title, text: notice.body, threadId: notice.threadId, approvalId: notice.approvalId,
            actionUrl: actions?.url, actionToken: actions?.token)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8]((try? encoder.encode(body)) ?? Data())
    }

    /// A header value: printable ASCII as is, anything else as an RFC 2047 encoded word (ntfy decodes it).
    static func headerText(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { return text }
        return "=?UTF-8?B?" + Data(text.utf8).base64EncodedString() + "?="
    }

    /// An error without the URL it may quote.
    static func clean(_ error: any Error) -> String {
        String(describing: type(of: error)) + (error is HTTPClientError ? " \(error)" : "")
    }

    /// Ends the HTTP client (after the last send).
    public func shutdown() async {
        try? await client.shutdown()
    }
}

import BridgeHub
import BridgeProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The one error type of the HTTP routes: a status, a protocol error code and a readable message, answered as
/// `{"code","message"}` (`WWW-Authenticate` on 401, `Retry-After` on 429). Routes throw it; Hummingbird turns it
/// into the response (and ``SecurityHeadersResponder`` adds the headers every answer carries).
public struct BridgeHTTPError: HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let code: BridgeErrorCode
    public let message: String
    /// With `forbidden` for a scope the credential lacks: that scope (in the body as `scope`).
    public var scope: Scope?

    public init(_ status: HTTPResponse.Status, _ code: BridgeErrorCode, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// 403 `forbidden` for a scope the credential lacks.
    static func forbidden(_ refusal: ScopeGate.Refusal) -> BridgeHTTPError {
        var error = BridgeHTTPError(.forbidden, .forbidden, refusal.message)
        error.scope = refusal.scope
        return error
    }

    /// No valid credential.
    static let unauthorized = BridgeHTTPError(
        .unauthorized, .unauthorized, "a device token or the shared secret is required (Authorization: Bearer)")
    /// Too many failed credential checks from this address.
    static let rateLimited = BridgeHTTPError(.tooManyRequests, .rateLimited, "too many failed authentications from this address")

    public func response(from request: Request, context: some RequestContext) throws -> Response { response }

    /// The answer for this error.
    var response: Response { Self.json(status, code: code, message, scope: scope, extra: extraHeaders) }

    private var extraHeaders: HTTPFields {
        switch status {
        case .unauthorized: [.wwwAuthenticate: #"Bearer realm="codex-bridge""#]
        case .tooManyRequests: [.retryAfter: "60"]
        default: [:]
        }
    }

    /// `{"code","message"}` (and `scope`) with `status`.
    static func json(
        _ status: HTTPResponse.Status, code: BridgeErrorCode, _ message: String, scope: Scope? = nil, extra: HTTPFields = [:]
    ) -> Response {
        var fields: [String: JSONValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let scope { fields["scope"] = .string(scope.rawValue) }
        let body = JSONValue.object(fields)
        var headers: HTTPFields = [.contentType: "application/json"]
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body.jsonText)))
    }
}

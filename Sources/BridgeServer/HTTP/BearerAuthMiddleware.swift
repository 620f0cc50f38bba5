import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird

/// Who a credential on an HTTP request belongs to.
public enum HTTPPrincipal: Sendable, Hashable {
    /// The pre-shared secret.
    case sharedSecret
    /// A paired device (its id).
    case device(String)

    /// The device id, nil for the shared secret.
    public var deviceId: String? {
        if case .device(let id) = self { id } else { nil }
    }
}

extension CredentialCheck {
    /// The principal of an HTTP request's `Authorization` header and its scopes, or the error to answer (401, or
    /// 429 once the address is limited; a failure from `remoteAddress` is counted).
    func authenticate(_ header: String?, remoteAddress: String) async throws(BridgeHTTPError) -> (principal: HTTPPrincipal, scopes: Scopes)
    {
        switch await check(.authorization(header), remoteAddress: remoteAddress) {
        case .granted(let grant):
            let principal: HTTPPrincipal = grant.principal.deviceId.map(HTTPPrincipal.device) ?? .sharedSecret
            return (principal, grant.effectiveScopes)
        case .refused(let rateLimited):
            throw rateLimited ? .rateLimited : .unauthorized
        case .pending:
            throw .unauthorized  // a header never redeems a pairing code
        }
    }
}

/// Puts the ``CredentialCheck`` in front of a group of routes (`/metrics`, `/uploads`, `/files`): a request
/// without a valid credential never reaches them; one with it carries its ``HTTPPrincipal`` and its scopes in the
/// context, and each route asks for the scope it needs (``BridgeRequestContext/refusal(unless:for:)``).
public struct BearerAuthMiddleware: RouterMiddleware {
    public typealias Context = BridgeRequestContext
    let authenticator: CredentialCheck

    public init(_ authenticator: CredentialCheck) {
        self.authenticator = authenticator
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        (context.principal, context.scopes) = try await authenticator.authenticate(
            request.headers[.authorization], remoteAddress: context.remoteAddress)
        return try await next(request, context)
    }
}

extension HTTPPrincipal {
    /// The same principal as a WebSocket session's.
    var sessionPrincipal: Principal {
        switch self {
        case .sharedSecret: .sharedSecret
        case .device(let id): .device(id: id)
        }
    }
}

extension BridgeRequestContext {
    /// nil when the request's credential holds `scope`, else the error to answer: 403 `forbidden` naming the scope
    /// (``ScopeGate``).
    func refusal(unless scope: Scope, for what: String) -> BridgeHTTPError? {
        guard let principal else { return .unauthorized }
        return ScopeGate.check(scope, scopes: scopes, principal: principal.sessionPrincipal, what: what).map(BridgeHTTPError.forbidden)
    }
}

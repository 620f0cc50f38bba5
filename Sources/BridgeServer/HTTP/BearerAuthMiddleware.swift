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

/// The one check of `Authorization: Bearer` for HTTP routes: a device token or the shared secret (compared in
/// constant time; never a pairing code). A valid credential always passes; a failure counts towards the
/// per-address limit of failed authentications, and a limited address is answered 429.
public struct BearerAuthenticator: Sendable {
    let sharedSecret: SharedSecretSource
    let devices: DeviceRegistry?
    let rateLimiter: AuthRateLimiter?

    public init(sharedSecretFile: URL, devices: DeviceRegistry?, rateLimiter: AuthRateLimiter?) {
        self.sharedSecret = SharedSecretSource(url: sharedSecretFile)
        self.devices = devices
        self.rateLimiter = rateLimiter
    }

    /// Whose credential `header` (an `Authorization` value) is, and what it may do (every scope for the shared
    /// secret, the device's own for a device token), or nil.
    func grant(_ header: String?) async -> (principal: HTTPPrincipal, scopes: Scopes)? {
        guard let header, let token = BridgeServer.bearerToken(header) else { return nil }
        if sharedSecret.matches(token) { return (.sharedSecret, .all) }
        guard let devices, !Authenticator.isPairingCode(token) else { return nil }
        return (try? await devices.authenticate(deviceToken: token, address: nil)).map { (.device($0.id), $0.scopes) }
    }

    /// Whose credential `header` (an `Authorization` value) is, or nil.
    func principal(_ header: String?) async -> HTTPPrincipal? {
        await grant(header)?.principal
    }

    /// The principal of `header` and its scopes, or the error to answer (a failure from `remoteAddress` is counted).
    func authenticate(_ header: String?, remoteAddress: String) async throws(BridgeHTTPError) -> (principal: HTTPPrincipal, scopes: Scopes)
    {
        if let grant = await grant(header) { return grant }
        let limited = rateLimiter?.isLimited(remoteAddress) ?? false
        rateLimiter?.recordFailure(remoteAddress)
        throw limited ? .rateLimited : .unauthorized
    }
}

/// Puts ``BearerAuthenticator`` in front of a group of routes (`/metrics`, `/uploads`, `/files`): a request
/// without a valid credential never reaches them; one with it carries its ``HTTPPrincipal`` and its scopes in the
/// context, and each route asks for the scope it needs (``BridgeRequestContext/refusal(unless:for:)``).
public struct BearerAuthMiddleware: RouterMiddleware {
    public typealias Context = BridgeRequestContext
    let authenticator: BearerAuthenticator

    public init(_ authenticator: BearerAuthenticator) {
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

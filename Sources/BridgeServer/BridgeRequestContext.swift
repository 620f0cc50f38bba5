import BridgeProtocol
import Hummingbird
import NIOCore

/// The context of a plain HTTP request (`/healthz`, `/metrics`, the web app): Hummingbird's core context plus
/// the peer's address (failed token checks are counted per address) and, on authenticated routes, who is asking.
public struct BridgeRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address ("unknown" when the channel has none).
    public let remoteAddress: String
    /// Whose credential the request carried, once ``BearerAuthMiddleware`` checked it (nil on public routes).
    public var principal: HTTPPrincipal?
    /// What that credential may do (none on public routes).
    public var scopes: Scopes = .none

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}

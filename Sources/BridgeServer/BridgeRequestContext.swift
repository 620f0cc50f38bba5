import Hummingbird
import NIOCore

/// The context of a plain HTTP request (`/healthz`, `/metrics`, the web app): Hummingbird's core context plus
/// the peer's address, which `/metrics` needs to count failed token checks per address.
public struct BridgeRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address ("unknown" when the channel has none).
    public let remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}

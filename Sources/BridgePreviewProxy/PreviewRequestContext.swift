import Hummingbird
import NIOCore

/// The context of one request on the preview origin: Hummingbird's core context and the connection it came on
/// (a session's connections are closed when the session ends).
struct PreviewRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}

import BridgePreview
import BridgeProtocol

/// `listPreviews` and `openPreview`: a thread's dev servers, opened on the bridge's preview origin
/// (``Previews``, BridgePreview), in the directory the gate admitted.
struct PreviewRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.listPreviews) { (hub, ref: ThreadRef, context) in
            .previews(try await Self.previews(hub).list(threadId: ref.threadId, directory: context.directory))
        }
        routes.on(.openPreview) { (hub, open: OpenPreview, context) in
            .preview(try await Self.previews(hub).open(open, directory: context.directory, deviceId: context.session.principal.deviceId))
        }
    }

    private static func previews(_ hub: isolated ThreadHub) throws -> Previews {
        guard let previews = hub.previews else { throw HubError(.notFound, "this bridge serves no previews") }
        return previews
    }
}

import BridgePreview
import BridgeProtocol

/// `listPreviews` and `openPreview`: a thread's dev servers, opened on the bridge's preview origin
/// (``Previews``, BridgePreview), in the directory the gate admitted.
struct PreviewRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.listPreviews) { (services, ref: ThreadRef, context) in
            .previews(try await Self.previews(services).list(threadId: ref.threadId, directory: context.directory))
        }
        routes.on(.openPreview) { (services, open: OpenPreview, context) in
            .preview(
                try await Self.previews(services).open(open, directory: context.directory, deviceId: context.session.principal.deviceId))
        }
    }

    private static func previews(_ services: HubServices) throws -> Previews {
        guard let previews = services.previews else { throw HubError(.notFound, "this bridge serves no previews") }
        return previews
    }
}

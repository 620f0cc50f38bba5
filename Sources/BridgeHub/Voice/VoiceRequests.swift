import BridgeProtocol

/// `listVoices`, `startVoice`, `stopVoice` (BRIDGE.md, Voice): Codex's realtime voice for a phone, beside the hub
/// (``VoiceService``; the hub's state through its port).
struct VoiceRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.listVoices) { (services, _: ListVoices, _) in
            .voices(try await services.voice.voices())
        }
        routes.on(.startVoice) { (services, request: StartVoice, context) in
            .voiceStarted(try await services.voice.start(request, session: context.session, policy: context.policy, services: services))
        }
        routes.on(.stopVoice) { (services, ref: ThreadRef, _) in
            await services.voice.stop(ref.threadId, hub: services.hub)
            return .accepted(Accepted(threadId: ref.threadId))
        }
    }
}

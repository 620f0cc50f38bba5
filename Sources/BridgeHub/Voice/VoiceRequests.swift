import BridgeProtocol
import CodexControl

/// `listVoices`, `startVoice`, `stopVoice` (BRIDGE.md, Voice): Codex's realtime voice for a phone.
struct VoiceRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.onHub(.listVoices) { (hub, _: ListVoices, _) in
            try await hub.checkVoiceReady()
            let result = try await hub.codex.request("thread/realtime/listVoices", params: .object([:]), timeout: hub.policy.codexTimeout)
            return .voices(VoiceReadiness.voices(result))
        }
        routes.onHub(.startVoice) { (hub, request: StartVoice, context) in
            .voiceStarted(try await hub.startVoice(request, session: context.session, policy: context.policy))
        }
        routes.onHub(.stopVoice) { (hub, ref: ThreadRef, _) in
            await hub.stopVoice(ref.threadId)
            return .accepted(Accepted(threadId: ref.threadId))
        }
    }
}

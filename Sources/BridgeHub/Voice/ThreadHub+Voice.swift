import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Logging

/// Voice (issue 47): the thread's realtime session at Codex (`thread/realtime/*`), started and stopped for a phone,
/// and every realtime notification handled here, in one place (``voiceNotification(method:params:)``).
extension ThreadHub {
    /// How long `startVoice` waits for Codex's answer (the SDP answer, or the model connected).
    static let voiceStartTimeout: Duration = .seconds(30)
    /// Longest transcript part journaled, in characters (longer is cut).
    static let maxVoiceTranscript = 8000
    /// Most transcript parts `readThread` lists.
    static let maxVoiceParts = 200

    /// The realtime notifications, none journaled as they are: Codex's answers to a start go to its waiter, the
    /// finished transcript parts become `bridge/voiceTranscript` events, the end of a session a `bridge/voice` one;
    /// the audio and the streamed deltas are live only. True when `method` was one of them.
    func voiceNotification(method: String, params: JSONValue) -> Bool {
        if method == "account/updated" || method == "account/login/completed" { voice.ready = nil }
        guard method.hasPrefix("thread/realtime/") else { return false }
        guard let threadId = params["threadId"]?.stringValue else { return true }
        switch method {
        case "thread/realtime/sdp":
            if let sdp = params["sdp"]?.stringValue { voice.resolve(threadId, .sdp(sdp)) }
        case "thread/realtime/started":
            guard let session = voice.sessions[threadId] else { break }
            voice.acceptedByCodex.insert(threadId)
            if session.transport == .websocket { voice.resolve(threadId, .started) }
        case "thread/realtime/error":
            let message = Self.voiceMessage(params["message"]) ?? "realtime error"
            voice.resolve(threadId, .failed(message))
            endVoice(threadId, reason: .error, message: message, stopCodex: true)
        case "thread/realtime/closed":
            // The end of the thread's previous session, told after the new start was sent: not this start's.
            if voice.sessions[threadId]?.phase == .starting, !voice.acceptedByCodex.contains(threadId) { break }
            let reason = Self.voiceMessage(params["reason"])
            voice.resolve(threadId, .failed(reason ?? "the realtime session closed"))
            endVoice(threadId, reason: .closed, message: reason, stopCodex: false)
        case "thread/realtime/transcript/done":
            guard let role = params["role"]?.stringValue, role == "user" || role == "assistant",
                let text = params["text"]?.stringValue, !text.isEmpty
            else { break }
            let data: JSONValue = [
                "threadId": .string(threadId), "role": .string(role), "text": .string(String(text.prefix(Self.maxVoiceTranscript))),
            ]
            publishEvent(VoiceEvent.transcript, data: data, threadId: threadId)
        case "thread/realtime/outputAudio/delta":
            voiceAudioOut(threadId: threadId, params: params)
        default:
            break  // raw items, item started/completed, transcript deltas: live on the phone's own channel, or Codex's
        }
        return true
    }

    /// `startVoice`: the checks (BRIDGE.md order), then Codex's `thread/realtime/start`, then its answer.
    func startVoice(_ request: StartVoice, session: ClientSession, policy turnPolicy: TurnPolicy) async throws -> VoiceStarted {
        let voiceName = try Self.voiceName(request.voice)
        let offer = try Self.voiceOffer(request.sdp)
        try await ensureLoaded(request.threadId, policy: turnPolicy)
        // Asked at once (P14: what the bridge adds to a start is the slower, not the sum); the refusals still come in
        // BRIDGE.md's order.
        async let turns = codex.request(
            "thread/turns/list", params: ["threadId": .string(request.threadId), "limit": 1, "itemsView": "notLoaded"],
            timeout: policy.codexTimeout)
        try await checkVoiceReady()
        if let refusal = VoiceReadiness.refusal(turns: try await turns, threadId: request.threadId) { throw refusal }

        let threadId = request.threadId
        let transport: VoiceTransport = offer == nil ? .websocket : .webrtc
        let admitted: VoiceSessions.Session
        switch voice.sessions.admit(threadId: threadId, owner: session.id, transport: transport, deviceId: session.principal.deviceId) {
        case .conflict:
            throw HubError(.conflict, "another connection's voice session runs on thread \(threadId); stopVoice it first")
        case .admitted(let new, let replacing):
            admitted = new
            if let replacing, replacing.phase == .running { announceVoiceEnd(replacing, reason: .stopped, message: "replaced") }
        }
        voice.acceptedByCodex.remove(threadId)
        let outcomes = voice.wait(threadId, attempt: admitted.attempt)
        defer { voice.forget(threadId, attempt: admitted.attempt) }
        // The thread's last stop reaches Codex first (it would end this session otherwise).
        await voice.stopping.removeValue(forKey: threadId)?.value

        var params: [String: JSONValue] = ["threadId": .string(threadId), "outputModality": "audio"]
        params["transport"] = offer.map { ["type": "webrtc", "sdp": .string($0)] } ?? ["type": "websocket"]
        if let voiceName { params["voice"] = .string(voiceName) }
        do {
            _ = try await codex.request("thread/realtime/start", params: .object(params), timeout: policy.codexTimeout)
        } catch {
            _ = voice.sessions.end(threadId, attempt: admitted.attempt)
            throw error
        }
        let outcome = await Self.first(of: outcomes, within: Self.voiceStartTimeout)
        switch outcome {
        case .sdp(let answer) where transport == .webrtc:
            return try voiceStarted(threadId, attempt: admitted.attempt, transport: transport, sdp: answer)
        case .started where transport == .websocket:
            var started = try voiceStarted(threadId, attempt: admitted.attempt, transport: transport, sdp: nil)
            started.streamId = openVoiceAudio(threadId: threadId, attempt: admitted.attempt, session: session)
            return started
        case .failed(let message):
            endVoice(threadId, attempt: admitted.attempt, reason: .error, message: message, stopCodex: true)
            throw HubError(.codexError, message)
        default:
            endVoice(threadId, attempt: admitted.attempt, reason: .error, message: nil, stopCodex: true)
            throw HubError(.codexError, "Codex did not answer the voice session within \(Self.voiceStartTimeout.components.seconds) s")
        }
    }

    /// Codex answered the start: it runs now, and every subscriber of the thread is told.
    private func voiceStarted(_ threadId: String, attempt: UInt64, transport: VoiceTransport, sdp: String?) throws -> VoiceStarted {
        guard let session = voice.sessions.started(threadId, attempt: attempt) else {
            throw HubError(.conflict, "the voice session on thread \(threadId) ended before Codex answered")
        }
        var data: [String: JSONValue] = ["threadId": .string(threadId), "state": "started", "transport": .string(transport.rawValue)]
        if let deviceId = session.deviceId { data["deviceId"] = .string(deviceId) }
        publishEvent(VoiceEvent.state, data: .object(data), threadId: threadId)
        logger.info(
            "Voice session started", metadata: ["bridge.thread.id": "\(threadId)", "bridge.voice.transport": "\(transport.rawValue)"])
        return VoiceStarted(threadId: threadId, transport: transport, sdp: sdp)
    }

    /// `stopVoice`: ends the thread's session, if any, here and at Codex; returns once Codex answered the stop.
    func stopVoice(_ threadId: String) async {
        endVoice(threadId, reason: .stopped, message: nil, stopCodex: true)
        await voice.stopping[threadId]?.value
    }

    /// A connection closed: the sessions it started end, at Codex too (nothing stays open).
    func voiceSessionClosed(_ session: ClientSession) {
        for ended in voice.sessions.endAll(ownedBy: session.id) {
            voice.resolve(ended.threadId, .failed("the phone's connection closed"))
            finishVoice(ended, reason: .disconnected, message: nil, stopCodex: true)
        }
    }

    /// Codex stopped: every session with it.
    func voiceCodexStopped() {
        for ended in voice.sessions.endAll() {
            voice.resolve(ended.threadId, .failed("Codex stopped"))
            finishVoice(ended, reason: .codexStopped, message: nil, stopCodex: false)
        }
    }

    /// Ends the thread's session (only `attempt`'s, when given); nothing when it already ended.
    private func endVoice(_ threadId: String, attempt: UInt64? = nil, reason: VoiceDesk.EndReason, message: String?, stopCodex: Bool) {
        guard let ended = voice.sessions.end(threadId, attempt: attempt) else { return }
        finishVoice(ended, reason: reason, message: message, stopCodex: stopCodex)
    }

    func finishVoice(_ ended: VoiceSessions.Session, reason: VoiceDesk.EndReason, message: String?, stopCodex: Bool) {
        if ended.phase == .running { announceVoiceEnd(ended, reason: reason, message: message) }
        logger.info(
            "Voice session ended", metadata: ["bridge.thread.id": "\(ended.threadId)", "bridge.voice.reason": "\(reason.rawValue)"])
        voice.acceptedByCodex.remove(ended.threadId)
        closeVoiceAudio(threadId: ended.threadId, attempt: ended.attempt)
        guard stopCodex else { return }
        let codex = self.codex
        let timeout = policy.codexTimeout
        let logger = self.logger
        let threadId = ended.threadId
        // A task the next start on the thread awaits (VoiceDesk.stopping), not a background job: it must be over
        // before that start is sent, whoever sends it. Bounded by the Codex timeout.
        voice.stopping[threadId] = Task {
            do {
                _ = try await codex.request("thread/realtime/stop", params: ["threadId": .string(threadId)], timeout: timeout)
            } catch {
                logger.debug("Codex did not stop a voice session", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            }
        }
    }

    private func announceVoiceEnd(_ ended: VoiceSessions.Session, reason: VoiceDesk.EndReason, message: String?) {
        var data: [String: JSONValue] = ["threadId": .string(ended.threadId), "state": "ended", "reason": .string(reason.rawValue)]
        if let message { data["message"] = .string(message) }
        publishEvent(VoiceEvent.state, data: .object(data), threadId: ended.threadId)
    }

    /// Codex can hold a voice session: signed in with ChatGPT on OpenAI's provider, the feature on.
    /// A pass counts for ``VoiceDesk/readyFor`` in the same Codex generation, until `account/updated`.
    func checkVoiceReady() async throws {
        if let ready = voice.ready, ready.generation == generation, ContinuousClock.now - ready.at < VoiceDesk.readyFor { return }
        let checked = generation
        async let account = codex.request("account/read", params: .object([:]), timeout: policy.codexTimeout)
        async let features = codex.request("experimentalFeature/list", params: .object([:]), timeout: policy.codexTimeout)
        if let refusal = VoiceReadiness.refusal(account: try await account) { throw refusal }
        if let refusal = VoiceReadiness.refusal(features: try await features) { throw refusal }
        voice.ready = (checked, .now)
    }

    /// `readThread`'s `voice`: the thread's transcript parts from the journal (nil when none, or unreadable).
    static func voiceParts(of threadId: String, journal: EventJournal, logger: Logger) async -> [VoiceTranscriptPart]? {
        do {
            let frames = try await journal.voiceFrames(of: threadId, limit: Self.maxVoiceParts)
            let parts = frames.compactMap { text -> VoiceTranscriptPart? in
                guard let frame = try? JSONValue(parsing: Data(text.utf8)), let seq = frame["seq"]?.numberValue,
                    let role = frame["data"]?["role"]?.stringValue, let said = frame["data"]?["text"]?.stringValue
                else { return nil }
                return VoiceTranscriptPart(seq: Int64(seq), role: role, text: said)
            }
            return parts.isEmpty ? nil : parts
        } catch {
            logger.warning("Cannot read a thread's voice transcript", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            return nil
        }
    }

    /// `voice`, checked: nil, or a voice name (`bad_request` otherwise).
    static func voiceName(_ voice: String?) throws -> String? {
        guard let voice else { return nil }
        guard VoiceList.isVoiceName(voice) else {
            throw HubError(.badRequest, "voice must be one of listVoices' names (1–\(VoiceList.maxNameBytes) of a-z, 0-9, _ and -)")
        }
        return voice
    }

    /// `sdp`, checked: nil, or an SDP offer (`v=0…`, at most ``StartVoice/maxSDPBytes``).
    static func voiceOffer(_ sdp: String?) throws -> String? {
        guard let sdp else { return nil }
        guard sdp.utf8.count <= StartVoice.maxSDPBytes else { throw HubError(.tooLarge, "sdp is over \(StartVoice.maxSDPBytes) bytes") }
        guard sdp.hasPrefix("v=0") else { throw HubError(.badRequest, "sdp must be a WebRTC session description (v=0…)") }
        return sdp
    }

    /// A message or reason from Codex, bounded for an event.
    static func voiceMessage(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else { return nil }
        return String(text.prefix(500))
    }

    /// The first outcome, or nil when none came within `limit` (or the stream ended).
    static func first(of outcomes: AsyncStream<VoiceDesk.Outcome>, within limit: Duration) async -> VoiceDesk.Outcome? {
        await withTaskGroup(of: VoiceDesk.Outcome?.self) { group in
            group.addTask {
                for await outcome in outcomes { return outcome }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

/// The bridge's voice events (BRIDGE.md, Voice events).
enum VoiceEvent {
    /// `bridge/voice {threadId, state, transport?, deviceId?, reason?, message?}`.
    static let state = "bridge/voice"
    /// `bridge/voiceTranscript {threadId, role, text}`.
    static let transcript = "bridge/voiceTranscript"
}

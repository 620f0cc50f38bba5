import BridgeProtocol
import CodexControl
import Foundation
import Logging
import Synchronization

/// Voice (issue 47): the threads' realtime sessions at Codex (`thread/realtime/*`), started and stopped for a phone,
/// beside the hub with its own state (``VoiceDesk``, behind a lock).
///
/// The hub hands it, in its actor step, every realtime notification (``notification(_:params:)``, in the order
/// of Codex's event stream), a connection's close and Codex's stop; each returns the events to publish, which the
/// hub numbers and journals in that same step, so a transcript keeps its place among the thread's other events. The
/// request handlers (``VoiceRequests``) start and stop sessions here and publish through the hub's port, one step
/// each: a session's `started` goes out before its `ended` (``VoiceDesk/announcesEnd(of:reason:message:)``).
final class VoiceService: Sendable {
    /// A `bridge/voice` or `bridge/voiceTranscript` event to publish on `threadId`.
    struct Event: Sendable {
        let type: String
        let data: JSONValue
        let threadId: String
    }

    /// How long `startVoice` waits for Codex's answer (the SDP answer, or the model connected).
    static let startTimeout: Duration = .seconds(30)
    /// Longest transcript part journaled, in characters (longer is cut).
    static let maxTranscript = 8000

    private let state = Mutex(VoiceDesk())
    let codex: any CodexPort
    let codexTimeout: Duration
    let logger: Logger
    /// Where a websocket session's audio pumps run (the hub's, owned by its `run()`).
    let jobs: BackgroundJobs

    init(codex: any CodexPort, codexTimeout: Duration, jobs: BackgroundJobs, logger: Logger) {
        self.codex = codex
        self.codexTimeout = codexTimeout
        self.jobs = jobs
        self.logger = logger
    }

    // MARK: What the hub hands over (in its actor step; the events it returns are published in that step)

    /// A notification the hub's descriptor table gives voice (the realtime kinds; the account's changes, which make
    /// the readiness checks run again). None is published as it is: Codex's answers to a start go to its waiter,
    /// the finished transcript parts become `bridge/voiceTranscript` events, a session's end a `bridge/voice` one,
    /// the model's audio goes to its stream; the streamed deltas and raw items stay with Codex.
    func notification(_ kind: CodexNotification.Kind?, params: JSONValue) -> [Event] {
        state.withLock { desk in
            if kind == .accountUpdated || kind == .accountLoginCompleted { desk.newEpoch() }
            guard let kind, let threadId = params["threadId"]?.stringValue else { return [] }
            switch kind {
            case .threadRealtimeSdp:
                if let sdp = params["sdp"]?.stringValue { desk.resolve(threadId, .sdp(sdp)) }
            case .threadRealtimeStarted:
                guard let session = desk.sessions[threadId] else { break }
                desk.acceptedByCodex.insert(threadId)
                if session.transport == .websocket { desk.resolve(threadId, .started) }
            case .threadRealtimeError:
                let message = Self.message(params["message"]) ?? "realtime error"
                desk.resolve(threadId, .failed(message))
                return end(threadId, reason: .error, message: message, stopCodex: true, &desk)
            case .threadRealtimeClosed:
                // The end of the thread's previous session, told after the new start was sent: not this start's.
                if desk.sessions[threadId]?.phase == .starting, !desk.acceptedByCodex.contains(threadId) { break }
                let reason = Self.message(params["reason"])
                desk.resolve(threadId, .failed(reason ?? "the realtime session closed"))
                return end(threadId, reason: .closed, message: reason, stopCodex: false, &desk)
            case .threadRealtimeTranscriptDone:
                guard let role = params["role"]?.stringValue, role == "user" || role == "assistant",
                    let text = params["text"]?.stringValue, !text.isEmpty
                else { break }
                let data: JSONValue = [
                    "threadId": .string(threadId), "role": .string(role), "text": .string(String(text.prefix(Self.maxTranscript))),
                ]
                return [Event(type: VoiceEvent.transcript, data: data, threadId: threadId)]
            case .threadRealtimeOutputAudioDelta:
                Self.audioOut(params, to: desk.audio[threadId])
            default:
                break  // raw items, item started/completed, transcript deltas: live on the phone's own channel, or Codex's
            }
            return []
        }
    }

    /// A connection closed: the sessions it started end, at Codex too (nothing stays open).
    func connectionClosed(_ sessionId: UInt64) -> [Event] {
        state.withLock { desk in
            var events: [Event] = []
            for ended in desk.sessions.endAll(ownedBy: sessionId) {
                desk.resolve(ended.threadId, .failed("the phone's connection closed"))
                events += finish(ended, reason: .disconnected, message: nil, stopCodex: true, &desk)
            }
            return events
        }
    }

    /// Codex stopped: every session with it, and the readiness it passed.
    func codexStopped() -> [Event] {
        state.withLock { desk in
            desk.newEpoch()
            var events: [Event] = []
            for ended in desk.sessions.endAll() {
                desk.resolve(ended.threadId, .failed("Codex stopped"))
                events += finish(ended, reason: .codexStopped, message: nil, stopCodex: false, &desk)
            }
            return events
        }
    }

    // MARK: The requests (beside the hub)

    /// `listVoices`: Codex's voices, once the readiness checks pass.
    func voices() async throws -> VoiceList {
        try await checkReady()
        return VoiceReadiness.voices(try await codex.request("thread/realtime/listVoices", params: .object([:]), timeout: codexTimeout))
    }

    /// `startVoice`: the checks (BRIDGE.md order), then Codex's `thread/realtime/start`, then its answer.
    func start(_ request: StartVoice, session: ClientSession, policy turnPolicy: TurnPolicy, services: HubServices) async throws
        -> VoiceStarted
    {
        let hub = services.hub
        let voiceName = try Self.voiceName(request.voice)
        let offer = try Self.offer(request.sdp)
        let threadId = request.threadId
        try await services.ensureLoaded(threadId, policy: turnPolicy)
        // Asked at once (P14: what the bridge adds to a start is the slower, not the sum); the refusals still come in
        // BRIDGE.md's order.
        async let turns = codex.request(
            "thread/turns/list", params: ["threadId": .string(threadId), "limit": 1, "itemsView": "notLoaded"], timeout: codexTimeout)
        try await checkReady()
        if let refusal = VoiceReadiness.refusal(turns: try await turns, threadId: threadId) { throw refusal }

        let transport: VoiceTransport = offer == nil ? .websocket : .webrtc
        let admission = state.withLock { desk -> Admitted? in
            let decision = desk.sessions.admit(
                threadId: threadId, owner: session.id, transport: transport, deviceId: session.principal.deviceId)
            guard case .admitted(let new, let replacing) = decision else { return nil }
            // The same connection's earlier session on the thread: Codex's new start replaces it there.
            let replaced = replacing.map { finish($0, reason: .stopped, message: "replaced", stopCodex: false, &desk) } ?? []
            desk.acceptedByCodex.remove(threadId)
            return Admitted(
                attempt: new.attempt, replaced: replaced, outcomes: desk.wait(threadId, attempt: new.attempt),
                stopping: desk.stopping.removeValue(forKey: threadId))
        }
        guard let admission else {
            throw HubError(.conflict, "another connection's voice session runs on thread \(threadId); stopVoice it first")
        }
        let attempt = admission.attempt
        defer { state.withLock { $0.forget(threadId, attempt: attempt) } }
        await publish(admission.replaced, hub)
        // The thread's last stop reaches Codex first (it would end this session otherwise).
        await admission.stopping?.value

        var params: [String: JSONValue] = ["threadId": .string(threadId), "outputModality": "audio"]
        params["transport"] = offer.map { ["type": "webrtc", "sdp": .string($0)] } ?? ["type": "websocket"]
        if let voiceName { params["voice"] = .string(voiceName) }
        do {
            _ = try await codex.request("thread/realtime/start", params: .object(params), timeout: codexTimeout)
        } catch {
            state.withLock { _ = $0.sessions.end(threadId, attempt: attempt) }
            throw error
        }
        switch await Self.first(of: admission.outcomes, within: Self.startTimeout) {
        case .sdp(let answer) where transport == .webrtc:
            return try await started(threadId, attempt: attempt, transport: transport, sdp: answer, audioFor: nil, hub: hub)
        case .started where transport == .websocket:
            return try await started(threadId, attempt: attempt, transport: transport, sdp: nil, audioFor: session, hub: hub)
        case .failed(let message):
            await publish(state.withLock { end(threadId, attempt: attempt, reason: .error, message: message, stopCodex: true, &$0) }, hub)
            throw HubError(.codexError, message)
        default:
            await publish(state.withLock { end(threadId, attempt: attempt, reason: .error, message: nil, stopCodex: true, &$0) }, hub)
            throw HubError(.codexError, "Codex did not answer the voice session within \(Self.startTimeout.components.seconds) s")
        }
    }

    /// `stopVoice`: ends the thread's session (only `attempt`'s, when given), if any, here and at Codex; returns once
    /// Codex answered the stop.
    func stop(_ threadId: String, attempt: UInt64? = nil, hub: any HubPort) async {
        let (events, stopping) = state.withLock { desk in
            (end(threadId, attempt: attempt, reason: .stopped, message: nil, stopCodex: true, &desk), desk.stopping[threadId])
        }
        await publish(events, hub)
        await stopping?.value
    }

    /// Codex can hold a voice session: signed in with ChatGPT on OpenAI's provider, the feature on. A pass counts
    /// for ``VoiceDesk/readyFor`` in the same epoch (until `account/updated` or Codex's stop).
    func checkReady() async throws {
        let epoch = state.withLock { desk -> Int? in
            if let ready = desk.ready, ready.epoch == desk.epoch, ContinuousClock.now - ready.at < VoiceDesk.readyFor { return nil }
            return desk.epoch
        }
        guard let epoch else { return }
        async let account = codex.request("account/read", params: .object([:]), timeout: codexTimeout)
        async let features = codex.request("experimentalFeature/list", params: .object([:]), timeout: codexTimeout)
        if let refusal = VoiceReadiness.refusal(account: try await account) { throw refusal }
        if let refusal = VoiceReadiness.refusal(features: try await features) { throw refusal }
        state.withLock { desk in
            if desk.epoch == epoch { desk.ready = (epoch, .now) }
        }
    }

    // MARK: Steps

    /// What a start holds once admitted.
    private struct Admitted: Sendable {
        let attempt: UInt64
        /// The events of the session it replaced, if any.
        let replaced: [Event]
        let outcomes: AsyncStream<VoiceDesk.Outcome>
        /// The thread's last stop, on its way to Codex.
        let stopping: Task<Void, Never>?
    }

    /// Codex answered the start: it runs now (its audio on the phone's live stream, for `audioFor`'s websocket
    /// session), and every subscriber of the thread is told; an end that came meanwhile is told after.
    private func started(
        _ threadId: String, attempt: UInt64, transport: VoiceTransport, sdp: String?, audioFor session: ClientSession?, hub: any HubPort
    ) async throws -> VoiceStarted {
        let opened = state.withLock { desk -> (deviceId: String?, streamId: UInt32?)? in
            guard let running = desk.announcing(threadId, attempt: attempt) else { return nil }
            let streamId = session.flatMap { openAudio(threadId, attempt: attempt, session: $0, hub: hub, &desk) }
            return (running.deviceId, streamId)
        }
        guard let opened else { throw HubError(.conflict, "the voice session on thread \(threadId) ended before Codex answered") }
        var data: [String: JSONValue] = ["threadId": .string(threadId), "state": "started", "transport": .string(transport.rawValue)]
        if let deviceId = opened.deviceId { data["deviceId"] = .string(deviceId) }
        await hub.publishEvent(VoiceEvent.state, data: .object(data), threadId: threadId, turnId: nil, dataJSON: nil)
        logger.info(
            "Voice session started", metadata: ["bridge.thread.id": "\(threadId)", "bridge.voice.transport": "\(transport.rawValue)"])
        let late = state.withLock { $0.announced(attempt) }
        if let late { await publish([Self.ended(threadId, reason: late.reason, message: late.message)], hub) }
        return VoiceStarted(threadId: threadId, transport: transport, sdp: sdp, streamId: opened.streamId)
    }

    /// Ends the thread's session (only `attempt`'s, when given); nothing when it already ended.
    private func end(
        _ threadId: String, attempt: UInt64? = nil, reason: VoiceDesk.EndReason, message: String?, stopCodex: Bool, _ desk: inout VoiceDesk
    ) -> [Event] {
        guard let ended = desk.sessions.end(threadId, attempt: attempt) else { return [] }
        return finish(ended, reason: reason, message: message, stopCodex: stopCodex, &desk)
    }

    /// What follows a session's end: its audio closed, Codex's stop sent, and its `ended` event, when its `started`
    /// went out (or later, after it: ``VoiceDesk/announcesEnd(of:reason:message:)``).
    private func finish(
        _ ended: VoiceSessions.Session, reason: VoiceDesk.EndReason, message: String?, stopCodex: Bool, _ desk: inout VoiceDesk
    ) -> [Event] {
        logger.info(
            "Voice session ended", metadata: ["bridge.thread.id": "\(ended.threadId)", "bridge.voice.reason": "\(reason.rawValue)"])
        desk.acceptedByCodex.remove(ended.threadId)
        closeAudio(ended.threadId, attempt: ended.attempt, &desk)
        if stopCodex { desk.stopping[ended.threadId] = stopAtCodex(ended.threadId) }
        guard desk.announcesEnd(of: ended, reason: reason, message: message) else { return [] }
        return [Self.ended(ended.threadId, reason: reason, message: message)]
    }

    /// Codex's `thread/realtime/stop`, as a task the next start on the thread awaits (``VoiceDesk/stopping``), not a
    /// background job: it must be over before that start is sent, whoever sends it. Bounded by the Codex timeout.
    private func stopAtCodex(_ threadId: String) -> Task<Void, Never> {
        let codex = self.codex
        let timeout = codexTimeout
        let logger = self.logger
        return Task {
            do {
                _ = try await codex.request("thread/realtime/stop", params: ["threadId": .string(threadId)], timeout: timeout)
            } catch {
                logger.debug("Codex did not stop a voice session", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            }
        }
    }

    /// Whether `attempt`'s session on the thread has its audio still.
    func hasAudio(_ threadId: String, attempt: UInt64) -> Bool { state.withLock { $0.audio[threadId]?.attempt == attempt } }

    /// Publishes through the hub's port, one step each, in order.
    func publish(_ events: [Event], _ hub: any HubPort) async {
        for event in events {
            await hub.publishEvent(event.type, data: event.data, threadId: event.threadId, turnId: nil, dataJSON: nil)
        }
    }

    static func ended(_ threadId: String, reason: VoiceDesk.EndReason, message: String?) -> Event {
        var data: [String: JSONValue] = ["threadId": .string(threadId), "state": "ended", "reason": .string(reason.rawValue)]
        if let message { data["message"] = .string(message) }
        return Event(type: VoiceEvent.state, data: .object(data), threadId: threadId)
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
    static func offer(_ sdp: String?) throws -> String? {
        guard let sdp else { return nil }
        guard sdp.utf8.count <= StartVoice.maxSDPBytes else { throw HubError(.tooLarge, "sdp is over \(StartVoice.maxSDPBytes) bytes") }
        guard sdp.hasPrefix("v=0") else { throw HubError(.badRequest, "sdp must be a WebRTC session description (v=0…)") }
        return sdp
    }

    /// A message or reason from Codex, bounded for an event.
    static func message(_ value: JSONValue?) -> String? {
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

/// `listVoices {threadId?}` (observe) → `voices {voices, defaultVoice?}`: Codex's realtime voices
/// (`thread/realtime/listVoices`), after the same checks as `startVoice` (a ChatGPT sign-in, OpenAI's provider, the
/// feature on). `threadId` only routes the request to the machine that owns the thread (fleet sessions).
public struct ListVoices: RequestPayload {
    public var threadId: String?
    public init(threadId: String? = nil) {
        self.threadId = threadId
    }
    public var targetThreadId: String? { threadId }
}

/// The answer to `listVoices`. Codex runs a WebRTC session and one through the bridge in different realtime
/// versions (0.163: v1 and v2), each with its own voices.
public struct VoiceList: Codable, Sendable, Hashable {
    /// The names `startVoice {sdp, voice}` takes (WebRTC).
    public var voices: [String]
    /// The voice Codex uses when `startVoice {sdp}` names none.
    public var defaultVoice: String?
    /// The names `startVoice {voice}` without `sdp` takes (audio through the bridge).
    public var websocketVoices: [String]?
    /// The voice Codex uses when `startVoice` without `sdp` names none.
    public var websocketDefaultVoice: String?
    public init(voices: [String], defaultVoice: String? = nil, websocketVoices: [String]? = nil, websocketDefaultVoice: String? = nil) {
        self.voices = voices
        self.defaultVoice = defaultVoice
        self.websocketVoices = websocketVoices
        self.websocketDefaultVoice = websocketDefaultVoice
    }

    /// Most voices listed.
    public static let maxVoices = 64
    /// Longest voice name.
    public static let maxNameBytes = 32

    /// Whether `name` is a voice name the bridge passes on: 1–32 of `a-z`, `0-9`, `_`, `-`.
    public static func isVoiceName(_ name: String) -> Bool {
        (1...maxNameBytes).contains(name.utf8.count)
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D }
    }
}

/// `startVoice {threadId, voice?, sdp?}` (operate): the thread's voice session through Codex's realtime
/// (`thread/realtime/start`). With `sdp` (the phone's WebRTC offer) the audio flows between the phone and the model
/// directly; without it, over the connection's live channel.
public struct StartVoice: ThreadPayload {
    public var threadId: String
    public var voice: String?
    /// The phone's WebRTC SDP offer (`v=0…`, at most ``StartVoice/maxSDPBytes``).
    public var sdp: String?
    public init(threadId: String, voice: String? = nil, sdp: String? = nil) {
        self.threadId = threadId
        self.voice = voice
        self.sdp = sdp
    }

    /// Largest SDP offer accepted.
    public static let maxSDPBytes = 64 * 1024

    public func auditDetail(answer: BridgeResponse?) -> String? {
        sdp == nil ? "websocket" : "webrtc"
    }
}

/// How a voice session's audio travels.
public enum VoiceTransport: String, Codable, Sendable, Hashable {
    /// Phone ↔ model directly (the phone's SDP offer, the model's answer).
    case webrtc
    /// Codex ↔ model over its own connection; phone ↔ bridge over the live channel.
    case websocket
}

/// `voiceStarted {threadId, transport, sdp?}`: the answer to `startVoice`.
public struct VoiceStarted: Codable, Sendable, Hashable {
    public var threadId: String
    public var transport: VoiceTransport
    /// The model's SDP answer (WebRTC only).
    public var sdp: String?
    /// The live channel's stream of the session's audio (websocket only, on a bridge that speaks the live channel).
    public var streamId: UInt32?
    public init(threadId: String, transport: VoiceTransport, sdp: String? = nil, streamId: UInt32? = nil) {
        self.threadId = threadId
        self.transport = transport
        self.sdp = sdp
        self.streamId = streamId
    }
}

/// One finished transcript part of a thread's voice sessions, as `readThread` lists them (`voice`).
public struct VoiceTranscriptPart: Codable, Sendable, Hashable {
    /// The seq of its `bridge/voiceTranscript` event.
    public var seq: Int64
    /// `user` or `assistant`.
    public var role: String
    public var text: String
    /// The first item started on the thread after it (a client puts the part before it); nil when none did.
    public var beforeItemId: String?
    public init(seq: Int64, role: String, text: String, beforeItemId: String? = nil) {
        self.seq = seq
        self.role = role
        self.text = text
        self.beforeItemId = beforeItemId
    }
}

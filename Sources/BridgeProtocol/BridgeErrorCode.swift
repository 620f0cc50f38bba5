/// A snake_case error code carried in `error` frames and failed `helloAck`s.
///
/// A struct rather than an enum so that a client built against an older list still decodes codes added later.
public struct BridgeErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }

    /// The frame is not valid JSON, not an object, or misses or mistypes a field.
    public static let badRequest = Self("bad_request")
    /// The frame's `kind` is not one this server knows.
    public static let unknownKind = Self("unknown_kind")
    /// The frame or a field is larger than allowed.
    public static let tooLarge = Self("too_large")
    /// A live channel frame named a stream this connection was never given.
    public static let unknownStream = Self("unknown_stream")
    /// Too many failed authentications from this address, or too many requests.
    public static let rateLimited = Self("rate_limited")
    /// The token (shared secret, pairing code or device token) is wrong, used, expired or revoked.
    public static let unauthorized = Self("unauthorized")
    /// The client's protocol version is lower than the lowest this server speaks.
    public static let versionUnsupported = Self("version_unsupported")
    /// A `hello` was sent on a connection that already completed its handshake.
    public static let alreadyAuthenticated = Self("already_authenticated")
    /// The thread, approval or other object named in the request does not exist.
    public static let notFound = Self("not_found")
    /// The requested working directory lies outside every configured root.
    public static let forbiddenPath = Self("forbidden_path")
    /// The request asks for more than the bridge allows: a sandbox or approval policy its configuration does not
    /// allow, or a scope the device does not hold (`scope` names it).
    public static let forbidden = Self("forbidden")
    /// The Codex CLI is not installed or not running.
    public static let codexUnavailable = Self("codex_unavailable")
    /// In a fleet session: the request is for a linked machine the home bridge does not reach now (or one it does
    /// not know); `machine` names it. Nothing was done there.
    public static let machineUnavailable = Self("machine_unavailable")
    /// Codex answered the request with an error.
    public static let codexError = Self("codex_error")
    /// The approval was already answered, or never existed.
    public static let approvalNotPending = Self("approval_not_pending")
    /// The question (`answerInput`) was already answered, withdrawn, or never existed.
    public static let inputNotPending = Self("input_not_pending")
    /// An upload is larger than allowed or not a type the bridge accepts.
    public static let unsupportedMedia = Self("unsupported_media")
    /// The workstation denied a pairing that waited for its confirmation (`codex-bridge devices deny`).
    public static let pairingDenied = Self("pairing_denied")
    /// Nobody confirmed a pairing on the workstation in time (5 minutes).
    public static let pairingExpired = Self("pairing_expired")
    /// The request is valid but cannot be done in the thread's current state.
    public static let conflict = Self("conflict")
    /// A repository configures something the bridge will not run or honour for this request (a hook the user
    /// relies on, a filter program, a proxy or TLS setting for a push); the message names the key.
    public static let unsafeRepository = Self("unsafe_repository")
    /// A push (`gitPush` without `remote`) has nowhere to go: the repository has no remote of the name it would
    /// push to; the message says how to add one.
    public static let noRemote = Self("no_remote")
    /// An outside program the request ran (git, gh) failed; the message is its own reason in one line.
    public static let failed = Self("failed")
    /// Voice: Codex on the workstation is not signed in with ChatGPT.
    public static let voiceNoLogin = Self("voice_no_login")
    /// Voice: Codex uses an API key or another model provider instead of a ChatGPT sign-in.
    public static let voiceAPIKey = Self("voice_api_key")
    /// Voice: Codex's `realtime_conversation` feature is off.
    public static let voiceDisabled = Self("voice_disabled")
    /// Voice: the thread has had no turn yet.
    public static let voiceNoTurn = Self("voice_no_turn")
    /// Voice: a linked machine whose bridge has no voice, or audio over the live channel for a linked machine's thread.
    public static let voiceUnavailable = Self("voice_unavailable")
    /// An unexpected failure inside the bridge.
    public static let `internal` = Self("internal")
    /// A linked machine sent a frame that breaks the protocol (a member missing or of the wrong type, a number
    /// out of range, a message over the size the home bridge accepts): the home bridge closed the link
    /// (`machines[].error`), and tries again later.
    public static let badFrame = Self("bad_frame")
    /// A linked machine made the home bridge hold more than one link may (messages waiting, open approvals and
    /// questions, threads): the home bridge closed the link (`machines[].error`), and tries again later.
    public static let overBudget = Self("over_budget")
}

/// WebSocket close codes the bridge uses (RFC 6455 section 7.4).
public enum BridgeCloseCode {
    /// The server is shutting down.
    public static let goingAway: UInt16 = 1001
    /// Authentication failed, a frame came before `hello`, no `hello` in time, or the device was revoked.
    public static let policyViolation: UInt16 = 1008
    /// A message was larger than the configured limit.
    public static let messageTooBig: UInt16 = 1009
    /// The client did not read fast enough and its outbound queue filled; reconnect and resume.
    public static let tryAgainLater: UInt16 = 1013
}

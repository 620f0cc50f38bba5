/// `listCollaborationModes {}` (observe) → `collaborationModes {modes}`: Codex's collaboration-mode presets
/// (`collaborationMode/list`), the choices behind `startThread`'s and `sendMessage`'s `collaborationMode`.
public struct ListCollaborationModes: RequestPayload {
    public init() {}
}

/// The answer to `listCollaborationModes`.
public struct CollaborationModeList: Codable, Sendable, Hashable {
    public var modes: [CollaborationModePreset]
    public init(modes: [CollaborationModePreset]) { self.modes = modes }
}

/// One preset as Codex names it: the mode a message may ask for, Codex's name for it, and the model and reasoning
/// effort the preset applies (absent: the thread's own).
public struct CollaborationModePreset: Codable, Sendable, Hashable {
    public var mode: CollaborationMode
    public var name: String
    public var model: String?
    public var effort: String?
    public init(mode: CollaborationMode, name: String, model: String? = nil, effort: String? = nil) {
        self.mode = mode
        self.name = name
        self.model = model
        self.effort = effort
    }
}

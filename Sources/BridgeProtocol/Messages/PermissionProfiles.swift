/// `listPermissionProfiles {threadId?}` (observe) → `permissionProfiles {profiles}`: the permission profiles a
/// thread's settings may name (`updateThreadSettings {permissionProfile}`), as Codex lists them for the thread's
/// directory (or Codex's own defaults without a thread).
public struct ListPermissionProfiles: RequestPayload {
    /// The thread whose directory's configuration counts; absent: none.
    public var threadId: String?
    public init(threadId: String? = nil) { self.threadId = threadId }
    public var targetThreadId: String? { threadId }
}

/// The answer to `listPermissionProfiles`.
public struct PermissionProfileList: Codable, Sendable, Hashable {
    public var profiles: [PermissionProfileSummary]
    public init(profiles: [PermissionProfileSummary]) { self.profiles = profiles }
}

/// One permission profile: `allowed` when Codex's requirements and this bridge's sandbox policy both allow it.
public struct PermissionProfileSummary: Codable, Sendable, Hashable {
    /// `:read-only`, `:workspace`, `:danger-full-access`, or a profile of the user's own Codex configuration.
    public var id: String
    public var description: String?
    public var allowed: Bool
    /// The sandbox a built-in profile stands for; absent for the user's own (which the bridge cannot judge and
    /// never allows).
    public var sandbox: String?
    public init(id: String, description: String? = nil, allowed: Bool, sandbox: String? = nil) {
        self.id = id
        self.description = description
        self.allowed = allowed
        self.sandbox = sandbox
    }
}

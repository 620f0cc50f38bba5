import ConfinedFiles

/// What a request to the hub may choose, and the defaults: where threads may run, the sandboxes and approval
/// policies a request may pick (``PolicyGate`` enforces them), and how long one Codex request may take.
public struct HubPolicy: Sendable {
    /// Where threads may run.
    public var roots: WorkspaceRoots
    /// Sandbox when a request names none.
    public var defaultSandbox: String
    /// Sandboxes a request may choose.
    public var allowedSandboxes: Set<String>
    /// Approval policy when a request names none.
    public var defaultApprovalPolicy: String
    /// Approval policies a request may choose.
    public var allowedApprovalPolicies: Set<String>
    /// Timeout of one Codex request.
    public var codexTimeout: Duration

    public init(
        roots: WorkspaceRoots,
        defaultSandbox: String = "workspace-write",
        allowedSandboxes: Set<String> = ["read-only", "workspace-write"],
        defaultApprovalPolicy: String = "on-request",
        allowedApprovalPolicies: Set<String> = ["untrusted", "on-failure", "on-request", "never"],
        codexTimeout: Duration = .seconds(60)
    ) {
        self.roots = roots
        self.defaultSandbox = defaultSandbox
        self.allowedSandboxes = allowedSandboxes
        self.defaultApprovalPolicy = defaultApprovalPolicy
        self.allowedApprovalPolicies = allowedApprovalPolicies
        self.codexTimeout = codexTimeout
    }
}

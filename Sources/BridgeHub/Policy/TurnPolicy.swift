/// The sandbox and approval policy a thread's turns run with.
struct TurnPolicy: Sendable, Hashable {
    /// `read-only`, `workspace-write` or `danger-full-access`.
    var sandbox: String
    /// `untrusted`, `on-failure`, `on-request` or `never`.
    var approvalPolicy: String
}

/// What the hub keeps for one open session (its subscriptions and holds are in ``FanOut``): removing the
/// session is removing this entry.
struct SessionState {
    let session: ClientSession
    /// The memory key (device id or `client:<clientId>`), when the session has one.
    var clientKey: String?
    /// The replay asked for in its hello, run by `sessionReady` (its hold is already taken).
    var pendingReplay: Replay?
    /// Whether the approvals pending on its restored subscriptions go out once its helloAck is queued.
    var approvalsAfterAck = false
}

import BridgeProtocol

/// `subscribe`, a new thread's subscription by its maker, and a retry's, beside the hub: the hub's step adds the
/// subscription and captures its seam together (holding the session's live frames when it replays); the replay
/// reads the journal outside the hub, in the session's replay line; a last step ends the hold; the subscription
/// is then kept in the client's memory.
struct Subscriber {
    let services: HubServices

    /// Subscribes `session` to `threadId`, replaying `(afterSeq, seam]` before it returns. `madeIt`: the session
    /// just made the thread (its events from `afterSeq` on, which may precede Codex's answer, are replayed).
    func subscribe(_ session: ClientSession, to threadId: String, afterSeq: Int64?, madeIt: Bool = false) async throws
        -> SubscriptionChanged
    {
        let start = try await services.hub.beginSubscription(session, to: threadId, afterSeq: afterSeq, madeIt: madeIt)
        if let (replay, turn) = start.replay {
            await services.replays.run(replay, to: session, at: turn)
            await services.hub.endHold(session.id)
        }
        await services.remember(session, subscribedTo: threadId, true)
        return start.changed
    }

    /// A retry answered with the first answer: a retried `startThread` or `forkThread` subscribes the retrying
    /// session too, as the first attempt subscribed its own.
    func adopt(_ answer: ServerMessage, by session: ClientSession) async {
        let threadId: String
        switch answer {
        case .response(_, .threadStarted(let started)): threadId = started.threadId
        case .response(_, .threadForked(let forked)): threadId = forked.threadId
        default: return
        }
        guard await services.hub.subscribeRetrying(session, to: threadId) else { return }
        await services.remember(session, subscribedTo: threadId, true)
    }
}

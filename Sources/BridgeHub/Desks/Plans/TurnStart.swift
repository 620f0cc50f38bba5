import BridgeProtocol

/// One turn to start: what `startThread`, `sendMessage` and a queued message have in common, so that every turn
/// the bridge starts goes through ``PlanService/startTurn(_:)`` and names the thread's collaboration mode.
struct TurnStart {
    var threadId: String
    var text: String
    var policy: TurnPolicy
    var model: String?
    var effort: String?
    var extraInput: [JSONValue] = []
    /// The mode the request chose (nil: the thread's remembered one, if any).
    var collaborationMode: CollaborationMode?
}

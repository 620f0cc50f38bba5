import BridgeHub
import BridgePush

/// Where `POST /push/action` redeems a notification's single-use action token: the push coordinator, which
/// minted it. The route takes this, not the coordinator, so it is tested in-process with a real
/// `ActionTokenBook` and no Web Push.
package protocol ActionTokenRedeeming: Sendable {
    /// The approval and owner `token` was minted for, once (nil: used, expired, unknown, or `presenter` is not
    /// its device).
    func redeem(token: String, presenter: String?) async -> ActionTokenBook.Binding?
}

extension PushCoordinator: ActionTokenRedeeming {}

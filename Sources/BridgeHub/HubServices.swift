import BridgePreview
import Foundation

/// What the hub works with besides Codex and its storage, attached before `run()`: the upload store, the
/// notification coordinator, the sleep inhibitor, git and gh, the last `model/list` answer and rate-limit snapshot.
struct HubServices {
    /// Attachments (ThreadHub+Uploads); nil: none accepted.
    var uploads: UploadStore?
    /// Notifications (nil: off) and the sleep inhibitor (nil: off); see ThreadHub+Push.swift.
    var push: PushCoordinator?
    var inhibitor: SleepInhibitor?
    /// git and gh for the git requests (ThreadHub+Git).
    var gitTools = GitTools(environment: ProcessInfo.processInfo.environment)
    /// The last `model/list` answer.
    var modelCache: ModelCache?
    /// The last rate-limit snapshot relayed (`account/rateLimits/updated`).
    var rateLimits = RateLimitRelay()
    /// The dev-server previews (nil: this bridge serves none).
    var previews: Previews?
}

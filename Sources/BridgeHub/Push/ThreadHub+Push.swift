import BridgeProtocol
import BridgePush
import BridgeStore
import CodexControl
import Foundation
import Logging

/// Notifications: the hub tells the ``PushCoordinator`` what happens (approvals, their answers, turns that end,
/// who is looking), keeps the ``SleepInhibitor`` held while a turn runs, answers `pushSubscribe`,
/// `pushUnsubscribe` and `presence`, and resolves approvals answered from a notification.
extension ThreadHub {
    /// After a Codex notification was published: turn ends, names and agent messages for the notices; the
    /// inhibitor follows whether any turn runs.
    func observeForPush(method: String, params: JSONValue, threadId: String) {
        if method == "turn/started" || method == "turn/completed" || method == "bridge/turnFailed" {
            inhibitor?.update(running: book.runningCount > 0)
        }
        guard let push else { return }
        switch method {
        case "thread/started":
            if let name = params["thread"]?["name"]?.stringValue ?? params["thread"]?["preview"]?.stringValue, !name.isEmpty {
                push.signal(.threadNamed(threadId: threadId, name: PushNotice.firstLine(name, limit: 80)))
            }
        case "thread/name/updated":
            if let name = params["threadName"]?.stringValue ?? params["name"]?.stringValue, !name.isEmpty {
                push.signal(.threadNamed(threadId: threadId, name: PushNotice.firstLine(name, limit: 80)))
            }
        case "item/completed":
            if params["item"]?["type"]?.stringValue == "agentMessage", let text = params["item"]?["text"]?.stringValue {
                push.signal(.agentMessage(threadId: threadId, text: text))
            }
        case "turn/completed":
            let status = params["turn"]?["status"]?.stringValue
            guard status != "interrupted" else { return }
            let failed = status == "failed"
            let reason = params["turn"]?["error"]?["message"]?.stringValue
            push.signal(.turnEnded(threadId: threadId, failed: failed, reason: reason))
        case "bridge/turnFailed":
            push.signal(.turnEnded(threadId: threadId, failed: true, reason: params["reason"]?.stringValue))
        default:
            break
        }
    }

    /// A new approval was published.
    func approvalRequestedForPush(_ approvalId: String) {
        guard let push, let request = desks.approvals.request(approvalId) else { return }
        push.signal(.approvalRequested(request))
    }

    /// An approval was answered or cancelled.
    func approvalResolvedForPush(_ approvalId: String, decision: ApprovalDecision, deviceId: String?) {
        push?.signal(.approvalResolved(approvalId: approvalId, decision: decision, deviceId: deviceId))
    }
}

import BridgeProtocol
import BridgePush
import CodexControl

/// What the hub tells the notification side as events pass (approvals, their answers, turns that end, thread
/// names, agent messages), and the ``SleepInhibitor`` held while a turn runs: the hub calls it on the event path,
/// it decides what each event means for a notice.
struct PushSignals: Sendable {
    /// nil: notifications off.
    let push: PushCoordinator?
    /// nil: `--no-inhibit`.
    let inhibitor: SleepInhibitor?

    /// After a Codex notification was published: turn ends, names and agent messages for the notices; the
    /// inhibitor follows whether any turn runs (`running`, only read for a turn's start or end).
    func observe(_ kind: EventKind, params: JSONValue, threadId: String, running: @autoclosure () -> Int) {
        if kind == .codex(.turnStarted) || kind.endsTurn {
            inhibitor?.update(running: running() > 0)
        }
        guard let push else { return }
        switch kind {
        case .codex(.threadStarted):
            if let name = params["thread"]?["name"]?.stringValue ?? params["thread"]?["preview"]?.stringValue, !name.isEmpty {
                push.signal(.threadNamed(threadId: threadId, name: PushNotice.firstLine(name, limit: 80)))
            }
        case .codex(.threadNameUpdated):
            if let name = params["threadName"]?.stringValue ?? params["name"]?.stringValue, !name.isEmpty {
                push.signal(.threadNamed(threadId: threadId, name: PushNotice.firstLine(name, limit: 80)))
            }
        case .codex(.itemCompleted):
            if params["item"]?["type"]?.stringValue == "agentMessage", let text = params["item"]?["text"]?.stringValue {
                push.signal(.agentMessage(threadId: threadId, text: text))
            }
        case .codex(.turnCompleted):
            let status = params["turn"]?["status"]?.stringValue
            guard status != "interrupted" else { return }
            let failed = status == "failed"
            let reason = params["turn"]?["error"]?["message"]?.stringValue
            push.signal(.turnEnded(threadId: threadId, failed: failed, reason: reason))
        case .turnFailed:
            push.signal(.turnEnded(threadId: threadId, failed: true, reason: params["reason"]?.stringValue))
        default:
            break
        }
    }

    /// A new approval was published (nil: it is no longer pending).
    func approvalRequested(_ request: ApprovalRequest?) {
        guard let push, let request else { return }
        push.signal(.approvalRequested(request))
    }

    /// An approval was answered or cancelled.
    func approvalResolved(_ approvalId: String, decision: ApprovalDecision, deviceId: String?) {
        push?.signal(.approvalResolved(approvalId: approvalId, decision: decision, deviceId: deviceId))
    }
}

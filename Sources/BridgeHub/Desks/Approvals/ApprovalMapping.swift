import BridgeProtocol

/// Turns Codex's server-to-client approval requests into the bridge's `approvalRequest` fields.
enum ApprovalMapping {
    /// The bridge `type` for an approval method; nil when the method is not an approval the bridge relays.
    static func type(of method: String) -> String? {
        switch method {
        case "item/commandExecution/requestApproval", "execCommandApproval": "command"
        case "item/fileChange/requestApproval", "applyPatchApproval": "fileChange"
        case "item/permissions/requestApproval": "permissions"
        default: nil
        }
    }

    /// Codex's answer to an approval request of `method` (its `params` as asked): the v2 command and file
    /// approvals take the decision as is; `item/permissions/requestApproval` takes the permissions granted (all
    /// that were asked for, for the turn or the session; none when declined); the legacy `execCommandApproval` and
    /// `applyPatchApproval` take their own decision words.
    static func result(method: String, decision: ApprovalDecision, params: JSONValue) -> JSONValue {
        switch method {
        case "item/permissions/requestApproval":
            switch decision {
            case .accept: ["permissions": params["permissions"] ?? [:], "scope": "turn"]
            case .acceptForSession: ["permissions": params["permissions"] ?? [:], "scope": "session"]
            case .decline, .cancel: ["permissions": [:], "scope": "turn"]
            }
        case "execCommandApproval", "applyPatchApproval":
            switch decision {
            case .accept: ["decision": "approved"]
            case .acceptForSession: ["decision": "approved_for_session"]
            case .decline: ["decision": "denied"]
            case .cancel: ["decision": "abort"]
            }
        default: ["decision": .string(decision.rawValue)]
        }
    }

    /// A command as one display string (Codex sends a string or an argv array).
    static func command(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text): text
        case .array(let parts): parts.compactMap(\.stringValue).joined(separator: " ")
        default: nil
        }
    }

    static func approval(seq: Int64, approvalId: String, threadId: String, method: String, type: String, params: JSONValue)
        -> ApprovalRequest
    {
        ApprovalRequest(
            seq: seq,
            approvalId: approvalId,
            threadId: threadId,
            turnId: params["turnId"]?.stringValue,
            itemId: params["itemId"]?.stringValue,
            type: type,
            command: command(params["command"]),
            cwd: params["cwd"]?.stringValue,
            reason: params["reason"]?.stringValue,
            changes: params["changes"] ?? params["fileChanges"] ?? (type == "permissions" ? params["permissions"] : nil)
        )
    }
}

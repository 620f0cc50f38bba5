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

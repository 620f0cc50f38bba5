import BridgeProtocol
import CodexControl

/// `listPermissionProfiles`: Codex's permission profiles (`permissionProfile/list`, for a directory's
/// configuration layers), each allowed only when Codex allows it and the gate would admit it in
/// `updateThreadSettings` — a built-in profile whose sandbox this bridge allows; never a user's own profile,
/// which could grant anything.
struct PermissionProfiles: Sendable {
    let codex: any CodexRequesting
    let timeout: Duration

    /// Most profiles listed.
    static let limit = 100

    func list(cwd: String?, gate: PolicyGate) async throws -> PermissionProfileList {
        var params: [String: JSONValue] = ["limit": .number(Double(Self.limit))]
        if let cwd { params["cwd"] = .string(cwd) }
        let result = try await codex.request("permissionProfile/list", params: .object(params), timeout: timeout)
        let profiles = (result["data"]?.arrayValue ?? []).prefix(Self.limit).compactMap { entry -> PermissionProfileSummary? in
            guard let id = entry["id"]?.stringValue else { return nil }
            let sandbox = PolicyGate.permissionProfiles[id]
            let admitted = sandbox.map { gate.allowedSandboxes.contains($0) } ?? false
            return PermissionProfileSummary(
                id: String(id.prefix(128)), description: entry["description"]?.stringValue.map { String($0.prefix(500)) },
                allowed: admitted && entry["allowed"]?.boolValue == true, sandbox: sandbox)
        }
        return PermissionProfileList(profiles: Array(profiles))
    }
}

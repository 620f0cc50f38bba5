import BridgeProtocol
import CodexControl

/// `listCollaborationModes`: Codex's collaboration-mode presets (`collaborationMode/list`, experimental), each
/// one whose mode the bridge's `collaborationMode` takes (`plan`, `default`); a preset of another mode, or none, is
/// left out (a client could not ask for it). Names and models are Codex's configuration: cut to size.
struct CollaborationModes: Sendable {
    let codex: any CodexRequesting
    let timeout: Duration

    /// Most presets listed; longest name, model or effort kept.
    static let limit = 20
    static let maxText = 100

    func list() async throws -> CollaborationModeList {
        let result = try await codex.request("collaborationMode/list", params: .object([:]), timeout: timeout)
        return Self.presets(result)
    }

    static func presets(_ result: JSONValue) -> CollaborationModeList {
        let cut = { (text: String) in String(text.prefix(maxText)) }
        let presets = (result["data"]?.arrayValue ?? []).compactMap { entry -> CollaborationModePreset? in
            guard let name = entry["name"]?.stringValue, let mode = entry["mode"]?.stringValue.flatMap(CollaborationMode.init(rawValue:))
            else { return nil }
            return CollaborationModePreset(
                mode: mode, name: cut(name), model: entry["model"]?.stringValue.map(cut),
                effort: entry["reasoning_effort"]?.stringValue.map(cut))
        }
        return CollaborationModeList(modes: Array(presets.prefix(limit)))
    }
}

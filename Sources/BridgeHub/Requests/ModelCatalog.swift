import BridgeProtocol
import CodexControl
import Foundation
import Synchronization

/// The models Codex offers (`model/list`), cached for a minute, and the check of a request's model and effort.
/// Beside the hub, with its own state (the last answer).
final class ModelCatalog: Sendable {
    /// How long the model list is reused.
    static let lifetime: Duration = .seconds(60)

    /// The last `model/list`.
    private struct Cached {
        var models: [ModelInfo]
        var fetchedAt: ContinuousClock.Instant
    }

    private let codex: any CodexPort
    private let timeout: Duration
    private let cached = Mutex<Cached?>(nil)

    init(codex: any CodexPort, timeout: Duration) {
        self.codex = codex
        self.timeout = timeout
    }

    /// Every model Codex offers, hidden ones left out.
    func models() async throws -> [ModelInfo] {
        if let cached = cached.withLock({ $0 }), ContinuousClock.now - cached.fetchedAt < Self.lifetime { return cached.models }
        let result = try await codex.modelList(timeout: timeout)
        let models = (result["data"]?.arrayValue ?? []).compactMap { model -> ModelInfo? in
            guard let id = model["id"]?.stringValue ?? model["model"]?.stringValue, model["hidden"]?.boolValue != true else { return nil }
            let efforts = (model["supportedReasoningEfforts"]?.arrayValue ?? []).compactMap { $0["reasoningEffort"]?.stringValue }
            return ModelInfo(
                id: id, displayName: model["displayName"]?.stringValue ?? id, description: model["description"]?.stringValue,
                efforts: efforts, defaultEffort: model["defaultReasoningEffort"]?.stringValue,
                isDefault: model["isDefault"]?.boolValue ?? false)
        }
        cached.withLock { $0 = Cached(models: models, fetchedAt: .now) }
        return models
    }

    /// Checks a request's model and effort against what Codex offers: an unknown model, or an effort the model
    /// (the named one, else the default) does not support, is a `bad_request` listing what is available.
    func check(_ model: String?, effort: String?) async throws {
        guard model != nil || effort != nil else { return }
        let models = try await models()
        var chosen = models.first { $0.isDefault }
        if let model {
            guard let found = models.first(where: { $0.id == model }) else {
                throw HubError(.badRequest, "unknown model '\(model.prefix(64))'; available: \(models.map(\.id).joined(separator: ", "))")
            }
            chosen = found
        }
        if let effort, let chosen, !chosen.efforts.isEmpty, !chosen.efforts.contains(effort) {
            throw HubError(
                .badRequest,
                "model \(chosen.id) does not support effort '\(effort.prefix(32))'; it supports: \(chosen.efforts.joined(separator: ", "))")
        }
    }
}

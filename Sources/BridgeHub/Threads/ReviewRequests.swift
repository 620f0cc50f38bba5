import BridgeProtocol
import CodexControl

/// `startReview`: Codex's `review/start`, inline on the thread (a new turn whose events carry the findings), with
/// the thread's policy (it is resumed with it first, like any turn).
struct ReviewRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.startReview) { (services, review: StartReview, context) in
            let target = try Self.codexTarget(review.target)
            try await services.ensureLoaded(review.threadId, policy: context.policy)
            guard await !services.hub.isBusy(review.threadId) else {
                throw HubError(.conflict, "a turn is running on thread \(review.threadId); review when it ends")
            }
            let turnId = try await services.codex.reviewStart(
                threadId: review.threadId, target: target, timeout: services.policy.codexTimeout)
            await services.hub.reviewStarted(review.threadId, turnId: turnId)
            return .accepted(Accepted(threadId: review.threadId, turnId: turnId))
        }
    }

    /// Codex's `target` for a review, refused `bad_request` when it names no plain branch or sha.
    static func codexTarget(_ target: ReviewTarget) throws -> JSONValue {
        switch target {
        case .uncommitted:
            return ["type": "uncommittedChanges"]
        case .base(let branch):
            guard isPlainRef(branch) else {
                throw HubError(.badRequest, "base must be a branch name (1 to 200 characters, no spaces or control characters)")
            }
            return ["type": "baseBranch", "branch": .string(branch)]
        case .commit(let sha):
            guard (4...64).contains(sha.count), sha.allSatisfy(\.isHexDigit) else {
                throw HubError(.badRequest, "commit must be a hexadecimal sha of 4 to 64 digits")
            }
            return ["type": "commit", "sha": .string(sha)]
        }
    }

    /// A branch name git could take: no whitespace, control characters, `..` or a leading `-`.
    static func isPlainRef(_ name: String) -> Bool {
        (1...200).contains(name.count) && !name.hasPrefix("-") && !name.contains("..")
            && !name.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || "~^:?*[\\".unicodeScalars.contains($0) }
    }
}

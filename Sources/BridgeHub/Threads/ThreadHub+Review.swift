import BridgeProtocol
import CodexControl
import Foundation

/// `startReview`: Codex's `review/start`, inline on the thread (a new turn whose events carry the findings), with
/// the thread's policy (it is resumed with it first, like any turn).
extension ThreadHub {
    func startReview(_ review: StartReview, policy turnPolicy: TurnPolicy) async throws -> Accepted {
        let target: JSONValue
        switch review.target {
        case .uncommitted:
            target = ["type": "uncommittedChanges"]
        case .base(let branch):
            guard Self.isPlainRef(branch) else {
                throw HubError(.badRequest, "base must be a branch name (1 to 200 characters, no spaces or control characters)")
            }
            target = ["type": "baseBranch", "branch": .string(branch)]
        case .commit(let sha):
            guard (4...64).contains(sha.count), sha.allSatisfy(\.isHexDigit) else {
                throw HubError(.badRequest, "commit must be a hexadecimal sha of 4 to 64 digits")
            }
            target = ["type": "commit", "sha": .string(sha)]
        }
        try await ensureLoaded(review.threadId, policy: turnPolicy)
        if book.runningTurn(of: review.threadId) != nil || desks.queue.isBusy(review.threadId) {
            throw HubError(.conflict, "a turn is running on thread \(review.threadId); review when it ends")
        }
        let turnId = try await codex.reviewStart(threadId: review.threadId, target: target, timeout: policy.codexTimeout)
        return Accepted(threadId: review.threadId, turnId: turnId)
    }

    /// A branch name git could take: no whitespace, control characters, `..` or a leading `-`.
    static func isPlainRef(_ name: String) -> Bool {
        (1...200).contains(name.count) && !name.hasPrefix("-") && !name.contains("..")
            && !name.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || "~^:?*[\\".unicodeScalars.contains($0) }
    }
}

import Foundation

/// What `startReview` reviews: `"uncommitted"` (staged, unstaged and new files), `{"base": BRANCH}` (the
/// changes against a branch) or `{"commit": SHA}` (one commit).
public enum ReviewTarget: Codable, Sendable, Hashable {
    case uncommitted
    case base(String)
    case commit(String)

    private enum Keys: String, CodingKey { case base, commit }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard text == "uncommitted" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown target \(text)"))
            }
            self = .uncommitted
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        if let branch = try container.decodeIfPresent(String.self, forKey: .base) {
            self = .base(branch)
        } else if let sha = try container.decodeIfPresent(String.self, forKey: .commit) {
            self = .commit(sha)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "target must be \"uncommitted\", {base} or {commit}"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .uncommitted:
            var container = encoder.singleValueContainer()
            try container.encode("uncommitted")
        case .base(let branch):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(branch, forKey: .base)
        case .commit(let sha):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(sha, forKey: .commit)
        }
    }
}

/// `startReview {threadId, target}`: Codex reviews the thread's directory as a new turn of the thread
/// (`review/start`); its findings stream as that turn's events.
public struct StartReview: ThreadPayload {
    public var threadId: String
    public var target: ReviewTarget
    public init(threadId: String, target: ReviewTarget) {
        self.threadId = threadId
        self.target = target
    }
}

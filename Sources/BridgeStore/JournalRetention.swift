import Foundation

/// How long journaled messages and request answers are kept.
public struct JournalRetention: Sendable, Hashable {
    /// Entries older than this are pruned (default 7 days).
    public var maxAge: TimeInterval
    /// The oldest entries beyond this many bytes of frames in total are pruned (default 256 MiB).
    public var maxBytes: Int64
    /// Request answers are kept this long for retries (default 1 hour; at least 10 minutes is promised).
    public var answerMaxAge: TimeInterval
    /// Time between pruning passes (default: a minute, or a quarter of `maxAge` when that is shorter, at
    /// least 0.2 s).
    public var interval: TimeInterval

    public init(
        maxAge: TimeInterval = 7 * 24 * 3600, maxBytes: Int64 = 256 << 20, answerMaxAge: TimeInterval = 3600, interval: TimeInterval? = nil
    ) {
        self.maxAge = maxAge
        self.maxBytes = maxBytes
        self.answerMaxAge = answerMaxAge
        self.interval = interval ?? min(60, max(0.2, maxAge / 4))
    }
}

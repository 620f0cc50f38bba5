/// `accountUsage {}` (observe) → `accountUsage {summary, dailyUsageBuckets?}`: the account's token use as Codex
/// reads it from ChatGPT's backend (`account/usage/read`; it needs Codex signed in with ChatGPT).
public struct AccountUsageRequest: RequestPayload {
    public init() {}
}

/// The answer to `accountUsage`.
public struct AccountUsage: Codable, Sendable, Hashable {
    public var summary: AccountUsageSummary
    /// Tokens per day, oldest first; at most the last ``AccountUsage/maxDays``. Absent when Codex gives none.
    public var dailyUsageBuckets: [AccountUsageDay]?
    public init(summary: AccountUsageSummary, dailyUsageBuckets: [AccountUsageDay]? = nil) {
        self.summary = summary
        self.dailyUsageBuckets = dailyUsageBuckets
    }

    /// Most days kept.
    public static let maxDays = 31
}

/// The account's totals; each absent when the backend does not say.
public struct AccountUsageSummary: Codable, Sendable, Hashable {
    public var lifetimeTokens: Int?
    public var peakDailyTokens: Int?
    public var longestRunningTurnSec: Int?
    public var currentStreakDays: Int?
    public var longestStreakDays: Int?
    public init(
        lifetimeTokens: Int? = nil, peakDailyTokens: Int? = nil, longestRunningTurnSec: Int? = nil, currentStreakDays: Int? = nil,
        longestStreakDays: Int? = nil
    ) {
        self.lifetimeTokens = lifetimeTokens
        self.peakDailyTokens = peakDailyTokens
        self.longestRunningTurnSec = longestRunningTurnSec
        self.currentStreakDays = currentStreakDays
        self.longestStreakDays = longestStreakDays
    }
}

/// One day's tokens: `startDate` as the backend gives it (`YYYY-MM-DD`).
public struct AccountUsageDay: Codable, Sendable, Hashable {
    public var startDate: String
    public var tokens: Int
    public init(startDate: String, tokens: Int) {
        self.startDate = startDate
        self.tokens = tokens
    }
}

import BridgeProtocol
import CodexControl

/// `accountUsage`: Codex's `account/usage/read` (the account's token use from ChatGPT's backend), typed and
/// bounded: numbers only, the last ``AccountUsage/maxDays`` days by date. Without a ChatGPT sign-in Codex refuses
/// it, and the phone gets Codex's message (`codex_error`).
struct AccountUsageReader: Sendable {
    let codex: any CodexRequesting
    let timeout: Duration

    func read() async throws -> AccountUsage {
        Self.usage(try await codex.request("account/usage/read", params: .null, timeout: timeout))
    }

    static func usage(_ result: JSONValue) -> AccountUsage {
        let summary = result["summary"]
        let int = { (value: JSONValue?) -> Int? in
            guard let number = value?.numberValue, number.isFinite, abs(number) < 1e15 else { return nil }
            return Int(number)
        }
        let days = result["dailyUsageBuckets"]?.arrayValue?.compactMap { bucket -> AccountUsageDay? in
            guard let date = bucket["startDate"]?.stringValue, date.count <= 32, let tokens = int(bucket["tokens"]) else { return nil }
            return AccountUsageDay(startDate: date, tokens: tokens)
        }
        return AccountUsage(
            summary: AccountUsageSummary(
                lifetimeTokens: int(summary?["lifetimeTokens"]), peakDailyTokens: int(summary?["peakDailyTokens"]),
                longestRunningTurnSec: int(summary?["longestRunningTurnSec"]), currentStreakDays: int(summary?["currentStreakDays"]),
                longestStreakDays: int(summary?["longestStreakDays"])),
            dailyUsageBuckets: days.map { Array($0.sorted { $0.startDate < $1.startDate }.suffix(AccountUsage.maxDays)) })
    }
}

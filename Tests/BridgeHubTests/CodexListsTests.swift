import BridgeProtocol
import Foundation
import Testing

@testable import BridgeHub

/// What the bridge keeps of Codex's collaboration-mode presets and of the account's usage: Codex 0.163's own
/// answers (recorded from `collaborationMode/list` and `account/usage/read`), then the bounds.
@Suite struct CodexListsTests {
    static func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    @Test func collaborationModesAsCodexListsThem() throws {
        let recorded = try Self.json(
            #"{"data":[{"name":"Plan","mode":"plan","model":null,"reasoning_effort":"medium"},{"name":"Default","mode":"default","model":null,"reasoning_effort":null}]}"#
        )
        #expect(
            CollaborationModes.presets(recorded).modes == [
                CollaborationModePreset(mode: .plan, name: "Plan", effort: "medium"),
                CollaborationModePreset(mode: .default, name: "Default"),
            ])
    }

    @Test func aPresetTheBridgeCannotAskForIsLeftOutAndTheListIsBounded() throws {
        let long = String(repeating: "n", count: 500)
        var entries = [#"{"name":"Pair","mode":"pair_programming"}"#, #"{"mode":"plan"}"#, #"{"name":"\#(long)","mode":"plan"}"#]
        entries += (0..<30).map { #"{"name":"D\#($0)","mode":"default"}"# }
        let modes = CollaborationModes.presets(try Self.json(#"{"data":[\#(entries.joined(separator: ","))]}"#)).modes
        #expect(modes.count == CollaborationModes.limit)
        #expect(modes[0].mode == .plan && modes[0].name.count == CollaborationModes.maxText)
        #expect(modes.dropFirst().allSatisfy { $0.mode == .default })
    }

    @Test func accountUsageAsCodexReadsIt() throws {
        let recorded = try Self.json(
            #"{"summary":{"lifetimeTokens":1234567,"peakDailyTokens":90000,"longestRunningTurnSec":600,"currentStreakDays":3,"longestStreakDays":null},"dailyUsageBuckets":[{"startDate":"2026-11-28","tokens":7000},{"startDate":"2026-11-27","tokens":5000}],"threadUsage":null}"#
        )
        let usage = AccountUsageReader.usage(recorded)
        #expect(
            usage.summary
                == AccountUsageSummary(lifetimeTokens: 1_234_567, peakDailyTokens: 90000, longestRunningTurnSec: 600, currentStreakDays: 3))
        #expect(
            usage.dailyUsageBuckets == [
                AccountUsageDay(startDate: "2026-11-27", tokens: 5000), AccountUsageDay(startDate: "2026-11-28", tokens: 7000),
            ])
    }

    @Test func accountUsageKeepsTheLastDaysAndNumbersOnly() throws {
        let days = (1...40).map { #"{"startDate":"2026-10-\#(String(format: "%02d", $0))","tokens":\#($0)}"# }
        let usage = AccountUsageReader.usage(
            try Self.json(
                #"{"summary":{"lifetimeTokens":"lots"},"dailyUsageBuckets":[\#(days.joined(separator: ",")),{"startDate":"x","tokens":"y"}]}"#
            ))
        #expect(usage.summary == AccountUsageSummary())
        #expect(usage.dailyUsageBuckets?.count == AccountUsage.maxDays)
        #expect(usage.dailyUsageBuckets?.first?.tokens == 10 && usage.dailyUsageBuckets?.last?.tokens == 40)
        #expect(AccountUsageReader.usage(try Self.json(#"{"summary":{}}"#)).dailyUsageBuckets == nil)
    }
}

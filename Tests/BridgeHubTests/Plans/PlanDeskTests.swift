import BridgeProtocol
import Testing

@testable import BridgeHub

/// The plan desk alone: which model and effort a collaboration mode names.
@Suite struct PlanDeskTests {
    @Test func theRequestsModelElseTheThreadsWithItsEffortOnlyForTheSameModel() throws {
        var desk = PlanDesk()
        #expect(throws: HubError.self) { try desk.settings(of: "t", model: nil, effort: nil) }
        desk.learn(thread: ["id": "t", "model": "gpt-a", "reasoningEffort": "high"])
        #expect(try desk.settings(of: "t", model: nil, effort: nil) == PlanDesk.ModelSettings(model: "gpt-a", effort: "high"))
        #expect(try desk.settings(of: "t", model: "gpt-a", effort: "low") == PlanDesk.ModelSettings(model: "gpt-a", effort: "low"))
        #expect(try desk.settings(of: "t", model: "gpt-b", effort: nil) == PlanDesk.ModelSettings(model: "gpt-b", effort: nil))
    }
}
